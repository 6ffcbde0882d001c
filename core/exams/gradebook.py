"""The gradebook of one assignment: every student's marks question by question, scripts, overrides, re-marking.

An assignment is a mock exam (marked per question, SQA grades) or an
evaluation from an assessment blueprint (questions right or wrong, the
blueprint's grade bands). Either way the gradebook reads the sittings' folded
state, so it shows what the student's results show: the marks after every
override and re-mark. A student of the class who has not sat the paper is in
the table as "Not started" (or "In progress"); with several attempts the
latest one handed in counts, and the table says which. A deleted assignment's
results stay here.

Changing marks goes through the sitting's flow (``override``, ``remark`` and
``judge`` commands), so every change is an event in the session's history and
the responses the analytics read are updated in the same transaction. Written
answers are judged for meaning by the LLM after hand-in when one is set up;
``judge_written`` does it for the sittings handed in while none was, and each
script says how every written answer was marked.
"""
from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import io
import math
from pathlib import Path
from typing import Any, Callable, Optional, Union

import pandas as pd

from core.flows import judging, preview
from core.flows.base import FlowError, Runner
from core.flows.marks import SQA_GRADES, marker_marks, marks_out_of
from core.flows.written import how_marked
from core.school import assignments
from core.store import Store, school, sessions
from core.store.export import csv_bytes, write_csv

LATEST_COUNTS = "With several attempts, the latest one handed in counts."
NOT_STARTED, IN_PROGRESS = "Not started", "In progress"
HISTOGRAM_BINS = [(0, 10), (10, 20), (20, 30), (30, 40), (40, 50), (50, 60), (60, 70), (70, 80), (80, 90), (90, 101)]


class GradebookError(ValueError):
    """A gradebook request that cannot be done; the message says why and what to do."""


@dataclasses.dataclass
class Gradebook:
    assignment: dict
    kind: str                         # "exam" or "evaluation"
    questions: list[dict]             # {column, number, marks, section}, in paper order
    table: pd.DataFrame               # one row per student: status, attempt counted, marks per question, totals
    sections: pd.DataFrame            # one row per student handed in and section
    section_summary: pd.DataFrame     # per section: students, mean, lowest and highest percent
    grades: pd.DataFrame              # grade, students (every band, highest first)
    histogram: pd.DataFrame           # percent band, students
    scripts: list[dict]               # every handed-in sitting: {session_id, student, name, label, counted}
    notes: list[str]                  # for the teacher: questions that could not be marked, late work
    # Written answers in the handed-in sittings: answered, judged by the LLM, waiting for the judge.
    written: dict = dataclasses.field(default_factory=lambda: {"answers": 0, "judged": 0, "waiting": 0})

    @property
    def handed_in(self) -> int:
        return int((self.table["Marks"].notna()).sum()) if len(self.table) else 0


def class_assignments(store: Store, class_code: str) -> list[dict]:
    """The class's assignments, newest first, deleted ones too (their results stay reportable)."""
    return school.assignments_for_class(store, class_code, include_deleted=True)


def assignment_label(a: dict) -> str:
    kind = "evaluation" if a["kind"] == "evaluation" else "mock exam"
    deleted = " · deleted" if a.get("deleted_at") is not None else ""
    return f"{a['title']} ({kind}, opened {a['opens_at']:%d %b %Y}){deleted}"


def _assignment(store: Store, assignment_id: str) -> dict:
    found = assignments.get_assignment(store, assignment_id)
    if found is None:
        raise GradebookError(f"There is no assignment {assignment_id}; choose one from the class's list.")
    return found


def _when(epoch: Optional[float]) -> Optional[dt.datetime]:
    return None if epoch is None else dt.datetime.fromtimestamp(float(epoch), dt.timezone.utc).replace(tzinfo=None)


def _sitting(runner: Runner, row: dict) -> dict:
    """What the gradebook needs of one session: handed in or not, per-question marks, totals, lateness."""
    return runner.read(row["id"], lambda state: _summary(row, state))


