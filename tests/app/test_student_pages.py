"""The student pages through Streamlit's AppTest: practice, lessons, the exit ticket, mock exams, progress.

One database for the module (opening the library and syncing it takes seconds),
with a fresh student on the class roster for each test. AppTest runs the app
in this process, so the test reads the same Runner the app uses (for the
right answers, which the pages never show before marking).
"""
from __future__ import annotations

import itertools
import json
import os
import re
from pathlib import Path
from typing import Iterable, Optional

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pages import open_page, show_question
from ui.blocks import readable as shown_as

ROOT = Path(__file__).resolve().parents[2]
CLASS = "T-CLASS"
TEACHER_PAGES = ["pages/teacher_blueprints.py", "pages/teacher_generate.py", "pages/teacher_review.py",
                 "pages/teacher_exams.py", "pages/teacher_gradebook.py", "pages/teacher_class.py", "pages/home.py"]
WRONG = "definitely not the answer 98765"
WRONG_GUESSES = ("98765", "x + 98765", WRONG, "10.98.76.5", "10.98.76.0/24")
_names = itertools.count(1)


@pytest.fixture(scope="module", params=["duckdb", "postgresql"])
def db(request, tmp_path_factory):
    """The app's database for the module: a DuckDB file, then a PostgreSQL database (every test runs on both)."""
    if request.param == "duckdb":
        path = tmp_path_factory.mktemp("student_pages") / "app.duckdb"
    else:
        path = request.getfixturevalue("pg_cluster").create_database(
            prefix="student_pages", template=request.getfixturevalue("pg_template"))
    mp = pytest.MonkeyPatch()
    mp.setenv("WORKBENCH_DB", str(path))
    mp.chdir(ROOT)
    from core.school.classes import create_class
    from core.store import Store
    from ui import shared
    shared._open.clear()
    shared._runner.clear()
    store = Store(path)  # a class already there: the app skips the slow first-run demo
    create_class(store, CLASS, "Test class", "Mathematics", "Nat 5")
    store.close()
    yield path
    shared._open(str(path)).store.close()  # stops its snapshot thread too
    shared._open.clear()
    shared._runner.clear()
    mp.undo()


def _wb():
    from ui import shared
    return shared._open(os.environ["WORKBENCH_DB"])


def runner():
    """The app's own Runner (AppTest runs in this process, so this is the cached one the pages use)."""
    from ui import shared
    return shared._runner(os.environ["WORKBENCH_DB"])


@pytest.fixture
def student(db) -> dict:
    from core.school.classes import add_student
    name = f"Student {next(_names)} {os.getpid()}"
    sid = add_student(_wb().store, CLASS, name)
    return {"role": "student", "user": sid, "name": name, "class_code": CLASS}


def open_app(user: dict, page: Optional[str] = None) -> AppTest:
    return open_page(user, page)


# ---------------------------------------------------------------------------
# Helpers


def button(at: AppTest, label: str):
    found = [b for b in at.button if b.label == label]
    assert found, f"no button {label!r}; buttons: {[b.label for b in at.button]}"
    return found[0]


def click(at: AppTest, label: str) -> AppTest:
    button(at, label).click()
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def item(item_id: str):
    from core.store import repo
    return repo.load_item(runner().ctx.store, item_id)


def right_answer(item_id: str) -> str:
    it = item(item_id)
    return it.typed_answer


def wrong_answer(item_id: str) -> str:
    """A wrong answer the question can read (an unreadable one would cost nothing and count for nothing)."""
    it = item(item_id)
    if it.options:
        return next(o for k, o in enumerate(it.options) if k != it.correct_index)
    from core.marking import MarkingSpec, mark_answer
    spec = MarkingSpec.from_item(it)
    for guess in WRONG_GUESSES:
        result = mark_answer(spec, guess)
        if result.valid and not result.correct:
            return guess
    return WRONG


def answer(at: AppTest, key: str, item_id: str, value: str) -> AppTest:
    """Fill the answer widget for a question (radio for multiple choice, else the text input).

    A typed answer is entered (a run, as Enter does), so the page shows how it was read before it can count.
    """
    if item(item_id).options:
        at.radio(key=key).set_value(value)
    else:
        at.text_input(key=key).input(value)
        at.run()
        assert not at.exception, [e.value for e in at.exception]
    return at


def texts(at: AppTest, kinds: Iterable[str] = ("markdown", "caption", "success", "warning", "info", "error")) -> str:
    return "\n".join(str(e.value) for kind in kinds for e in getattr(at, kind))


def _proto_strings(msg) -> Iterable[str]:
    for field, value in msg.ListFields():
        repeated = field.is_repeated if hasattr(field, "is_repeated") else field.label == field.LABEL_REPEATED
        values = value if repeated else [value]
        for v in values:
            if field.type == field.TYPE_MESSAGE:
                yield from _proto_strings(v)
            elif isinstance(v, str):
                yield v


def walk_nodes(at: AppTest) -> list:
    out, todo = [], [at._tree]
    while todo:
        node = todo.pop()
        out.append(node)
        todo += list(getattr(node, "children", {}).values())
    return out


