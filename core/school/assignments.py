"""Assigned papers: their window, time limit, extra time per student, attempts, and when results are released.

An assignment gives a class one paper (a mock exam from a course spec or an
evaluation from an assessment blueprint) to sit between ``opens_at`` and
``closes_at`` (naive UTC, as stored). Each sitting's deadline is
``min(start + time limit + the student's extra time, closes_at)``; the flows
read it live, so a teacher who closes the assignment early or gives a student
more time changes the sittings already running.

Results are released ``on_submit`` (as each student hands in), ``on_close``
(when the window closes, the default for a class paper) or ``manual`` (when the
teacher releases them); a teacher may release early under any policy. Deleting
is soft: the row stays (with ``deleted_at``), the students' sessions and
responses stay and are still reported, and no student can start it again.
"""
from __future__ import annotations

import datetime as dt
import math
import uuid
from typing import Any, Optional, Union

from core.school.classes import ClassError
from core.store import Store
from core.store import school

RELEASE_POLICIES = ("on_submit", "on_close", "manual")
RELEASE_LABELS = {"on_submit": "as each student hands in", "on_close": "when the assignment closes",
                  "manual": "when the teacher releases them"}
DEFAULT_RELEASE = "on_close"
MAX_MINUTES = 600
MAX_ATTEMPTS = 20

_KEEP: Any = object()   # an edit that leaves the field as it is

When = Union[dt.datetime, float, int, None]


class AssignmentError(ClassError):
    """A teacher's or student's request about an assignment that cannot be done; the message says why."""


def utc(when: When = None) -> dt.datetime:
    """A moment as the naive UTC the database keeps: a datetime (naive means UTC already), epoch seconds, or now."""
    if when is None:
        return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    if isinstance(when, dt.datetime):
        return when.astimezone(dt.timezone.utc).replace(tzinfo=None) if when.tzinfo else when
    return dt.datetime.fromtimestamp(float(when), dt.timezone.utc).replace(tzinfo=None)


def epoch(when: dt.datetime) -> float:
    """A stored (naive UTC) moment as epoch seconds, as a flow's clock gives them."""
    return when.replace(tzinfo=dt.timezone.utc).timestamp()


def clock_time(when: When) -> str:
    """HH:MM (UTC), as the student pages show times."""
    return f"{utc(when):%H:%M}"


def moment(when: When) -> str:
    """A date and time as the pages show them: 14:05 on 12 May 2025 (UTC)."""
    w = utc(when)
    return f"{w:%H:%M} on {w.day} {w:%b %Y} (UTC)"


def _limit(minutes: Optional[float]) -> Optional[float]:
    if minutes is None:
        return None
    if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or math.isnan(minutes) \
            or not 0 < minutes <= MAX_MINUTES:
        raise AssignmentError(f"The time limit must be more than 0 and at most {MAX_MINUTES} minutes "
                              f"(or none, for the paper's own time allowed); got {minutes!r}.")
    return float(minutes)


def _window(opens_at: dt.datetime, closes_at: dt.datetime) -> tuple[dt.datetime, dt.datetime]:
    if not isinstance(opens_at, dt.datetime) or not isinstance(closes_at, dt.datetime):
        raise AssignmentError("Set both when the assignment opens and when it closes.")
    opens_at, closes_at = utc(opens_at), utc(closes_at)
    if closes_at <= opens_at:
        raise AssignmentError("The window must close after it opens: choose a closing time after "
                              f"{moment(opens_at)}.")
    return opens_at, closes_at


def _attempts(attempts: Any) -> int:
    if isinstance(attempts, bool) or not isinstance(attempts, int) or not 1 <= attempts <= MAX_ATTEMPTS:
        raise AssignmentError(f"Attempts allowed must be a whole number from 1 to {MAX_ATTEMPTS}; got {attempts!r}.")
    return attempts


def _release(policy: Any) -> str:
    if policy not in RELEASE_POLICIES:
        raise AssignmentError(f"Results are released 'on_submit', 'on_close' or 'manual', not {policy!r}.")
    return policy


def _extra_time(store: Store, class_code: str, extra: Optional[dict]) -> dict[str, float]:
    """{student id: extra minutes} for students on the class list; 0 minutes means none (dropped)."""
    if not extra:
        return {}
    roster = {r["student"]: r["display_name"] for r in school.roster(store, class_code)}
    out: dict[str, float] = {}
    for student, minutes in extra.items():
        if student not in roster:
            raise AssignmentError(f"{student} is not on the class list of {class_code}; give extra time only to "
                                  "students of the class.")
        if isinstance(minutes, bool) or not isinstance(minutes, (int, float)) or math.isnan(minutes):
            raise AssignmentError(f"Extra time for {roster[student]} must be a number of minutes; got {minutes!r}.")
        if minutes < 0:
            raise AssignmentError(f"Extra time cannot be negative ({roster[student]}: {minutes:g} minutes); "
                                  "give 0 for none.")
        if minutes > MAX_MINUTES:
            raise AssignmentError(f"Extra time for {roster[student]} is at most {MAX_MINUTES} minutes; "
                                  f"got {minutes:g}.")
        if minutes > 0:
            out[student] = float(minutes)
    return out