def _summary(row: dict, state: dict) -> dict:
    """``_sitting`` from the session's state, read in place: everything returned is built here or copied."""
    late_sends = len(state.get("late") or [])
    if row["kind"] == "evaluation":
        res = state.get("results") if state.get("stage") == "completed" else None
        if res is None:
            return {"row": row, "done": False, "late_sends": late_sends}
        questions = {r["number"]: {"item_id": r["item_id"], "marks": float(r["max_score"]), "awarded": float(r["score"]),
                                   "section": r.get("section_title") or r["section_id"],
                                   "overridden": bool(r.get("overrides"))} for r in res["review"]}
        sections = [{"section": s["section_title"], "marks_awarded": float(s["items_correct"]),
                     "marks": float(s["items_total"]), "percent": s["accuracy_percent"]} for s in res["section_results"]]
        bands = [b["label"] for b in state["scoring"]["grade_bands"]]
        return {"row": row, "done": True, "questions": questions, "sections": sections,
                "written": _written_counts(r for r in res["review"] if not r.get("late")),
                "awarded": sum(q["awarded"] for q in questions.values()),
                "out_of": sum(q["marks"] for q in questions.values()), "percent": res["score_percent"],
                "grade": res["grade"], "passed": res.get("passed"), "bands": bands,
                "submitted_at": _when(res.get("completed_at")), "late": bool(res.get("late")),
                "expired": bool(res.get("expired")), "late_sends": late_sends, "notes": []}
    marking = state.get("marking")
    if marking is None:
        return {"row": row, "done": False, "late_sends": late_sends}
    section_of = {q["id"]: s["section"] for s in state["package"]["sections"] for q in s["questions"]}
    label_of = {q["id"]: q.get("label") for s in state["package"]["sections"] for q in s["questions"]}
    questions = {q["number"]: {"item_id": item_id, "marks": marks_out_of(q), "label": label_of.get(item_id),
                               "awarded": None if q.get("unmarked") else float(q["marks_awarded"]),
                               "section": section_of.get(item_id), "overridden": bool(q.get("overrides"))}
                 for item_id, q in marking["questions"].items()}
    return {"row": row, "done": True, "questions": questions, "sections": copy.deepcopy(marking["sections"]),
            "written": _written_counts(q for q in marking["questions"].values() if not q.get("unmarked")),
            "awarded": float(marking["marks_awarded"]), "out_of": float(marking["total_marks"]),
            "percent": marking["percent"], "grade": marking["grade"], "passed": None,
            "bands": [label for label, _ in SQA_GRADES], "submitted_at": _when(marking.get("t")),
            "late": bool(marking.get("late")), "expired": bool(marking.get("expired")), "late_sends": late_sends,
            "notes": list(marking.get("notes") or [])}


def _written_counts(questions) -> dict:
    """How many written answers a sitting has (blank ones aside), how many the LLM judged, how many wait for it."""
    answered = [q for q in questions if q.get("written") and str(q.get("answer") or "").strip()]
    judged = sum(1 for q in answered if (q.get("judged") or {}).get("judged_by") == "llm")
    return {"answers": len(answered), "judged": judged, "waiting": len(answered) - judged}


def _status(counted: Optional[dict], sittings: list[dict]) -> str:
    if counted is None:
        return IN_PROGRESS if sittings else NOT_STARTED
    text = "Handed in"
    if counted["late"] or counted["expired"]:
        text = "Handed in late (time ran out)"
    if any(not s["done"] for s in sittings):
        text += "; another attempt in progress"
    return text


