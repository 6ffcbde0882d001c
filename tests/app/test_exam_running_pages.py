"""Running an assigned exam through the pages (Streamlit's AppTest): what a student sees before and after the
results are released, time running out, two tabs on one exam, and a teacher editing, closing, releasing and
deleting an assignment."""
from __future__ import annotations

import datetime as dt
import itertools
import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app import pages
from tests.app.test_student_pages import button, click, everything_rendered, leaks, right_answer, runner, texts

ROOT = Path(__file__).resolve().parents[2]
CLASS = "RUN-APP"
TEACHER = {"role": "teacher", "user": "teacher", "name": "Teacher"}
PAPER = {"subject": "Mathematics", "level": "Nat 5", "seed": "run-app", "paper_key": "paper:run-app"}
_names = itertools.count(1)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("exam_running") / "app.duckdb"
    mp = pytest.MonkeyPatch()
    mp.setenv("WORKBENCH_DB", str(path))
    mp.delenv("WORKBENCH_TEACHER_PASSCODE", raising=False)
    mp.delenv("WORKBENCH_TEACHER_PASSCODE_HASH", raising=False)
    mp.chdir(ROOT)
    from core.school.classes import create_class
    from core.store import Store
    from ui import shared
    shared._open.clear()
    shared._runner.clear()
    store = Store(path)  # a class already there: the app skips the slow first-run demo
    create_class(store, CLASS, "Exam running", "Mathematics", "Nat 5")
    store.close()
    yield path
    shared._open(str(path)).store.close()
    shared._open.clear()
    shared._runner.clear()
    mp.undo()


def store():
    from ui import shared
    return shared._open(os.environ["WORKBENCH_DB"]).store


@pytest.fixture
def student(db) -> dict:
    from core.school.classes import add_student
    name = f"Runner {next(_names)} {os.getpid()}"
    return {"role": "student", "user": add_student(store(), CLASS, name), "name": name, "class_code": CLASS}


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def assign(title: str, limit=30, **options) -> str:
    from core.school import assignments
    now = utcnow()
    return assignments.create(store(), CLASS, title, dict(PAPER), now - dt.timedelta(hours=1),
                              now + dt.timedelta(days=1), limit, **options)


def open_app(user: dict, page: str) -> AppTest:
    return pages.open_page(dict(user), page)


def typed_questions(sid: str) -> list[dict]:
    view = runner().view(sid)
    return [q for s in view["exam"]["sections"] for q in s["questions"] if not q["options"] and not q.get("steps")]


def box(sid: str, q: dict) -> str:
    return f"ex_{sid}_{q['id']}"


def start_assigned(at: AppTest, aid: str) -> str:
    at.button(key=f"go_{aid}").click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at.session_state["exam_sid"]


def hand_in(at: AppTest) -> None:
    click(at, "Submit exam")
    click(at, "Yes, submit my exam")


# ---------------------------------------------------------------- a student


def test_before_release_a_student_sees_only_that_the_paper_was_handed_in(student):
    from core.school import assignments
    title = f"Prelim {student['name']}"
    aid = assign(title)   # released when the assignment closes, the default
    at = open_app(student, "pages/student_exam.py")
    closes = assignments.get_assignment(store(), aid)["closes_at"]
    assert f"Results are released when the assignment closes, at {assignments.moment(closes)}." in texts(at)
    assert "one attempt" in texts(at, ("caption",))
    sid = start_assigned(at, aid)
    q = typed_questions(sid)[0]
    pages.show_question(at, sid, q["id"]).text_input(key=box(sid, q)).input(right_answer(q["id"]))
    at.run()
    hand_in(at)

    view = runner().view(sid)
    assert "held" in view and "results" not in view and "answers" not in view and "remediation" not in view
    assert at.title[0].value == f"{title}: handed in"
    assert any(s.value.startswith("Your paper was submitted at ") for s in at.success)
    assert any(i.value.startswith("Results are released when the assignment closes") for i in at.info)
    assert not at.metric and "Correct answer" not in "\n".join(everything_rendered(at))
    found, checked = leaks(at, [q["id"] for q in typed_questions_from_state(sid)])
    assert checked and not found, found
    # Back on the list: handed in, the results not out yet, no attempt left.
    click(at, "Back to my exams")
    assert "You have handed this one in." in texts(at, ("caption",))
    assert button(at, "See my hand-in") and not [b for b in at.button if b.key == f"go_{aid}"]

    # The teacher releases the results: the same page now shows them.
    assignments.release_results(store(), aid, by="teacher")
    at.run()
    assert button(at, "See my results")
    at.button(key=f"see_{aid}").click()
    at.run()
    assert not at.exception
    res = runner().view(sid)["results"]
    assert res["questions"][q["id"]]["correct"]
    assert {m.label: m.value for m in at.metric}["Marks"] == f"{res['marks_awarded']:g} / {res['total_marks']:g}"


