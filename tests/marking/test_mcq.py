"""Marking by mcq: the student designates an option by letter, index or its text."""
from __future__ import annotations

import pytest

from core.marking import MarkingSpec, mark_answer
from tests.marking.helpers import ok


MCQ = MarkingSpec("mcq", "85", options=["76", "85", "94", "95"], correct_index=1,
                  misconceptions={"no_carry": "76", "off_by_10": "95", "unused": "86"},
                  misconception_tags={"no_carry": "carrying", "off_by_10": "place_value"})


@pytest.mark.parametrize("answer", [1, "1", " 1 ", "B", "b", "(b)", "b)", "B.", "(B)", "85", " 85 ", "85.0"])
def test_mcq_designates_the_correct_option(answer):
    r = mark_answer(MCQ, answer)
    assert r.correct and r.score == 1.0 and r.normalised_answer == "85" and r.feedback == "That's right."


@pytest.mark.parametrize("answer", [0, "0", "a", "(a)", "76", "A"])
def test_mcq_wrong_option_is_diagnosed(answer):
    r = mark_answer(MCQ, answer)
    assert not r.correct and r.score == 0.0
    assert r.normalised_answer == "76" and r.misconception == "no_carry" and r.gap_tags == ["carrying"]
    assert r.feedback == "That's not the right option."


@pytest.mark.parametrize("answer", [4, -1, "4", "e", "(z)", "86", "eighty-five", 10 ** 40])
def test_mcq_answers_that_are_no_option(answer):
    r = mark_answer(MCQ, answer)
    assert not r.correct and r.normalised_answer is None and r.misconception is None
    assert r.feedback == "That is not one of the options."


def test_mcq_option_text_beats_letter_and_index():
    # Options that are themselves letters or small numbers: the student typed an option.
    letters = MarkingSpec("mcq", "a", options=["x", "y", "a", "b"], correct_index=2)
    assert ok(letters, "a") and not ok(letters, "b") and ok(letters, 2) and ok(letters, "C")
    numbers = MarkingSpec("mcq", "2", options=["3", "2", "1", "0"], correct_index=1)
    assert ok(numbers, "2") and ok(numbers, 1) and not ok(numbers, "1")


def test_mcq_normalised_text_compare():
    spec = MarkingSpec("mcq", "Carbon dioxide", options=["Oxygen", "Carbon dioxide", "Nitrogen"], correct_index=1)
    assert ok(spec, "carbon   DIOXIDE.") and ok(spec, "Ｃａｒｂｏｎ dioxide")
    sci = MarkingSpec("mcq", "3.2 × 10^5", options=["3.2 × 10^5", "32 × 10^4"], correct_index=0)
    assert ok(sci, "3.2 x 10^5")
