"""The report tables as a teacher reads them: 95% intervals beside the figures, a "few answers" mark on rows
that rest on too little, what to do where the figures suggest something, and one line saying how many rows
are marked.

Every function takes a table the other reports return and gives a
``Reading``: the table with those columns added, and the warning (None when
every row rests on enough). Thresholds and words come from
``core.analytics.evidence`` and ``core.analytics.explain``.
"""
from __future__ import annotations

import dataclasses
import textwrap
from typing import Optional

import numpy as np
import pandas as pd

from core.analytics import evidence as ev
from core.analytics import explain


@dataclasses.dataclass
class Reading:
    frame: pd.DataFrame
    note: Optional[str]    # the small-number warning; None when every row rests on enough


def _marked(frame: pd.DataFrame, count: str, threshold: int, what: str, unit: str = "answers",
            figure: str = "figures") -> Reading:
    out = frame.copy()
    if out.empty:
        return Reading(out, None)
    out["few_answers"] = ev.few(out[count], threshold)
    return Reading(out, ev.few_note(out["few_answers"], what, threshold, unit, figure))


def _share_interval(out: pd.DataFrame, share: str, n: str, name: str) -> None:
    """``name``_low and ``name``_high: the Wilson interval of ``share`` over ``n`` answers."""
    low, high = ev.wilson(out[share].astype(float) * out[n], out[n])
    out[f"{name}_low"], out[f"{name}_high"] = low, high


def students(per_student: pd.DataFrame) -> Reading:
    """The class's students with the 95% interval of their accuracy; few answers under FEW_ANSWERS_STUDENT."""
    read = _marked(per_student, "responses", ev.FEW_ANSWERS_STUDENT, "students", figure="accuracy")
    if not read.frame.empty:
        _share_interval(read.frame, "accuracy", "responses", "accuracy")
    return read


def abilities(ability: pd.DataFrame) -> Reading:
    """Abilities (student, theta, low, high, n) marked where they rest on fewer than FEW_ANSWERS_STUDENT answers."""
    return _marked(ability, "n", ev.FEW_ANSWERS_STUDENT, "students' abilities", figure="ability")


def weakest(weak: pd.DataFrame) -> Reading:
    """The class's weakest skills, marked where the class has fewer than FEW_ANSWERS_SHARE practice answers."""
    return _marked(weak, "n_responses", ev.FEW_ANSWERS_SHARE, "skills", unit="practice answers from the class",
                   figure="mastery")


def student_mastery(current: pd.DataFrame) -> Reading:
    """One student's mastery by skill, marked where it rests on fewer than FEW_ANSWERS_MASTERY answers."""
    return _marked(current, "n_responses", ev.FEW_ANSWERS_MASTERY, "skills", figure="mastery")


def item_table(table: pd.DataFrame) -> Reading:
    """Facility and discrimination per unit, with facility's Wilson interval, the difficulty's 95% interval (when
    calibrated), few answers under FEW_ANSWERS_ITEM and advice."""
    read = _marked(table, "n", ev.FEW_ANSWERS_ITEM, "rows", figure="facility and discrimination")
    out = read.frame
    if out.empty:
        return read
    _share_interval(out, "facility", "n", "facility")
    if "se" in out.columns:
        out["low"], out["high"] = ev.interval(out["difficulty"], out["se"])
    discrimination = out["point_biserial"] if "point_biserial" in out.columns else out.get("upper_lower")
    outfit = out["outfit"] if "outfit" in out.columns else pd.Series(np.nan, index=out.index)
    out["advice"] = [f"too few answers to judge yet ({int(n)} of {ev.FEW_ANSWERS_ITEM})" if f else
                     explain.item_advice(fac, d, o)
                     for f, n, fac, d, o in zip(out["few_answers"], out["n"], out["facility"], discrimination, outfit)]
    return read


def units(params: pd.DataFrame) -> Reading:
    """A calibration's units with their difficulty's 95% interval, few answers under FEW_ANSWERS_UNIT, and advice
    from fit (infit/outfit) and, in 2PL, the slope."""
    read = _marked(params, "n", ev.FEW_ANSWERS_UNIT, "calibrated units", figure="difficulty")
    out = read.frame
    if out.empty:
        return read
    out["low"], out["high"] = ev.interval(out["difficulty"], out["se_difficulty"])
    advice = []
    for r in out.itertuples():
        if r.few_answers:
            advice.append(f"few answers ({int(r.n)} of {ev.FEW_ANSWERS_UNIT}): the difficulty leans on the declared one")
            continue
        said = [explain.item_advice(None, None, r.outfit)] if r.outfit == r.outfit else []
        if r.infit == r.infit and r.infit < explain.FIT_LOW:
            said.append("more predictable than expected: check the item does not give its answer away")
        if isinstance(r.flags, str) and "low discrimination" in r.flags:
            said.append("low slope: stronger and weaker students do about equally well; look at the item")
        advice.append("; ".join(s for s in said if s))
    out["advice"] = advice
    return read


def levels(order: pd.DataFrame) -> Reading:
    """Declared against measured difficulty per blueprint level, with the measured one's 95% interval."""
    read = _marked(order, "n", ev.FEW_ANSWERS_UNIT, "blueprint levels", figure="measured difficulty")
    if not read.frame.empty:
        read.frame["low"], read.frame["high"] = ev.interval(read.frame["measured"], read.frame["se"])
    return read


def reliability(table: pd.DataFrame) -> Reading:
    """Reliability per paper, marked where it rests on fewer than FEW_STUDENTS_RELIABILITY students, with advice."""
    read = _marked(table, "n_students", ev.FEW_STUDENTS_RELIABILITY, "papers", unit="students",
                   figure="reliability")
    if not read.frame.empty:
        read.frame["advice"] = [f"too few students to judge ({int(n)} of {ev.FEW_STUDENTS_RELIABILITY})" if f else
                                explain.reliability_advice(a)
                                for f, n, a in zip(read.frame["few_answers"], read.frame["n_students"],
                                                   read.frame["alpha"])]
    return read


def strategies(summary: pd.DataFrame) -> Reading:
    """Distractor strategies, marked where fewer than FEW_ANSWERS_SHARE answers offered them."""
    return _marked(summary, "offered", ev.FEW_ANSWERS_SHARE, "strategies", figure="shares")


def by_count(frame: pd.DataFrame, what: str) -> Reading:
    """Any table with an answer count ``n`` (parameter effects, facility by value), marked under FEW_ANSWERS_SHARE."""
    return _marked(frame, "n", ev.FEW_ANSWERS_SHARE, what)


def axis_label(name: str, width: int = 16, lines: int = 2, sep: str = "<br>") -> str:
    """A long name shortened for a chart axis: wrapped at ``width`` characters on at most ``lines`` lines, the
    last ending in "…" when cut (the full name belongs in the hover)."""
    parts = textwrap.wrap(str(name), width=width, break_long_words=True) or [""]
    if len(parts) > lines:
        parts = parts[:lines]
        parts[-1] = parts[-1][:max(1, width - 1)].rstrip() + "…"
    return sep.join(parts)
