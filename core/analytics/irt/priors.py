"""Priors (maximum a posteriori): how declared difficulties enter, and what keeps estimates finite.

``prior_mean`` (per item) and ``prior_sd`` give difficulty a normal prior,
which is how a blueprint's declared difficulty enters; declared difficulties
must be on the calibration's scale (0 the average student, logits). Items
without one get a weak N(0, 3^2) prior: it moves an item answered 100 times by
under 0.02 logits, and keeps items answered all right or all wrong finite
(they are also flagged). 2PL discriminations get a lognormal prior,
log a ~ N(0, 0.5^2), and stay within [0.05, 20].
"""
from __future__ import annotations

from typing import Any, Mapping, Union

import numpy as np
import pandas as pd

from core.analytics.irt.data import ArrayLike, ResponseData

PriorMean = Union[None, float, ArrayLike, Mapping[str, float]]

WEAK_PRIOR_SD = 3.0           # difficulty prior for items without a declared difficulty
DECLARED_PRIOR_SD = 1.0       # default sd around a declared difficulty
LOG_A_PRIOR_SD = 0.5          # 2PL: log discrimination ~ N(0, 0.5^2)
LOG_A_LIMITS = (float(np.log(0.05)), float(np.log(20.0)))


def _difficulty_prior(data: ResponseData, prior_mean: PriorMean, prior_sd: Union[None, float, ArrayLike]
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Per item (mean, sd) of the normal prior on difficulty."""
    I = data.n_items
    mean = np.zeros(I)
    declared = np.zeros(I, dtype=bool)
    if prior_mean is not None:
        try:
            values = _prior_values(data, prior_mean)
        except (TypeError, ValueError) as exc:
            if "prior_mean" in str(exc):
                raise
            raise ValueError(f"prior_mean must hold difficulties as numbers (logits), NaN or None for none; "
                             f"could not read it ({exc})") from None
        if np.isinf(values).any():
            raise ValueError("prior_mean holds an infinite difficulty; give finite logits (or NaN for none)")
        declared = ~np.isnan(values)
        mean[declared] = values[declared]
    sd = np.full(I, WEAK_PRIOR_SD)
    if prior_sd is None:
        sd[declared] = DECLARED_PRIOR_SD
    else:
        try:
            given_sd = np.asarray(prior_sd, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"prior_sd must be a number or one number per item, got {prior_sd!r}") from None
        if given_sd.ndim == 0:
            given_sd = np.full(I, float(given_sd))
        if given_sd.shape != (I,):
            raise ValueError(f"prior_sd has {given_sd.size} values for {I} items; give one number or one per item")
        if not (np.isfinite(given_sd).all() and (given_sd > 0).all()):
            raise ValueError("prior_sd must be positive and finite (a small sd trusts the declared difficulty)")
        if prior_mean is None:
            sd[:] = given_sd
        else:
            sd[declared] = given_sd[declared]
    return mean, sd


def _prior_values(data: ResponseData, prior_mean: Any) -> np.ndarray:
    """prior_mean as one number (or NaN) per item of ``data``."""
    I = data.n_items
    if isinstance(prior_mean, Mapping) or isinstance(prior_mean, pd.Series):
        given = {str(k): v for k, v in prior_mean.items() if v is not None}
        lookup = pd.Series(given, dtype=np.float64) if given else pd.Series(dtype=np.float64)
        values = lookup.reindex(data.item_ids).to_numpy(dtype=np.float64)
        if given and np.isnan(values).all():
            raise ValueError(f"prior_mean: none of its {len(given)} ids is an item in these responses "
                             f"(items look like {', '.join(map(repr, list(data.item_ids[:3])))}); "
                             f"key it by item id")
    elif np.ndim(prior_mean) == 0:
        values = np.full(I, float(prior_mean))
    else:
        values = np.asarray(prior_mean, dtype=np.float64)
        if values.shape != (I,):
            raise ValueError(f"prior_mean has {values.size} values for {I} items; give one per item in "
                             f"data.item_ids order (NaN for none) or a dict item id -> difficulty")
    return values
