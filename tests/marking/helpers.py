"""Shorthands the marking tests share. Expected values are worked out by hand in the tests'
comments where they are not obvious."""
from __future__ import annotations

from core.marking import INTERNAL_ERROR, MarkingSpec, mark_answer


def ok(spec: MarkingSpec, answer) -> bool:
    result = mark_answer(spec, answer)
    assert result.refused != INTERNAL_ERROR, (answer, result)
    return result.correct


def crit(*tags_marks):
    return [{"step": f"step {i + 1}", "marks": m, "gap_tag": t} for i, (t, m) in enumerate(tags_marks)]


def num(key, **kw) -> MarkingSpec:
    return MarkingSpec("numeric_tolerance", key, **kw)


def alg(key, **kw) -> MarkingSpec:
    return MarkingSpec("algebraic_equivalence", key, answer_type="expression", **kw)
