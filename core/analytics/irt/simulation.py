"""Simulated responses with known parameters, for tests and benchmarks.

Draws abilities, items and right/wrong answers from the Rasch or 2PL model
itself, so every assumption of the estimators holds except, with
``adaptive=True``, random assignment: items are then chosen near each
student's true ability, as adaptive practice does.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.analytics.irt.logistic import expit


def simulate(n_students: int, n_items: int, missing: float = 0.0, model: str = "rasch", seed: int = 0,
             adaptive: bool = False, items_per_student: tuple[int, int] = (20, 30), adaptive_noise: float = 0.5,
             ability_sd: float = 1.0, difficulty_sd: float = 1.0, log_discrimination_sd: float = 0.3
             ) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Simulated responses with known parameters: (responses, items, students).

    Abilities ~ N(0, ability_sd^2), difficulties ~ N(0, difficulty_sd^2),
    2PL discriminations ~ lognormal(0, log_discrimination_sd^2). Each cell is
    left unanswered with probability ``missing`` (missing at random). With
    ``adaptive=True`` each student instead answers k items (k uniform in
    ``items_per_student``) whose difficulty is nearest their true ability,
    distance blurred by N(0, adaptive_noise^2) noise: assignment depends on
    ability, as in adaptive practice.

    responses: student, item_id (categoricals), correct (int8);
    items: item_id, difficulty, discrimination; students: student, theta.
    """
    if model not in ("rasch", "2pl"):
        raise ValueError(f"model must be 'rasch' or '2pl', got {model!r}")
    if n_students < 1 or n_items < 1:
        raise ValueError("simulate needs at least one student and one item")
    if not 0.0 <= missing < 1.0:
        raise ValueError(f"missing is the share of unanswered cells, in [0, 1); got {missing!r}")
    rng = np.random.default_rng(seed)
    theta = rng.normal(0.0, ability_sd, n_students)
    b = rng.normal(0.0, difficulty_sd, n_items)
    a = np.exp(rng.normal(0.0, log_discrimination_sd, n_items)) if model == "2pl" else np.ones(n_items)
    student_ids = np.array([f"s{k:06d}" for k in range(n_students)])
    item_ids = np.array([f"i{k:05d}" for k in range(n_items)])
    if adaptive:
        lo, hi = items_per_student
        if not 1 <= lo <= hi:
            raise ValueError(f"items_per_student must be (low, high) with 1 <= low <= high, got {items_per_student}")
        k = np.minimum(rng.integers(lo, hi + 1, n_students), n_items)
        chunks_s, chunks_i = [], []
        for start in range(0, n_students, 5000):
            stop = min(start + 5000, n_students)
            dist = np.abs(b[None, :] - theta[start:stop, None]) + rng.normal(0, adaptive_noise, (stop - start, n_items))
            rank = np.argsort(np.argsort(dist, axis=1), axis=1)
            ss, ii = np.nonzero(rank < k[start:stop, None])
            chunks_s.append(ss + start)
            chunks_i.append(ii)
        s, i = np.concatenate(chunks_s), np.concatenate(chunks_i)
    else:
        chunks_s, chunks_i = [], []
        step = max(1, 5_000_000 // n_items)
        for start in range(0, n_students, step):
            stop = min(start + step, n_students)
            ss, ii = np.nonzero(rng.random((stop - start, n_items)) >= missing)
            chunks_s.append(ss + start)
            chunks_i.append(ii)
        s, i = np.concatenate(chunks_s), np.concatenate(chunks_i)
    x = (rng.random(len(s)) < expit(a[i] * (theta[s] - b[i]))).astype(np.int8)
    responses = pd.DataFrame({"student": pd.Categorical.from_codes(s, student_ids),
                              "item_id": pd.Categorical.from_codes(i, item_ids), "correct": x})
    items = pd.DataFrame({"item_id": item_ids, "difficulty": b, "discrimination": a})
    students = pd.DataFrame({"student": student_ids, "theta": theta})
    return responses, items, students
