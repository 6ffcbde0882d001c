"""Answers in: right/wrong read strictly (the column check is ``core.analytics.columns``).

BKT sees only right or wrong, so part marks are refused rather than rounded
(the caller decides, e.g. correct = score == max_score), and a missing value
is an error rather than a silent wrong answer. Shared with
``core.analytics.mastery``, which reads the same answers.
"""
from __future__ import annotations

import numpy as np
import pandas as pd




def binary_correct(values: pd.Series, column: str = "correct") -> np.ndarray:
    """A right/wrong column as a 0/1 float array; anything else is a ValueError."""
    if values.isna().any():
        raise ValueError(f"column '{column}' has {int(values.isna().sum())} missing values; "
                         f"drop those answers or mark them right (1) or wrong (0) first")
    if pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=float)
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isin(x, (0.0, 1.0))
    if bad.any():
        examples = sorted(set(np.asarray(values)[bad].tolist()))[:3]
        raise ValueError(f"column '{column}' must hold right/wrong as True/False or 1/0; found {examples} "
                         f"(for part marks use correct = score == max_score)")
    return x
