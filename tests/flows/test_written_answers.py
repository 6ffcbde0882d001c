"""A teacher reads a class's written answers from practice and lessons and marks one right or wrong, with a
reason: an event on the student's session, the responses row rescored, and the note the student reads."""
from __future__ import annotations

import pytest

from core.blueprints.loader import parse_text
from core.flows.registry import make_runner
from core.items.banks import bank_question_to_item
from core.school import written_answers
from core.school.classes import add_student, create_class
from core.school.written_answers import WrittenAnswerError
from core.store import repo, sessions

GEO_SPEC = """spec_id: GEO-N5-PRACTICE
subject: Geography
level: Nat 5
outcomes: [{id: GEO-5-01, label: Reading maps, weight: 1}]
assessment_structure: [{section: Paper, outcome_ids: [GEO-5-01], marks: 2, time_allowed_minutes: 20}]
"""
WRITTEN = "geo_written_1"
CLASS = "WA-1"


@pytest.fixture
def geo(library, store):
    spec = parse_text(GEO_SPEC, "geo.yaml")
    library.specs[spec.id] = spec
    repo.insert_items(store, [bank_question_to_item(
        {"id": WRITTEN, "subject": "Geography", "level": "Nat 5", "outcome_id": "GEO-5-01", "marks": 2,
         "text": "Name the feature shown by contour lines close together.", "answer": "steep slope",
         "item_type": "short_text", "keywords": ["steep"]}, source="local")], status="approved")
    yield library
    del library.specs[spec.id]


@pytest.fixture
def students(store):
    create_class(store, CLASS, "Written answers", "Geography", "Nat 5")
    return {name: add_student(store, CLASS, name) for name in ("Amy Pond", "Ben Cole")}


def response(store, sid: str, item_id: str, attempt: int = 1) -> dict:
    return next(r for r in sessions.session_responses(store, sid)
                if r["item_id"] == item_id and r["attempt"] == attempt)


def test_a_teacher_marks_a_practice_written_answer_right_and_the_student_sees_why(store, geo, students, clock):
    runner = make_runner(store, geo, clock=clock)
    amy = students["Amy Pond"]
    sid = runner.start("practice", amy, {"subject": "Geography", "level": "Nat 5", "outcome": "GEO-5-01"})
    assert runner.view(sid)["question"]["id"] == WRITTEN
    view = runner.command(sid, "answer", item_id=WRITTEN, answer="the ground rises sharply")
    assert view["feedback"]["correct"] is False and view["feedback"]["judged"] is None   # no LLM: key points
    assert response(store, sid, WRITTEN)["correct"] is False

    [row] = written_answers.recent(store, CLASS)
    assert (row["name"], row["where"], row["answer"], row["correct"]) == ("Amy Pond", "Practice",
                                                                          "the ground rises sharply", False)
    assert row["how_marked"] == "Marked by the key points your teacher set"
    assert "0 of the 1 key points" in row["feedback"] and row["teacher_mark"] is None
    assert written_answers.frame([row]).loc[0, "Right"] == "❌"

    clock.advance(60)
    mark = written_answers.mark(runner, row["session_id"], row["seq"], True, "Rising sharply is the same as steep",
                                "ms-teach")
    assert mark["correct"] is True and mark["teacher"] == "ms-teach" and mark["marker_correct"] is False
    saved = response(store, sid, WRITTEN)
    assert saved["correct"] is True and saved["score"] == saved["max_score"] == 2.0
    assert saved["answer"] == "the ground rises sharply"          # the answer as given is kept
    [event] = [e for e in sessions.load_events(store, sid) if e["type"] == "teacher_marked"]
    assert event["payload"]["answer_seq"] == row["seq"] and event["payload"]["reason"] == \
        "Rising sharply is the same as steep"

    [row] = written_answers.recent(store, CLASS)
    assert row["correct"] is True and row["marker_correct"] is False
    assert written_answers.frame([row]).loc[0, "Teacher's mark"].startswith("Right: Rising sharply")
    note = "Your teacher marked this right: Rising sharply is the same as steep"
    assert written_answers.note_for(store, sid, WRITTEN) == note
    [seen] = written_answers.for_student(store, amy)
    assert seen["note"] == note and seen["answer"] == "the ground rises sharply" and seen["where"] == "Practice"
    assert written_answers.for_student(store, students["Ben Cole"]) == []

    # Marked again (wrong, this time): the history keeps both, the newest counts.
    written_answers.mark(runner, row["session_id"], row["seq"], False, "Steep is the word the question wants")
    assert response(store, sid, WRITTEN)["score"] == 0.0
    [row] = written_answers.recent(store, CLASS)
    assert [m["correct"] for m in row["teacher_marks"]] == [True, False] and row["correct"] is False
    assert written_answers.note_for(store, sid, WRITTEN).startswith("Your teacher marked this wrong:")
    assert len(written_answers.for_student(store, amy)) == 1
    # The practice session on screen is as it was: still showing the answer's feedback.
    assert runner.view(sid)["stage"] == "feedback" and runner.view(sid)["stats"]["total"] == 1


def test_a_mark_needs_a_verdict_and_a_reason_and_a_written_answer(store, geo, students, clock):
    runner = make_runner(store, geo, clock=clock)
    sid = runner.start("practice", students["Ben Cole"], {"subject": "Geography", "level": "Nat 5",
                                                          "outcome": "GEO-5-01"})
    runner.command(sid, "answer", item_id=WRITTEN, answer="hills")
    [row] = written_answers.recent(store, CLASS)
    with pytest.raises(WrittenAnswerError, match="Say why the answer is right"):
        written_answers.mark(runner, sid, row["seq"], True, "  ")
    with pytest.raises(WrittenAnswerError, match="Mark the answer right or wrong"):
        written_answers.mark(runner, sid, row["seq"], None, "a reason")
    with pytest.raises(WrittenAnswerError, match="not a practice or lesson answer"):
        written_answers.mark(runner, sid, 1, True, "a reason")     # the first event presents the question
    assert [e for e in sessions.load_events(store, sid) if e["type"] == "teacher_marked"] == []
    assert response(store, sid, WRITTEN)["correct"] is False


def test_a_lesson_written_answer_is_listed_and_marked_on_its_attempt(store, library, students, clock):
    runner = make_runner(store, library, clock=clock)
    amy = students["Amy Pond"]
    sid = runner.start("lesson", amy, {"skills": ["SQA.MATH.N3.TIME_INTERVAL"], "cards": 1, "max_attempts": 2})
    item_id = runner.view(sid)["card"]["question"]["id"]
    item = repo.load_item(store, item_id)
    runner.command(sid, "answer", answer="no idea")
    written = f"it takes {item.correct_answer} in all"
    runner.command(sid, "answer", answer=written)
    rows = written_answers.recent(store, CLASS)
    assert [(r["answer"], r["attempt"], r["where"]) for r in rows] == [(written, 2, "Lesson"), ("no idea", 1, "Lesson")]
    attempted = [e["payload"] for e in sessions.load_events(store, sid) if e["type"] == "attempted"]
    assert all("judged" in p for p in attempted)       # how each written answer was judged is kept (None: no LLM)

    written_answers.mark(runner, sid, rows[0]["seq"], True, "Right length of time, in other words")
    assert response(store, sid, item_id, attempt=2)["correct"] is True
    assert response(store, sid, item_id, attempt=1)["correct"] is False
    assert written_answers.note_for(store, sid, item_id, attempt=2) == \
        "Your teacher marked this right: Right length of time, in other words"
    assert written_answers.note_for(store, sid, item_id, attempt=1) is None
