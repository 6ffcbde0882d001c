"""A student's sittings: what to start for practice, a lesson, a mock exam or an assignment,
what to resume, and the table of past sittings."""
from __future__ import annotations

import datetime as dt
from typing import Any, Optional, Sequence

from core.school import assignments, classes
from core.store import Store, sessions
from core.store import gradebook as gradebook_store
from core.store import progress as progress_store

KIND_LABELS = {"practice": "Rapid-fire practice", "lesson": "Lesson", "exam": "Mock exam",
               "survey": "Exit ticket", "evaluation": "Evaluation", "chat": "Tutor conversation"}

STATUS_LABELS = {"active": "In progress", "completed": "Finished", "abandoned": "Stopped", "expired": "Timed out"}

ADAPTIVE = "adaptive"

DEFAULT_LESSON_CARDS = 5


def resume(store: Store, student: str, kinds: Sequence[str]) -> Optional[dict]:
    """The student's newest active session of any of these kinds (a reload carries on with it)."""
    found = []
    for kind in kinds:
        found += sessions.list_sessions(store, student=student, kind=kind, status="active", limit=1)
    return max(found, key=lambda s: (s["created_at"], s["id"])) if found else None


def practice_start(subject: str, level: str, outcome: Optional[str], lesson: bool,
                   cards: int = DEFAULT_LESSON_CARDS) -> tuple[str, dict]:
    """(kind, config) for practice: rapid fire (adaptive when no outcome is chosen) or a lesson."""
    chosen = None if outcome in (None, "", ADAPTIVE) else outcome
    if lesson:
        return "lesson", {"subject": subject, "level": level, "outcome": chosen, "cards": int(cards)}
    if chosen is None:
        return "practice", {"subject": subject, "level": level, "outcome": None, "mode": "adaptive"}
    return "practice", {"subject": subject, "level": level, "outcome": chosen, "mode": "practice"}


def exit_ticket_config(practice_view: dict) -> dict:
    """The exit-ticket survey for a finished practice session, tied to it by its context."""
    stats = practice_view.get("stats") or {}
    return {"survey_id": "exit_ticket",
            "context": {"practice_session": practice_view.get("session_id"), "subject": practice_view.get("subject"),
                        "level": practice_view.get("level"), "outcome": practice_view.get("outcome"),
                        "answered": stats.get("total", 0), "correct": stats.get("correct", 0)}}


def exam_start(subject: str, level: str, exam_format: Optional[str] = None,
               seed: Optional[str] = None) -> tuple[str, dict]:
    """(kind, config) for a mock exam the student chose; without ``seed`` the seed is the new session's id (a fresh
    paper). A page that chooses a fresh seed itself can have the paper drawn ahead (``Runner.prepare``).

    ``exam_format`` names another shape of paper from the course spec's ``formats`` (the National 5
    "short" mock); None or "full" is the full paper.
    """
    config = {"subject": subject, "level": level}
    name = (exam_format or "").strip()
    if name and name != "full":
        config["format"] = name
    if seed:
        config["seed"] = seed
    return "exam", config


def assignment_start(assignment: dict) -> tuple[str, dict]:
    """(kind, config) for an assigned exam: the same paper for the whole class, with the teacher's time limit."""
    cfg = dict(assignment.get("config") or {})
    kind = "evaluation" if cfg.get("assessment_id") or assignment.get("kind") == "evaluation" else "exam"
    cfg["assignment_id"] = assignment["id"]
    if kind == "exam":
        cfg.setdefault("paper_key", assignment["id"])
        cfg.setdefault("seed", assignment["id"])
    if assignment.get("time_limit_minutes"):
        cfg["time_limit_minutes"] = assignment["time_limit_minutes"]
    return kind, cfg


