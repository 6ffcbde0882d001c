"""One student's report: answers with running accuracy, mastery over time, weakest skills and sittings."""
from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from core.analytics import mastery
from core.analytics.reports.common import _named
from core.blueprints.library import Library
from core.school.progress import band
from core.school.sittings import recent_sessions
from core.store import Store
from core.store import analytics as data


def mastery_over_time(store: Store, library: Library, student: str) -> pd.DataFrame:
    """The report's ``mastery_history`` alone (created_at, mastery, skill_name, ...): what a student's own
    progress page charts, without the rest of the report."""
    frame = data.responses(store, student=student)
    if not frame.empty:
        frame = _practised(frame, library)
    if frame.empty:
        return pd.DataFrame(columns=["created_at", "mastery", "skill_name"])
    return mastery.mastery_history(frame)


def _practised(frame: pd.DataFrame, library: Library) -> pd.DataFrame:
    """The practice answers (what the stored mastery scores come from), in the order they were given."""
    frame = frame.sort_values(["created_at", "session_id", "item_id"], kind="stable").reset_index(drop=True)
    practised = frame[frame["kind"] == "practice"].copy()
    practised["skill_name"] = _named(library, practised["skill"])
    return practised


def student_report(store: Store, library: Library, student: str) -> dict[str, Any]:
    """History (answers with running accuracy), mastery over time per skill, weak skills, sessions.

    Mastery replays the app's rule over the student's practice answers, so it
    ends where the stored scores are; the history counts every answer.
    """
    frame = data.responses(store, student=student)
    out: dict[str, Any] = {"responses": len(frame), "sessions": pd.DataFrame(recent_sessions(store, student, 50))}
    if frame.empty:
        out.update(history=frame, mastery_history=frame, weakest=pd.DataFrame(), current=pd.DataFrame(),
                   recommendations=pd.DataFrame())
        return out
    frame = frame.sort_values(["created_at", "session_id", "item_id"], kind="stable").reset_index(drop=True)
    frame["answer_number"] = np.arange(1, len(frame) + 1)
    frame["running_accuracy"] = frame["correct"].expanding().mean()
    frame["skill_name"] = _named(library, frame["skill"])
    practised = _practised(frame, library)
    if practised.empty:   # only exams and evaluations so far: no practice, so no mastery to replay
        out.update(history=frame, mastery_history=pd.DataFrame(columns=["created_at", "mastery", "skill_name"]),
                   weakest=pd.DataFrame(), current=pd.DataFrame(), recommendations=pd.DataFrame())
        return out
    history = mastery.mastery_history(practised)
    current = mastery.current_mastery(practised)
    current["name"] = _named(library, current["skill"])
    current["band"] = current["mastery"].map(band)
    out.update(history=frame, mastery_history=history, current=current,
               weakest=mastery.weakest_skills(current, n=3).assign(name=lambda d: _named(library, d["skill"])),
               recommendations=mastery.recommendations(current, student).assign(
                   name=lambda d: _named(library, d["skill"])))
    return out
