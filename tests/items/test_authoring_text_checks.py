"""What a student reads, checked by validation; the shipped templates; the editor's reference."""
from __future__ import annotations

import pytest

from core.blueprints.formula import FUNCTIONS
from core.blueprints.library import Library
from core.items import authoring
from core.items.authoring import reference
from core.items.authoring.text_checks import SIGN_CHECKS, _reads_same

MC = authoring.TEMPLATES["Multiple-choice skill"]
NUMERIC = authoring.TEMPLATES["Numeric skill"]


@pytest.fixture(scope="module")
def library():
    return Library.load(exercise=False)


def issues_of(text: str, library: Library) -> list:
    return authoring.validate_text(text, library)[1]


@pytest.mark.parametrize("name", list(authoring.TEMPLATES))
def test_every_template_validates_and_previews_as_shipped(name, library):
    loaded, issues = authoring.validate_text(authoring.TEMPLATES[name], library)
    assert loaded is not None, [str(i) for i in issues]
    assert not [i for i in issues if i.severity == "error"]
    if loaded.kind == "skill":
        assert not issues, [str(i) for i in issues]       # no warnings either: a clean start
        samples = authoring.preview(loaded, 1, "template")
        assert list(samples) == list(loaded.model.generation.difficulty_levels)
        assert all(len(items) == 1 and items[0].stem and items[0].correct_answer for items in samples.values())


def test_there_is_a_template_for_every_kind_of_question():
    from typing import get_args

    from core.blueprints.models.base import ItemType
    import yaml
    skills = [t for t in authoring.TEMPLATES.values() if "skill_id" in yaml.safe_load(t)]
    assert {yaml.safe_load(t)["generation"]["item_type"] for t in skills} == set(get_args(ItemType))
    for text in skills:      # commented for a teacher: how to fill it in, at the top
        assert text.startswith("#") and 'Press "Validate & preview"' in text and "no programming needed" in text


def test_sign_clashes_are_warnings_naming_level_and_parameters(library):
    text = (NUMERIC.replace('answer_formula: "length * width"', 'answer_formula: "length * width"')
            .replace("Find the area of a rectangle measuring {length} cm by {width} cm.",
                     "Find the area of a rectangle measuring {length} cm by {width} cm, then work out 2x + -{width}."))
    loaded, issues = authoring.validate_text(text, library)
    assert loaded is not None
    [warning] = [i for i in issues if "plus or minus sign followed by another sign" in i.message
                 and "level easy" in i.message]
    assert warning.severity == "warning" and warning.path == "presentation.stem_templates"
    assert "with length=" in warning.message and "width=" in warning.message and "+ -" in warning.message


def test_a_backslash_read_as_an_escape_is_an_error_naming_what_to_write(library):
    """'\\frac' written with one backslash inside a formula's quotes becomes a form feed, and the page would show
    'rac{1}{2}': validation refuses it and says to double the backslash; doubled, it validates clean."""
    def with_half(line: str) -> str:
        return (NUMERIC.replace('  answer_formula: "length * width"',
                                "  computed_values:\n" + line + '\n  answer_formula: "length * width"')
                .replace("wide. Calculate its area.", "wide. Calculate ${half}$ of its area.")
                .replace("by {width} cm.", "by {width} cm, then ${half}$ of it."))
    loaded, issues = authoring.validate_text(with_half(r'''    half: "f'\\frac{{1}}{{2}}'"'''), library)
    errors = [i for i in issues if "control character" in i.message]
    assert loaded is None and errors and all(i.severity == "error" for i in errors)
    assert errors[0].path == "presentation.stem_templates" and "level easy with length=" in errors[0].message
    assert "'\\x0c'" in errors[0].message and "rac{1}{2}" in errors[0].message and "double it" in errors[0].message
    loaded, issues = authoring.validate_text(with_half(r'''    half: "f'\\\\frac{{1}}{{2}}'"'''), library)
    assert loaded is not None and not issues, [str(i) for i in issues]
    assert "$\\frac{1}{2}$" in authoring.preview(loaded, 1, "half")["easy"][0].stem


