"""A class's written answers in practice and lessons, for the teacher to read and, where needed, mark again.

Each row says who answered what, when, how the answer was marked and why
(the LLM judge's verdict and reason, or the key points the teacher set and the
marker's feedback), whether it counted as right, and any mark the teacher has
given it since. A teacher marks an answer right or wrong with a reason through
the session's own flow (``mark_written``), so the change is an event in the
student's session history and the answer's responses row is rescored with it;
the student then reads "Your teacher marked this right: <reason>" where they
see that answer's result.
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Optional

import pandas as pd

from core.flows.judging import is_written
from core.flows.written import how_marked, teacher_note
from core.store import Store, repo
from core.store import written as written_store

RECENT = 50
KIND_NAMES = {"practice": "Practice", "lesson": "Lesson"}
COLUMNS = ["Student", "When (UTC)", "Where", "Question", "Answer", "How it was marked", "Feedback", "Right",
           "Teacher's mark"]


class WrittenAnswerError(ValueError):
    """A teacher's mark that cannot be given; the message says why and what to do."""


def _sentence(exc: Exception) -> str:
    text = str(exc).strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def _answer_text(payload: dict) -> str:
    text = payload.get("answer_text")
    if text is None or text == "":
        text = payload.get("answer")
    return "" if text is None else str(text)


def _attempt(event_type: str, payload: dict) -> int:
    return int(payload.get("attempts") or 1) if event_type == "attempted" else 1


def _row(r: dict, marks: list[dict]) -> dict:
    p = r["payload"]
    last = marks[-1] if marks else None
    marker_correct = bool(p.get("correct"))
    return {"session_id": r["session_id"], "seq": int(r["seq"]), "student": r["student"], "name": r["name"],
            "kind": r["kind"], "where": KIND_NAMES.get(r["kind"], r["kind"]), "at": r["created_at"],
            "item_id": p.get("item_id"), "attempt": _attempt(r["type"], p), "question": r.get("stem") or p.get("stem"),
            "answer": _answer_text(p), "key": r.get("answer_key"), "judged": p.get("judged"),
            "how_marked": how_marked(p.get("judged"), for_teacher=True), "feedback": p.get("feedback") or "",
            "marker_correct": marker_correct, "correct": last["correct"] if last else marker_correct,
            "teacher_mark": last, "teacher_marks": marks}


def recent(store: Store, class_code: str, limit: int = RECENT, student: Optional[str] = None) -> list[dict]:
    """The class's most recent written answers in practice and lessons (newest first), each with how it was
    marked and why, whether it counts as right, and the teacher's latest mark on it (None when there is none)."""
    rows = written_store.class_answers(store, class_code, limit, student)
    marks = written_store.teacher_marks(store, [r["session_id"] for r in rows])
    return [_row(r, marks.get((r["session_id"], int(r["seq"])), [])) for r in rows]


def label(row: dict) -> str:
    """One answer as a choice in a list: student, where, when and the start of the answer."""
    when = row["at"].strftime("%d %b %H:%M") if isinstance(row["at"], dt.datetime) else str(row["at"] or "")
    text = row["answer"] if len(row["answer"]) <= 40 else row["answer"][:39] + "…"
    return f"{row['name']} · {row['where']} · {when} · “{text}”"


def teacher_mark_text(mark: Optional[dict]) -> str:
    if not mark:
        return ""
    return f"{'Right' if mark['correct'] else 'Wrong'}: {mark['reason']} ({mark.get('teacher') or 'teacher'})"


def frame(rows: list[dict]) -> pd.DataFrame:
    """The answers as a table for the page."""
    return pd.DataFrame([{"Student": r["name"], "When (UTC)": r["at"], "Where": r["where"], "Question": r["question"],
                          "Answer": r["answer"], "How it was marked": r["how_marked"], "Feedback": r["feedback"],
                          "Right": "✅" if r["correct"] else "❌",
                          "Teacher's mark": teacher_mark_text(r["teacher_mark"])}
                         for r in rows], columns=COLUMNS)


def _stored_answer(store: Store, session_id: str, seq: Any) -> dict:
    try:
        seq = int(seq)
    except (TypeError, ValueError):
        raise WrittenAnswerError("Choose one of the answers listed.") from None
    event = written_store.answer_event(store, session_id, seq)
    if (event is None or event["kind"] not in written_store.KINDS
            or event["type"] not in written_store.ANSWER_EVENTS):
        raise WrittenAnswerError("That answer is not a practice or lesson answer any more; choose one from the list.")
    p = event["payload"]
    item = repo.load_item(store, p.get("item_id") or "")
    if item is None or not is_written(item):
        raise WrittenAnswerError("Only written answers (marked by key points) can be marked here.")
    return {"seq": seq, "item_id": item.id, "attempt": _attempt(event["type"], p), "answer": _answer_text(p),
            "max_score": p.get("max_score") or float(item.marks), "correct": bool(p.get("correct"))}


def mark(runner: Any, session_id: str, seq: Any, correct: Any, reason: Any, teacher: str = "teacher") -> dict:
    """Mark one written answer right or wrong with a reason (an event on the student's session; its responses row
    rescored). Returns the teacher's mark as stored. Raises WrittenAnswerError saying why it cannot be done."""
    from core.flows.base import FlowError
    answer = _stored_answer(runner.ctx.store, session_id, seq)
    try:
        view = runner.command(session_id, "mark_written", answer=answer, correct=correct, reason=reason,
                              teacher=teacher)
    except FlowError as exc:
        raise WrittenAnswerError(_sentence(exc)) from None
    return view["teacher_marked"]


def session_marks(store: Store, session_id: str) -> dict[tuple[str, int], dict]:
    """The teacher's latest mark on each written answer of one session: (item_id, attempt) -> the mark."""
    found: dict[tuple[str, int], dict] = {}
    for marks in written_store.teacher_marks(store, [session_id]).values():
        last = marks[-1]
        found[(last["item_id"], int(last["attempt"]))] = last
    return found


def note_for(store: Store, session_id: str, item_id: str, attempt: int = 1) -> Optional[str]:
    """What the student reads under one answer a teacher has marked ("Your teacher marked this right: ..."),
    or None."""
    return teacher_note(session_marks(store, session_id).get((item_id, int(attempt))))


def for_student(store: Store, student: str, limit: int = 20) -> list[dict]:
    """A student's written answers that a teacher has marked, newest first: the question, their answer, how the
    marker marked it, and the teacher's note ("Your teacher marked this right: <reason>")."""
    rows = []
    latest: set[tuple[str, int]] = set()
    for r in written_store.student_marked(store, student, limit * 3):
        p = r["payload"]
        key = (r["session_id"], int(p["answer_seq"]))
        if key in latest:
            continue   # an earlier mark, since changed: the newest is shown
        latest.add(key)
        rows.append({"session_id": r["session_id"], "where": KIND_NAMES.get(r["kind"], r["kind"]),
                     "at": r["created_at"],
                     "question": r.get("stem") or r["answer"].get("stem") or "", "answer": _answer_text(r["answer"]),
                     "how_marked": how_marked(r["answer"].get("judged")), "correct": bool(p["correct"]),
                     "note": teacher_note(p)})
        if len(rows) >= limit:
            break
    return rows
