"""The Gradebook page through AppTest: the table, a script with the override form, re-marking; and the
evaluation sittings on the Analytics page and in the student's past exams.

One database for the module: a class, a mock exam and an evaluation assigned to it, handed in by students
through the app's own Runner (AppTest runs the app in this process).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app import pages
from tests.app.pages import run
ROOT = Path(__file__).resolve().parents[2]
TEACHER = {"role": "teacher", "user": "teacher", "name": "Teacher"}
CLASS = "GB-1"
NAMES = ["Amy Pond", "Ben Cole", "Cal Dee"]


def _runner():
    from ui import shared
    return shared._runner(os.environ["WORKBENCH_DB"])


def _questions(sid: str) -> list[dict]:
    return [q for s in _runner().state(sid)["package"]["sections"] for q in s["questions"]]


def _key(item_id: str) -> str:
    from core.store import repo
    return repo.load_item(_runner().ctx.store, item_id).typed_answer


def _sit(aid: str, student: str) -> str:
    from core.school import assignments, sittings
    kind, config = sittings.assignment_start(assignments.get_assignment(_runner().ctx.store, aid))
    return _runner().start(kind, student, config)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    from core.school import assignments
    from core.school.classes import add_student, create_class
    from core.store import Store
    from ui import shared
    path = tmp_path_factory.mktemp("gradebook_page") / "app.duckdb"
    store = Store(path)   # a class already there: the app skips the slow first-run demo
    create_class(store, CLASS, "Gradebook class", "Mathematics", "Nat 5")
    ids = {name: add_student(store, CLASS, name) for name in NAMES}
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    window = (now - dt.timedelta(hours=1), now + dt.timedelta(days=7))
    exam = assignments.create(store, CLASS, "Prelim", {"subject": "Mathematics", "level": "Nat 5"}, *window, None,
                              release="on_submit")
    evaluation = assignments.create(store, CLASS, "Fundamentals", {"assessment_id": "MATH-FUNDAMENTALS-L1", "seed": "1"},
                                    *window, None, release="on_submit")
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(path))
        mp.delenv("WORKBENCH_TEACHER_PASSCODE", raising=False)
        mp.delenv("WORKBENCH_TEACHER_PASSCODE_HASH", raising=False)
        mp.chdir(ROOT)
        shared._open.clear()
        shared._runner.clear()
        amy, ben = _sit(exam, ids["Amy Pond"]), _sit(exam, ids["Ben Cole"])
        qs = _questions(amy)
        for sid, right in ((amy, len(qs)), (ben, 5)):
            _runner().command(sid, "submit", answers={q["id"]: _key(q["id"]) for q in qs[:right]})
        taken = _sit(evaluation, ids["Amy Pond"])
        while _runner().view(taken)["stage"] == "active":
            q = _runner().view(taken)["question"]
            _runner().command(taken, "answer", item_id=q["id"], answer=_key(q["id"]))
        yield {"path": path, "ids": ids, "exam": exam, "evaluation": evaluation, "amy": amy, "ben": ben,
               "questions": qs, "taken": taken}
        shared._open(str(path)).store.close()
        shared._open.clear()
        shared._runner.clear()


def open_page(page: str = "pages/teacher_gradebook.py", user: dict = TEACHER) -> AppTest:
    return pages.open_page(dict(user), page)


def texts(at: AppTest) -> str:
    kinds = ("markdown", "caption", "error", "warning", "info", "success", "title", "subheader")
    return "\n".join(str(e.value) for kind in kinds for e in getattr(at, kind))


def on_tab(at: AppTest, name: str) -> AppTest:
    """The page with its tab ``name`` open (only the open tab is drawn)."""
    at.session_state["gb_tab"] = name
    return run(at)


def script_table(at: AppTest):
    return next(d.value for d in at.dataframe if {"Result", "Answer"} <= set(d.value.columns))


def test_the_table_shows_every_student_with_marks_and_downloads(env):
    at = open_page()
    assert [t.value for t in at.title] == ["Gradebook"]
    assert at.selectbox(key="gb_class").value == CLASS
    at.selectbox(key="gb_assignment").set_value(env["exam"])
    run(at)
    table = at.dataframe[0].value
    assert list(table["Student"]) == NAMES
    assert list(table["Status"]) == ["Handed in", "Handed in", "Not started"]
    assert table["Marks"].iloc[0] == _runner().state(env["amy"])["marking"]["marks_awarded"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Students"] == "3" and metrics["Handed in"] == "2"
    assert [b.label for b in at.get("download_button")] == ["CSV", "Parquet"]
    assert "the latest one handed in counts" in texts(at)
    assert not at.get("vega_lite_chart") and "Section results" not in texts(at)   # on the Distribution tab
    on_tab(at, "Distribution")
    assert len(at.get("vega_lite_chart")) == 2     # grades and the histogram of totals
    assert "Section results" in texts(at) and "Student" not in at.dataframe[0].value.columns


def test_the_override_form_changes_a_mark_and_refuses_without_a_reason(env):
    at = open_page()
    at.selectbox(key="gb_assignment").set_value(env["exam"])
    on_tab(run(at), "Student scripts")
    at.selectbox(key="gb_student").set_value(env["ben"])
    run(at)
    first, second = env["questions"][0], env["questions"][1]
    label = first.get("label") or str(first["number"])   # as printed: "1" or "1(a)"
    script = script_table(at)
    assert list(script["Question"]) == [q.get("label") or str(q["number"]) for q in env["questions"]]
    assert script["Result"].iloc[0] == "right" and script["Marks"].iloc[0] == first["marks"]
    assert script["Answer"].tolist()[-1] == "(no answer)"              # Ben answered only the first five
    choice = at.selectbox(key=f"gb_q_{env['ben']}")
    assert choice.options[0].startswith(f"✅ Question {label} ·")
    choice.set_value(first["id"])
    run(at)
    at.number_input(key="gb_marks").set_value(0.0)
    at.button(key="gb_override_go").click()
    run(at)
    assert any(f"Say why question {label} gets 0 mark(s)" in e.value for e in at.error)

    at.text_input(key="gb_reason").input("Answer copied from the board")
    at.button(key="gb_override_go").click()
    run(at)
    assert f"Question {label} of Ben Cole now has 0 mark(s)." in texts(at)
    q = _runner().state(env["ben"])["marking"]["questions"][first["id"]]
    assert q["marks_awarded"] == 0 and q["override"]["reason"] == "Answer copied from the board"
    choice = at.selectbox(key=f"gb_q_{env['ben']}")
    assert choice.options[0].startswith(f"❌ Question {label} ·") and "changed by the teacher" in choice.options[0]
    script = script_table(at)
    assert script["Result"].iloc[0] == "wrong" and script["Marks"].iloc[0] == 0
    assert script["Changed by the teacher"].tolist()[:2] == [True, False]
    assert "Answer copied from the board" in texts(at)         # the chosen question, drawn in full
    choice.set_value(second["id"])
    run(at)
    assert "Answer copied from the board" not in texts(at), "only the chosen question is drawn in full"
    on_tab(at, "Marks")
    assert at.dataframe[0].value.set_index("Student").loc["Ben Cole", "Overridden"] == f"Q{label}"


def test_remark_with_current_keys_lists_what_changed(env):
    from core.items import review
    from core.items.answer_keys import key_problem
    from core.marking import MarkingSpec, mark_answer
    from core.store import repo
    store = _runner().ctx.store
    at = open_page()
    at.selectbox(key="gb_assignment").set_value(env["exam"])
    on_tab(run(at), "Re-mark and written answers")
    at.button(key="gb_remark").click()
    run(at)
    assert "Re-marked: no mark changed" in texts(at)

    # A key corrected on the Review page: a question Amy answered with the old key, Ben left blank.
    for q in env["questions"][5:]:
        item = repo.load_item(store, q["id"])
        try:
            other = f"{float(item.correct_answer) + 1:g}"
        except ValueError:
            continue
        changed = dataclasses.replace(item, correct_answer=other)
        if q["options"] or item.units or key_problem(changed) is not None \
                or mark_answer(MarkingSpec.from_item(changed), _key(q["id"])).correct:
            continue
        review.edit_and_approve(store, q["id"], item.stem, other, item.explanation, confirm_key_change=True,
                                reason="The printed key was wrong", library=_runner().ctx.library)
        break
    else:
        pytest.fail("no typed question with a numeric key after question 5")
    at.button(key="gb_remark").click()
    run(at)
    assert "Re-marked: 1 mark(s) changed." in texts(at)
    [changes] = [d.value for d in at.dataframe if "Note" in d.value.columns]
    assert changes[["Student", "Question", "Old", "New"]].values.tolist() == [
        ["Amy Pond", q.get("label") or str(q["number"]), float(q["marks"]), 0.0]]
    on_tab(at, "Marks")
    assert at.dataframe[0].value.set_index("Student").loc["Amy Pond", f"Q{q.get('label') or q['number']}"] == 0


def test_an_evaluation_in_the_gradebook_analytics_and_past_exams(env):
    at = open_page()
    at.selectbox(key="gb_assignment").set_value(env["evaluation"])
    run(at)
    table = at.dataframe[0].value.set_index("Student")
    assert table.loc["Amy Pond", "Percent"] == 100.0 and bool(table.loc["Amy Pond", "Passed"])
    assert table.loc["Ben Cole", "Status"] == "Not started"
    on_tab(at, "Re-mark and written answers")
    assert "gb_remark" not in [b.key for b in at.button]
    assert "Evaluation questions are generated for each sitting" in texts(at)

    analytics = open_page("pages/teacher_analytics.py")
    analytics.session_state["an_tab"] = "Exams"        # only the open tab is drawn: open the Exams tab
    analytics.run()
    assert "Evaluations" in [s.value for s in analytics.subheader]
    shown = [d.value for d in analytics.dataframe if "assessment" in d.value.columns]
    results = next(d for d in shown if "score_percent" in d.columns)
    assert results["name"].tolist() == ["Amy Pond"] and results["score_percent"].tolist() == [100.0]

    student = {"role": "student", "user": env["ids"]["Amy Pond"], "name": "Amy Pond", "class_code": CLASS}
    mine = open_page("pages/student_exam.py", user=student)
    assert "Your past exams" in [s.value for s in mine.subheader]
    assert any("Evaluation: " in m.value for m in mine.markdown)