def typed_questions_from_state(sid: str) -> list[dict]:
    """The paper's questions, read as a teacher would (the student's view no longer holds them)."""
    state = runner().state(sid)
    return [q for s in state["package"]["sections"] for q in s["questions"] if not q["options"]]


def test_time_up_is_said_and_a_later_answer_is_kept_as_late(student):
    from core.school import assignments
    aid = assign(f"Timed {student['name']}", limit=10)
    at = open_app(student, "pages/student_exam.py")
    sid = start_assigned(at, aid)
    first, second = typed_questions(sid)[:2]
    pages.show_question(at, sid, first["id"]).text_input(key=box(sid, first)).input("7")
    at.run()
    pages.show_question(at, sid, second["id"])
    deadline = runner().state(sid)["started_at"] + 600
    ctx = runner().ctx
    real_clock = ctx.clock
    ctx.clock = lambda: real_clock() + 11 * 60   # the browser's clock says nothing; the server's decides
    try:
        at.text_input(key=box(sid, second)).input("8")   # this tab still shows the paper
        at.run()
    finally:
        ctx.clock = real_clock
    assert not at.exception
    sentence = f"Time is up: your answers saved by {assignments.clock_time(deadline)} were marked."
    assert [w.value for w in at.warning] == [sentence]
    assert "submitted at" not in texts(at)
    state = runner().state(sid)
    assert state["marking"]["late"] and state["saved"] == {first["id"]: "7"}
    assert [(e["action"], e["item_id"], e["answer"]) for e in state["late"]] == [("save", second["id"], "8")]


def test_two_tabs_the_newer_answer_is_shown_and_a_stale_save_asks(student):
    aid = assign(f"Two tabs {student['name']}", release="on_submit")
    tab_a = open_app(student, "pages/student_exam.py")
    sid = start_assigned(tab_a, aid)
    tab_b = open_app(student, "pages/student_exam.py")   # a second tab finds the exam being sat
    assert tab_b.session_state["exam_sid"] == sid
    q1, q2, q3 = typed_questions(sid)[:3]

    # A saves; B, which never saw it, shows it on its next run.
    pages.show_question(tab_a, sid, q1["id"]).text_input(key=box(sid, q1)).input("11")
    tab_a.run()
    tab_b.run()
    pages.show_question(tab_b, sid, q1["id"])
    assert tab_b.text_input(key=box(sid, q1)).value == "11"

    # Both had q2 empty: A saves, then B types something else there, unaware.
    pages.show_question(tab_b, sid, q2["id"])   # B shows q2 empty
    pages.show_question(tab_a, sid, q2["id"]).text_input(key=box(sid, q2)).input("21")
    tab_a.run()
    tab_b.text_input(key=box(sid, q2)).input("22")
    tab_b.run()
    assert not tab_b.exception
    assert any("changed in another tab or window" in w.value and "“21”" in w.value and "“22”" in w.value
               for w in tab_b.warning)
    assert runner().view(sid)["answers"][q2["id"]] == "21"
    click(tab_b, "Keep the newer answer")
    assert tab_b.text_input(key=box(sid, q2)).value == "21" and not tab_b.warning

    # Again on q3, and this time B keeps what it typed.
    pages.show_question(tab_b, sid, q3["id"])
    pages.show_question(tab_a, sid, q3["id"]).text_input(key=box(sid, q3)).input("31")
    tab_a.run()
    tab_b.text_input(key=box(sid, q3)).input("32")
    tab_b.run()
    click(tab_b, "Use what I typed here")
    assert runner().view(sid)["answers"][q3["id"]] == "32" and runner().view(sid)["versions"][q3["id"]] == 2

    # A, still showing "31", hands in: what is saved is marked, not A's copy.
    hand_in(tab_a)
    res = runner().view(sid)["results"]
    assert {res["questions"][q["id"]]["answer"] for q in (q1, q2, q3)} == {"11", "21", "32"}


