"""What the Analytics and progress pages show, computed from the store (the pages only draw it).

Every function takes the store (and the library, for skill names) and
returns DataFrames and plain values. Abilities come from the newest
calibration when one covers the student; until then, from an EAP on the fly
over the class's responses with the items at their declared difficulty.
"""
from __future__ import annotations

import datetime as dt
import io
import json
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd

from core.analytics import calibration as cal
from core.analytics import item_stats, mastery
from core.blueprints.library import Library
from core.school.progress import DEVELOPING, band, recent_sessions, skill_names
from core.store import Store, school
from core.store import analytics as data

Z95 = 1.96
Progress = Optional[Callable[[float, str], None]]


def _named(library: Library, skills: pd.Series) -> list[str]:
    """Readable names for a column of skill ids."""
    return skill_names(library, list(skills))


def _roster(store: Store, class_code: Optional[str]) -> pd.DataFrame:
    """student, name: a class's roster, or everyone who answered anything."""
    if class_code is None:
        return data.student_summary(store)[["student", "name"]]
    return pd.DataFrame([{"student": r["student"], "name": r["display_name"]} for r in school.roster(store, class_code)],
                        columns=["student", "name"])


def _theta(store: Store, class_code: Optional[str], ability: Optional[pd.Series]) -> pd.Series:
    return ability if ability is not None else abilities(store, class_code).set_index("student")["theta"]


def downloads(frame: pd.DataFrame) -> dict[str, bytes]:
    """A table as CSV and Parquet bytes, for the download buttons under every table."""
    flat = frame.copy()
    for col in flat.columns:   # lists and dicts (JSON columns) go out as JSON text
        if flat[col].dtype == object and flat[col].map(lambda v: isinstance(v, (list, dict))).any():
            flat[col] = flat[col].map(lambda v: None if v is None else json.dumps(v, default=str))
    buffer = io.BytesIO()
    flat.to_parquet(buffer, index=False)
    return {"csv": flat.to_csv(index=False).encode("utf-8"), "parquet": buffer.getvalue()}


# --------------------------------------------------------------------------
# Class overview


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
    """Each student's ability with a 95% interval: student, name, theta, se, low, high, n, source."""
    run = data.latest_calibration(store)
    roster = _roster(store, class_code)
    if run is not None:
        found = data.calibration_abilities(store, run["id"])
        out = roster.merge(found, on="student", how="inner")
        source = f"calibration {run['id']} ({run['model']}, {run['created_at']:%d %b %H:%M})"
    else:
        frame = data.responses(store, class_code)
        if frame.empty:
            return pd.DataFrame(columns=["student", "name", "theta", "se", "low", "high", "n", "source"])
        result = cal.calibrate(frame, "rasch", "family")
        out = roster.merge(result.abilities, on="student", how="inner")
        source = "estimated now from declared difficulties (no calibration yet)"
    out["low"] = out["theta"] - Z95 * out["se"]
    out["high"] = out["theta"] + Z95 * out["se"]
    out["source"] = source
    return out[["student", "name", "theta", "se", "low", "high", "n", "source"]]


def mastery_matrix(store: Store, library: Library, class_code: str) -> pd.DataFrame:
    """Students (rows, by name) x skills (columns, by name): the stored mastery, NaN where no evidence."""
    frame = data.mastery(store, class_code)
    if frame.empty:
        return pd.DataFrame()
    frame["skill_name"] = _named(library, frame["skill"])
    return frame.pivot_table(index="name", columns="skill_name", values="score", aggfunc="mean").sort_index()


def class_weakest(store: Store, library: Library, class_code: str, n: int = 8) -> pd.DataFrame:
    """The class's weakest skills by their stored mastery: skill, name, n_students, mean_mastery, share_below
    (share of students in the "needs work" band), n_responses."""
    weak = data.skill_mastery_summary(store, class_code, DEVELOPING).head(n)
    weak.insert(1, "name", _named(library, weak["skill"]))
    return weak


# --------------------------------------------------------------------------
# One student


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
    practised = frame[frame["kind"] == "practice"]     # the answers the stored mastery scores come from
    history = mastery.mastery_history(practised)
    current = mastery.current_mastery(practised)
    current["name"] = _named(library, current["skill"])
    current["band"] = current["mastery"].map(band)
    out.update(history=frame, mastery_history=history, current=current,
               weakest=mastery.weakest_skills(current, n=3).assign(name=lambda d: _named(library, d["skill"])),
               recommendations=mastery.recommendations(current, student).assign(
                   name=lambda d: _named(library, d["skill"])))
    return out


