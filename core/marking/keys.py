"""Whether a question's own answer key can be marked: the check every path into "approved" makes.

A key the marker cannot read, or that does not mark itself right, would mark
every student wrong; such an item must never reach a student.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Optional


def key_as_typed(spec: Any) -> Any:
    """The key as a student would type it: with the question's units when it has physical units
    (the key 12 for a question in m/s is typed "12 m/s"); the option's index for multiple choice; the right
    options' letters ("A, C") for a choose-several question."""
    if spec.method == "mcq":
        return spec.correct_index
    if spec.method == "multiple_response":
        from core.marking.choices import letters, read_letters
        right, _ = read_letters(spec.key, len(spec.options))
        return letters(right) if right else spec.key
    if spec.method == "numeric_tolerance" and spec.units:
        from core.marking.numeric import _spec_units
        from core.marking.units import physical
        scale, _ = _spec_units(spec.units)
        if scale is None and physical(spec.units) and not any(c.isalpha() for c in spec.key.replace("e", "")):
            return f"{spec.key} {spec.units}"
    return spec.key


def key_problem(spec: Any) -> Optional[str]:
    """None when the marker reads the key and marks it right, else one sentence saying what is wrong."""
    from core.marking import mark_answer
    if spec.method == "multiple_response":
        # The key must name existing options, and the fractions must give the right ones all the marks.
        from core.marking.choices import key_problem as choice_key_problem
        problem = choice_key_problem(spec.key, spec.options, spec.fractions)
        if problem is not None:
            return problem
    answer: Any = key_as_typed(spec)
    result = mark_answer(spec, answer)
    if result.correct:
        return None
    reason = (result.refused or result.feedback or "").rstrip(".")
    return f"the marker does not accept the answer key '{spec.key}' as right ({reason})"


# Marking specs whose key the marker accepted (by their repr): a class paper's questions are checked once, not
# once per student. A refusal is never kept: it may be a bounded evaluation that ran out of time under load.
_ACCEPTED: dict[str, bool] = {}
_ACCEPTED_MAX = 4096


def item_key_problem(item: Any, blueprint: Any = None) -> Optional[str]:
    """None when the item (an Item or its dict) has a key the marker reads and accepts, else why not."""
    from core.marking.spec import MarkingSpec, MarkingSpecError
    try:
        spec = MarkingSpec.from_item(item, blueprint)
    except MarkingSpecError as exc:
        return str(exc)
    return spec_key_problem(spec)


_UNKEYED = ("misconception_tags",)   # the distractors' gap tags: labels, no part of whether a key marks


def spec_key_problem(spec: Any) -> Optional[str]:
    """``key_problem(spec)``, remembered once accepted (an exam's marking reuses the check made ahead)."""
    fingerprint = repr([getattr(spec, f.name) for f in dataclasses.fields(spec) if f.name not in _UNKEYED])
    if fingerprint in _ACCEPTED:
        return None
    problem = key_problem(spec)
    if problem is None:
        if len(_ACCEPTED) >= _ACCEPTED_MAX:
            _ACCEPTED.clear()
        _ACCEPTED[fingerprint] = True
    return problem