def everything_rendered(at: AppTest) -> list[str]:
    """Every string the page sent to the browser: markdown, labels, options, captions, help, html, tables."""
    out: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            out.extend(_proto_strings(proto))
        if getattr(node, "type", None) in ("dataframe", "arrow_data_frame"):
            try:
                out.append(node.value.to_string())
            except Exception:  # noqa: BLE001 - a table that cannot be decoded is simply not searched
                pass
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return [_shown_text(t) for t in out]


def _shown_text(text: str) -> str:
    """What a student can read of a string the page sent: of a figure's SVG or a small document (the exam's
    clock), its text and descriptions, not its drawing's coordinates or its script (the clock's script holds
    numbers such as the 300 seconds at which it turns red, which no student reads)."""
    if "<svg" not in text and "<script" not in text:
        return text
    text = re.sub(r"<(script|style)\b.*?</\1>", " ", text, flags=re.DOTALL | re.IGNORECASE)
    return " ".join(re.findall(r">([^<]*)<", text) + re.findall(r'aria-label="([^"]*)"', text))


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def _token_at(haystack: str, needle: str) -> Optional[int]:
    """Where needle appears in haystack, not as part of a longer number or word (so key '4' is not found in
    '14'); None when it does not."""
    found = re.search(r"(?<![\w.])" + re.escape(needle) + r"(?![\w])", haystack)
    return None if found is None else found.start()


def _has_token(haystack: str, needle: str) -> bool:
    return _token_at(haystack, needle) is not None


def leaks(at: AppTest, item_ids: Iterable[str], allowed: Iterable[str] = ()) -> tuple[list[str], int]:
    """Keys (of items that are not multiple choice) and explanations that the page shows; and how many were checked.

    A key can only be told apart from the rest of the page when it is distinctive:
    keys under 3 characters ("2" is in "Question 2") and keys that a question's
    text or options on the page contain (or other text the student may see,
    ``allowed``) are not checked. Explanations always are.
    """
    ids = list(item_ids)
    items = [item(i) for i in ids]
    shown = _norm("\n".join(everything_rendered(at)))
    legit = _norm("\n".join([*allowed, *(t for it in items for t in [it.stem, *it.options])]))
    found, checked = [], 0
    for it in items:
        if it.explanation and len(it.explanation.strip()) > 12:
            checked += 1
            if _norm(it.explanation) in shown:
                found.append(f"explanation of {it.id}")
        if not it.options:
            for key in {it.correct_answer, *it.accepted_answers}:
                key = _norm(str(key or ""))
                if len(key) < 3 or _has_token(legit, key):
                    continue
                checked += 1
                where = _token_at(shown, key)
                if where is not None:   # said with where it shows, so a failure tells what gave it away
                    found.append(f"key {key!r} of {it.id} ({it.stem[:60]!r}) shown in "
                                 f"{shown[max(0, where - 160):where + 60]!r}")
    return found, checked


def start_practice(at: AppTest, lesson: bool = False, cards: int = 3) -> str:
    if lesson:
        at.radio(key="pr_mode").set_value("Lesson")
        at.run()
        at.slider(key="pr_cards").set_value(cards)
    click(at, "Start")
    sid = at.session_state["practice_sid"]
    assert sid
    return sid


def pick_question(sid: str) -> dict:
    """The question on screen in a practice session."""
    return runner().view(sid)["question"]


# ---------------------------------------------------------------------------
# Each page renders


def test_each_student_page_renders(student):
    at = open_app(student)
    assert at.title[0].value == "Practice"
    boxes = {s.label: s.value for s in at.selectbox}
    assert boxes["Subject"] == "Mathematics" and boxes["Level"] == "Nat 5"   # the class's course
    assert at.selectbox(key="pr_outcome_Mathematics_Nat 5").value == "adaptive"
    assert "MNU-5-02" in at.selectbox(key="pr_outcome_Mathematics_Nat 5").options[2]
    button(at, "Start")

    at.switch_page("pages/student_exam.py").run()
    assert not at.exception
    assert at.title[0].value == "Mock exam"
    assert "has not set an exam" in texts(at)   # the empty state says what to do instead
    button(at, "Start mock exam")

    at.switch_page("pages/student_progress.py").run()
    assert not at.exception
    assert at.title[0].value == "My progress"
    assert "answer a few questions on the Practice page" in texts(at)


# ---------------------------------------------------------------------------
# Rapid fire


def test_practice_right_then_wrong_with_feedback(student):
    at = open_app(student)
    sid = start_practice(at)
    q = pick_question(sid)
    key = f"pa_{sid}_{q['id']}"
    shown = texts(at)
    assert shown_as(q["stem"])[:30] in shown  # maths is shown with its spaces closed up
    answer(at, key, q["id"], right_answer(q["id"]))
    click(at, "Check answer")
    assert at.success and at.success[0].value.startswith("That's right")
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Answered"] == "1" and metrics["Right"] == "1" and metrics["Streak"] == "1"
    assert "**Correct answer:**" in texts(at, ("markdown",))
    if item(q["id"]).explanation:
        assert "**Explanation:**" in texts(at, ("markdown",))

    click(at, "Next question")
    q2 = pick_question(sid)
    assert q2["id"] != q["id"]
    answer(at, f"pa_{sid}_{q2['id']}", q2["id"], wrong_answer(q2["id"]))
    click(at, "Check answer")
    assert at.warning and not at.warning[0].value.startswith(("Right", "Not quite. "))   # the marker's own words
    md = texts(at, ("markdown",))
    it = item(q2["id"])
    assert shown_as(f"**Correct answer:** {it.correct_answer}") in md
    assert "**Key concept:**" in md
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Answered"] == "2" and metrics["Right"] == "1" and metrics["Streak"] == "0"
    assert metrics["Best streak"] == "1"
    button(at, "Finish")
    if runner().view(sid).get("can_try_similar"):
        click(at, "Try a similar one")
        assert runner().view(sid)["stage"] == "question"


