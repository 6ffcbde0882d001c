"""The courses a student can choose from: each course spec's subject, level and outcomes,
and a student's home course."""
from __future__ import annotations

from typing import Optional

from core.blueprints.library import Library
from core.school.sittings import ADAPTIVE
from core.store import Store, school

def courses(library: Library) -> list[dict]:
    """Every course with a spec: subject, level and title, by subject then level."""
    return library.courses()


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
