"""Marking choose-several questions (multiple_response): the letters ticked, part marks by the options'
fractions, the key checked before a student ever meets it."""
from __future__ import annotations

import pytest

from core.items.generator import Item
from core.marking import (MarkingSpec, MarkingSpecError, item_key_problem, key_as_typed, key_problem, mark_answer,
                          read_answer)

OPTIONS = ["2", "3", "4", "5"]
# Moodle's usual weights for two right options of four: 50% each, -100% for each wrong one.
MOODLE = MarkingSpec("multiple_response", "B, D", options=OPTIONS, fractions=[-1.0, 0.5, -1.0, 0.5])


def imported_item(**changes) -> Item:
    """A choose-several question as one imported from Moodle is stored."""
    fields = dict(
        id="imp_mr_1", blueprint_id=None, blueprint_version=None, blueprint_hash="", source="import", seed="",
        difficulty_level="medium", difficulty_value=0.5, item_type="multiple_response",
        stem="Which of these are odd numbers?", options=list(OPTIONS), option_strategies=[None] * 4,
        options_shuffled=False, correct_answer="B, D", correct_index=None, answer_value="B, D",
        accepted_answers=[], misconceptions={}, explanation="3 and 5 are odd.", hints=[], answer_type="string",
        units=None, marks=2, marking_scheme={"criteria": [], "total_marks": 2},
        evaluation={"method": "multiple_response", "fractions": [-1.0, 0.5, -1.0, 0.5], "partial_credit": False},
        generation_params={}, computed_values={}, subject="Mathematics", level="Nat 5", outcome_ids=["O1"],
        skill_ids=[], calculator="optional", content_key="mr-test")
    fields.update(changes)
    return Item(**fields)


# ---------------------------------------------------------------------------
# Exactly the right options


@pytest.mark.parametrize("answer", ["B, D", "D,B", "b d", "BD", "db", " B ;D ", "B and D", "(b) (d)", "B, D, B"])
def test_the_right_options_in_any_order_and_spacing_are_correct(answer):
    r = mark_answer(MOODLE, answer)
    assert r.correct and r.score == 1.0 and r.max_score == 1.0 and r.valid
    assert r.feedback == "That's right."
    assert r.normalised_answer == "B, D" and r.read_as == "B, D"


def test_the_preview_reads_letters_without_a_verdict():
    reading = read_answer(MOODLE, "d ,b")
    assert reading.valid and reading.read_as == "B, D" and reading.problem is None
    wrong = read_answer(MOODLE, "A")     # a wrong tick is still read
    assert wrong.valid and wrong.read_as == "A"


# ---------------------------------------------------------------------------
# Part marks: Moodle's 50 / 50 / -100


def test_one_of_two_right_options_earns_half_without_saying_which():
    r = mark_answer(MOODLE, "B")
    assert not r.correct and r.valid and r.score == 0.5 and r.max_score == 1.0
    assert r.feedback == "Your tick is right, but one right option is missing."
    assert "B" not in r.feedback and "D" not in r.feedback and "3" not in r.feedback


def test_a_wrong_tick_with_minus_100_percent_cancels_everything():
    # 0.5 + 0.5 - 1 = 0
    r = mark_answer(MOODLE, "A, B, D")
    assert not r.correct and r.score == 0.0
    assert r.feedback == "You ticked every right option, but one of your ticks is wrong."
    # 0.5 - 1 = -0.5: never below 0
    r = mark_answer(MOODLE, "B, C")
    assert not r.correct and r.score == 0.0 and r.valid
    assert r.feedback == "1 of your 2 ticks is right, and one right option is missing."


def test_ticking_every_option_earns_nothing():
    r = mark_answer(MOODLE, "A, B, C, D")
    assert not r.correct and r.score == 0.0      # 0.5 + 0.5 - 1 - 1 clamped to 0


def test_only_wrong_options_ticked():
    one = mark_answer(MOODLE, "A")
    assert one.score == 0.0 and one.feedback == "The option you ticked is not a right one."
    two = mark_answer(MOODLE, "A C")
    assert two.score == 0.0 and two.feedback == "None of the 2 options you ticked is a right one."


def test_part_marks_scale_with_the_marks_and_are_not_rounded_down():
    spec = MarkingSpec("multiple_response", "A, B, C", options=["w", "x", "y", "z"], marks=2,
                       fractions=[0.3333333, 0.3333333, 0.3333333, -1])   # as Moodle writes a third
    full = mark_answer(spec, "A, B, C")
    assert full.correct and full.score == 2.0       # three seven-figure thirds still add up to 1
    two = mark_answer(spec, "A, C")
    assert not two.correct and two.score == 1.33    # 2 x 2/3, to two decimal places
    assert two.feedback == "All 2 of your ticks are right, but one right option is missing."
    assert mark_answer(spec, "A, B, C, D").score == 0.0


def test_wrong_options_with_no_fraction_cost_nothing():
    # Full marks, so correct: the file gave the wrong option no penalty.
    spec = MarkingSpec("multiple_response", "A, B", options=["p", "q", "r"], fractions=[0.5, 0.5, 0])
    r = mark_answer(spec, "A, B, C")
    assert r.correct and r.score == 1.0


def test_without_fractions_each_right_option_is_one_kth_and_each_wrong_one_takes_one_kth_away():
    spec = MarkingSpec("multiple_response", "A, C", options=["p", "q", "r", "s"], marks=4)
    assert spec.fractions == [0.5, -0.5, 0.5, -0.5]
    assert mark_answer(spec, "A").score == 2.0
    assert mark_answer(spec, "A, B").score == 0.0
    assert mark_answer(spec, "A, B, C").score == 2.0
    assert mark_answer(spec, "A, C").correct


