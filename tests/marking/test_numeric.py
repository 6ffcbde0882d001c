"""Marking by numeric_tolerance: numbers as written, tolerance, units, significant figures."""
from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

import pytest

from core.marking import mark_answer
from tests.marking.helpers import crit, num, ok


@pytest.mark.parametrize("answer, right", [
    ("100", True), ("102", True), ("98", True),           # exactly 2% away is inside
    ("102.01", False), ("97.99", False), ("101.999", True), ("103", False),
])
def test_default_tolerance_is_two_percent(answer, right):
    r = mark_answer(num("100"), answer)
    assert r.correct is right
    if not right:
        assert r.feedback == "Your answer needs to be within 2% of the right value."


def test_tolerance_edges_are_exact_not_float():
    # 2.5 ± 2% is [2.45, 2.55]; in binary floats 2.55 - 2.5 > 0.05, decimals must be compared exactly.
    spec = num("2.5")
    assert ok(spec, "2.55") and ok(spec, "2.45")
    assert not ok(spec, "2.5501") and not ok(spec, "2.4499")


def test_relative_tolerance_given():
    spec = num("50", tolerance_relative=0.05)            # ±2.5
    assert ok(spec, "52.5") and ok(spec, "47.5") and not ok(spec, "52.51")
    assert mark_answer(spec, "60").feedback == "Your answer needs to be within 5% of the right value."


def test_absolute_tolerance():
    spec = num("12.50", tolerance_absolute=0.01, units="£")
    for answer in ["12.50", "12.5", "£12.50", "12.51", "12.49", "£ 12.51"]:
        assert ok(spec, answer), answer
    for answer in ["12.52", "12.515", "12.48", "1250"]:
        assert not ok(spec, answer), answer
    assert mark_answer(spec, "12.6").feedback == "Your answer needs to be within 0.01 of the right value."


def test_both_tolerances_accept_within_either():
    spec = num("1000", tolerance_relative=0.01, tolerance_absolute=0.5)    # ±10 or ±0.5
    assert ok(spec, "1010") and not ok(spec, "1010.5")
    assert mark_answer(spec, "1011").feedback == "Your answer needs to be within 0.5 or 1% of the right value."


def test_zero_key_with_relative_tolerance_needs_zero():
    assert ok(num("0"), "0") and ok(num("0"), "-0.0") and not ok(num("0"), "0.001")


@pytest.mark.parametrize("answer", ["1.75", "1 3/4", "7/4", "+1.75", "1.750", r"\frac{7}{4}", "(7)/(4)", "3.5/2"])
def test_numeric_forms_of_one_and_three_quarters(answer):
    r = mark_answer(num("1.75", tolerance_absolute=0.001), answer)
    assert r.correct and r.normalised_answer == "1.75"


def test_negative_mixed_numbers_and_unicode_minus():
    spec = num("-1.75", tolerance_absolute=0.001)
    assert ok(spec, "-1 3/4") and ok(spec, "−1.75") and ok(spec, "−7/4") and not ok(spec, "1.75")
    assert not ok(spec, "-1 3/5")


@pytest.mark.parametrize("answer, key", [("1¾", "1.75"), ("1 ¾", "1.75"), ("−1¾", "-1.75"), ("½", "0.5"),
                                         ("12½", "12.5"), ("⅞", "0.875"), ("2⅓", "7/3")])
def test_a_vulgar_fraction_after_a_whole_number_is_a_mixed_number(answer, key):
    """NFKC turns 1¾ into 13⁄4 (thirteen quarters); it is read as written by hand, 1 3/4."""
    r = mark_answer(num(key, tolerance_absolute=0.001), answer)
    assert r.correct, (answer, r.feedback, r.read_as)
    assert not ok(num("3.25", tolerance_absolute=0.001), "1¾")


def test_fraction_reads_as_decimal():
    r = mark_answer(num("0.2"), "1/5")
    assert r.correct and r.normalised_answer == "0.2"
    assert mark_answer(num("0.3333"), "1/3").normalised_answer == "0.3333333333"


@pytest.mark.parametrize("answer, key, latex", [("1/3", "1/3", r"\frac{1}{3}"), ("1 1/3", "4/3", r"1\frac{1}{3}"),
                                               ("-2 1/2", "-2.5", r"-2\frac{1}{2}"), ("2⅓", "7/3", r"2\frac{1}{3}"),
                                               ("½", "0.5", r"\frac{1}{2}"), ("5/2", "2.5", r"\frac{5}{2}"),
                                               ("3.5/2", "1.75", "1.75"), ("2.5", "2.5", "2.5")])
