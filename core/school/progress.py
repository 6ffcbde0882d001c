"""What the student pages need beyond the flows: course choices, resuming, assignments, mastery and history.

Pure Python over the library and the store's query functions; the pages only
render what these return.
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Optional, Sequence

from core.school import classes
from core.blueprints.library import Library
from core.store import Store, school, sessions
from core.store import progress as progress_store

LEVEL_ORDER = ["Nat 3", "Nat 4", "Nat 5", "Higher", "Advanced Higher"]
KIND_LABELS = {"practice": "Rapid-fire practice", "lesson": "Lesson", "exam": "Mock exam",
               "survey": "Exit ticket", "evaluation": "Evaluation"}
STATUS_LABELS = {"active": "In progress", "completed": "Finished", "abandoned": "Stopped", "expired": "Timed out"}
ADAPTIVE = "adaptive"
DEFAULT_LESSON_CARDS = 5
SECURE, DEVELOPING = 0.8, 0.5     # mastery bands shown to the student


# --------------------------------------------------------------------------
# Courses and outcomes


def _level_key(level: str) -> tuple[int, str]:
    return (LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER), level)


def courses(library: Library) -> list[dict]:
    """Every course with a spec: subject, level and title, by subject then level."""
    out = [{"subject": s.model.subject, "level": s.model.level, "title": s.model.title}
           for s in library.specs.values()]
    return sorted(out, key=lambda c: (c["subject"], _level_key(c["level"])))


def subjects(library: Library) -> list[str]:
    return sorted({c["subject"] for c in courses(library)})


def levels(library: Library, subject: str) -> list[str]:
    return [c["level"] for c in courses(library) if c["subject"] == subject]


def outcomes(library: Library, subject: str, level: str) -> list[dict]:
    """The course's outcomes as {id, label}; [] when there is no such course."""
    for spec in library.specs.values():
        m = spec.model
        if m.subject.lower() == subject.lower() and m.level.lower() == level.lower():
            return [{"id": o.id, "label": o.label} for o in m.outcomes]
    return []


def outcome_label(library: Library, subject: str, level: str, outcome_id: Optional[str]) -> str:
    if not outcome_id or outcome_id == ADAPTIVE:
        return "Adaptive (your weakest areas first)"
    for o in outcomes(library, subject, level):
        if o["id"] == outcome_id:
            return f"{o['id']}: {o['label']}"
    return outcome_id


def home_course(store: Store, library: Library, student: str) -> tuple[str, str]:
    """The course of the student's class when the library has it, else the first course there is."""
    known = courses(library)
    pairs = {(c["subject"].lower(), c["level"].lower()): (c["subject"], c["level"]) for c in known}
    for klass in school.classes_of(store, student):
        found = pairs.get(((klass.get("subject") or "").lower(), (klass.get("level") or "").lower()))
        if found:
            return found
    if not known:
        raise ValueError("the blueprint library has no course specs")
    return known[0]["subject"], known[0]["level"]


# --------------------------------------------------------------------------
# Starting and resuming sessions


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


def exam_start(subject: str, level: str) -> tuple[str, dict]:
    """(kind, config) for a mock exam the student chose; the seed defaults to the session id (a fresh paper)."""
    return "exam", {"subject": subject, "level": level}


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

    ``session`` is the newest session started for the assignment ({id, status, ...}) or None.
    """
    taken: dict[str, dict] = {}
    for row in progress_store.session_summaries(store, student, kinds=("exam", "evaluation"), limit=500):
        aid = row["config"].get("assignment_id")
        if aid and aid not in taken:
            taken[aid] = row
    out = []
    for a in classes.open_assignments(store, student, now):
        out.append({**a, "session": taken.get(a["id"])})
    return out


def past_exams(store: Store, student: str, limit: int = 10) -> list[dict]:
    """The student's finished mock exams, newest first, with their percentage."""
    rows = progress_store.session_summaries(store, student, kinds=("exam",), limit=limit * 3)
    out = []
    for row in rows:
        if row["status"] == "active":
            continue
        cfg = row["config"]
        out.append({"id": row["id"], "when": _when(row["created_at"]),
                    "course": f"{cfg.get('subject', '')} {cfg.get('level', '')}".strip(),
                    "assigned": bool(cfg.get("assignment_id")), "score": _score_text(row)})
    return out[:limit]