def require(store: Store, assignment_id: str) -> dict:
    found = school.get_assignment(store, assignment_id)
    if found is None:
        raise AssignmentError(f"There is no assignment {assignment_id}; choose one from the class's list.")
    return found


def _live(store: Store, assignment_id: str) -> dict:
    found = require(store, assignment_id)
    if found["deleted_at"] is not None:
        raise AssignmentError(f"'{found['title']}' was deleted on {moment(found['deleted_at'])}; it can no longer "
                              "be changed. Assign the paper again to run it.")
    return found


# ------------------------------------------------------------------ teachers


def create(store: Store, code: str, title: str, config: dict, opens_at: dt.datetime, closes_at: dt.datetime,
           time_limit_minutes: Optional[float], created_by: str = "teacher", extra_time: Optional[dict] = None,
           attempts_allowed: int = 1, release: str = DEFAULT_RELEASE) -> str:
    klass = school.get_class(store, code)
    if klass is None:
        raise AssignmentError(f"There is no class {code}.")
    opens_at, closes_at = _window(opens_at, closes_at)
    limit = _limit(time_limit_minutes)
    kind = "evaluation" if config.get("assessment_id") else "exam"
    if kind == "exam" and not (config.get("subject") and config.get("level")):
        raise AssignmentError("A mock exam needs a subject and a level.")
    extra = _extra_time(store, klass["code"], extra_time)
    assignment_id = f"asg_{uuid.uuid4().hex[:12]}"
    school.add_assignment(store, assignment_id, klass["code"], kind, (title or "").strip() or "Mock exam", config,
                          opens_at, closes_at, limit, created_by, extra, _attempts(attempts_allowed),
                          _release(release))
    return assignment_id


def get_assignment(store: Store, assignment_id: str) -> Optional[dict]:
    """Every field of an assignment (deleted ones too, with ``deleted_at`` set), or None."""
    return school.get_assignment(store, assignment_id)


def edit(store: Store, assignment_id: str, *, title: Any = _KEEP, opens_at: Any = _KEEP, closes_at: Any = _KEEP,
         time_limit_minutes: Any = _KEEP, extra_time: Any = _KEEP, attempts_allowed: Any = _KEEP,
         release: Any = _KEEP, now: When = None) -> dict:
    """Change what is given; the rest stays. Returns the assignment as it now is."""
    current = _live(store, assignment_id)
    fields: dict[str, Any] = {}
    if title is not _KEEP:
        if not (title or "").strip():
            raise AssignmentError("Give the assignment a title students will recognise.")
        fields["title"] = title.strip()
    if opens_at is not _KEEP or closes_at is not _KEEP:
        o, c = _window(current["opens_at"] if opens_at is _KEEP else opens_at,
                       current["closes_at"] if closes_at is _KEEP else closes_at)
        fields.update(opens_at=o, closes_at=c)
        if c != current["closes_at"]:
            fields["closed_early_at"] = None   # a new closing time replaces "closed early"
    if time_limit_minutes is not _KEEP:
        fields["time_limit_minutes"] = _limit(time_limit_minutes)
    if extra_time is not _KEEP:
        fields["extra_time"] = _extra_time(store, current["class_code"], extra_time)
    if attempts_allowed is not _KEEP:
        fields["attempts_allowed"] = _attempts(attempts_allowed)
    if release is not _KEEP:
        fields["release_policy"] = _release(release)
    school.update_assignment(store, assignment_id, utc(now), **fields)
    return require(store, assignment_id)


def close_now(store: Store, assignment_id: str, now: When = None) -> dict:
    """Close the window now: no one can start it, and sittings in progress end now."""
    current = _live(store, assignment_id)
    at = utc(now)
    if at < current["opens_at"]:
        raise AssignmentError(f"'{current['title']}' has not opened yet (it opens at {moment(current['opens_at'])}); "
                              "delete it instead, or change its window.")
    if at >= current["closes_at"]:
        raise AssignmentError(f"'{current['title']}' closed already, at {moment(current['closes_at'])}.")
    school.update_assignment(store, assignment_id, at, closes_at=at, closed_early_at=at)
    return require(store, assignment_id)


def release_results(store: Store, assignment_id: str, by: Optional[str] = None, now: When = None) -> dict:
    """Show the students their results now (any policy; again is harmless)."""
    current = _live(store, assignment_id)
    at = utc(now)
    if current["released_at"] is None or current["released_at"] > at:
        school.update_assignment(store, assignment_id, at, released_at=at, released_by=by)
    return require(store, assignment_id)


