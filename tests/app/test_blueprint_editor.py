"""The Blueprints page's editor through AppTest: editing, validating with a preview per level, the guard on
unsaved edits, and the messages a teacher reads.

AppTest cannot type into the code editor (a custom component), so each test
puts an editor event where the page reads it: the editor widget's value,
``{"id", "type", "text"}``, exactly what the component sends when the teacher
types (type "change"/"blur"), presses "Validate & preview" or Ctrl+Enter
("validate"/"submit") or "Save as new version" ("save"). The component itself
is driven in tests/browser/test_blueprint_editor_browser.py.
"""
from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from core.items import authoring
from tests.app.pages import open_page

ROOT = Path(__file__).resolve().parents[2]
TEACHER = {"role": "teacher", "user": "teacher", "name": "Teacher"}
PAGE = "pages/teacher_blueprints.py"
_ids = itertools.count(1)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    from core.school.classes import create_class
    from core.store import Store
    from ui import shared
    tmp = tmp_path_factory.mktemp("blueprint_editor")
    blueprints = tmp / "blueprints"
    shutil.copytree(ROOT / "blueprints", blueprints)
    db = tmp / "app.duckdb"
    store = Store(db)
    create_class(store, "T-EDIT", "Editor test class", "Mathematics", "Nat 5")
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(db))
        mp.setenv("WORKBENCH_BLUEPRINTS", str(blueprints))
        mp.chdir(ROOT)
        shared._open.clear()
        shared._runner.clear()
        yield {"db": db, "blueprints": blueprints}
        shared._open(str(db)).store.close()
        shared._open.clear()
        shared._runner.clear()


def values(elements) -> list[str]:
    return [str(e.value) for e in elements]


def page(env):
    return open_page(TEACHER, PAGE)


def send(at, kind: str, text: str):
    """What the editor sends: typed text ("change"), or a button press with the text in the editor."""
    at.session_state[at.session_state["bp_editor_key"]] = {"id": f"e{next(_ids)}", "type": kind, "text": text,
                                                           "lang": "yaml", "selected": "", "cursor": ""}
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def open_entry(at, key: str):
    at.selectbox(key="bp_choice").set_value(key).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def numeric(new_id: str) -> str:
    return authoring.TEMPLATES["Numeric skill"].replace("NEW.TEMPLATE.NUMERIC", new_id)


# --------------------------------------------------------------------------- edit, validate, preview


def test_validating_shows_one_item_per_level_with_key_and_recognised_mistakes(env):
    at = open_entry(page(env), "template:Numeric skill")
    assert at.session_state["bp_text"] == authoring.TEMPLATES["Numeric skill"]
    at = send(at, "validate", numeric("EDITOR.PREVIEW.AREA"))
    assert values(at.success) == ["Skill EDITOR.PREVIEW.AREA version 1.0 is valid."]
    markdown = values(at.markdown)
    assert [m for m in markdown if m.startswith("**") and "difficulty" in m] == [
        "**Easy** · difficulty 0.3", "**Medium** · difficulty 0.5", "**Hard** · difficulty 0.7"]
    assert sum(m.count("**Answer:**") for m in markdown) == 3
    assert sum(c.startswith("Wrong answers it recognises: ") and "Found the perimeter instead" in c
               for c in values(at.caption)) == 3
    # another sample per level, from the same validation
    first = [m for m in markdown if m.startswith("Find") or m.startswith("A rectangle")]
    at.button(key="bp_another").click().run()
    again = [m for m in values(at.markdown) if m.startswith("Find") or m.startswith("A rectangle")]
    assert len(again) == 3 and again != first


def test_ctrl_enter_validates_the_text_sent_with_it(env):
    at = open_entry(page(env), "template:Multiple-choice skill")
    text = authoring.TEMPLATES["Multiple-choice skill"].replace("NEW.TEMPLATE.MULTIPLE_CHOICE", "EDITOR.CTRL.ENTER")
    at = send(at, "submit", text)
    assert values(at.success) == ["Skill EDITOR.CTRL.ENTER version 1.0 is valid."]
    assert sum(m.count("✅") for m in values(at.markdown)) == 3     # the key marked among each level's options