def test_an_empty_answer_is_refused_without_using_the_question(student):
    at = open_app(student)
    sid = start_practice(at)
    q = pick_question(sid)
    if q["options"]:
        click(at, "Check answer")
        assert at.warning and "first" in at.warning[0].value
    else:   # nothing typed: nothing to read, and the button waits for an answer
        assert button(at, "Check answer").disabled
        assert "press Enter to see how it is read" in texts(at, ("caption",))
        assert not any("press Enter" in (box.placeholder or "") for box in at.text_input)   # said once, under it
    assert runner().view(sid)["stage"] == "question"


def test_a_reload_continues_the_same_practice_session(student):
    at = open_app(student)
    sid = start_practice(at)
    q = pick_question(sid)
    again = open_app(student)   # a new browser session: st.session_state is empty
    assert again.session_state["practice_sid"] == sid
    assert shown_as(q["stem"])[:30] in texts(again)


def test_finishing_practice_opens_the_exit_ticket(student):
    at = open_app(student)
    sid = start_practice(at)
    q = pick_question(sid)
    answer(at, f"pa_{sid}_{q['id']}", q["id"], right_answer(q["id"]))
    click(at, "Check answer")
    click(at, "Finish")
    assert "practice_sid" not in at.session_state
    survey = at.session_state["exit_ticket_sid"]
    view = runner().view(survey)
    assert view["context"]["practice_session"] == sid and view["context"]["answered"] == 1
    assert at.subheader[0].value == "Exit ticket"
    assert "Question 1 of 4" in texts(at)

    # Rating, then (confident, so the "what was confusing" question is skipped) a choice, then free text.
    rating = at.radio(key=f"sv_{survey}_confidence")
    assert rating.options[0].startswith("1 · Not at all confident")
    click(at, "Next")                              # nothing chosen: the flow's sentence, not a crash
    assert at.error and "needs an answer" in at.error[0].value
    at.radio(key=f"sv_{survey}_confidence").set_value(4)
    click(at, "Next")
    at.radio(key=f"sv_{survey}_difficulty").set_value("About right")
    click(at, "Next")
    at.text_area(key=f"sv_{survey}_what_would_help").input("More examples with fractions")
    click(at, "Next")
    assert at.success and at.success[0].value.startswith("Thank you")
    answers = runner().view(survey)["answers"]
    assert answers == {"confidence": 4, "difficulty": "About right", "what_would_help": "More examples with fractions"}
    click(at, "Practise again")
    assert at.selectbox(key="pr_subject").value == "Mathematics"


# ---------------------------------------------------------------------------
# Lessons


def test_lesson_retry_shows_a_hint_then_reveals_and_summarises(student):
    at = open_app(student)
    sid = start_practice(at, lesson=True, cards=3)
    view = runner().view(sid)
    card = view["card"]
    assert at.subheader[0].value == card["title"]
    assert "Attempts left: 3 of 3" in texts(at)
    qid = card["question"]["id"]
    answer(at, f"la_{sid}_0_0", qid, wrong_answer(qid))
    click(at, "Check answer")
    assert at.warning and not at.warning[0].value.startswith("Not quite. ")
    assert any(i.value.startswith("**Hint 1:**") for i in at.info)
    assert "Attempts left: 2 of 3" in texts(at)
    assert runner().view(sid)["stage"] == "retry"

    answer(at, f"la_{sid}_0_1", qid, right_answer(qid))
    click(at, "Check answer")
    assert at.success and at.success[0].value.startswith("That's right")
    assert shown_as(f"**Answer:** {item(qid).correct_answer}") in texts(at, ("markdown",))
    click(at, "Next card")
    assert runner().view(sid)["card"]["index"] == 1
    click(at, "Skip this card")
    click(at, "Skip this card")
    assert runner().view(sid)["stage"] == "ended"
    assert any(s.value == "How the lesson went" for s in at.subheader)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Cards right"] == "1 of 3"
    click(at, "Start something new")
    assert "practice_sid" not in at.session_state


# ---------------------------------------------------------------------------
# Mock exams


def exam_questions(view: dict) -> list[dict]:
    return [q for s in view["exam"]["sections"] for q in s["questions"]]


