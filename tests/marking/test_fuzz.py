"""Property tests: whatever a student types, marking returns a result and never raises.

Answers are built from the pieces hostile answers are made of (numbers of any
size, powers, factorials, functions, brackets, units, relations, Unicode) as
well as from arbitrary text.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.marking import INTERNAL_ERROR, MarkingSpec, MarkResult, mark_answer, read_answer

PIECES = ["x", "y", "X", "2", "9", "0", "1e999", "10^", "^", "**", "!", "(", ")", "|", "[", "]", "{", "}", ",", ";",
          "=", "<", ">=", "≠", "±", "+", "-", "−", "*", "×", "/", "÷", ".", " ", "sqrt(", "sin", "sinx", "ln(",
          "log_2(", "exp(", "pi", "e", "%i", "m", "km/h", "s^-1", "°", "£", "%", "²", "⁻¹", "\\frac{", "}{", "$",
          "and", " or ", "none", "__import__", "lambda", "'", '"', "\x00", "‮", "𝟖", "٣"]

SPECS = [
    MarkingSpec("algebraic_equivalence", "2x + 3"),
    MarkingSpec("algebraic_equivalence", "x > 2 or x < -2"),
    MarkingSpec("algebraic_equivalence", "x = 2 or x = -2"),
    MarkingSpec("numeric_tolerance", "12.5", units="m/s"),
    MarkingSpec("numeric_tolerance", "0.0512", significant_figures=3),
    MarkingSpec("numeric_tolerance", "[1, 2]"),
    MarkingSpec("exact_match", "-32/9"),
    MarkingSpec("short_text", "photosynthesis", keywords=["light", "glucose"]),
]

built = st.lists(st.sampled_from(PIECES), max_size=40).map("".join)
anything = st.text(max_size=300)


def check(answer: str) -> None:
    for spec in SPECS:
        result = mark_answer(spec, answer)
        assert isinstance(result, MarkResult) and result.refused != INTERNAL_ERROR, (spec.key, answer, result)
        assert 0 <= result.score <= result.max_score
        reading = read_answer(spec, answer)
        assert reading.valid == result.valid


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(built)
def test_answers_built_from_hostile_pieces_are_always_marked(answer):
    check(answer)


@pytest.mark.parametrize("answer", [
    "1e999x",         # a huge number in a unit of another kind: converting it overflowed a float
    "1e999²e",        # a constant that overflows to infinity, against a key with significant figures
    "10^𝟖!",
    "1e999 ×pi",
    "1e999=lambda",   # an equation whose polynomial's roots do not converge numerically
])
def test_answers_the_property_tests_once_found_unmarkable_are_marked(answer):
    check(answer)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(anything)
def test_any_text_is_always_marked(answer):
    check(answer)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(built)
def test_any_key_either_builds_a_question_or_is_refused_with_a_reason(key):
    from core.marking import MarkingSpecError
    for method in ("algebraic_equivalence", "numeric_tolerance", "exact_match"):
        try:
            spec = MarkingSpec(method, key)
        except MarkingSpecError as exc:
            assert str(exc)
            continue
        assert isinstance(mark_answer(spec, key), MarkResult)