@pytest.mark.parametrize("text,flagged", [
    ("2x + -9", True), ("3 - -4", True), ("x = 1x + 2", True), ("0x + 5", True), ("2x + 0 = 7", True),
    ("x^1 + 2", True), ("2x - 9", False), ("x + 10", False), ("21x", False), ("1 cm", False), ("1.5x", False),
    ("4.1 \\times 10^{1}", False), ("\\int_{0}^{1} x", False), ("What is 7 + 0?", False), ("10^-3", False),
])
def test_sign_patterns(text, flagged):
    assert any(p.search(text) for _, p, _ in SIGN_CHECKS) is flagged


def test_options_reading_the_same(library):
    assert _reads_same("2x - 9", "2x + -9") and _reads_same("-0", "0") and _reads_same("5", "+5")
    assert not _reads_same("38", "38.0") and not _reads_same("0.5", "1/2")   # different answers in some skills


def test_a_distractor_equal_to_the_key_of_a_typed_answer_is_an_error(library):
    # "6x + -12" is not the key's text "6x - 12", so generating keeps it; a student reads them as the same
    text = authoring.TEMPLATES["Algebra skill"].replace('formula: "linear(k * a, -k * b)"',
                                                        'formula: "f\'{k * a}x + {k * b}\'"')
    loaded, issues = authoring.validate_text(text, library)
    assert loaded is None
    [error] = [i for i in issues if i.severity == "error" and "level medium" in i.message]
    assert error.path == "presentation.distractor_strategies[1].formula"
    assert "distractor 'sign_slip' gives" in error.message and "the same as the key" in error.message
    assert "with k=" in error.message and ", b=-" in error.message


def test_a_distractor_within_the_tolerance_is_a_warning(library):
    text = NUMERIC.replace('formula: "length + width"', 'formula: "length * width + 0.005"') \
        .replace("tolerance: {absolute: 0.01}", "tolerance: {absolute: 0.01}")
    loaded, issues = authoring.validate_text(text, library)
    [warning] = [i for i in issues if "within the marking tolerance" in i.message and "level easy" in i.message]
    assert warning.severity == "warning" and loaded is not None
    assert warning.path == "presentation.distractor_strategies[1].formula"


def test_options_that_repeat_are_an_error(library):
    text = (MC.replace('answer_formula: "a * b"', 'answer_formula: "f\'{b}x - {a}\'"')
            .replace("answer_type: integer", "answer_type: string")
            .replace('formula: "answer + 10"', 'formula: "f\'{a}x - {b}\'"')
            .replace('formula: "answer - a"', 'formula: "f\'{a}X - {b}\'"')
            .replace('formula: "a + b"', 'formula: "f\'{b}x + {a}\'"')
            .replace('    - "distractor > 0"\n', ""))
    loaded, issues = authoring.validate_text(text, library)
    assert loaded is None
    repeats = [i for i in issues if "read the same" in i.message]
    assert repeats and all(i.severity == "error" and "level " in i.message and " with a=" in i.message
                           for i in repeats)


def test_shipped_skills_raise_no_text_errors(library):
    for skill_id, loaded in library.skills.items():
        found = authoring.check_items(loaded, library.generator(skill_id), per_level=6)
        assert not [i for i in found if i.severity == "error"], (skill_id, [str(i) for i in found])


# --------------------------------------------------------------------------- the reference


def test_the_reference_describes_every_function_with_a_working_example():
    rows = reference.function_rows()
    assert {r["function"] for r in rows} == set(FUNCTIONS)
    undescribed = [r["function"] for r in rows if r["what it does"] == "not described yet"]
    assert not undescribed, f"describe these in core/items/authoring/reference.py: {undescribed}"
    failing = [(r["function"], r["gives"]) for r in rows if r["gives"].startswith("(fails")]
    assert not failing
    assert {"function": "linear", "example": "linear(2, -9)", "gives": "'2x - 9'"}.items() <= \
        next(r for r in rows if r["function"] == "linear").items()


def test_the_reference_examples_of_parameters_are_accepted_by_the_model():
    rows = reference.parameter_rows()
    assert [r["kind"] for r in rows] == ["integer", "decimal", "choice"]
    for row in rows:
        assert row["what it gives"] != "not described yet"
        assert reference.example_parameter(row["kind"]).type == row["kind"]
