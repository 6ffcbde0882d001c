"""Reliability as internal consistency: Cronbach's alpha and KR-20.

Both estimate how consistently a test form's items measure one thing, from
students who answered every item of the form. Alpha assumes the items
measure one thing with equal weight (tau-equivalence) and is otherwise a
lower bound; KR-20 is alpha for right/wrong items. Both rise with the number
of items, so compare forms of similar length.
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pandas as pd

from core.analytics.item_stats.inputs import _frame
from core.analytics.item_stats.scoring import item_scores


def _complete(matrix: pd.DataFrame) -> tuple[np.ndarray, int]:
    if not isinstance(matrix, pd.DataFrame):
        raise ValueError("reliability needs a students x items table (see score_matrix)")
    values = matrix.apply(pd.to_numeric, errors="coerce")
    if values.shape[1] < 2:
        raise ValueError(f"reliability needs at least 2 items, got {values.shape[1]}")
    complete = values.dropna(axis=0, how="any")
    if len(complete) < 2:
        raise ValueError(f"reliability needs at least 2 students who answered every item; {len(complete)} of "
                         f"{len(values)} did (missing answers drop a student; mark blanks 0 to keep them)")
    return complete.to_numpy(dtype=float), len(values) - len(complete)


def cronbach_alpha(matrix: pd.DataFrame) -> float:
    """Cronbach's alpha = k/(k-1) * (1 - sum of item variances / variance of totals).

    ``matrix``: students x items scores (marks; items count with their
    weight). Complete cases only: a student missing any item is dropped.
    Variances are population variances (the ratio, hence alpha, is the same
    with n-1). NaN when every student has the same total.

    Alpha estimates the reliability of the total when the items measure one
    thing with equal weight (tau-equivalence); otherwise it is a lower bound.
    It rises with the number of items, so compare forms of similar length.
    """
    x, _ = _complete(matrix)
    return _alpha(x)


def _alpha(x: np.ndarray) -> float:
    k = x.shape[1]
    total = x.sum(axis=1).var()
    if total <= 1e-12:
        return float("nan")
    return float(k / (k - 1) * (1.0 - x.var(axis=0).sum() / total))


def kr20(matrix: pd.DataFrame) -> float:
    """Kuder-Richardson 20 = k/(k-1) * (1 - sum p(1-p) / variance of totals), for right/wrong items.

    Every item counts as one mark: an item scored 0 or its maximum (e.g. 0 or
    3 marks) is read as wrong / right. Complete cases only; population
    variance of the totals, so KR-20 equals alpha on 0/1 scores. A ValueError
    when an item has more than two score values (part marks: use alpha).
    """
    x, _ = _complete(matrix)
    binary = _dichotomise(x)
    if binary is None:
        raise ValueError("KR-20 needs right/wrong items but some items have part marks; use cronbach_alpha")
    return _kr20(binary)


def _dichotomise(x: np.ndarray) -> Optional[np.ndarray]:
    top = x.max(axis=0)
    ok = np.all((x == 0) | (x == top[None, :]), axis=0) | np.all(x == x[0], axis=0)
    if not ok.all():
        return None
    return (x > 0).astype(float)


def _kr20(binary: np.ndarray) -> float:
    k = binary.shape[1]
    p = binary.mean(axis=0)
    total = binary.sum(axis=1).var()
    if total <= 1e-12:
        return float("nan")
    return float(k / (k - 1) * (1.0 - (p * (1 - p)).sum() / total))


def reliability(matrix: pd.DataFrame) -> dict:
    """alpha, kr20 (NaN when items have part marks), n_students (complete cases), n_items, n_dropped."""
    x, dropped = _complete(matrix)
    binary = _dichotomise(x)
    return {"alpha": _alpha(x), "kr20": _kr20(binary) if binary is not None else float("nan"),
            "n_students": int(x.shape[0]), "n_items": int(x.shape[1]), "n_dropped": int(dropped)}


def reliability_by(responses: pd.DataFrame, by: str, student: str = "student", item: str = "item_id",
                   **columns: Any) -> pd.DataFrame:
    """``reliability`` of each test form: ``by`` names the column that says which form an answer belongs to.

    The matrix of each form holds marks (points) of first attempts within the
    form. Forms with fewer than 2 items or 2 complete students get NaN and a
    note saying why.
    """
    _frame(responses, "reliability_by", {"form": by})
    scored = item_scores(responses, student=student, item=item, within=[by], **columns)
    rows = []
    for form, part in scored.groupby(by, sort=True):     # one pass per form, not per answer
        matrix = part.pivot(index=student, columns=item, values="points")
        try:
            rows.append({by: form, **reliability(matrix), "note": ""})
        except ValueError as exc:
            rows.append({by: form, "alpha": np.nan, "kr20": np.nan, "n_students": 0, "n_items": matrix.shape[1],
                         "n_dropped": len(matrix), "note": str(exc)})
    return pd.DataFrame(rows)
