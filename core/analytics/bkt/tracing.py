"""Mastery over time under given parameters: each answer's chance the student knows the skill, and the fit.

``mastery_trace`` runs the forward pass with fitted (or given) parameters and
returns, for every answer, the chance the student knows the skill after it;
``log_likelihood`` scores a set of parameters on a set of answers. Both use
only earlier answers (filtering, not smoothing): what a teacher could have
known at the time.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Union

import numpy as np
import pandas as pd

from core.analytics.bkt.answers import binary_correct
from core.analytics.columns import require_columns
from core.analytics.bkt.forward_backward import _emissions, _forward
from core.analytics.bkt.params import EPS, _param_table
from core.analytics.bkt.sequences import pack_sequences


def _sequences_with_params(df: pd.DataFrame, params: Any, skill: str, student: str, correct: str,
                           order: Optional[str], caller: str) -> tuple[np.ndarray, Any, np.ndarray]:
    """The answers as packed sequences, with each sequence's skill parameters (clipped into (0, 1))."""
    require_columns(df, {"skill": skill, "student": student, "correct": correct, "order": order}, caller)
    table = _param_table(params)
    obs_rows = binary_correct(df[correct], correct)
    seqs = pack_sequences(df, skill, student, order)
    unknown = [s for s in seqs.skills if s not in table.index]
    if unknown:
        raise ValueError(f"no BKT parameters for skills {unknown[:5]}; fit them with fit_bkt first (or drop those answers)")
    return obs_rows, seqs, np.clip(table.loc[list(seqs.skills)].to_numpy(), EPS, 1 - EPS)


def mastery_trace(df: pd.DataFrame, params: Union[pd.DataFrame, Mapping[str, Mapping[str, float]]],
                  skill: str = "skill", student: str = "student", correct: str = "correct",
                  order: Optional[str] = "created_at") -> pd.DataFrame:
    """For every answer, the chance the student knows the skill, under fitted BKT parameters.

    ``df``: one row per answer with ``skill``, ``student``, ``correct`` and
    ``order`` (as for ``fit_bkt``); ``params``: ``fit_bkt``'s table or
    ``{skill: {"prior", "learn", "guess", "slip"}}``. Returns a copy of
    ``df`` (same rows, same order) with:

    * ``opportunity``: 1 for the student's first answer on the skill, 2 for the next, ...
    * ``p_known_before``: P(knows) just before the answer (what predicts it),
    * ``p_known``: P(knows | this and every earlier answer on the skill),
    * ``p_known_next``: ``p_known`` plus the chance of learning from this
      answer, i.e. P(knows) at the next question on the skill,
    * ``p_correct_next``: the chance the next answer on the skill is right.
    """
    obs_rows, seqs, theta = _sequences_with_params(df, params, skill, student, correct, order, "mastery_trace")
    flat_skill = seqs.seq_skill[seqs.flat_seq]
    obs = seqs.pack(obs_rows)
    e1, e0 = _emissions(obs[None, :], theta[flat_skill, 2][None, :], theta[flat_skill, 3][None, :])
    learn_flat = theta[flat_skill, 1][None, :]
    known, scale = _forward(seqs, e1, e0, theta[seqs.seq_skill, 0][None, :], learn_flat)
    known = known[0]
    before = np.empty_like(known)
    b0 = seqs.block(0)
    before[b0] = theta[seqs.seq_skill, 0]
    after = known + (1.0 - known) * learn_flat[0]
    for t in range(1, seqs.n_opportunities):
        b, prev = seqs.block(t), seqs.block(t - 1)
        before[b] = after[prev][: seqs.counts[t]]
    position = np.empty(len(obs), dtype=np.int64)
    for t in range(seqs.n_opportunities):
        position[seqs.block(t)] = t + 1
    out = df.copy()
    out["opportunity"] = seqs.unpack(position)
    out["p_known_before"] = seqs.unpack(before)
    out["p_known"] = seqs.unpack(known)
    out["p_known_next"] = seqs.unpack(after)
    out["p_correct_next"] = seqs.unpack(after * (1 - theta[flat_skill, 3]) + (1 - after) * theta[flat_skill, 2])
    return out


def log_likelihood(df: pd.DataFrame, params: Union[pd.DataFrame, Mapping[str, Mapping[str, float]]],
                   skill: str = "skill", student: str = "student", correct: str = "correct",
                   order: Optional[str] = "created_at") -> pd.Series:
    """Log-likelihood of the answers under ``params``, per skill (a Series indexed by skill).

    The sum over answers of log P(answer | earlier answers of the student on
    the skill); higher is a better fit. For comparing parameter sets on the
    same answers (e.g. two fitting methods).
    """
    obs_rows, seqs, theta = _sequences_with_params(df, params, skill, student, correct, order, "log_likelihood")
    flat_skill = seqs.seq_skill[seqs.flat_seq]
    obs = seqs.pack(obs_rows)
    e1, e0 = _emissions(obs[None, :], theta[flat_skill, 2][None, :], theta[flat_skill, 3][None, :])
    _, scale = _forward(seqs, e1, e0, theta[seqs.seq_skill, 0][None, :], theta[flat_skill, 1][None, :])
    ll = np.bincount(flat_skill, weights=np.log(scale[0]), minlength=len(seqs.skills))
    return pd.Series(ll, index=pd.Index(seqs.skills, name="skill"), name="log_likelihood")
