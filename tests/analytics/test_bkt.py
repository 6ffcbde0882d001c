"""Bayesian Knowledge Tracing: fitting by EM, mastery over time, simulation, errors."""
from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from core.analytics.bkt import (GUESS_SLIP_MAX, PARAMS, fit_bkt, log_likelihood, mastery_trace, pack_sequences,
                               simulate_bkt)

TRUTH = {"fractions": {"prior": 0.2, "learn": 0.15, "guess": 0.2, "slip": 0.1},
         "gradient": {"prior": 0.5, "learn": 0.05, "guess": 0.25, "slip": 0.15},
         "volume": {"prior": 0.35, "learn": 0.3, "guess": 0.1, "slip": 0.05}}


def answers(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["skill", "student", "correct", "created_at"])


def trace_log_likelihood(df: pd.DataFrame, params: dict) -> float:
    """Log-likelihood of the answers under ``params``, from the trace's P(knows) before each answer."""
    trace = mastery_trace(df, params)
    guess = trace["skill"].map(lambda s: params[s]["guess"])
    slip = trace["skill"].map(lambda s: params[s]["slip"])
    p = trace["p_known_before"] * (1 - slip) + (1 - trace["p_known_before"]) * guess
    return float(np.sum(np.where(trace["correct"], np.log(p), np.log(1 - p))))


def brute_force_log_likelihood(sequence: list[int], prior: float, learn: float, guess: float, slip: float) -> float:
    """Sum over every path of hidden states (known / not known) of P(path) * P(answers | path)."""
    total = 0.0
    for path in itertools.product((0, 1), repeat=len(sequence)):
        p = prior if path[0] else 1 - prior
        for a, b in zip(path, path[1:]):
            p *= (1.0 if b else 0.0) if a else (learn if b else 1 - learn)
        for known, right in zip(path, sequence):
            p *= ((1 - slip) if right else slip) if known else (guess if right else 1 - guess)
        total += p
    return math.log(total)


# --------------------------------------------------------------------------
# Fitting


def test_recovers_the_parameters_of_simulated_students():
    """2,000 students x 20 answers on each of three skills.

    learn, guess and slip within 0.02 of the truth; prior within 0.04: it rests
    mostly on the first answers, so its standard error here is about 0.012
    (volume's sample happens to start with 38% knowing against 35% in truth).
    """
    df, truth = simulate_bkt(3, 2000, 20, seed=7, params=TRUTH)
    fit = fit_bkt(df).set_index("skill")
    error = (fit[list(PARAMS)] - truth[list(PARAMS)]).abs()
    assert error[["learn", "guess", "slip"]].to_numpy().max() < 0.02, error
    assert error["prior"].max() < 0.04, error
    assert fit["converged"].all()
    assert (fit["n_students"] == 2000).all() and (fit["n_responses"] == 40000).all()


def test_log_likelihood_matches_a_brute_force_sum_over_hidden_states():
    """Two students on one skill, three answers each: the fitted log-likelihood is the sum over all 2^3 paths."""
    df = answers([("s", "ann", 0, 1), ("s", "ann", 1, 2), ("s", "ann", 1, 3),
                  ("s", "ben", 1, 1), ("s", "ben", 0, 2), ("s", "ben", 1, 3)])
    fit = fit_bkt(df).iloc[0]
    p = {k: fit[k] for k in PARAMS}
    expected = brute_force_log_likelihood([0, 1, 1], **p) + brute_force_log_likelihood([1, 0, 1], **p)
    assert fit["log_likelihood"] == pytest.approx(expected, abs=1e-9)
    assert trace_log_likelihood(df, {"s": p}) == pytest.approx(expected, abs=1e-9)
    assert log_likelihood(df, {"s": p})["s"] == pytest.approx(expected, abs=1e-9)


def test_em_reaches_a_maximum_of_the_likelihood():
    """No small step in any parameter (inside the bounds) does better than the fitted values."""
    df, _ = simulate_bkt(1, 200, 8, seed=3)
    fit = fit_bkt(df, tol=1e-12, max_iter=2000).iloc[0]
    best = {k: float(fit[k]) for k in PARAMS}
    at_best = trace_log_likelihood(df, {fit["skill"]: best})
    assert at_best == pytest.approx(fit["log_likelihood"], abs=1e-6)
    for name in PARAMS:
        for step in (-0.01, 0.01):
            moved = dict(best, **{name: min(max(best[name] + step, 1e-6), GUESS_SLIP_MAX)})
            assert log_likelihood(df, {fit["skill"]: moved}).iloc[0] <= at_best + 1e-7, (name, step)


