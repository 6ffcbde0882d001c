"""Hostile blueprints: each is refused by `validate` quickly, within bounded memory, in one line naming the field.

Every file here would, before it was bounded, have frozen the server, filled
its memory or crashed with a traceback: text handed to the fraction helpers,
huge '%' and format widths, vast parameter ranges, collections that nest into
billions of entries, slow or rarely true constraints, YAML nested ten
thousand deep or expanding aliases, and wrong types anywhere. Each runs
through the real command in its own process, limited to 2 GB of address
space, and must exit non-zero within 30 s with no traceback, printing a line
`file:line: field: message` for the field at fault. The cheapest refusals
(a count or a type checked by the schema) run the same command in this
process instead, to keep the suite quick; each file is validated on its own (`--standalone`: no
library to cross-check it against).
"""
from __future__ import annotations

import concurrent.futures
import contextlib
import io
import os
import re
import resource
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MEMORY_LIMIT = 2 * 1024 ** 3
TIME_LIMIT_S = 30.0
WORKERS = 3


def skill(params: str = "a: {type: integer, min: 1, max: 9}", answer: str = '"a + 1"', constraints: tuple = (),
          computed: dict | None = None, tables: dict | None = None, stems: tuple = ('"What is {a} + 1?"',),
          answer_type: str = "integer", method: str = "numeric_tolerance", levels: str | None = None,
          presentation: str = "", item_type: str = "numeric") -> str:
    """A small skill blueprint with the given parts written in (YAML text)."""
    listed = "".join(f"\n          - {c}" for c in constraints) or " []"
    extra = ""
    if tables:
        extra += "\n  tables:" + "".join(f"\n    {k}: {v}" for k, v in tables.items())
    if computed:
        extra += "\n  computed_values:" + "".join(f"\n    {k}: {v}" for k, v in computed.items())
    levels = levels or f"\n    easy:\n      value: 0.3\n      constraints:{listed}"
    return (f'skill_id: "TEST.HOSTILE"\nversion: "1.0"\nmetadata:\n  domain: "Mathematics"\n'
            f'  skill_statement: "Hostile"\ngeneration:\n  item_type: {item_type}\n  parameters:\n    {params}{extra}\n'
            f'  answer_formula: {answer}\n  answer_type: {answer_type}\n  difficulty_levels:{levels}\n'
            f'presentation:\n  stem_templates: [{", ".join(stems)}]{presentation}\n'
            f'evaluation:\n  method: {method}\n')


def text_skill(answer: str, **kw) -> str:
    return skill(answer=answer, answer_type="string", method="exact_match", item_type="short_text", **kw)


def levels(n: int, constraint: str) -> str:
    return "".join(f'\n    l{i}:\n      value: 0.5\n      constraints: ["{constraint}"]' for i in range(n))


def nested_yaml(depth: int) -> str:
    return "".join(f"{'  ' * i}k{i}:\n" for i in range(depth)) + "  " * depth + "x: 1\n"


BILLION_LAUGHS = 'skill_id: "X.Y"\na: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{n}: &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcdefgh", "bcdefghi"))

ASSESSMENT = textwrap.dedent("""\
    assessment_id: "TEST-HOSTILE"
    version: "1.0"
    metadata: {title: "Test"}
    configuration: {total_items: TOTAL, time_limit_minutes: MINUTES, passing_score_percent: 50}
    sections:
      - section_id: "s1"
        title: "Section 1"
        item_count: TOTAL
        skill_blueprints: [{skill_id: "MATH.ARITH.ADD.2DIGIT", weight: 1}]
        difficulty_distribution: {easy: TOTAL}
    scoring:
      grade_bands: [{label: "Pass", min_percent: 50}, {label: "Fail", min_percent: 0}]
    """)

SPEC = textwrap.dedent("""\
    spec_id: "TEST-HOSTILE-SPEC"
    subject: "Mathematics"
    level: "Hostile"
    outcomes: [{id: "T-01", label: "Add", weight: 1}]
    assessment_structure:
      - {section: "Paper 1", outcome_ids: ["T-01"], marks: MARKS, calculator_allowed: false, time_allowed_minutes: 20}
    """)

SLOW = " and ".join(["is_prime(999999936 + a // a)"] * 12)     # reads a name: not worked out once when compiled
BIG = "{type: integer, min: 1, max: 999999}"

