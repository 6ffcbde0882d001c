"""Question banks: the centre's own questions and past-paper / Understanding Standards questions.

A bank is a JSON file (a list of question objects, or ``{"questions": [...]}``)
or a CSV file with a header row, in the seed's Question schema plus what
marking needs (answer, item type, options, tolerance, keywords ...). Every
good row becomes an ``Item`` like a generated one, so practice, exams and
marking treat bank questions and blueprint questions alike.

A bank file is teacher input from anywhere: nothing in it is evaluated except
through ``core.blueprints.formula``, and every problem is reported against the
row and column a teacher sees in a spreadsheet, one sentence each, while the
good rows are kept.

A question may carry a formula (template, variables, values, answer_formula)
so that ``mutate_bank_question`` can give it new numbers with a recomputed key.
"""
from core.items.banks.fields import (ANSWER_TYPES, CALCULATOR, DEFAULT_METHOD, DIFFICULTY_VALUES, FIELDS,
                                     FORMULA_FIELDS, ITEM_TYPES, METADATA_SHORTCUTS, METHODS, SOURCES)
from core.items.banks.files import MAX_BYTES, MAX_ROWS, parse_bank
from core.items.banks.importing import BANKS_DIR, import_bank, import_shipped_banks
from core.items.banks.numbers import key_text, parse_number
from core.items.banks.reports import BankImport, BankQuestionError, RowError
from core.items.banks.rows import bank_question_to_item
from core.items.banks.variables import MAX_LISTED_VALUES, MAX_VARIABLE_VALUES, check_variables
from core.items.banks.variants import ENUMERATE_LIMIT, RANDOM_DRAWS, mutate_bank_question

__all__ = [
    "ANSWER_TYPES", "CALCULATOR", "DEFAULT_METHOD", "DIFFICULTY_VALUES", "FIELDS", "FORMULA_FIELDS", "ITEM_TYPES",
    "METADATA_SHORTCUTS", "METHODS", "SOURCES",
    "MAX_BYTES", "MAX_ROWS", "MAX_LISTED_VALUES", "MAX_VARIABLE_VALUES", "ENUMERATE_LIMIT", "RANDOM_DRAWS",
    "BankImport", "BankQuestionError", "RowError",
    "parse_number", "key_text", "check_variables", "bank_question_to_item", "parse_bank", "import_bank",
    "import_shipped_banks", "BANKS_DIR", "mutate_bank_question",
]