def test_guess_and_slip_stay_below_one_half():
    """Students who mostly answer right from the start: 'knows' still means 'more likely to be right'."""
    rng = np.random.default_rng(1)
    rows = [("easy", f"s{i}", bool(rng.random() < 0.9), t) for i in range(200) for t in range(10)]
    fit = fit_bkt(answers(rows)).iloc[0]
    assert fit["guess"] <= GUESS_SLIP_MAX and fit["slip"] <= GUESS_SLIP_MAX
    assert 1 - fit["slip"] > fit["guess"]


def test_fit_is_reproducible_and_independent_of_row_order():
    df, _ = simulate_bkt(2, 300, 10, seed=5)
    a = fit_bkt(df, seed=1)
    b = fit_bkt(df.sample(frac=1.0, random_state=0), seed=1)
    pd.testing.assert_frame_equal(a, b)


def test_skills_are_fitted_independently():
    """Fitting two skills together gives each the same parameters as fitting it alone."""
    df, _ = simulate_bkt(2, 300, 10, seed=9)
    both = fit_bkt(df).set_index("skill")
    alone = fit_bkt(df[df["skill"] == "skill02"]).set_index("skill")
    np.testing.assert_allclose(both.loc["skill02", list(PARAMS)].to_numpy(float),
                               alone.loc["skill02", list(PARAMS)].to_numpy(float), atol=1e-9)


def test_students_with_different_numbers_of_answers():
    """Sequences of different lengths (1 to 12 answers) are handled and counted."""
    df, _ = simulate_bkt(1, 400, 12, seed=2)
    keep = df["opportunity"] <= (df["student"].str[1:].astype(int) % 12) + 1
    fit = fit_bkt(df[keep]).iloc[0]
    assert fit["n_responses"] == int(keep.sum()) and fit["n_students"] == 400
    assert 0 < fit["learn"] < 1 and fit["converged"]


def test_notes_warn_about_thin_evidence():
    df = answers([("s", f"p{k}", k % 2, t) for k in range(4) for t in range(3)])
    fit = fit_bkt(df, max_iter=3).iloc[0]
    assert "few answers (under 200)" in fit["note"]
    big, _ = simulate_bkt(1, 300, 10, seed=6)
    assert fit_bkt(big).iloc[0]["note"] == ""


# --------------------------------------------------------------------------
# Mastery over time


def test_trace_by_hand():
    """prior 0.3, learn 0.2, guess 0.2, slip 0.1; answers right then wrong.

    First answer (right): P(knows) = 0.3 * 0.9 / (0.3 * 0.9 + 0.7 * 0.2) = 0.27 / 0.41 = 0.658537;
    next = 0.658537 + 0.341463 * 0.2 = 0.726829; P(right next) = 0.726829 * 0.9 + 0.273171 * 0.2 = 0.708780.
    Second (wrong): P(knows) = 0.726829 * 0.1 / (0.726829 * 0.1 + 0.273171 * 0.8) = 0.072683 / 0.291220 = 0.249581.
    """
    df = answers([("s", "ann", False, 2), ("s", "ann", True, 1)])   # rows out of time order on purpose
    trace = mastery_trace(df, {"s": {"prior": 0.3, "learn": 0.2, "guess": 0.2, "slip": 0.1}})
    assert trace["opportunity"].tolist() == [2, 1]
    assert trace.loc[1, "p_known_before"] == pytest.approx(0.3)
    assert trace.loc[1, "p_known"] == pytest.approx(0.27 / 0.41)
    assert trace.loc[1, "p_known_next"] == pytest.approx(0.726829, abs=1e-6)
    assert trace.loc[1, "p_correct_next"] == pytest.approx(0.708780, abs=1e-6)
    assert trace.loc[0, "p_known_before"] == pytest.approx(0.726829, abs=1e-6)
    assert trace.loc[0, "p_known"] == pytest.approx(0.249581, abs=1e-6)


def test_trace_rises_with_every_right_answer():
    df = answers([("s", "ann", True, t) for t in range(8)] + [("s", "ben", t % 2 == 0, t) for t in range(8)])
    params = {"s": {"prior": 0.2, "learn": 0.1, "guess": 0.25, "slip": 0.1}}
    trace = mastery_trace(df, params)
    ann = trace[trace["student"] == "ann"].sort_values("created_at")["p_known"].to_numpy()
    assert (np.diff(ann) > 0).all() and ann[-1] > 0.99
    ben = trace[trace["student"] == "ben"].sort_values("created_at")["p_known"].to_numpy()
    assert (np.diff(ben)[1::2] > 0).all() and (np.diff(ben)[0::2] < 0).all()