# ---------------------------------------------------------------- a teacher


def teacher_page(aid: str) -> AppTest:
    at = open_app(TEACHER, "pages/teacher_exams.py")   # no paper built: the class's assignments to manage
    at.selectbox(key="exam_class").select(CLASS)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.button(key=f"asg_edit_{aid}")
    return at


def test_a_teacher_edits_an_assignment(student):
    from core.school import assignments
    aid = assign(f"Edit me {student['name']}")
    at = teacher_page(aid)
    at.button(key=f"asg_edit_{aid}").click()
    at.run()
    at.number_input(key=f"asg_attempts_{aid}").set_value(2)
    at.selectbox(key=f"asg_policy_{aid}").select("manual")
    at.number_input(key=f"asg_limit_{aid}").set_value(45.0)
    at.multiselect(key=f"asg_extra_who_{aid}").select(student["user"])
    at.run()
    at.number_input(key=f"asg_extra_{aid}_{student['user']}").set_value(20.0)
    at.button(key=f"asg_save_{aid}").click()
    at.run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    a = assignments.get_assignment(store(), aid)
    assert (a["attempts_allowed"], a["release_policy"], a["time_limit_minutes"], a["extra_time"]) == \
        (2, "manual", 45.0, {student["user"]: 20.0})
    assert any("Saved the changes" in s.value for s in at.success)
    assert f"{student['name']} +20 min" in texts(at, ("caption",))

    # A window that closes before it opens is refused with its sentence, and nothing changes.
    at.button(key=f"asg_edit_{aid}").click()
    at.run()
    opens = at.get("date_time_input")
    start = next(w for w in opens if w.key == f"asg_opens_{aid}").value
    next(w for w in opens if w.key == f"asg_closes_{aid}").set_value(start - dt.timedelta(hours=1))
    at.button(key=f"asg_save_{aid}").click()
    at.run()
    assert any("must close after it opens" in e.value for e in at.error)
    assert assignments.get_assignment(store(), aid)["closes_at"] == a["closes_at"]


def test_a_teacher_closes_releases_and_deletes_with_a_confirmation(student):
    from core.school import assignments, sittings
    aid = assign(f"Close me {student['name']}", release="manual")
    # A student hands in first: their work must survive the deletion.
    sat = open_app(student, "pages/student_exam.py")
    sid = start_assigned(sat, aid)
    hand_in(sat)
    assert "held" in runner().view(sid)

    at = teacher_page(aid)
    assert "1 handed in, 0 sitting now" in texts(at, ("caption",))
    at.button(key=f"asg_close_{aid}").click()
    at.run()
    a = assignments.get_assignment(store(), aid)
    assert a["closed_early_at"] is not None and a["closes_at"] <= utcnow()
    assert at.button(key=f"asg_close_{aid}").disabled
    assert "held" in runner().view(sid)   # closed, but this one is released by the teacher
    at.button(key=f"asg_release_{aid}").click()
    at.run()
    assert assignments.get_assignment(store(), aid)["released_by"] == "teacher"
    assert "results" in runner().view(sid) and at.button(key=f"asg_release_{aid}").disabled

    at.button(key=f"asg_delete_{aid}").click()
    at.run()
    assert any("Students can no longer start it" in w.value and "kept and still reported" in w.value
               for w in at.warning)
    at.button(key=f"asg_delete_no_{aid}").click()
    at.run()
    assert assignments.get_assignment(store(), aid)["deleted_at"] is None
    assert not any("Students can no longer start it" in w.value for w in at.warning)
    at.button(key=f"asg_delete_{aid}").click()
    at.run()
    at.button(key=f"asg_delete_yes_{aid}").click()
    at.run()
    assert not at.exception
    assert assignments.get_assignment(store(), aid)["deleted_at"] is not None
    assert not [b for b in at.button if b.key == f"asg_edit_{aid}"]   # gone from the list...
    at.toggle(key="asg_show_deleted").set_value(True).run()
    assert any(c.value.startswith("Deleted ") for c in at.caption)   # ...unless deleted ones are asked for
    # Kept and still reported: the student's session, responses and released results.
    assert store().query("SELECT count(*) FROM responses WHERE session_id = ?", [sid])[0][0] > 0
    assert "results" in runner().view(sid)
    assert sittings.past_exams(store(), student["user"])[0]["id"] == sid


