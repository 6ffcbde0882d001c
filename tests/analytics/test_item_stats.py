"""Classical item analysis, every statistic checked against a small case worked by hand."""
from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from core.analytics.item_stats import (NO_OPTION, cronbach_alpha, discrimination, distractors, facility, item_scores,
                                       kr20, parameter_effects, parameter_facility, reliability, reliability_by,
                                       score_matrix, strategy_summary)


def answers(rows: list[tuple], columns=("student", "item_id", "correct")) -> pd.DataFrame:
    df = pd.DataFrame(rows, columns=list(columns))
    if "created_at" not in df.columns:
        df["created_at"] = np.arange(len(df))
    return df


# Four students, three right/wrong items (1 = right):
#
#          i1 i2 i3  total
#   ann     1  1  1    3
#   ben     1  1  0    2
#   cat     1  0  0    1
#   dan     0  0  0    0
FORM = answers([(s, i, bool(v)) for s, row in {"ann": (1, 1, 1), "ben": (1, 1, 0), "cat": (1, 0, 0),
                                               "dan": (0, 0, 0)}.items()
                for i, v in zip(("i1", "i2", "i3"), row)])


# --------------------------------------------------------------------------
# Facility


def test_facility_right_wrong():
    """Facility is the share right: i1 3/4, i2 2/4, i3 1/4 (hardest first)."""
    out = facility(FORM)
    assert out["item_id"].tolist() == ["i3", "i2", "i1"]
    assert out["facility"].tolist() == [0.25, 0.5, 0.75] and out["n"].tolist() == [4, 4, 4]


def test_facility_with_part_marks_and_first_attempts():
    """q (3 marks) scored 3, 1, 0: facility (1 + 1/3 + 0) / 3 = 0.444444, fully right 1/3.

    ann's second attempt (3 after 0) is ignored: only first attempts count.
    """
    df = answers([("ann", "q", False, 0, 3, 1), ("ben", "q", True, 3, 3, 2), ("cat", "q", False, 1, 3, 3),
                  ("ann", "q", True, 3, 3, 4)],
                 columns=("student", "item_id", "correct", "score", "max_score", "created_at"))
    row = facility(df).iloc[0]
    assert row["n"] == 3 and row["marks"] == 3
    assert row["facility"] == pytest.approx(4 / 9) and row["p_correct"] == pytest.approx(1 / 3)


def test_first_attempt_follows_time_not_row_order():
    df = answers([("ann", "q", True, 5), ("ann", "q", False, 1)], columns=("student", "item_id", "correct", "created_at"))
    assert item_scores(df)["correct"].tolist() == [0.0]


# --------------------------------------------------------------------------
# Discrimination


def test_corrected_point_biserial_within_a_form():
    """Item against the rest of the test (total minus the item).

    i1: item 1,1,1,0; rest 2,1,0,0. Deviations from the means (0.75, 0.75):
    item .25,.25,.25,-.75; rest 1.25,.25,-.75,-.75.
    Sxy = .3125+.0625-.1875+.5625 = .75; Sxx = .75; Syy = 2.75; r = .75/sqrt(.75*2.75) = 0.522233.
    i2: item 1,1,0,0; rest 2,1,1,0: Sxy = 1, Sxx = 1, Syy = 2; r = 1/sqrt(2) = 0.707107.
    i3: mirror image of i1: r = 0.522233.
    Upper and lower groups: g = round(0.27 * 4) = 1: ann (total 3) against dan (0): 1 - 0 = 1 on every item.
    """
    out = discrimination(FORM).set_index("item_id")
    assert out.loc["i1", "point_biserial"] == pytest.approx(0.75 / math.sqrt(0.75 * 2.75))
    assert out.loc["i2", "point_biserial"] == pytest.approx(1 / math.sqrt(2))
    assert out.loc["i3", "point_biserial"] == pytest.approx(0.522233, abs=1e-6)
    assert out["upper_lower"].tolist() == [1.0, 1.0, 1.0] and out["n_group"].tolist() == [1, 1, 1]
    assert (out["criterion"] == "rest score").all()
    assert out["note"].str.startswith("too few answers").all()