# --------------------------------------------------------------------------
# Items and blueprints


def run_calibration(store: Store, model: str = "rasch", unit_level: str = "auto", class_code: Optional[str] = None,
                    progress: Progress = None) -> tuple[cal.Calibration, str]:
    """Calibrate the responses (of a class, or all) and store the result; the run and its id."""
    say = progress or (lambda _f, _t: None)
    say(0.1, "Loading responses…")
    frame = data.responses(store, class_code)
    say(0.3, f"Calibrating {len(frame):,} responses…")
    result = cal.calibrate(frame, model, unit_level)
    say(0.8, "Storing the parameters…")
    run_id = data.save_calibration(store, result.run_record(), result.parameters, result.abilities)
    say(1.0, "Done")
    return result, run_id


def latest_parameters(store: Store) -> tuple[Optional[dict], pd.DataFrame]:
    run = data.latest_calibration(store)
    if run is None:
        return None, pd.DataFrame()
    return run, data.calibration_parameters(store, run["id"])


def item_table(store: Store, class_code: Optional[str] = None, by: str = "family") -> pd.DataFrame:
    """Facility and discrimination per unit (``by`` item, family or skill), with the measured difficulty
    of the newest calibration when it has that unit."""
    table = data.unit_statistics(store, class_code, by)
    run, params = latest_parameters(store)
    if not params.empty:
        table = table.merge(params[["unit", "difficulty", "se_difficulty", "infit", "outfit"]]
                            .rename(columns={"se_difficulty": "se"}), on="unit", how="left")
    return table.rename(columns={"unit": by})


def wright_map(store: Store) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Abilities and unit difficulties of the newest calibration, on one scale: (abilities, units)."""
    run, params = latest_parameters(store)
    if run is None:
        return pd.DataFrame(columns=["theta"]), pd.DataFrame(columns=["unit", "difficulty"])
    return data.calibration_abilities(store, run["id"]), params[["unit", "kind", "difficulty"]]


def distractor_report(store: Store, class_code: Optional[str], blueprint_id: str,
                      ability: Optional[pd.Series] = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Which option (hence which misconception) drew whom on a blueprint's multiple-choice items.

    ``ability`` (theta by student) when the caller has it already; else from ``abilities``.
    """
    frame = data.responses(store, class_code, blueprint_id=blueprint_id)
    meta = data.items(store, list(frame["item_id"].unique()))
    if frame.empty or meta.empty:
        return pd.DataFrame(), pd.DataFrame()
    table = item_stats.distractors(frame, meta, ability=_theta(store, class_code, ability), min_count=1)
    return table, item_stats.strategy_summary(table)


