"""The words beside every figure on the Analytics page, and the advice the thresholds give."""
from __future__ import annotations

import math

import pytest

from core.analytics import explain


@pytest.mark.parametrize("name", ["logits", "ability", "difficulty", "Rasch", "2PL", "facility", "discrimination",
                                  "point-biserial", "reliability", "mastery", "BKT mastery", "infit and outfit",
                                  "interval", "wright map", "characteristic curve", "distractor"])
def test_every_term_a_teacher_meets_is_explained_with_what_to_do(name):
    t = explain.term(name)
    assert len(t.short) > 40 and len(t.long) > len(t.short) and len(t.todo) > 20
    assert t.todo in explain.tooltip(name) and t.long in explain.explanation(name)


def test_logits_are_explained_by_what_a_difference_means():
    words = explain.term("logits").short
    assert "0 is an item of average difficulty" in words and "73%" in words and "50%" in words
    # +1 logit is about 73%: the logistic function, which the calibration uses
    assert round(1 / (1 + math.exp(-1)), 2) == 0.73


def test_an_unknown_term_names_the_known_ones():
    with pytest.raises(ValueError, match="no explanation for 'kappa'.*Facility"):
        explain.term("kappa")


def test_thresholds_appear_in_the_words_that_use_them():
    assert str(explain.DISCRIMINATION_LOW) in explain.term("discrimination").todo
    assert str(explain.RELIABILITY_FAIR) in explain.term("reliability").short
    assert str(explain.FIT_HIGH) in explain.term("infit and outfit").short


@pytest.mark.parametrize("facility, discrimination, outfit, says", [
    (0.6, 0.1, None, "low discrimination: look at the item"),
    (0.6, -0.2, None, "check the key first"),
    (0.6, 0.35, 1.6, "noisy answers"),
    (0.2, 0.35, None, "hard for this class"),
    (0.95, 0.35, None, "use a harder level"),
])
def test_item_advice_says_what_to_do(facility, discrimination, outfit, says):
    assert says in explain.item_advice(facility, discrimination, outfit)


def test_a_sound_item_needs_no_advice():
    assert explain.item_advice(0.6, explain.DISCRIMINATION_GOOD, 1.0) == ""
    assert explain.item_advice(float("nan"), float("nan"), float("nan")) == ""


def test_reliability_advice_follows_its_thresholds():
    assert explain.reliability_advice(0.85).startswith("good")
    assert explain.reliability_advice(0.75).startswith("acceptable")
    assert explain.reliability_advice(0.5).startswith("low")
    assert explain.reliability_advice(float("nan")) == "could not be estimated"


def test_every_figure_column_of_the_report_tables_has_help():
    figures = ["n", "facility", "facility_low", "facility_high", "point_biserial", "upper_lower", "difficulty", "se",
               "low", "high", "infit", "outfit", "discrimination", "alpha", "kr20", "n_students", "mastery",
               "mean_mastery", "share_below", "n_responses", "few_answers", "advice", "theta", "measured", "declared"]
    helped = explain.column_help(figures + ["name", "student"])
    assert set(helped) == set(figures)
    assert "1.96" in helped["se"] and "Wilson" in helped["facility_low"]
