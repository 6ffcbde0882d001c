"""The bounds behind hostile blueprints: helpers that check types, sizes checked before C code runs, time budgets,
a YAML reader that never recurses on the file's nesting, and schema limits that name the field."""
from __future__ import annotations

import textwrap
import time
from fractions import Fraction
from pathlib import Path

import pytest

from core.blueprints import helpers
from core.blueprints import library as library_module
from core.blueprints.formula import (FormulaError, TimeBudgetExceeded, check_time_budget, compile_formula, safe_eval,
                                     time_budget)
from core.blueprints.library import check_skill
from core.blueprints.loader import BlueprintError, Issue, load_file, parse_text
from tests.blueprints.test_blueprints import SKILL


def refused(expression: str, env: dict | None = None) -> str:
    start = time.perf_counter()
    with pytest.raises(FormulaError) as info:
        safe_eval(expression, env or {"a": 3, "t": {"a(b)": 1}, "s": "1e99999999"})
    assert time.perf_counter() - start < 1.0, expression
    return info.value.message


def issues(text: str) -> list[Issue]:
    try:
        loaded = parse_text(text, "t.yaml")
    except BlueprintError as exc:
        return exc.issues
    return [i for i in check_skill(loaded)[1] if i.severity == "error"] if loaded.kind == "skill" else []


# --------------------------------------------------------------------------
# Helpers check their arguments before any work


@pytest.mark.parametrize("call", ["numerator(s)", "denominator(s)", "frac_str(s)", "mixed_str(s)",
                                  "frac_str(1, s)", "fmt(s, 2)", "sig(s, 2)", "dp(s, 1)", "digit(s, 0)",
                                  "signed(s)", "mean([s])", "stdev([1, s])", "poly([1, s])"])
def test_numeric_helpers_refuse_text(call):
    assert "not text" in refused(call)


def test_helpers_refuse_directly_too():
    for fn in (helpers.numerator, helpers.denominator, helpers.frac_str, helpers.mixed_str):
        with pytest.raises(ValueError, match="not text"):
            fn("1e99999999")
    with pytest.raises(ValueError, match="too large"):
        helpers.numerator(Fraction(1, 2 ** 2000))
    with pytest.raises(ValueError, match="denominator must not be zero"):
        helpers.frac_str(1, 0)
    assert helpers.frac_str(6, 8) == "3/4" and helpers.mixed_str(Fraction(7, 4)) == "1 3/4"
    assert helpers.numerator(0.75) == 3 and helpers.denominator(Fraction(3, 4)) == 4


def test_sums_of_fractions_stay_bounded():
    growing = "[fraction(1, 2 ** 1000 + a), fraction(1, 2 ** 1000 + a + 2)]"
    assert "too large" in refused(f"sum({growing})")
    assert "too large" in refused(f"mean({growing})")
    assert safe_eval("sum([fraction(1, 3), fraction(1, 6)])") == Fraction(1, 2)
    assert safe_eval("mean([1, 2, 3])") == 2.0 and safe_eval("sum([10 ** 300] * 999)") == 999 * 10 ** 300


# --------------------------------------------------------------------------
# Operators that would ask C code for gigabytes


@pytest.mark.parametrize("expression, words", [
    ("'%0999999999d' % a", "width too large"),
    ("'%.999999999f' % a", "precision too large"),
    ("'%*d' % (999999999, a)", "'*'"),
    ("'%.*f' % (999999999, a)", "'*'"),
    ("'%(a(b))0999999d' % t", "brackets"),
    ("('%0' + str(a * 111111111) + 'd') % a", "width too large"),
])
def test_percent_formatting_widths_are_bounded(expression, words):
    assert words in refused(expression)


def test_ordinary_percent_formatting_works():
    assert safe_eval("'%5.2f|%-4d|%s|%%09d' % (x, 7, 'ab')", {"x": 3.14159}) == " 3.14|7   |ab|%09d"
    assert safe_eval("'%(v)03d' % t", {"t": {"v": 7}}) == "007"
    assert safe_eval("17 % 5") == 2


@pytest.mark.parametrize("expression, words", [
    ("[[a] * 1000] * 1000", "collection too large"),
    ("str([[a] * 100] * 101)", "collection too large"),
    ("[['x' * 5000] * 10] * 3", "characters of text"),
    ("[l, l, l, l, l, l, l, l, l, l, l]", "collection too large"),
    ("fraction(1, 3) ** -(a * 1000)", "power too large"),
    ("a ** 10 ** 10", "exponent too large"),
    ("perm(1000, 1000)", "too large"),
    ("comb(10, 2.5)", "k must be an integer"),
    ("float('1' * 300)", "text too long"),
])
def test_sizes_are_checked_before_the_work(expression, words):
    env = {"a": 3, "l": [[1] * 1000]}
    assert words in refused(expression, env)