def test_exam_saves_answers_as_typed_survives_a_reload_and_shows_results(student):
    at = open_app(student, "pages/student_exam.py")
    # National 5 Physics: a multiple-choice Paper 1 and a Paper 2 of typed answers (the class's Mathematics
    # papers have no multiple choice, as SQA's have none).
    at.selectbox(key="ex_subject").set_value("Physics").run()
    at.selectbox(key="ex_level_Physics").set_value("Nat 5").run()
    click(at, "Start mock exam")
    sid = at.session_state["exam_sid"]
    view = runner().view(sid)
    assert view["stage"] == "sitting" and view["time_remaining_seconds"] > 0
    questions = exam_questions(view)
    typed = next(q for q in questions if not q["options"] and not q.get("steps"))   # one answer box
    chosen = next(q for q in questions if q["options"])
    key_typed, key_chosen = f"ex_{sid}_{typed['id']}", f"ex_{sid}_{chosen['id']}"
    show_question(at, sid, typed["id"]).text_input(key=key_typed).input(right_answer(typed["id"]))
    at.run()
    assert runner().view(sid)["answers"][typed["id"]] == right_answer(typed["id"])   # saved on change
    show_question(at, sid, chosen["id"]).radio(key=key_chosen).set_value(wrong_answer(chosen["id"]))
    at.run()
    assert runner().view(sid)["answers"][chosen["id"]] == wrong_answer(chosen["id"])
    assert not at.exception
    assert any("mock exam" in t.value for t in at.title)
    assert "2 of" in texts(at, ("caption",))

    # A reload: a new browser session finds the exam and fills in what was saved.
    again = open_app(student, "pages/student_exam.py")
    assert again.session_state["exam_sid"] == sid
    assert not again.warning   # prefilled through Session State without a widget-default clash
    assert show_question(again, sid, typed["id"]).text_input(key=key_typed).value == right_answer(typed["id"])
    assert show_question(again, sid, chosen["id"]).radio(key=key_chosen).value == wrong_answer(chosen["id"])
    assert runner().view(sid)["stage"] == "sitting"   # no feedback before submitting

    click(again, "Submit exam")
    assert again.warning and "cannot change your answers" in again.warning[0].value
    assert runner().view(sid)["stage"] == "sitting"   # asked, not yet handed in
    click(again, "Yes, submit my exam")
    view = runner().view(sid)
    assert view["stage"] == "reviewed"
    res = view["results"]
    assert res["questions"][typed["id"]]["correct"] and not res["questions"][chosen["id"]]["correct"]
    metrics = {m.label: m.value for m in again.metric}
    assert metrics["Grade"] == res["grade"] and metrics["Percent"] == f"{res['percent']:g}%"
    assert metrics["Marks"] == f"{res['marks_awarded']:g} / {res['total_marks']:g}"
    assert any(s.value == "What to work on" for s in again.subheader)
    gaps = view["remediation"]
    lost = {}
    for q in res["questions"].values():
        lost[q["outcome_id"]] = lost.get(q["outcome_id"], 0) + q["marks"] - q["marks_awarded"]
    assert [lost[b["outcome_id"]] for b in gaps] == sorted((lost[b["outcome_id"]] for b in gaps), reverse=True)
    assert all(b["label"] in texts(again, ("markdown",)) for b in gaps[:3])   # the biggest gaps in full
    gap = gaps[-1]
    if len(gaps) > 3:   # the rest once asked for: named in a closed expander, drawn when it opens
        more = again.expander[-1]
        assert more.label.startswith(f"{len(gaps) - 3} more outcome") and gap["label"] in more.label
        assert not [b for b in again.button if b.key == f"practise_{gap['outcome_id']}"]
        again.session_state[f"res_more_{sid}"] = True
        again.run()
    assert gap["label"] in texts(again, ("markdown",))

    # Practising a gap outcome opens the practice page with the outcome chosen.
    button(again, "Practise this outcome")
    again.button(key=f"practise_{gap['outcome_id']}").click()
    again.run()
    assert not again.exception
    assert again.title[0].value == "Practice"
    assert again.selectbox(key="pr_subject").value == "Physics"   # the exam's course, not the class's
    assert again.selectbox(key="pr_outcome_Physics_Nat 5").value == gap["outcome_id"]


def test_a_paper_is_sat_a_screen_at_a_time_and_answers_stay_on_every_screen_and_page(student):
    from core.exams.structure import QUESTIONS_PER_SCREEN, screens
    at = open_app(student, "pages/student_exam.py")
    click(at, "Start mock exam")
    sid = at.session_state["exam_sid"]
    view = runner().view(sid)
    expected = screens(view["exam"])
    assert len(expected) > 2
    navigator = at.segmented_control(key=f"exam_screen_{sid}")
    assert navigator.label == "Questions" and len(navigator.options) == len(expected)
    assert navigator.options[0].startswith("Paper 1 · ")   # the section, then the questions on that screen

    def boxes() -> list[str]:
        return [w.key for w in (*at.text_input, *at.radio) if (w.key or "").startswith(f"ex_{sid}_")] + sorted(
            {w.key.split("__")[0] for w in at.checkbox if (w.key or "").startswith(f"ex_{sid}_")})

    first = [q for q in expected[0]["questions"]]
    assert 0 < len(boxes()) <= QUESTIONS_PER_SCREEN + 2 and all(f"ex_{sid}_{q['id']}" in "".join(boxes())
                                                                for q in first)
    # The first screen (but the last) with a typed answer; the paper differs from student to student.
    k, typed = next((k, q) for k, screen in enumerate(expected[:-1]) for q in screen["questions"]
                    if not q["options"] and not q.get("steps"))
    if k:
        at.segmented_control(key=f"exam_screen_{sid}").set_value(k).run()
    at.text_input(key=f"ex_{sid}_{typed['id']}").input("12")
    at.run()
    assert "Not answered yet: " in texts(at, ("caption",))

    # The next screen, by its button: other questions, and back: the answer is still in its box.
    click(at, f"{expected[k + 1]['title']} →")
    assert at.session_state[f"exam_screen_{sid}"] == k + 1
    assert not any(typed["id"] in key for key in boxes())
    assert [h.value for h in at.header] == [expected[k + 1]["section"]["section"]]
    click(at, f"← {expected[k]['title']}")
    assert at.text_input(key=f"ex_{sid}_{typed['id']}").value == "12"

    # Another page and back (Streamlit forgets boxes it does not draw): the saved answer is shown again.
    at.switch_page("pages/student_progress.py").run()
    at.switch_page("pages/student_exam.py").run()
    assert not at.exception
    assert show_question(at, sid, typed["id"]).text_input(key=f"ex_{sid}_{typed['id']}").value == "12"
    assert runner().view(sid)["stage"] == "sitting"


