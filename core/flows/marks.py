"""A marked paper's marks: SQA grades, and what happens to the marks after marking.

A teacher's override ("overridden": item_id, section, marks, reason, teacher), a re-mark ("remarked":
the whole new marking) and the LLM judge's verdicts on the written answers ("judged": per question the
verdict, confidence, reason and the mark it gives, see ``core.flows.judging``) are events of the session,
so the event log is the marks' history; these functions fold them into the marking payload, for the exam
flow and for the reports that read it. A teacher's override always stays on top: of a re-mark and of the
judge alike.
"""
from __future__ import annotations

import copy
import json
import math
from typing import Any, Optional

from core.flows.base import FlowError

SQA_GRADES = [("A", 70.0), ("B", 60.0), ("C", 50.0), ("D", 40.0), ("No award", 0.0)]


def grade_for(percent: float, bands=SQA_GRADES) -> str:
    for label, minimum in bands:
        if percent >= minimum:
            return label
    return bands[-1][0]


MARKED_BY_TEACHER = "Marked by your teacher."
MARKING_KEYS = ("questions", "marks_awarded", "total_marks", "percent", "grade", "sections", "gap_outcomes", "notes")


def missed(question: Optional[dict]) -> bool:
    """Whether a marked question is not fully right (one the marker could not mark is not held against anyone)."""
    if not question or question.get("unmarked"):
        return False
    return not question["correct"] or question["marks_awarded"] < question["marks"]


def marks_out_of(question: dict) -> float:
    """What a question is worth, also when the marker left it out of the total."""
    return float(question.get("marks_left_out", 0.0) if question.get("unmarked") else question["marks"])


def marker_marks(question: dict) -> Optional[float]:
    """What the marker gave a question (None: it could not mark it), whatever a teacher gave it since."""
    if question.get("overrides"):
        return question.get("marker_marks")
    return None if question.get("unmarked") else question["marks_awarded"]


def checked_marks(marks: Any, number: Any, out_of: float) -> float:
    if isinstance(marks, str):
        try:
            marks = float(marks.strip())
        except ValueError:
            raise FlowError(f"the mark for question {number} must be a number from 0 to {out_of:g}, "
                            f"not '{marks.strip()}'") from None
    if isinstance(marks, bool) or not isinstance(marks, (int, float)) or math.isnan(marks):
        raise FlowError(f"the mark for question {number} must be a number from 0 to {out_of:g}")
    if not 0 <= marks <= out_of:
        raise FlowError(f"question {number} is worth {out_of:g} mark(s): give a mark from 0 to {out_of:g}, "
                        f"not {marks:g}")
    return float(marks)


def _tidy(x: float) -> float:
    return round(x, 6)


def _percent(awarded: float, total: float) -> float:
    return round(100 * awarded / total, 1) if total else 0.0


def set_question_marks(marking: dict, item_id: str, section: Optional[str], marks: float) -> None:
    """Give a question ``marks``, moving its section's and the paper's totals, percent, grade and gaps with it.

    A question the marker could not mark (left out of the total) counts from now on, out of what it is worth.
    """
    q = marking["questions"][item_id]
    if q.get("unmarked"):
        before_awarded = before_out = 0.0
        q["marks"] = marks_out_of(q)
        q.pop("marks_left_out", None)
        q["marker_problem"] = q.pop("unmarked")
        q["feedback"] = MARKED_BY_TEACHER
        marking["notes"] = list(marking.get("notes") or []) + [
            f"Question {q.get('label') or q['number']} ({item_id}) has since been marked by the teacher and counts "
            f"towards the total."]
    else:
        before_awarded, before_out = float(q["marks_awarded"]), float(q["marks"])
    q["marks_awarded"] = float(marks)
    q["correct"] = bool(q["marks"]) and q["marks_awarded"] >= q["marks"]
    gained, widened = q["marks_awarded"] - before_awarded, q["marks"] - before_out
    for s in marking.get("sections") or []:
        if s["section"] == section:
            s["marks_awarded"] = _tidy(s["marks_awarded"] + gained)
            s["marks"] = _tidy(s["marks"] + widened)
            s["percent"] = _percent(s["marks_awarded"], s["marks"])
    marking["marks_awarded"] = _tidy(marking["marks_awarded"] + gained)
    marking["total_marks"] = _tidy(marking["total_marks"] + widened)
    marking["percent"] = _percent(marking["marks_awarded"], marking["total_marks"])
    marking["grade"] = grade_for(marking["percent"])
    ordered = sorted(marking["questions"].values(), key=lambda x: x["number"])
    marking["gap_outcomes"] = list(dict.fromkeys(x["outcome_id"] for x in ordered if missed(x)))


def override_question(marking: dict, override: dict) -> None:
    """Fold an "overridden" event into the marking: the question's new mark, its history, the totals."""
    q = marking["questions"][override["item_id"]]
    entry = {"from": None if q.get("unmarked") else q["marks_awarded"], "to": float(override["marks"]),
             "out_of": marks_out_of(q), "reason": override["reason"], "teacher": override.get("teacher"),
             "at": override.get("t")}
    q.setdefault("marker_marks", entry["from"])
    q["overrides"] = list(q.get("overrides") or []) + [entry]
    q["override"] = entry
    set_question_marks(marking, override["item_id"], override.get("section"), override["marks"])