def test_discrimination_against_ability_when_students_saw_different_items():
    """Ten students with abilities 1..10 on one item, right for abilities 3, 5, 6, 8, 9, 10.

    Point-biserial = (M1 - M0) / s * sqrt(p q): M1 = 41/6 = 6.8333, M0 = 14/4 = 3.5,
    s = sqrt(99/12) = 2.872281 (population), p = 0.6: r = 3.3333 / 2.872281 * 0.489898 = 0.568535.
    g = round(0.27 * 10) = 3: upper (8, 9, 10) all right, lower (1, 2, 3) one right: 1 - 1/3 = 0.666667.
    A student without an ability (zed) is left out; other items do not matter.
    """
    right = {3, 5, 6, 8, 9, 10}
    rows = [(f"s{k:02d}", "q", k in right) for k in range(1, 11)] + [("zed", "q", False), ("s01", "other", True)]
    ability = {f"s{k:02d}": float(k) for k in range(1, 11)}
    out = discrimination(answers(rows), ability=ability).set_index("item_id")
    assert out.loc["q", "n"] == 10
    assert out.loc["q", "point_biserial"] == pytest.approx((41 / 6 - 3.5) / math.sqrt(99 / 12) * math.sqrt(0.24))
    assert out.loc["q", "point_biserial"] == pytest.approx(0.568535, abs=1e-6)
    assert out.loc["q", "upper_lower"] == pytest.approx(2 / 3)
    assert out.loc["q", "criterion"] == "ability" and out.loc["q", "note"] == ""


def test_ability_as_a_table_from_the_ability_model():
    rows = [(f"s{k}", "q", k > 2) for k in range(6)]
    table = pd.DataFrame({"student": [f"s{k}" for k in range(6)], "theta": [-1.0, -0.5, 0.0, 0.5, 1.0, 1.5]})
    out = discrimination(answers(rows), ability=table)
    assert out.loc[0, "point_biserial"] > 0.8 and out.loc[0, "upper_lower"] == 1.0


def test_a_miskeyed_item_is_flagged():
    """Twelve students; the strongest get 'bad' wrong, the weakest get it right."""
    rows = []
    for k in range(12):
        rows += [(f"s{k:02d}", f"good{j}", k > j + 2) for j in range(5)] + [(f"s{k:02d}", "bad", k < 4)]
    out = discrimination(answers(rows)).set_index("item_id")
    assert out.loc["bad", "point_biserial"] < 0 and out.loc["bad", "upper_lower"] < 0
    assert out.loc["bad", "note"].startswith("negative")


# --------------------------------------------------------------------------
# Distractors

MCQ = pd.DataFrame([
    {"id": "m1", "blueprint_id": "bp", "options": json.dumps(["12", "7", "35", "5"]), "correct_index": 0,
     "option_strategies": json.dumps([None, "subtracted", "multiplied", None]),
     "misconceptions": json.dumps({"subtracted": "7", "multiplied": "35", "divided": "5"})},
    {"id": "n1", "blueprint_id": "bp2", "options": "[]", "correct_index": None, "option_strategies": "[]",
     "misconceptions": "{}"},
])


def mcq_answers(n1_marks=(2, 0, 2, 0, 2, 0)) -> pd.DataFrame:
    picks = ["12", " 12 ", "7", "35", "b", ""]
    rows = []
    for k, (pick, marks) in enumerate(zip(picks, n1_marks)):
        s = f"s{k + 1}"
        right = pick.strip() == "12"
        rows.append((s, "m1", pick, right, float(right), 1.0, 2 * k))
        rows.append((s, "n1", str(marks), marks == 2, float(marks), 2.0, 2 * k + 1))
    return pd.DataFrame(rows, columns=["student", "item_id", "answer", "correct", "score", "max_score", "created_at"])


