"""A student's mastery: the rule that moves it after each answer, its bands, strongest and
weakest skills, and what to practise next.

Pure Python over the library and the store's query functions; the pages only
render what these return.
"""
from __future__ import annotations

from typing import Optional, Sequence

from core.blueprints.library import Library
from core.store import Store, sessions

SECURE, DEVELOPING = 0.8, 0.5     # mastery bands shown to the student
INITIAL_MASTERY = 0.5


def mastery_update(score: float, correct: bool) -> float:
    """Seed 001's rule: up 10% of the way to 1 when right, down 20% of the way to 0 when wrong."""
    if correct:
        return round(score + 0.1 * (1.0 - score), 6)
    return round(score - 0.2 * score, 6)


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


def skill_names(library: Library, skill_ids: Sequence[str]) -> list[str]:
    """Readable names for skill ids (a blueprint's topic, an outcome's label, else the id)."""
    info = _skill_info(library)
    return [info.get(s, {}).get("name") or s for s in skill_ids]