def parameter_report(store: Store, class_code: Optional[str], blueprint_id: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Which parameter values make a blueprint's items harder: (effects, facility by value)."""
    frame = data.responses(store, class_code, blueprint_id=blueprint_id)
    meta = data.items(store, list(frame["item_id"].unique()))
    if frame.empty:
        return pd.DataFrame(), pd.DataFrame()
    return item_stats.parameter_effects(frame, meta), item_stats.parameter_facility(frame, meta)


# --------------------------------------------------------------------------
# Exams


def exam_report(store: Store, class_code: Optional[str] = None) -> dict[str, Any]:
    """Results, grade distribution, section means and reliability of the class's marked mock exams.

    Students sit different items (every paper is drawn fresh for novelty), so
    reliability is computed over question positions of one course's paper
    (question 1 to n, the same outcome and marks for everyone), which is what
    the paper as a test form is; positions not every paper reached (papers
    differ by a question or two) are left out and counted.
    """
    results = data.exam_results(store, class_code)
    if results.empty:
        return {"results": results, "grades": pd.DataFrame(), "sections": pd.DataFrame(), "reliability": pd.DataFrame()}
    results = results.merge(_roster(store, class_code), on="student", how="left")
    grades = results.groupby("grade").size().rename("students").reset_index()
    sections = pd.DataFrame([{"course": f"{r.subject} {r.level}", "section": s["section"], "percent": s["percent"]}
                             for r in results.itertuples() for s in (r.sections or [])])
    sections = sections.groupby(["course", "section"], sort=False)["percent"].agg(["mean", "count"]).reset_index()
    rows = []
    for r in results.itertuples():
        for q in (r.questions or {}).values():
            rows.append({"student": r.student, "form": f"{r.subject} {r.level}", "item_id": f"Q{q['number']:02d}",
                         "correct": bool(q["correct"]), "score": q["marks_awarded"], "max_score": q["marks"],
                         "created_at": r.submitted_at})
    per_question = pd.DataFrame(rows)
    forms = []
    for form, answers in (per_question.groupby("form", sort=True) if len(per_question) else []):
        matrix = answers.pivot_table(index="student", columns="item_id", values="score", aggfunc="first")
        common = matrix.columns[matrix.notna().all()]   # papers differ in length: the positions everyone had
        forms.append({"form": form, **item_stats.reliability(matrix[common]),
                      "positions_left_out": int(len(matrix.columns) - len(common))})
    reliability = pd.DataFrame(forms)
    table = results[["name", "subject", "level", "submitted_at", "marks_awarded", "total_marks", "percent", "grade"]]
    return {"results": table, "grades": grades, "sections": sections, "reliability": reliability}


# --------------------------------------------------------------------------
# What to fix

NOISY_OUTFIT = 1.3
RARE_SHARE = 0.02


def _unit_parts(unit: str) -> tuple[str, Optional[str]]:
    """(blueprint id, level) of a family unit "blueprint|level"; (unit, None) for an item or skill."""
    blueprint, _, level = unit.partition("|")
    return blueprint, level or None


def blueprint_fixes(store: Store, class_code: Optional[str] = None, min_n: int = 20,
                    ability: Optional[pd.Series] = None) -> pd.DataFrame:
    """Blueprint changes the evidence suggests: blueprint_id, level, issue, evidence, suggestion.

    From the newest calibration: levels out of order or with no real
    difference, noisy units (outfit above 1.3) and low discrimination; from
    the answers: distractor strategies almost nobody chooses, and ones that
    draw the stronger students (a sign the option may be defensible).
    """
    rows: list[dict] = []
    run, params = latest_parameters(store)
    if not params.empty:
        for r in cal.level_order(params).itertuples():
            if r.flag:
                rows.append({"blueprint_id": r.blueprint_id, "level": r.level, "issue": "difficulty levels",
                             "evidence": r.flag,
                             "suggestion": "make the harder level harder (wider ranges, more steps, constraints) "
                                           "or relabel the levels so their order matches the data"})
        solid = params[params["n"] >= min_n]
        for r in solid[solid["outfit"] > NOISY_OUTFIT].itertuples():
            blueprint, level = _unit_parts(r.unit)
            rows.append({"blueprint_id": blueprint, "level": level, "issue": "noisy", "evidence": f"outfit {r.outfit:.2f} over {int(r.n)} answers",
                         "suggestion": "look for stems that can be read two ways or keys that mark right answers "
                                       "wrong (tolerance, units, forms)"})
        for r in solid[solid["flags"].fillna("").str.contains("low discrimination")].itertuples():
            blueprint, level = _unit_parts(r.unit)
            rows.append({"blueprint_id": blueprint, "level": level, "issue": "low discrimination",
                         "evidence": f"discrimination {r.discrimination:.2f} over {int(r.n)} answers",
                         "suggestion": "stronger and weaker students do about equally well: check for guessable "
                                       "options or a shortcut that skips the skill"})
    frame = data.responses(store, class_code, item_type="multiple_choice")
    mcq = frame[frame["blueprint_id"].notna()]
    if not mcq.empty:
        meta = data.items(store, list(mcq["item_id"].unique()))
        summary = item_stats.strategy_summary(
            item_stats.distractors(mcq, meta, ability=_theta(store, class_code, ability), min_count=1))
        summary = summary[summary["strategy"].notna()]
        for r in summary[(summary["offered"] >= min_n) & (summary["share"] < RARE_SHARE)].itertuples():
            rows.append({"blueprint_id": r.blueprint_id, "level": None, "issue": "distractor never chosen",
                         "evidence": f"{r.strategy}: chosen {int(r.chosen)} times in {int(r.offered)} answers",
                         "suggestion": f"rework or replace the '{r.strategy}' distractor: no one makes that mistake"})
        for r in summary[summary["suspect_items"] > 0].itertuples():
            rows.append({"blueprint_id": r.blueprint_id, "level": None, "issue": "distractor draws strong students",
                         "evidence": f"{r.strategy}: {int(r.suspect_items)} item(s) where those choosing it "
                                     f"outscore those choosing the key",
                         "suggestion": f"check that the '{r.strategy}' option is not also defensible, "
                                       f"and that the stem says what is wanted"})
    return pd.DataFrame(rows, columns=["blueprint_id", "level", "issue", "evidence", "suggestion"])