def test_an_answer_to_an_exam_handed_in_elsewhere_is_refused_with_a_sentence(student):
    at = open_app(student, "pages/student_exam.py")
    click(at, "Start mock exam")
    sid = at.session_state["exam_sid"]
    q = next(q for q in exam_questions(runner().view(sid)) if not q["options"] and not q.get("steps"))
    show_question(at, sid, q["id"])   # its screen (the paper differs from student to student)
    runner().command(sid, "submit")   # handed in from another tab while this one still shows the paper
    at.text_input(key=f"ex_{sid}_{q['id']}").input("12")
    at.run()
    assert not at.exception
    assert [e.value for e in at.error] == ["this exam has been submitted; answers can no longer change"]
    assert any(t.value.endswith("your results") for t in at.title)


def test_an_assigned_exam_uses_the_class_paper_and_its_time_limit_is_enforced(student):
    import datetime as dt
    from core.school.classes import assign_exam
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    aid = assign_exam(_wb().store, CLASS, f"Prelim {student['name']}",
                      {"subject": "Mathematics", "level": "Nat 5", "seed": "prelim", "paper_key": "paper:prelim"},
                      now - dt.timedelta(hours=1), now + dt.timedelta(days=1), 30, release="on_submit")
    at = open_app(student, "pages/student_exam.py")
    assert f"Prelim {student['name']}" in texts(at, ("markdown",))
    assert "time limit 30 minutes" in texts(at, ("caption",))
    at.button(key=f"go_{aid}").click()
    at.run()
    assert not at.exception
    sid = at.session_state["exam_sid"]
    from core.store import sessions
    config = sessions.get_session(_wb().store, sid)["config"]
    assert config["assignment_id"] == aid and config["paper_key"] == "paper:prelim"
    assert config["seed"] == "prelim" and config["time_limit_minutes"] == 30
    assert 0 < runner().view(sid)["time_remaining_seconds"] <= 30 * 60

    # The clock passes the limit: the server marks the exam, and the page shows the results.
    ctx = runner().ctx
    real_clock = ctx.clock
    ctx.clock = lambda: real_clock() + 31 * 60
    try:
        at.run()
    finally:
        ctx.clock = real_clock
    assert not at.exception
    assert runner().view(sid)["results"]["expired"]
    assert any(i.value.startswith("Time ran out") for i in at.info)
    # Back on the list, the assignment is handed in and its results can be opened again.
    click(at, "Back to my exams")
    assert "You have handed this one in." in texts(at, ("caption",))
    at.button(key=f"see_{aid}").click()
    at.run()
    assert at.session_state["exam_sid"] == sid and any(t.value.endswith("your results") for t in at.title)


def test_an_assigned_evaluation_is_sat_one_question_at_a_time(student):
    import datetime as dt
    from core.school.classes import assign_exam
    now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    aid = assign_exam(_wb().store, CLASS, f"Fundamentals {student['name']}",
                      {"assessment_id": "MATH-FUNDAMENTALS-L1", "seed": "fund"},
                      now - dt.timedelta(hours=1), now + dt.timedelta(days=1), None, release="on_submit")
    at = open_app(student, "pages/student_exam.py")
    at.button(key=f"go_{aid}").click()
    at.run()
    assert not at.exception
    sid = at.session_state["exam_sid"]
    assert at.title[0].value == "Mathematics Fundamentals - Level 1"
    for n in range(1, 21):
        q = runner().view(sid)["question"]
        assert f"question {n} of 20" in texts(at, ("caption",))
        found, _ = leaks(at, [q["id"]])
        assert not found, found
        answer(at, f"ev_{sid}_{q['id']}", q["id"], right_answer(q["id"]) if n > 1 else wrong_answer(q["id"]))
        click(at, "Save and continue")
    res = runner().view(sid)["results"]
    assert res["items_correct"] == 19
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Score"] == f"{res['score_percent']:g}%" and metrics["Result"] == "Passed"


# ---------------------------------------------------------------------------
# The answer preview: how a typed answer is read, before it counts

UNREADABLE = "2*(x+"   # ends too early, and holds no number


def readable(item_id: str, text: str) -> bool:
    from core.flows.preview import preview
    return preview(item(item_id), text)["valid"]


