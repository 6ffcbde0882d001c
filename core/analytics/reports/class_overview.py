"""The class at a glance: recent activity, abilities, the mastery matrix and the weakest skills."""
from __future__ import annotations

import datetime as dt
from typing import Any, Optional

import pandas as pd

from core.analytics import calibration as cal
from core.analytics.reports.common import Z95, _named, _roster
from core.blueprints.library import Library
from core.school.progress import DEVELOPING
from core.store import Store
from core.store import analytics as data


def class_overview(store: Store, class_code: str, now: Optional[dt.datetime] = None) -> dict[str, Any]:
    """Headline figures, activity per day and one row per student."""
    students = data.student_summary(store, class_code)
    activity = data.activity(store, class_code)
    now = now or dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)   # stored times are UTC
    recent = students["last_active"].notna() & (pd.to_datetime(students["last_active"]) >= now - dt.timedelta(days=7))
    answered = int(students["responses"].sum())
    accuracy = (float((students["accuracy"].fillna(0) * students["responses"]).sum() / answered)
                if answered else None)
    return {"students": int(len(students)), "active_7d": int(recent.sum()), "responses": answered,
            "accuracy": accuracy, "activity": activity, "per_student": students}


def abilities(store: Store, class_code: Optional[str] = None) -> pd.DataFrame:
    """Each student's ability with a 95% interval: student, name, theta, se, low, high, n, source.

    From the newest calibration; a student it leaves out (a calibration of another class, or answers since) is
    estimated now from the declared difficulties, and ``source`` says which is which.
    """
    run = data.latest_calibration(store)
    roster = _roster(store, class_code)
    parts = []
    if run is not None:
        found = roster.merge(data.calibration_abilities(store, run["id"]), on="student", how="inner")
        parts.append(found.assign(source=f"calibration {run['id']} ({run['model']}, {run['created_at']:%d %b %H:%M})"))
    missing = set(roster["student"]) - set(parts[0]["student"] if parts else ())
    if missing:
        frame = data.responses(store, class_code)
        frame = frame[frame["student"].isin(missing)]
        if not frame.empty:
            result = cal.calibrate(frame, "rasch", "family")
            why = "not in the newest calibration" if run is not None else "no calibration yet"
            parts.append(roster.merge(result.abilities, on="student", how="inner").assign(
                source=f"estimated now from declared difficulties ({why})"))
    columns = ["student", "name", "theta", "se", "low", "high", "n", "source"]
    if not parts:
        return pd.DataFrame(columns=columns)
    out = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    out["low"] = out["theta"] - Z95 * out["se"]
    out["high"] = out["theta"] + Z95 * out["se"]
    return out[columns]


def _theta(store: Store, class_code: Optional[str], ability: Optional[pd.Series]) -> pd.Series:
    return ability if ability is not None else abilities(store, class_code).set_index("student")["theta"]


def mastery_matrix(store: Store, library: Library, class_code: str) -> pd.DataFrame:
    """Students (rows, by name) x skills (columns, by name): the stored mastery, NaN where no evidence."""
    frame = data.mastery(store, class_code)
    if frame.empty:
        return pd.DataFrame()
    frame["skill_name"] = _named(library, frame["skill"])
    return frame.pivot_table(index="name", columns="skill_name", values="score", aggfunc="mean").sort_index()


def mastery_answers(store: Store, library: Library, class_code: str) -> pd.DataFrame:
    """Students (rows, by name) x skills (columns, by name): how many practice answers each mastery score rests
    on, laid out like ``mastery_matrix`` (0 where none)."""
    frame = data.responses(store, class_code, columns=["student", "skill", "kind"])
    frame = frame[frame["kind"] == "practice"]
    if frame.empty:
        return pd.DataFrame()
    counts = frame.groupby(["student", "skill"]).size().rename("answers").reset_index()
    counts = counts.merge(_roster(store, class_code), on="student", how="inner")
    counts["skill_name"] = _named(library, counts["skill"])
    return counts.pivot_table(index="name", columns="skill_name", values="answers", aggfunc="sum",
                              fill_value=0).sort_index()


def class_weakest(store: Store, library: Library, class_code: str, n: int = 8) -> pd.DataFrame:
    """The class's weakest skills by their stored mastery: skill, name, n_students, mean_mastery, share_below
    (share of students in the "needs work" band), n_responses."""
    weak = data.skill_mastery_summary(store, class_code, DEVELOPING).head(n)
    weak.insert(1, "name", _named(library, weak["skill"]))
    return weak
