"""What every blueprint model shares: strict fields, path-precise failures, the id patterns and the field types."""
from __future__ import annotations

from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict

ItemType = Literal["multiple_choice", "numeric", "algebraic", "short_text"]
AnswerType = Literal["integer", "decimal", "string", "fraction", "expression"]
EvaluationMethod = Literal["exact_match", "numeric_tolerance", "algebraic_equivalence", "mcq", "short_text"]
CognitiveLevel = Literal["Remember", "Understand", "Apply", "Analyze", "Analyse", "Evaluate", "Create"]
Calculator = Literal["none", "optional", "required"]
Scalar = Union[int, float, str]

SKILL_ID_PATTERN = r"^[A-Z][A-Z0-9_]*(\.[A-Z0-9_]+)+$"
ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$"
# Sizes a blueprint may declare. Every parameter's values are listed in memory and sampled from, and
# every formula is evaluated for every item, so these bound what one file can make the workbench do.
MAX_DOMAIN = 1_000_000          # values one parameter may take
MAX_TOTAL_VALUES = 2_000_000    # values of all a blueprint's parameters together
MAX_LISTED = 10_000             # values listed by hand (a choice parameter's values, exclusions)
MAX_TEXT_VALUE = 1_000          # characters of one listed text value
MAX_PARAMETERS = 50
MAX_TABLES = 50
MAX_TABLE_ENTRIES = 1_000       # entries of one table (nested entries are bounded like a formula's lists)
MAX_COMPUTED = 100
MAX_LEVELS = 20
MAX_CONSTRAINTS = 50            # per difficulty level
MAX_STRATEGIES = 30             # distractor strategies; also distractor checks and difficulty adjustments
MAX_TEMPLATES = 50              # stem templates (hints: MAX_HINTS)
MAX_HINTS = 20
MAX_TEMPLATE_CHARS = 5_000
MAX_CRITERIA = 30
MAX_ANSWERS = 50                # accepted answers, answer variables
MAX_KEYWORDS = 200
MAX_TAGS = 100                  # outcome ids, tags, benchmarks


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False)


def fail(path: str, message: str) -> None:
    """Raise a validation error that points below the model being checked.

    Pydantic reports errors from a model validator at the model itself; the
    loader reads the ``@path@`` marker and appends it to the error location.
    """
    raise ValueError(f"@{path}@ {message}")


def _version_text(value: Any) -> Any:
    # YAML reads `version: 1.0` as a float; teachers mean the text "1.0".
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value

