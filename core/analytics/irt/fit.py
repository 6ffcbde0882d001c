"""Model fit: whether the responses look like the model says they should, item by item.

``item_fit`` compares each response with the model probability at the
student's estimated ability (infit and outfit mean squares); ``icc`` gives the
model's curves to plot against. Both take abilities and items as estimated,
so their sampling error is ignored: read values near 1 as fitting, not as
exact.
"""
from __future__ import annotations

from typing import Union

import numpy as np
import pandas as pd

from core.analytics.irt.data import ArrayLike, ResponseData
from core.analytics.irt.logistic import expit
from core.analytics.irt.results import Abilities, ItemParams, _aligned

FIT_LOGIT_LIMIT = float(np.log((1 - 1e-9) / 1e-9))   # item_fit: model probabilities kept within [1e-9, 1 - 1e-9]
FIT_BLOCK = 1 << 18                                  # item_fit: responses per block


def _theta_for(data: ResponseData, theta: Union[Abilities, ArrayLike]) -> np.ndarray:
    if isinstance(theta, Abilities):
        if np.array_equal(theta.student_ids, data.student_ids):
            return np.asarray(theta.theta, float)
        where = pd.Index(theta.student_ids).get_indexer(data.student_ids)
        if (where < 0).any():
            lacking = data.student_ids[where < 0]
            raise ValueError(f"{len(lacking)} students in the responses have no ability (e.g. "
                             f"{', '.join(map(repr, list(lacking[:3])))}); estimate them with eap(data, params)")
        return np.asarray(theta.theta, float)[where]
    values = np.asarray(theta, dtype=np.float64)
    if values.shape != (data.n_students,):
        raise ValueError(f"theta has {values.size} values for {data.n_students} students; pass the Abilities "
                         f"from eap() or one value per data.student_ids")
    if not np.isfinite(values).all():
        raise ValueError("theta holds a non-finite ability; use eap(), which is finite for every student")
    return values


def item_fit(data: ResponseData, params: ItemParams, theta: Union[Abilities, ArrayLike]) -> pd.DataFrame:
    """Infit and outfit mean squares per item (expected value 1).

    With P the model probability for each response, residual x - P and
    variance P (1 - P): outfit = mean over the item's responses of
    (x - P)^2 / (P (1 - P)) (sensitive to surprising answers far from the item);
    infit = sum (x - P)^2 / sum P (1 - P) (information-weighted). Values well
    above 1 (say 1.3) flag noisy items, well below 1 items that discriminate
    more than the model expects.
    """
    a, b = _aligned(data, params)
    th = _theta_for(data, theta)
    I, rasch = data.n_items, bool((a == 1.0).all())
    resid2, var, ratio = np.zeros(I), np.zeros(I), np.zeros(I)
    # A block of responses at a time, in place: a class's millions of answers never need more than a few MB.
    for lo in range(0, data.n_responses, FIT_BLOCK):
        s, i, x = data.s[lo:lo + FIT_BLOCK], data.i[lo:lo + FIT_BLOCK], data.x[lo:lo + FIT_BLOCK]
        p = th[s]
        p -= b[i]
        if not rasch:
            p *= a[i]
        np.clip(p, -FIT_LOGIT_LIMIT, FIT_LOGIT_LIMIT, out=p)     # P within [1e-9, 1 - 1e-9]
        expit(p, out=p)
        v = np.subtract(1.0, p)
        v *= p
        r = np.subtract(x, p, out=p)
        r *= r
        resid2 += np.bincount(i, weights=r, minlength=I)
        var += np.bincount(i, weights=v, minlength=I)
        r /= v
        ratio += np.bincount(i, weights=r, minlength=I)
    n = np.bincount(data.i, minlength=I)
    infit, outfit = resid2 / var, ratio / n
    return pd.DataFrame({"item_id": data.item_ids, "n": n, "infit": infit, "outfit": outfit})


def icc(params: ItemParams, theta_grid: ArrayLike) -> np.ndarray:
    """Item characteristic curves: P(correct) for every item (rows) at every ``theta_grid`` point (columns)."""
    if not isinstance(params, ItemParams):
        raise ValueError(f"expected ItemParams, got {type(params).__name__}")
    grid = np.atleast_1d(np.asarray(theta_grid, dtype=np.float64))
    if grid.ndim != 1 or not np.isfinite(grid).all():
        raise ValueError("theta_grid must be a one-dimensional list of finite abilities")
    a = np.asarray(params.discrimination, float)
    return expit(a[:, None] * (grid[None, :] - np.asarray(params.difficulty, float)[:, None]))
