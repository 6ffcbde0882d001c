"""Blueprint loading and validation: bad files are reported precisely."""
from __future__ import annotations

import textwrap
from pathlib import Path


from core.blueprints.library import Library, check_skill
from core.blueprints.loader import BlueprintError, parse_text

SKILL = textwrap.dedent("""\
    skill_id: "TEST.ADD.SMALL"
    version: "1.0"
    metadata:
      domain: "Mathematics"
      skill_statement: "Add two small numbers"
    generation:
      item_type: "multiple_choice"
      parameters:
        a: {type: integer, min: 1, max: 9}
        b: {type: integer, min: 1, max: 9}
      answer_formula: "a + b"
      answer_type: integer
      difficulty_levels:
        easy:
          value: 0.2
          constraints:
            - "a + b < 10"
        hard:
          value: 0.6
          constraints:
            - "a + b >= 10"
    presentation:
      stem_templates:
        - "What is {a} + {b}?"
      option_count: 4
      distractor_strategies:
        - {type: plus_one, formula: "answer + 1"}
        - {type: minus_one, formula: "answer - 1"}
        - {type: plus_ten, formula: "answer + 10"}
        - {type: difference, formula: "abs(a - b)", condition: "a != b"}
      distractor_validation:
        - "distractor > 0"
    evaluation:
      method: "exact_match"
    """)

ASSESSMENT = textwrap.dedent("""\
    assessment_id: "TEST-ASSESS"
    version: "1.0"
    metadata:
      title: "Test"
    configuration:
      total_items: 4
      time_limit_minutes: 10
      passing_score_percent: 50
    sections:
      - section_id: "s1"
        title: "Section 1"
        item_count: 4
        skill_blueprints:
          - skill_id: "TEST.ADD.SMALL"
            weight: 1
        difficulty_distribution:
          easy: 2
          hard: 2
    scoring:
      method: "percent_correct"
      section_weights:
        s1: 1.0
      grade_bands:
        - {label: "Pass", min_percent: 50}
        - {label: "Fail", min_percent: 0}
    """)

SPEC = textwrap.dedent("""\
    spec_id: "TEST-SPEC"
    subject: "Mathematics"
    level: "Test Level"
    outcomes:
      - {id: "T-01", label: "Add", weight: 1}
    assessment_structure:
      - section: "Paper 1"
        outcome_ids: ["T-01"]
        marks: 10
        calculator_allowed: false
        time_allowed_minutes: 20
    """)


def issues_of(text: str, file: str = "t.yaml") -> list:
    try:
        loaded = parse_text(text, file)
    except BlueprintError as exc:
        return exc.issues
    if loaded.kind == "skill":
        return [i for i in check_skill(loaded)[1] if i.severity == "error"]
    return []


def one_issue(text: str):
    found = issues_of(text)
    assert found, "expected a validation error"
    return found[0]


def test_valid_skill_loads_and_generates():
    assert issues_of(SKILL) == []


def test_yaml_syntax_error_gives_the_line():
    issue = one_issue(SKILL.replace('answer_formula: "a + b"', 'answer_formula: "a + b'))
    assert issue.file == "t.yaml"
    assert issue.line is not None and issue.line >= 11
    assert "YAML syntax error" in issue.message


def test_wrong_type_names_field_line_and_expectation():
    issue = one_issue(SKILL.replace("min: 1, max: 9}\n    b:", "min: one, max: 9}\n    b:"))
    assert issue.path == "generation.parameters.a.min"
    assert issue.line == 9
    assert "valid number" in issue.message and "'one'" in issue.message


def test_misspelt_field_suggests_the_right_one():
    found = issues_of(SKILL.replace("stem_templates:", "stem_template:"))
    issue = next(i for i in found if i.path == "presentation.stem_template")
    assert any(i.path == "presentation.stem_templates" and "required" in i.message for i in found)
    assert "did you mean 'stem_templates'" in issue.message
    assert issue.line == 23


def test_missing_required_field():
    issue = one_issue(SKILL.replace('  answer_formula: "a + b"\n', ""))
    assert issue.path == "generation.answer_formula"
    assert "required" in issue.message


def test_bad_enum_value_lists_choices():
    issue = one_issue(SKILL.replace('item_type: "multiple_choice"', 'item_type: "essay"'))
    assert issue.path == "generation.item_type"
    assert "'multiple_choice'" in issue.message and "'essay'" in issue.message