# name -> (file text, the field the message must name, words the message must contain)
CASES: dict[str, tuple[str, str, str]] = {
    # --- the fraction helpers given text (C code no deadline can interrupt)
    "numerator_text": (skill(answer='"numerator(\'1e99999999\')"'), "generation.answer_formula", "not text"),
    "numerator_behind_rare_condition": (
        skill(params="a: {type: integer, min: 1, max: 500}", answer='"numerator(\'1e99999999\') if a == 377 else a"'),
        "generation.answer_formula", "fails whatever the values"),
    "numerator_of_table_text_behind_rare_condition": (
        skill(params="a: {type: integer, min: 1, max: 500}", tables={"t": '{x: "1e99999999"}'},
              computed={"u": '"t[\'x\']"'}, answer='"numerator(u) if a == 377 else a"'),
        "generation.answer_formula", "fails whatever the values"),
    "denominator_in_constraint": (skill(constraints=['"denominator(\'1e-99999999\') > 0"']),
                                  "generation.difficulty_levels.easy.constraints[0]", "not text"),
    "frac_str_in_computed_value": (skill(computed={"f": '"frac_str(\'1e99999999\')"'}, answer='"a"'),
                                   "generation.computed_values.f", "not text"),
    "mixed_str_in_distractor": (
        skill(answer='"a"', item_type="multiple_choice", method="mcq",
              presentation='\n  option_count: 2\n  distractor_strategies:\n    - {type: t, formula: "mixed_str(\'1/3\')"}'),
        "presentation.distractor_strategies[0].formula", "not text"),
    "numerator_of_text_parameter": (skill(params='a: {type: choice, values: ["1e99999999", "2"]}', answer='"numerator(a)"'),
                                    "generation.answer_formula", "not text"),
    # --- widths and repetition that ask C code for gigabytes
    "percent_width": (text_skill('"\'%0999999999d\' % a"'), "generation.answer_formula", "width"),
    "percent_star_width": (text_skill('"\'%*d\' % (999999999, a)"'), "generation.answer_formula", "'*'"),
    "percent_precision": (text_skill('"\'%.999999999f\' % a"'), "generation.answer_formula", "precision"),
    "percent_width_from_parameter": (text_skill('"(\'%0\' + str(a * 111111111) + \'d\') % a"'),
                                     "generation.answer_formula", "width"),
    "fstring_width": (text_skill('"f\'{a:0999999999}\'"'), "generation.answer_formula", "format spec"),
    "template_width": (skill(stems=('"What is {a:0999999999}?"',)), "presentation.stem_templates[0]", "format spec"),
    "string_repetition": (text_skill('"\'ab\' * (a * 10 ** 8)"'), "generation.answer_formula", "too long"),
    "power_tower": (skill(answer='"a ** 10 ** 10"'), "generation.answer_formula", "exponent too large"),
    "power_of_parameter": (skill(params="a: {type: integer, min: 2, max: 9}", answer='"a ** (a * 1000)"'),
                           "generation.answer_formula", "too large"),
    "negative_power_of_fraction": (skill(answer='"fraction(1, 3) ** -(a * 1000)"'),
                                   "generation.answer_formula", "too large"),
    "factorial": (skill(answer='"factorial(a * 10 ** 6)"'), "generation.answer_formula", "factorial"),
    "combinations": (skill(answer='"comb(a * 10 ** 9, 5)"'), "generation.answer_formula", "comb"),
    "nested_list_equality": (
        skill(computed={"l1": '"[a] * 1000"', "l2": '"[a + 0] * 1000"', "m1": '"[l1] * 1000"', "m2": '"[l2] * 1000"'},
              answer='"1 if m1 == m2 else 2"'),
        "generation.computed_values.m1", "collection too large"),
    "nested_list_printed": (skill(computed={"l1": '"[str(a) * 5000] * 100"', "m1": '"[l1] * 100"'}, answer='"len(str(m1))"'),
                            "generation.computed_values.l1", "collection too large"),
    "fraction_sum_growth": (
        skill(computed={"l": '"[fraction(1, 2 ** 1000 + a), fraction(1, 2 ** 1000 + a + 2), fraction(1, 2 ** 999 + 1)]"'},
              answer='"float(sum(l))"'),
        "generation.answer_formula", "too large"),
    "deep_formula": (skill(answer='"' + "-(" * 90 + "a" + ")" * 90 + '"'), "generation.answer_formula", "nested too deeply"),
    "long_formula": (skill(answer='"a' + " + a" * 1000 + '"'), "generation.answer_formula", "too long"),
    # --- parameter space, listed values, counts and tables
    "huge_parameter_range": (skill(params="a: {type: integer, min: 0, max: 99999999}"), "generation.parameters.a", "range holds"),
    "huge_total_space": (skill(params=f"a: {BIG}\n    b: {BIG}\n    c: {BIG}"), "generation.parameters", "values between them"),
    "decimal_range_tiny_step": (skill(params="a: {type: decimal, min: -1.0e+300, max: 1.0e+300, step: 1.0e-300}"),
                                "generation.parameters.a", "range holds"),
    "infinite_bound": (skill(params="a: {type: integer, min: 1, max: .inf}"), "generation.parameters.a.max", "finite"),
    "nan_bound": (skill(params="a: {type: decimal, min: .nan, max: 1, step: 0.1}"), "generation.parameters.a.min", "finite"),
    "many_choice_values": (skill(params="a: {type: choice, values: [" + ", ".join(map(str, range(20_000))) + "]}"),
                           "generation.parameters.a.values", "at most"),
    "long_choice_text": (skill(params='a: {type: choice, values: ["' + "x" * 5000 + '"]}', answer='"1"'),
                         "generation.parameters.a.values[0]", "characters"),
    "many_parameters": (skill(params="\n    ".join(f"p{i}: {{type: integer, min: 1, max: 2}}" for i in range(60))
                              + "\n    a: {type: integer, min: 1, max: 9}"), "generation.parameters", "at most"),
    "many_levels": (skill(levels=levels(30, "a > 0")), "generation.difficulty_levels", "at most"),
    "many_distractors": (
        skill(answer='"a"', item_type="multiple_choice", method="mcq",
              presentation="\n  distractor_strategies:\n" + "".join(f'    - {{type: t{i}, formula: "a + {i + 1}"}}\n'
                                                                   for i in range(40))),
        "presentation.distractor_strategies", "at most"),
    "huge_table": (skill(tables={"t": "[" + ", ".join(map(str, range(5000))) + "]"}), "generation.tables.t", "entries"),
    "long_template": (skill(stems=('"What is {a}? ' + "x" * 6000 + '"',)), "presentation.stem_templates[0]", "at most"),
    # --- time: slow formulas, constraints that are slow or rarely true
    "slow_constraint": (skill(params=f"a: {BIG}\n    b: {BIG}", constraints=[f'"{SLOW} and a == b + 99999"']),
                        "generation.difficulty_levels.easy.constraints",
                        "constraints are met by too few parameter draws within the time allowed"),
    "rare_constraint": (skill(params=f"a: {BIG}\n    b: {BIG}",
                              constraints=['"a * 7 + b * 13 == 1234567 and a % 1000 == 1 and b % 1000 == 1"']),
                        "generation.difficulty_levels.easy.constraints", "constraints"),
    "slow_computed_values": (skill(computed={f"c{i}": f'"{SLOW} and a > {i}"' for i in range(60)}, answer='"a"'),
                             "generation.difficulty_levels.easy", "time allowed"),
    "slow_levels_use_up_the_file": (skill(params=f"a: {BIG}\n    b: {BIG}", levels=levels(6, f"{SLOW} and a == b + 99999")),
                                    "generation.difficulty_levels.l", "time allowed"),
    # --- YAML: depth, aliases, size, unreadable values
    "deep_flow_lists": ("skill_id: X.Y\nx: " + "[" * 10_000 + "]" * 10_000 + "\n", "x[0][0]", "nested too deeply"),
    "deep_block_mappings": ("skill_id: X.Y\n" + nested_yaml(120), "k0.k1.k2", "nested too deeply"),
    "billion_laughs": (BILLION_LAUGHS, "b[0]", "aliases"),
    "merge_key_alias": (skill().replace("metadata:\n", "base: &base {domain: x}\nmetadata:\n  <<: *base\n"),
                        "metadata.<<", "aliases"),
    "oversized_file": ("skill_id: X.Y\ndescription: " + "x" * 1_100_000 + "\n", "", "larger than"),
    "long_number": (skill(params="a: {type: integer, min: 1, max: " + "9" * 5000 + "}"), "generation.parameters.a.max",
                    "number written with more than"),
    "sexagesimal_number": (skill(params="a: {type: integer, min: 1, max: " + ":".join(["59"] * 100_000) + "}"),
                           "generation.parameters.a.max", "number written with more than"),
    "impossible_date": (skill().replace('version: "1.0"', "version: 2024-13-45"), "version", "cannot be read"),
    # --- wrong types anywhere
    "number_for_parameters": (skill(params="").replace("  parameters:\n    \n", "  parameters: 5\n"),
                              "generation.parameters", "dictionary"),
    "list_for_levels": (skill(levels=" [1, 2]"), "generation.difficulty_levels", "dictionary"),
    "number_for_stems": (skill().replace('stem_templates: ["What is {a} + 1?"]', "stem_templates: 7"),
                         "presentation.stem_templates", "list"),
    "mapping_for_constraints": (skill(levels="\n    easy: {value: 0.3, constraints: {a: 1}}"),
                                "generation.difficulty_levels.easy.constraints", "list"),
    "text_for_metadata": (skill().replace('metadata:\n  domain: "Mathematics"\n  skill_statement: "Hostile"\n',
                                          'metadata: "none"\n'), "metadata", "dictionary"),
    # --- assessments and course specs
    "assessment_items": (ASSESSMENT.replace("TOTAL", "1000000000").replace("MINUTES", "10"),
                         "configuration.total_items", "less than or equal"),
    "assessment_minutes": (ASSESSMENT.replace("TOTAL", "4").replace("MINUTES", "1.0e+300"),
                           "configuration.time_limit_minutes", "less than or equal"),
    "spec_marks": (SPEC.replace("MARKS", "1000000000000"), "assessment_structure[0].marks", "less than or equal"),
}


