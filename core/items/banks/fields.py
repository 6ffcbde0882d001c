"""What a bank question may say: its fields, and the values allowed where a field is a choice."""
from __future__ import annotations

SOURCES = ("local", "past", "us")
ITEM_TYPES = ("multiple_choice", "numeric", "algebraic", "short_text")
METHODS = ("exact_match", "numeric_tolerance", "algebraic_equivalence", "mcq", "short_text")
DEFAULT_METHOD = {"multiple_choice": "mcq", "numeric": "numeric_tolerance",
                  "algebraic": "algebraic_equivalence", "short_text": "short_text"}
ANSWER_TYPES = ("integer", "decimal", "fraction", "string", "expression")
DIFFICULTY_VALUES = {"easy": 0.3, "medium": 0.5, "hard": 0.7}
CALCULATOR = ("none", "optional", "required")
FORMULA_FIELDS = ("template", "variables", "values", "answer_formula")

# Flat columns a spreadsheet is likely to have; they land in metadata so a CSV
# need not carry a JSON cell just to say "hard" or "2019". ``skill`` names the
# skill blueprint a question practises (an exam asks one skill at most so
# many times per paper, bank questions included). ``teaching`` is what a lesson
# teaches before a question that no skill blueprint fits (a few plain sentences).
METADATA_SHORTCUTS = ("difficulty", "calculator", "year", "paper", "created_by", "skill", "teaching")
MAX_TEACHING = 5_000

FIELDS = frozenset({
    "id", "source", "subject", "level", "outcome_id", "text", "marks", "marking_scheme", "metadata",
    "answer", "item_type", "options", "correct_index", "method", "tolerance_relative", "tolerance_absolute",
    "keywords", "explanation", "units", "hints", "accepted_answers", "answer_type", "answer_decimals",
    "answer_sig_figs", "template", "variables", "values", "answer_formula", "constraints",
    "explanation_template", *METADATA_SHORTCUTS,
})
