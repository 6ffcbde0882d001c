"""Safe evaluation of the expressions that blueprints carry.

Answer formulas, constraints, conditions, computed values and distractor
formulas come from YAML files a teacher may have downloaded from anywhere, so
they are treated as hostile. Two layers guard them:

1. ``compile_formula`` (``whitelist``) parses the text and walks the syntax
   tree against a whitelist; only whitelisted functions (``functions``) may be
   called and only names the caller declares may be read.
2. The tree is evaluated (``evaluation``) by simpleeval with size-bounded
   operators (``bounds``: power, multiplication, addition, shifts), wrapped
   functions that refuse oversized arguments and results, and a deadline
   checked at every node; ``time_budget`` bounds a whole task of many
   evaluations (``TimeBudgetExceeded`` when it runs out).

Every refusal or failure is a ``FormulaError`` (``errors``). Everything is
importable from here.
"""
from __future__ import annotations

from core.blueprints.formula.bounds import (MAX_COLLECTION_LEN, MAX_FORMAT_WIDTH, MAX_INT_BITS, MAX_NESTED_CHARS,
                                            MAX_NESTED_DEPTH, MAX_NESTED_ITEMS, MAX_STR_LEN, check_nested)
from core.blueprints.formula.errors import FormulaError
from core.blueprints.formula.evaluation import (DEFAULT_TIME_LIMIT_S, TimeBudgetExceeded, check_time_budget,
                                                evaluate_compiled, time_budget)
from core.blueprints.formula.functions import CONSTANTS, FUNCTIONS
from core.blueprints.formula.whitelist import (MAX_DEPTH, MAX_LITERAL_STR_LEN, MAX_NODES, MAX_SOURCE_CHARS, Formula,
                                               compile_formula, safe_eval)

__all__ = ["FormulaError", "Formula", "compile_formula", "evaluate_compiled", "safe_eval", "FUNCTIONS", "CONSTANTS",
           "MAX_SOURCE_CHARS", "MAX_NODES", "MAX_DEPTH", "MAX_INT_BITS", "MAX_STR_LEN", "MAX_LITERAL_STR_LEN",
           "MAX_COLLECTION_LEN", "MAX_NESTED_ITEMS", "MAX_NESTED_CHARS", "MAX_NESTED_DEPTH", "MAX_FORMAT_WIDTH",
           "DEFAULT_TIME_LIMIT_S", "TimeBudgetExceeded", "time_budget", "check_time_budget", "check_nested"]