def build(runner: Runner, assignment_id: str) -> Gradebook:
    """The gradebook of an assignment (raises GradebookError when there is no such assignment)."""
    store = runner.ctx.store
    a = _assignment(store, assignment_id)
    roster = {r["student"]: r["display_name"] for r in school.roster(store, a["class_code"])}
    by_student: dict[str, list[dict]] = {}
    for row in school.assignment_sessions(store, assignment_id):
        by_student.setdefault(row["student"], []).append(_sitting(runner, row))
    for student in by_student:   # a student since taken off the class list keeps their results here
        roster.setdefault(student, student)

    columns: dict[int, dict] = {}
    for sittings in by_student.values():
        for s in sittings:
            for number, q in (s.get("questions") or {}).items():
                # named as printed ("Q5(a)") where the paper has parts, else by the question's number
                columns.setdefault(number, {"column": f"Q{q.get('label') or number}", "number": number,
                                            "marks": q["marks"], "section": q["section"]})
    questions = [columns[n] for n in sorted(columns)]
    kind = "evaluation" if a["kind"] == "evaluation" else "exam"

    rows, section_rows, scripts, notes = [], [], [], []
    written = {"answers": 0, "judged": 0, "waiting": 0}
    bands: list[str] = [label for label, _ in SQA_GRADES]
    for student, name in sorted(roster.items(), key=lambda kv: (kv[1].lower(), kv[0])):
        sittings = by_student.get(student, [])
        done = [s for s in sittings if s["done"]]
        counted = done[-1] if done else None
        row: dict[str, Any] = {"Student": name, "Student id": student, "Status": _status(counted, sittings),
                               "Attempt counted": None, "Late": False, "Submitted (UTC)": None}
        for q in questions:
            row[q["column"]] = None
        row.update({"Marks": None, "Out of": None, "Percent": None, "Grade": None})
        if kind == "evaluation":
            row["Passed"] = None
        row["Overridden"] = ""
        if counted is not None:
            attempt = sittings.index(counted) + 1
            row["Attempt counted"] = (f"{attempt} of {len(sittings)} (latest handed in)" if len(sittings) > 1
                                      else "1")
            row["Late"] = bool(counted["late"] or counted["expired"] or counted["late_sends"])
            row["Submitted (UTC)"] = counted["submitted_at"]
            for number, q in counted["questions"].items():
                row[columns[number]["column"]] = q["awarded"]
            row.update({"Marks": counted["awarded"], "Out of": counted["out_of"], "Percent": counted["percent"],
                        "Grade": counted["grade"]})
            if kind == "evaluation":
                row["Passed"] = counted["passed"]
            row["Overridden"] = ", ".join(columns[n]["column"] for n, q in sorted(counted["questions"].items())
                                          if q["overridden"])
            bands = counted["bands"]
            for s in counted["sections"]:
                section_rows.append({"Student": name, "Student id": student, "Section": s["section"],
                                     "Marks": s["marks_awarded"], "Out of": s["marks"], "Percent": s["percent"]})
            notes += [f"{name}: {n}" for n in counted["notes"]]
            if counted["late_sends"]:
                notes.append(f"{name}: {counted['late_sends']} answer(s) sent after time ran out were kept as a "
                             "record and did not count.")
        rows.append(row)
        for k, s in enumerate(done, 1):
            for key, n in (s.get("written") or {}).items():
                written[key] += n
            label = name if len(sittings) == 1 else f"{name} · attempt {sittings.index(s) + 1} of {len(sittings)}"
            scripts.append({"session_id": s["row"]["id"], "student": student, "name": name, "label": label,
                            "counted": s is counted})

    table = pd.DataFrame(rows)
    sections = pd.DataFrame(section_rows, columns=["Student", "Student id", "Section", "Marks", "Out of", "Percent"])
    return Gradebook(assignment=a, kind=kind, questions=questions, table=table, sections=sections,
                     section_summary=_section_summary(sections), grades=_grades(table, bands),
                     histogram=_histogram(table), scripts=scripts, notes=notes, written=written)


def _section_summary(sections: pd.DataFrame) -> pd.DataFrame:
    if sections.empty:
        return pd.DataFrame(columns=["Section", "Students", "Mean %", "Lowest %", "Highest %"])
    grouped = sections.groupby("Section", sort=False)["Percent"]
    return pd.DataFrame({"Section": list(grouped.groups), "Students": grouped.count().to_list(),
                         "Mean %": grouped.mean().round(1).to_list(), "Lowest %": grouped.min().to_list(),
                         "Highest %": grouped.max().to_list()})


