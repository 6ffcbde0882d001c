"""Algebraic equivalence without hidden assumptions: variables are real and of either sign unless
the question says otherwise; equations, inequalities, lists and sets compare as what they are."""
from __future__ import annotations

import pytest

from core.marking import MarkingSpec, mark_answer
from tests.marking.helpers import alg, ok


@pytest.mark.parametrize("key, answer, right", [
    ("abs(x)", "sqrt(x^2)", True), ("x", "sqrt(x^2)", False), ("x^(1/2)", "sqrt(x)", True),
    ("sqrt(x-3)*sqrt(x-5)", "sqrt((x-3)*(x-5))", False), ("1", "sqrt(k/m)*sqrt(m/k)", True),
    ("a^(b+c)", "a^b*a^c", True), ("x-1", "(x^2-1)/(x+1)", True), ("2x+1", "(0.5+x)*2", True),
    ("1/2", "0.5", True), ("1/3", "0.33", False), ("1/3", "0.333333333333333", False), ("51/1000", "5.1e-2", True),
    ("2^((1/5.1)*t)", "2^(0.196078431373*t)", False), ("(x-a)^6000", "(a-x)^6000", True),
    ("(x-a)^6000", "(x-a)^5999", False), ("cos(x)", "cos(-x)", True), ("cos(2x)", "2cos(x)^2 - 1", True),
    ("cos(x+y)", "cos(x)cos(y) + sin(x)sin(y)", False), ("1/(1+exp(-2x))", "tanh(x)/2 + 1/2", True),
    ("x^3 - 1", "(x-1)(x^2+x+1)", True), ("1/(n(n+1))", "1/n - 1/(n+1)", True), ("e^1 - e^(-1)", "2sinh(1)", True),
])
def test_expressions(key, answer, right):
    assert ok(alg(key), answer) is right, (key, answer)


def test_positivity_only_when_declared():
    assert not ok(alg("x"), "sqrt(x^2)")
    assert ok(MarkingSpec("algebraic_equivalence", "x", assume_positive=True), "sqrt(x^2)")


@pytest.mark.parametrize("key, answer, right", [
    ("x = 2", "2 = x", True), ("y = 2x + 1", "2x - y + 1 = 0", True), ("y = 2x + 1", "y = 2x - 1", False),
    ("x = 2 or x = -2", "x^2 = 4", True), ("x = 2 or x = -2", "x = -2, x = 2", True), ("x = 2 or x = -2", "x = 2", False),
    ("x = 3 ± 2", "x = 1 or x = 5", True), ("x^2 + y^2 = 4", "y^2 = 4 - x^2", True),
    ("x > 2", "2 < x", True), ("x > 2", "x >= 2", False), ("x > 2 or x < -2", "x^2 > 4", True),
    ("-2 < x and x < 2", "|x| < 2", True), ("x >= 1 and x <= 1", "x = 1", True), ("x ≠ 2", "x < 2 or x > 2", True),
    ("none", "x^2 = -1", True), ("none", "x^2 = 1", False), ("[1, 2]", "[1, 2]", True), ("[1, 2]", "[2, 1]", False), ("{1, 2}", "{2, 1}", True),
    ("{1/2, 1/3}", "{2/4, 1/3}", True), ("{1, 2}", "{1, 2, 3}", False),
])
def test_equations_inequalities_lists_and_sets(key, answer, right):
    assert ok(alg(key), answer) is right, (key, answer)


def test_required_forms_still_apply_and_name_the_form():
    r = mark_answer(alg("(x+1)(x+2)", required_form="factorised"), "x^2 + 3x + 2")
    assert not r.correct and r.feedback == "Equivalent, but not factorised."
    r = mark_answer(alg("x^2 + 3x + 2", required_form="expanded"), "(x+1)(x+2)")
    assert not r.correct and r.feedback == "Equivalent, but not expanded."
    assert ok(alg("x^2 + 3x + 2", required_form="expanded"), "2 + 3x + x^2")


def test_a_list_of_the_wrong_length_says_so():
    r = mark_answer(alg("[1, 2]"), "[1, 2, 3]")
    assert not r.correct and r.feedback == "Your list has 3 entries; it should have 2."
