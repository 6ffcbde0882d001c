"""The one error every layer of the formula guard raises.

A ValueError, so callers that validate blueprints can treat a refused formula
like any other invalid field; it carries the expression so the message can
point at it.
"""
from __future__ import annotations


class FormulaError(ValueError):
    """An expression was refused at compile time or failed at evaluation."""

    def __init__(self, message: str, expression: str | None = None):
        self.message = message
        self.expression = expression
        super().__init__(message)