def _grades(table: pd.DataFrame, bands: list[str]) -> pd.DataFrame:
    """How many students got each grade, every band listed (highest first), none left out."""
    got = table["Grade"].dropna().value_counts() if len(table) else pd.Series(dtype=int)
    labels = list(bands) + sorted(set(got.index) - set(bands))
    return pd.DataFrame({"Grade": labels, "Students": [int(got.get(label, 0)) for label in labels]})


def _histogram(table: pd.DataFrame) -> pd.DataFrame:
    """How many students' totals fall in each tenth of the marks (the last band takes 100%)."""
    percents = table["Percent"].dropna().astype(float) if len(table) else pd.Series(dtype=float)
    rows = []
    for low, high in HISTOGRAM_BINS:
        label = f"{low}–{high - 1}%" if high <= 100 else f"{low}–100%"
        rows.append({"Percent": label, "Students": int(((percents >= low) & (percents < high)).sum())})
    return pd.DataFrame(rows)


def export_frame(gb: Gradebook) -> pd.DataFrame:
    """The table as it is exported: one row per student, marks per question, totals and grade."""
    return gb.table.copy()


def to_csv(gb: Gradebook) -> bytes:
    """The table as a CSV download that is safe to open in a spreadsheet (see core.store.export)."""
    return csv_bytes(export_frame(gb))


def to_parquet(gb: Gradebook) -> bytes:
    buffer = io.BytesIO()
    export_frame(gb).to_parquet(buffer, index=False)
    return buffer.getvalue()


