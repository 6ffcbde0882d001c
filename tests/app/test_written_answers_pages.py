"""Written answers on the pages through AppTest: the Gradebook's "Written answers" section (checking the
sittings handed in while no LLM was set up, with a local fake OpenAI-compatible server as the model), how each
written answer was marked on the teacher's script and the student's results, and "Written answers in
practice" (a teacher marks a lesson answer right; the student reads why on the Progress page).
"""
from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.app import pages
from tests.app.pages import run
from tests.llm.fake_openai import FakeOpenAI, completion

ROOT = Path(__file__).resolve().parents[2]
TEACHER = {"role": "teacher", "user": "teacher", "name": "Teacher"}
CLASS = "WJ-1"
REASON = "Both values satisfy the two equations"


def _runner():
    from ui import shared
    return shared._runner(os.environ["WORKBENCH_DB"])


def _item(item_id: str):
    from core.store import repo
    return repo.load_item(_runner().ctx.store, item_id)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    from core.flows.judging import is_written
    from core.school import assignments, sittings
    from core.school.classes import add_student, create_class
    from core.store import Store
    from ui import shared
    server = FakeOpenAI(default=completion({"equivalent": True, "confidence": 0.95, "reason": REASON}))
    path = tmp_path_factory.mktemp("written_pages") / "app.duckdb"
    store = Store(path)
    create_class(store, CLASS, "Written answers class", "Mathematics", "Nat 5")
    amy, ben = add_student(store, CLASS, "Amy Pond"), add_student(store, CLASS, "Ben Cole")
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    # A fixed paper (its seed and key), with written answers in it: the bank's simultaneous equations among them.
    paper = {"subject": "Mathematics", "level": "Nat 5", "seed": "1", "paper_key": "written-pages"}
    aid = assignments.create(store, CLASS, "Prelim", paper,
                             now - dt.timedelta(hours=1), now + dt.timedelta(days=7), None, release="on_submit")
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(path))
        for name in ("API_KEY", "BASE_URL", "MODEL"):
            mp.delenv(f"WORKBENCH_LLM_{name}", raising=False)
        mp.delenv("WORKBENCH_TEACHER_PASSCODE", raising=False)
        mp.delenv("WORKBENCH_TEACHER_PASSCODE_HASH", raising=False)
        mp.chdir(ROOT)
        for cached in (shared._open, shared._runner, shared._client):
            cached.clear()
        # Handed in while no LLM is set up: every answer right by its key but one written answer, put in other words.
        kind, config = sittings.assignment_start(assignments.get_assignment(_runner().ctx.store, aid))
        sid = _runner().start(kind, amy, config)
        questions = [q for s in _runner().state(sid)["package"]["sections"] for q in s["questions"]]
        written = next(q for q in questions if is_written(_item(q["id"])) and "=" in _item(q["id"]).correct_answer)
        answers = {q["id"]: _item(q["id"]).typed_answer for q in questions}
        # "x = 2, y = 3" as "x is 2, y is 3 by elimination": right, but neither the key nor its key points
        answers[written["id"]] = _item(written["id"]).correct_answer.replace("=", "is") + " by elimination"
        _runner().command(sid, "submit", answers=answers)
        lesson = _runner().start("lesson", ben, {"skills": ["SQA.MATH.N5.NATURE_OF_ROOTS"], "cards": 1,
                                                 "max_attempts": 1})
        _runner().command(lesson, "answer", answer="I used the discriminant b^2 - 4ac")
        yield {"server": server, "aid": aid, "sid": sid, "written": written, "lesson": lesson,
               "amy": {"role": "student", "user": amy, "name": "Amy Pond", "class_code": CLASS},
               "ben": {"role": "student", "user": ben, "name": "Ben Cole", "class_code": CLASS}}
        shared._open(str(path)).store.close()
        for cached in (shared._open, shared._runner, shared._client):
            cached.clear()
    server.close()


def open_page(page: str, user: dict = TEACHER) -> AppTest:
    return pages.open_page(dict(user), page, timeout=180)


def texts(at: AppTest) -> str:
    kinds = ("markdown", "caption", "error", "warning", "info", "success", "title", "subheader")
    return "\n".join(str(e.value).replace("\\", "") for kind in kinds for e in getattr(at, kind))


def gradebook(aid: str) -> AppTest:
    """The assignment's gradebook, on its tab with the re-mark and the written answers."""
    at = open_page("pages/teacher_gradebook.py")
    at.selectbox(key="gb_assignment").set_value(aid)
    return on_tab(run(at), "Re-mark and written answers")


