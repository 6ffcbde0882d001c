"""Sessions, their append-only event log, and responses (the only SQL for them).

A flow's state is the fold of its events. Appending checks the sequence
number the caller last saw, so two tabs (or two processes taking turns on the
file) cannot both append event N: the loser reloads and sees what happened.
"""
from __future__ import annotations

import datetime as dt
import json
import uuid
from typing import Any, Iterable, Optional

import duckdb

from core.store.db import CONSTRAINT_ERRORS, Store


class SequenceConflict(RuntimeError):
    """Someone appended to the session since the caller loaded it."""


def _now(at: Optional[float] = None) -> dt.datetime:
    """UTC without a zone, as stored; ``at`` (epoch seconds, a flow's clock) instead of the wall clock when given."""
    when = dt.datetime.now(dt.timezone.utc) if at is None else dt.datetime.fromtimestamp(at, dt.timezone.utc)
    return when.replace(tzinfo=None)


def new_session_id(kind: str) -> str:
    return f"{kind[:4]}_{uuid.uuid4().hex[:16]}"


def create_session(store: Store, kind: str, student: Optional[str], config: dict,
                   session_id: Optional[str] = None, status: str = "active", at: Optional[float] = None) -> str:
    sid = session_id or new_session_id(kind)
    now = _now(at)
    store.write(lambda cur: cur.execute(
        "INSERT INTO sessions (id, kind, student, config, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [sid, kind, student, json.dumps(config), status, now, now]))
    return sid


def delete_empty_session(store: Store, session_id: str) -> None:
    """Remove a session that never recorded an event (its start failed)."""
    def run(cur: duckdb.DuckDBPyConnection) -> None:
        if not cur.execute("SELECT 1 FROM events WHERE session_id = ? LIMIT 1", [session_id]).fetchall():
            cur.execute("DELETE FROM sessions WHERE id = ?", [session_id])
    store.write(run)


def get_session(store: Store, session_id: str) -> Optional[dict]:
    cur = store.cursor().execute(
        "SELECT id, kind, student, config, status, created_at, updated_at, completed_at FROM sessions WHERE id = ?",
        [session_id])
    rows = cur.fetchall()
    if not rows:
        return None
    row = dict(zip([d[0] for d in cur.description], rows[0]))
    row["config"] = json.loads(row["config"]) if row["config"] else {}
    return row


def list_sessions(store: Store, student: Optional[str] = None, kind: Optional[str] = None,
                  status: Optional[str] = None, limit: int = 100) -> list[dict]:
    where, params = [], []
    for col, value in (("student", student), ("kind", kind), ("status", status)):
        if value is not None:
            where.append(f"{col} = ?")
            params.append(value)
    sql = "SELECT id, kind, student, status, created_at, updated_at, completed_at FROM sessions"
    sql += (" WHERE " + " AND ".join(where) if where else "") + " ORDER BY created_at DESC LIMIT ?"
    cur = store.cursor().execute(sql, params + [limit])
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def sessions_by_activity(store: Store, student: str, kind: str, event_type: str, limit: int = 50) -> list[dict]:
    """A student's sessions of one kind, the most recently active first, each with its config, its last event's
    time (``last_at``), the payload of its first event of ``event_type`` (``first``, None when there is none)
    and how many such events it has (``count``): a list of conversations, titled by their first message."""
    cur = store.cursor().execute("""
        SELECT s.id, s.status, s.config, s.created_at,
               (SELECT max(e.created_at) FROM events e WHERE e.session_id = s.id) AS last_at,
               (SELECT e.payload FROM events e WHERE e.session_id = s.id AND e.type = ?
                ORDER BY e.seq LIMIT 1) AS first_payload,
               (SELECT count(*) FROM events e WHERE e.session_id = s.id AND e.type = ?) AS n_events
        FROM sessions s WHERE s.student = ? AND s.kind = ?
        ORDER BY coalesce((SELECT max(e.created_at) FROM events e WHERE e.session_id = s.id), s.created_at) DESC,
                 s.id DESC
        LIMIT ?""", [event_type, event_type, student, kind, limit])
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, r)) for r in cur.fetchall()]
    for row in rows:
        row["config"] = json.loads(row["config"]) if row["config"] else {}
        first = row.pop("first_payload")
        row["first"] = json.loads(first) if first else None
        row["count"] = int(row.pop("n_events"))
    return rows


def load_events(store: Store, session_id: str, after_seq: int = 0) -> list[dict]:
    rows = store.cursor().execute(
        "SELECT seq, type, payload, created_at FROM events WHERE session_id = ? AND seq > ? ORDER BY seq",
        [session_id, after_seq]).fetchall()
    return [{"seq": r[0], "type": r[1], "payload": json.loads(r[2]) if r[2] else {}, "at": r[3]} for r in rows]


