"""Choose-several questions (as imported from Moodle, GIFT or QTI) through Streamlit's AppTest: practised with
tick boxes, sat in a mock exam (saved as ticked, kept over a reload, part-marked), shown on the Review page with
every right option ticked and its key edited as letters, and printed with its marking scheme.

One database for the module. An approved imported question reaches students of a class that gets approved
questions only; in a mock exam it takes the place of the paper's first question (the paper is otherwise drawn as
usual), since the course's papers are drawn from its blueprints and banks.
"""
from __future__ import annotations

import dataclasses
import itertools
import os
from typing import Optional

import pytest

from tests.app.test_student_pages import click, open_app, pick_question, runner, start_practice, texts

APPROVED_CLASS = "MR-APPROVED"   # gets teacher-approved questions only: practice draws the imported question
OPEN_CLASS = "MR-OPEN"           # the usual class: mock exams drawn from blueprints and banks
OUTCOME = "MNU-5-02"
OPTIONS = ["2", "3", "4", "5"]
TEACHER = {"role": "teacher", "user": "teacher", "name": "Teacher"}
_names = itertools.count(1)


PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")


def choose_several(item_id: str, marks: int = 2, outcome: str = OUTCOME, key: str = "B, D",
                   fractions: Optional[list] = None, picture: bool = False):
    """A choose-several question as the importer stores it (Moodle's 50 / 50 / -100 weights)."""
    from core.items.generator import Item
    return Item(
        id=item_id, blueprint_id=None, blueprint_version=None, blueprint_hash="", source="import", seed="",  # type: ignore[arg-type]
        difficulty_level="medium", difficulty_value=0.5, item_type="multiple_response",
        stem=f"Which of these numbers are odd? ({item_id})" + ("\n\n![a number line](line.png)" if picture else ""),
        media=[{"name": "line.png", "mime": "image/png", "data": PNG}] if picture else [], options=list(OPTIONS),
        option_strategies=[None, None, None, None], options_shuffled=False, correct_answer=key, correct_index=None,
        answer_value=key, accepted_answers=[], misconceptions={},
        explanation="An odd number leaves 1 when it is divided by 2.", hints=[], answer_type="string", units=None,
        marks=marks, marking_scheme={"criteria": [], "total_marks": marks},
        evaluation={"method": "multiple_response", "fractions": fractions or [-1.0, 0.5, -1.0, 0.5],
                    "partial_credit": False},
        generation_params={}, computed_values={}, subject="Mathematics", level="Nat 5", outcome_ids=[outcome],
        skill_ids=[], calculator="optional", content_key=f"mr-{item_id}",
        origin={"file": "odd.xml", "format": "moodle_xml", "question": "Odd numbers"})


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("choose_several") / "app.duckdb"
    mp = pytest.MonkeyPatch()
    mp.setenv("WORKBENCH_DB", str(path))
    mp.delenv("WORKBENCH_TEACHER_PASSCODE", raising=False)
    mp.delenv("WORKBENCH_TEACHER_PASSCODE_HASH", raising=False)
    from tests.app.test_student_pages import ROOT
    mp.chdir(ROOT)
    from core.school.classes import create_class
    from core.store import Store, repo
    from ui import shared
    shared._open.clear()
    shared._runner.clear()
    store = Store(path)
    create_class(store, APPROVED_CLASS, "Approved only", "Mathematics", "Nat 5", approved_items_only=True)
    create_class(store, OPEN_CLASS, "Open", "Mathematics", "Nat 5")
    repo.insert_items(store, [choose_several("imp_odd_practice", picture=True)], status="approved")
    repo.insert_items(store, [choose_several("imp_odd_review")], status="draft")
    store.close()
    yield path
    shared._open(str(path)).store.close()
    shared._open.clear()
    shared._runner.clear()
    mp.undo()


