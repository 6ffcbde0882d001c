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

Fitting
-------
``fit_bkt`` maximises the likelihood by expectation-maximisation (Baum-Welch).
All skills, students and starting points are fitted at once: the answers are
packed by opportunity (the first answer of every sequence, then the second,
and so on; sequences sorted longest first so the sequences still running at
step t are always the first n_t), so the forward-backward pass is one loop
over opportunity numbers with numpy arrays across all sequences. Each skill
starts from several points (one from its first-answer rates, the rest random
from ``seed``); after a few iterations only the best start per skill goes on.
The M-step is the exact maximiser under the bounds (clipping a Bernoulli rate
to an interval maximises its expected log-likelihood on that interval).

``mastery_trace`` runs the forward pass with given parameters and returns,
for every answer, the chance the student knows the skill after it;
``log_likelihood`` scores a set of parameters on a set of answers.
``simulate_bkt`` draws answers from the model, for tests and benchmarks.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Optional, Union

import numpy as np
import pandas as pd

__all__ = ["PARAMS", "GUESS_SLIP_MAX", "Sequences", "pack_sequences", "require_columns", "binary_correct", "fit_bkt",
           "mastery_trace", "log_likelihood", "simulate_bkt"]

PARAMS = ("prior", "learn", "guess", "slip")
EPS = 1e-6
GUESS_SLIP_MAX = 0.5 - EPS
DEFAULT_MAX_ITER = 200
DEFAULT_TOL = 1e-9          # change in mean log-likelihood per answer that counts as converged
DEFAULT_STARTS = 4
SCREEN_ITER = 5             # iterations every start gets before only the best per skill goes on

_LOW = np.array([EPS, EPS, EPS, EPS])
_HIGH = np.array([1 - EPS, 1 - EPS, GUESS_SLIP_MAX, GUESS_SLIP_MAX])


# --------------------------------------------------------------------------
# Packing answers by opportunity


@dataclasses.dataclass
class Sequences:
    """Answers grouped into one sequence per (skill, student), packed by opportunity.

    Sequences are numbered longest first. ``counts[t]`` sequences have a
    (t+1)-th answer, and they are sequences ``0 .. counts[t]-1``; their
    answers sit at ``flat[starts[t] : starts[t] + counts[t]]`` in the packed
    arrays. ``row_to_flat[i]`` is the packed position of row ``i`` of the
    input frame.
    """

    skills: np.ndarray          # the skill labels, index = skill number
    seq_skill: np.ndarray       # (S,) skill number of each sequence
    seq_student: np.ndarray     # (S,) student label of each sequence
    lengths: np.ndarray         # (S,) answers per sequence, non-increasing
    counts: np.ndarray          # (T,) sequences still running at each opportunity
    starts: np.ndarray          # (T,) where each opportunity's block starts
    flat_seq: np.ndarray        # (N,) sequence of each packed answer
    row_to_flat: np.ndarray     # (N,) packed position of each input row

    @property
    def n_sequences(self) -> int:
        return len(self.lengths)

    @property
    def n_opportunities(self) -> int:
        return len(self.counts)

    def block(self, t: int) -> slice:
        return slice(int(self.starts[t]), int(self.starts[t] + self.counts[t]))

    def pack(self, values: np.ndarray) -> np.ndarray:
        """Row-ordered values in packed order."""
        out = np.empty(len(values), dtype=np.asarray(values).dtype)
        out[self.row_to_flat] = values
        return out

    def unpack(self, packed: np.ndarray) -> np.ndarray:
        """Packed values back in the input's row order."""
        return packed[..., self.row_to_flat]


def require_columns(df: Any, columns: dict[str, Optional[str]], what: str) -> None:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{what} needs a pandas DataFrame of answers, got {type(df).__name__}")
    missing = [f"{role} column '{name}'" for role, name in columns.items() if name is not None and name not in df.columns]
    if missing:
        raise ValueError(f"{what}: the answers have no {', '.join(missing)}; columns are {list(df.columns)} "
                         f"(pass the right names, e.g. skill=..., student=..., correct=..., order=...)")


def binary_correct(values: pd.Series, column: str = "correct") -> np.ndarray:
    """A right/wrong column as a 0/1 float array; anything else is a ValueError."""
    if values.isna().any():
        raise ValueError(f"column '{column}' has {int(values.isna().sum())} missing values; "
                         f"drop those answers or mark them right (1) or wrong (0) first")
    if pd.api.types.is_bool_dtype(values):
        return values.to_numpy(dtype=float)
    x = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isin(x, (0.0, 1.0))
    if bad.any():
        examples = sorted(set(np.asarray(values)[bad].tolist()))[:3]
        raise ValueError(f"column '{column}' must hold right/wrong as True/False or 1/0; found {examples} "
                         f"(for part marks use correct = score == max_score)")
    return x