def test_nesting_depth_is_bounded():
    deep: list = [1]
    for _ in range(40):
        deep = [deep]
    assert "nested too deeply" in refused("str(x)", {"x": deep})


def test_the_evaluator_offers_only_the_formula_functions():
    for name in ("list", "dict", "set", "tuple"):
        with pytest.raises(FormulaError, match="has no value here|unknown name"):
            compile_formula(name).evaluate({})


# --------------------------------------------------------------------------
# Parts that read no name are worked out once, when compiled


def test_a_failing_part_behind_a_rare_condition_is_refused_when_compiled():
    with pytest.raises(FormulaError, match="fails whatever the values.*not text"):
        compile_formula("numerator('1e99999999') if a == 377 else a", {"a"})
    with pytest.raises(FormulaError, match="fails whatever the values.*exponent too large"):
        compile_formula("9 ** 9 ** 9 if a > 1000 else a", {"a"})
    assert compile_formula("2 ** 10 + a if a else sqrt(2)", {"a"}).evaluate({"a": 1}) == 1025


def test_values_from_tables_and_constant_computed_values_are_worked_out_too():
    tables = "  tables:\n    t: {x: \"1e99999999\", y: 2}\n"
    for computed, formula in (("", "numerator(t['x'])"), ("  computed_values:\n    u: \"t['x']\"\n", "numerator(u)"),
                              ("  computed_values:\n    s: \"'1e9' * 1\"\n", "frac_str(s)")):
        text = SKILL.replace('  answer_formula: "a + b"',
                             f'{tables}{computed}  answer_formula: "{formula} if a == 7 and b == 3 else a + b"')
        found = issues(text)
        assert found and found[0].path == "generation.answer_formula" and "not text" in found[0].message, found
    fine = SKILL.replace('  answer_formula: "a + b"', f'{tables}  answer_formula: "t[\'y\'] * a + b"')
    assert issues(fine) == []


def test_checking_constant_parts_has_a_time_limit():
    slow = "[" + ", ".join(["surd_simplify(999999937)"] * 70) + "]"
    start = time.perf_counter()
    with time_budget(0.05):
        with pytest.raises(FormulaError, match="took longer than the time allowed"):
            compile_formula(slow)
    assert time.perf_counter() - start < 1.0


# --------------------------------------------------------------------------
# Time budgets for tasks of many evaluations


def test_a_time_budget_stops_every_evaluation_in_the_task():
    f = compile_formula("a + 1", {"a"})
    with time_budget(0.02):
        time.sleep(0.03)
        with pytest.raises(TimeBudgetExceeded) as info:
            f.evaluate({"a": 1})
        assert not isinstance(info.value, FormulaError) and info.value.seconds == 0.02
        with pytest.raises(TimeBudgetExceeded):
            check_time_budget()
    assert f.evaluate({"a": 1}) == 2       # the budget ends with its block
    check_time_budget()


def test_budgets_nest_and_never_outlast_the_outer_one():
    f = compile_formula("a", {"a"})
    with time_budget(0.02):
        with time_budget(60):
            time.sleep(0.03)
            with pytest.raises(TimeBudgetExceeded) as info:
                f.evaluate({"a": 1})
    assert info.value.seconds == 0.02


def test_validation_reports_slow_constraints_within_the_level_budget(monkeypatch):
    monkeypatch.setattr(library_module, "LEVEL_BUDGET_S", 0.5)
    slow = " and ".join(["surd_simplify(999999936 + a // a) == '999999937'"] * 3)
    text = SKILL.replace("a: {type: integer, min: 1, max: 9}", "a: {type: integer, min: 1, max: 99999}") \
                .replace("b: {type: integer, min: 1, max: 9}", "b: {type: integer, min: 1, max: 99999}") \
                .replace('"a + b < 10"', f'"{slow} and a == b + 99998"')
    start = time.perf_counter()
    found = issues(text)
    assert time.perf_counter() - start < 8
    easy = [i for i in found if i.path.startswith("generation.difficulty_levels.easy")]
    assert easy and "level easy: constraints are met by too few parameter draws within the time allowed" \
        in easy[0].message
    assert easy[0].path == "generation.difficulty_levels.easy.constraints"