def test_problems_are_marked_at_their_line_with_formulas_as_written(env):
    at = open_entry(page(env), "template:Numeric skill")
    text = numeric("EDITOR.BAD.FORMULA").replace('answer_formula: "length * width"',
                                                 'answer_formula: "length*width*k"')
    at = send(at, "validate", text)
    line = text.splitlines().index('  answer_formula: "length*width*k"  # the right answer, worked out from the '
                                   'parameters') + 1
    [error] = values(at.error)
    # the message as markdown: the formula in code style, the field's underscore escaped (shown as written)
    assert error == f"line {line}, generation.answer\\_formula: unknown name 'k' in `length*width*k`"
    assert values(at.code) == [f"{line:>4} | " + text.splitlines()[line - 1]]
    rows = at.session_state["bp_checked"]["rows"]
    from ui.blueprint_editor import annotations
    notes, marks = annotations(rows)
    assert notes == [{"row": line - 1, "column": 0, "type": "error", "text": rows[0]["text"]}]
    assert marks[0]["startRow"] == line - 1 and marks[0]["className"] == "bp-error-line"


def test_a_division_by_zero_names_the_formula_level_and_values(env):
    at = open_entry(page(env), "template:Numeric skill")
    text = numeric("EDITOR.DIVIDE").replace('answer_formula: "length * width"',
                                            'answer_formula: "length * width / (width - 3)"')
    at = send(at, "validate", text)
    errors = values(at.error)
    assert errors and all(e.startswith("line ") for e in errors)
    assert "division by zero in answer\\_formula `length * width / (width - 3)` at level easy with " \
           "length=" in errors[0] and "width=3.0" in errors[0]
    assert not any("constraint" in e.split(";")[0] for e in errors)


def test_a_distractor_equal_to_the_key_is_an_error_naming_level_and_values(env):
    at = open_entry(page(env), "template:Multiple-choice skill")
    text = (authoring.TEMPLATES["Multiple-choice skill"].replace("NEW.TEMPLATE.MULTIPLE_CHOICE", "EDITOR.SAME.KEY")
            .replace('answer_formula: "a * b"', 'answer_formula: "f\'{b}x - {a}\'"')
            .replace("answer_type: integer", "answer_type: string")
            .replace('formula: "answer + 10"', 'formula: "f\'{b}x + -{a}\'"')
            .replace('formula: "answer - a"', 'formula: "f\'{a}x - {b}\'"')
            .replace('formula: "a + b"', 'formula: "f\'{b}x + {a}\'"')
            .replace('    - "distractor > 0"\n', ""))
    at = send(at, "validate", text)
    errors = values(at.error)
    assert any("distractor 'off\\_by\\_ten' shows as" in e and "the same as the key" in e and "level easy with a=" in e
               for e in errors), errors
    warnings = values(at.warning)
    assert any("a plus or minus sign followed by another sign" in w for w in warnings), warnings
    assert not at.success


# --------------------------------------------------------------------------- unsaved edits


def test_switching_with_unsaved_edits_asks_and_keep_editing_keeps_them(env):
    at = open_entry(page(env), "template:Numeric skill")
    edited = numeric("EDITOR.KEEP.ME")
    at = send(at, "change", edited)
    assert any(c.startswith("● Unsaved changes to the new blueprint from the Numeric skill template")
               for c in values(at.caption))
    at = open_entry(at, "template:Algebra skill")
    assert ("You have unsaved changes to the new blueprint from the Numeric skill template: discard them and open "
            "“New from template: Algebra skill”, or keep editing?") in values(at.warning)
    assert at.session_state["bp_text"] == edited            # nothing opened yet
    at.button(key="bp_keep").click().run()
    assert at.session_state["bp_text"] == edited and at.session_state["bp_choice"] == "template:Numeric skill"
    assert not any("unsaved changes to" in w and "discard them" in w for w in values(at.warning))


