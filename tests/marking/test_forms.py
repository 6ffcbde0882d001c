"""Required forms of algebraic answers: factorised, expanded, simplified."""
from __future__ import annotations

import pytest

from core.marking import mark_answer
from tests.marking.helpers import alg, crit, ok


FACTORISE = alg("(x + 3)(x - 2)", required_form="factorised", marks=2, partial_credit=True,
                criteria=crit(("strategy", 1), ("process", 1)),
                misconceptions={"signs_swapped": "(x - 3)(x + 2)"},
                misconception_tags={"signs_swapped": "factorising_trinomials"})


@pytest.mark.parametrize("answer", ["(x+3)(x-2)", "(x-2)(x+3)", "(x + 3)*(x - 2)", "(3+x)(-2+x)", "-(x+3)(2-x)"])
def test_factorised_answers(answer):
    assert ok(FACTORISE, answer)


def test_expanded_answer_to_a_factorise_question():
    r = mark_answer(FACTORISE, "x^2 + x - 6")
    assert not r.correct and r.feedback == "Equivalent, but not factorised."
    assert r.score == 1.0 and [c.met for c in r.criteria] == [True, False] and r.gap_tags == ["process"]


def test_factorise_misconception_fails_the_last_criterion_when_no_tag_matches():
    r = mark_answer(FACTORISE, "(x-3)(x+2)")
    assert not r.correct and r.misconception == "signs_swapped"
    assert r.score == 1.0 and r.gap_tags == ["process", "factorising_trinomials"]
    # The expanded form of the misconception is diagnosed the same way.
    assert mark_answer(FACTORISE, "x^2 - x - 6").misconception == "signs_swapped"


def test_factorise_fully():
    spec = alg("2(x - 1)(x + 1)", required_form="factorised", marks=2, partial_credit=True,
               criteria=crit(("strategy", 1), ("process", 1)),
               misconceptions={"common_factor_only": "2(x^2 - 1)"},
               misconception_tags={"common_factor_only": "factorise_fully"})
    assert ok(spec, "2(x+1)(x-1)") and ok(spec, "2(x-1)(x+1)") and ok(spec, "(2x+2)(x-1)") is False
    r = mark_answer(spec, "2(-1 + x^2)")
    assert r.feedback == "Equivalent, but not fully factorised." and r.misconception == "common_factor_only"
    assert r.score == 1.0 and r.gap_tags == ["process", "factorise_fully"]
    r = mark_answer(spec, "(2x+2)(x-1)")         # common factor 2 left inside a bracket
    assert r.feedback == "Equivalent, but not fully factorised." and r.misconception is None
    assert mark_answer(spec, "2x^2 - 2").feedback == "Equivalent, but not factorised."


def test_factorised_with_common_factor_and_powers():
    assert ok(alg("3x(2x + 3)", required_form="factorised"), "3x(3+2x)")
    assert ok(alg("(x+1)^2", required_form="factorised"), "(x+1)(x+1)")
    assert ok(alg("(x+1)(x+1)", required_form="factorised"), "(x+1)^2")
    assert ok(alg("2(x+1)", required_form="factorised"), "2(x+1)")
    assert not ok(alg("2(x+1)", required_form="factorised"), "2x+2")


def test_a_key_not_in_the_required_form_does_not_bind_students():
    # The key itself is not a product, so the form check is skipped.
    assert ok(alg("x^2 + 1", required_form="factorised"), "1 + x^2")


EXPAND = alg("6x^2 + 5x - 6", required_form="expanded")


@pytest.mark.parametrize("answer", ["6x^2+5x-6", "-6+5x+6x²", "6*x**2 + 5*x - 6", "5x + 6x^2 - 6"])
def test_expanded_answers(answer):
    assert ok(EXPAND, answer)


@pytest.mark.parametrize("answer, feedback", [
    ("(2x+3)(3x-2)", "Equivalent, but not expanded."),
    ("6x^2+9x-4x-6", "Equivalent, but like terms have not been collected."),
    ("2x(3x+2) + 3(3x-2) - 8x", "Equivalent, but not expanded."),
    ("6x^2 + 5x - (6)", None),
])
def test_not_expanded(answer, feedback):
    r = mark_answer(EXPAND, answer)
    if feedback is None:
        assert r.correct            # brackets round a single number are harmless
    else:
        assert not r.correct and r.feedback == feedback


SIMPLIFY = alg("6x^5", required_form="simplified", misconceptions={"multiplied_indices": "6x^6", "big": "10x^36"},
               misconception_tags={"multiplied_indices": "laws_of_indices"})


@pytest.mark.parametrize("answer", ["6x^5", "6x^(5)", "6*x^5", "6 x ^ 5", "6x⁵"])
def test_simplified_answers(answer):
    assert ok(SIMPLIFY, answer)


@pytest.mark.parametrize("answer, feedback", [
    ("2*3x^5", "Not in its simplest form."), ("6x^2*x^3", "Not in its simplest form."),
    ("12x^5/2", "Not in its simplest form."), ("(6x^5)^1", "Not in its simplest form."),
    ("6x^5/1", "Not in its simplest form."), ("3x^5+3x^5", "Equivalent, but like terms have not been collected."),
    ("(2x^2)^2*1.5x", "Not in its simplest form."),
])
def test_not_simplified(answer, feedback):
    r = mark_answer(SIMPLIFY, answer)
    assert not r.correct and r.feedback == feedback


def test_simplified_misconceptions_including_large_letter_powers():
    r = mark_answer(SIMPLIFY, "6x^6")
    assert r.misconception == "multiplied_indices" and r.gap_tags == ["laws_of_indices"]
    # Index-law errors give powers above 20 on a single letter; those are read, not refused.
    assert mark_answer(SIMPLIFY, "10x^36").misconception == "big"


def test_simplified_surds_and_negative_indices():
    assert not ok(alg("2sqrt(2)", required_form="simplified"), "sqrt(8)")
    assert ok(alg("2sqrt(2)", required_form="simplified"), "2√2")
    assert ok(alg("3x^-2", required_form="simplified"), "3/x^2")
