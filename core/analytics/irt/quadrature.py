"""Posteriors of ability over a grid of points: the E-step of MML and the whole of EAP.

Ability is integrated numerically on an evenly spaced grid of points weighted
by a normal prior (``_normal_log_weights``), which each caller shifts and
scales to its population: a design stratum (mml) or a student's prior (eap).
A block of students is scored against every grid point by one matrix product
with the response matrix; see ``_block_posterior``.
"""
from __future__ import annotations

from typing import Any

import numpy as np


def _block_posterior(rows: Any, xa: np.ndarray, a: np.ndarray, b: np.ndarray, grid: np.ndarray,
                     log_prior: np.ndarray) -> tuple[np.ndarray, float]:
    """E-step for a block of students: posterior weights over ``grid`` (students x grid), log-likelihood part.

    log L(student p at theta_q) = theta_q sum_i x_pi a_i - sum_i x_pi a_i b_i
                                  - sum_{i answered by p} log(1 + exp(a_i (theta_q - b_i)))
    so one matrix product (students x items) @ (items x grid) serves every student. The middle
    term does not depend on theta and is left to the caller. ``log_prior``: grid or students x grid,
    each row's exponentials summing to 1. Log-likelihoods are summed in double precision; the
    weights, once each row is shifted to its maximum, are single precision (half the memory traffic).
    """
    softplus = np.logaddexp(0.0, a[:, None] * (grid[None, :] - b[:, None])).astype(np.float32)
    ll = np.outer(xa, grid)
    ll -= rows @ softplus
    ll += log_prior
    top = ll.max(axis=1, keepdims=True)
    ll -= top
    # Weights below e^-80 are kept at e^-80: still nothing, but not the subnormal single-precision
    # numbers that make every later product with them several times slower.
    np.maximum(ll, -80.0, out=ll)
    w = ll.astype(np.float32)
    np.exp(w, out=w)
    total = w.sum(axis=1, keepdims=True, dtype=np.float64)
    w /= total.astype(np.float32)
    return w, float(np.sum(top) + np.sum(np.log(total)))


def _normal_log_weights(z: np.ndarray) -> np.ndarray:
    lw = -0.5 * z * z
    return lw - np.logaddexp.reduce(lw)