def export(gb: Gradebook, folder: Union[str, Path]) -> dict[str, Path]:
    """Write gradebook.csv and gradebook.parquet into ``folder``; returns their paths."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    csv_path = write_csv(export_frame(gb), folder / "gradebook.csv")
    parquet_path = folder / "gradebook.parquet"
    parquet_path.write_bytes(to_parquet(gb))
    return {"csv": csv_path, "parquet": parquet_path}


def filename(gb: Gradebook, extension: str) -> str:
    stem = "".join(c if c.isalnum() else "-" for c in gb.assignment["title"].lower()).strip("-")
    return f"gradebook-{stem or gb.assignment['id']}.{extension}"


def script(runner: Runner, session_id: str) -> dict:
    """One student's handed-in paper beside the keys: per question the answer, how the marker read it, the key,
    the marks (per step too), the feedback and any override with its reason and history."""
    store = runner.ctx.store
    session = sessions.get_session(store, session_id)
    if session is None or session["kind"] not in ("exam", "evaluation"):
        raise GradebookError(f"There is no handed-in paper {session_id}; choose a student from the gradebook.")
    kind = session["kind"]
    state = runner.state(session_id)
    student = state["student"]
    name = school_name(store, student)
    if kind == "evaluation":
        res = state.get("results") if state.get("stage") == "completed" else None
        if res is None:
            raise GradebookError(f"{name} has not handed this in yet; their script appears once they have.")
        questions = []
        for r in res["review"]:
            reading = (preview.preview_item(store, r["item_id"], r["answer"], student)
                       if r["answer"] is not None and not r["options"] else None)
            questions.append({
                "item_id": r["item_id"], "number": r["number"], "label": str(r["number"]),
                "section": r.get("section_title") or r["section_id"],
                "stem": r["stem"], "options": list(r["options"]), "answer": r["answer"],
                "read_as": reading["read_as"] if reading else None, "read_as_latex": reading["latex"] if reading else None,
                "unreadable": bool(reading and not reading["empty"] and not reading["valid"]),
                "correct_answer": r["correct_answer"], "correct": r["correct"], "marks": float(r["max_score"]),
                "marks_awarded": float(r["score"]), "marker_marks": r.get("marker_score", r["score"]),
                "feedback": r.get("feedback"), "explanation": r.get("explanation"), "steps": None, "unmarked": None,
                "overrides": list(r.get("overrides") or []), "override": r.get("override"),
                "written": bool(r.get("written")), "judged": r.get("judged")})
        return {"session_id": session_id, "kind": kind, "student": student, "name": name, "title": res["title"],
                "marks_awarded": sum(q["marks_awarded"] for q in questions),
                "total_marks": sum(q["marks"] for q in questions), "percent": res["score_percent"],
                "grade": res["grade"], "passed": res.get("passed"), "late": bool(res.get("late") or res.get("expired")),
                "submitted_at": _when(res.get("completed_at")), "sections": [
                    {"section": s["section_title"], "marks_awarded": s["items_correct"], "marks": s["items_total"],
                     "percent": s["accuracy_percent"]} for s in res["section_results"]],
                "notes": [], "remarks": [], "questions": questions}
    marking = state.get("marking")
    if marking is None:
        raise GradebookError(f"{name} has not handed this in yet; their script appears once they have.")
    questions = []
    for section in state["package"]["sections"]:
        for p in section["questions"]:
            q = marking["questions"].get(p["id"])
            if q is None:
                continue
            questions.append({
                "item_id": p["id"], "number": q["number"], "label": p.get("label") or str(q["number"]),
                "section": section["section"], "stem": p["stem"],
                "options": list(p.get("options") or []), "answer": q.get("answer"), "read_as": q.get("read_as"),
                "read_as_latex": q.get("read_as_latex"), "unreadable": bool(q.get("unreadable")),
                "correct_answer": q.get("correct_answer"), "correct": q.get("correct"), "marks": marks_out_of(q),
                "marks_awarded": None if q.get("unmarked") else q["marks_awarded"], "marker_marks": marker_marks(q),
                "feedback": q.get("feedback"), "explanation": q.get("explanation"), "steps": q.get("steps"),
                "unmarked": q.get("unmarked"), "overrides": list(q.get("overrides") or []),
                "override": q.get("override"), "written": bool(q.get("written")), "judged": q.get("judged")})
    return {"session_id": session_id, "kind": kind, "student": student, "name": name,
            "title": f"{state['subject']} {state['level']}", "marks_awarded": marking["marks_awarded"],
            "total_marks": marking["total_marks"], "percent": marking["percent"], "grade": marking["grade"],
            "passed": None, "late": bool(marking.get("late") or marking.get("expired")),
            "submitted_at": _when(marking.get("t")), "sections": list(marking["sections"]),
            "notes": list(marking.get("notes") or []), "remarks": list(marking.get("remarks") or []),
            "questions": questions}


def school_name(store: Store, student: str) -> str:
    for klass in school.classes_of(store, student):
        found = school.find_student(store, klass["code"], student)
        if found:
            return found["display_name"]
    return student


def _sentence(exc: Exception) -> str:
    text = str(exc).strip()
    text = text[:1].upper() + text[1:]
    return text if text.endswith((".", "?", "!")) else text + "."


def override(runner: Runner, session_id: str, item_id: str, marks: Any, reason: str,
             teacher: str = "teacher") -> dict:
    """Give one question of a handed-in sitting a new mark with a reason; returns the script as it now is.
    Raises GradebookError with the reason it cannot be done (not handed in, marks out of range, no reason)."""
    if isinstance(marks, float) and math.isnan(marks):
        marks = None
    try:
        runner.command(session_id, "override", item_id=item_id, marks=marks, reason=reason, teacher=teacher)
    except FlowError as exc:
        raise GradebookError(_sentence(exc)) from None
    return script(runner, session_id)


def remark(runner: Runner, assignment_id: str, teacher: str = "teacher") -> list[dict]:
    """Mark every handed-in sitting of an assignment again with the questions' keys as they are now.

    Returns what changed: {Student, Attempt, Question, Old, New, Note} per question whose marks moved, or whose
    marker's mark moved under a teacher's override (the override stands, and the note says so).
    """
    store = runner.ctx.store
    a = _assignment(store, assignment_id)
    if a["kind"] == "evaluation":
        raise GradebookError("An evaluation's questions are generated for each sitting from their blueprints and "
                             "their keys are not edited on the Review page, so there is nothing to re-mark; correct "
                             "a mark with an override instead.")
    roster = {r["student"]: r["display_name"] for r in school.roster(store, a["class_code"])}
    rows = school.assignment_sessions(store, assignment_id)
    attempts: dict[str, int] = {}
    changes = []
    for row in rows:
        attempts[row["student"]] = attempts.get(row["student"], 0) + 1
        if runner.state(row["id"]).get("marking") is None:
            continue   # not handed in: it is marked against the current keys when it is
        try:
            reply = runner.command(row["id"], "remark", teacher=teacher)
        except FlowError as exc:
            raise GradebookError(_sentence(exc)) from None
        package = runner.state(row["id"])["package"]
        label_of = {q["number"]: q.get("label") or str(q["number"]) for s in package["sections"] for q in s["questions"]}
        for c in reply.get("changes") or []:
            changes.append({"Student": roster.get(row["student"], row["student"]), "Attempt": attempts[row["student"]],
                            "Question": label_of.get(c["number"], str(c["number"])), "Old": c["from"], "New": c["to"],
                            "Out of": c["marks"], "Note": _change_note(c), "session_id": row["id"],
                            "item_id": c["item_id"], "number": c["number"]})
    return sorted(changes, key=lambda c: (c["Student"].lower(), c["Attempt"], c["number"]))


def _marks_text(value: Optional[float]) -> str:
    return "not marked" if value is None else f"{value:g}"


def _change_note(change: dict) -> str:
    if change["override_kept"]:
        return (f"The teacher's mark of {change['to']:g} stands (it overrides the marker); the marker now gives "
                f"{_marks_text(change['marker_to'])} instead of {_marks_text(change['marker_from'])}.")
    if change["from"] is None:
        return "The marker could not mark this before; it now counts."
    if change["to"] is None:
        return "The marker can no longer mark this question with its key; it is left out of the total."
    return "Marked again with the corrected key."


def judge_written(runner: Runner, assignment_id: str, teacher: str = "teacher",
                  progress: Optional[Callable[..., None]] = None) -> dict:
    """Judge with the LLM the written answers of every handed-in sitting of an assignment that no confident
    verdict covers yet (sittings handed in while no LLM was set up, or whose judge failed or was unsure).

    The key point marks stay where the judge is unsure or fails, and a mark a teacher set stays on top.
    Returns {papers, asked, by_llm, kept, changed, matched_key, problems} (``problems``: per student and
    question, why the judge was not used). ``progress(fraction, message)`` is called before each paper and
    answer (a background job's progress bar and Stop button).
    """
    store = runner.ctx.store
    a = _assignment(store, assignment_id)
    if getattr(runner.ctx.source, "llm", None) is None:
        raise GradebookError("Checking written answers needs an LLM; set one up on the Settings page.")
    roster = {r["student"]: r["display_name"] for r in school.roster(store, a["class_code"])}
    rows = school.assignment_sessions(store, assignment_id)
    summary: dict[str, Any] = {"papers": 0, "asked": 0, "by_llm": 0, "kept": 0, "changed": 0, "matched_key": 0,
                               "problems": []}
    for k, row in enumerate(rows):
        name = roster.get(row["student"], row["student"])
        if progress is not None:
            progress(k / len(rows), f"Checking the written answers of {name} ({k + 1} of {len(rows)})")
        try:
            report = judging.judge_session(runner, row["id"], teacher,
                                           between=(lambda: progress(k / len(rows), f"Checking {name}'s answers"))
                                           if progress is not None else None)
        except FlowError as exc:
            raise GradebookError(_sentence(exc)) from None
        if report.asked:
            summary["papers"] += 1
        for key in ("asked", "by_llm", "kept", "changed", "matched_key"):
            summary[key] += getattr(report, key)
        summary["problems"] += [f"{name}, {p}" for p in report.problems]
    return summary


def judge_summary(summary: dict) -> str:
    """A judge run in one sentence or two, for the page."""
    if not summary["asked"]:
        return ("Every written answer handed in has been judged already (or is blank, or is the model answer "
                "itself): there was nothing to send to the LLM.")
    text = (f"The LLM judged {summary['by_llm']} of {summary['asked']} written answer(s) in {summary['papers']} "
            f"paper(s); {summary['changed']} mark(s) changed.")
    if summary["kept"]:
        text += (f" For {summary['kept']} answer(s) the LLM was unsure or failed, so the key point mark stands; "
                 "try again later or change the mark by hand.")
    return text


def marked_by_note(question: dict, for_teacher: bool = False) -> Optional[str]:
    """How a written answer was marked ("Marked by the LLM judge: <reason>" or "Marked by the key points your
    teacher set"); None for any other answer. For a teacher, why the judge's verdict was not used."""
    if not (question.get("written") or question.get("judged")):
        return None
    return how_marked(question.get("judged"), for_teacher)


def override_note(question: dict) -> Optional[str]:
    """What a student reads under a question whose mark a teacher changed: the new mark and the reason."""
    last = question.get("override")
    if not last:
        return None
    was = "" if last.get("from") is None else f" from {last['from']:g}"
    return f"Your teacher changed this mark{was} to {last['to']:g} out of {last['out_of']:g}: {last['reason']}"


def question_heading(question: dict) -> str:
    """A script's line for a question: number, section, marks (or why it is not counted) and whether overridden."""
    if question["marks_awarded"] is None:
        marks = f"not marked (worth {question['marks']:g})"
    else:
        marks = f"{question['marks_awarded']:g} / {question['marks']:g}"
    sign = "✅" if question.get("correct") else "➖" if question["marks_awarded"] is None else "❌"
    changed = " · mark changed by the teacher" if question.get("overrides") else ""
    return f"{sign} Question {question['label']} · {marks}{changed}"


def answer_text(question: dict) -> str:
    """A script question's answer as the student gave it, "(no answer)" when blank."""
    answer = question["answer"]
    answer = "" if answer is None else answer if isinstance(answer, str) else str(answer)
    return answer if answer.strip() else "(no answer)"


def script_frame(script: dict) -> pd.DataFrame:
    """A script's questions as one table: result (right, partly right, wrong, not marked), marks, the answer as
    typed, and whether a teacher changed it."""
    rows = []
    for q in script["questions"]:
        rows.append({"Question": q["label"], "Section": q["section"],
                     "Result": "right" if q.get("correct") else "not marked" if q["marks_awarded"] is None
                     else "partly right" if q["marks_awarded"] > 0 else "wrong",
                     "Marks": q["marks_awarded"], "Out of": q["marks"],
                     "Answer": answer_text(q),
                     "Changed by the teacher": bool(q.get("overrides"))})
    return pd.DataFrame(rows, columns=["Question", "Section", "Result", "Marks", "Out of", "Answer",
                                       "Changed by the teacher"])


def override_lines(question: dict) -> list[str]:
    """A question's override history, oldest first: who changed the mark, from what to what, when and why."""
    lines = []
    for o in question.get("overrides") or []:
        when = f" on {_when(o['at']):%d %b %Y %H:%M} (UTC)" if o.get("at") else ""
        was = "not marked" if o.get("from") is None else f"{o['from']:g}"
        lines.append(f"{o.get('teacher') or 'teacher'}{when}: {was} → {o['to']:g} of {o['out_of']:g}. "
                     f"Reason: {o['reason']}")
    return lines


def changes_frame(changes: list[dict]) -> pd.DataFrame:
    """A re-mark's list of changes as a table for the page (without the ids)."""
    return pd.DataFrame([{k: v for k, v in c.items() if k not in ("session_id", "item_id")} for c in changes],
                        columns=["Student", "Attempt", "Question", "Old", "New", "Out of", "Note"])