def typed_practice_question(at: AppTest, sid: str) -> dict:
    """Skip until the question on screen is typed and cannot read UNREADABLE."""
    for _ in range(40):
        q = pick_question(sid)
        if not q["options"] and not q.get("steps") and not readable(q["id"], UNREADABLE):
            return q
        runner().command(sid, "skip")
        at.run()
    pytest.skip("no typed question came up")


def test_practice_previews_a_typed_answer_and_an_unreadable_one_costs_nothing(student):
    at = open_app(student)
    sid = start_practice(at)
    q = typed_practice_question(at, sid)
    key = f"pa_{sid}_{q['id']}"
    at.text_input(key=key).input(UNREADABLE)
    at.run()
    assert not at.exception
    warning = next(w.value for w in at.warning if "could not be read" in w.value)
    assert "has not been counted" in warning
    assert button(at, "Check answer").disabled
    view = runner().view(sid)
    assert view["stage"] == "question" and view["stats"]["total"] == 0

    right = right_answer(q["id"])
    answer(at, key, q["id"], right)
    shown = texts(at, ("markdown",))
    assert "Your answer was read as:" in shown
    assert not any("could not be read" in w.value for w in at.warning)
    assert not button(at, "Check answer").disabled
    click(at, "Check answer")
    assert runner().view(sid)["stage"] == "feedback" and runner().view(sid)["stats"]["total"] == 1
    assert "Read as:" in texts(at, ("markdown",))


def test_a_changed_answer_is_shown_as_read_before_it_counts(student):
    at = open_app(student)
    sid = start_practice(at)
    q = typed_practice_question(at, sid)
    key = f"pa_{sid}_{q['id']}"
    answer(at, key, q["id"], wrong_answer(q["id"]))
    at.text_input(key=key).input(right_answer(q["id"]))      # changed and checked in one go, as a quick click does
    click(at, "Check answer")
    assert any("then press Check answer again" in i.value for i in at.info)
    assert "Your answer was read as:" in texts(at, ("markdown",))
    assert runner().view(sid)["stage"] == "question"           # not counted yet
    click(at, "Check answer")
    view = runner().view(sid)
    assert view["stage"] == "feedback" and view["feedback"]["answer"] == right_answer(q["id"])


def test_lesson_an_unreadable_answer_uses_no_attempt(student):
    at = open_app(student)
    from core.flows.preview import preview
    skill = "SQA.MATH.N5.EXPAND_BRACKETS"
    sid = runner().start("lesson", student["user"], {"skills": [skill], "cards": 1, "seed": "preview"})
    at.session_state["practice_sid"] = sid
    at.run()
    card = runner().view(sid)["card"]
    qid = card["question"]["id"]
    assert not preview(item(qid), UNREADABLE)["valid"]
    at.text_input(key=f"la_{sid}_0_0").input(UNREADABLE)
    at.run()
    assert any("could not be read" in w.value for w in at.warning)
    assert button(at, "Check answer").disabled
    assert "Attempts left: 3 of 3" in texts(at)
    answer(at, f"la_{sid}_0_0", qid, wrong_answer(qid))
    assert "Your answer was read as:" in texts(at, ("markdown",))
    click(at, "Check answer")
    assert "Attempts left: 2 of 3" in texts(at)
    assert "Read as:" in texts(at, ("markdown",))


def test_exam_previews_each_answer_and_names_the_unreadable_before_hand_in(student):
    at = open_app(student, "pages/student_exam.py")
    click(at, "Start mock exam")
    sid = at.session_state["exam_sid"]
    typed = [q for q in exam_questions(runner().view(sid))
             if not q["options"] and not q.get("steps") and not readable(q["id"], UNREADABLE)]   # one box each
    assert len(typed) >= 2
    bad, good = typed[0], typed[1]
    show_question(at, sid, bad["id"]).text_input(key=f"ex_{sid}_{bad['id']}").input(UNREADABLE)
    at.run()
    assert runner().view(sid)["answers"][bad["id"]] == UNREADABLE          # kept as typed
    warning = next(w.value for w in at.warning if "could not be read" in w.value)
    assert "saved as you typed it" in warning
    show_question(at, sid, good["id"]).text_input(key=f"ex_{sid}_{good['id']}").input(right_answer(good["id"]))
    at.run()
    assert not at.exception
    assert "Your answer was read as:" in texts(at, ("markdown",))
    click(at, "Submit exam")
    assert "cannot change your answers" in at.warning[-2].value
    assert at.warning[-1].value.startswith(f"Could not be read: question {bad['number']}.")
    click(at, "Yes, submit my exam")
    res = runner().view(sid)["results"]["questions"]
    assert res[bad["id"]]["unreadable"] and not res[bad["id"]]["correct"]
    assert res[good["id"]]["read_as"]


# ---------------------------------------------------------------------------
# Progress


def markdown_rows(at: AppTest, first: str) -> list[dict]:
    """The rows of the plain (markdown) table whose first column is ``first``, as {column: text shown}."""
    for block in at.markdown:
        lines = block.value.splitlines()
        if lines and lines[0].startswith(f"| {first} |"):
            cells = [[re.sub(r"\\(.)", r"\1", c.strip()) for c in re.split(r"(?<!\\)\|", line)[1:-1]]
                     for line in lines]
            return [dict(zip(cells[0], row)) for row in cells[2:]]
    raise AssertionError(f"no table with the column {first!r}")


