"""Shared pieces for answer oracles."""
from __future__ import annotations

import dataclasses


@dataclasses.dataclass(frozen=True)
class Expr:
    """An algebraic answer written in sympy syntax, e.g. Expr('6*x**2 + 5*x - 6')."""

    text: str
