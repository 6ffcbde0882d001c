"""Classes: creating them, their rosters (with CSV import), settings, results and assigned exams."""
from __future__ import annotations

import csv
import dataclasses
import datetime as dt
import io
import re
import uuid
from typing import Optional

from core.school.auth import student_id
from core.store import Store
from core.store import school

CODE = re.compile(r"^[A-Z0-9][A-Z0-9-]{2,15}$")
MAX_ROSTER_ROWS = 2_000


class ClassError(ValueError):
    """A teacher's request about a class that cannot be done; the message says why."""


@dataclasses.dataclass
class RosterImport:
    added: int
    already_there: int
    errors: list[tuple[int, str]]


def create_class(store: Store, code: str, name: str, subject: Optional[str] = None, level: Optional[str] = None,
                 allow_unknown_names: bool = False, approved_items_only: bool = False, demo: bool = False) -> str:
    code = (code or "").strip().upper()
    if not CODE.match(code):
        raise ClassError("A class code is 3 to 16 letters, digits or dashes, for example S4-MATHS.")
    if not (name or "").strip():
        raise ClassError("Give the class a name.")
    if school.get_class(store, code):
        raise ClassError(f"There is already a class with the code {code}.")
    school.create_class(store, code, name.strip(), subject, level, allow_unknown_names, approved_items_only, demo)
    return code


def add_student(store: Store, code: str, name: str) -> str:
    name = " ".join((name or "").split())
    if not name:
        raise ClassError("Type the student's name.")
    if len(name) > 60:
        raise ClassError("Names are at most 60 characters.")
    if school.get_class(store, code) is None:
        raise ClassError(f"There is no class {code}.")
    sid = student_id(code, name)
    if not school.add_students(store, code, [(sid, name)]):
        raise ClassError(f"{name} is already on the class list.")
    return sid


def import_roster_csv(store: Store, code: str, text: str) -> RosterImport:
    """A CSV with a 'name' column (or one column of names); bad rows are reported by row number, good ones kept."""
    if school.get_class(store, code) is None:
        raise ClassError(f"There is no class {code}.")
    rows = list(csv.reader(io.StringIO(text)))
    if not rows:
        raise ClassError("The file is empty: it needs a 'name' column with one student per row.")
    header = [h.strip().lower() for h in rows[0]]
    column, start = (header.index("name"), 1) if "name" in header else (0, 0)
    if len(rows) - start > MAX_ROSTER_ROWS:
        raise ClassError(f"The file has more than {MAX_ROSTER_ROWS} rows; split it.")
    errors: list[tuple[int, str]] = []
    seen: dict[str, int] = {}
    pairs: list[tuple[str, str]] = []
    for number, row in enumerate(rows[start:], start + 1):
        name = " ".join((row[column] if column < len(row) else "").split())
        if not name:
            errors.append((number, "no name in this row"))
            continue
        if len(name) > 60:
            errors.append((number, "name longer than 60 characters"))
            continue
        key = name.lower()
        if key in seen:
            errors.append((number, f"'{name}' is also on row {seen[key]}"))
            continue
        seen[key] = number
        pairs.append((student_id(code, name), name))
    added = school.add_students(store, code, pairs)
    return RosterImport(added=added, already_there=len(pairs) - added, errors=errors)


def assign_exam(store: Store, code: str, title: str, config: dict, opens_at: dt.datetime, closes_at: dt.datetime,
                time_limit_minutes: Optional[float], created_by: str = "teacher") -> str:
    if school.get_class(store, code) is None:
        raise ClassError(f"There is no class {code}.")
    if closes_at <= opens_at:
        raise ClassError("The window must close after it opens.")
    if time_limit_minutes is not None and not 1 <= time_limit_minutes <= 600:
        raise ClassError("The time limit must be between 1 and 600 minutes.")
    kind = "evaluation" if config.get("assessment_id") else "exam"
    if kind == "exam" and not (config.get("subject") and config.get("level")):
        raise ClassError("A mock exam needs a subject and a level.")
    assignment_id = f"asg_{uuid.uuid4().hex[:12]}"
    school.add_assignment(store, assignment_id, code, kind, title or "Mock exam", config, opens_at, closes_at,
                          time_limit_minutes, created_by)
    return assignment_id


def open_assignments(store: Store, student: str, now: Optional[dt.datetime] = None) -> list[dict]:
    now = now or dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    out = []
    for klass in school.classes_of(store, student):
        for a in school.assignments_for_class(store, klass["code"]):
            if a["opens_at"] <= now <= a["closes_at"]:
                out.append(a)
    return out