def test_a_fraction_or_mixed_number_is_shown_back_as_typed(answer, key, latex):
    """The read-back shows a third as a third, not 0.3333333333; the plain reading stays the decimal."""
    r = mark_answer(num(key, tolerance_absolute=0.001), answer)
    assert r.correct and r.read_as_latex == latex
    assert "frac" not in r.normalised_answer


@pytest.mark.parametrize("answer", ["3.2e-19", "3.2E-19", "3.2 e-19", "3.2 x 10^-19", "3.2x10^-19", "3.2×10^-19",
                                    "3.2 × 10^-19", "3.2 * 10**-19", "3.2*10^(-19)", "3.2 × 10⁻¹⁹",
                                    r"3.2 \times 10^{-19}", "32e-20", "0.00000000000000000032", "3.2e-19 J"])
def test_scientific_notation_forms(answer):
    assert ok(num("3.2e-19"), answer)


@pytest.mark.parametrize("answer", ["3.2e-18", "3.2 x 10^19", "3.2", "-3.2e-19"])
def test_scientific_notation_wrong(answer):
    assert not ok(num("3.2e-19"), answer)


def test_thousands_separators_and_signs():
    spec = num("1234.5", tolerance_absolute=0.01)
    assert ok(spec, "1,234.5") and ok(spec, "+1234.50") and not ok(spec, "1,2345")


@pytest.mark.parametrize("key, units, answer", [
    ("12", "m s^-1", "12 m/s"), ("12", "m s^-1", "12m s^-1"), ("12", "m s^-1", "12 m s-1"),
    ("12", "m s^-1", "12 ms^-1"), ("12", "m s^-1", "12 m·s⁻¹"), ("4.5", "J", "4.5 J"), ("30", "°", "30°"),
    ("78.5", "cm²", "78.5 cm^2"), ("78.5", "cm²", "78.5 cm²"), ("78.5", "cm²", "78.5cm2"),
    ("12", None, "12 m/s"), ("12", "m s^-1", "v = 12 m/s"),
])
def test_units_are_ignored_when_they_match(key, units, answer):
    r = mark_answer(num(key, units=units), answer)
    assert r.correct and r.feedback == "That's right.", r


def test_missing_units_cost_the_units_mark_and_say_so():
    r = mark_answer(num("12", units="m s^-1"), "12")
    assert not r.correct and r.valid and r.feedback == "Your number is right, but give the units (m/s)."


def test_other_units_are_converted_and_a_wrong_conversion_is_named():
    assert ok(num("12", units="m s^-1"), "43.2 km/h")
    r = mark_answer(num("12", units="m s^-1"), "12 km/h")
    assert not r.correct and r.feedback == "Your number would be right in m/s, but not in km/h: check the units."
    r = mark_answer(num("4.5", units="J"), "9 kJ")
    assert not r.correct and r.feedback == "Your answer needs to be within 2% of the right value."


def test_answers_in_multiples_of_a_power_of_ten():
    # Photon energies asked for "in units of 10^-19 J": 2.45 and 2.45 × 10^-19 J are both right.
    spec = num("2.45", units="× 10^-19 J")
    for answer in ["2.45", "2.45 × 10^-19 J", "2.45e-19", "2.45 x 10^-19"]:
        assert ok(spec, answer), answer
    assert not ok(spec, "2.45 × 10^-18 J")


def test_percentages_only_when_the_key_has_one():
    assert ok(num("12%"), "12%") and ok(num("12%"), "12") and ok(num("12%"), "12 %")
    r = mark_answer(num("12"), "12%")
    assert not r.correct and r.feedback == "Give the answer as a number, not a percentage."
    assert ok(num("12", units="%"), "12%")


def test_roots_and_latex_in_numeric_answers():
    assert ok(num("1.414", tolerance_absolute=0.001), "sqrt(2)")
    assert ok(num("1.414", tolerance_absolute=0.001), "√2")
    assert ok(num("1.414", tolerance_absolute=0.001), r"\sqrt{2}")
    assert ok(num("4.243", tolerance_absolute=0.001), "3√2")
    assert ok(num("0.5"), r"\frac{1}{2}") and ok(num("0.5"), r"$\dfrac{1}{2}$")