def delete(store: Store, assignment_id: str, by: Optional[str] = None, now: When = None) -> dict:
    """Soft delete: students can no longer start it; their sessions and responses are kept and still reported."""
    current = require(store, assignment_id)
    if current["deleted_at"] is not None:
        raise AssignmentError(f"'{current['title']}' was deleted already, on {moment(current['deleted_at'])}.")
    at = utc(now)
    school.update_assignment(store, assignment_id, at, deleted_at=at, deleted_by=by)
    return require(store, assignment_id)


# ------------------------------------------------------------------ rules


def status(assignment: dict, now: When = None) -> str:
    """deleted, upcoming, open or closed."""
    at = utc(now)
    if assignment.get("deleted_at") is not None:
        return "deleted"
    if at < assignment["opens_at"]:
        return "upcoming"
    return "open" if at < assignment["closes_at"] else "closed"


def results_released(store: Store, assignment: Union[dict, str], now: When = None) -> bool:
    """Whether students may see their marks, answers, keys and feedback for this assignment now."""
    a = require(store, assignment) if isinstance(assignment, str) else assignment
    at = utc(now)
    if a.get("release_policy", DEFAULT_RELEASE) == "on_submit":
        return True
    if a.get("released_at") is not None and a["released_at"] <= at:
        return True
    return a.get("release_policy", DEFAULT_RELEASE) == "on_close" and at >= a["closes_at"]


def release_note(assignment: dict, now: When = None) -> str:
    """When the results come, in a sentence for the student."""
    at = utc(now)
    released_at = assignment.get("released_at")
    if released_at is not None and released_at <= at:
        return f"Results were released at {moment(released_at)}."
    policy = assignment.get("release_policy", DEFAULT_RELEASE)
    if policy == "on_submit":
        return "Results are shown as soon as you hand it in."
    if policy == "on_close":
        if at >= assignment["closes_at"]:
            return f"Results were released when the assignment closed, at {moment(assignment['closes_at'])}."
        return f"Results are released when the assignment closes, at {moment(assignment['closes_at'])}."
    return "Results are released when your teacher releases them."


def extra_minutes(assignment: dict, student: str) -> float:
    return float((assignment.get("extra_time") or {}).get(student, 0.0))


def deadline(assignment: dict, student: str, started_at: When, limit_minutes: Optional[float] = None) -> dt.datetime:
    """min(start + time limit + the student's extra time, closes_at); ``limit_minutes`` is the paper's own time
    allowed, used when the assignment sets no limit (none at all: the window's close)."""
    closes = assignment["closes_at"]
    limit = assignment.get("time_limit_minutes") or limit_minutes
    if not limit:
        return closes
    end = utc(started_at) + dt.timedelta(minutes=float(limit) + extra_minutes(assignment, student))
    return min(end, closes)


def attempts_used(store: Store, assignment_id: str, student: str, excluding: Optional[str] = None) -> int:
    return sum(1 for s in school.assignment_sessions(store, assignment_id, student) if s["id"] != excluding)


def start_problem(store: Store, assignment: dict, student: str, now: When = None,
                  session_id: Optional[str] = None) -> Optional[str]:
    """Why the student cannot start a sitting of this assignment now, or None when they can."""
    at = utc(now)
    title = assignment["title"]
    if assignment.get("deleted_at") is not None:
        return f"'{title}' was withdrawn by your teacher, so it can no longer be started."
    if at < assignment["opens_at"]:
        return f"'{title}' opens at {moment(assignment['opens_at'])}; come back then."
    if at >= assignment["closes_at"]:
        return f"'{title}' closed at {moment(assignment['closes_at'])}, so it can no longer be started."
    allowed = assignment.get("attempts_allowed") or 1
    used = attempts_used(store, assignment["id"], student, excluding=session_id)
    if used >= allowed:
        return (f"You have used your {'attempt' if allowed == 1 else f'{allowed} attempts'} at '{title}'; "
                "ask your teacher if you need another.")
    return None


def for_student(store: Store, assignment: dict, student: str, now: When = None) -> dict:
    """What the student's list shows about an assignment: attempts used and left, whether it can be started
    (and why not), when results come and whether they are out."""
    allowed = assignment.get("attempts_allowed") or 1
    used = attempts_used(store, assignment["id"], student)
    return {"attempts_allowed": allowed, "attempts_used": used, "attempts_left": max(0, allowed - used),
            "start_problem": start_problem(store, assignment, student, now),
            "extra_minutes": extra_minutes(assignment, student),
            "results_released": results_released(store, assignment, now),
            "release_note": release_note(assignment, now)}


def summary(store: Store, assignment: dict, now: When = None) -> dict:
    """For the teacher's list: status, release state and how many students started and handed in."""
    sittings = school.assignment_sessions(store, assignment["id"])
    return {"status": status(assignment, now), "released": results_released(store, assignment, now),
            "started": len({s["student"] for s in sittings}),
            "handed_in": len({s["student"] for s in sittings if s["status"] != "active"}),
            "in_progress": len({s["student"] for s in sittings if s["status"] == "active"})}
