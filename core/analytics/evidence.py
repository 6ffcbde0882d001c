"""How much evidence a figure rests on: the "too few answers" thresholds, and 95% intervals.

Each threshold is the count below which a figure's 95% interval is so wide
that reading the figure itself would mislead; the reason is beside it.
``few`` marks the rows under a threshold and ``few_note`` says in one line
how many there are, so a table and its warning agree.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from core.analytics.calibration import MIN_RESPONSES

Z95 = 1.96
# Facility and discrimination of one item or blueprint level. With n answers a share's 95% interval is up to
# ±1/√n wide (±0.18 at 30) and a correlation's standard error about 1/√n: below 30 answers a facility of 0.5
# cannot be told from 0.7, nor a discrimination of 0.2 from 0.4.
FEW_ANSWERS_ITEM = 30
# A calibration unit's difficulty: the calibration itself lets an item keep its own difficulty only from this
# many answers (``calibration.MIN_RESPONSES``); below it the estimate leans on the declared difficulty.
FEW_ANSWERS_UNIT = MIN_RESPONSES
# A student's ability or accuracy. Its standard error is about 2/√n logits: from fewer than 10 answers the 95%
# interval spans more than ±1.2 logits, most of the class's range.
FEW_ANSWERS_STUDENT = 10
# A paper's reliability (alpha, KR-20). Alpha from fewer than 20 students moves by 0.2 or more from one class to
# the next (Feldt's interval), so it cannot tell an acceptable paper (0.7) from a good one (0.8) or a poor one.
FEW_STUDENTS_RELIABILITY = 20
# A student's mastery of one skill. Mastery starts at 0.5 and each answer moves it 10-20% of the way: after
# fewer than 5 answers it still mostly shows the starting value, not the student.
FEW_ANSWERS_MASTERY = 5
# A class's mean mastery of a skill, or a distractor's share, or a parameter value's facility: fewer than 20
# answers give a share whose interval is wider than ±0.2.
FEW_ANSWERS_SHARE = 20


def wilson(right, n, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson 95% interval of a share ``right / n`` (arrays or numbers): (low, high), NaN where n is 0.

    Unlike ± 1.96 standard errors it stays inside 0..1 and is sound for small n
    and for shares near 0 or 1 (3 right of 3 gives 0.44 to 1, not 1 to 1).
    """
    k = np.asarray(right, dtype=np.float64)
    m = np.asarray(n, dtype=np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        p = k / m
        centre = (p + z * z / (2 * m)) / (1 + z * z / m)
        half = z / (1 + z * z / m) * np.sqrt(p * (1 - p) / m + z * z / (4 * m * m))
        low = np.where(m > 0, np.clip(centre - half, 0.0, 1.0), np.nan)
        high = np.where(m > 0, np.clip(centre + half, 0.0, 1.0), np.nan)
    return low, high


def interval(estimate, se, z: float = Z95) -> tuple[np.ndarray, np.ndarray]:
    """estimate ± z·se as (low, high); NaN where the standard error is unknown."""
    est = np.asarray(estimate, dtype=np.float64)
    err = np.asarray(se, dtype=np.float64)
    return est - z * err, est + z * err


def few(n, threshold: int) -> np.ndarray:
    """True where a count is under ``threshold`` (a missing count counts as none)."""
    counts = pd.to_numeric(pd.Series(np.atleast_1d(n)), errors="coerce").fillna(0).to_numpy()
    return counts < threshold


def few_note(flags, what: str, threshold: int, unit: str = "answers", figure: str = "figures") -> Optional[str]:
    """One line naming how many rows rest on too little (None when none do).

    ``few_note([True, False, True], "blueprint levels", 30)`` gives "2 of 3
    blueprint levels rest on fewer than 30 answers: read their figures as a
    rough guide (marked 'few answers')."
    """
    marks = np.asarray(flags, dtype=bool)
    count = int(marks.sum())
    if count == 0:
        return None
    verb = "rests" if count == 1 else "rest"
    return (f"{count} of {len(marks)} {what} {verb} on fewer than {threshold} {unit}: read their {figure} as a "
            f"rough guide (marked 'few answers').")