# What a question keeps of the judge's verdict (the mark it gave, and the key point mark it replaced).
JUDGED_KEYS = ("judged_by", "equivalent", "confidence", "reason", "error", "marks", "keyword_marks", "out_of",
               "model_answer", "at", "teacher")


def judge_question(marking: dict, item_id: str, verdict: dict) -> None:
    """Fold the judge's verdict on one written answer into the marking (``verdict``: an entry of a "judged"
    event). A confident verdict gives the question its mark, unless a teacher has set one: then the
    teacher's mark stands and the verdict is the marker's mark under it. An unsure or failed judge changes
    no mark; its reason is kept with the question."""
    q = marking["questions"].get(item_id)
    if q is None or q.get("unmarked"):
        return
    q["judged"] = {k: verdict.get(k) for k in JUDGED_KEYS}
    if verdict.get("judged_by") != "llm":
        return
    if q.get("overrides"):
        q["marker_marks"] = float(verdict["marks"])
        return
    set_question_marks(marking, item_id, verdict.get("section"), float(verdict["marks"]))
    if verdict.get("feedback"):
        q["feedback"] = verdict["feedback"]


def judge_marking(marking: dict, judged: dict) -> None:
    """Fold a "judged" event (``judged``: its payload) into the marking."""
    for item_id, verdict in (judged.get("questions") or {}).items():
        judge_question(marking, item_id, {**verdict, "at": judged.get("t"), "teacher": judged.get("teacher")})


def _judge_still_holds(verdict: Optional[dict], question: dict) -> bool:
    """Whether the judge's verdict on a question still holds after marking again: it was judged against the
    model answer the question has now (a corrected key needs judging again)."""
    return bool(verdict) and verdict.get("model_answer") == question.get("correct_answer")


def remarked(old: dict, fresh: dict, sections: dict[str, str]) -> tuple[dict, list[dict]]:
    """The marking after marking again (``fresh``: the marker's new payload), with the teacher's overrides on top,
    and the questions whose marks changed. What the marking does not decide (lateness, earlier re-marks) is kept.
    ``sections`` maps each question to its section."""
    new = copy.deepcopy(old)
    for key in MARKING_KEYS:
        new[key] = copy.deepcopy(fresh.get(key))
    changes = []
    for item_id, q in sorted(new["questions"].items(), key=lambda kv: kv[1]["number"]):
        before = old["questions"].get(item_id)
        if before is None:
            continue
        verdict = before.get("judged")
        if _judge_still_holds(verdict, q) and not q.get("unmarked"):
            # The judge read the same answer against the same model answer: its verdict stands over the key points.
            judge_question(new, item_id, {**verdict, "section": sections.get(item_id),
                                          "keyword_marks": q["marks_awarded"],
                                          "feedback": before.get("feedback") if verdict.get("judged_by") == "llm"
                                          else None})
        was = marker_marks(before)
        now = None if q.get("unmarked") else q["marks_awarded"]
        change = {"item_id": item_id, "number": q["number"], "marks": marks_out_of(q)}
        if before.get("overrides"):
            q["overrides"] = copy.deepcopy(before["overrides"])
            q["override"] = copy.deepcopy(before["override"])
            q["marker_marks"] = now
            kept = q["override"]["to"]
            set_question_marks(new, item_id, sections.get(item_id), kept)
            if was != now:
                changes.append({**change, "from": kept, "to": kept, "marker_from": was, "marker_to": now,
                                "override_kept": True})
        elif was != now:
            changes.append({**change, "from": was, "to": now, "marker_from": was, "marker_to": now,
                            "override_kept": False})
    return new, changes


def current_marking(events: list[dict]) -> Optional[dict]:
    """A session's marking as it stands: the "marked" payload with every later override and re-mark folded in."""
    marking = None
    for event in events:
        t, p = event["type"], event["payload"]
        if t == "marked":
            marking = copy.deepcopy(p)
        elif t == "remarked":
            marking = copy.deepcopy(p["marking"])
        elif t == "overridden" and marking is not None:
            override_question(marking, p)
        elif t == "judged" and marking is not None:
            judge_marking(marking, p)
    return marking


def response_row(item_id: str, question: dict, given: Optional[dict] = None) -> dict:
    """The responses-table row for a question as marked now (not counted: no correctness and no marks)."""
    counted = not question.get("unmarked")
    answer = (given or {}).get("answer", question.get("answer"))
    if answer is not None and not isinstance(answer, str):
        answer = json.dumps(answer) if isinstance(answer, (dict, list)) else str(answer)
    return {"item_id": item_id, "answer": answer, "correct": question["correct"] if counted else None,
            "score": question["marks_awarded"] if counted else 0.0, "max_score": question["marks"] if counted else 0.0,
            "attempt": 1, "step_answers": (given or {}).get("step_answers")}


def counted_marks(question: Optional[dict]) -> Optional[tuple]:
    """What the responses table holds for a question: (marks, out of, right), or None when it does not count."""
    if question is None or question.get("unmarked"):
        return None
    return (question["marks_awarded"], question["marks"], question["correct"])


def same_marking(a: dict, b: dict) -> bool:
    """Whether two markings hold the same (a re-mark that changed nothing is not recorded)."""
    return json.dumps(a, sort_keys=True, default=str) == json.dumps(b, sort_keys=True, default=str)