# --------------------------------------------------------------------------
# Mastery and history


def _skill_info(library: Library) -> dict[str, dict]:
    info: dict[str, dict] = {}
    for spec in library.specs.values():
        m = spec.model
        for o in m.outcomes:
            info[o.id] = {"name": o.label, "outcome_id": o.id, "outcome": o.label,
                          "subject": m.subject, "level": m.level}
    for sid, loaded in library.skills.items():
        meta = loaded.model.metadata
        outcome_id = meta.outcome_ids[0] if meta.outcome_ids else None
        outcome = info.get(outcome_id, {}) if outcome_id else {}
        info[sid] = {"name": meta.topic or meta.skill_statement or sid, "outcome_id": outcome_id,
                     "outcome": outcome.get("outcome"), "subject": meta.subject or outcome.get("subject"),
                     "level": meta.level or outcome.get("level")}
    return info


def band(score: float) -> str:
    if score >= SECURE:
        return "Secure"
    if score >= DEVELOPING:
        return "Developing"
    return "Needs work"


def mastery_rows(library: Library, mastery: dict[str, float]) -> list[dict]:
    """One row per skill the student has evidence on, strongest first."""
    info = _skill_info(library)
    rows = []
    for skill, score in mastery.items():
        i = info.get(skill, {})
        rows.append({"skill": skill, "name": i.get("name") or skill, "score": float(score),
                     "percent": round(100 * float(score)), "band": band(float(score)),
                     "outcome_id": i.get("outcome_id"), "outcome": i.get("outcome"),
                     "subject": i.get("subject"), "level": i.get("level")})
    rows.sort(key=lambda r: (-r["score"], r["name"]))
    return rows


def student_mastery(store: Store, library: Library, student: str) -> list[dict]:
    return mastery_rows(library, sessions.get_mastery(store, student))


def strongest_and_weakest(rows: list[dict], n: int = 3) -> tuple[list[dict], list[dict]]:
    """Up to n strongest and n weakest skills, never the same skill in both (rows strongest first)."""
    if not rows:
        return [], []
    k = min(n, (len(rows) + 1) // 2)
    strongest = rows[:k]
    weakest = list(reversed(rows[k:]))[:n] if len(rows) > 1 else []
    return strongest, weakest


def next_to_practise(rows: list[dict]) -> Optional[dict]:
    """The outcome of the weakest skill that belongs to a course: {subject, level, outcome, skill, name, percent}."""
    for row in sorted(rows, key=lambda r: (r["score"], r["name"])):
        if row["outcome_id"] and row["subject"] and row["level"]:
            return {"subject": row["subject"], "level": row["level"], "outcome": row["outcome_id"],
                    "outcome_label": row["outcome"] or row["outcome_id"], "skill": row["skill"],
                    "name": row["name"], "percent": row["percent"]}
    return None


def practice_preset(subject: str, level: str, outcome: Optional[str]) -> dict:
    """What another page hands the practice page to preselect (kept in the browser session)."""
    return {"subject": subject, "level": level, "outcome": outcome or ADAPTIVE}


def _when(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return value.strftime("%d %b %Y %H:%M")
    return str(value or "")


def _score_text(row: dict) -> str:
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
                    "Score": _score_text(row)})
    return out


def skill_names(library: Library, skill_ids: Sequence[str]) -> list[str]:
    """Readable names for skill ids (a blueprint's topic, an outcome's label, else the id)."""
    info = _skill_info(library)
    return [info.get(s, {}).get("name") or s for s in skill_ids]


def mastery_update(score: float, correct: bool) -> float:
    """Seed 001's rule: up 10% of the way to 1 when right, down 20% of the way to 0 when wrong."""
    if correct:
        return round(score + 0.1 * (1.0 - score), 6)
    return round(score - 0.2 * score, 6)


INITIAL_MASTERY = 0.5
