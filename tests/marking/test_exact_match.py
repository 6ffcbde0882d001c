"""Marking by exact_match: normalised text, numbers compared exactly, fractions in simplest form."""
from __future__ import annotations

import pytest

from core.marking import MarkingSpec, mark_answer
from tests.marking.helpers import crit, ok


@pytest.mark.parametrize("answer", ["85", " 85 ", "85.", "85.0", "+85", "0085", "８５", "85\n"])
def test_exact_match_numbers(answer):
    assert ok(MarkingSpec("exact_match", "85"), answer)


@pytest.mark.parametrize("answer", ["86", "eighty-five", "8 5", "85%", "-85"])
def test_exact_match_wrong_numbers(answer):
    r = mark_answer(MarkingSpec("exact_match", "85"), answer)
    assert not r.correct and r.feedback == "That's not the right answer."


def test_exact_match_text_normalisation():
    spec = MarkingSpec("exact_match", "Carbon dioxide")
    for answer in ["carbon dioxide", "CARBON   DIOXIDE", "Carbon dioxide.", "  carbon\tdioxide ", "ｃａｒｂｏｎ dioxide"]:
        assert ok(spec, answer), answer
    assert not ok(spec, "carbondioxide") and not ok(spec, "carbon dioxide gas")


def test_exact_match_thousands_separators_and_minus():
    assert ok(MarkingSpec("exact_match", "1234"), "1,234")
    assert ok(MarkingSpec("exact_match", "1,234"), "1234")
    assert ok(MarkingSpec("exact_match", "1234567"), "1,234,567")
    assert not ok(MarkingSpec("exact_match", "1234"), "1,23,4")     # not a thousands grouping
    assert ok(MarkingSpec("exact_match", "-5"), "−5")                # U+2212 minus
    assert ok(MarkingSpec("exact_match", "-5"), "- 5")


def test_exact_match_numbers_compare_exactly():
    spec = MarkingSpec("exact_match", "0.5")
    assert ok(spec, "1/2") and ok(spec, "0.50") and ok(spec, "5e-1")
    assert not ok(spec, "0.5000001") and not ok(spec, "0.49")
    # LaTeX is read only by the numeric and algebraic methods.
    assert not ok(spec, r"\frac{1}{2}")


def test_exact_match_accepted_answers_and_misconceptions():
    spec = MarkingSpec("exact_match", "2 hours 15 minutes", accepted_answers=["135 minutes", "2h 15m"],
                       misconceptions={"decimal_time": "1 hour 55 minutes"})
    assert ok(spec, "135 Minutes") and ok(spec, "2H 15M")
    r = mark_answer(spec, "1 hour 55 minutes.")
    assert not r.correct and r.misconception == "decimal_time"


FRACTION = MarkingSpec("exact_match", "7/4", answer_type="fraction", required_form="simplified",
                       accepted_answers=["1 3/4"], marks=3, partial_credit=True,
                       criteria=crit(("strategy", 1), ("process", 1), ("communication", 1)),
                       misconceptions={"add_across": "2/3"}, misconception_tags={"add_across": "common_denominator"})


@pytest.mark.parametrize("answer", ["7/4", "1 3/4", " 7 / 4 ", "7/4.", "1  3/4"])
def test_fraction_in_simplest_form(answer):
    r = mark_answer(FRACTION, answer)
    assert r.correct and r.score == 3.0 and r.normalised_answer == "1.75"


@pytest.mark.parametrize("answer, feedback", [("14/8", "Not in its simplest form."),
                                              ("1 6/8", "Not in its simplest form."),
                                              ("1.75", "Equivalent, but give the answer as a fraction.")])
def test_fraction_not_in_simplest_form_loses_the_communication_mark(answer, feedback):
    r = mark_answer(FRACTION, answer)
    assert not r.correct and r.feedback == feedback
    assert r.score == 2.0 and r.max_score == 3.0 and r.gap_tags == ["communication"]
    assert [c.met for c in r.criteria] == [True, True, False]


def test_fraction_simplest_form_needs_partial_credit_for_marks():
    spec = MarkingSpec("exact_match", "7/4", required_form="simplified", marks=2)
    r = mark_answer(spec, "14/8")
    assert not r.correct and r.score == 0 and r.feedback == "Not in its simplest form."
    # Without required_form the same value is simply right.
    assert ok(MarkingSpec("exact_match", "7/4"), "14/8")


def test_whole_number_written_as_fraction():
    spec = MarkingSpec("exact_match", "2", required_form="simplified")
    assert ok(spec, "2") and not ok(spec, "4/2") and not ok(spec, "2/1")


def test_things_listed_in_another_order_or_joined_another_way_are_the_same_answer():
    from core.marking import MarkingSpec
    spec = MarkingSpec("short_text", "ethanol and carbon dioxide")
    for answer in ("carbon dioxide and ethanol", "ethanol, carbon dioxide", "ethanol & carbon dioxide"):
        assert mark_answer(spec, answer).correct, answer
    assert not mark_answer(spec, "ethanol").correct
    assert not mark_answer(MarkingSpec("short_text", "2, 3"), "3, 2").correct     # an order of numbers is kept
