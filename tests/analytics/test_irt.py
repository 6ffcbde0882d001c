"""IRT-lite: parameter recovery on simulated data, hand-checked small cases, input errors, bulk storage.

Recovery tolerances are root-mean-square errors against the simulated truth
(difficulties after centring both scales on their item mean: the scale's zero
is arbitrary). Each sits above the worst error seen over a dozen seeds at the
sizes used, so a seed change does not flip them, and far below what a broken
estimator gives (a single-population MML on adaptive data: 0.5).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from scipy import integrate
from scipy.special import expit

from core.analytics import irt
from core.analytics.irt import (Abilities, ItemParams, ResponseData, eap, fit_2pl, fit_rasch, icc, item_fit,
                                online_update, simulate)
from core.store.responses import import_responses, response_frame


def rmse_centred(estimate: np.ndarray, truth: np.ndarray) -> float:
    e = (estimate - estimate.mean()) - (truth - truth.mean())
    return float(np.sqrt(np.mean(e * e)))


def rmse(estimate: np.ndarray, truth: np.ndarray) -> float:
    return float(np.sqrt(np.mean((estimate - truth) ** 2)))


def truth_for(data: ResponseData, items: pd.DataFrame) -> pd.DataFrame:
    return items.set_index("item_id").loc[data.item_ids]


def check_finite(params: ItemParams) -> None:
    for values in (params.difficulty, params.discrimination, params.se_difficulty):
        assert np.isfinite(values).all()
    if params.se_discrimination is not None:
        assert np.isfinite(params.se_discrimination).all()
    assert (params.se_difficulty > 0).all()


# ---------------------------------------------------------------------------
# Parameter recovery


@pytest.mark.parametrize("method", ["mml", "joint"])
def test_rasch_complete_1000x40_difficulty_rmse_below_0_10(method):
    df, items, _ = simulate(1000, 40, seed=11)
    data = ResponseData.from_frame(df)
    params = fit_rasch(data, method=method)
    assert params.converged and params.model == "rasch" and params.method == method
    assert params.se_discrimination is None
    check_finite(params)
    error = rmse_centred(params.difficulty, truth_for(data, items).difficulty.to_numpy())
    assert error < 0.10
    # the standard errors describe the error actually made
    assert 0.7 < np.sqrt(np.mean(params.se_difficulty ** 2)) / error < 1.4


@pytest.mark.parametrize("method", ["mml", "joint"])
def test_rasch_70pct_missing_3000x40_difficulty_rmse_below_0_12(method):
    df, items, _ = simulate(3000, 40, missing=0.7, seed=12)
    data = ResponseData.from_frame(df)
    params = fit_rasch(data, method=method)
    assert params.converged
    assert rmse_centred(params.difficulty, truth_for(data, items).difficulty.to_numpy()) < 0.12
    if method == "mml":
        assert abs(params.ability_sd - 1.0) < 0.1


def test_2pl_complete_2000x30_rmse_b_below_0_12_a_below_0_12():
    df, items, _ = simulate(2000, 30, model="2pl", seed=13)
    data = ResponseData.from_frame(df)
    params = fit_2pl(data)
    truth = truth_for(data, items)
    assert params.converged and params.model == "2pl"
    check_finite(params)
    assert rmse_centred(params.difficulty, truth.difficulty.to_numpy()) < 0.12
    assert rmse(params.discrimination, truth.discrimination.to_numpy()) < 0.12


def test_2pl_70pct_missing_10000x30_rmse_b_below_0_12_a_below_0_15():
    df, items, _ = simulate(10_000, 30, missing=0.7, model="2pl", seed=14)
    data = ResponseData.from_frame(df)
    params = fit_2pl(data)
    truth = truth_for(data, items)
    assert params.converged
    assert rmse_centred(params.difficulty, truth.difficulty.to_numpy()) < 0.12
    assert rmse(params.discrimination, truth.discrimination.to_numpy()) < 0.15


@pytest.fixture(scope="module")
def adaptive():
    """10,000 students x 100 items; each answers 20-30 items chosen near their true ability."""
    df, items, students = simulate(10_000, 100, adaptive=True, items_per_student=(20, 30), seed=15)
    data = ResponseData.from_frame(df)
    return data, truth_for(data, items), students


@pytest.mark.parametrize("method", ["mml", "joint"])
def test_adaptive_data_rasch_difficulty_rmse_at_most_0_07(adaptive, method):
    data, truth, _ = adaptive
    params = fit_rasch(data, method=method)
    assert params.converged
    assert rmse_centred(params.difficulty, truth.difficulty.to_numpy()) <= 0.07


def test_adaptive_data_defeat_a_single_population_which_is_why_strata_are_the_default(adaptive):
    data, truth, _ = adaptive
    single = fit_rasch(data, strata=1)
    assert rmse_centred(single.difficulty, truth.difficulty.to_numpy()) > 0.2


def test_adaptive_data_2pl_rmse_b_below_0_10_a_below_0_15():
    df, items, _ = simulate(10_000, 60, adaptive=True, model="2pl", seed=16)
    data = ResponseData.from_frame(df)
    params = fit_2pl(data)
    truth = truth_for(data, items)
    assert rmse_centred(params.difficulty, truth.difficulty.to_numpy()) < 0.10
    assert rmse(params.discrimination, truth.discrimination.to_numpy()) < 0.15


def test_design_strata_cost_nothing_when_items_were_assigned_at_random():
    df, items, _ = simulate(2000, 30, missing=0.5, model="2pl", seed=17)
    data = ResponseData.from_frame(df)
    truth = truth_for(data, items)
    strata = fit_2pl(data)
    single = fit_2pl(data, strata=1)
    for field, err in (("difficulty", rmse_centred), ("discrimination", rmse)):
        true = truth[field].to_numpy()
        assert err(getattr(strata, field), true) <= 1.05 * err(getattr(single, field), true)
    # the two differ by well under one standard error
    assert (np.abs(strata.difficulty - single.difficulty) < 0.5 * single.se_difficulty).all()
    assert (np.abs(strata.discrimination - single.discrimination) < 0.5 * single.se_discrimination).all()


@pytest.mark.parametrize("repeat", [False, True])
def test_a_fixed_paper_takes_the_shortcut_and_gets_the_same_answers(monkeypatch, repeat):
    """When every student answered the same items, products use one row; results must not change.

    Complete data are recognised from the counts alone; a paper with an item
    everyone answered twice, from the matrix.
    """
    df, _, _ = simulate(800, 25, model="2pl", seed=27)
    if repeat:
        df = pd.concat([df, df[df.item_id == "i00003"]], ignore_index=True)
    data = ResponseData.from_frame(df)
    fast = fit_2pl(data)
    fast_theta = eap(data, fast).theta
    assert data._design.same_items
    monkeypatch.setattr(irt._Design, "_complete", lambda self, data: False)
    monkeypatch.setattr(irt._Design, "_same_items", lambda self: False)
    general = ResponseData.from_frame(df)
    slow = fit_2pl(general)
    assert not general._design.same_items
    assert np.allclose(fast.difficulty, slow.difficulty, atol=1e-5)
    assert np.allclose(fast.discrimination, slow.discrimination, atol=1e-5)
    assert np.allclose(fast_theta, eap(general, slow).theta, atol=1e-5)


def test_eap_recovers_abilities_and_reports_their_uncertainty():
    df, items, students = simulate(2000, 40, seed=18)
    data = ResponseData.from_frame(df)
    abilities = eap(data, fit_rasch(data))
    truth = students.set_index("student").loc[abilities.student_ids].theta.to_numpy()
    assert np.corrcoef(abilities.theta, truth)[0, 1] > 0.9
    # posterior sd matches the actual error on average
    assert abs(rmse(abilities.theta, truth) / np.sqrt(np.mean(abilities.se ** 2)) - 1) < 0.15
    assert (abilities.n == 40).all()


# ---------------------------------------------------------------------------
# Small cases checked by hand


def tiny_data() -> ResponseData:
    return ResponseData.from_frame(pd.DataFrame({
        "student": ["ann", "ann", "ann", "bob", "bob", "cat"],
        "item_id": ["q1", "q2", "q3", "q1", "q3", "q2"],
        "correct": [1, 0, 1, 0, 0, 1],
    }))


def tiny_params() -> ItemParams:
    return ItemParams.from_frame(pd.DataFrame({"item_id": ["q3", "q1", "q2"], "difficulty": [0.8, -0.5, 0.2],
                                               "discrimination": [0.7, 1.3, 1.0]}))


def test_eap_matches_direct_numerical_integration():
    data, params = tiny_data(), tiny_params()
    table = params.to_frame().set_index("item_id")
    mean, sd = 0.3, 1.2
    result = eap(data, params, prior_mean=mean, prior_sd=sd).to_frame().set_index("student")
    answers = data.to_frame()
    for student, rows in answers.groupby("student"):
        def likelihood(t, rows=rows):
            value = math.exp(-0.5 * ((t - mean) / sd) ** 2)
            for item, x in zip(rows.item_id, rows.correct):
                p = 1 / (1 + math.exp(-table.discrimination[item] * (t - table.difficulty[item])))
                value *= p if x else 1 - p
            return value
        z = integrate.quad(likelihood, -15, 15)[0]
        m1 = integrate.quad(lambda t: t * likelihood(t), -15, 15)[0] / z
        m2 = integrate.quad(lambda t: t * t * likelihood(t), -15, 15)[0] / z
        assert result.theta[student] == pytest.approx(m1, abs=1e-4)
        assert result.se[student] == pytest.approx(math.sqrt(m2 - m1 * m1), abs=1e-4)
    assert result.n.to_dict() == {"ann": 3, "bob": 2, "cat": 1}


def test_infit_and_outfit_match_a_hand_computation():
    data, params = tiny_data(), tiny_params()
    theta = {"ann": 0.4, "bob": -1.1, "cat": 1.5}
    table = params.to_frame().set_index("item_id")
    fit = item_fit(data, params, np.array([theta[s] for s in data.student_ids])).set_index("item_id")
    answers = data.to_frame()
    for item, rows in answers.groupby("item_id"):
        z2, r2, var = [], [], []
        for student, x in zip(rows.student, rows.correct):
            p = 1 / (1 + math.exp(-table.discrimination[item] * (theta[student] - table.difficulty[item])))
            z2.append((x - p) ** 2 / (p * (1 - p)))
            r2.append((x - p) ** 2)
            var.append(p * (1 - p))
        assert fit.outfit[item] == pytest.approx(sum(z2) / len(z2), rel=1e-9)
        assert fit.infit[item] == pytest.approx(sum(r2) / sum(var), rel=1e-9)
        assert fit.n[item] == len(rows)
    # Abilities are matched to students by id, in any order
    shuffled = Abilities(np.array(["cat", "bob", "ann"]), np.array([1.5, -1.1, 0.4]), np.ones(3), np.ones(3))
    assert np.allclose(item_fit(data, params, shuffled).infit, fit.infit.to_numpy())


def test_item_fit_block_by_block_adds_up_to_one_pass(monkeypatch):
    df, items, students = simulate(500, 12, missing=0.4, model="2pl", seed=32)
    data = ResponseData.from_frame(df)
    params = ItemParams.from_frame(items)
    theta = students.set_index("student").loc[data.student_ids].theta.to_numpy()
    whole = item_fit(data, params, theta)
    monkeypatch.setattr(irt.fit, "FIT_BLOCK", 97)                 # many blocks, the last one short
    blocks = item_fit(data, params, theta)
    assert np.allclose(blocks[["infit", "outfit"]], whole[["infit", "outfit"]], rtol=1e-12)
    assert (blocks["n"] == whole["n"]).all()


def test_the_logistic_function_matches_scipy_everywhere_without_overflow():
    x = np.concatenate([np.linspace(-800, 800, 4001), [0.0, 1e-300, -1e-300]])
    with np.errstate(all="raise"):
        ours = irt.logistic.expit(x)
    assert np.allclose(ours, expit(x), rtol=0, atol=3e-16)
    assert irt.logistic.expit(0.3) == pytest.approx(float(expit(0.3)), abs=3e-16)
    out = np.empty(3, dtype=np.float32)
    assert irt.logistic.expit(np.array([-1.0, 0.0, 1.0], dtype=np.float32), out=out) is out


def test_item_fit_is_near_one_for_data_that_fit_and_flags_a_noisy_item():
    df, items, students = simulate(3000, 20, seed=19)
    flip = df.item_id == "i00000"
    df.loc[flip, "correct"] = np.random.default_rng(0).integers(0, 2, int(flip.sum())).astype(np.int8)
    data = ResponseData.from_frame(df)
    params = ItemParams.from_frame(items)
    theta = students.set_index("student").loc[data.student_ids].theta.to_numpy()
    fit = item_fit(data, params, theta).set_index("item_id")
    others = fit.drop(index="i00000")
    assert others.infit.between(0.9, 1.1).all() and others.outfit.between(0.85, 1.15).all()
    assert fit.infit["i00000"] > 1.2 and fit.outfit["i00000"] > 1.2


def test_icc_gives_probabilities_items_by_grid():
    params = tiny_params()
    grid = np.linspace(-3, 3, 7)
    curves = icc(params, grid)
    assert curves.shape == (3, 7)
    assert (np.diff(curves, axis=1) > 0).all()
    assert curves[0, 3] == pytest.approx(expit(0.7 * (0 - 0.8)))


# ---------------------------------------------------------------------------
# Priors, extreme items, regrouping


def test_prior_pulls_an_item_with_3_responses_but_not_one_with_2000():
    df, _, _ = simulate(2000, 20, seed=20)
    thin = df.index[df.item_id == "i00000"][3:]
    data = ResponseData.from_frame(df.drop(index=thin))
    prior = {"i00000": 2.5, "i00001": 2.5}
    for method in ("mml", "joint"):
        free = fit_rasch(data, method=method).to_frame().set_index("item_id")
        held = fit_rasch(data, method=method, prior_mean=prior).to_frame().set_index("item_id")   # prior sd 1
        assert free.n["i00000"] == 3 and free.n["i00001"] == 2000
        # the thin item moves more than half way to its prior mean, the thick one under 1% of the way
        distance = 2.5 - free.difficulty
        assert (held.difficulty["i00000"] - free.difficulty["i00000"]) / distance["i00000"] > 0.5
        assert abs(held.difficulty["i00001"] - free.difficulty["i00001"]) / distance["i00001"] < 0.01
        assert "few responses" in free["flags"]["i00000"]


def test_prior_mean_as_an_array_with_gaps():
    df, _, _ = simulate(500, 10, seed=21)
    data = ResponseData.from_frame(df)
    prior = np.full(data.n_items, np.nan)
    prior[0] = 1.0
    params = fit_rasch(data, prior_mean=prior)
    assert np.isfinite(params.difficulty).all()


@pytest.mark.parametrize("fit,method", [(fit_rasch, "mml"), (fit_rasch, "joint"), (fit_2pl, "mml")])
def test_items_all_correct_or_all_wrong_get_finite_bounded_estimates_and_flags(fit, method):
    df, _, _ = simulate(400, 15, seed=22)
    df.loc[df.item_id == "i00000", "correct"] = 1
    df.loc[df.item_id == "i00001", "correct"] = 0
    data = ResponseData.from_frame(df)
    params = fit(data, method=method)
    check_finite(params)
    table = params.to_frame().set_index("item_id")
    assert table["flags"]["i00000"] == "all correct" and table["flags"]["i00001"] == "all wrong"
    others = table.drop(index=["i00000", "i00001"]).difficulty
    assert -12 < table.difficulty["i00000"] < others.min()
    assert others.max() < table.difficulty["i00001"] < 12
    assert table.p_correct["i00000"] == 1.0 and table.p_correct["i00001"] == 0.0


def test_regroup_calibrates_item_families():
    df, _, _ = simulate(1000, 12, seed=23)
    data = ResponseData.from_frame(df)
    mapping = {f"i{k:05d}": f"family{k % 3}" for k in range(9)}       # i00009..i00011 keep their ids
    grouped = data.regroup(mapping)
    assert sorted(grouped.item_ids) == ["family0", "family1", "family2", "i00009", "i00010", "i00011"]
    assert grouped.n_responses == data.n_responses and grouped.n_students == data.n_students
    n, r = grouped.counts()
    counts = dict(zip(grouped.item_ids, n))
    assert counts["family0"] == 3000 and counts["i00009"] == 1000
    params = fit_rasch(grouped)
    assert len(params) == 6 and params.converged
    single = fit_rasch(data).to_frame().set_index("item_id").difficulty
    fam0 = params.to_frame().set_index("item_id").difficulty["family0"]
    members = single[["i00000", "i00003", "i00006"]]
    assert members.min() < fam0 < members.max()


def test_regroup_with_no_matching_ids_says_so():
    data = tiny_data()
    with pytest.raises(ValueError, match="none of the 1 mapping keys"):
        data.regroup({"nope": "g"})


# ---------------------------------------------------------------------------
# Building the data, and errors a user can cause


def test_from_frame_accepts_bool_or_01_and_drops_unmarked_rows():
    df = pd.DataFrame({"who": ["a", "a", "b", "b"], "q": [1, 2, 1, 2], "ok": [True, False, None, True]})
    data = ResponseData.from_frame(df, student="who", item="q", correct="ok")
    assert data.n_responses == 3 and data.x.dtype == np.int8 and data.s.dtype == np.int32
    assert list(data.item_ids) == ["1", "2"] and list(data.student_ids) == ["a", "b"]
    numbers = ResponseData.from_frame(pd.DataFrame({"student": ["a", "b"], "item_id": ["x", "x"],
                                                    "correct": [1.0, 0.0]}))
    assert list(numbers.x) == [1, 0]


def arrow_text(values, chunks: int = 3) -> pd.Series:
    """Ids as the store returns them: Arrow-backed large strings in several chunks."""
    pieces = np.array_split(np.asarray(values, dtype=object), chunks)
    return pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array([pa.array(c, type=pa.large_string())
                                                                        for c in pieces])))


def test_codes_are_sorted_ids_the_same_for_any_row_order_and_any_kind_of_id_column():
    df, _, _ = simulate(400, 15, missing=0.3, seed=31)
    base = ResponseData.from_frame(df)
    assert list(base.item_ids) == sorted(base.item_ids) and list(base.student_ids) == sorted(base.student_ids)
    shuffled = df.iloc[np.random.default_rng(1).permutation(len(df))]
    variants = {
        "categorical, shuffled": shuffled,
        "text": shuffled.astype({"student": str, "item_id": str}),
        "objects": shuffled.astype({"student": object, "item_id": object}),
        "store (Arrow chunks)": pd.DataFrame({"student": arrow_text(shuffled.student.astype(str)),
                                              "item_id": arrow_text(shuffled.item_id.astype(str)),
                                              "correct": shuffled.correct.to_numpy()}),
    }
    expected = fit_rasch(base)
    for name, frame in variants.items():
        data = ResponseData.from_frame(frame)
        assert np.array_equal(data.item_ids, base.item_ids) and np.array_equal(data.student_ids, base.student_ids)
        assert sorted(zip(data.student_ids[data.s], data.item_ids[data.i], data.x)) == \
            sorted(zip(base.student_ids[base.s], base.item_ids[base.i], base.x)), name
        params = fit_rasch(data)          # row order never changes a Rasch calibration, not even in the last bit
        assert np.array_equal(params.difficulty, expected.difficulty), name
        assert np.array_equal(eap(data, params).theta, eap(base, expected).theta), name


def test_unused_categories_are_no_items_and_missing_ids_are_refused_in_every_kind_of_column():
    df = pd.DataFrame({"student": pd.Categorical(["b", "a", "b"], categories=["z", "b", "a"]),
                       "item_id": pd.Categorical(["q2", "q1", "q1"], categories=["q1", "q2", "q9"]),
                       "correct": [1, 0, 1]})
    data = ResponseData.from_frame(df)
    assert list(data.student_ids) == ["a", "b"] and list(data.item_ids) == ["q1", "q2"]
    assert list(data.counts()[0]) == [2, 1]
    for column in (pd.Categorical(["a", None, "b"]), arrow_text(["a", None, "b"]), pd.Series(["a", None, "b"])):
        with pytest.raises(ValueError, match="1 responses have no student"):
            ResponseData.from_frame(pd.DataFrame({"student": column, "item_id": ["x"] * 3, "correct": [1, 0, 1]}))


@pytest.mark.parametrize("frame,message", [
    (pd.DataFrame({"student": [], "item_id": [], "correct": []}), "empty"),
    (pd.DataFrame({"student": ["a"], "item": ["x"], "correct": [1]}), "no column 'item_id'"),
    (pd.DataFrame({"student": ["a"], "item_id": ["x"], "correct": ["yes"]}), "True/False or 1/0; found 'yes'"),
    (pd.DataFrame({"student": ["a"], "item_id": ["x"], "correct": [2]}), "True/False or 1/0; found 2"),
    (pd.DataFrame({"student": ["a"], "item_id": ["x"], "correct": [None]}), "nothing is marked"),
    (pd.DataFrame({"student": [None], "item_id": ["x"], "correct": [1]}), "1 responses have no student"),
])
def test_bad_frames_are_refused_with_a_clear_message(frame, message):
    with pytest.raises(ValueError, match=message):
        ResponseData.from_frame(frame)


def test_bad_arguments_are_refused_with_a_clear_message():
    data, params = tiny_data(), tiny_params()
    with pytest.raises(ValueError, match="unknown method 'em'"):
        fit_rasch(data, method="em")
    with pytest.raises(ValueError, match="Rasch model only"):
        fit_2pl(data, method="joint")
    with pytest.raises(ValueError, match="prior_mean has 2 values for 3 items"):
        fit_rasch(data, prior_mean=[0.0, 1.0])
    with pytest.raises(ValueError, match="none of its 1 ids"):
        fit_rasch(data, prior_mean={"zz": 1.0})
    with pytest.raises(ValueError, match="prior_mean must hold difficulties as numbers"):
        fit_rasch(data, prior_mean={"q1": "hard"})
    with pytest.raises(ValueError, match="prior_sd must be positive"):
        fit_rasch(data, prior_mean=[0, 0, 0], prior_sd=0)
    with pytest.raises(ValueError, match="strata must be"):
        fit_rasch(data, strata=0)
    with pytest.raises(ValueError, match="expected ResponseData"):
        fit_rasch(pd.DataFrame())
    partial = ItemParams.from_frame(pd.DataFrame({"item_id": ["q1"], "difficulty": [0.0]}))
    with pytest.raises(ValueError, match="2 items in the responses have no parameters"):
        eap(data, partial)
    with pytest.raises(ValueError, match="theta has 2 values for 3 students"):
        item_fit(data, params, [0.0, 1.0])
    with pytest.raises(ValueError, match="model must be"):
        simulate(10, 5, model="3pl")


# ---------------------------------------------------------------------------
# Online updates


def test_online_update_moves_theta_with_the_answer_and_shrinks_se():
    up_theta, up_se = online_update(0.0, 1.0, 0.2, 1.0, True)
    down_theta, down_se = online_update(0.0, 1.0, 0.2, 1.0, False)
    assert up_theta > 0.0 > down_theta
    assert up_se < 1.0 and down_se < 1.0
    # a confident estimate moves less than an uncertain one
    assert online_update(0.0, 0.3, 0.2, 1.0, 1)[0] < up_theta
    # vectorised: many students at once
    thetas, ses = online_update(np.zeros(4), np.ones(4), np.array([-1, 0, 1, 2]), 1.5, np.array([1, 0, 1, 0]))
    assert thetas.shape == (4,) and (ses < 1).all()
    assert (np.sign(thetas) == [1, -1, 1, -1]).all()


def test_online_update_matches_the_exact_posterior_after_many_answers():
    rng = np.random.default_rng(3)
    b = rng.normal(size=60)
    truth = 0.7
    x = rng.random(60) < expit(truth - b)
    theta, se = 0.0, 1.0
    for bi, xi in zip(b, x):
        theta, se = online_update(theta, se, bi, 1.0, xi)
    data = ResponseData.from_frame(pd.DataFrame({"student": "s", "item_id": [f"q{k}" for k in range(60)],
                                                 "correct": x}))
    params = ItemParams.from_frame(pd.DataFrame({"item_id": [f"q{k}" for k in range(60)], "difficulty": b}))
    exact = eap(data, params)
    assert theta == pytest.approx(exact.theta[0], abs=0.05)
    assert se == pytest.approx(exact.se[0], abs=0.02)


def test_online_update_refuses_bad_input():
    with pytest.raises(ValueError, match="se must be positive"):
        online_update(0.0, 0.0, 0.0, 1.0, True)
    with pytest.raises(ValueError, match="correct must be"):
        online_update(0.0, 1.0, 0.0, 1.0, 3)
    with pytest.raises(ValueError, match="discrimination"):
        online_update(0.0, 1.0, 0.0, -1.0, 1)


# ---------------------------------------------------------------------------
# Results and simulation


def test_results_convert_to_frames():
    df, _, _ = simulate(300, 8, model="2pl", seed=24)
    data = ResponseData.from_frame(df)
    params = fit_2pl(data)
    table = params.to_frame()
    assert list(table.columns) == ["item_id", "difficulty", "se_difficulty", "discrimination", "se_discrimination",
                                   "n", "p_correct", "flags"]
    assert len(table) == 8 and table.notna().all().all()
    assert list(fit_rasch(data).to_frame().columns) == ["item_id", "difficulty", "se_difficulty", "discrimination",
                                                        "n", "p_correct", "flags"]
    abilities = eap(data, params).to_frame()
    assert list(abilities.columns) == ["student", "theta", "se", "n"] and len(abilities) == data.n_students
    assert np.isfinite(params.log_likelihood) and params.log_likelihood < 0


def test_simulate_missing_and_adaptive_shapes():
    df, items, students = simulate(200, 50, missing=0.7, seed=25)
    assert len(items) == 50 and len(students) == 200
    assert 0.25 < len(df) / (200 * 50) < 0.35
    assert set(df.columns) == {"student", "item_id", "correct"}
    adaptive, items, students = simulate(200, 50, adaptive=True, items_per_student=(5, 8), seed=25)
    per_student = adaptive.groupby("student", observed=True).size()
    assert per_student.between(5, 8).all()
    # adaptive: a student's items sit near their ability
    merged = adaptive.merge(items, on="item_id").merge(students, on="student")
    assert merged.groupby("student", observed=True).apply(
        lambda g: abs(g.difficulty.mean() - g.theta.iloc[0]), include_groups=False).median() < 0.5


# ---------------------------------------------------------------------------
# Bulk storage


def test_import_and_load_responses_round_trip(store):
    df, items, _ = simulate(300, 20, missing=0.5, seed=26)
    assert import_responses(store, df) == len(df)
    assert import_responses(store, df) == 0          # importing again adds nothing
    loaded = response_frame(store)
    assert len(loaded) == len(df)
    assert list(loaded.columns) == ["student", "item_id", "correct", "session_id", "created_at"]
    assert loaded.correct.dtype == np.int8
    assert loaded.session_id.str.startswith("import:").all()
    original = df.astype({"student": str, "item_id": str}).sort_values(["student", "item_id"])
    back = loaded.sort_values(["student", "item_id"])
    assert (original.correct.to_numpy() == back.correct.to_numpy()).all()
    params = fit_rasch(ResponseData.from_frame(loaded))
    assert params.converged and len(params) == 20


def test_import_numbers_repeats_and_loading_keeps_first_attempts(store):
    df = pd.DataFrame({"student": ["ann", "ann", "ann", "bob", "bob"],
                       "item_id": ["q1", "q1", "q2", "q1", "q2"],
                       "correct": [False, True, 1, None, 0],
                       "time_taken_ms": [1000, 2000, 3000, 4000, 5000]}, index=[0, 0, 1, 1, 2])
    assert import_responses(store, df) == 5
    every = response_frame(store, first_attempt_only=False)
    assert len(every) == 4                                        # bob's unmarked q1 is left out
    first = response_frame(store).sort_values(["student", "item_id"])
    assert list(zip(first.student, first.item_id, first.correct)) == [("ann", "q1", 0), ("ann", "q2", 1),
                                                                    ("bob", "q2", 0)]
    later = pd.DataFrame({"student": ["cat"], "item_id": ["q1"], "correct": [1], "attempt": [3],
                          "session_id": ["sess_1"]})
    assert import_responses(store, later) == 1
    assert ("cat", "sess_1") in set(zip(response_frame(store).student, response_frame(store).session_id))


def test_import_refuses_bad_frames(store):
    with pytest.raises(ValueError, match="need the column.s. correct"):
        import_responses(store, pd.DataFrame({"student": ["a"], "item_id": ["x"]}))
    with pytest.raises(ValueError, match="1 rows have no item_id"):
        import_responses(store, pd.DataFrame({"student": ["a"], "item_id": [None], "correct": [1]}))
    with pytest.raises(ValueError, match="found 'maybe'"):
        import_responses(store, pd.DataFrame({"student": ["a"], "item_id": ["x"], "correct": ["maybe"]}))
    with pytest.raises(ValueError, match="attempt"):
        import_responses(store, pd.DataFrame({"student": ["a"], "item_id": ["x"], "correct": [1], "attempt": [0]}))
    assert import_responses(store, pd.DataFrame({"student": [], "item_id": [], "correct": []})) == 0
    assert len(response_frame(store)) == 0