def test_duplicate_key_and_alias_are_refused():
    issue = one_issue(SKILL.replace('version: "1.0"', 'version: "1.0"\nversion: "2.0"'))
    assert "duplicate key 'version'" in issue.message and issue.line == 3
    aliased = SKILL.replace("a: {type: integer, min: 1, max: 9}", "a: &p {type: integer, min: 1, max: 9}") \
                   .replace("b: {type: integer, min: 1, max: 9}", "b: *p")
    assert "aliases" in one_issue(aliased).message


def test_unknown_name_in_formula_names_the_path():
    issue = one_issue(SKILL.replace('answer_formula: "a + b"', 'answer_formula: "a + c"'))
    assert issue.path == "generation.answer_formula"
    assert "unknown name 'c'" in issue.message and issue.line == 11


def test_hostile_formula_in_constraint_is_refused_at_its_path():
    issue = one_issue(SKILL.replace('"a + b < 10"', '"a.__class__ == 1"'))
    assert issue.path == "generation.difficulty_levels.easy.constraints[0]"
    assert "attribute access" in issue.message


def test_stem_showing_the_answer_is_refused():
    issue = one_issue(SKILL.replace('"What is {a} + {b}?"', '"What is {a} + {b}? ({answer})"'))
    assert issue.path == "presentation.stem_templates[0]"
    assert "give it away" in issue.message


def test_format_string_attack_in_template_is_refused():
    issue = one_issue(SKILL.replace('"What is {a} + {b}?"', '"What is {a.__class__.__mro__} + {b}?"'))
    assert "plain name" in issue.message


def test_unsatisfiable_level_is_a_validation_error():
    issue = one_issue(SKILL.replace('"a + b >= 10"', '"a + b >= 30"'))
    assert issue.path == "generation.difficulty_levels.hard.constraints"
    assert "cannot be met" in issue.message and "hard" in issue.message


def test_options_that_cannot_be_filled_are_a_validation_error():
    text = SKILL.replace('distractor_validation:\n    - "distractor > 0"',
                         'distractor_validation:\n    - "distractor > 100"')
    issue = one_issue(text)
    assert issue.path == "presentation.distractor_strategies"
    assert "distinct" in issue.message


def test_too_few_strategies_for_option_count():
    issue = one_issue(SKILL.replace("option_count: 4", "option_count: 6"))
    assert issue.path == "presentation.distractor_strategies"
    assert "needs at least 5" in issue.message


def test_runtime_error_for_some_parameters_is_reported():
    issue = one_issue(SKILL.replace('answer_formula: "a + b"', 'answer_formula: "a + b + 10 // (a - 5)"'))
    assert "division by zero" in issue.message


def test_reserved_and_shadowing_names():
    text = SKILL.replace("    b: {type: integer, min: 1, max: 9}\n",
                         "    b: {type: integer, min: 1, max: 9}\n    answer: {type: integer, min: 1, max: 2}\n")
    assert "reserved" in one_issue(text).message


def test_parameter_range_checks():
    issue = one_issue(SKILL.replace("a: {type: integer, min: 1, max: 9}", "a: {type: integer, min: 9, max: 1}"))
    assert issue.path == "generation.parameters.a" and "greater than" in issue.message
    issue = one_issue(SKILL.replace("a: {type: integer, min: 1, max: 9}", "a: {type: decimal, min: 1, max: 9}"))
    assert "positive 'step'" in issue.message


def test_non_mapping_and_unknown_kind():
    assert "mapping" in one_issue("- 1\n- 2\n").message
    assert "cannot tell the blueprint kind" in one_issue("title: x\n").message


def test_non_utf8_and_oversized_files(tmp_path: Path):
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes("skill_id: caf\xe9\n".encode("latin-1"))
    lib = Library.load(bad)
    issue = lib.report.files[str(bad)][0]
    assert "UTF-8" in issue.message and issue.line == 1
    big = tmp_path / "big.yaml"
    big.write_text("a: " + "x" * 1_200_000)
    assert "larger than" in Library.load(big).report.files[str(big)][0].message


# --------------------------------------------------------------------------
# Assessment and spec checks


