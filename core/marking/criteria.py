"""Marks from a method's verdict: partial credit by the question's criteria, and gap tags.

A wrong answer explained by a misconception fails the criteria that carry its
gap tag; a right value in the wrong form fails only the final criterion; an
unexplained wrong answer fails them all.
"""
from __future__ import annotations

import math

from core.marking.spec import CriterionVerdict, MarkingSpec, MarkResult, _Outcome


# A failed form or significant-figures check costs the criterion that carries
# the final "communication" mark; these tags name it, else the last criterion.
FINAL_MARK_TAGS = ("communication", "units", "unit", "form", "significant_figures", "rounding", "notation")


def _final_criterion(criteria: list[dict]) -> int:
    for i in range(len(criteria) - 1, -1, -1):
        if (criteria[i].get("gap_tag") or "") in FINAL_MARK_TAGS:
            return i
    return len(criteria) - 1


def _finish(spec: MarkingSpec, out: _Outcome) -> MarkResult:
    criteria = spec.criteria
    max_score = spec.max_score
    tag = spec.misconception_tags.get(out.misconception) if out.misconception else None
    verdicts: list[CriterionVerdict] = []
    score: float
    # A choose-several question's fractions always give part marks: that is what they are for.
    part_marks = spec.partial_credit or spec.method == "multiple_response"
    if out.refused is not None:
        verdicts = [CriterionVerdict(c["step"], c["marks"], 0, False, c["gap_tag"]) for c in criteria]
        return MarkResult(False, 0.0, float(max_score), spec.method, out.feedback, None, verdicts, [],
                          None, out.refused, valid=False)
    if out.correct:
        verdicts = [CriterionVerdict(c["step"], c["marks"], c["marks"], True, c["gap_tag"]) for c in criteria]
        score = float(max_score)
    elif criteria and out.earned is not None and part_marks:
        left = math.floor(max_score * out.earned)
        for c in criteria:
            met = c["marks"] <= left
            left -= c["marks"] if met else 0
            verdicts.append(CriterionVerdict(c["step"], c["marks"], c["marks"] if met else 0, met, c["gap_tag"]))
        score = float(sum(v.awarded for v in verdicts))
    elif criteria:
        if out.misconception:
            failing = {i for i, c in enumerate(criteria) if tag and c["gap_tag"] == tag} or {len(criteria) - 1}
        elif out.form_failure:
            failing = {_final_criterion(criteria)}
        else:
            failing = set(range(len(criteria)))
        for i, c in enumerate(criteria):
            met = i not in failing
            # Without partial credit the verdicts still diagnose, but nothing is awarded.
            awarded = c["marks"] if met and spec.partial_credit else 0
            verdicts.append(CriterionVerdict(c["step"], c["marks"], awarded, met, c["gap_tag"]))
        score = float(sum(v.awarded for v in verdicts))
    elif out.earned is not None and spec.method == "multiple_response":
        # The options' fractions are shares of the marks (Moodle's): kept to two decimal places, not floored.
        score = round(float(max_score * out.earned), 2)
    elif out.earned is not None and part_marks:
        score = float(math.floor(max_score * out.earned))
    else:
        score = 0.0
    gap_tags: list[str] = []
    for v in verdicts:
        if not v.met and v.gap_tag and v.gap_tag not in gap_tags:
            gap_tags.append(v.gap_tag)
    if tag and tag not in gap_tags:
        gap_tags.append(tag)
    return MarkResult(out.correct, score, float(max_score), spec.method, out.feedback, out.normalised,
                      verdicts, gap_tags, out.misconception, None, read_as=out.normalised,
                      read_as_latex=out.latex, notes=list(out.notes), valid=not out.invalid)
