"""Item updates vectorised over all items: starting values and one Newton step on every item at once.

Both estimators reduce the data to per-item gradients and information, then
take a damped Newton (Fisher-scoring) step with the priors added: at most one
logit on a difficulty and half a unit on a log discrimination per step, so a
step never lands far beyond where the local quadratic approximation holds.
"""
from __future__ import annotations

import numpy as np

from core.analytics.irt.priors import LOG_A_LIMITS, LOG_A_PRIOR_SD


def _start_difficulty(r: np.ndarray, n: np.ndarray, mean: np.ndarray, sd: np.ndarray,
                      spread: float = 1.0) -> np.ndarray:
    """Logit of the smoothed proportion wrong, pulled to the prior for thinly answered items.

    ``spread``: the ability sd the start assumes; averaging the logistic over it
    flattens proportions by about sqrt(1 + pi sd^2 / 8), which is undone.
    """
    raw = np.log((n - r + 0.5) / (r + 0.5)) * np.sqrt(1.0 + np.pi * spread ** 2 / 8)
    w = n / (n + 4.0 / sd ** 2)
    return w * raw + (1 - w) * mean


def _rasch_item_step(b: np.ndarray, grad_data: np.ndarray, info_data: np.ndarray,
                     mean: np.ndarray, sd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One Newton step on every difficulty: data gradient and information plus the normal prior.

    Returns the new difficulties and the information (for standard errors).
    """
    grad = grad_data - (b - mean) / sd ** 2
    info = info_data + 1.0 / sd ** 2
    return b + np.clip(grad / info, -1.0, 1.0), info


def _twopl_item_step(la: np.ndarray, b: np.ndarray, g_a: np.ndarray, g_b: np.ndarray, i_aa: np.ndarray,
                     i_ab: np.ndarray, i_bb: np.ndarray, mean: np.ndarray, sd: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One Fisher-scoring step on every (log a, b), with the priors on log a and on b.

    Data gradients and information come in (a, b); returns new log a, new b,
    and the sampling variances of a and b from the inverse information.
    """
    a = np.exp(la)
    g1 = a * g_a - la / LOG_A_PRIOR_SD ** 2           # d/d(log a) = a d/da
    g2 = g_b - (b - mean) / sd ** 2
    h11 = a * a * i_aa + 1.0 / LOG_A_PRIOR_SD ** 2
    h12 = a * i_ab
    h22 = i_bb + 1.0 / sd ** 2
    det = np.maximum(h11 * h22 - h12 * h12, 1e-9 * h11 * h22)
    d1 = (h22 * g1 - h12 * g2) / det
    d2 = (h11 * g2 - h12 * g1) / det
    la_new = np.clip(la + np.clip(d1, -0.5, 0.5), LOG_A_LIMITS[0], LOG_A_LIMITS[1])
    b_new = b + np.clip(d2, -1.0, 1.0)
    return la_new, b_new, a * a * h22 / det, h11 / det