def on_tab(at: AppTest, name: str) -> AppTest:
    """The gradebook with its tab ``name`` open (only the open tab is drawn)."""
    at.session_state["gb_tab"] = name
    return run(at)


def open_script(at: AppTest, item_id: str) -> AppTest:
    """The script on show, with its question ``item_id`` chosen (only the chosen one is drawn in full)."""
    on_tab(at, "Student scripts")
    session = at.selectbox(key="gb_student").value
    at.selectbox(key=f"gb_q_{session}").set_value(item_id)
    return run(at)


def label(q: dict) -> str:
    return str(q.get("label") or q["number"])


def test_without_an_llm_the_gradebook_says_how_each_written_answer_was_marked(env):
    at = gradebook(env["aid"])
    assert "Written answers" in [s.value for s in at.subheader]
    shown = texts(at)
    assert "0 judged by the LLM" in shown and "Checking written answers for their meaning needs an LLM" in shown
    assert "gb_judge" not in [b.key for b in at.button]
    # on the script of the one student handed in
    assert "Marked by the key points your teacher set" in texts(open_script(at, env["written"]["id"]))
    column = f"Q{label(env['written'])}"
    on_tab(at, "Marks")
    assert at.dataframe[0].value.set_index("Student").loc["Amy Pond", column] == 0    # no key point made


def test_the_teacher_checks_written_answers_with_the_llm_and_the_student_reads_how_it_was_marked(env, monkeypatch):
    server = env["server"]
    monkeypatch.setenv("WORKBENCH_LLM_BASE_URL", server.base_url)
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", "m-default")
    at = gradebook(env["aid"])
    assert server.requests == []
    at.button(key="gb_judge").click()
    run(at)
    assert len(server.requests) == 1 and "by elimination" in str(server.requests[0]["body"]["messages"])
    assert "The LLM judged 1 of 1 written answer(s) in 1 paper(s); 1 mark(s) changed." in texts(at)
    written = env["written"]
    column = f"Q{label(written)}"
    on_tab(at, "Marks")
    assert at.dataframe[0].value.set_index("Student").loc["Amy Pond", column] == written["marks"]
    assert f"Marked by the LLM judge: {REASON}" in texts(open_script(at, env["written"]["id"]))

    on_tab(at, "Re-mark and written answers")
    at.button(key="gb_judge").click()           # nothing left to judge: the model is not asked again
    run(at)
    assert len(server.requests) == 1 and "nothing to send to the LLM" in texts(at)

    mine = open_page("pages/student_exam.py", user=env["amy"])
    mine.button(key=f"see_{env['aid']}").click()
    run(mine)
    for q in _runner().view(env["sid"])["results"]["questions"].values():   # each question's marking, opened
        mine.session_state[f"res_{env['sid']}_{q['number']}"] = True
    run(mine)
    shown = texts(mine)
    screens = [e for e in mine.segmented_control if e.key == f"res_screen_{env['sid']}"]
    for index in range(1, len(screens[0].options) if screens else 0):   # the paper's other screens
        mine.segmented_control(key=f"res_screen_{env['sid']}").set_value(index)
        shown += "\n" + texts(run(mine))
    assert f"Marked by the LLM judge: {REASON}" in shown
    assert "Marked by the key points your teacher set" in shown      # the written answers given as the key


def test_a_teacher_marks_a_lesson_answer_right_and_the_student_reads_why(env):
    at = open_page("pages/teacher_gradebook.py")
    at.radio(key="gb_view").set_value("Written answers in practice")
    run(at)
    assert "Written answers in practice" in [s.value for s in at.subheader]
    table = at.dataframe[0].value
    assert table["Student"].tolist() == ["Ben Cole"] and table["Right"].tolist() == ["❌"]
    assert table["How it was marked"].tolist() == ["Marked by the key points your teacher set"]
    assert table["Answer"].tolist() == ["I used the discriminant b^2 - 4ac"]

    at.button(key="gbw_go").click()
    run(at)
    assert any("Mark the answer right or wrong" in e.value for e in at.error)
    at.radio(key="gbw_verdict").set_value("Right")
    at.text_input(key="gbw_reason").input("Using the discriminant is the method asked for")
    at.button(key="gbw_go").click()
    run(at)
    assert "Ben Cole's answer is now marked right." in texts(at)
    table = at.dataframe[0].value
    assert table["Right"].tolist() == ["✅"]
    assert table["Teacher's mark"].iloc[0].startswith("Right: Using the discriminant")

    progress = open_page("pages/student_progress.py", user=env["ben"])
    assert "Written answers your teacher marked" in [s.value for s in progress.subheader]
    assert "Your teacher marked this right: Using the discriminant is the method asked for" in texts(progress)
