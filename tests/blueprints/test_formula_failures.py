"""A formula failing while a level is exercised is reported at that formula, as written, with level and values."""
from __future__ import annotations

from core.blueprints.library import Library
from core.items import authoring

NUMERIC = authoring.TEMPLATES["Numeric skill"]


def errors(text: str) -> list:
    loaded, issues = authoring.validate_text(text, Library(exercise=False))
    assert loaded is None
    return [i for i in issues if i.severity == "error"]


def test_division_by_zero_in_the_answer_formula():
    found = errors(NUMERIC.replace('answer_formula: "length * width"', 'answer_formula: "length * width / (width - 3)"'))
    assert {i.path for i in found} == {"generation.answer_formula"}
    assert found[0].message.startswith("division by zero in answer_formula `length * width / (width - 3)` at level "
                                       "easy with length=")
    assert "width=3.0" in found[0].message and "exclude" in found[0].message


def test_division_by_zero_in_a_computed_value_read_by_a_constraint_is_not_blamed_on_the_constraint():
    text = NUMERIC.replace('  answer_formula: "length * width"',
                           '  computed_values:\n    k: "1 / (width - 3)"\n  answer_formula: "length * width"') \
        .replace('"width < length"]\n    medium', '"width < length", "k < 5"]\n    medium')
    [issue] = [i for i in errors(text) if "level easy" in i.message]
    assert issue.path == "generation.computed_values.k"
    assert issue.message.startswith("division by zero in computed value 'k' `1 / (width - 3)` at level easy with ")
    assert "constraint" not in issue.message.split(";")[0]


def test_division_by_zero_in_a_constraint_points_at_that_constraint():
    text = NUMERIC.replace('"width < length"]\n    medium', '"width < length", "length / (width - 3) > 1"]\n    medium')
    [issue] = errors(text)
    assert issue.path == "generation.difficulty_levels.easy.constraints[4]"
    assert issue.message.startswith("division by zero in constraint `length / (width - 3) > 1` at level easy with ")


def test_a_formula_in_a_message_is_shown_as_written():
    [issue] = errors(NUMERIC.replace('answer_formula: "length * width"', 'answer_formula: "length*width*k"'))
    assert issue.message == "unknown name 'k' in `length*width*k`"
    row = authoring.issue_rows([issue], "")[0]
    assert "`length*width*k`" in row["markdown"]                      # code style: no italics eat the stars
    assert authoring.markdown_text("a*b*k outside") == "a\\*b\\*k outside"