def test_trace_keeps_rows_and_columns_and_accepts_the_fit_table():
    df, _ = simulate_bkt(2, 50, 6, seed=4)
    fit = fit_bkt(df)
    trace = mastery_trace(df, fit)
    assert trace.index.equals(df.index) and list(trace.columns[: len(df.columns)]) == list(df.columns)
    assert trace["p_known"].between(0, 1).all()
    assert (trace["opportunity"] == df["opportunity"]).all()


def test_order_none_keeps_the_rows_order():
    df = answers([("s", "ann", True, 9), ("s", "ann", False, 1)])
    params = {"s": {"prior": 0.3, "learn": 0.2, "guess": 0.2, "slip": 0.1}}
    trace = mastery_trace(df, params, order=None)
    assert trace["opportunity"].tolist() == [1, 2]
    assert trace.loc[0, "p_known"] == pytest.approx(0.27 / 0.41)


def test_packing_by_opportunity():
    """ann has 3 answers on a, ben 1 on a, ann 2 on b: sequences longest first, blocks per opportunity."""
    df = answers([("a", "ann", 1, 1), ("a", "ben", 1, 1), ("b", "ann", 0, 2), ("a", "ann", 0, 3),
                  ("b", "ann", 1, 4), ("a", "ann", 1, 5)])
    seqs = pack_sequences(df)
    assert seqs.lengths.tolist() == [3, 2, 1]
    assert seqs.counts.tolist() == [3, 2, 1] and seqs.starts.tolist() == [0, 3, 5]
    assert [seqs.skills[k] for k in seqs.seq_skill] == ["a", "b", "a"]
    assert seqs.seq_student.tolist() == ["ann", "ann", "ben"]
    # row 0 is ann's first answer on a: block 0, sequence 0; row 5 is her third: block 2
    assert seqs.row_to_flat.tolist() == [0, 2, 1, 3, 4, 5]


# --------------------------------------------------------------------------
# Simulation


def test_simulation_is_reproducible_and_shaped():
    a, truth = simulate_bkt(2, 10, 4, seed=3)
    b, _ = simulate_bkt(2, 10, 4, seed=3)
    pd.testing.assert_frame_equal(a, b)
    assert len(a) == 80 and set(a.columns) >= {"skill", "student", "opportunity", "created_at", "correct", "known"}
    assert list(truth.columns) == list(PARAMS) and len(truth) == 2
    # the hidden state never goes from known back to not known
    for _, seq in a.sort_values("created_at").groupby(["skill", "student"])["known"]:
        assert (np.diff(seq.to_numpy().astype(int)) >= 0).all()


# --------------------------------------------------------------------------
# Errors a user can cause


@pytest.mark.parametrize("bad, message", [
    (pd.DataFrame(columns=["skill", "student", "correct", "created_at"]), "no answers"),
    (answers([("s", "ann", 2, 1)]), "True/False or 1/0"),
    (answers([("s", "ann", "yes", 1)]), "True/False or 1/0"),
    (answers([("s", "ann", None, 1)]), "missing values"),
    (answers([("s", None, 1, 1)]), "column 'student' has 1 missing"),
    (pd.DataFrame({"skill": ["s"], "student": ["ann"], "right": [1], "created_at": [1]}), "correct column 'correct'"),
])
def test_clear_errors_for_bad_answers(bad, message):
    with pytest.raises(ValueError, match=message):
        fit_bkt(bad)


def test_clear_errors_for_bad_parameters():
    df = answers([("s", "ann", 1, 1)])
    with pytest.raises(ValueError, match="no BKT parameters for skills \\['s'\\]"):
        mastery_trace(df, {"t": {"prior": 0.3, "learn": 0.2, "guess": 0.2, "slip": 0.1}})
    with pytest.raises(ValueError, match="guess \\+ slip must be below 1"):
        mastery_trace(df, {"s": {"prior": 0.3, "learn": 0.2, "guess": 0.6, "slip": 0.5}})
    with pytest.raises(ValueError, match="params have no slip"):
        mastery_trace(df, {"s": {"prior": 0.3, "learn": 0.2, "guess": 0.2}})
    with pytest.raises(ValueError, match="max_iter"):
        fit_bkt(df, max_iter=0)
