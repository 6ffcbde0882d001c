"""Method marks: answers given step by step, each step's mark, and follow-through from the student's own values."""
from __future__ import annotations

import pytest

from core.marking import MarkingSpec, MarkingSpecError, StepVerdict, mark_answer, mark_steps, step_boxes
from core.marking.steps import final_text, step_answers

# A 4-mark recurrence-limit question: u(n+1) = 0.85 u(n) + 40, L = 40 / (1 - 0.85) = 266.67.
CRITERIA = [
    {"step": "State why a limit exists", "marks": 1, "gap_tag": "communication"},
    {"step": "Give the multiplier", "marks": 1, "gap_tag": "strategy", "answer_key": "0.85", "name": "multiplier",
     "tolerance": {"absolute": 0.001}},
    {"step": "Give 1 - multiplier", "marks": 1, "gap_tag": "process", "answer_key": "0.15", "name": "denominator",
     "follow_through": "1 - multiplier", "tolerance": {"absolute": 0.001}},
    {"step": "Calculate the limit", "marks": 1, "gap_tag": "calculation", "answer_key": "266.67",
     "follow_through": "40 / denominator"},
]


def spec(**overrides) -> MarkingSpec:
    fields = dict(method="numeric_tolerance", key="266.67", tolerance_absolute=0.05, criteria=[dict(c) for c in CRITERIA],
                  misconceptions={"percentage_as_multiplier": "47.06"},
                  misconception_tags={"percentage_as_multiplier": "strategy"})
    fields.update(overrides)
    return MarkingSpec(**fields)


def awarded(result) -> list[int]:
    return [v.awarded for v in result.criteria]


def test_every_step_right_earns_every_mark():
    result = mark_steps(spec(), {"1": "0.85", "2": "0.15", "3": "266.67"})
    assert result.correct and result.score == 4.0 == result.max_score
    assert awarded(result) == [1, 1, 1, 1]
    assert all(isinstance(v, StepVerdict) for v in result.criteria)
    assert [v.number for v in result.criteria] == [None, 1, 2, 3]
    assert result.criteria[3].final and result.gap_tags == []


def test_a_right_final_answer_alone_still_earns_full_marks():
    s = spec()
    assert mark_answer(s, "266.67").score == 4.0
    for answers in ({"3": "266.67"}, {"final": "266.67"}, {3: "266.67"}, "266.67"):
        result = mark_steps(s, answers)
        assert result.correct and result.score == 4.0, answers


def test_a_plain_answer_is_marked_exactly_as_mark_answer_marks_it():
    s = spec()
    for answer in ("266.67", "47.06", "12", "", "abc"):
        assert mark_steps(s, answer) == mark_answer(s, answer)
    # A wrong final answer alone in a mapping scores what mark_answer gives it (the steps have no text).
    assert mark_steps(s, {"final": "12"}).score == mark_answer(s, "12").score == 0.0


def test_each_right_step_earns_its_own_mark_when_the_final_answer_is_wrong():
    result = mark_steps(spec(), {"1": "0.85", "2": "0.15", "3": "300"})
    assert not result.correct
    assert awarded(result) == [0, 1, 1, 0]
    assert result.score == 2.0
    assert "2 of 4 marks" in result.feedback
    assert "calculation" in result.gap_tags and "strategy" not in result.gap_tags


def test_follow_through_from_a_wrong_step():
    # 15% read as the multiplier: step 1 is wrong, the rest follows correctly from it.
    result = mark_steps(spec(), {"1": "0.15", "2": "0.85", "3": "47.06"})
    assert not result.correct
    assert awarded(result) == [0, 0, 1, 1]
    multiplier, denominator, limit = result.criteria[1:]
    assert not multiplier.met and not multiplier.follow_through
    assert denominator.follow_through and denominator.feedback == "This follows correctly from your step 1."
    assert limit.follow_through and limit.feedback == "This follows correctly from your step 2."
    assert "follow correctly from your own earlier values" in result.feedback
    assert result.to_dict()["criteria"][2]["follow_through"] is True


def test_follow_through_does_not_rescue_a_step_that_does_not_follow():
    result = mark_steps(spec(), {"1": "0.15", "2": "0.85", "3": "50"})
    assert awarded(result) == [0, 0, 1, 0]
    assert not result.criteria[3].follow_through


def test_follow_through_needs_the_earlier_step_answered():
    # Step 2 is blank, so step 3 has no value of the student's to follow from.
    result = mark_steps(spec(), {"1": "0.15", "3": "47.06"})
    assert awarded(result) == [0, 0, 0, 0]
    assert result.criteria[2].feedback.startswith("No answer given for this step")


def test_a_right_step_after_a_wrong_one_is_simply_right():
    result = mark_steps(spec(), {"1": "0.5", "2": "0.15", "3": "266.67"})
    assert result.correct and result.score == 4.0   # the final answer is right: every mark