# Refused by the schema before any formula runs: checked in this process.
IN_PROCESS = {"many_parameters", "many_levels", "many_distractors", "long_template", "long_choice_text",
              "number_for_stems", "mapping_for_constraints", "text_for_metadata", "list_for_levels",
              "assessment_minutes", "nan_bound", "infinite_bound", "many_choice_values", "impossible_date"}


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _validate(path: Path) -> tuple[int, float, str]:
    start = time.perf_counter()
    env = {k: v for k, v in os.environ.items() if k != "WORKBENCH_BLUEPRINTS"}
    try:
        done = subprocess.run([sys.executable, "-m", "core", "validate", "--standalone", str(path)], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=TIME_LIMIT_S * 2, preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        return -1, time.perf_counter() - start, "(timed out)"
    return done.returncode, time.perf_counter() - start, done.stdout + done.stderr


def _validate_here(path: Path) -> tuple[int, float, str]:
    from core.cli import main
    start = time.perf_counter()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["validate", "--standalone", str(path)])
    return code, time.perf_counter() - start, out.getvalue() + err.getvalue()


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> dict[str, tuple[int, float, str]]:
    """Every hostile file validated: most in their own processes, a few at a time; the cheapest here."""
    folder = tmp_path_factory.mktemp("hostile")
    paths = {}
    for name, (text, _, _) in CASES.items():
        paths[name] = folder / f"{name}.yaml"
        paths[name].write_text(text, encoding="utf-8")
    # The ones that run into a time budget first, so the pool is not left waiting on them at the end.
    separate = sorted((name for name in CASES if name not in IN_PROCESS),
                      key=lambda name: not name.startswith(("slow", "rare")))
    with concurrent.futures.ThreadPoolExecutor(WORKERS) as pool:
        runs = dict(zip(separate, pool.map(_validate, [paths[name] for name in separate])))
    runs.update({name: _validate_here(paths[name]) for name in IN_PROCESS})
    return runs


def test_corpus_is_large_enough():
    assert len(CASES) >= 40
    assert len(CASES) - len(IN_PROCESS) >= 40, "most hostile files must run through the command in a process of their own"


@pytest.mark.parametrize("name", list(CASES))
def test_hostile_blueprint_is_refused(results, name):
    _, field, words = CASES[name]
    code, elapsed, output = results[name]
    assert "Traceback" not in output, output[-3000:]
    assert code not in (0, -1), f"{name}: exit {code}\n{output[-2000:]}"
    assert elapsed < TIME_LIMIT_S, f"{name} took {elapsed:.1f}s"
    # The problem is one line: "file:line: field: message" (or "file: message" for the file itself).
    lines = [line.strip() for line in output.splitlines() if f"{name}.yaml" in line and "FAIL" not in line
             and words in line]
    assert lines, f"{name}: no line with {words!r}\n{output[-2000:]}"
    if field:
        assert any(re.search(rf"\.yaml(:\d+)?: {re.escape(field)}", line) for line in lines), \
            f"{name}: no line naming {field!r}\n{output[-2000:]}"
