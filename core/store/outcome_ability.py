"""Each student's ability per course outcome (the only SQL for it).

One row per student and outcome: the ability estimate ``theta`` (logits; 0 is
a student who gets a question of average declared difficulty right half the
time) with its standard error ``se``, how many answers it rests on and how many
of them were right, and when it last moved. The flows compute the estimate
(``core.school.progress.ability_update``); the runner writes it in the same
transaction as the answer that moved it.
"""
from __future__ import annotations

import datetime as dt
from typing import Any, Optional

from core.store.db import Store


def _row(theta: Any, se: Any, n: Any, correct: Any, updated_at: Any) -> dict:
    return {"theta": float(theta), "se": float(se), "n": int(n or 0), "correct": int(correct or 0),
            "updated_at": updated_at}


def get_abilities(store: Store, student: str) -> dict[str, dict]:
    """outcome id -> {theta, se, n, correct, updated_at} for every outcome the student has an estimate on."""
    rows = store.cursor().execute(
        "SELECT outcome_id, theta, se, n_answers, n_correct, updated_at FROM outcome_ability WHERE student = ?",
        [student]).fetchall()
    return {r[0]: _row(*r[1:]) for r in rows}


def get_ability(store: Store, student: str, outcome_id: str) -> Optional[dict]:
    """The student's estimate on one outcome, or None before their first answer on it."""
    rows = store.cursor().execute(
        "SELECT theta, se, n_answers, n_correct, updated_at FROM outcome_ability WHERE student = ? AND outcome_id = ?",
        [student, outcome_id]).fetchall()
    return _row(*rows[0]) if rows else None


def set_ability(cur: Any, student: str, outcome_id: str, ability: dict, at: Optional[dt.datetime] = None) -> None:
    """Store an estimate (``theta``, ``se``, ``n``, ``correct``) within the caller's transaction."""
    now = at or dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
    cur.execute(
        "INSERT INTO outcome_ability (student, outcome_id, theta, se, n_answers, n_correct, updated_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (student, outcome_id) DO UPDATE SET theta = excluded.theta, "
        "se = excluded.se, n_answers = excluded.n_answers, n_correct = excluded.n_correct, "
        "updated_at = excluded.updated_at",
        [student, outcome_id, float(ability["theta"]), float(ability["se"]), int(ability.get("n", 0)),
         int(ability.get("correct", 0)), now])


def class_abilities(store: Store, class_code: str) -> list[dict]:
    """Every estimate of a class's students: student, name, outcome_id, theta, se, n, correct, updated_at."""
    cur = store.cursor().execute(
        "SELECT a.student, ro.display_name, a.outcome_id, a.theta, a.se, a.n_answers, a.n_correct, a.updated_at "
        "FROM outcome_ability a JOIN roster ro ON ro.student = a.student AND ro.class_code = ? "
        "ORDER BY ro.display_name, a.outcome_id", [class_code])
    return [{"student": r[0], "name": r[1], "outcome_id": r[2], **_row(*r[3:])} for r in cur.fetchall()]