def test_validation_stops_when_the_file_budget_is_used_up(monkeypatch):
    monkeypatch.setattr(library_module, "LEVEL_BUDGET_S", 0.3)
    monkeypatch.setattr(library_module, "FILE_BUDGET_S", 0.5)
    slow = "surd_simplify(999999936 + a // a) != '' and a == b + 98"
    more = "".join(f'\n    l{i}:\n      value: 0.5\n      constraints: ["{slow}"]' for i in range(4))
    text = SKILL.replace("a: {type: integer, min: 1, max: 9}", "a: {type: integer, min: 1, max: 999}") \
                .replace("b: {type: integer, min: 1, max: 9}", "b: {type: integer, min: 1, max: 999}") \
                .replace("  difficulty_levels:\n", "  difficulty_levels:" + more + "\n")
    start = time.perf_counter()
    found = issues(text)
    assert time.perf_counter() - start < 5
    assert any("not checked, the time allowed for this file" in i.message for i in found), found


# --------------------------------------------------------------------------
# Reading YAML: no recursion on the file's nesting, no aliases, bounded numbers, one line per problem


def test_very_deep_nesting_is_refused_before_anything_recurses():
    # libyaml's composer would crash the process (not raise) on this.
    found = issues("skill_id: X.Y\nx: " + "[" * 100_000 + "]" * 100_000 + "\n")
    assert "nested too deeply" in found[0].message and found[0].path.startswith("x[0][0]")


def test_aliases_are_refused_at_their_field():
    laughs = "skill_id: X.Y\na: &a [1, 2]\nb:\n  c: [*a, *a]\n"
    found = issues(laughs)
    assert len(found) == 1 and found[0].path == "b.c[0]" and found[0].line == 4 and "aliases" in found[0].message


def test_long_numbers_and_unreadable_values_are_refused_at_their_field():
    found = issues(SKILL.replace("max: 9}", "max: " + "9" * 500 + "}", 1))
    assert found[0].path == "generation.parameters.a.max" and "more than 100 characters" in found[0].message
    found = issues(SKILL.replace('version: "1.0"', "version: 2024-02-30"))
    assert found[0].path == "version" and "cannot be read" in found[0].message


def test_every_problem_prints_on_one_short_line():
    found = issues(SKILL.replace('"a + b < 10"', '"(a +\\n b) < 10 and ' + "nope " * 500 + '"'))
    assert found and all("\n" not in str(i) and len(str(i)) <= 1000 for i in found)
    found = issues(SKILL.replace('version: "1.0"', "version: [" + ", ".join(["1"] * 5000) + "]"))
    assert "got [1, 1, 1" in found[0].message and len(found[0].message) < 200


def test_files_that_are_not_regular_are_not_read():
    if not Path("/dev/zero").exists():
        pytest.skip("no /dev/zero here")
    with pytest.raises(BlueprintError, match="not a regular file"):
        load_file("/dev/zero")


# --------------------------------------------------------------------------
# Schema limits name the field


@pytest.mark.parametrize("old, new, path, words", [
    ("a: {type: integer, min: 1, max: 9}", "a: {type: integer, min: 1, max: 99999999}", "generation.parameters.a",
     "at most 1,000,000"),
    ("a: {type: integer, min: 1, max: 9}", "a: {type: integer, min: 1, max: 999999}\n    c: {type: integer, min: 1, max: 999999}"
     "\n    d: {type: integer, min: 1, max: 999999}", "generation.parameters", "values between them"),
    ("a: {type: integer, min: 1, max: 9}", "a: {type: decimal, min: -1.0e+300, max: 1.0e+300, step: 1.0e-300}",
     "generation.parameters.a", "more than 10^15"),
    ("a: {type: integer, min: 1, max: 9}", "a: {type: integer, min: 1, max: .inf}", "generation.parameters.a.max", "finite"),
    ("a: {type: integer, min: 1, max: 9}", 'a: {type: choice, values: ["' + "x" * 2000 + '"]}',
     "generation.parameters.a.values[0]", "at most 1,000"),
    ("  answer_formula:", "  tables:\n    t: [" + ", ".join(["1"] * 2000) + "]\n  answer_formula:", "generation.tables.t",
     "2,000 entries"),
    ("  answer_formula:", "  tables:\n    t: [" + ", ".join(['"' + "x" * 200 + '"'] * 900) + "]\n  answer_formula:",
     "generation.tables.t", "characters of text"),
])
def test_schema_limits_name_the_field(old, new, path, words):
    found = issues(SKILL.replace(old, new, 1))
    assert found and found[0].path == path and words in found[0].message, found


def test_the_shipped_library_is_well_within_the_limits(library):
    assert library.report.ok
    for loaded in library.skills.values():
        g = loaded.model.generation
        assert sum(spec.raw_count() for spec in g.parameters.values()) < 100_000, loaded.id


def test_the_level_budget_is_far_above_the_shipped_library(library):
    # The slowest shipped level takes well under a second: the budget leaves room for a slow machine.
    assert library_module.LEVEL_BUDGET_S >= 5 and library_module.FILE_BUDGET_S >= 2 * library_module.LEVEL_BUDGET_S
    text = textwrap.dedent(SKILL)
    assert issues(text) == []
