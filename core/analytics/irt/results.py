"""What calibration returns: item parameters and ability estimates, aligned by id.

``ItemParams`` holds calibrated (or given) items, ``Abilities`` estimated
students; both are aligned arrays with a ``to_frame``. Item parameters come
back with plain-language flags for items whose estimates deserve caution.
Results are matched to responses by id, never by position, so parameters
calibrated on one set of responses can score another.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np
import pandas as pd

from core.analytics.irt.data import ResponseData

FEW_RESPONSES = 10            # items answered fewer times are flagged
LOW_DISCRIMINATION = 0.35     # 2PL items below this are flagged


@dataclasses.dataclass(eq=False)
class ItemParams:
    """Calibrated items, aligned arrays (one entry per item id).

    ``se_discrimination`` is None for Rasch (discrimination is fixed at 1).
    ``n``: responses per item; ``p_correct``: their share correct.
    ``flags`` holds "; "-joined warnings per item ("" when none): "all correct",
    "all wrong", "few responses" (under 10), "low discrimination" (2PL, a < 0.35).
    ``log_likelihood``: marginal (mml) or joint (joint) log-likelihood of the
    responses at the estimates, priors excluded. ``ability_sd``: the spread of
    ability in the calibrated data (1 for 2PL, which sets its scale by it;
    for joint, net of measurement error and without students who got
    everything right or wrong).
    """

    item_ids: np.ndarray
    difficulty: np.ndarray
    discrimination: np.ndarray
    se_difficulty: np.ndarray
    se_discrimination: Optional[np.ndarray]
    n: np.ndarray
    p_correct: np.ndarray
    flags: np.ndarray
    model: str
    method: str
    iterations: int = 0
    converged: bool = True
    log_likelihood: float = 0.0
    ability_sd: float = 1.0

    def __len__(self) -> int:
        return len(self.item_ids)

    def to_frame(self) -> pd.DataFrame:
        out = pd.DataFrame({"item_id": self.item_ids, "difficulty": self.difficulty,
                            "se_difficulty": self.se_difficulty, "discrimination": self.discrimination})
        if self.se_discrimination is not None:
            out["se_discrimination"] = self.se_discrimination
        out["n"] = self.n
        out["p_correct"] = self.p_correct
        out["flags"] = self.flags
        return out

    @classmethod
    def from_frame(cls, df: pd.DataFrame, item: str = "item_id", difficulty: str = "difficulty",
                   discrimination: Optional[str] = "discrimination") -> "ItemParams":
        """Known parameters (a bank's, a simulation's truth) for ``eap``, ``icc`` and ``item_fit``.

        Without a discrimination column the items are Rasch items. ``n`` is 0
        and ``p_correct`` NaN (no responses behind them); flags read "given".
        """
        if not isinstance(df, pd.DataFrame):
            raise ValueError(f"item parameters must be a pandas DataFrame, got {type(df).__name__}")
        for c in (item, difficulty):
            if c not in df.columns:
                raise ValueError(f"item parameters need a column {c!r}; columns are {', '.join(map(str, df.columns))}")
        b = np.asarray(df[difficulty], dtype=np.float64)
        has_a = discrimination is not None and discrimination in df.columns
        a = np.asarray(df[discrimination], dtype=np.float64) if has_a else np.ones_like(b)
        if not (np.isfinite(b).all() and np.isfinite(a).all() and (a > 0).all()):
            raise ValueError("item parameters must be finite numbers with positive discrimination; "
                             "fix or drop the rows that are not")
        ids = np.asarray(df[item].astype(str), dtype=str)
        if len(np.unique(ids)) < len(ids):
            raise ValueError("item parameters list an item more than once; keep one row per item")
        n_items = len(b)
        return cls(item_ids=ids, difficulty=b, discrimination=a,
                   se_difficulty=np.zeros(n_items), se_discrimination=np.zeros(n_items) if has_a else None,
                   n=np.zeros(n_items, dtype=np.int64), p_correct=np.full(n_items, np.nan),
                   flags=np.full(n_items, "given", dtype=object), model="2pl" if has_a else "rasch",
                   method="given")


@dataclasses.dataclass(eq=False)
class Abilities:
    """Ability estimates per student: posterior mean ``theta``, posterior sd ``se``, responses ``n``."""

    student_ids: np.ndarray
    theta: np.ndarray
    se: np.ndarray
    n: np.ndarray

    def __len__(self) -> int:
        return len(self.student_ids)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"student": self.student_ids, "theta": self.theta, "se": self.se, "n": self.n})


@dataclasses.dataclass
class _Fit:
    """What an estimator (``mml._mml``, ``joint._joint``) hands back, before ids and counts are attached."""

    b: np.ndarray
    a: np.ndarray
    se_b: np.ndarray
    se_a: Optional[np.ndarray]
    iterations: int
    converged: bool
    loglik: float
    ability_sd: float


def _flags(n: np.ndarray, r: np.ndarray, a: Optional[np.ndarray]) -> np.ndarray:
    parts = [(r == n, "all correct"), (r == 0, "all wrong"), (n < FEW_RESPONSES, "few responses")]
    if a is not None:
        parts.append((a < LOW_DISCRIMINATION, "low discrimination"))
    out = np.full(len(n), "", dtype=object)
    for mask, text in parts:
        out[mask] = np.where(out[mask] == "", text, out[mask] + "; " + text)
    return out


def _aligned(data: ResponseData, params: ItemParams) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) for each of data.item_ids, looked up by id in params."""
    if not isinstance(params, ItemParams):
        raise ValueError(f"expected ItemParams (from fit_rasch / fit_2pl or ItemParams.from_frame), "
                         f"got {type(params).__name__}")
    if len(params.item_ids) == len(data.item_ids) and np.array_equal(params.item_ids, data.item_ids):
        return np.asarray(params.discrimination, float), np.asarray(params.difficulty, float)
    where = pd.Index(params.item_ids).get_indexer(data.item_ids)
    if (where < 0).any():
        lacking = data.item_ids[where < 0]
        raise ValueError(f"{len(lacking)} items in the responses have no parameters (e.g. "
                         f"{', '.join(map(repr, list(lacking[:3])))}); calibrate them or drop their responses")
    return np.asarray(params.discrimination, float)[where], np.asarray(params.difficulty, float)[where]