def _order_key(values: pd.Series, column: str) -> np.ndarray:
    if values.isna().any():
        raise ValueError(f"column '{column}' has {int(values.isna().sum())} missing values; every answer needs a time "
                         f"to be put in order (or pass order=None to keep the rows' order)")
    if pd.api.types.is_datetime64_any_dtype(values):
        if getattr(values.dt, "tz", None) is not None:
            values = values.dt.tz_convert(None)
        return values.to_numpy().astype("datetime64[ns]").view(np.int64)
    if pd.api.types.is_numeric_dtype(values):
        return values.to_numpy(dtype=float)
    return pd.factorize(values, sort=True)[0]


def pack_sequences(df: pd.DataFrame, skill: str = "skill", student: str = "student",
                   order: Optional[str] = "created_at") -> Sequences:
    """Group ``df``'s rows into (skill, student) sequences in time order and pack them by opportunity."""
    if len(df) == 0:
        raise ValueError("there are no answers: the table is empty (check the filters that selected it)")
    for role, name in (("skill", skill), ("student", student)):
        if df[name].isna().any():
            raise ValueError(f"column '{name}' has {int(df[name].isna().sum())} missing values; every answer needs "
                             f"a {role}")
    skill_code, skills = pd.factorize(df[skill], sort=True)
    student_code, students = pd.factorize(df[student], sort=True)
    n = len(df)
    keys = [np.arange(n)]
    if order is not None:
        keys.append(_order_key(df[order], order))
    keys += [student_code, skill_code]
    perm = np.lexsort(keys)  # by skill, then student, then time, then row
    sk, st = skill_code[perm], student_code[perm]
    new = np.ones(n, dtype=bool)
    new[1:] = (sk[1:] != sk[:-1]) | (st[1:] != st[:-1])
    seq = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    pos = np.arange(n) - first[seq]
    lengths = np.diff(np.append(first, n))
    # Longest first (so running sequences are always a prefix), then by skill (so a skill's answers
    # sit in long runs within each opportunity's block, which makes per-skill sums cheap).
    by_length = np.lexsort((sk[first], -lengths))
    rank = np.empty_like(by_length)
    rank[by_length] = np.arange(len(by_length))
    lengths_sorted = lengths[by_length]
    T = int(lengths_sorted[0])
    counts = len(lengths) - np.cumsum(np.bincount(lengths, minlength=T + 1))[:T]   # sequences longer than t
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    flat_sorted = starts[pos] + rank[seq]
    row_to_flat = np.empty(n, dtype=np.int64)
    row_to_flat[perm] = flat_sorted
    flat_seq = np.empty(n, dtype=np.int64)
    flat_seq[flat_sorted] = rank[seq]
    seq_skill = sk[first][by_length]
    seq_student = np.asarray(students)[st[first][by_length]]
    return Sequences(np.asarray(skills), seq_skill, seq_student, lengths_sorted, counts.astype(np.int64),
                     starts.astype(np.int64), flat_seq, row_to_flat)


# --------------------------------------------------------------------------
# Forward-backward


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


def _bounded(values: np.ndarray) -> np.ndarray:
    return np.clip(values, _LOW, _HIGH)


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


FEW_ANSWERS = 200


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


# --------------------------------------------------------------------------
# Mastery over time


def _param_table(params: Union[pd.DataFrame, Mapping[str, Mapping[str, float]]]) -> pd.DataFrame:
    if isinstance(params, pd.DataFrame):
        table = params.set_index("skill") if "skill" in params.columns else params
    elif isinstance(params, Mapping):
        table = pd.DataFrame.from_dict({k: dict(v) for k, v in params.items()}, orient="index")
    else:
        raise ValueError("params must be fit_bkt's table or a mapping {skill: {prior, learn, guess, slip}}")
    missing = [p for p in PARAMS if p not in table.columns]
    if missing:
        raise ValueError(f"params have no {', '.join(missing)}; give prior, learn, guess and slip for every skill")
    table = table[list(PARAMS)].astype(float)
    values = table.to_numpy()
    if not np.isfinite(values).all() or (values < 0).any() or (values > 1).any():
        raise ValueError("every BKT parameter must be a probability between 0 and 1")
    bad = table.index[(table["guess"] + table["slip"]) >= 1]
    if len(bad):
        raise ValueError(f"guess + slip must be below 1 (else a right answer is not evidence of knowing); "
                         f"not so for skills {list(bad)[:5]}")
    return table


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


# --------------------------------------------------------------------------
# Simulation


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
