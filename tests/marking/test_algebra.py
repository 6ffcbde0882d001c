"""Marking by algebraic_equivalence: equivalent expressions and equations, and what cannot be read."""
from __future__ import annotations

import time

import pytest

from core.marking import mark_answer
from tests.marking.helpers import alg, ok


@pytest.mark.parametrize("key, answer", [
    ("2x+3", "3+2*x"), ("2x+3", "2*x + 3"), ("2x+3", "x+x+3"), ("2x+3", "(4x+6)/2"),
    ("x^2", "x**2"), ("x^2", "x*x"), ("x^2", "x²"), ("3(x+1)", "3x+3"), ("(x+1)(x-2)", "x^2-x-2"),
    ("(x+1)(x-2)", "(x - 2)(x + 1)"), ("xy", "x y"), ("xy", "y*x"), ("2xy", "2 x y"),
    ("x - 3", "x − 3"), ("sqrt(x+1)", "√(x+1)"), ("sqrt(x)", r"\sqrt{x}"), ("sqrt(x)", "x^(1/2)"),
    ("x/2", r"\frac{x}{2}"), ("x/2", r"\frac{1}{2}x"), ("x/2", "0.5x"), ("2sqrt(3)", "sqrt(12)"),
    ("sin(x)^2 + cos(x)^2", "1"), ("e^(2x)", "exp(x)^2"), ("ln(x^2)", "2ln(x)"), ("pi r^2", "π*r^2"),
    ("(x+1)^20", "(1+x)^20"), ("3x^-2", "3/x^2"), ("6x^2 + 5x - 6", "(2x+3)(3x-2)"),
])
def test_equivalent_expressions(key, answer):
    r = mark_answer(alg(key), answer)
    assert r.correct, r


@pytest.mark.parametrize("key, answer", [
    ("2x+3", "2x+4"), ("2x+3", "3x+2"), ("x^2", "2x"), ("(x+1)(x-2)", "x^2-x+2"), ("xy", "x+y"),
    ("x", "x + 0.0000000001"), ("(x+1)^20", "x^20+1"), ("sqrt(x)", "x/2"), ("2x+3", "2x"),
])
def test_inequivalent_expressions(key, answer):
    r = mark_answer(alg(key), answer)
    assert not r.correct and r.feedback == "That's not equal to the right answer."


def test_normalised_expression_shows_how_it_was_read():
    assert mark_answer(alg("2x+3"), "3+2x").normalised_answer == "3 + 2*x"
    assert mark_answer(alg("6x^5"), "6x⁵").normalised_answer == "6*x^5"


def test_equations_against_accepted_forms():
    spec = alg("2x - 10", accepted_answers=["y = 2x - 10"])
    for answer in ["2x - 10", "y = 2x - 10", "y=2x-10", "2x - y = 10", "y - 2x + 10 = 0", "f(x) = 2x - 10"]:
        assert ok(spec, answer), answer
    assert not ok(spec, "y = 2x - 11")
    assert mark_answer(spec, "y = = 2").feedback == "Write at most one '=' sign."
    assert mark_answer(alg("y = 3x"), "x = 3y").feedback == "The left-hand side should be y."


@pytest.mark.parametrize("answer, feedback", [
    ("2x+", "The expression ends too early."),
    ("(x+1", "A closing bracket ')' is missing."),
    ("x+1)", "There is a ')' without a matching '('."),
    ("2x+3.", None),                                   # a full stop ending the sentence
    ("x2", "'x2': did you mean x^2 or 2x?"),
    ("2 3", "A number straight after a letter, bracket or number is ambiguous; use * or ^."),
    ("2x + .", "A decimal point must be followed by digits."),
])
def test_malformed_expressions_are_wrong_with_a_reason(answer, feedback):
    r = mark_answer(alg("2x+3"), answer)
    if feedback is None:
        assert r.correct
    else:
        assert not r.correct and r.refused is None and r.feedback == feedback


@pytest.mark.parametrize("answer, reason", [
    ("x\x00", "The character U+0000 is not allowed in an expression."),
    ("x @ 2", "The character '@' is not allowed in an expression."),
    ("x" + "+x" * 300, "The expression is too long (over 600 characters)."),
    ("(" * 21 + "x" + ")" * 21, "Brackets are nested more than 20 deep."),
    ("(x+1)^10001", "Powers larger than 10000 are not allowed here."),
    ("1001!", "Factorials are marked up to 1000!."),
    ("-" * 100 + "x", "The expression is nested too deeply."),
])
def test_refused_expressions_name_the_problem(answer, reason):
    r = mark_answer(alg("2x+3"), answer)
    assert not r.correct and r.refused == reason and r.feedback == reason and r.score == 0


def test_nesting_up_to_twenty_is_read():
    assert ok(alg("x+1"), "(" * 20 + "x+1" + ")" * 20)


def test_expansion_too_large_to_do_is_still_checked_numerically():
    # (a+...+e)^20 (f+...+j)^20 would expand to over 10^8 terms.
    answer = "(a+b+c+d+e)^20(f+g+h+i+j)^20"
    start = time.perf_counter()
    assert ok(alg("(e+d+c+b+a)^20(j+i+h+g+f)^20"), answer)
    assert not ok(alg("2x+3"), answer)
    assert time.perf_counter() - start < 1.0


def test_division_by_zero_cannot_be_checked():
    r = mark_answer(alg("2x+3"), "1/0")
    assert not r.correct and r.feedback == "This expression could not be checked against the answer."