def append_events(store: Store, session_id: str, expected_seq: int, events: Iterable[tuple[str, dict]],
                  responses: Iterable[dict] = (), status: Optional[str] = None,
                  extra: Optional[Any] = None, at: Optional[float] = None) -> int:
    """Append events after ``expected_seq`` in one transaction; return the new last seq.

    ``responses`` rows are written in the same transaction (a response already
    recorded for the same session, item and attempt is kept, not duplicated),
    and so is the session's new ``status``. ``extra(cur)`` may add writes that
    must commit with the events (items drawn for the session, mastery).
    Events, responses and the session's times are stamped ``at`` (the flow's
    clock, so a simulated class spreads over its days) or now.
    """
    events = list(events)
    responses = list(responses)

    def run(cur: duckdb.DuckDBPyConnection) -> int:
        # No read of the last seq: the (session_id, seq) key refuses event expected_seq + 1
        # if anyone appended it first, which is the check, one statement cheaper.
        last = expected_seq
        now = _now(at)
        if events:
            # One statement per table: DuckDB's per-statement cost dominates a practice step.
            values: list[Any] = []
            for offset, (type_, payload) in enumerate(events, 1):
                values += [session_id, last + offset, type_, json.dumps(payload, default=str), now]
            cur.execute("INSERT INTO events (session_id, seq, type, payload, created_at) VALUES "
                        + ", ".join("(?, ?, ?, ?, ?)" for _ in events), values)
        seq = last + len(events)
        if responses:
            values = []
            for r in responses:
                steps = r.get("step_answers")   # {step: text} for an answer given step by step, else None
                values += [session_id, r["item_id"], r["student"], r.get("answer"), r.get("correct"), r.get("score"),
                           r.get("max_score"), r.get("time_taken_ms"), r.get("attempt", 1), now,
                           None if steps is None else json.dumps(steps)]
            cur.execute(
                "INSERT INTO responses (session_id, item_id, student, answer, correct, score, max_score, time_taken_ms, "
                "attempt, created_at, step_answers) VALUES "
                + ", ".join("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)" for _ in responses)
                + " ON CONFLICT DO NOTHING", values)
        if status is not None:
            # The session row changes only with its status; last activity is the newest event.
            done = now if status in ("completed", "expired", "abandoned") else None
            cur.execute("UPDATE sessions SET status = ?, updated_at = ?, completed_at = coalesce(?, completed_at) WHERE id = ?",
                        [status, now, done, session_id])
        if extra is not None:
            extra(cur)
        return seq

    try:
        return store.write(run)
    except CONSTRAINT_ERRORS:
        # Another writer inserted the same event number between our check and insert.
        raise SequenceConflict(f"session {session_id} moved on while saving") from None


def session_responses(store: Store, session_id: str) -> list[dict]:
    """A session's responses in order; ``step_answers`` is {step: text} for an answer given step by step, else None."""
    cur = store.cursor().execute(
        "SELECT item_id, student, answer, correct, score, max_score, time_taken_ms, attempt, created_at, step_answers "
        "FROM responses WHERE session_id = ? ORDER BY created_at, attempt, item_id", [session_id])
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, r)) for r in cur.fetchall()]
    for row in rows:
        row["step_answers"] = json.loads(row["step_answers"]) if row["step_answers"] else None
    return rows


# --------------------------------------------------------------------------
# What each student has seen (novelty across all their sessions)


def record_seen(cur: duckdb.DuckDBPyConnection, student: str, rows: list[tuple[str, str, str, Optional[str]]],
                session_id: Optional[str]) -> None:
    """Note items as seen: rows of (item_id, content_key, stem_key, outcome_id), in one statement."""
    if not rows:
        return
    now = _now()
    unique = list({r[1]: r for r in rows}.values())
    values: list[Any] = []
    for item_id, content_key, stem_key, outcome_id in unique:
        values += [student, content_key, stem_key, item_id, session_id, outcome_id, now]
    cur.execute("INSERT INTO seen (student, content_key, stem_key, item_id, session_id, outcome_id, created_at) VALUES "
                + ", ".join("(?, ?, ?, ?, ?, ?, ?)" for _ in unique) + " ON CONFLICT DO NOTHING", values)


def seen_keys(store: Store, student: str) -> tuple[set[str], set[str]]:
    """Content keys and normalised-stem keys of everything the student has been shown."""
    rows = store.cursor().execute("SELECT content_key, stem_key FROM seen WHERE student = ?", [student]).fetchall()
    return {r[0] for r in rows}, {r[1] for r in rows}


def recent_outcomes(store: Store, student: str, limit: int = 10) -> list[str]:
    rows = store.cursor().execute(
        "SELECT outcome_id FROM seen WHERE student = ? AND outcome_id IS NOT NULL ORDER BY created_at DESC LIMIT ?",
        [student, limit]).fetchall()
    return [r[0] for r in rows]


def outcome_counts(store: Store, student: str) -> dict[str, int]:
    rows = store.cursor().execute(
        "SELECT outcome_id, count(*) FROM seen WHERE student = ? AND outcome_id IS NOT NULL GROUP BY outcome_id",
        [student]).fetchall()
    return {r[0]: int(r[1]) for r in rows}


def get_mastery(store: Store, student: str) -> dict[str, float]:
    rows = store.cursor().execute("SELECT skill, score FROM mastery WHERE student = ?", [student]).fetchall()
    return {r[0]: float(r[1]) for r in rows}


def set_mastery(cur: duckdb.DuckDBPyConnection, student: str, skill: str, score: float) -> None:
    cur.execute("INSERT INTO mastery (student, skill, score, updated_at) VALUES (?, ?, ?, ?) "
                "ON CONFLICT (student, skill) DO UPDATE SET score = excluded.score, updated_at = excluded.updated_at",
                [student, skill, score, _now()])


def class_activity(store: Store, code: str) -> dict:
    """A class's roster size, its students' sessions by kind, and when their first and last activity was."""
    cur = store.cursor()
    students = cur.execute("SELECT count(*) FROM roster WHERE class_code = ?", [code]).fetchall()[0][0]
    joined = "FROM sessions s JOIN roster r ON r.student = s.student WHERE r.class_code = ?"
    kinds = cur.execute(f"SELECT s.kind, count(*) {joined} GROUP BY s.kind ORDER BY s.kind", [code]).fetchall()
    first, last = cur.execute(
        f"SELECT min(s.created_at), max(coalesce(s.completed_at, s.updated_at)) {joined}", [code]).fetchall()[0]
    return {"students": int(students), "sessions": {kind: int(n) for kind, n in kinds},
            "first_activity": first, "last_activity": last}
