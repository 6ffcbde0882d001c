"""Calibrating items: ``fit_rasch`` and ``fit_2pl``, and which estimation method to use.

``method="mml"`` (the default): marginal maximum likelihood by EM. Abilities
    are integrated out over a normal population, one per *design stratum*:
    students are ranked by the mean difficulty of the items they were given
    and cut into equal strata (``strata="auto"``: one per 100 students, at
    most 20), each with its own ability mean and sd. Why: adaptive practice
    gives each student items near their ability, so which items a student
    answered says where their ability lies. A single population N(0, sd^2)
    ignores that and misplaces the items badly (difficulty RMSE 0.5 on the
    tests' adaptive data; 0.9 for girth's rasch_mml); the strata carry it
    (RMSE 0.05, as good as on random data). When items were assigned at
    random the strata all look alike and the fit is the usual single-population
    MML (the tests check the two agree within half a standard error).
    ``strata=1`` gives the classical single-population MML.

``method="joint"`` (Rasch only): joint maximum likelihood. Every student's
    ability is a free parameter, so there is no population model at all;
    alternating vectorised Newton steps on abilities and difficulties.
    Students with every answer right (or wrong) say nothing about difficulties
    and are left out. Joint Rasch estimates are stretched by about n/(n-1)
    for students answering n items; each difficulty is shrunk by the average
    (n-1)/n of its students. As accurate as mml on random and adaptive data
    when students answer 10 or more items each; with fewer the correction is
    rough. 2PL has no joint method: its discriminations run away (a student's
    ability is pulled to fit one sharp item, which makes it sharper still).

Classroom data are adaptive: use the default (mml with design strata) for
both models; ``joint`` is a population-free cross-check for Rasch.
"""
from __future__ import annotations

from typing import Any, Union

import numpy as np

from core.analytics.irt.data import ArrayLike, ResponseData
from core.analytics.irt.design import _Design
from core.analytics.irt.joint import _joint
from core.analytics.irt.mml import _mml
from core.analytics.irt.priors import PriorMean, _difficulty_prior
from core.analytics.irt.results import ItemParams, _flags

METHODS = ("mml", "joint")
DEFAULT_METHOD = "mml"
STUDENTS_PER_STRATUM = 100    # mml, strata="auto": one design stratum per 100 students ...
MAX_STRATA = 20               # ... up to 20


def fit_rasch(data: ResponseData, method: str = DEFAULT_METHOD, prior_mean: PriorMean = None,
              prior_sd: Union[None, float, ArrayLike] = None, n_quad: int = 41, max_iter: int = 500,
              tol: float = 1e-3, strata: Union[str, int] = "auto") -> ItemParams:
    """Calibrate item difficulties under the Rasch model.

    P(correct) = 1 / (1 + exp(-(theta - b))), discrimination fixed at 1; ability
    mean 0 (the average student of these data), spread estimated.

    ``method``: "mml" (default: marginal likelihood, abilities integrated over a
    normal population per design stratum; accurate for random and adaptive
    assignment) or "joint" (joint likelihood, no population model; needs 10+
    responses per student). See the module docstring. ``strata`` (mml): number
    of design strata, "auto" (one per 100 students, 1 to 20) or 1 for a single
    population. ``prior_mean``: declared difficulties (dict item id -> logit,
    or an array in ``data.item_ids`` order with NaN for none); ``prior_sd``:
    their sd (default 1; items without a declared difficulty get 3).
    ``n_quad``: grid points per stratum (mml). Stops when no parameter moves
    more than ``tol`` or after ``max_iter`` iterations.
    """
    return _fit(data, "rasch", method, prior_mean, prior_sd, n_quad, max_iter, tol, strata)


def fit_2pl(data: ResponseData, method: str = DEFAULT_METHOD, prior_mean: PriorMean = None,
            prior_sd: Union[None, float, ArrayLike] = None, n_quad: int = 41, max_iter: int = 500,
            tol: float = 1e-3, strata: Union[str, int] = "auto") -> ItemParams:
    """Calibrate item difficulties and discriminations under the 2PL model.

    P(correct) = 1 / (1 + exp(-a (theta - b))); ability mean 0 and sd 1 over the
    students of these data. Discriminations get a lognormal prior,
    log a ~ N(0, 0.5^2), and stay within [0.05, 20]. Arguments as for
    ``fit_rasch``; only "mml" is offered (joint 2PL estimates are unstable:
    discriminations run away when a student's ability is made to fit one item).
    2PL needs more data than Rasch: some hundreds of responses per item for
    discriminations to settle.
    """
    if method == "joint":
        raise ValueError("joint estimation is offered for the Rasch model only (2PL discriminations run away "
                         "under it); use fit_2pl(data) (method 'mml', which handles adaptive data too) "
                         "or fit_rasch(data, method='joint')")
    return _fit(data, "2pl", method, prior_mean, prior_sd, n_quad, max_iter, tol, strata)


def _fit(data: ResponseData, model: str, method: str, prior_mean: PriorMean, prior_sd: Any, n_quad: int,
         max_iter: int, tol: float, strata: Union[str, int]) -> ItemParams:
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; use 'mml' (the default) or 'joint' (Rasch only)")
    if not isinstance(n_quad, (int, np.integer)) or n_quad < 11:
        raise ValueError(f"n_quad must be a whole number of at least 11 grid points, got {n_quad!r}")
    if not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive whole number, got {max_iter!r}")
    if isinstance(tol, bool) or not (isinstance(tol, (int, float)) and tol > 0):
        raise ValueError(f"tol must be a positive number, got {tol!r}")
    if not isinstance(data, ResponseData):
        raise ValueError(f"expected ResponseData (build it with ResponseData.from_frame(df)), "
                         f"got {type(data).__name__}")
    if strata == "auto":
        k = int(min(MAX_STRATA, max(1, data.n_students // STUDENTS_PER_STRATUM)))
    elif isinstance(strata, (int, np.integer)) and not isinstance(strata, bool) and 1 <= strata <= data.n_students:
        k = int(strata)
    else:
        raise ValueError(f"strata must be 'auto' or a whole number from 1 to the number of students "
                         f"({data.n_students}), got {strata!r}")
    design = _Design.of(data)
    mean, sd = _difficulty_prior(data, prior_mean, prior_sd)
    if method == "mml":
        fit = _mml(design, model, mean, sd, int(n_quad), int(max_iter), float(tol), k)
    else:
        fit = _joint(design, mean, sd, int(max_iter), float(tol))
    n_i, r_i = design.n_i.astype(np.int64), design.r_i.astype(np.int64)
    return ItemParams(item_ids=data.item_ids.copy(), difficulty=fit.b, discrimination=fit.a,
                      se_difficulty=fit.se_b, se_discrimination=fit.se_a if model == "2pl" else None,
                      n=n_i, p_correct=r_i / n_i, flags=_flags(n_i, r_i, fit.a if model == "2pl" else None),
                      model=model, method=method, iterations=fit.iterations, converged=fit.converged,
                      log_likelihood=fit.loglik, ability_sd=fit.ability_sd)
