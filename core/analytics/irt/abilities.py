"""Abilities from calibrated items: a whole class at once (``eap``), or one answer at a time (``online_update``).

Items are held fixed at given parameters and each student's ability gets a
normal prior, so every student has a finite estimate, also with every answer
right or wrong. ``eap`` integrates the posterior numerically (its mean and
sd); ``online_update`` keeps a normal approximation (Laplace) that one answer
updates, cheap enough to run after every answer in practice.
"""
from __future__ import annotations

from typing import Union

import numpy as np

from core.analytics.irt.data import ArrayLike, ResponseData
from core.analytics.irt.design import _Design
from core.analytics.irt.logistic import expit
from core.analytics.irt.quadrature import _block_posterior, _normal_log_weights
from core.analytics.irt.results import Abilities, ItemParams, _aligned

EAP_HALF_WIDTH = 6.0          # eap: the grid spans +-6 prior sd
ONLINE_STEPS = 12             # online_update: Newton steps (each at most one logit) to the posterior mode


def eap(data: ResponseData, params: ItemParams, prior_mean: Union[float, ArrayLike] = 0.0,
        prior_sd: float = 1.0, n_quad: int = 61) -> Abilities:
    """Expected a posteriori abilities: posterior mean and sd under a normal prior.

    theta_p = E[theta | responses of p], with prior N(prior_mean, prior_sd^2)
    (``prior_mean`` one number or one per student in ``data.student_ids``
    order), items fixed at ``params``, integrated on ``n_quad`` evenly spaced
    points over +-6 prior sd. Every student gets a finite estimate, also with
    all answers right. All students at once: one matrix product.
    """
    if not (np.isscalar(prior_sd) and np.isfinite(prior_sd) and prior_sd > 0):
        raise ValueError(f"prior_sd must be one positive number, got {prior_sd!r}")
    if not isinstance(n_quad, (int, np.integer)) or n_quad < 11:
        raise ValueError(f"n_quad must be a whole number of at least 11 grid points, got {n_quad!r}")
    design = _Design.of(data)
    a, b = _aligned(data, params)
    means = np.asarray(prior_mean, dtype=np.float64)
    if means.ndim == 0:
        grid = float(means) + prior_sd * np.linspace(-EAP_HALF_WIDTH, EAP_HALF_WIDTH, n_quad)
        log_prior = _normal_log_weights((grid - float(means)) / prior_sd)
    else:
        if means.shape != (data.n_students,) or not np.isfinite(means).all():
            raise ValueError(f"prior_mean must be one number or {data.n_students} finite numbers, one per student")
        grid = np.linspace(means.min() - EAP_HALF_WIDTH * prior_sd, means.max() + EAP_HALF_WIDTH * prior_sd, n_quad)
        lp = -0.5 * ((grid[None, :] - means[:, None]) / prior_sd) ** 2
        log_prior = lp - np.logaddexp.reduce(lp, axis=1, keepdims=True)
    xa = design.correct_sum_per_student(a)
    w, _ = _block_posterior(design.rows, xa, a, b, grid, log_prior)
    theta = np.einsum("pq,q->p", w, grid)
    var = np.maximum(np.einsum("pq,q->p", w, grid * grid) - theta * theta, 0.0)
    return Abilities(data.student_ids.copy(), theta, np.sqrt(var), design.n_p.astype(np.int64))


def online_update(theta: Union[float, ArrayLike], se: Union[float, ArrayLike], b: Union[float, ArrayLike],
                  a: Union[float, ArrayLike], correct: Union[bool, int, ArrayLike]):
    """One answer's Bayesian update of an ability, in the normal (Laplace) approximation.

    Prior theta ~ N(theta, se^2); likelihood of the answer under the 2PL
    (a = 1: Rasch) item (a, b). Returns the posterior mode and the posterior
    sd from its curvature, 1 / sqrt(1/se^2 + a^2 P (1 - P)): a right answer
    moves theta up, a wrong one down, and se always shrinks. Arrays broadcast
    (update many students at once). Newton steps of at most one logit find
    the mode, also from a vague prior.
    """
    t0 = np.asarray(theta, dtype=np.float64)
    s0 = np.asarray(se, dtype=np.float64)
    bb = np.asarray(b, dtype=np.float64)
    aa = np.asarray(a, dtype=np.float64)
    xx = np.asarray(correct)
    if xx.dtype != bool:
        try:
            xx = xx.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"correct must be True/False or 1/0, got {correct!r}") from None
        if not np.isin(xx, (0.0, 1.0)).all():
            raise ValueError(f"correct must be True/False or 1/0, got {correct!r}")
    xx = xx.astype(np.float64)
    if not (np.isfinite(s0).all() and (s0 > 0).all()):
        raise ValueError(f"se must be positive and finite (the current uncertainty of theta), got {se!r}")
    if not (np.isfinite(t0).all() and np.isfinite(bb).all()):
        raise ValueError("theta and b must be finite numbers")
    if not (np.isfinite(aa).all() and (aa > 0).all()):
        raise ValueError(f"a (discrimination) must be positive; use 1 for Rasch items, got {a!r}")
    precision = 1.0 / (s0 * s0)
    t = t0.copy()
    for _ in range(ONLINE_STEPS):
        p = expit(aa * (t - bb))
        grad = aa * (xx - p) - (t - t0) * precision
        t = t + np.clip(grad / (aa * aa * p * (1 - p) + precision), -1.0, 1.0)
    p = expit(aa * (t - bb))
    new_se = 1.0 / np.sqrt(precision + aa * aa * p * (1 - p))
    if t.ndim == 0:
        return float(t), float(new_se)
    return t, new_se
