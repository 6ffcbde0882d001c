"""Significant figures, decimal places and units, by the rules stated in the README.

Significant figures follow the rule mature systems document (STACK's NumSigFigs):
trailing zeros of a whole number are ambiguous (1200 is 2, 3 or 4 s.f.), trailing
zeros after a point count, only the mantissa counts in e-notation, and the value
must be the key rounded to the figures asked for.
"""
from __future__ import annotations

import pytest

from core.marking import MarkingSpec, MarkingSpecError, mark_answer
from tests.marking.helpers import num, ok


@pytest.mark.parametrize("figures, answer, key, right", [
    (3, "3.14", "3.14159", True), (3, "3.142", "3.14159", False), (3, "3.15", "3.14159", False),
    (3, "1.50", "1.5", True), (3, "1.5", "1.5", False), (3, "1.500", "1.5", False),
    (2, "1200", "1234", True), (3, "1230", "1234", True), (4, "1234", "1234", True), (2, "1.2e3", "1234", True),
    (3, "0.00123", "0.0012345", True), (3, "1.23e-3", "0.0012345", True), (4, "1.235e-3", "0.0012345", True),
    (2, "0.050", "0.0499", True), (1, "-100", "-149", True), (3, "-3.14", "3.14159", False),
    (4, "3.142", "pi", True), (6, "1.73205", "sqrt(3)", True), (3, "pi", "pi", False),
    ([4, 3], "3.143", "3.14159", True), ([4, 3], "3.150", "3.14159", False),
    ([3, 0], "5.00", "1", True), ([3, -1], "8.2500", "8.25", True), ([3, -1], "8.2", "8.25", False),
    ("2-4", "12.3", "12.34", True), ("2-4", "12.345", "12.345", False), ("at least 3", "2.4500", "2.45", True),
])
def test_significant_figures(figures, answer, key, right):
    assert ok(num(key, significant_figures=figures), answer) is right, (figures, answer, key)


def test_significant_figure_feedback_says_which_rule_was_missed():
    r = mark_answer(num("2.45", significant_figures=3), "2.450")
    assert r.feedback == "Your value is right, but give it to 3 significant figures."
    r = mark_answer(num("2.45", significant_figures=[3, -1]), "2.5")
    assert "at least 3 significant figures" in r.feedback
    r = mark_answer(num("3.14159", significant_figures=3), "3.15")
    assert r.feedback.startswith("Nearly")


@pytest.mark.parametrize("places, answer, key, right", [
    (2, "3.14", "3.14159", True), (2, "3.1", "3.14159", False), (2, "3.140", "3.14159", False),
    (3, "4.000", "3.99999", True), (1, "-7.3", "-7.3", True), (4, "3.1416", "pi", True), (0, "12", "12.4", True),
])
def test_decimal_places(places, answer, key, right):
    assert ok(num(key, decimal_places=places), answer) is right
    if not right:
        assert "decimal place" in mark_answer(num(key, decimal_places=places), answer).feedback or \
            mark_answer(num(key, decimal_places=places), answer).feedback == "That's not the right answer."


def test_precision_rules_are_checked_when_the_question_is_built():
    for bad in (0, 16, [3, 5], "three", True):
        with pytest.raises(MarkingSpecError):
            num("1", significant_figures=bad)
    with pytest.raises(MarkingSpecError):
        num("1", decimal_places=-1)


@pytest.mark.parametrize("key, units, answer", [
    ("12", "m/s", "43.2 km/h"), ("1000", "m", "1 km"), ("0.4", "l", "400 ml"), ("0.4", "l", "400 cm^3"),
    ("25", "g", "0.025 kg"), ("18", "kJ", "18000 J"), ("3", "kN/mm^2", "3000 N/mm^2"), ("12", "m s^-1", "12 ms^-1"),
    ("12", "m s^-1", "12 m s-1"), ("9.81", "m/s^2", "9.81 m s^-2"), ("2", "h", "120 min"), ("5", "µF", "5 uF"),
    ("46.2", "cm^2", "46.2 square cm"), ("46.2", "cm^2", "46.2 cm squared"), ("8", "cm³", "8 cubic cm"),
])
def test_equivalent_units_are_converted(key, units, answer):
    assert ok(num(key, units=units), answer), (key, units, answer)


@pytest.mark.parametrize("answer", ["1e999 km/h", "1e999x", "-1e999 km/h"])
def test_a_number_too_large_to_convert_to_the_key_s_units_is_said_so_not_an_error(answer):
    r = mark_answer(num("12.5", units="m/s"), answer)
    assert not r.correct and not r.valid and r.refused is None
    assert r.feedback == "That number is too large or too small to mark.", r.feedback
    tiny = mark_answer(num("12.5", units="m/s"), "1e-999 km/h")   # converts to nothing: simply wrong
    assert tiny.valid and not tiny.correct and tiny.feedback.startswith("Your answer needs to be within")