def test_distractor_counts_strategies_and_means():
    """Six students on m1 (key "12"): "12", " 12 ", "7", "35", "b" (the letter for option 2, "7"), blank.

    Counts: key 2, "7" 2, "35" 1, "5" 0, blank 1; shares out of 6. "5" has no strategy in
    option_strategies but misconceptions names its answer: "divided".
    Mark fraction over both items ((m1 + n1) / 3): s1 3/3, s2 1/3, s3 2/3, s4 0, s5 2/3, s6 0.
    Key choosers (s1, s2) 2/3; "7" choosers (s3, s5) 2/3: as strong as the key's, so suspect
    (min_count 2); "35" (s4) 0.
    """
    out = distractors(mcq_answers(), MCQ, min_count=2)
    assert out["option"].tolist() == ["12", "7", "35", "5", NO_OPTION]
    assert out["count"].tolist() == [2, 2, 1, 0, 1]
    assert out["share"].tolist() == pytest.approx([2 / 6, 2 / 6, 1 / 6, 0, 1 / 6])
    assert out["strategy"].tolist()[1:4] == ["subtracted", "multiplied", "divided"]
    assert out["is_key"].tolist() == [True, False, False, False, False]
    assert out["mean_score"].tolist()[:3] == pytest.approx([2 / 3, 2 / 3, 0])
    assert out["suspect"].tolist() == [False, True, False, False, False]
    assert (out["blueprint_id"] == "bp").all() and out["mean_ability"].isna().all()


def test_distractor_suspect_by_ability():
    """With abilities the comparison uses them: key choosers (1.0 + 0.0) / 2 = 0.5; "7" (2.0 + 1.0) / 2 = 1.5."""
    ability = pd.Series({"s1": 1.0, "s2": 0.0, "s3": 2.0, "s4": -1.0, "s5": 1.0, "s6": -2.0})
    out = distractors(mcq_answers(n1_marks=(2, 2, 0, 0, 0, 0)), MCQ, ability=ability, min_count=2)
    assert out["mean_ability"].tolist()[:3] == pytest.approx([0.5, 1.5, -1.0])
    assert out["suspect"].tolist()[:3] == [False, True, False]


def test_strategy_summary_across_a_blueprint():
    """Two items of one blueprint both offer 'subtracted': chosen 2 of 6 on m1 and 2 of 3 on m2: 4/9."""
    items = pd.concat([MCQ.iloc[:1], pd.DataFrame([{
        "id": "m2", "blueprint_id": "bp", "options": ["1", "2", "3"], "correct_index": 1,
        "option_strategies": ["subtracted", None, "divided"], "misconceptions": None}])], ignore_index=True)
    extra = pd.DataFrame([("s1", "m2", "2", True, 1.0, 1.0, 20), ("s2", "m2", "1", False, 0.0, 1.0, 21),
                          ("s3", "m2", "1", False, 0.0, 1.0, 22)],
                         columns=["student", "item_id", "answer", "correct", "score", "max_score", "created_at"])
    table = distractors(pd.concat([mcq_answers(), extra], ignore_index=True), items)
    summary = strategy_summary(table).set_index("strategy")
    assert summary.loc["subtracted", "items"] == 2 and summary.loc["subtracted", "offered"] == 9
    assert summary.loc["subtracted", "chosen"] == 4 and summary.loc["subtracted", "share"] == pytest.approx(4 / 9)
    assert summary.loc["divided", "chosen"] == 0 and summary.loc["divided", "items"] == 2
    assert summary.index[0] == "subtracted" and (summary["blueprint_id"] == "bp").all()


def test_distractors_need_multiple_choice_items():
    with pytest.raises(ValueError, match="none of the items is multiple choice"):
        distractors(mcq_answers(), MCQ.iloc[1:])


