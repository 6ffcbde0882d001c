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
MAX_DOMAIN = 10_000_000


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

