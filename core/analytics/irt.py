"""IRT-lite: calibrate items and estimate abilities from right/wrong responses.

Models (the probability that a student of ability theta answers an item correctly)::

    Rasch:  P = 1 / (1 + exp(-(theta - b)))          b: difficulty
    2PL:    P = 1 / (1 + exp(-a (theta - b)))        a: discrimination (> 0)

Both assume one ability per student, responses independent given that ability
(local independence), and no guessing floor. Repeated answers by a student to
the same item count as independent replications; calibrate first attempts
only (``core.store.responses.response_frame`` returns those by default).

Data come long-format (student, item, correct) and every student answers a
different subset: the responses form a sparse students x items matrix in
compressed sparse rows (when every student answered the same items, one row
stands for all). Estimation is sparse-times-dense matrix products and Newton
steps vectorised over all items (or all students), never a Python loop over
items or students.

The scale: 0 is the average student of the data calibrated; one unit is one
logit (Rasch) or one standard deviation of ability (2PL). Declared item
difficulties given as priors must be on this scale.

Estimation methods
------------------
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

Priors (maximum a posteriori): ``prior_mean`` (per item) and ``prior_sd`` give
difficulty a normal prior, which is how a blueprint's declared difficulty
enters. Items without one get a weak N(0, 3^2) prior: it moves an item
answered 100 times by under 0.02 logits, and keeps items answered all right
or all wrong finite (they are also flagged). 2PL discriminations get a
lognormal prior, log a ~ N(0, 0.5^2), and stay within [0.05, 20].
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import scipy.sparse as sp
from scipy.special import expit

ArrayLike = Union[Sequence[float], np.ndarray]
PriorMean = Union[None, float, ArrayLike, Mapping[str, float]]

METHODS = ("mml", "joint")
DEFAULT_METHOD = "mml"
WEAK_PRIOR_SD = 3.0           # difficulty prior for items without a declared difficulty
DECLARED_PRIOR_SD = 1.0       # default sd around a declared difficulty
LOG_A_PRIOR_SD = 0.5          # 2PL: log discrimination ~ N(0, 0.5^2)
LOG_A_LIMITS = (float(np.log(0.05)), float(np.log(20.0)))
FEW_RESPONSES = 10            # items answered fewer times are flagged
LOW_DISCRIMINATION = 0.35     # 2PL items below this are flagged
STUDENTS_PER_STRATUM = 100    # mml, strata="auto": one design stratum per 100 students ...
MAX_STRATA = 20               # ... up to 20
MIN_STRATUM_SD = 0.05         # a stratum's ability sd never collapses below this
MAX_RESTRATIFY = 50           # strata are frozen after this many iterations at the latest
THETA_LIMIT = 8.0             # joint: abilities are kept within +-8 logits
GRID_HALF_WIDTH = 5.0         # mml: each stratum's grid spans +-5 of its ability sd
EAP_HALF_WIDTH = 6.0          # eap: the grid spans +-6 prior sd
COMPLETE_CHECK_MAX = 50_000_000  # complete data are recognised without a matrix up to this many responses
ONLINE_STEPS = 12             # online_update: Newton steps (each at most one logit) to the posterior mode


# ---------------------------------------------------------------------------
# Responses


@dataclasses.dataclass(frozen=True, eq=False)
class ResponseData:
    """Right/wrong responses, coded: response k is student ``s[k]`` answering item ``i[k]`` with ``x[k]``.

    ``student_ids[s[k]]`` and ``item_ids[i[k]]`` give the ids; ``x`` is 1 for
    correct, 0 for wrong. Build one with ``ResponseData.from_frame``.
    """

    student_ids: np.ndarray
    item_ids: np.ndarray
    s: np.ndarray
    i: np.ndarray
    x: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.x)
        if len(self.s) != n or len(self.i) != n:
            raise ValueError(f"ResponseData needs s, i and x of one length; got {len(self.s)}, {len(self.i)}, {n}")
        if n == 0:
            raise ValueError("there are no responses to analyse; answer some items first or check the filter")
        if self.s.min() < 0 or self.s.max() >= len(self.student_ids):
            raise ValueError("ResponseData: a student code in s is outside student_ids")
        if self.i.min() < 0 or self.i.max() >= len(self.item_ids):
            raise ValueError("ResponseData: an item code in i is outside item_ids")

    @property
    def n_students(self) -> int:
        return len(self.student_ids)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def n_responses(self) -> int:
        return len(self.x)

    def __repr__(self) -> str:
        return (f"ResponseData({self.n_responses} responses, {self.n_students} students, {self.n_items} items, "
                f"{self.n_responses / (self.n_students * self.n_items):.1%} of the cells answered)")

    @classmethod
    def from_frame(cls, df: pd.DataFrame, student: str = "student", item: str = "item_id",
                   correct: str = "correct") -> "ResponseData":
        """Code a long-format frame: one row per response, ``correct`` bool or 0/1.

        Rows whose ``correct`` is null (not marked) are dropped; ids become strings.
        """
        if not isinstance(df, pd.DataFrame):
            raise ValueError(f"responses must be a pandas DataFrame, got {type(df).__name__}")
        missing = [c for c in (student, item, correct) if c not in df.columns]
        if missing:
            raise ValueError(f"the responses have no column {', '.join(map(repr, missing))}; columns are "
                             f"{', '.join(map(str, df.columns)) or 'none'} (name yours with student=, item=, correct=)")
        if len(df) == 0:
            raise ValueError("the responses frame is empty: there is nothing to calibrate; "
                             "check the query or filter that produced it")
        col = df[correct]
        marked = col.notna().to_numpy()
        if not marked.all():
            df, col = df[marked], col[marked]
            if len(df) == 0:
                raise ValueError(f"no response has a value in {correct!r} (all are null): nothing is marked yet")
        x = _as_binary(col, correct)
        s, student_ids = _codes(df[student], student)
        i, item_ids = _codes(df[item], item)
        return cls(student_ids, item_ids, s, i, x)

    def to_frame(self) -> pd.DataFrame:
        """The responses as a long frame (student, item_id, correct)."""
        return pd.DataFrame({"student": self.student_ids[self.s], "item_id": self.item_ids[self.i],
                             "correct": self.x})

    def regroup(self, mapping: Mapping[Any, Any]) -> "ResponseData":
        """Treat groups of items as one: ``mapping`` sends item id -> group id.

        The result's "items" are the groups, so calibrating it gives one
        difficulty per item family or per skill. Items not in the mapping (or
        mapped to None) keep their own id.
        """
        if hasattr(mapping, "items") and not isinstance(mapping, Mapping):
            mapping = dict(mapping.items())
        if not isinstance(mapping, Mapping):
            raise ValueError(f"regroup needs a mapping item id -> group id (a dict), got {type(mapping).__name__}")
        mapping = {str(k): v for k, v in mapping.items()}
        if mapping and not any(k in mapping for k in self.item_ids):
            example = ", ".join(map(repr, list(self.item_ids[:3])))
            raise ValueError(f"regroup: none of the {len(mapping)} mapping keys is an item in these responses "
                             f"(items look like {example}); map item ids to group ids")
        groups = np.array([str(mapping[k]) if mapping.get(k) is not None else k for k in self.item_ids], dtype=object)
        codes, uniques = pd.factorize(groups)
        return ResponseData(self.student_ids, np.asarray(uniques, dtype=str), self.s,
                            codes.astype(np.int32)[self.i], self.x)

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Per item: (responses, correct responses)."""
        n = np.bincount(self.i, minlength=self.n_items).astype(np.int64)
        r = np.bincount(self.i, weights=self.x, minlength=self.n_items).astype(np.int64)
        return n, r