def assessment_issue(text: str, tmp_path: Path, skill: str = SKILL):
    (tmp_path / "skill.yaml").write_text(skill)
    (tmp_path / "assessment.yaml").write_text(text)
    lib = Library.load(tmp_path)
    issues = [i for i in lib.report.files[str(tmp_path / "assessment.yaml")] if i.severity == "error"]
    return issues


def test_valid_assessment(tmp_path: Path):
    assert assessment_issue(ASSESSMENT, tmp_path) == []


def test_assessment_naming_a_missing_skill(tmp_path: Path):
    issues = assessment_issue(ASSESSMENT.replace('skill_id: "TEST.ADD.SMALL"', 'skill_id: "TEST.ADD.SMAL"'), tmp_path)
    assert issues[0].path == "sections[0].skill_blueprints[0].skill_id"
    assert "no skill blueprint 'TEST.ADD.SMAL'" in issues[0].message and "did you mean 'TEST.ADD.SMALL'" in issues[0].message


def test_distribution_must_sum_to_item_count(tmp_path: Path):
    issues = assessment_issue(ASSESSMENT.replace("hard: 2", "hard: 1"), tmp_path)
    assert issues[0].path == "sections[0].difficulty_distribution"
    assert "adds up to 3 but item_count is 4" in issues[0].message


def test_total_items_must_match_sections(tmp_path: Path):
    issues = assessment_issue(ASSESSMENT.replace("total_items: 4", "total_items: 5"), tmp_path)
    assert issues[0].path == "configuration.total_items"


def test_weights_must_be_positive(tmp_path: Path):
    issues = assessment_issue(ASSESSMENT.replace("weight: 1\n", "weight: 0\n"), tmp_path)
    assert issues[0].path == "sections[0].skill_blueprints[0].weight"
    issues = assessment_issue(ASSESSMENT.replace("s1: 1.0", "s1: -1"), tmp_path)
    assert issues[0].path == "scoring.section_weights.s1"


def test_grade_bands_ordered_and_reaching_zero(tmp_path: Path):
    issues = assessment_issue(ASSESSMENT.replace('{label: "Fail", min_percent: 0}', '{label: "Fail", min_percent: 10}'), tmp_path)
    assert issues[0].path == "scoring.grade_bands[1].min_percent" and "start at 0" in issues[0].message
    issues = assessment_issue(ASSESSMENT.replace("min_percent: 50}", "min_percent: 0}\n    - {label: \"X\", min_percent: 40}"), tmp_path)
    assert issues[0].path == "scoring.grade_bands" and "highest to lowest" in issues[0].message


def test_distribution_level_that_no_skill_has(tmp_path: Path):
    issues = assessment_issue(ASSESSMENT.replace("hard: 2", "medium: 2"), tmp_path)
    assert issues[0].path == "sections[0].difficulty_distribution.medium"


def test_spec_outcomes_and_skill_tags(tmp_path: Path):
    tagged = SKILL.replace('  skill_statement: "Add two small numbers"\n',
                           '  skill_statement: "Add two small numbers"\n  subject: Mathematics\n'
                           '  level: "Test Level"\n  outcome_ids: ["T-02"]\n')
    (tmp_path / "skill.yaml").write_text(tagged)
    (tmp_path / "spec.yaml").write_text(SPEC)
    lib = Library.load(tmp_path)
    skill_issues = lib.report.files[str(tmp_path / "skill.yaml")]
    assert skill_issues[0].path == "metadata.outcome_ids[0]" and "'T-02' is not in course spec" in skill_issues[0].message
    spec_issues = lib.report.files[str(tmp_path / "spec.yaml")]
    assert any(i.severity == "warning" and "T-01" in i.message for i in spec_issues)


def test_spec_section_naming_unknown_outcome():
    issue = one_issue(SPEC.replace('outcome_ids: ["T-01"]', 'outcome_ids: ["T-09"]'))
    assert issue.path == "assessment_structure[0].outcome_ids" and "T-09" in issue.message


def test_duplicate_ids_across_files(tmp_path: Path):
    (tmp_path / "a.yaml").write_text(SKILL)
    (tmp_path / "b.yaml").write_text(SKILL)
    lib = Library.load(tmp_path)
    assert "already used" in lib.report.files[str(tmp_path / "b.yaml")][0].message


def test_shipped_library_is_valid(library):
    assert library.report.ok, "\n".join(str(i) for i in library.report.errors())
    assert len(library.generators) >= 16
