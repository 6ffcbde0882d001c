"""IRT-lite: calibrate items and estimate abilities from right/wrong responses.

Models (the probability that a student of ability theta answers an item correctly)::

    Rasch:  P = 1 / (1 + exp(-(theta - b)))          b: difficulty
    2PL:    P = 1 / (1 + exp(-a (theta - b)))        a: discrimination (> 0)

Both assume one ability per student, responses independent given that ability
(local independence), and no guessing floor. Repeated answers by a student to
the same item count as independent replications; calibrate first attempts
only (``core.store.responses.response_frame`` returns those by default).

The scale: 0 is the average student of the data calibrated; one unit is one
logit (Rasch) or one standard deviation of ability (2PL). Declared item
difficulties given as priors must be on this scale.

The modules, in the order the data flow through them:

* ``data``: responses in, coded (``ResponseData``);
* ``design``: the sparse students x items matrix every estimate multiplies by;
* ``quadrature``: posteriors of ability over a grid (the E-step of MML, EAP);
* ``priors``: the normal prior on difficulty, the lognormal on discrimination;
* ``item_steps``: starting values and Newton steps vectorised over items;
* ``mml``, ``joint``: the two estimators; ``estimation`` runs one
  (``fit_rasch``, ``fit_2pl``) and says which to use when;
* ``results``: what calibration returns (``ItemParams``, ``Abilities``);
* ``abilities``: ``eap`` for a class, ``online_update`` after one answer;
* ``fit``: ``item_fit`` (infit and outfit) and ``icc``;
* ``simulation``: ``simulate``, responses with known parameters;
* ``logistic``: the logistic function every model uses, in numpy alone.

Everything is importable from here: ``from core.analytics import irt``.
"""
from __future__ import annotations

from core.analytics.irt.abilities import EAP_HALF_WIDTH, ONLINE_STEPS, eap, online_update
from core.analytics.irt.data import ArrayLike, ResponseData
from core.analytics.irt.design import COMPLETE_CHECK_MAX
from core.analytics.irt.design import _Design as _Design  # tests patch its shortcuts to force the general path
from core.analytics.irt.estimation import (DEFAULT_METHOD, MAX_STRATA, METHODS, STUDENTS_PER_STRATUM, fit_2pl,
                                           fit_rasch)
from core.analytics.irt.fit import icc, item_fit
from core.analytics.irt.joint import THETA_LIMIT
from core.analytics.irt.mml import GRID_HALF_WIDTH, MAX_RESTRATIFY, MIN_STRATUM_SD
from core.analytics.irt.priors import (DECLARED_PRIOR_SD, LOG_A_LIMITS, LOG_A_PRIOR_SD, WEAK_PRIOR_SD,
                                       PriorMean)
from core.analytics.irt.results import FEW_RESPONSES, LOW_DISCRIMINATION, Abilities, ItemParams
from core.analytics.irt.simulation import simulate

__all__ = ["ResponseData", "ItemParams", "Abilities", "fit_rasch", "fit_2pl", "eap", "online_update", "item_fit",
           "icc", "simulate", "ArrayLike", "PriorMean", "METHODS", "DEFAULT_METHOD", "WEAK_PRIOR_SD",
           "DECLARED_PRIOR_SD", "LOG_A_PRIOR_SD", "LOG_A_LIMITS", "FEW_RESPONSES", "LOW_DISCRIMINATION",
           "STUDENTS_PER_STRATUM", "MAX_STRATA", "MIN_STRATUM_SD", "MAX_RESTRATIFY", "THETA_LIMIT",
           "GRID_HALF_WIDTH", "EAP_HALF_WIDTH", "COMPLETE_CHECK_MAX", "ONLINE_STEPS"]