def test_steps_by_name_and_the_final_box():
    s = spec()
    answers = {"multiplier": "0.85", "denominator": "0.15", "final": "266.7"}
    assert step_answers(s, answers) == {1: "0.85", 2: "0.15", 3: "266.7"}
    assert final_text(s, answers) == "266.7"
    assert step_answers(s, {"nonsense": "1", "9": "2"}) == {}
    assert mark_steps(s, answers).correct


def test_an_unreadable_step_makes_the_answer_unread_and_names_the_step():
    result = mark_steps(spec(), {"1": "0..85", "3": "266.67"})
    assert result.correct                      # marked as it stands
    assert not result.valid and "Step 1 could not be read" in result.feedback
    blank = mark_steps(spec(), {"1": " ", "3": ""})
    assert not blank.valid and blank.score == 0.0


def test_the_misconception_diagnosis_still_names_the_gap():
    result = mark_steps(spec(), {"1": "0.15", "2": "0.85", "3": "47.06"})
    assert result.misconception == "percentage_as_multiplier"
    assert "strategy" in result.gap_tags


def test_criteria_without_keys_are_awarded_only_by_the_final_answer():
    s = spec(partial_credit=True)
    wrong = mark_steps(s, {"1": "0.85", "2": "0.15", "3": "300"})
    assert wrong.criteria[0].awarded == 0
    right = mark_steps(s, {"3": "266.67"})
    assert right.criteria[0].awarded == 1


def test_step_boxes_show_no_keys():
    boxes = step_boxes(spec().criteria)
    assert [b["index"] for b in boxes] == [1, 2, 3] and [b["number"] for b in boxes] == [1, 2, 3]
    assert [b["final"] for b in boxes] == [False, False, True]
    assert all("answer_key" not in b and "follow_through" not in b for b in boxes)


def test_the_spec_keeps_the_step_fields():
    criteria = spec().criteria
    assert criteria[0] == {"step": "State why a limit exists", "marks": 1, "gap_tag": "communication",
                           "description": None}
    assert criteria[2]["answer_key"] == "0.15" and criteria[2]["name"] == "denominator"
    assert criteria[2]["follow_through"] == "1 - multiplier" and criteria[2]["tolerance"] == {"absolute": 0.001}


@pytest.mark.parametrize("change, message", [
    ({1: {"answer_key": "zero point eight"}}, "step 1"),
    ({2: {"follow_through": "1 - nothing"}}, "not the name of an earlier step"),
    ({2: {"follow_through": "1 - denominator"}}, "not the name of an earlier step"),
    ({2: {"follow_through": "2"}}, "uses no earlier step"),
    ({2: {"follow_through": "2 - multiplier"}}, "not the step's key 0.15"),
    ({2: {"name": "multiplier"}}, "used by steps 1 and 2"),
    ({2: {"name": "not valid"}}, "plain identifier"),
    ({3: {"answer_key": "300", "follow_through": None}}, "does not agree with the question's answer key"),
    ({1: {"method": "mcq"}}, "numeric_tolerance, exact_match or algebraic_equivalence"),
    ({2: {"method": "exact_match"}}, "not marked numerically"),
    ({1: {"tolerance": {"absolute": -1}}}, "positive number"),
])
def test_bad_step_keys_are_refused_when_the_spec_is_built(change, message):
    criteria = [dict(c) for c in CRITERIA]
    for i, fields in change.items():
        criteria[i].update(fields)
    with pytest.raises(MarkingSpecError, match=message):
        MarkingSpec(method="numeric_tolerance", key="266.67", tolerance_absolute=0.05, criteria=criteria)


def test_a_choice_question_cannot_ask_for_steps():
    with pytest.raises(MarkingSpecError, match="cannot ask for its steps"):
        MarkingSpec(method="mcq", key="266.67", options=["266.67", "47.06"], correct_index=0,
                    criteria=[dict(c) for c in CRITERIA])


def test_follow_through_with_powers_roots_and_tiny_numbers():
    criteria = [
        {"step": "Square", "marks": 1, "answer_key": "101.25", "name": "sq", "tolerance": {"absolute": 0.01}},
        {"step": "Side", "marks": 1, "answer_key": "10.1", "follow_through": "sqrt(sq)"},
    ]
    s = MarkingSpec(method="numeric_tolerance", key="10.1", tolerance_absolute=0.1, criteria=criteria)
    assert awarded(mark_steps(s, {"0": "110.25", "1": "10.5"})) == [0, 1]
    assert awarded(mark_steps(s, {"0": "-4", "1": "2"})) == [0, 0]       # no real square root: no follow-through
    tiny = [
        {"step": "Energy", "marks": 1, "answer_key": "6.63e-19", "name": "energy"},
        {"step": "Double it", "marks": 1, "answer_key": "1.326e-18", "follow_through": "2 * energy"},
    ]
    s = MarkingSpec(method="numeric_tolerance", key="1.326e-18", tolerance_relative=0.01, criteria=tiny)
    assert awarded(mark_steps(s, {"0": "3.0e-19", "1": "6.0e-19"})) == [0, 1]
