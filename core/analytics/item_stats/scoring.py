"""Answers scored: each student's first attempt at each item, as marks and as a mark fraction.

Every statistic uses each student's **first attempt** at an item (earliest
``created_at``, then earliest row), the usual convention: a second attempt
after feedback measures something else. An answer's *mark fraction* is
score / max_score where both are known (max_score > 0), else 1 or 0 from
``correct``, so part-marked and right/wrong questions can be analysed together.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pandas as pd

from core.analytics.item_stats.inputs import _frame


def item_scores(responses: pd.DataFrame, student: str = "student", item: str = "item_id", correct: str = "correct",
                score: Optional[str] = "score", max_score: Optional[str] = "max_score",
                order: Optional[str] = "created_at", within: Optional[list[str]] = None) -> pd.DataFrame:
    """Each student's first attempt at each item: student, item, points, out_of, value (mark fraction), correct.

    ``points`` is the marks earned (``score``, else 1/0 from ``correct``),
    ``out_of`` the marks available, ``value`` = points / out_of. The other
    columns of the first-attempt row are kept. ``within`` names columns that
    keep attempts apart (e.g. a test form): the first attempt in each.
    """
    _frame(responses, "item_scores", {"student": student, "item": item})
    if len(responses) == 0:
        raise ValueError("there are no answers: the table is empty (check the filters that selected it)")
    has_correct = correct is not None and correct in responses.columns
    has_score = score is not None and max_score is not None and score in responses.columns \
        and max_score in responses.columns
    if not has_correct and not has_score:
        raise ValueError(f"answers need a '{correct}' column or '{score}' and '{max_score}' columns to be scored")
    df = responses
    if order is not None and order in df.columns:
        df = df.sort_values(order, kind="stable", na_position="last")
    df = df.drop_duplicates(list(within or []) + [student, item], keep="first").copy()
    right = pd.to_numeric(df[correct], errors="coerce").astype(float) if has_correct else \
        pd.Series(np.nan, index=df.index)
    if has_score:
        pts = pd.to_numeric(df[score], errors="coerce").astype(float)
        out_of = pd.to_numeric(df[max_score], errors="coerce").astype(float)
        usable = pts.notna() & out_of.notna() & (out_of > 0)
    else:
        pts = out_of = pd.Series(np.nan, index=df.index)
        usable = pd.Series(False, index=df.index)
    df["points"] = np.where(usable, pts, right)
    df["out_of"] = np.where(usable, out_of, 1.0)
    unscored = df["points"].isna()
    if unscored.any():
        raise ValueError(f"{int(unscored.sum())} answers have neither a mark nor right/wrong "
                         f"(e.g. student {df.loc[unscored, student].iloc[0]!r}, item {df.loc[unscored, item].iloc[0]!r}); "
                         f"drop them or mark them first")
    df["value"] = df["points"] / df["out_of"]
    df["correct"] = np.where(right.notna(), right, (df["value"] >= 1.0).astype(float))
    return df


def score_matrix(responses: pd.DataFrame, value: str = "points", student: str = "student", item: str = "item_id",
                 **columns: Any) -> pd.DataFrame:
    """Students x items table of first attempts (``value``: points, value or correct); NaN where not answered."""
    if value not in ("points", "value", "correct"):
        raise ValueError(f"value must be 'points', 'value' or 'correct', got {value!r}")
    scored = item_scores(responses, student=student, item=item, **columns)
    return scored.pivot(index=student, columns=item, values=value)
