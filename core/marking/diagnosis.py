"""Diagnosis: what a gap tag or a matched misconception means, in words a student reads."""
from __future__ import annotations

from typing import Any, Optional

# What each gap tag means, for students. A blueprint's own tags say nothing readable on their own (they are
# labels such as "photoelectric_equation"), so only these are shown as a concept; the others are left to
# the skill's teaching and the misconception's explanation.
GAP_CONCEPTS = {
    "place_value": "Place value: each column is worth ten times the one to its right.",
    "carrying": "Carrying: when a column adds up to ten or more, carry one into the next column.",
    "borrowing": "Borrowing: take one from the next column when the top digit is smaller.",
    "operation_choice": "Choosing the operation: read which operation the question asks for.",
    "equation_selection": "Choose the relationship (equation) that links what you know to what you want.",
    "substitution": "Substitute each value into the right place in the equation, in consistent units.",
    "calculation": "Carry out the arithmetic carefully; check the order of operations.",
    "units": "State the answer with its unit.",
    "strategy": "Plan the method before calculating.",
    "process": "Carry the method through step by step.",
    "communication": "Give the final answer clearly, rounded as asked.",
    "rounding": "Round only at the end, to the accuracy asked for.",
    "significant_figures": "Give the answer to a sensible number of significant figures.",
}


def concept_for(tag: str) -> Optional[str]:
    """The readable concept behind a gap tag, or None for a tag that is only a label."""
    return GAP_CONCEPTS.get(tag)


def _strategy(item: Any, strategy: Optional[str], library: Any) -> Any:
    if not strategy or not item.blueprint_id or library is None or item.blueprint_id not in library.generators:
        return None
    for s in library.generator(item.blueprint_id).bp.presentation.distractor_strategies:
        if s.type == strategy:
            return s
    return None


def misconception_text(item: Any, strategy: Optional[str], library: Any) -> Optional[str]:
    """The blueprint's description of the misconception an answer matched (the mistake, as a teacher names it)."""
    s = _strategy(item, strategy, library)
    if s is None:
        return None
    return s.description or strategy.replace("_", " ")


def misconception_explanation(item: Any, strategy: Optional[str], library: Any) -> Optional[str]:
    """What a student who made the matched mistake needs to know, when the blueprint says."""
    s = _strategy(item, strategy, library)
    return s.explanation.strip() if s is not None and s.explanation else None