def test_progress_shows_mastery_history_and_what_to_practise_next(student):
    at = open_app(student)
    sid = start_practice(at)
    for right in (True, False, True):
        q = pick_question(sid)
        answer(at, f"pa_{sid}_{q['id']}", q["id"], (right_answer if right else wrong_answer)(q["id"]))
        click(at, "Check answer")
        click(at, "Next question")
    at.switch_page("pages/student_progress.py").run()
    assert not at.exception
    assert "Mastery over time" in [e.label for e in at.expander] and not at.multiselect, "drawn once opened"
    at.session_state["pr_history_open"] = True
    at.run()
    from core.school import progress
    rows = progress.student_mastery(_wb().store, _wb().library, student["user"])
    assert rows
    skills, recent = (markdown_rows(at, first) for first in ("Skill", "What"))
    assert [row["Skill"] for row in skills] == [r["name"] for r in rows]
    assert [row["Mastery"] for row in skills] == [f"{r['percent']}%" for r in rows]
    by_skill = [n for n in walk_nodes(at) if getattr(n, "type", None) == "vega_lite_chart"]
    assert len(by_skill) == 1
    spec = json.loads(by_skill[0].proto.spec)
    assert spec["encoding"]["y"]["field"] == "Skill" and spec["encoding"]["x"]["scale"]["domain"] == [0, 100]
    import pyarrow as pa
    bars = pa.ipc.open_stream(by_skill[0].proto.data.data).read_all().to_pylist()   # the data sent with it
    assert [(v["Skill"], v["Mastery (%)"], v["Level"]) for v in bars] == [(r["name"], r["percent"], r["band"]) for r in rows]
    over_time = [n for n in walk_nodes(at) if getattr(n, "type", None) == "plotly_chart"
                 and n.key == "mastery_over_time"]
    shown = at.multiselect(key="pr_skills").value            # mastery over time, the weakest skills first
    assert len(over_time) == 1 and shown and all(name in over_time[0].proto.spec for name in shown)
    nxt = progress.next_to_practise(rows)
    assert nxt and nxt["name"] in texts(at, ("markdown",))
    weakest = min(rows, key=lambda r: r["score"])
    assert nxt["percent"] == weakest["percent"]
    assert recent[0]["What"] == "Rapid-fire practice" and recent[0]["Status"] == "In progress"
    score, out_of = _wb().store.query("SELECT sum(score), sum(max_score) FROM responses WHERE session_id = ?", [sid])[0]
    assert recent[0]["Score"] == f"{score:g} / {out_of:g} ({round(100 * score / out_of)}%)" and 0 < score < out_of
    click(at, "Practise it now")
    assert at.title[0].value == "Practice"
    at.switch_page("pages/student_practice.py")   # AppTest would rerun the page it last switched to, not this one
    # The unfinished session comes first; once finished, the weakest outcome is preselected.
    assert any("Finish this session first" in i.value for i in at.info)
    click(at, "Finish")
    click(at, "Not now")
    key = f"pr_outcome_{nxt['subject']}_{nxt['level']}"
    assert at.selectbox(key=key).value == nxt["outcome"]


# ---------------------------------------------------------------------------
# Answer secrecy


def test_nothing_rendered_before_marking_gives_an_answer_away(student):
    checked = 0
    # Rapid fire, several questions, at the question stage.
    at = open_app(student)
    sid = start_practice(at)
    for _ in range(4):
        q = pick_question(sid)
        found, n = leaks(at, [q["id"]])
        assert not found, found
        checked += n
        answer(at, f"pa_{sid}_{q['id']}", q["id"], wrong_answer(q["id"]))
        click(at, "Check answer")
        # The collector does see the key once it may be shown (so the check above means something).
        assert _norm(shown_as(item(q["id"]).correct_answer)) in _norm("\n".join(everything_rendered(at)))
        click(at, "Next question")
    click(at, "Finish")
    click(at, "Not now")

    # A lesson, before each card is revealed (a wrong attempt included).
    lesson = start_practice(at, lesson=True, cards=3)
    for index in range(3):
        card = runner().view(lesson)["card"]
        example = card["teaching"].get("example") or {}
        allowed = [str(example.get(k) or "") for k in ("stem", "answer", "explanation")]
        qid = card["question"]["id"]
        found, n = leaks(at, [qid], allowed)
        assert not found, found
        checked += n
        answer(at, f"la_{lesson}_{index}_0", qid, wrong_answer(qid))
        click(at, "Check answer")
        found, _ = leaks(at, [qid], allowed)
        assert not found, found
        click(at, "Skip this card")
    assert runner().view(lesson)["stage"] == "ended"
    click(at, "Start something new")

    # A mock exam before it is submitted, with an answer saved.
    at.switch_page("pages/student_exam.py").run()
    click(at, "Start mock exam")
    exam = at.session_state["exam_sid"]
    questions = exam_questions(runner().view(exam))
    typed = next(q for q in questions if not q["options"] and not q.get("steps"))
    show_question(at, exam, typed["id"]).text_input(key=f"ex_{exam}_{typed['id']}").input("7")
    at.run()
    for index in range(len(at.segmented_control(key=f"exam_screen_{exam}").options)):   # every screen
        at.segmented_control(key=f"exam_screen_{exam}").set_value(index).run()
        numbers = [c.value for c in at.caption if c.value.startswith("Not answered yet:")]   # question numbers
        # and what the paper itself says: its figures ("42 questions · 110 marks · 185 minutes") and its
        # instructions (the formulae list names "1/2 ab sin C"), which a key can equal
        numbers += [c.value for c in at.caption if " questions · " in c.value]
        numbers += runner().view(exam)["exam"]["instructions"]
        found, n = leaks(at, [q["id"] for q in questions], allowed=["7", *numbers])
        assert not found, (index, found)
        checked += n
    assert checked >= 30, f"only {checked} secrets could be checked"


