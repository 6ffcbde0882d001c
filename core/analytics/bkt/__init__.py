"""Bayesian Knowledge Tracing: how likely each student is to know each skill.

The model (standard BKT, one set of parameters per skill, no forgetting)
------------------------------------------------------------------------
A student either knows a skill or does not. Before their first answer on the
skill they know it with probability ``prior`` = P(L0). After every answer a
student who did not know it learns it with probability ``learn`` = P(T); a
student who knows it never forgets. A student who knows the skill still gets
an answer wrong with probability ``slip`` = P(S); one who does not gets it
right by ``guess`` = P(G). Given whether the student knows the skill, answers
are independent, and every question on a skill is treated alike (item
difficulty is ignored; that is the item-response model's job).

Assumptions worth knowing
-------------------------
* Answers are taken per student and skill in time order (``order``); ties keep
  the order of the rows.
* ``guess`` and ``slip`` are kept below 0.5. Without that bound the model has
  two equally good readings of the same data (swap "knows" and "does not
  know" and replace guess and slip by 1 - slip and 1 - guess); with it,
  "knows the skill" always means "more likely to answer correctly".
* Every probability is kept inside [1e-6, 1 - 1e-6] (guess and slip inside
  [1e-6, 0.5 - 1e-6]) so that no answer is ever impossible.

The modules
-----------
``params`` (the parameters and their bounds), ``answers`` (reading right/wrong
answers), ``sequences`` (answers packed by opportunity), ``forward_backward``
(the hidden Markov model), ``fitting`` (``fit_bkt``, EM), ``tracing``
(``mastery_trace``, ``log_likelihood``) and ``simulation`` (``simulate_bkt``).
Everything is importable from here.
"""
from __future__ import annotations

from core.analytics.bkt.answers import binary_correct
from core.analytics.columns import require_columns
from core.analytics.bkt.fitting import (DEFAULT_MAX_ITER as DEFAULT_MAX_ITER, DEFAULT_STARTS as DEFAULT_STARTS,
                                        DEFAULT_TOL as DEFAULT_TOL, FEW_ANSWERS as FEW_ANSWERS,
                                        SCREEN_ITER as SCREEN_ITER, fit_bkt)
from core.analytics.bkt.params import EPS as EPS, GUESS_SLIP_MAX, PARAMS
from core.analytics.bkt.sequences import Sequences, pack_sequences
from core.analytics.bkt.simulation import simulate_bkt
from core.analytics.bkt.tracing import log_likelihood, mastery_trace

__all__ = ["PARAMS", "GUESS_SLIP_MAX", "Sequences", "pack_sequences", "require_columns", "binary_correct", "fit_bkt",
           "mastery_trace", "log_likelihood", "simulate_bkt"]
