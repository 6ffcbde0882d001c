"""How a written answer was marked, in words, and a teacher marking one from practice or a lesson.

A written answer (marking method ``short_text``) is marked by the key points
and accepted phrasings the teacher set; with an LLM, the judge may read it for
meaning (in practice and lessons as it is answered, in mock exams and
evaluations after hand-in: ``core.flows.judging``). Whatever marked it, a
teacher has the last word: in an exam by an override, in practice and lessons
by marking the answer right or wrong with a reason (``teacher_mark``, the
``mark_written`` command of those flows), kept as a ``teacher_marked`` event of
the student's session with the answer's responses row rescored in the same
transaction.
"""
from __future__ import annotations

from typing import Any, Optional

from core.flows.base import FlowError, Step

TEACHER_MARKED = "teacher_marked"
MARKED_BY_JUDGE = "Marked by the LLM judge: {reason}"
MARKED_BY_KEY_POINTS = "Marked by the key points your teacher set"
MAX_REASON = 500


def how_marked(judged: Optional[dict], for_teacher: bool = False) -> str:
    """How a written answer was marked: by the LLM judge (with its reason) or by the key points. For a
    teacher, why the judge's verdict was not used when it was asked."""
    if judged and judged.get("judged_by") == "llm":
        reason = (judged.get("reason") or "").strip() or "it judged the answer by its meaning"
        return MARKED_BY_JUDGE.format(reason=reason.rstrip("."))
    if for_teacher and judged and judged.get("error"):
        return f"{MARKED_BY_KEY_POINTS} (the LLM judge's verdict was not used: {judged['error']})"
    return MARKED_BY_KEY_POINTS


def teacher_note(mark: Optional[dict]) -> Optional[str]:
    """What the student reads under an answer their teacher marked: "Your teacher marked this right: <reason>"."""
    if not mark:
        return None
    return f"Your teacher marked this {'right' if mark['correct'] else 'wrong'}: {mark['reason']}"


def teacher_mark(answer: dict, correct: Any, reason: Any, teacher: Any = "teacher") -> Step:
    """A teacher's mark on one written answer of a practice or lesson session, with the reason.

    ``answer`` is the answer as stored (``core.school.written_answers`` reads it from the session's events):
    seq (of its event), item_id, attempt, answer, max_score and the marker's verdict (correct). The event keeps
    the history; the answer's responses row gets the new mark, all its marks or none.
    """
    if not isinstance(correct, bool):
        raise FlowError("mark the answer right or wrong")
    why = reason.strip() if isinstance(reason, str) else ""
    if not why:
        raise FlowError(f"say why the answer is {'right' if correct else 'wrong'}: the reason is kept with the mark "
                        "and shown to the student")
    if len(why) > MAX_REASON:
        raise FlowError(f"a reason may be at most {MAX_REASON} characters")
    max_score = float(answer.get("max_score") or 1.0)
    payload = {"answer_seq": int(answer["seq"]), "item_id": answer["item_id"], "attempt": int(answer["attempt"]),
               "correct": correct, "reason": why, "teacher": (str(teacher or "").strip() or "teacher"),
               "marker_correct": answer.get("correct"), "max_score": max_score}
    step = Step(reply={"teacher_marked": payload}).add(TEACHER_MARKED, **payload)
    step.rescored.append({"item_id": answer["item_id"], "answer": answer.get("answer"), "correct": correct,
                          "score": max_score if correct else 0.0, "max_score": max_score,
                          "attempt": int(answer["attempt"])})
    return step