# ---------------------------------------------------------------------------
# Access


def test_a_student_cannot_reach_teacher_pages(student):
    """The navigation offers a student no teacher page; asking for one anyway shows no teacher content.

    Because the pages live in a folder called ``pages/`` next to app.py, Streamlit
    also runs in its multipage "v1" mode: a page asked for by URL runs that file
    directly, without app.py's navigation. So each teacher page must stop at its
    own role check; this test covers both ways in.
    """
    from streamlit.util import calc_hash
    refusal = "This page is not available to you. Sign in with the right account."
    at = open_app(student)
    for page in TEACHER_PAGES:
        # AppTest switches only to registered pages. In "v1" mode every file in pages/ is registered;
        # without it (the folder renamed) a teacher page is not, and we ask for it as a typed URL would.
        try:
            at.switch_page(page)
        except ValueError:
            at._page_hash = calc_hash(Path(page).stem)
        # Either way no teacher content: the student's default page, or the teacher page stopped
        # at its role check.
        at.run()
        assert not at.exception, page
        titles = [t.value for t in at.title]
        if titles != ["Practice"]:
            assert not titles and [e.value for e in at.error] == [refusal], (page, titles)
            assert everything_rendered(at) == [refusal], page
        shown = "\n".join(everything_rendered(at))
        assert "Skill blueprints" not in shown and "teacher passcode" not in shown.lower()
    # Run on its own (outside the app's navigation), each teacher page stops at its role check.
    for page in TEACHER_PAGES:
        direct = AppTest.from_file(str(ROOT / page), default_timeout=60)
        direct.session_state["user"] = student
        direct.run()
        assert not direct.exception, page
        assert [e.value for e in direct.error] == [refusal], page
        assert everything_rendered(direct) == [refusal], page


# ---------------------------------------------------------------------------
# Ability per outcome, in plain words


def test_progress_shows_each_outcomes_ability_in_plain_words(student):
    from core.school import courses, progress
    r = runner()
    sid = r.start("practice", student["user"], {"subject": "Mathematics", "level": "Nat 5", "outcome": "MNU-5-02",
                                                "seed": 3})
    for n in range(3):
        q = r.view(sid)["question"]
        r.command(sid, "answer", item_id=q["id"], answer=(wrong_answer if n == 1 else right_answer)(q["id"]))
        r.command(sid, "next")
    at = open_app(student, "pages/student_progress.py")
    assert "How each outcome is going" in [h.value for h in at.subheader]
    shown = texts(at)
    label = next(o["label"] for o in courses.outcomes(_wb().library, "Mathematics", "Nat 5") if o["id"] == "MNU-5-02")
    assert f"**{label}** · Mathematics Nat 5" in shown
    ability = progress.student_outcomes(_wb().store, _wb().library, student["user"])[0]["words"]
    # A band and a likely range in words, what it rests on, and a note that three answers are too few.
    assert f"Working at: **{ability['working_at']}**: about " in shown and "typical questions right" in shown
    assert "Based on 3 answers, 2 of them right." in shown
    assert "This rests on only 3 answers: a few more will make it surer." in shown
    assert any(m.help and "logit" in m.help for m in at.markdown)   # the number itself only as help
    # Skills are named (never their ids) and rolled up under their outcome.
    assert "Skills: mastery " in shown and "SQA.MATH" not in "\n".join(everything_rendered(at))


def test_each_step_box_is_shown_as_read_before_the_final_answer_is_written(student):
    """A question answered step by step: the first box is shown as read as soon as it is entered, before the
    final answer is written, and a box that cannot be read is named, as one answer box's preview does."""
    at = open_app(student)
    at.selectbox(key="pr_subject").set_value("Mathematics").run()
    at.selectbox(key="pr_level_Mathematics").set_value("Higher").run()
    at.selectbox(key="pr_outcome_Mathematics_Higher").set_value("MTH-H-01").run()   # two stepped skills of five
    sid = start_practice(at)
    for _ in range(40):
        q = pick_question(sid)
        if q.get("steps") and not q["options"]:
            break
        runner().command(sid, "skip")
        at.run()
    else:
        pytest.fail("no question answered step by step came up in 40 questions of MTH-H-01")
    first = f"pa_{sid}_{q['id']}__step{q['steps'][0]['index']}"
    at.text_input(key=first).input("1 1/3").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Step 1 was read as: $1\\frac{1}{3}$" in texts(at, ("markdown",))
    at.text_input(key=first).input(UNREADABLE).run()
    assert any(w.value.startswith("Step 1 could not be read.") and "has not been counted" in w.value
               for w in at.warning)
    assert runner().view(sid)["stats"]["total"] == 0
