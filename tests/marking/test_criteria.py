"""Partial credit and diagnosis: criteria met or failed, marks awarded, gap tags."""
from __future__ import annotations

import json

from core.marking import CriterionVerdict, MarkingSpec, mark_answer
from tests.marking.helpers import crit, num


def diag_spec(**kw) -> MarkingSpec:
    base = dict(marks=3, partial_credit=True,
                criteria=crit(("equation_selection", 1), ("substitution", 1), ("calculation", 1)),
                misconceptions={"power_of_ten": "24.5", "gave_frequency": "4.53", "untagged": "1.11"},
                misconception_tags={"power_of_ten": "substitution", "gave_frequency": "equation_selection"})
    base.update(kw)
    return num("2.45", **base)


def test_correct_meets_every_criterion():
    r = mark_answer(diag_spec(), "2.45")
    assert r.correct and r.score == 3.0 and r.max_score == 3.0 and r.gap_tags == [] and r.misconception is None
    assert r.criteria == [CriterionVerdict("step 1", 1, 1, True, "equation_selection"),
                          CriterionVerdict("step 2", 1, 1, True, "substitution"),
                          CriterionVerdict("step 3", 1, 1, True, "calculation")]


def test_misconception_fails_the_criteria_with_its_gap_tag():
    r = mark_answer(diag_spec(), "24.5")
    assert not r.correct and r.misconception == "power_of_ten"
    assert [c.awarded for c in r.criteria] == [1, 0, 1] and r.score == 2.0
    assert r.gap_tags == ["substitution"]
    r = mark_answer(diag_spec(), "4.53")
    assert [c.met for c in r.criteria] == [False, True, True] and r.gap_tags == ["equation_selection"]


def test_misconception_without_a_matching_criterion_fails_the_last():
    r = mark_answer(diag_spec(), "1.11")
    assert r.misconception == "untagged" and [c.met for c in r.criteria] == [True, True, False]
    assert r.score == 2.0 and r.gap_tags == ["calculation"]


def test_unexplained_wrong_answer_fails_everything():
    r = mark_answer(diag_spec(), "7")
    assert r.score == 0 and r.misconception is None and not any(c.met for c in r.criteria)
    assert r.gap_tags == ["equation_selection", "substitution", "calculation"]


def test_without_partial_credit_criteria_diagnose_but_award_nothing():
    r = mark_answer(diag_spec(partial_credit=False), "24.5")
    assert r.score == 0 and [c.met for c in r.criteria] == [True, False, True]
    assert [c.awarded for c in r.criteria] == [0, 0, 0] and r.gap_tags == ["substitution"]


def test_several_criteria_share_a_tag_and_tags_are_unique():
    spec = diag_spec(criteria=crit(("substitution", 2), ("calculation", 1), ("substitution", 1)), marks=4)
    r = mark_answer(spec, "24.5")
    assert [c.awarded for c in r.criteria] == [0, 1, 0] and r.score == 1.0 and r.max_score == 4.0
    assert r.gap_tags == ["substitution"]


def test_without_criteria_score_is_all_or_nothing_and_tags_come_from_the_misconception():
    spec = diag_spec(criteria=[], marks=2)
    assert mark_answer(spec, "2.45").score == 2.0
    r = mark_answer(spec, "24.5")
    assert r.score == 0 and r.criteria == [] and r.gap_tags == ["substitution"]
    assert mark_answer(spec, "7").gap_tags == []


def test_max_score_is_the_criteria_total():
    spec = num("1", marks=5, criteria=crit(("a", 1), ("b", 2)))
    assert mark_answer(spec, "1").max_score == 3.0


def test_result_to_dict_is_json():
    r = mark_answer(diag_spec(), "24.5")
    d = r.to_dict()
    assert json.loads(json.dumps(d)) == d
    assert d["criteria"][1] == {"step": "step 2", "marks": 1, "awarded": 0, "met": False, "gap_tag": "substitution"}
    assert set(d) == {"correct", "score", "max_score", "method", "feedback", "normalised_answer", "criteria",
                      "gap_tags", "misconception", "refused", "read_as", "read_as_latex", "notes", "valid"}
