"""Rasch joint maximum likelihood: every student's ability is a free parameter.

No population model at all, so it holds however items were assigned. The
price is the joint-likelihood bias (estimates stretched by about n/(n-1) for
students answering n items), which is corrected; the correction is good for
students answering 10 or more items each. See ``_joint``.
"""
from __future__ import annotations

import numpy as np

from core.analytics.irt.design import _Design
from core.analytics.irt.item_steps import _rasch_item_step, _start_difficulty
from core.analytics.irt.logistic import expit
from core.analytics.irt.results import _Fit

THETA_LIMIT = 8.0             # joint: abilities are kept within +-8 logits


def _joint(design: _Design, mean: np.ndarray, sd: np.ndarray, max_iter: int, tol: float) -> _Fit:
    """Rasch joint maximum likelihood: alternate Newton steps on all abilities, then on all items.

    Every student's ability is a free parameter (no population model, no
    prior), so which items a student saw may depend on it. Students with all
    answers right (or all wrong) have no finite ability and say nothing about
    difficulties: they are left out. Location: mean ability 0. Joint estimates
    are stretched by about n/(n-1) for students with n responses (Wright's
    correction for complete data); each difficulty is shrunk by the average
    (n-1)/n of its students. Standard errors: item information at the
    estimated abilities, shrunk likewise.
    """
    I, P = design.I, design.P
    n_p, r_p = design.n_p, design.r_p
    active = (r_p > 0) & (r_p < n_p)
    keep = active[design.s]
    s, i, x = design.s[keep], design.i[keep], design.x[keep]
    n_i = np.bincount(i, minlength=I).astype(np.float64)
    r_i = np.bincount(i, weights=x, minlength=I)
    theta = np.zeros(P)
    theta[active] = np.log(r_p[active] / (n_p[active] - r_p[active]))
    b = _start_difficulty(r_i, n_i, mean, sd, spread=0.0)
    info = 1.0 / sd ** 2
    converged, it = False, 0
    for it in range(1, max_iter + 1):
        for _ in range(2):
            p = expit(theta[s] - b[i])
            g = np.bincount(s, weights=x - p, minlength=P)
            h = np.bincount(s, weights=p * (1 - p), minlength=P)
            step = np.divide(g, h, out=np.zeros(P), where=h > 0)
            theta = np.clip(theta + np.clip(step, -1.0, 1.0), -THETA_LIMIT, THETA_LIMIT)
        if active.any():
            theta[active] -= theta[active].mean()
        b_old = b
        for _ in range(2):
            p = expit(theta[s] - b[i])
            b, info = _rasch_item_step(b, np.bincount(i, weights=p - x, minlength=I),
                                       np.bincount(i, weights=p * (1 - p), minlength=I), mean, sd)
        if np.abs(b - b_old).max() < tol:
            converged = True
            break
    p = expit(theta[s] - b[i])
    loglik = float(np.sum(np.where(x > 0, np.log(np.maximum(p, 1e-300)), np.log(np.maximum(1 - p, 1e-300)))))
    stretch = np.bincount(i, weights=((n_p - 1) / n_p)[s], minlength=I)
    factor = np.divide(stretch, n_i, out=np.ones(I), where=n_i > 0)
    ability_sd = 0.0
    if active.any():  # spread net of measurement error, on the corrected scale
        error_var = np.mean(1.0 / np.maximum(h[active], 1e-9))
        ability_sd = float(np.sqrt(max(theta[active].var() - error_var, 0.0)) * np.mean(factor))
    return _Fit(b * factor, np.ones(I), factor / np.sqrt(info), None, it, converged, loglik, ability_sd)