# --------------------------------------------------------------------------
# Reliability


def test_alpha_and_kr20_by_hand():
    """FORM: item variances p(1-p) = .1875, .25, .1875 (sum .625); totals 3, 2, 1, 0 have variance 1.25.

    alpha = KR-20 = 3/2 * (1 - .625 / 1.25) = 0.75.
    """
    matrix = score_matrix(FORM)
    assert cronbach_alpha(matrix) == pytest.approx(0.75)
    assert kr20(matrix) == pytest.approx(0.75)
    assert reliability(matrix) == {"alpha": pytest.approx(0.75), "kr20": pytest.approx(0.75), "n_students": 4,
                                   "n_items": 3, "n_dropped": 0}


def test_alpha_with_part_marks_and_a_missing_answer():
    """Marks a: 2, 1, 0 and b: 1, 1, 0 (s4 has no b and is dropped: complete cases only).

    Variances: a 2/3, b 2/9 (sum 8/9); totals 3, 2, 0 have variance 14/9.
    alpha = 2 * (1 - (8/9) / (14/9)) = 6/7. KR-20 needs right/wrong items: a has part marks.
    """
    matrix = pd.DataFrame({"a": [2, 1, 0, 2], "b": [1, 1, 0, np.nan]}, index=["s1", "s2", "s3", "s4"])
    assert cronbach_alpha(matrix) == pytest.approx(6 / 7)
    out = reliability(matrix)
    assert out["n_dropped"] == 1 and out["n_students"] == 3 and math.isnan(out["kr20"])
    with pytest.raises(ValueError, match="part marks"):
        kr20(matrix)


def test_kr20_reads_all_or_nothing_marks_as_right_wrong():
    """Items worth 3 marks scored 0 or 3 are right/wrong for KR-20 (each counts one); alpha weights by marks."""
    matrix = score_matrix(FORM, value="correct") * 3
    assert kr20(matrix) == pytest.approx(0.75) and cronbach_alpha(matrix) == pytest.approx(0.75)


def test_reliability_per_form():
    df = pd.concat([FORM.assign(form="A"), FORM[FORM["item_id"] == "i1"].assign(form="B")], ignore_index=True)
    out = reliability_by(df, by="form").set_index("form")
    assert out.loc["A", "alpha"] == pytest.approx(0.75)
    assert math.isnan(out.loc["B", "alpha"]) and "at least 2 items" in out.loc["B", "note"]


def test_reliability_errors():
    with pytest.raises(ValueError, match="at least 2 items"):
        reliability(pd.DataFrame({"a": [1, 0]}))
    with pytest.raises(ValueError, match="at least 2 students who answered every item"):
        reliability(pd.DataFrame({"a": [1, 0], "b": [1, np.nan]}))


# --------------------------------------------------------------------------
# Parameter effects


def parameter_case() -> tuple[pd.DataFrame, pd.DataFrame]:
    """Item i0 (n = 0, kind add): 2 answers, 1 right; i1 (n = 1, kind sub): 5 answers, 4 right."""
    items = pd.DataFrame({"id": ["i0", "i1"], "blueprint_id": ["bp", "bp"],
                          "params": [json.dumps({"n": 0, "kind": "add"}), {"n": 1, "kind": "sub"}]})
    results = [("i0", 1), ("i0", 0), ("i1", 1), ("i1", 1), ("i1", 1), ("i1", 1), ("i1", 0)]
    df = answers([(f"s{k}", item, bool(v)) for k, (item, v) in enumerate(results)])
    return df, items


@pytest.mark.parametrize("seed", range(8))
def test_parameter_values_are_binned_as_pandas_quantiles_bin_them(seed):
    """Numeric parameters with many values are cut at their quantiles; the bins are pd.qcut's, ties and all."""
    from core.analytics.item_stats.parameters import _quantile_bins
    rng = np.random.default_rng(seed)
    values = rng.integers(-5, 40, size=int(rng.integers(7, 200))).astype(float).tolist()   # many repeats
    expected = pd.qcut(np.asarray(values), q=4, labels=False, duplicates="drop")
    assert _quantile_bins(values, 4) == expected.tolist()


