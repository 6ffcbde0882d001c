"""The hidden Markov model of BKT, run forward (filtering) and backward (smoothing) over packed answers.

Two hidden states per sequence, knows / does not know. Before the first
answer P(knows) = prior; after each answer a student who did not know learns
with probability ``learn`` and nobody forgets. P(right | knows) = 1 - slip,
P(right | does not know) = guess. Messages are scaled per answer (the scale
is P(answer | earlier answers)), so long sequences do not underflow and the
log-likelihood is the sum of the scales' logs. Arrays carry a leading axis
of starting points (or one row) so many parameter sets run at once.
"""
from __future__ import annotations

import numpy as np

from core.analytics.bkt.sequences import Sequences


def _emissions(obs: np.ndarray, guess: np.ndarray, slip: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """P(answer | knows) and P(answer | does not know) at every packed answer; shapes (K, N)."""
    e1 = slip + obs * (1.0 - 2.0 * slip)
    e0 = (1.0 - guess) + obs * (2.0 * guess - 1.0)
    return e1, e0


def _forward(seqs: Sequences, e1: np.ndarray, e0: np.ndarray, prior_seq: np.ndarray,
             learn_flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Filtered P(knows | answers so far) after each answer, and the scaling P(answer | earlier answers)."""
    known = np.empty_like(e1)
    scale = np.empty_like(e1)
    p = prior_seq
    for t in range(seqs.n_opportunities):
        b = seqs.block(t)
        n = seqs.counts[t]
        pt = p[:, :n]
        num = pt * e1[:, b]
        c = num + (1.0 - pt) * e0[:, b]
        a = num / c
        known[:, b] = a
        scale[:, b] = c
        p = a + (1.0 - a) * learn_flat[:, b]
    return known, scale


def _backward(seqs: Sequences, e1: np.ndarray, e0: np.ndarray, scale: np.ndarray,
              learn_flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Scaled backward message beta1 (for knowing) at each answer, and w1[t] = P(answer t+1 | knows) *
    beta1[t+1] / c[t+1] (0 at a sequence's last answer), which gives the expected learning transitions."""
    beta0 = np.ones_like(e1)
    beta1 = np.ones_like(e1)
    w1 = np.zeros_like(e1)
    for t in range(seqs.n_opportunities - 2, -1, -1):
        b, m = seqs.block(t), int(seqs.counts[t + 1])
        nb = seqs.block(t + 1)
        cur = slice(b.start, b.start + m)
        u1 = e1[:, nb] * beta1[:, nb] / scale[:, nb]
        u0 = e0[:, nb] * beta0[:, nb] / scale[:, nb]
        lt = learn_flat[:, cur]
        beta1[:, cur] = u1
        beta0[:, cur] = (1.0 - lt) * u0 + lt * u1
        w1[:, cur] = u1
    return beta1, w1
