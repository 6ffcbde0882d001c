"""The four BKT parameters of a skill, and the bounds that keep them meaningful.

``prior`` = P(L0), ``learn`` = P(T), ``guess`` = P(G), ``slip`` = P(S).
Fitting keeps guess and slip below 0.5 so that "knows the skill" always
means "more likely to answer correctly" (without the bound the model has two
equally good readings of the same data), and every probability inside
[1e-6, 1 - 1e-6] so that no answer is ever impossible. Parameters given by
the caller are checked here: probabilities, with guess + slip below 1 (else
a right answer would not be evidence of knowing).
"""
from __future__ import annotations

from typing import Mapping, Union

import numpy as np
import pandas as pd

PARAMS = ("prior", "learn", "guess", "slip")
EPS = 1e-6
GUESS_SLIP_MAX = 0.5 - EPS

_LOW = np.array([EPS, EPS, EPS, EPS])
_HIGH = np.array([1 - EPS, 1 - EPS, GUESS_SLIP_MAX, GUESS_SLIP_MAX])


def _bounded(values: np.ndarray) -> np.ndarray:
    return np.clip(values, _LOW, _HIGH)


def _param_table(params: Union[pd.DataFrame, Mapping[str, Mapping[str, float]]]) -> pd.DataFrame:
    if isinstance(params, pd.DataFrame):
        table = params.set_index("skill") if "skill" in params.columns else params
    elif isinstance(params, Mapping):
        table = pd.DataFrame.from_dict({k: dict(v) for k, v in params.items()}, orient="index")
    else:
        raise ValueError("params must be fit_bkt's table or a mapping {skill: {prior, learn, guess, slip}}")
    missing = [p for p in PARAMS if p not in table.columns]
    if missing:
        raise ValueError(f"params have no {', '.join(missing)}; give prior, learn, guess and slip for every skill")
    table = table[list(PARAMS)].astype(float)
    values = table.to_numpy()
    if not np.isfinite(values).all() or (values < 0).any() or (values > 1).any():
        raise ValueError("every BKT parameter must be a probability between 0 and 1")
    bad = table.index[(table["guess"] + table["slip"]) >= 1]
    if len(bad):
        raise ValueError(f"guess + slip must be below 1 (else a right answer is not evidence of knowing); "
                         f"not so for skills {list(bad)[:5]}")
    return table
