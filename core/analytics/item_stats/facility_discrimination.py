"""Facility (how easy each item is) and discrimination (how well it separates stronger from weaker students).

Classical test theory: both are descriptive statistics of the students who
answered, not properties of the item alone; a class that found an item easy
makes it look easy. Discrimination needs a criterion for "stronger": the rest
of the test when everyone took the same items, an ability estimate (e.g. IRT)
when students saw different items.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pandas as pd

from core.analytics.item_stats.inputs import Ability, _ability_series
from core.analytics.item_stats.scoring import item_scores

UPPER_LOWER_SHARE = 0.27      # Kelley's upper and lower groups
MIN_N_FOR_NOTE = 10           # fewer answers than this: no judgement on discrimination
WEAK_DISCRIMINATION = 0.2


def _correlation(frame: pd.DataFrame, key: str, x: str, y: str) -> pd.Series:
    """Pearson r of x and y within each ``key`` group (NaN when either does not vary)."""
    g = frame.groupby(key, sort=False)
    dx = frame[x] - g[x].transform("mean")
    dy = frame[y] - g[y].transform("mean")
    parts = pd.DataFrame({key: frame[key], "xy": dx * dy, "xx": dx * dx, "yy": dy * dy}).groupby(key, sort=False).sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        r = parts["xy"] / np.sqrt(parts["xx"] * parts["yy"])
    return r.where((parts["xx"] > 1e-12) & (parts["yy"] > 1e-12))


def facility(responses: pd.DataFrame, item: str = "item_id", **columns: Any) -> pd.DataFrame:
    """Per item: n (students), facility (mean mark fraction), p_correct (share fully right), marks (most available).

    Facility is the proportion correct for right/wrong items and the mean of
    score / max_score for part-marked ones. Sorted hardest first.
    """
    scored = item_scores(responses, item=item, **columns)
    out = scored.groupby(item, sort=True).agg(n=("value", "size"), facility=("value", "mean"),
                                              p_correct=("correct", "mean"), marks=("out_of", "max")).reset_index()
    return out.sort_values(["facility", item], kind="stable").reset_index(drop=True)


def discrimination(responses: pd.DataFrame, ability: Optional[Ability] = None, share: float = UPPER_LOWER_SHARE,
                   student: str = "student", item: str = "item_id", **columns: Any) -> pd.DataFrame:
    """How well each item separates stronger from weaker students.

    Without ``ability`` (a test form: the students took the same items) the
    criterion is the test score: ``point_biserial`` is the corrected
    item-rest correlation, the Pearson r between the item's mark fraction and
    the student's marks on the *other* items (for a right/wrong item this is
    the point-biserial); the upper-lower index compares the top and bottom
    ``share`` (27%) of students by total marks. An item a student did not
    answer is left out of their total (a blank answer is marked 0 and counts).

    With ``ability`` ({student: ability}, e.g. IRT thetas; students saw
    different items) the criterion is the ability instead, for both measures;
    answers of students without an ability are left out.

    Upper and lower groups are formed per item among the students who answered
    it: g = round(share x n) students at each end, ties at the cut split by
    student name. ``upper_lower`` = facility in the upper group minus facility
    in the lower group (NaN when g = 0).

    Returns per item: n, facility, point_biserial, upper_lower, n_group,
    criterion ("rest score" or "ability"), note (plain-language warning).
    """
    if not (isinstance(share, (int, float)) and 0 < share < 0.5):
        raise ValueError(f"share must be between 0 and 0.5 (the size of each of the upper and lower groups), got {share!r}")
    scored = item_scores(responses, student=student, item=item, **columns)
    if ability is None:
        totals = scored.groupby(student)["points"].transform("sum")
        scored = scored.assign(criterion=totals, rest=totals - scored["points"])
        against, label = "rest", "rest score"
    else:
        theta = _ability_series(ability, student)
        scored = scored.assign(criterion=scored[student].map(theta)).dropna(subset=["criterion"])
        if scored.empty:
            raise ValueError("none of the answering students has an ability; pass abilities for these students")
        against, label = "criterion", "ability"
    r = _correlation(scored, item, "value", against)
    ordered = scored.sort_values([item, "criterion", student], kind="stable")
    rank = ordered.groupby(item, sort=False).cumcount()
    size = ordered.groupby(item, sort=False)["value"].transform("size")
    g = np.floor(share * size + 0.5)
    lower = rank < g
    upper = rank >= size - g
    grouped = pd.DataFrame({item: ordered[item], "up": ordered["value"].where(upper),
                            "low": ordered["value"].where(lower), "g": g})
    ul = grouped.groupby(item, sort=False).agg(up=("up", "mean"), low=("low", "mean"), n_group=("g", "first"))
    base = scored.groupby(item).agg(n=("value", "size"), facility=("value", "mean"))
    out = base.join(r.rename("point_biserial")).join(ul)
    out["upper_lower"] = out["up"] - out["low"]
    out["n_group"] = out["n_group"].astype(int)
    out["criterion"] = label
    out["note"] = _discrimination_note(out)
    out = out.drop(columns=["up", "low"]).reset_index()
    return out[[item, "n", "facility", "point_biserial", "upper_lower", "n_group", "criterion", "note"]]


def _discrimination_note(out: pd.DataFrame) -> pd.Series:
    r = out["point_biserial"]
    note = pd.Series("", index=out.index, dtype=object)
    note[r < WEAK_DISCRIMINATION] = "weak: hardly separates stronger from weaker students"
    note[r < 0] = "negative: weaker students do better; check the key and the wording"
    note[r.isna()] = "no spread: everyone scored alike on it or on the rest"
    note[out["n"] < MIN_N_FOR_NOTE] = f"too few answers to judge (under {MIN_N_FOR_NOTE})"
    return note