def test_a_teacher_assigns_with_release_attempts_and_extra_time(student):
    from core.store import school
    at = open_app(TEACHER, "pages/teacher_exams.py")
    at.button(key="exam_build_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.selectbox(key="exam_class").select(CLASS)
    at.session_state["exam_assign_open"] = True     # the form is drawn once opened
    at.run()
    title = f"Assigned {student['name']}"
    at.text_input(key="exam_title").input(title)
    at.number_input(key="exam_attempts").set_value(2)
    at.selectbox(key="exam_release").select("manual")
    at.multiselect(key="exam_extra_who").select(student["user"])
    at.number_input(key="exam_extra_minutes").set_value(25)
    at.button(key="exam_assign_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    a = next(a for a in school.assignments_for_class(store(), CLASS) if a["title"] == title)
    assert (a["attempts_allowed"], a["release_policy"], a["extra_time"], a["created_by"]) == \
        (2, "manual", {student["user"]: 25.0}, "teacher")
    assert title in at.dataframe[-1].value["title"].tolist()
    assert at.button(key=f"asg_release_{a['id']}") and not at.button(key=f"asg_release_{a['id']}").disabled


def wait_for(check, seconds: float = 60.0) -> bool:
    import time
    end = time.monotonic() + seconds
    while time.monotonic() < end and not check():
        time.sleep(0.05)
    return check()


def test_the_paper_is_drawn_while_the_student_chooses_and_its_keys_checked_while_it_is_sat(student, monkeypatch):
    from core.flows.base import Runner
    from core.items import generator
    prepared, checked = [], []
    real_prepare, real_marking = Runner.prepare, Runner.prepare_marking
    monkeypatch.setattr(Runner, "prepare", lambda self, kind, who, config, pause: (
        real_prepare(self, kind, who, config, pause), prepared.append((who, config))))
    monkeypatch.setattr(Runner, "prepare_marking", lambda self, sid, pause: checked.append(
        (sid, real_marking(self, sid, pause))))
    generator._made.clear()
    at = open_app(student, "pages/student_exam.py")
    seed = at.session_state["exam_own_seed"]
    assert wait_for(lambda: (student["user"], {"subject": "Mathematics", "level": "Nat 5", "seed": seed}) in prepared)
    made = len(generator._made)
    click(at, "Start mock exam")
    sid = at.session_state["exam_sid"]
    assert runner().state(sid)["seed"] == seed
    assert len(generator._made) == made          # every question of the paper was made while choosing
    assert "exam_own_seed" not in at.session_state   # the next one is a fresh paper
    n = sum(len(s["questions"]) for s in runner().view(sid)["exam"]["sections"])
    assert wait_for(lambda: (sid, n) in checked)      # every question's key, while the paper is sat
    hand_in(at)
    assert at.title[0].value.endswith("your results")
    # While the results are read, the next paper the list will offer is drawn: its Start finds it made.
    following = at.session_state["exam_own_seed"]
    assert following != seed
    assert wait_for(lambda: (student["user"], {"subject": "Mathematics", "level": "Nat 5", "seed": following})
                    in prepared)
    made = len(generator._made)
    click(at, "Back to my exams")
    assert at.session_state["exam_own_seed"] == following
    click(at, "Start mock exam")
    assert runner().state(at.session_state["exam_sid"])["seed"] == following
    assert len(generator._made) == made
