"""Classes: creating them, their rosters (with CSV import), settings, results and assigned exams."""
from __future__ import annotations

import dataclasses
import datetime as dt
import re
from typing import Optional

from core.school.names import MAX_NAME, clean_name, name_key, name_problem, student_id
from core.school.roster_csv import RosterFileError, read_roster
from core.store import Store, school

CODE = re.compile(r"^[A-Z0-9][A-Z0-9-]{2,15}$")
MAX_ROSTER_ROWS = 2_000


class ClassError(ValueError):
    """A teacher's request about a class that cannot be done; the message says why."""


@dataclasses.dataclass
class RosterImport:
    added: int
    already_there: int
    errors: list[tuple[int, str]]
    already_names: list[str] = dataclasses.field(default_factory=list)   # rows skipped: that name is on the list
    read_from: str = ""            # where the names were found, e.g. "the columns 'Forename' + 'Surname'"


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


def _add(store: Store, code: str, names: list[str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Add names to the roster (each a new student with an id of its own); names already on it are left alone."""
    return school.add_named_students(store, code, names, name_key, lambda name, taken: student_id(code, name, taken))


def add_student(store: Store, code: str, name: str) -> str:
    name = clean_name(name)
    if not name:
        raise ClassError("Type the student's name.")
    problem = name_problem(name)
    if problem:
        raise ClassError(f"Names are at most {MAX_NAME} characters." if len(name) > MAX_NAME
                         else f"That name cannot be used: {problem}.")
    klass = school.get_class(store, code)
    if klass is None:
        raise ClassError(f"There is no class {code}.")
    added, _ = _add(store, klass["code"], [name])
    if not added:
        raise ClassError(f"{name} is already on the class list. If this is another student, add their name with "
                         "something that tells them apart (a middle name or an initial).")
    return added[0][0]


def import_roster_csv(store: Store, code: str, text: str) -> RosterImport:
    """A class list exported from a school's records or a spreadsheet (see ``core.school.roster_csv`` for the
    headers it recognises); bad rows are reported by row number, good ones kept.

    Two rows with the same name (after normalising: capitals, spacing, full-width letters) are not two
    students: the first is kept and the other refused with a message, since they cannot be told apart
    at sign-in. Names in any script are kept apart (Zoë is not Zoé).
    """
    klass = school.get_class(store, code)
    if klass is None:
        raise ClassError(f"There is no class {code}.")
    try:
        found = read_roster(text)
    except RosterFileError as exc:
        raise ClassError(str(exc)) from None
    if len(found.names) > MAX_ROSTER_ROWS:
        raise ClassError(f"The file has more than {MAX_ROSTER_ROWS} rows; split it.")
    errors: list[tuple[int, str]] = []
    seen: dict[str, tuple[int, str]] = {}
    names: list[str] = []
    for number, written in found.names:
        name = clean_name(written)
        problem = name_problem(name)
        if problem:
            errors.append((number, f"{problem} in this row" if problem == "no name" else problem))
            continue
        key = name_key(name)
        if key in seen:
            first, as_written = seen[key]
            same = "" if as_written == name else f" ('{as_written}')"
            errors.append((number, f"'{name}' is the same name as row {first}{same}: two students cannot share a "
                                   "name; if this is another student, add something that tells them apart"))
            continue
        seen[key] = (number, name)
        names.append(name)
    added, already = _add(store, klass["code"], names)
    return RosterImport(added=len(added), already_there=len(already), errors=errors, already_names=already,
                        read_from=found.read_from)


def assign_exam(store: Store, code: str, title: str, config: dict, opens_at: dt.datetime, closes_at: dt.datetime,
                time_limit_minutes: Optional[float], created_by: str = "teacher", extra_time: Optional[dict] = None,
                attempts_allowed: int = 1, release: str = "on_close") -> str:
    """Give the class a paper to sit in a window; see core.school.assignments for the rules (raises ClassError)."""
    from core.school import assignments
    return assignments.create(store, code, title, config, opens_at, closes_at, time_limit_minutes, created_by,
                              extra_time=extra_time, attempts_allowed=attempts_allowed, release=release)


def open_assignments(store: Store, student: str, now: Optional[dt.datetime] = None) -> list[dict]:
    """Assignments of the student's classes whose window is open now (deleted ones never)."""
    now = now or dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    out = []
    for klass in school.classes_of(store, student):
        for a in school.assignments_for_class(store, klass["code"]):
            if a["opens_at"] <= now < a["closes_at"]:
                out.append(a)
    return out