def test_discarding_opens_the_other_blueprint(env):
    at = open_entry(page(env), "template:Numeric skill")
    at = send(at, "change", numeric("EDITOR.THROW.AWAY"))
    at = open_entry(at, "skill:MATH.ARITH.ADD.1DIGIT")
    at.button(key="bp_discard_pending").click().run()
    assert not at.exception
    assert at.session_state["bp_text"] == workbench_text(env, "MATH.ARITH.ADD.1DIGIT")
    assert at.session_state["bp_opened"] == "skill:MATH.ARITH.ADD.1DIGIT"
    assert not any(c.startswith("● Unsaved") for c in values(at.caption))


def workbench_text(env, skill_id: str) -> str:
    from ui import shared
    return shared._open(str(env["db"])).library.skills[skill_id].text


def test_without_edits_switching_needs_no_question(env):
    at = open_entry(page(env), "template:Numeric skill")
    at = open_entry(at, "template:Written-answer skill")
    assert at.session_state["bp_text"] == authoring.TEMPLATES["Written-answer skill"]
    assert not any("discard them" in w for w in values(at.warning))


def test_leaving_the_page_keeps_the_draft_and_says_so_on_return(env):
    at = open_entry(page(env), "template:Numeric skill")
    edited = numeric("EDITOR.COME.BACK")
    at = send(at, "change", edited)
    at.switch_page("pages/teacher_generate.py")
    at.run()
    assert not at.exception
    at.switch_page(PAGE)
    at.run()
    assert not at.exception
    assert at.session_state["bp_text"] == edited
    assert ("Your unsaved draft of the new blueprint from the Numeric skill template was kept. Save it as a new "
            "version, or discard it with \"Discard unsaved changes\".") in values(at.info)
    assert at.session_state["bp_editor_code"] == edited     # the editor opens on the draft
    at.button(key="bp_discard").click().run()
    assert at.session_state["bp_text"] == authoring.TEMPLATES["Numeric skill"]
    assert not any("was kept" in i for i in values(at.info))


# --------------------------------------------------------------------------- a new numeric skill, end to end


def test_a_new_numeric_skill_from_the_template_is_previewed_and_saved(env):
    at = open_entry(page(env), "template:Numeric skill")
    text = (numeric("EDITOR.TRIANGLE.AREA").replace("Calculate the area of a rectangle", "Calculate the area of a "
                                                                                           "triangle")
            .replace('answer_formula: "length * width"', 'answer_formula: "length * width / 2"')
            .replace("A rectangle is {length} cm long and {width} cm wide. Calculate its area.",
                     "A triangle has base {length} cm and height {width} cm. Calculate its area.")
            .replace("Find the area of a rectangle measuring {length} cm by {width} cm.",
                     "Find the area of a triangle with base {length} cm and height {width} cm."))
    at = send(at, "change", text)
    at = send(at, "validate", text)
    assert values(at.success) == ["Skill EDITOR.TRIANGLE.AREA version 1.0 is valid."]
    assert sum("triangle" in m for m in values(at.markdown)) == 3
    at = send(at, "save", text)
    path = env["blueprints"] / "skills" / "editor_triangle_area.yaml"
    assert path.read_text(encoding="utf-8") == text
    assert any(s.startswith("Saved EDITOR.TRIANGLE.AREA version 1.0 in ") for s in values(at.success))
    assert not any(c.startswith("● Unsaved") for c in values(at.caption))
    at.run()                                               # the list now holds it, shown as open
    assert at.session_state["bp_choice"] == "skill:EDITOR.TRIANGLE.AREA"
    # saving the same version again says which version to use
    at = send(at, "save", text)
    assert 'change the version to "1.1" and save again' in " ".join(values(at.error))


def test_the_reference_lists_every_function_and_parameter_kind(env):
    from core.blueprints.formula import FUNCTIONS
    at = page(env)
    assert not any("function" in df.value.columns for df in at.dataframe)   # drawn only when opened
    at.session_state["bp_reference"] = True
    at.run()
    frames = [df.value for df in at.dataframe]
    functions = next(f for f in frames if "function" in f.columns)
    assert set(functions["function"]) == set(FUNCTIONS)
    kinds = next(f for f in frames if "kind" in f.columns and "what it gives" in f.columns)
    assert list(kinds["kind"]) == ["integer", "decimal", "choice"]
