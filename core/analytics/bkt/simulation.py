"""Answers drawn from the BKT model itself, for tests and benchmarks.

Every student answers every skill the same number of times, one answer after
another, so every assumption of the fit holds and the true parameters and
hidden states are known.
"""
from __future__ import annotations

from typing import Mapping, Optional, Union

import numpy as np
import pandas as pd

from core.analytics.bkt.params import _param_table


def simulate_bkt(n_skills: int = 5, n_students: int = 2000, n_opportunities: int = 20, seed: int = 0,
                 params: Optional[Union[pd.DataFrame, Mapping[str, Mapping[str, float]]]] = None
                 ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Answers drawn from the BKT model: every student answers every skill ``n_opportunities`` times.

    Without ``params`` the true parameters are drawn per skill: prior from
    U(0.1, 0.6), learn U(0.05, 0.3), guess U(0.1, 0.3), slip U(0.05, 0.2).
    Returns (answers, truth): answers has one row per answer with skill,
    student, opportunity (1, 2, ...), created_at (a time per answer, in
    order), correct (bool) and known (the hidden state when answering);
    truth is indexed by skill with prior, learn, guess, slip.
    """
    for name, value in (("n_skills", n_skills), ("n_students", n_students), ("n_opportunities", n_opportunities)):
        if not (isinstance(value, (int, np.integer)) and value >= 1):
            raise ValueError(f"{name} must be a whole number of at least 1, got {value!r}")
    rng = np.random.default_rng(seed)
    skills = [f"skill{k + 1:02d}" for k in range(n_skills)]
    if params is None:
        truth = pd.DataFrame({"prior": rng.uniform(0.1, 0.6, n_skills), "learn": rng.uniform(0.05, 0.3, n_skills),
                              "guess": rng.uniform(0.1, 0.3, n_skills), "slip": rng.uniform(0.05, 0.2, n_skills)},
                             index=pd.Index(skills, name="skill"))
    else:
        truth = _param_table(params)
        if len(truth) != n_skills:
            raise ValueError(f"params name {len(truth)} skills but n_skills is {n_skills}; make them agree")
        skills = [str(s) for s in truth.index]
        truth.index = pd.Index(skills, name="skill")
    p = truth.to_numpy()[:, :, None]                     # (skills, 4, 1)
    known = np.empty((n_skills, n_students, n_opportunities), dtype=bool)
    state = rng.random((n_skills, n_students)) < p[:, 0]
    for t in range(n_opportunities):
        known[:, :, t] = state
        state = state | (rng.random((n_skills, n_students)) < p[:, 1])
    u = rng.random(known.shape)
    correct = np.where(known, u >= p[:, 3, :, None], u < p[:, 2, :, None])
    sk = np.repeat(np.arange(n_skills), n_students * n_opportunities)
    st = np.tile(np.repeat(np.arange(n_students), n_opportunities), n_skills)
    opp = np.tile(np.arange(1, n_opportunities + 1), n_skills * n_students)
    width = len(str(n_students))
    students = np.array([f"s{k + 1:0{width}d}" for k in range(n_students)])
    base = np.datetime64("2025-01-06T09:00:00", "s")
    minutes = (sk * n_opportunities + opp) + st * (n_skills * n_opportunities + 7)
    answers = pd.DataFrame({"skill": np.array(skills)[sk], "student": students[st], "opportunity": opp,
                            "created_at": base + minutes.astype("timedelta64[m]"),
                            "correct": correct.ravel(), "known": known.ravel()})
    return answers, truth