def new_student(class_code: str) -> dict:
    from core.school.classes import add_student
    from ui import shared
    name = f"Tick {next(_names)} {os.getpid()}"
    sid = add_student(shared._open(os.environ["WORKBENCH_DB"]).store, class_code, name)
    return {"role": "student", "user": sid, "name": name, "class_code": class_code}


def _elements(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _elements(child)


def tick(at, key: str, letters: str):
    """Tick exactly the options named ("B, D") in a question's tick boxes."""
    wanted = {ord(c) - 65 for c in letters.replace(",", " ").split()}
    for k in range(len(OPTIONS)):
        box = at.checkbox(key=f"{key}__tick{k}")
        box.check() if k in wanted else box.uncheck()
    return at


def only_ours_approved() -> None:
    """The course's own approved bank questions on the outcome set aside, so practice draws the imported one
    (the app has synced its banks into the database by now)."""
    from core.store import repo
    store = runner().ctx.store
    store.write(lambda cur: cur.execute(
        "UPDATE items SET status = 'rejected' WHERE status = 'approved' AND id NOT LIKE 'imp_odd_%' "
        "AND list_contains(CAST(outcome_ids AS VARCHAR[]), ?)", [OUTCOME]))
    repo.bank_changed()


def practise(at, letters: str) -> dict:
    """Start practice on the outcome, tick the options and check: the question that was on screen."""
    only_ours_approved()
    at.selectbox(key="pr_outcome_Mathematics_Nat 5").set_value(OUTCOME)
    at.run()
    sid = start_practice(at)
    q = pick_question(sid)
    key = f"pa_{sid}_{q['id']}"
    assert q["id"] == "imp_odd_practice" and q["choose_several"] is True
    # the stored view names the picture; the page reads the file from the item
    assert q["media"] == [{"name": "line.png", "mime": "image/png"}]
    assert any(type(e).__name__ == "Image" for e in _elements(at.main))
    shown = texts(at)
    assert "Choose all the right answers." in shown
    labels = [at.checkbox(key=f"{key}__tick{k}").label for k in range(len(OPTIONS))]
    assert labels == ["**A.** 2", "**B.** 3", "**C.** 4", "**D.** 5"]
    assert not at.radio or all(r.key != key for r in at.radio)   # tick boxes, not one choice
    tick(at, key, letters)
    click(at, "Check answer")
    return {"sid": sid, "question": q}


def test_a_choose_several_question_is_practised_with_tick_boxes_and_part_marked(db):
    at = open_app(new_student(APPROVED_CLASS))
    done = practise(at, "B")
    assert at.warning and "Your tick is right, but one right option is missing." in at.warning[0].value
    md = texts(at, ("markdown",))
    assert "**Correct answer:** B and D: 3, 5" in md
    assert "**Your answer:** B" in md
    feedback = runner().view(done["sid"])["feedback"]
    assert feedback["correct"] is False and feedback["answer"] == "B"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Answered"] == "1" and metrics["Right"] == "0"
    score = runner().ctx.store.query("SELECT score, max_score, answer FROM responses WHERE session_id = ?",
                                     [done["sid"]])
    assert [tuple(r) for r in score] == [(1.0, 2.0, "B")]    # half of the 2 marks: Moodle's 50%


def test_ticking_every_right_option_is_right(db):
    at = open_app(new_student(APPROVED_CLASS))
    done = practise(at, "B, D")
    assert at.success and at.success[0].value.startswith("That's right")
    assert runner().view(done["sid"])["feedback"]["correct"] is True
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Right"] == "1"


def test_nothing_ticked_is_refused_without_using_the_question(db):
    at = open_app(new_student(APPROVED_CLASS))
    only_ours_approved()
    at.selectbox(key="pr_outcome_Mathematics_Nat 5").set_value(OUTCOME)
    at.run()
    sid = start_practice(at)
    click(at, "Check answer")
    assert at.warning and "first" in at.warning[0].value
    assert runner().view(sid)["stage"] == "question"


# ---------------------------------------------------------------------------
# A mock exam


@pytest.fixture
def exam_with_choose_several(db, monkeypatch):
    """Mock exams whose first question is the choose-several one (worth what that slot is worth)."""
    import core.flows.exam as exam_flow
    real = exam_flow.assemble_sections

    def assemble(*args, **kwargs):
        drawn = real(*args, **kwargs)
        first = drawn[0]["questions"][0]
        item = choose_several("imp_odd_exam", marks=first.marks, outcome=first.outcome_id)
        drawn[0]["questions"][0] = dataclasses.replace(first, item=item)
        return drawn

    monkeypatch.setattr(exam_flow, "assemble_sections", assemble)
    return "imp_odd_exam"


def test_a_mock_exam_saves_ticks_as_letters_keeps_them_over_a_reload_and_part_marks(exam_with_choose_several):
    item_id = exam_with_choose_several
    student = new_student(OPEN_CLASS)
    at = open_app(student, "pages/student_exam.py")
    click(at, "Start mock exam")
    sid = at.session_state["exam_sid"]
    view = runner().view(sid)
    q = view["exam"]["sections"][0]["questions"][0]
    assert q["id"] == item_id and q["choose_several"] is True
    key = f"ex_{sid}_{item_id}"
    assert "Choose all the right answers." in texts(at)

    at.checkbox(key=f"{key}__tick1").check()
    at.run()
    assert runner().view(sid)["answers"][item_id] == "B"          # saved as it is ticked
    at.checkbox(key=f"{key}__tick3").check()
    at.run()
    assert runner().view(sid)["answers"][item_id] == "B, D"
    assert not at.exception

    # A reload: a new browser session ticks what the server saved.
    again = open_app(student, "pages/student_exam.py")
    assert [again.checkbox(key=f"{key}__tick{k}").value for k in range(4)] == [False, True, False, True]
    assert not again.warning
    again.checkbox(key=f"{key}__tick1").uncheck()
    again.run()
    assert runner().view(sid)["answers"][item_id] == "D"

    click(again, "Submit exam")
    click(again, "Yes, submit my exam")
    res = runner().view(sid)["results"]
    mine = res["questions"][item_id]
    assert mine["correct"] is False and mine["answer"] == "D"
    assert mine["marks_awarded"] == pytest.approx(mine["marks"] / 2)     # one of two right options: half
    assert mine["correct_answer"] == "B and D: 3, 5"
    assert mine["feedback"] == "Your tick is right, but one right option is missing."
    again.session_state[f"res_{sid}_{mine['number']}"] = True     # the question's marking, opened
    again.run()
    shown = texts(again, ("markdown",))
    assert "**Correct answer:** B and D: 3, 5" in shown

    # The teacher's view of the script: the letters ticked beside the right options.
    from core.exams import gradebook
    script = gradebook.script(runner(), sid)
    [row] = [r for r in script["questions"] if r["item_id"] == item_id]
    assert row["answer"] == "D" and row["correct_answer"] == "B and D: 3, 5" and row["options"] == OPTIONS
    assert row["marks_awarded"] == pytest.approx(row["marks"] / 2)


def _answer_box_page() -> None:
    import streamlit as st

    from ui.answer import answer_box
    question = {"id": "q1", "options": ["2", "3", "4", "5"], "choose_several": True}
    st.session_state["got"] = answer_box(question, "box", "Save and continue", default="d, b")


def test_an_earlier_answer_pre_ticks_its_options_and_is_sent_as_letters():
    from streamlit.testing.v1 import AppTest
    at = AppTest.from_function(_answer_box_page, default_timeout=60).run()
    assert [at.checkbox(key=f"box__tick{k}").value for k in range(4)] == [False, True, False, True]
    assert at.session_state["got"] == (False, "B, D")
    at.checkbox(key="box__tick0").check()
    at.button[0].click()
    at.run()
    assert not at.exception
    assert at.session_state["got"] == (True, "A, B, D")


def test_a_conflicting_save_describes_the_ticked_options():
    from ui.exam_answers import describe
    q = {"options": OPTIONS, "choose_several": True}
    assert describe("D,b", q) == "“B, D” (3; 5)"
    assert describe("", q) == "(no option ticked)"
    assert describe("B, D") == "“B, D”"


# ---------------------------------------------------------------------------
# Review


def test_review_ticks_every_right_option_and_takes_the_key_as_letters(db):
    from tests.app.test_teacher_review_class import open_editor, open_page
    at = open_page("pages/teacher_review.py", TEACHER)
    shown = texts(at, ("markdown",))
    assert "**B.** 3 ✅" in shown and "**D.** 5 ✅" in shown
    assert "**A.** 2 ✅" not in shown and "**C.** 4 ✅" not in shown
    iid = "imp_odd_review"
    open_editor(at, iid)
    assert at.text_input(key=f"rv_key_{iid}").label.endswith("(the letters of the right options, such as A, C)")

    at.text_input(key=f"rv_key_{iid}").input("3, 5")        # option texts, not letters
    at.button(key=f"rv_save_{iid}").click()
    at.run()
    assert at.error and "letters of the right options" in at.error[0].value

    at.text_input(key=f"rv_key_{iid}").input("d b")
    at.button(key=f"rv_save_{iid}").click()
    at.run()
    assert not at.exception
    from core.store import repo
    row = repo.get_item(runner().ctx.store, iid)
    assert row["status"] == "approved" and row["answer_key"] == "B, D"
    assert row["evaluation"]["fractions"] == [-1.0, 0.5, -1.0, 0.5]     # the same right options: kept


def test_changing_which_options_are_right_resets_their_fractions(db):
    from core.items import review
    from core.store import repo
    store = runner().ctx.store
    repo.insert_items(store, [choose_several("imp_odd_edit")], status="draft")
    review.edit_and_approve(store, "imp_odd_edit", "Which of these are prime?", "b, a, d", "2, 3 and 5 are prime.",
                            list(OPTIONS))
    row = repo.get_item(store, "imp_odd_edit")
    assert row["answer_key"] == "A, B, D" and row["status"] == "approved"
    third = 1 / 3
    assert row["evaluation"]["fractions"] == [third, third, -third, third]
    assert row["evaluation"]["method"] == "multiple_response"
    with pytest.raises(review.ReviewError, match="there is no E"):
        review.edit_and_approve(store, "imp_odd_edit", "Which of these are prime?", "A, E", "", list(OPTIONS))


# ---------------------------------------------------------------------------
# Printing


def test_a_printed_paper_asks_for_every_right_answer_and_its_scheme_lists_them(db):
    from core.exams import papers, printing
    source = runner().ctx.source
    paper = papers.build_paper(source, "Mathematics", "Nat 5", "choose-several")
    section = paper["sections"][0]
    first = section["questions"][0]
    item = choose_several("imp_odd_print", marks=first["marks"], outcome=first["outcome_id"])
    swapped = papers._question(item, first["number"], first["marks"], first["section"], first["outcome_id"], "bank")
    swapped.update(question=first.get("question"), part=first.get("part"), label=first.get("label"))
    section["questions"][0] = swapped

    html = printing.paper_html(paper)
    assert "Choose all the right answers." in html
    assert '<span class="letter">B</span>3' in html and '<span class="letter">D</span>5' in html
    assert "B: 3" not in html and "B and D" not in html    # no key on the question paper

    scheme = printing.marking_scheme_html(paper)
    assert "B: 3; D: 5" in scheme
    assert "Choose all the right options" in scheme
    assert "A −100%, B +50%, C −100%, D +50%" in scheme
    assert printing.answer_text(swapped) == "B: 3; D: 5"
