"""Marginal maximum likelihood by EM, with abilities normal within each design stratum.

Abilities are integrated out over a normal population per *design stratum*
rather than one population for all, because under adaptive assignment which
items a student answered says where their ability lies. Assumed: within a
stratum ability is normal, and which items a student answered says nothing
more about their ability than their stratum does. See ``_mml`` for the
algorithm and ``estimation`` for when to use it.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from core.analytics.irt.design import _Design
from core.analytics.irt.item_steps import _rasch_item_step, _start_difficulty, _twopl_item_step
from core.analytics.irt.logistic import expit
from core.analytics.irt.priors import LOG_A_LIMITS, LOG_A_PRIOR_SD
from core.analytics.irt.quadrature import _block_posterior, _normal_log_weights
from core.analytics.irt.results import _Fit

MIN_STRATUM_SD = 0.05         # a stratum's ability sd never collapses below this
MAX_RESTRATIFY = 50           # strata are frozen after this many iterations at the latest
GRID_HALF_WIDTH = 5.0         # mml: each stratum's grid spans +-5 of its ability sd


def _mml(design: _Design, model: str, mean: np.ndarray, sd: np.ndarray, n_quad: int, max_iter: int,
         tol: float, k: int) -> _Fit:
    """Marginal maximum likelihood by EM, ability normal within each design stratum.

    Population: students are ranked by the mean current difficulty of the items
    they answered and cut into ``k`` equal strata; within stratum g ability is
    N(mu_g, sd_g^2). Under adaptive assignment a student's items say where
    their ability lies, and a stratum's population says so too; under random
    assignment the strata coincide and this is the usual single-population
    MML. Strata are re-cut as the difficulties move, then frozen once under 1%
    of students would change stratum. Scale: overall ability mean 0 (Rasch:
    spread free; 2PL: overall variance 1), restored after each M-step by moving
    items and populations together.

    E-step: posterior weights w_pq on each stratum's grid mu_g + sd_g z_q (one
    sparse matrix product per stratum). M-step: expected responses per item and
    grid point n_iq = sum_p m_pi w_pq (one product), then two Newton steps on
    all items at once; correct answers enter only through their count and
    sum_p x_pi E[theta_p]. Once the strata are frozen, EM steps are
    extrapolated (SQUAREM, Varadhan & Roland 2008) with a fallback to the
    plain step whenever that would lower the posterior. Standard errors come
    from the expected complete-data information (slightly optimistic for
    thinly answered items).
    """
    z = np.linspace(-GRID_HALF_WIDTH, GRID_HALF_WIDTH, n_quad)
    log_w = _normal_log_weights(z)
    P, I = design.P, design.I
    r_i = design.r_i
    out: dict[str, Any] = {}

    def em_step(state: np.ndarray) -> tuple[np.ndarray, float]:
        """One EM step from ``state`` = (b, log a, mu, log sd): the next state, and the log posterior at ``state``."""
        b, la, mu, sg = state[:I], state[I:2 * I], state[2 * I:2 * I + k], np.exp(state[2 * I + k:])
        a = np.exp(la)
        xa = design.r_p if model == "rasch" else design.correct_sum_per_student(a)
        xa = xa[order]
        cols, grids = [], []
        e1, e2 = np.empty(P), np.empty(P)
        loglik = -float(np.dot(r_i, a * b))           # sum over responses of x a b
        for g, (lo, hi, rows) in enumerate(blocks):
            grid = mu[g] + sg[g] * z
            w, part = _block_posterior(rows, xa[lo:hi], a, b, grid, log_w)
            loglik += part
            cols.append(np.asarray(rows.T @ w, dtype=np.float64))
            grids.append(grid)
            e1[lo:hi] = np.einsum("pq,q->p", w, grid)
            e2[lo:hi] = np.einsum("pq,q->p", w, grid * grid)
        objective = loglik - float(np.sum((b - mean) ** 2 / (2 * sd ** 2)))
        if model == "2pl":
            objective -= float(np.sum(la ** 2)) / (2 * LOG_A_PRIOR_SD ** 2)
        out["loglik"] = loglik
        nq = np.concatenate(cols, axis=1)          # items x (strata x grid)
        grid = np.concatenate(grids)
        if model == "rasch":
            for _ in range(2):
                p = expit(grid[None, :] - b[:, None])
                b, out["info"] = _rasch_item_step(b, (nq * p).sum(1) - r_i, (nq * p * (1 - p)).sum(1), mean, sd)
        else:
            ability = np.empty(P)
            ability[order] = e1
            s_i = design.correct_sum_per_item(ability)                # sum_p x_pi E[theta_p]
            for _ in range(2):
                a = np.exp(la)
                dev = grid[None, :] - b[:, None]
                p = expit(a[:, None] * dev)
                nw = nq * p * (1 - p)
                la, b, out["var_a"], out["var_b"] = _twopl_item_step(
                    la, b, (s_i - b * r_i) - (nq * p * dev).sum(1), -a * (r_i - (nq * p).sum(1)),
                    (nw * dev * dev).sum(1), -a * (nw * dev).sum(1), a * a * nw.sum(1), mean, sd)
        # Populations from the posteriors, then back to the fixed scale.
        mu, sg = np.empty(k), np.empty(k)
        for g, (lo, hi, _) in enumerate(blocks):
            mu[g] = e1[lo:hi].mean()
            sg[g] = np.sqrt(max(e2[lo:hi].mean() - mu[g] ** 2, MIN_STRATUM_SD ** 2))
        centre = float(np.dot(sizes, mu) / P)
        mu -= centre
        b = b - centre
        if model == "2pl":
            spread = float(np.sqrt(np.dot(sizes, mu * mu + sg * sg) / P))
            mu, sg, b = mu / spread, sg / spread, b / spread
            la = np.clip(la + np.log(spread), LOG_A_LIMITS[0], LOG_A_LIMITS[1])
        return np.concatenate([b, la, mu, np.log(sg)]), objective

    def moved(new: np.ndarray, old: np.ndarray) -> float:
        return float(np.abs(new[:2 * I] - old[:2 * I]).max())

    b0 = _start_difficulty(r_i, design.n_i, mean, sd, spread=1.0)
    if k > 1 and np.ptp(design.mean_difficulty(b0)) < 1e-6:
        k = 1                # every student answered the same items: there is no design to stratify by
    state = np.concatenate([b0, np.zeros(I), np.zeros(k), np.zeros(k)])
    sizes = np.diff((np.arange(k + 1) * P) // k).astype(np.float64)
    order = np.arange(P)
    blocks = design.strata(order, 1)
    group = np.zeros(P, dtype=np.int64)
    restratify = k > 1
    converged, steps = False, 0
    while steps < max_iter:
        if restratify:
            rank = np.argsort(design.mean_difficulty(state[:I]), kind="stable")
            new_group = np.empty(P, dtype=np.int64)
            new_group[rank] = (np.arange(P) * k) // P
            share = float(np.mean(new_group != group))
            if share > 0:
                order, blocks = rank, design.strata(rank, k)
                group = new_group
            restratify = share >= 0.01 and steps < MAX_RESTRATIFY
        p1, obj0 = em_step(state)
        steps += 1
        if moved(p1, state) < tol and not restratify:
            state, converged = p1, True
            break
        if restratify or steps + 2 > max_iter:
            state = p1
            continue
        p2, _ = em_step(p1)
        steps += 1
        r = p1 - state
        v = p2 - p1 - r
        alpha = -np.sqrt(np.dot(r, r) / max(np.dot(v, v), 1e-300))
        alpha = min(alpha, -1.0)
        while True:
            jump = state - 2 * alpha * r + alpha * alpha * v
            jump[I:2 * I] = np.clip(jump[I:2 * I], LOG_A_LIMITS[0], LOG_A_LIMITS[1])
            p3, obj_jump = em_step(jump)
            steps += 1
            if alpha == -1.0 or (np.isfinite(obj_jump) and obj_jump >= obj0):
                break
            alpha = (alpha - 1.0) / 2       # too bold: halve the distance to the plain double step
        state = p3 if np.isfinite(obj_jump) else p2
    b, la = state[:I], state[I:2 * I]
    mu, sg = state[2 * I:2 * I + k], np.exp(state[2 * I + k:])
    ability_sd = float(np.sqrt(np.dot(sizes, mu * mu + sg * sg) / P))
    if model == "rasch":
        return _Fit(b, np.ones(I), 1.0 / np.sqrt(out["info"]), None, steps, converged, out["loglik"], ability_sd)
    return _Fit(b, np.exp(la), np.sqrt(out["var_b"]), np.sqrt(out["var_a"]), steps, converged, out["loglik"],
                ability_sd)
