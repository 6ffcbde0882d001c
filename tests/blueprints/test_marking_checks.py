"""Validation judges marking too: a stem that asks for units needs units in the item, and every
level's key must be one the marker reads and accepts."""
from __future__ import annotations

from pathlib import Path

from core.blueprints.library import Library
from core.items.authoring.validation import validate_text

ROOT = Path(__file__).resolve().parents[2]
TRIANGLE = ROOT / "blueprints/skills/sqa/mathematics/nat5/triangle_area_sine.yaml"


def test_a_stem_asking_for_units_needs_units_in_the_item():
    library = Library.load(exercise=False)
    text = TRIANGLE.read_text()
    assert validate_text(text, library)[0] is not None
    without = text.replace('  units: "{unit}"\n', "", 1).replace("Give your answer in {unit_text}",
                                                                    "State the units of your answer")
    loaded, issues = validate_text(without, library)
    assert loaded is None
    messages = [i.message for i in issues if i.severity == "error"]
    assert any("asks for units" in m and "a bare number would get full marks" in m for m in messages), messages


def test_a_key_the_marker_cannot_accept_is_an_error():
    library = Library.load(exercise=False)
    text = TRIANGLE.read_text().replace("units: \"{unit}\"", "units: \"{unit}\"\n  # key checked", 1)
    text = text.replace('answer_formula: "', 'answer_formula: "\'not a number\' if True else ', 1)
    loaded, issues = validate_text(text, library)
    assert loaded is None
    assert any("not a number" in i.message for i in issues), [i.message for i in issues]
