"""What the exam and evaluation flows share about sitting a paper: the assignment's rules, and saved answers.

For a sitting of an assignment (``assignment_id`` in the session's config):
the window and the attempts allowed are checked when it starts; the deadline
is read live from the assignment (so closing it early or giving a student
extra time reaches the sittings already running); anything sent after the
deadline (and the short grace) is recorded as a ``late`` event but does not
count; and until the assignment releases its results, the view says only that
the paper was handed in. A student's own mock exam has none of these rules:
its results show when it is handed in.
"""
from __future__ import annotations

from typing import Any, Optional

from core.flows.base import Context, FlowError, Step
from core.school import assignments


class AnswerConflict(FlowError):
    """A save from a page that had not seen the newest saved answer (another tab or window saved since).

    ``conflict`` carries what the page needs to ask the student which to keep: the question, the newer
    answer and its version, and what this page sent.
    """

    def __init__(self, message: str, conflict: dict):
        super().__init__(message)
        self.conflict = conflict


def assignment(ctx: Context, state: dict) -> Optional[dict]:
    aid = state.get("assignment_id")
    return assignments.get_assignment(ctx.store, aid) if aid else None


def check_start(ctx: Context, state: dict) -> None:
    """Refuse a sitting of an assignment outside its window, once the attempts are used, or after deletion."""
    if not state.get("assignment_id"):
        return
    found = assignment(ctx, state)
    if found is None:
        raise FlowError(f"the assignment {state['assignment_id']} no longer exists; choose another from your list")
    problem = assignments.start_problem(ctx.store, found, state["student"], ctx.clock(), state.get("session_id"))
    if problem:
        raise FlowError(problem)


def deadline(ctx: Context, state: dict, started_at: Optional[float], limit_minutes: Optional[float],
             stored: Optional[float]) -> Optional[float]:
    """The sitting's deadline (epoch seconds): for an assignment min(start + limit + extra time, closes_at),
    as the assignment stands now; otherwise the one fixed when the paper was delivered (``stored``)."""
    found = assignment(ctx, state) if started_at is not None else None
    if found is None:
        return stored
    return assignments.epoch(assignments.deadline(found, state["student"], started_at, limit_minutes))


def extra_minutes(ctx: Context, state: dict) -> float:
    found = assignment(ctx, state)
    return assignments.extra_minutes(found, state["student"]) if found else 0.0


def time_up(deadline_at: Optional[float]) -> str:
    if deadline_at is None:
        return "Time is up: your saved answers were marked."
    return f"Time is up: your answers saved by {assignments.clock_time(deadline_at)} were marked."


def late(ctx: Context, deadline_at: Optional[float], action: str, **sent: Any) -> Step:
    """Something sent after time ran out: kept as a ``late`` event (what, when), then refused with the time-up
    sentence. The answers saved by the deadline are what was marked."""
    return Step(refuse=time_up(deadline_at)).add("late", action=action, at=ctx.clock(), deadline=deadline_at, **sent)


def stamp_marking(step: Step, event: str, late_: bool, deadline_at: Optional[float], **extra: Any) -> Step:
    """Add the lateness of the hand-in to the marking event (``late``: time ran out before the student handed in;
    ``deadline``: when it ran out), so the teacher's tools can show it."""
    for type_, payload in step.events:
        if type_ == event:
            target = payload["results"] if "results" in payload else payload
            target.update(late=late_, deadline=deadline_at, **extra)
    return step


def held(ctx: Context, state: dict, submitted_at: Optional[float], late_: bool,
         deadline_at: Optional[float]) -> Optional[dict]:
    """None when the results may be shown; otherwise what the student may see of a handed-in sitting."""
    found = assignment(ctx, state)
    if found is None:
        return None
    now = ctx.clock()
    if assignments.results_released(ctx.store, found, now):
        return None
    policy = found["release_policy"]
    return {"title": found["title"], "submitted_at": submitted_at, "late": late_,
            "time_up": time_up(deadline_at) if late_ else None, "release": policy,
            "releases_at": assignments.epoch(found["closes_at"]) if policy == "on_close" else None,
            "message": assignments.release_note(found, now)}


def save_conflict(number: Any, item_id: str, saved: Any, version: int, sent: Any, base_version: Any) -> None:
    """Refuse a save from a stale page: the server holds a newer answer (a later version) that differs."""
    if base_version is None:
        return   # a caller that does not track versions (the command line, a simulated class): last save wins
    if isinstance(base_version, bool) or not isinstance(base_version, int) or base_version < 0:
        raise FlowError("base_version must be the whole number of saves of this answer the page last saw (0 or more)")
    if version > base_version and saved != sent:
        raise AnswerConflict(
            f"Your answer to question {number} was changed in another tab or window after this page showed it; "
            "choose which answer to keep.",
            {"item_id": item_id, "number": number, "saved_answer": saved, "saved_version": version,
             "your_answer": sent})