def _codes(column: pd.Series, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes and the distinct ids (as text) of an id column."""
    if getattr(column.dtype, "storage", None) == "pyarrow":
        # Arrow-backed text (what the store returns): Arrow's own hashing is twice as fast.
        arrow = pa.array(column)
        arrow = arrow.combine_chunks() if isinstance(arrow, pa.ChunkedArray) else arrow
        if arrow.null_count:
            raise ValueError(f"{arrow.null_count} responses have no {name}; fill in or drop those rows")
        encoded = pc.dictionary_encode(arrow)
        codes = encoded.indices.to_numpy(zero_copy_only=False)
        uniques = encoded.dictionary.to_numpy(zero_copy_only=False)
    else:
        codes, uniques = pd.factorize(column)
        if (codes < 0).any():
            raise ValueError(f"{int((codes < 0).sum())} responses have no {name}; fill in or drop those rows")
    ids = np.asarray(pd.Index(uniques).astype(str), dtype=str)
    if len(np.unique(ids)) < len(ids):  # e.g. 1 and "1" in one column: the same id once written as text
        inverse, ids = pd.factorize(ids)
        codes = inverse[codes]
        ids = np.asarray(ids, dtype=str)
    return codes.astype(np.int32), ids


def _as_binary(col: pd.Series, name: str) -> np.ndarray:
    values = col.to_numpy()
    if values.dtype == bool:
        return values.astype(np.int8)
    if values.dtype.kind in "iu" and ((values == 0) | (values == 1)).all():
        return values.astype(np.int8, copy=False)
    try:
        numbers = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        bad = [v for v in pd.unique(col) if not _is_binary_value(v)][:3]
        raise ValueError(f"column {name!r} must hold True/False or 1/0; found {_show(bad)}") from None
    ok = (numbers == 0) | (numbers == 1)
    if not ok.all():
        raise ValueError(f"column {name!r} must hold True/False or 1/0; found {_show(pd.unique(col[~ok])[:3])}")
    return numbers.astype(np.int8)


def _show(values: Any) -> str:
    """A few offending values as the user wrote them (3, 'yes'), not as numpy shows them."""
    return ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in values)


def _is_binary_value(v: Any) -> bool:
    try:
        return float(v) in (0.0, 1.0)
    except (TypeError, ValueError):
        return False


# ---------------------------------------------------------------------------
# Results


@dataclasses.dataclass(eq=False)
class ItemParams:
    """Calibrated items, aligned arrays (one entry per item id).

    ``se_discrimination`` is None for Rasch (discrimination is fixed at 1).
    ``n``: responses per item; ``p_correct``: their share correct.
    ``flags`` holds "; "-joined warnings per item ("" when none): "all correct",
    "all wrong", "few responses" (under 10), "low discrimination" (2PL, a < 0.35).
    ``log_likelihood``: marginal (mml) or joint (joint) log-likelihood of the
    responses at the estimates, priors excluded. ``ability_sd``: the spread of
    ability in the calibrated data (1 for 2PL, which sets its scale by it;
    for joint, net of measurement error and without students who got
    everything right or wrong).
    """

    item_ids: np.ndarray
    difficulty: np.ndarray
    discrimination: np.ndarray
    se_difficulty: np.ndarray
    se_discrimination: Optional[np.ndarray]
    n: np.ndarray
    p_correct: np.ndarray
    flags: np.ndarray
    model: str
    method: str
    iterations: int = 0
    converged: bool = True
    log_likelihood: float = 0.0
    ability_sd: float = 1.0

    def __len__(self) -> int:
        return len(self.item_ids)

    def to_frame(self) -> pd.DataFrame:
        out = pd.DataFrame({"item_id": self.item_ids, "difficulty": self.difficulty,
                            "se_difficulty": self.se_difficulty, "discrimination": self.discrimination})
        if self.se_discrimination is not None:
            out["se_discrimination"] = self.se_discrimination
        out["n"] = self.n
        out["p_correct"] = self.p_correct
        out["flags"] = self.flags
        return out

    @classmethod
    def from_frame(cls, df: pd.DataFrame, item: str = "item_id", difficulty: str = "difficulty",
                   discrimination: Optional[str] = "discrimination") -> "ItemParams":
        """Known parameters (a bank's, a simulation's truth) for ``eap``, ``icc`` and ``item_fit``.

        Without a discrimination column the items are Rasch items. ``n`` is 0
        and ``p_correct`` NaN (no responses behind them); flags read "given".
        """
        if not isinstance(df, pd.DataFrame):
            raise ValueError(f"item parameters must be a pandas DataFrame, got {type(df).__name__}")
        for c in (item, difficulty):
            if c not in df.columns:
                raise ValueError(f"item parameters need a column {c!r}; columns are {', '.join(map(str, df.columns))}")
        b = np.asarray(df[difficulty], dtype=np.float64)
        has_a = discrimination is not None and discrimination in df.columns
        a = np.asarray(df[discrimination], dtype=np.float64) if has_a else np.ones_like(b)
        if not (np.isfinite(b).all() and np.isfinite(a).all() and (a > 0).all()):
            raise ValueError("item parameters must be finite numbers with positive discrimination; "
                             "fix or drop the rows that are not")
        ids = np.asarray(df[item].astype(str), dtype=str)
        if len(np.unique(ids)) < len(ids):
            raise ValueError("item parameters list an item more than once; keep one row per item")
        n_items = len(b)
        return cls(item_ids=ids, difficulty=b, discrimination=a,
                   se_difficulty=np.zeros(n_items), se_discrimination=np.zeros(n_items) if has_a else None,
                   n=np.zeros(n_items, dtype=np.int64), p_correct=np.full(n_items, np.nan),
                   flags=np.full(n_items, "given", dtype=object), model="2pl" if has_a else "rasch",
                   method="given")


@dataclasses.dataclass(eq=False)
class Abilities:
    """Ability estimates per student: posterior mean ``theta``, posterior sd ``se``, responses ``n``."""

    student_ids: np.ndarray
    theta: np.ndarray
    se: np.ndarray
    n: np.ndarray

    def __len__(self) -> int:
        return len(self.student_ids)

    def to_frame(self) -> pd.DataFrame:
        return pd.DataFrame({"student": self.student_ids, "theta": self.theta, "se": self.se, "n": self.n})


# ---------------------------------------------------------------------------
# The response matrix


class _Design:
    """The students x items count matrix of one ResponseData (sparse rows), and per-student / per-item sums.

    Sparse-times-dense products run single-threaded in scipy: as fast as a dense
    BLAS product on two cores at 30% density, and immune to BLAS threads
    stalling when other processes share the cores. Built once per
    ResponseData (which is immutable) and kept with it.
    """

    def __init__(self, data: ResponseData):
        P, I = data.n_students, data.n_items
        self.P, self.I = P, I
        self.s, self.i = data.s, data.i
        self.x = data.x.astype(np.float64)
        self.n_p = np.bincount(data.s, minlength=P).astype(np.float64)
        self.r_p = np.bincount(data.s, weights=self.x, minlength=P)
        self.n_i = np.bincount(data.i, minlength=I).astype(np.float64)
        self.r_i = np.bincount(data.i, weights=self.x, minlength=I)
        right = data.x > 0
        self._s_right, self._i_right = data.s[right], data.i[right]     # the correct answers
        self._M: Optional[sp.csr_matrix] = None
        self.same_items = self._complete(data) or self._same_items()
        if self.same_items:  # every row alike: one row stands for all
            first = self.M[:1].toarray()[0] if self._M is not None else np.ones(I)
            self.rows: Any = _SameItems(first, P)
        else:
            self.rows = self.M

    @property
    def M(self) -> sp.csr_matrix:
        """Students x items response counts (repeats add up), compressed sparse rows."""
        if self._M is None:
            ones = np.ones(len(self.s), dtype=np.float32)
            self._M = sp.csr_matrix((ones, (self.s, self.i)), shape=(self.P, self.I))
        return self._M

    def _complete(self, data: ResponseData) -> bool:
        """Every student answered every item exactly once (checked without building the matrix)."""
        n = data.n_responses
        if n != self.P * self.I or n > COMPLETE_CHECK_MAX or not ((self.n_i == self.P).all() and
                                                               (self.n_p == self.I).all()):
            return False
        return bool((np.bincount(data.s.astype(np.int64) * self.I + data.i, minlength=n) == 1).all())

    def _same_items(self) -> bool:
        """Whether every student answered the same items (one fixed paper)."""
        M = self.M
        width = M.indptr[1] - M.indptr[0]
        if not (np.diff(M.indptr) == width).all():
            return False
        M.sort_indices()
        return bool((M.indices.reshape(self.P, width) == M.indices[:width]).all()
                    and (M.data.reshape(self.P, width) == M.data[:width]).all())

    @staticmethod
    def of(data: ResponseData) -> "_Design":
        if not isinstance(data, ResponseData):
            raise ValueError(f"expected ResponseData (build it with ResponseData.from_frame(df)), "
                             f"got {type(data).__name__}")
        design = data.__dict__.get("_design")
        if design is None:
            design = _Design(data)
            object.__setattr__(data, "_design", design)
        return design

    def strata(self, rank: np.ndarray, k: int) -> list[tuple[int, int, Any]]:
        """Blocks (first, end, rows) of ``k`` equal strata of students ordered by ``rank``.

        A block's transpose is a free compressed-column view, and products with
        it add into the small items x grid result: no transposed copy is kept.
        """
        if k == 1:
            return [(0, self.P, self.rows)]
        bounds = (np.arange(k + 1) * self.P) // k
        M = self.M[rank]
        return [(int(lo), int(hi), M[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]

    def correct_sum_per_student(self, item_values: np.ndarray) -> np.ndarray:
        """Per student, the sum of ``item_values`` over the items they answered correctly."""
        if np.all(item_values == 1.0):
            return self.r_p
        return np.bincount(self._s_right, weights=item_values[self._i_right], minlength=self.P)

    def correct_sum_per_item(self, student_values: np.ndarray) -> np.ndarray:
        """Per item, the sum of ``student_values`` over the students who answered it correctly."""
        return np.bincount(self._i_right, weights=student_values[self._s_right], minlength=self.I)


    def mean_difficulty(self, b: np.ndarray) -> np.ndarray:
        """Per student, the mean difficulty of the items they answered."""
        if self.same_items:
            return np.full(self.P, float(self.rows.counts @ b) / self.n_p[0])
        return np.asarray(self.M @ b.astype(np.float32), dtype=np.float64).ravel() / self.n_p


class _SameItems:
    """The response matrix when every student answered the same items: products need only one row.

    ``rows @ L`` gives one row (broadcast over students by the caller);
    ``rows.T @ W`` is the item counts times the column sums of W.
    """

    def __init__(self, counts: np.ndarray, n_students: int):
        self.counts = counts.astype(np.float32)
        self.n_students = n_students

    def __matmul__(self, other: np.ndarray) -> np.ndarray:
        return (self.counts @ other)[None, :]

    @property
    def T(self) -> "_SameItemsTransposed":
        return _SameItemsTransposed(self.counts)


class _SameItemsTransposed:
    def __init__(self, counts: np.ndarray):
        self.counts = counts

    def __matmul__(self, other: np.ndarray) -> np.ndarray:
        return np.outer(self.counts, other.sum(axis=0, dtype=np.float64))


def _block_posterior(rows: Any, xa: np.ndarray, a: np.ndarray, b: np.ndarray, grid: np.ndarray,
                     log_prior: np.ndarray) -> tuple[np.ndarray, float]:
    """E-step for a block of students: posterior weights over ``grid`` (students x grid), log-likelihood part.

    log L(student p at theta_q) = theta_q sum_i x_pi a_i - sum_i x_pi a_i b_i
                                  - sum_{i answered by p} log(1 + exp(a_i (theta_q - b_i)))
    so one matrix product (students x items) @ (items x grid) serves every student. The middle
    term does not depend on theta and is left to the caller. ``log_prior``: grid or students x grid,
    each row's exponentials summing to 1. Log-likelihoods are summed in double precision; the
    weights, once each row is shifted to its maximum, are single precision (half the memory traffic).
    """
    softplus = np.logaddexp(0.0, a[:, None] * (grid[None, :] - b[:, None])).astype(np.float32)
    ll = np.outer(xa, grid)
    ll -= rows @ softplus
    ll += log_prior
    top = ll.max(axis=1, keepdims=True)
    ll -= top
    # Weights below e^-80 are kept at e^-80: still nothing, but not the subnormal single-precision
    # numbers that make every later product with them several times slower.
    np.maximum(ll, -80.0, out=ll)
    w = ll.astype(np.float32)
    np.exp(w, out=w)
    total = w.sum(axis=1, keepdims=True, dtype=np.float64)
    w /= total.astype(np.float32)
    return w, float(np.sum(top) + np.sum(np.log(total)))


def _normal_log_weights(z: np.ndarray) -> np.ndarray:
    lw = -0.5 * z * z
    return lw - np.logaddexp.reduce(lw)


# ---------------------------------------------------------------------------
# Priors


def _difficulty_prior(data: ResponseData, prior_mean: PriorMean, prior_sd: Union[None, float, ArrayLike]
                      ) -> tuple[np.ndarray, np.ndarray]:
    """Per item (mean, sd) of the normal prior on difficulty."""
    I = data.n_items
    mean = np.zeros(I)
    declared = np.zeros(I, dtype=bool)
    if prior_mean is not None:
        try:
            values = _prior_values(data, prior_mean)
        except (TypeError, ValueError) as exc:
            if "prior_mean" in str(exc):
                raise
            raise ValueError(f"prior_mean must hold difficulties as numbers (logits), NaN or None for none; "
                             f"could not read it ({exc})") from None
        if np.isinf(values).any():
            raise ValueError("prior_mean holds an infinite difficulty; give finite logits (or NaN for none)")
        declared = ~np.isnan(values)
        mean[declared] = values[declared]
    sd = np.full(I, WEAK_PRIOR_SD)
    if prior_sd is None:
        sd[declared] = DECLARED_PRIOR_SD
    else:
        try:
            given_sd = np.asarray(prior_sd, dtype=np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"prior_sd must be a number or one number per item, got {prior_sd!r}") from None
        if given_sd.ndim == 0:
            given_sd = np.full(I, float(given_sd))
        if given_sd.shape != (I,):
            raise ValueError(f"prior_sd has {given_sd.size} values for {I} items; give one number or one per item")
        if not (np.isfinite(given_sd).all() and (given_sd > 0).all()):
            raise ValueError("prior_sd must be positive and finite (a small sd trusts the declared difficulty)")
        if prior_mean is None:
            sd[:] = given_sd
        else:
            sd[declared] = given_sd[declared]
    return mean, sd


def _prior_values(data: ResponseData, prior_mean: Any) -> np.ndarray:
    """prior_mean as one number (or NaN) per item of ``data``."""
    I = data.n_items
    if isinstance(prior_mean, Mapping) or isinstance(prior_mean, pd.Series):
        given = {str(k): v for k, v in prior_mean.items() if v is not None}
        lookup = pd.Series(given, dtype=np.float64) if given else pd.Series(dtype=np.float64)
        values = lookup.reindex(data.item_ids).to_numpy(dtype=np.float64)
        if given and np.isnan(values).all():
            raise ValueError(f"prior_mean: none of its {len(given)} ids is an item in these responses "
                             f"(items look like {', '.join(map(repr, list(data.item_ids[:3])))}); "
                             f"key it by item id")
    elif np.ndim(prior_mean) == 0:
        values = np.full(I, float(prior_mean))
    else:
        values = np.asarray(prior_mean, dtype=np.float64)
        if values.shape != (I,):
            raise ValueError(f"prior_mean has {values.size} values for {I} items; give one per item in "
                             f"data.item_ids order (NaN for none) or a dict item id -> difficulty")
    return values


# ---------------------------------------------------------------------------
# Item Newton steps (vectorised over items)


def _rasch_item_step(b: np.ndarray, grad_data: np.ndarray, info_data: np.ndarray,
                     mean: np.ndarray, sd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One Newton step on every difficulty: data gradient and information plus the normal prior.

    Returns the new difficulties and the information (for standard errors).
    """
    grad = grad_data - (b - mean) / sd ** 2
    info = info_data + 1.0 / sd ** 2
    return b + np.clip(grad / info, -1.0, 1.0), info


def _twopl_item_step(la: np.ndarray, b: np.ndarray, g_a: np.ndarray, g_b: np.ndarray, i_aa: np.ndarray,
                     i_ab: np.ndarray, i_bb: np.ndarray, mean: np.ndarray, sd: np.ndarray
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One Fisher-scoring step on every (log a, b), with the priors on log a and on b.

    Data gradients and information come in (a, b); returns new log a, new b,
    and the sampling variances of a and b from the inverse information.
    """
    a = np.exp(la)
    g1 = a * g_a - la / LOG_A_PRIOR_SD ** 2           # d/d(log a) = a d/da
    g2 = g_b - (b - mean) / sd ** 2
    h11 = a * a * i_aa + 1.0 / LOG_A_PRIOR_SD ** 2
    h12 = a * i_ab
    h22 = i_bb + 1.0 / sd ** 2
    det = np.maximum(h11 * h22 - h12 * h12, 1e-9 * h11 * h22)
    d1 = (h22 * g1 - h12 * g2) / det
    d2 = (h11 * g2 - h12 * g1) / det
    la_new = np.clip(la + np.clip(d1, -0.5, 0.5), LOG_A_LIMITS[0], LOG_A_LIMITS[1])
    b_new = b + np.clip(d2, -1.0, 1.0)
    return la_new, b_new, a * a * h22 / det, h11 / det


# ---------------------------------------------------------------------------
# Estimators


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


@dataclasses.dataclass
class _Fit:
    b: np.ndarray
    a: np.ndarray
    se_b: np.ndarray
    se_a: Optional[np.ndarray]
    iterations: int
    converged: bool
    loglik: float
    ability_sd: float


def _flags(n: np.ndarray, r: np.ndarray, a: Optional[np.ndarray]) -> np.ndarray:
    parts = [(r == n, "all correct"), (r == 0, "all wrong"), (n < FEW_RESPONSES, "few responses")]
    if a is not None:
        parts.append((a < LOW_DISCRIMINATION, "low discrimination"))
    out = np.full(len(n), "", dtype=object)
    for mask, text in parts:
        out[mask] = np.where(out[mask] == "", text, out[mask] + "; " + text)
    return out


def _start_difficulty(r: np.ndarray, n: np.ndarray, mean: np.ndarray, sd: np.ndarray,
                      spread: float = 1.0) -> np.ndarray:
    """Logit of the smoothed proportion wrong, pulled to the prior for thinly answered items.

    ``spread``: the ability sd the start assumes; averaging the logistic over it
    flattens proportions by about sqrt(1 + pi sd^2 / 8), which is undone.
    """
    raw = np.log((n - r + 0.5) / (r + 0.5)) * np.sqrt(1.0 + np.pi * spread ** 2 / 8)
    w = n / (n + 4.0 / sd ** 2)
    return w * raw + (1 - w) * mean


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


# ---------------------------------------------------------------------------
# Abilities


def _aligned(data: ResponseData, params: ItemParams) -> tuple[np.ndarray, np.ndarray]:
    """(a, b) for each of data.item_ids, looked up by id in params."""
    if not isinstance(params, ItemParams):
        raise ValueError(f"expected ItemParams (from fit_rasch / fit_2pl or ItemParams.from_frame), "
                         f"got {type(params).__name__}")
    if len(params.item_ids) == len(data.item_ids) and np.array_equal(params.item_ids, data.item_ids):
        return np.asarray(params.discrimination, float), np.asarray(params.difficulty, float)
    where = pd.Index(params.item_ids).get_indexer(data.item_ids)
    if (where < 0).any():
        lacking = data.item_ids[where < 0]
        raise ValueError(f"{len(lacking)} items in the responses have no parameters (e.g. "
                         f"{', '.join(map(repr, list(lacking[:3])))}); calibrate them or drop their responses")
    return np.asarray(params.discrimination, float)[where], np.asarray(params.difficulty, float)[where]


def eap(data: ResponseData, params: ItemParams, prior_mean: Union[float, ArrayLike] = 0.0,
        prior_sd: float = 1.0, n_quad: int = 61) -> Abilities:
    """Expected a posteriori abilities: posterior mean and sd under a normal prior.

    theta_p = E[theta | responses of p], with prior N(prior_mean, prior_sd^2)
    (``prior_mean`` one number or one per student in ``data.student_ids``
    order), items fixed at ``params``, integrated on ``n_quad`` evenly spaced
    points over +-6 prior sd. Every student gets a finite estimate, also with
    all answers right. All students at once: one matrix product.
    """
    if not (np.isscalar(prior_sd) and np.isfinite(prior_sd) and prior_sd > 0):
        raise ValueError(f"prior_sd must be one positive number, got {prior_sd!r}")
    if not isinstance(n_quad, (int, np.integer)) or n_quad < 11:
        raise ValueError(f"n_quad must be a whole number of at least 11 grid points, got {n_quad!r}")
    design = _Design.of(data)
    a, b = _aligned(data, params)
    means = np.asarray(prior_mean, dtype=np.float64)
    if means.ndim == 0:
        grid = float(means) + prior_sd * np.linspace(-EAP_HALF_WIDTH, EAP_HALF_WIDTH, n_quad)
        log_prior = _normal_log_weights((grid - float(means)) / prior_sd)
    else:
        if means.shape != (data.n_students,) or not np.isfinite(means).all():
            raise ValueError(f"prior_mean must be one number or {data.n_students} finite numbers, one per student")
        grid = np.linspace(means.min() - EAP_HALF_WIDTH * prior_sd, means.max() + EAP_HALF_WIDTH * prior_sd, n_quad)
        lp = -0.5 * ((grid[None, :] - means[:, None]) / prior_sd) ** 2
        log_prior = lp - np.logaddexp.reduce(lp, axis=1, keepdims=True)
    xa = design.correct_sum_per_student(a)
    w, _ = _block_posterior(design.rows, xa, a, b, grid, log_prior)
    theta = np.einsum("pq,q->p", w, grid)
    var = np.maximum(np.einsum("pq,q->p", w, grid * grid) - theta * theta, 0.0)
    return Abilities(data.student_ids.copy(), theta, np.sqrt(var), design.n_p.astype(np.int64))


def online_update(theta: Union[float, ArrayLike], se: Union[float, ArrayLike], b: Union[float, ArrayLike],
                  a: Union[float, ArrayLike], correct: Union[bool, int, ArrayLike]):
    """One answer's Bayesian update of an ability, in the normal (Laplace) approximation.

    Prior theta ~ N(theta, se^2); likelihood of the answer under the 2PL
    (a = 1: Rasch) item (a, b). Returns the posterior mode and the posterior
    sd from its curvature, 1 / sqrt(1/se^2 + a^2 P (1 - P)): a right answer
    moves theta up, a wrong one down, and se always shrinks. Arrays broadcast
    (update many students at once). Newton steps of at most one logit find
    the mode, also from a vague prior.
    """
    t0 = np.asarray(theta, dtype=np.float64)
    s0 = np.asarray(se, dtype=np.float64)
    bb = np.asarray(b, dtype=np.float64)
    aa = np.asarray(a, dtype=np.float64)
    xx = np.asarray(correct)
    if xx.dtype != bool:
        try:
            xx = xx.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"correct must be True/False or 1/0, got {correct!r}") from None
        if not np.isin(xx, (0.0, 1.0)).all():
            raise ValueError(f"correct must be True/False or 1/0, got {correct!r}")
    xx = xx.astype(np.float64)
    if not (np.isfinite(s0).all() and (s0 > 0).all()):
        raise ValueError(f"se must be positive and finite (the current uncertainty of theta), got {se!r}")
    if not (np.isfinite(t0).all() and np.isfinite(bb).all()):
        raise ValueError("theta and b must be finite numbers")
    if not (np.isfinite(aa).all() and (aa > 0).all()):
        raise ValueError(f"a (discrimination) must be positive; use 1 for Rasch items, got {a!r}")
    precision = 1.0 / (s0 * s0)
    t = t0.copy()
    for _ in range(ONLINE_STEPS):
        p = expit(aa * (t - bb))
        grad = aa * (xx - p) - (t - t0) * precision
        t = t + np.clip(grad / (aa * aa * p * (1 - p) + precision), -1.0, 1.0)
    p = expit(aa * (t - bb))
    new_se = 1.0 / np.sqrt(precision + aa * aa * p * (1 - p))
    if t.ndim == 0:
        return float(t), float(new_se)
    return t, new_se


# ---------------------------------------------------------------------------
# Diagnostics


def _theta_for(data: ResponseData, theta: Union[Abilities, ArrayLike]) -> np.ndarray:
    if isinstance(theta, Abilities):
        if np.array_equal(theta.student_ids, data.student_ids):
            return np.asarray(theta.theta, float)
        where = pd.Index(theta.student_ids).get_indexer(data.student_ids)
        if (where < 0).any():
            lacking = data.student_ids[where < 0]
            raise ValueError(f"{len(lacking)} students in the responses have no ability (e.g. "
                             f"{', '.join(map(repr, list(lacking[:3])))}); estimate them with eap(data, params)")
        return np.asarray(theta.theta, float)[where]
    values = np.asarray(theta, dtype=np.float64)
    if values.shape != (data.n_students,):
        raise ValueError(f"theta has {values.size} values for {data.n_students} students; pass the Abilities "
                         f"from eap() or one value per data.student_ids")
    if not np.isfinite(values).all():
        raise ValueError("theta holds a non-finite ability; use eap(), which is finite for every student")
    return values


def item_fit(data: ResponseData, params: ItemParams, theta: Union[Abilities, ArrayLike]) -> pd.DataFrame:
    """Infit and outfit mean squares per item (expected value 1).

    With P the model probability for each response, residual x - P and
    variance P (1 - P): outfit = mean over the item's responses of
    (x - P)^2 / (P (1 - P)) (sensitive to surprising answers far from the item);
    infit = sum (x - P)^2 / sum P (1 - P) (information-weighted). Values well
    above 1 (say 1.3) flag noisy items, well below 1 items that discriminate
    more than the model expects.
    """
    a, b = _aligned(data, params)
    th = _theta_for(data, theta)
    s, i, x = data.s, data.i, data.x.astype(np.float64)
    p = np.clip(expit(a[i] * (th[s] - b[i])), 1e-9, 1 - 1e-9)
    resid2 = (x - p) ** 2
    var = p * (1 - p)
    n = np.bincount(i, minlength=data.n_items)
    outfit = np.bincount(i, weights=resid2 / var, minlength=data.n_items) / n
    infit = np.bincount(i, weights=resid2, minlength=data.n_items) / np.bincount(i, weights=var,
                                                                                  minlength=data.n_items)
    return pd.DataFrame({"item_id": data.item_ids, "n": n, "infit": infit, "outfit": outfit})


def icc(params: ItemParams, theta_grid: ArrayLike) -> np.ndarray:
    """Item characteristic curves: P(correct) for every item (rows) at every ``theta_grid`` point (columns)."""
    if not isinstance(params, ItemParams):
        raise ValueError(f"expected ItemParams, got {type(params).__name__}")
    grid = np.atleast_1d(np.asarray(theta_grid, dtype=np.float64))
    if grid.ndim != 1 or not np.isfinite(grid).all():
        raise ValueError("theta_grid must be a one-dimensional list of finite abilities")
    a = np.asarray(params.discrimination, float)
    return expit(a[:, None] * (grid[None, :] - np.asarray(params.difficulty, float)[:, None]))


# ---------------------------------------------------------------------------
# Simulation


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