def test_units_feedback_separates_number_from_units():
    spec = num("9.81", units="m/s^2")
    r = mark_answer(spec, "9.81")
    assert not r.correct and r.feedback == "Your number is right, but give the units (m/s^2)."
    r = mark_answer(spec, "9.81 m/s")
    assert not r.correct and "units are wrong" in r.feedback and "number is right" in r.feedback
    r = mark_answer(spec, "8.1 m/s^2")
    assert not r.correct and r.feedback.startswith("Your answer needs to be within")
    r = mark_answer(num("12", units="km"), "12 KM")
    assert not r.valid and r.feedback == "'KM' is not a unit; unit symbols are case sensitive: did you mean km or kM?"


def test_exact_units_when_the_question_asks_for_them():
    spec = num("0.4", units="l", units_exact=True)
    assert ok(spec, "0.4 l")
    r = mark_answer(spec, "400 ml")
    assert not r.correct and r.feedback == "Equivalent, but give the answer in l."


def test_units_in_the_key_and_pi_in_the_number():
    assert ok(MarkingSpec("numeric_tolerance", "12.3*m/s"), "12.3 m/s")
    assert not ok(MarkingSpec("numeric_tolerance", "12.3*m/s"), "12.3")
    assert ok(MarkingSpec("numeric_tolerance", "(15/pi)*kN/mm^2", tolerance_relative=0.01), "15/pi kN/mm^2")
    assert ok(num("4.77", units="kN/mm^2", tolerance_relative=0.01), "15/pi kN/mm^2")


def test_money_percentages_and_degrees_need_no_unit():
    assert ok(num("18247.60", units="£"), "18247.60") and ok(num("18247.60", units="£"), "£18247.60")
    assert ok(num("12", units="%"), "12%")


@pytest.mark.parametrize("method, key, answer, right", [
    ("exact_match", "hello", "hello", True), ("exact_match", "hello", "Hello", False),
    ("exact_match", "Na", "NA", False), ("exact_match", "Carbon dioxide", "carbon dioxide", True),
    ("short_text", "Hello", "hello", True), ("short_text", "Hello", "hel lo", False),
    ("short_text", "x = 2, y = -8", "x=2,y=-8", True),
])
def test_strings(method, key, answer, right):
    assert ok(MarkingSpec(method, key), answer) is right


def test_a_rounded_decimal_of_a_fraction_key_is_right_unless_a_fraction_is_asked_for():
    assert ok(MarkingSpec("exact_match", "-32/9"), "-3.5556") and ok(MarkingSpec("exact_match", "-32/9"), "-3.56")
    assert not ok(MarkingSpec("exact_match", "-32/9"), "-3.5")
    r = mark_answer(MarkingSpec("exact_match", "-32/9", required_form="fraction"), "-3.5556")
    assert not r.correct and r.feedback == "Your value is right, but give your answer as a fraction."


def test_an_absolute_tolerance_may_carry_units():
    spec = num("-123", units="kJ", tolerance_absolute="5 kJ")
    assert ok(spec, "-126000 J") and not ok(spec, "-129000 J")
    assert ok(num("1.2", units="kg", tolerance_absolute="100 g"), "1.1 kg")
    with pytest.raises(MarkingSpecError):
        num("1.2", units="kg", tolerance_absolute="100 s")


@pytest.mark.parametrize("key, units, answer", [
    ("2500", "Ω", "2.5 kΩ"), ("0.0025", "Ω", "2.5 mΩ"),                 # a prefixed ohm is one unit
    ("4180", "J kg^-1 °C^-1", "4180 J/kg°C"), ("4180", "J kg^-1 °C^-1", "4180 J/kg °C"),  # all below the line
    ("200000", "Pa", "2.0 x 10^5 Pa"), ("200000", "Pa", "2.0 X 10^5 Pa"),    # "times" written with the letter x
    ("3.5", "A", "3.5 amps"), ("3.5", "A", "3.5 Amps"),                   # not attometres per second
    ("24", "kg m s^-1", "24 kg m/s"), ("9.8", "m s^-2", "9.8 m/s/s"), ("0.5", "m", "1/2 m"),
])
def test_units_as_students_write_them_are_read_as_meant(key, units, answer):
    r = mark_answer(num(key, units=units), answer)
    assert r.correct, r.feedback


@pytest.mark.parametrize("answer", ["×500", "x500", "x 500", "X500"])
def test_a_magnification_written_with_times_first_is_the_number(answer):
    assert mark_answer(num("500"), answer).correct


@pytest.mark.parametrize("units, tolerance, answer, said", [
    ("cm^3", 1, "1500 cm^3", "within 1 cm³ of the right value"),
    ("m/s^2", 0.1, "8.1 m/s^2", "within 0.1 m/s² of the right value"),
    ("°", 0.5, "40°", "within 0.5° of the right value"),
])
def test_how_close_an_answer_must_be_is_written_as_a_student_reads_units(units, tolerance, answer, said):
    r = mark_answer(num("37.7" if units != "°" else "61", units=units, tolerance_absolute=tolerance), answer)
    assert not r.correct and r.feedback == f"Your answer needs to be {said}."