@pytest.mark.parametrize("answer, feedback", [
    ("twelve", "Could not read a number in your answer."),
    ("12 or 13", "Could not read a number in your answer."),
    ("1/0", "That fraction divides by zero."),
    ("nan", "That is not a number that can be marked."),
    ("-inf", "That is not a number that can be marked."),
    ("1e999999", "That number is too large or too small to mark."),
    ("9" * 101, "That number has too many digits to mark."),
    ("", "No answer given."),
    ("   ", "No answer given."),
])
def test_unreadable_numbers(answer, feedback):
    r = mark_answer(num("12"), answer)
    assert not r.correct and r.feedback == feedback and r.refused is None


def test_python_numbers_as_answers():
    assert ok(num("12"), 12) and ok(num("0.1"), 0.1) and ok(num("0.25"), Fraction(1, 4)) and ok(num("2.5"), Decimal("2.5"))
    assert not ok(num("12"), float("nan")) and not ok(num("12"), float("inf"))
    assert ok(num("1e300"), 1e300)


SF = dict(significant_figures=3)


@pytest.mark.parametrize("key, answer, right", [
    ("2.45", "2.45", True), ("2.45", "2.46", False), ("2.45", "2.450", False), ("2.45", "2.4", False),
    ("0.0245", "0.0245", True), ("0.0245", "2.45 x 10^-2", True), ("0.0245", "0.02450", False),
    ("1230", "1230", True), ("1230", "1.23e3", True), ("1230", "1.230e3", False), ("1230", "1230.0", False),
    ("2.45", "49/20", False),     # a fraction is not given to any number of significant figures
])
def test_significant_figures(key, answer, right):
    assert ok(num(key, **SF), answer) is right


def test_significant_figures_without_criteria_mark_wrong():
    r = mark_answer(num("2.45", significant_figures=3), "2.450")
    assert not r.correct and r.score == 0
    assert r.feedback == "Your value is right, but give it to 3 significant figures."
    r = mark_answer(num("2.45", significant_figures=3, tolerance_relative=0.02), "2.450")
    assert r.feedback == "Your value is close enough, but give it to 3 significant figures."


def test_significant_figures_cost_only_the_final_mark():
    spec = num("2.45", significant_figures=3, marks=3, partial_credit=True,
               criteria=crit(("equation_selection", 1), ("substitution", 1), ("calculation", 1)))
    r = mark_answer(spec, "2.4500")
    assert not r.correct and r.score == 2.0 and r.max_score == 3.0
    assert [c.awarded for c in r.criteria] == [1, 1, 0] and r.gap_tags == ["calculation"]
    # A criterion tagged as the communication mark is the one lost, wherever it is.
    spec = num("2.45", significant_figures=3, marks=3, partial_credit=True,
               criteria=crit(("substitution", 1), ("communication", 1), ("calculation", 1)))
    r = mark_answer(spec, "2.450")
    assert [c.met for c in r.criteria] == [True, False, True] and r.gap_tags == ["communication"]


def test_key_not_to_the_required_figures_does_not_bind_students_within_a_tolerance():
    spec = num("5.4", significant_figures=3, tolerance_relative=0.02)
    assert ok(spec, "5.4") and ok(spec, "5.40")
    # Without a tolerance the figures asked for are the rule: 5.4 is 2 s.f., 5.40 is 3.
    spec = num("5.4", significant_figures=3)
    assert ok(spec, "5.40") and not ok(spec, "5.4")


def test_numeric_misconception_is_the_nearest_within_tolerance():
    spec = num("2.45", misconceptions={"power_high": "24.5", "power_low": "0.245", "near": "25"})
    r = mark_answer(spec, "24.6")             # within 2% of both 24.5 and 25; 24.5 is nearer
    assert not r.correct and r.misconception == "power_high"
    assert mark_answer(spec, "0.245").misconception == "power_low"
    assert mark_answer(spec, "7").misconception is None


def test_a_wrong_answer_written_with_the_power_of_ten_asked_for_is_still_matched_to_its_mistake():
    # Asked for in units of 10^-19 J: "12.55 × 10^-19 J" is 12.55 of those units, the known slip.
    spec = num("4.54", units="× 10^-19 J", misconceptions={"gave_frequency": "12.55"})
    r = mark_answer(spec, "12.55 × 10^-19 J")
    assert not r.correct and r.misconception == "gave_frequency"
    assert mark_answer(spec, "4.54 × 10^-19 J").correct and mark_answer(spec, "4.54").correct
    assert mark_answer(spec, "1.255 × 10^-18 J").misconception is None   # another power: not that slip
