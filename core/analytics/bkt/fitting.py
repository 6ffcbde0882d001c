"""Fitting BKT by expectation-maximisation (Baum-Welch), all skills at once.

``fit_bkt`` maximises the likelihood by EM. All skills, students and starting
points are fitted together over the packed answers. Each skill starts from
several points (one from its first-answer rates, the rest random from
``seed``), because the likelihood has local maxima; after a few iterations
only the best start per skill goes on. The M-step is the exact maximiser under
the bounds (clipping a Bernoulli rate to an interval maximises its expected
log-likelihood on that interval).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from core.analytics.bkt.answers import binary_correct
from core.analytics.columns import require_columns
from core.analytics.bkt.forward_backward import _backward, _emissions, _forward
from core.analytics.bkt.params import GUESS_SLIP_MAX, PARAMS, _bounded
from core.analytics.bkt.sequences import Sequences, pack_sequences

DEFAULT_MAX_ITER = 200
DEFAULT_TOL = 1e-9          # change in mean log-likelihood per answer that counts as converged
DEFAULT_STARTS = 4
SCREEN_ITER = 5             # iterations every start gets before only the best per skill goes on
FEW_ANSWERS = 200


def _em(seqs: Sequences, obs: np.ndarray, theta: np.ndarray, max_iter: int, tol: float,
        screen: Optional[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """EM from starting points ``theta`` (K, n_skills, 4).

    Every start runs ``screen`` iterations, then only the best start per skill
    (highest log-likelihood) goes on. Returns theta (n_skills, 4),
    log-likelihood, iterations and converged (n_skills,).
    """
    K, n_skills, _ = theta.shape
    flat_skill = seqs.seq_skill[seqs.flat_seq]                      # (N,)
    n_resp = np.bincount(flat_skill, minlength=n_skills).astype(float)
    n_seq = np.bincount(seqs.seq_skill, minlength=n_skills).astype(float)
    n_right = np.bincount(flat_skill, weights=obs, minlength=n_skills)
    last_idx = seqs.starts[seqs.lengths - 1] + np.arange(seqs.n_sequences)
    n_last = np.bincount(flat_skill[last_idx], minlength=n_skills).astype(float)
    first = seqs.block(0)

    # Packed answers come in runs of one skill: sum each run, then add the runs up per skill.
    runs = np.flatnonzero(np.concatenate(([True], flat_skill[1:] != flat_skill[:-1])))
    run_skill = flat_skill[runs]

    def sums(weights: np.ndarray, groups: Optional[np.ndarray] = None) -> np.ndarray:
        """Per (start, skill) sums of weights (k, m): all packed answers, or those of skills ``groups``."""
        k = weights.shape[0]
        if groups is None:
            weights, groups = np.add.reduceat(weights, runs, axis=1), run_skill
        idx = (np.arange(k)[:, None] * n_skills + groups[None, :]).ravel()
        return np.bincount(idx, weights=weights.ravel(), minlength=k * n_skills).reshape(k, n_skills)

    loglik = np.full((K, n_skills), -np.inf)
    iterations = np.zeros((K, n_skills), dtype=np.int64)
    converged = np.zeros((K, n_skills), dtype=bool)
    for it in range(1, max_iter + 1):
        if screen is not None and it == screen + 1 and theta.shape[0] > 1:
            pick = (np.argmax(loglik, axis=0), np.arange(n_skills))
            theta, loglik = theta[pick][None], loglik[pick][None]
            iterations, converged = iterations[pick][None], converged[pick][None]
        prior, learn, guess, slip = (theta[..., j] for j in range(4))
        e1, e0 = _emissions(obs[None, :], guess[:, flat_skill], slip[:, flat_skill])
        learn_flat = learn[:, flat_skill]
        known, scale = _forward(seqs, e1, e0, prior[:, seqs.seq_skill], learn_flat)
        ll = sums(np.log(scale))
        active = ~converged
        iterations[active] = it
        converged |= active & (np.abs(ll - loglik) <= tol * n_resp[None, :])
        loglik = np.where(active, ll, loglik)
        if converged.all() or it == max_iter:
            break
        beta1, w1 = _backward(seqs, e1, e0, scale, learn_flat)
        g1 = known * beta1                                          # P(knows at t | all answers)
        xi01 = (1.0 - known) * learn_flat * w1                      # P(not known at t, known at t+1 | all answers)
        s_g1 = sums(g1)
        s_g1_right = sums(g1 * obs[None, :])
        s_g1_last = sums(g1[:, last_idx], flat_skill[last_idx])
        s_xi = sums(xi01)
        s_first = sums(g1[:, first], seqs.seq_skill)
        s_g0 = n_resp - s_g1
        s_g0_nonlast = (n_resp - n_last) - (s_g1 - s_g1_last)
        with np.errstate(invalid="ignore", divide="ignore"):
            new = np.stack([s_first / n_seq,
                            np.where(s_g0_nonlast > 0, s_xi / s_g0_nonlast, theta[..., 1]),
                            np.where(s_g0 > 0, (n_right - s_g1_right) / s_g0, theta[..., 2]),
                            np.where(s_g1 > 0, (s_g1 - s_g1_right) / s_g1, theta[..., 3])], axis=-1)
        new = _bounded(np.nan_to_num(new, nan=0.5))
        theta = np.where((~converged)[..., None], new, theta)
    pick = (np.argmax(loglik, axis=0), np.arange(n_skills))
    return theta[pick], loglik[pick], iterations[pick], converged[pick]


def _starts(seqs: Sequences, obs: np.ndarray, n_starts: int, seed: int) -> np.ndarray:
    """Starting points (n_starts, n_skills, 4): one from first-answer rates, the rest random."""
    n_skills = len(seqs.skills)
    first = seqs.block(0)
    p1 = np.bincount(seqs.seq_skill, weights=obs[first], minlength=n_skills) / \
        np.maximum(np.bincount(seqs.seq_skill, minlength=n_skills), 1)
    guess0, slip0 = 0.2, 0.1
    prior0 = np.clip((p1 - guess0) / (1 - guess0 - slip0), 0.05, 0.95)
    rows = [np.stack([prior0, np.full(n_skills, 0.1), np.full(n_skills, guess0), np.full(n_skills, slip0)], axis=-1)]
    rng = np.random.default_rng(seed)
    for _ in range(max(0, n_starts - 1)):
        rows.append(np.stack([rng.uniform(0.05, 0.95, n_skills), rng.uniform(0.02, 0.5, n_skills),
                              rng.uniform(0.02, 0.45, n_skills), rng.uniform(0.02, 0.4, n_skills)], axis=-1))
    return _bounded(np.stack(rows))


def fit_bkt(df: pd.DataFrame, skill: str = "skill", student: str = "student", correct: str = "correct",
            order: Optional[str] = "created_at", max_iter: int = DEFAULT_MAX_ITER, tol: float = DEFAULT_TOL,
            n_starts: int = DEFAULT_STARTS, seed: int = 0) -> pd.DataFrame:
    """Fit BKT per skill by EM over every student's answers in time order.

    ``df`` has one row per answer: ``skill``, ``student``, ``correct``
    (True/False or 1/0) and ``order`` (a time or number; None keeps the row
    order). EM stops for a skill when the log-likelihood per answer changes by
    at most ``tol`` between iterations, or after ``max_iter`` iterations.

    Returns one row per skill: skill, prior, learn, guess, slip, n_students,
    n_responses, log_likelihood, iterations, converged, note (cautions in
    plain words: few answers, uninformative answers, no convergence).
    """
    require_columns(df, {"skill": skill, "student": student, "correct": correct, "order": order}, "fit_bkt")
    if not (isinstance(max_iter, int) and max_iter >= 1):
        raise ValueError(f"max_iter must be a whole number of at least 1, got {max_iter!r}")
    if not (isinstance(tol, (int, float)) and tol >= 0):
        raise ValueError(f"tol must be a number of at least 0, got {tol!r}")
    if not (isinstance(n_starts, int) and n_starts >= 1):
        raise ValueError(f"n_starts must be a whole number of at least 1, got {n_starts!r}")
    obs_rows = binary_correct(df[correct], correct)
    seqs = pack_sequences(df, skill, student, order)
    obs = seqs.pack(obs_rows)
    theta0 = _starts(seqs, obs, n_starts, seed)
    screen = min(SCREEN_ITER, max_iter) if n_starts > 1 else None
    theta, loglik, iterations, converged = _em(seqs, obs, theta0, max_iter, tol, screen)
    n_skills = len(seqs.skills)
    out = pd.DataFrame({"skill": seqs.skills})
    for j, name in enumerate(PARAMS):
        out[name] = theta[:, j]
    out["n_students"] = np.bincount(seqs.seq_skill, minlength=n_skills)
    out["n_responses"] = np.bincount(seqs.seq_skill, weights=seqs.lengths, minlength=n_skills).astype(np.int64)
    out["log_likelihood"] = loglik
    out["iterations"] = iterations
    out["converged"] = converged
    out["note"] = _fit_notes(out)
    return out


def _fit_notes(fit: pd.DataFrame) -> pd.Series:
    """Plain-language cautions per skill ('' when there are none)."""
    notes = [
        (fit["n_responses"] < FEW_ANSWERS, f"few answers (under {FEW_ANSWERS}): the parameters are rough"),
        ((fit["guess"] >= GUESS_SLIP_MAX - 1e-4) & (fit["slip"] >= GUESS_SLIP_MAX - 1e-4),
         "guess and slip at 0.5: right and wrong answers do not tell who knows the skill"),
        (~fit["converged"], "did not converge within max_iter; raise max_iter"),
    ]
    text = pd.Series("", index=fit.index, dtype=object)
    for mask, message in notes:
        text = text.where(~mask, text + np.where(text == "", "", "; ") + message)
    return text