def test_part_marks_go_through_the_criteria_when_there_are_some():
    spec = MarkingSpec("multiple_response", "A, C", options=["p", "q", "r"], marks=2,
                       fractions=[0.5, -1, 0.5],
                       criteria=[{"step": "first", "marks": 1}, {"step": "second", "marks": 1}])
    r = mark_answer(spec, "C")
    assert r.score == 1.0 and [v.awarded for v in r.criteria] == [1, 0]


# ---------------------------------------------------------------------------
# Answers that are not options


@pytest.mark.parametrize("answer,says", [
    ("E", "there is no E (the options are A to D)"),
    ("B, F, G", "there are no F or G"),
    ("3, 5", "Give the letters of the options you choose, such as A, C."),
    ("B-D", "Give the letters"),
    ("B, D!", "Give the letters"),
])
def test_letters_that_are_not_options_are_refused_and_cost_nothing(answer, says):
    r = mark_answer(MOODLE, answer)
    assert not r.correct and not r.valid and r.score == 0.0
    assert r.feedback.startswith("That is not one of the options") and says in r.feedback
    assert r.read_as is None


@pytest.mark.parametrize("answer", ["", "   ", ", ,", None])
def test_nothing_ticked_is_no_answer(answer):
    r = mark_answer(MOODLE, answer)
    assert not r.correct and not r.valid and r.score == 0.0


def test_hostile_answers_never_raise():
    for answer in [b"\xff", ["B", "D"], {"B": 1}, "B" * 5000, 3, True, "\u0000B"]:
        r = mark_answer(MOODLE, answer)
        assert not r.correct and r.score == 0.0


# ---------------------------------------------------------------------------
# The key


def test_key_as_typed_is_the_canonical_letters():
    assert key_as_typed(MOODLE) == "B, D"
    untidy = MarkingSpec("multiple_response", "d b", options=OPTIONS, fractions=[-1.0, 0.5, -1.0, 0.5])
    assert key_as_typed(untidy) == "B, D" and key_problem(untidy) is None


def test_a_sound_key_has_no_problem():
    assert key_problem(MOODLE) is None
    assert item_key_problem(imported_item()) is None


@pytest.mark.parametrize("key,fractions,says", [
    ("B, E", [-1.0, 0.5, -1.0, 0.5], "does not name the right options"),
    ("", [-1.0, 0.5, -1.0, 0.5], "does not name the right options"),
    ("3, 5", [-1.0, 0.5, -1.0, 0.5], "does not name the right options"),
    ("B, D", [-1.0, 0.5, -1.0, 0.25], "add up to 3/4, not 1"),
    ("B, D", [-1.0, 0.5, -1.0, 0.75], "add up to 5/4, not 1"),
    ("B, D", [-1.0, 0.5, 0.0, 0.5, 0.0], "4 options but 5 fractions"),
    ("B, D", [-1.0, 1.0, -1.0, 0.0], "option D is in the answer key 'B, D' but earns no marks"),
    ("B", [-1.0, 0.5, -1.0, 0.5], "option D earns marks (its fraction is 1/2) but is not in the answer key"),
    ("B, D", [-1.0, 0.5, -2.0, 0.5], "option C's fraction of the marks is -2.0"),
    ("B, D", [-1.0, 0.5, "lots", 0.5], "option C's fraction of the marks is 'lots'"),
    ("B, D", [-1.0, 0.5, float("nan"), 0.5], "option C's fraction"),
])
def test_a_key_the_marker_cannot_use_is_named(key, fractions, says):
    item = imported_item(correct_answer=key, evaluation={"method": "multiple_response", "fractions": fractions})
    problem = item_key_problem(item)
    assert problem is not None and says in problem
    with pytest.raises(MarkingSpecError, match="."):
        MarkingSpec.from_item(item)


def test_a_choose_several_question_needs_two_options():
    with pytest.raises(MarkingSpecError, match="at least two options"):
        MarkingSpec("multiple_response", "A", options=["only"])


# ---------------------------------------------------------------------------
# From a stored item


def test_the_spec_of_an_item_reads_its_fractions_and_gives_part_marks():
    item = imported_item()
    spec = MarkingSpec.from_item(item)
    assert spec.method == "multiple_response" and spec.fractions == [-1.0, 0.5, -1.0, 0.5]
    assert spec.correct_index is None and spec.marks == 2
    # The importer writes partial_credit False for every question; the fractions still give part marks.
    assert mark_answer(spec, "D").score == 1.0
    assert mark_answer(spec, item.typed_answer).correct


def test_the_item_shows_the_right_options_and_asks_for_several():
    item = imported_item()
    assert item.typed_answer == "B, D"
    assert item.shown_answer == "B and D: 3, 5"
    view = item.student_view()
    assert view["choose_several"] is True and view["options"] == OPTIONS
    assert "B, D" not in str(view) and not view["units_required"]
    commas = imported_item(options=["1, 2", "3, 4", "5", "6"])
    assert commas.shown_answer == "B and D: 3, 4; 6"
    single = imported_item(item_type="multiple_choice", correct_answer="3", correct_index=1,
                           evaluation={"method": "mcq"})
    assert "choose_several" not in single.student_view() and single.shown_answer == "3"