def open_assignments(store: Store, student: str, now: Optional[dt.datetime] = None) -> list[dict]:
    """Open assignments for the student's classes, each with the student's session for it (if any).

    ``session`` is the newest session started for the assignment ({id, status, ...}) or None; the rest of
    ``assignments.for_student`` (attempts used and left, why it cannot be started, when results come) is merged in.
    """
    now = now or assignments.utc()
    taken: dict[str, dict] = {}
    for row in progress_store.session_summaries(store, student, kinds=("exam", "evaluation"), limit=500):
        aid = row["config"].get("assignment_id")
        if aid and aid not in taken:
            taken[aid] = row
    out = []
    for a in classes.open_assignments(store, student, now):
        out.append({**a, **assignments.for_student(store, a, student, now), "session": taken.get(a["id"])})
    return out


def results_held(store: Store, config: dict, now: Any = None) -> Optional[str]:
    """For a session of an assignment whose results are not released yet: when they come (a sentence);
    None when its results may be shown (released, or not an assignment)."""
    aid = (config or {}).get("assignment_id")
    found = assignments.get_assignment(store, aid) if aid else None
    if found is None or assignments.results_released(store, found, now):
        return None
    return assignments.release_note(found, now)


def past_exams(store: Store, student: str, limit: int = 10, now: Any = None) -> list[dict]:
    """The student's finished mock exams and evaluations, newest first, with their marks (not before an
    assignment releases its results). ``kind`` says which; an evaluation's ``course`` is its title."""
    rows = [row for row in progress_store.session_summaries(store, student, kinds=("exam", "evaluation"),
                                                             limit=limit * 3) if row["status"] != "active"]
    titles = gradebook_store.evaluation_titles(store, [row["id"] for row in rows if row["kind"] == "evaluation"])
    out = []
    for row in rows:
        cfg = row["config"]
        course = (f"Evaluation: {titles.get(row['id']) or cfg.get('assessment_id', '')}" if row["kind"] == "evaluation"
                  else f"{cfg.get('subject', '')} {cfg.get('level', '')}".strip())
        out.append({"id": row["id"], "kind": row["kind"], "when": _when(row["created_at"]), "course": course,
                    "assigned": bool(cfg.get("assignment_id")),
                    "score": _score_text(row) if results_held(store, cfg, now) is None else "results not released yet"})
    return out[:limit]


def practice_preset(subject: str, level: str, outcome: Optional[str]) -> dict:
    """What another page hands the practice page to preselect (kept in the browser session)."""
    return {"subject": subject, "level": level, "outcome": outcome or ADAPTIVE}


def _when(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return value.strftime("%d %b %Y %H:%M")
    return str(value or "")


def _score_text(row: dict) -> str:
    if row["kind"] == "lesson":
        # Cards, not marks: a lesson stopped after one card of five, answered right, is 1 of 5, not 100%.
        cards = max(int((row.get("config") or {}).get("cards") or DEFAULT_LESSON_CARDS), row["answers"])
        return f"{row['correct']} of {cards} card{'s' if cards != 1 else ''} right"
    if row.get("max_score"):
        return f"{row['score']:g} / {row['max_score']:g} ({round(100 * row['score'] / row['max_score'])}%)"
    if row["kind"] == "survey":
        return "—"
    return "no answers yet" if not row["answers"] else f"{row['correct']} / {row['answers']} right"


def recent_sessions(store: Store, student: str, limit: int = 15) -> list[dict]:
    """The student's latest sessions for a table: what, course, when (UTC), status and score."""
    out = []
    for row in progress_store.session_summaries(store, student, limit=limit):
        cfg = row["config"]
        course = f"{cfg.get('subject', '')} {cfg.get('level', '')}".strip()
        if row["kind"] == "survey":
            course = (cfg.get("context") or {}).get("subject") or ""
        out.append({"What": KIND_LABELS.get(row["kind"], row["kind"]), "Course": course,
                    "When (UTC)": _when(row["created_at"]), "Status": STATUS_LABELS.get(row["status"], row["status"]),
                    "Score": _score_text(row) if results_held(store, cfg) is None else "results not released yet"})
    return out