def test_parameter_facility_by_value():
    df, items = parameter_case()
    out = parameter_facility(df, items)
    n = out[out["parameter"] == "n"]
    assert n["level"].tolist() == ["0", "1"] and n["facility"].tolist() == pytest.approx([0.5, 0.8])
    assert n["n"].tolist() == [2, 5] and n["n_items"].tolist() == [1, 1]
    assert out[out["parameter"] == "kind"]["level"].tolist() == ["add", "sub"]


def test_parameter_effects_by_hand():
    """n: facility 0.5 at 0 and 0.8 at 1.

    Pearson r: n = 7, mean x = mean y = 5/7; Sxy = 4 - 7 (5/7)(5/7) = 3/7, Sxx = Syy = 5 - 25/7 = 10/7,
    r = 0.3. Logistic slope (two values: the fit is exact) = logit(0.8) - logit(0.5) = ln 4 = 1.386294.
    Spread 0.8 - 0.5 = 0.3; hardest 0, easiest 1. kind is categorical with the same split.
    """
    df, items = parameter_case()
    out = parameter_effects(df, items, min_n=2).set_index("parameter")
    assert out.loc["n", "kind"] == "numeric"
    assert out.loc["n", "r"] == pytest.approx(0.3)
    assert out.loc["n", "logit_slope"] == pytest.approx(math.log(4), abs=1e-8)
    assert out.loc["n", "spread"] == pytest.approx(0.3)
    assert (out.loc["n", "hardest"], out.loc["n", "easiest"]) == ("0", "1")
    assert out.loc["kind", "kind"] == "categorical" and out.loc["kind", "hardest"] == "add"
    assert math.isnan(out.loc["kind", "r"]) and out.loc["n", "n"] == 7


def test_numeric_parameters_with_many_values_are_binned():
    """Eight items with x = 1..8 (more than 6 values): quartile bins 1-2, 3-4, 5-6, 7-8."""
    items = pd.DataFrame({"id": [f"i{k}" for k in range(1, 9)], "params": [{"x": k} for k in range(1, 9)]})
    df = answers([(f"s{k}", f"i{k}", k <= 4) for k in range(1, 9)])
    out = parameter_facility(df, items)
    assert out["level"].tolist() == ["1 to 2", "3 to 4", "5 to 6", "7 to 8"]
    assert out["facility"].tolist() == [1.0, 1.0, 0.0, 0.0]
    effects = parameter_effects(df, items, min_n=2).iloc[0]
    assert effects["spread"] == 1.0 and effects["r"] < -0.8
    assert math.isnan(effects["logit_slope"])      # right and wrong perfectly separated: no finite slope


# --------------------------------------------------------------------------
# Errors a user can cause


def test_clear_errors():
    with pytest.raises(ValueError, match="no answers"):
        facility(FORM.iloc[:0])
    with pytest.raises(ValueError, match="no item column 'item'"):
        facility(FORM, item="item")
    with pytest.raises(ValueError, match="neither a mark nor right/wrong"):
        facility(answers([("ann", "q", None)]))
    with pytest.raises(ValueError, match="share must be between 0 and 0.5"):
        discrimination(FORM, share=0.6)
    with pytest.raises(ValueError, match="none of the answering students has an ability"):
        discrimination(FORM, ability={"zed": 1.0})
    with pytest.raises(ValueError, match="params must be a JSON object"):
        parameter_effects(FORM, pd.DataFrame({"id": ["i1"], "params": ["[1, 2]"]}))
    with pytest.raises(ValueError, match="not JSON"):
        parameter_effects(FORM, pd.DataFrame({"id": ["i1"], "params": ["{n: 1"]}))
