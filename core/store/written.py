"""Written answers in practice and lessons (the SQL for them): a class's recent ones, a teacher's marks on them.

A written answer is an ``answered`` (practice) or ``attempted`` (lesson) event
whose item is marked by key points (``short_text``); a teacher's mark on one is
a ``teacher_marked`` event of the same session naming the answer's event
(``answer_seq``). Everything stays in the events and the responses table.
"""
from __future__ import annotations

import json
from typing import Any, Optional

from core.store.db import Store
from core.store.dialect import dialect_of

ANSWER_EVENTS = ("answered", "attempted")
TEACHER_MARKED = "teacher_marked"
KINDS = ("practice", "lesson")


def _written(item: str, d: Any) -> str:
    return f"({item}.item_type = 'short_text' OR {d.json_text(f'{item}.evaluation', 'method')} = 'short_text')"


def _decoded(rows: list[dict]) -> list[dict]:
    for row in rows:
        raw = row.get("payload")
        row["payload"] = json.loads(raw) if isinstance(raw, str) and raw else (raw or {})
    return rows


def _dicts(cur: Any) -> list[dict]:
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def class_answers(store: Store, class_code: str, limit: int = 50, student: Optional[str] = None) -> list[dict]:
    """The class's most recent written answers in practice and lessons, newest first: session_id, seq, type,
    payload, created_at, kind, student, name (as on the class list), stem and the key (answer_key)."""
    d = dialect_of(store)
    where = ["s.kind IN (?, ?)", "e.type IN (?, ?)", _written("i", d)]
    params: list[Any] = [class_code, *KINDS, *ANSWER_EVENTS]
    if student is not None:
        where.append("s.student = ?")
        params.append(student)
    cur = store.cursor().execute(
        "SELECT e.session_id, e.seq, e.type, e.payload, e.created_at, s.kind, s.student, r.display_name AS name, "
        "i.stem, i.answer_key "
        "FROM events e JOIN sessions s ON s.id = e.session_id "
        "JOIN roster r ON r.student = s.student AND r.class_code = ? "
        f"JOIN items i ON i.id = {d.json_text('e.payload', 'item_id')} "
        f"WHERE {' AND '.join(where)} ORDER BY e.created_at DESC, e.session_id, e.seq DESC LIMIT ?",
        params + [int(limit)])
    return _decoded(_dicts(cur))


def teacher_marks(store: Store, session_ids: list[str]) -> dict[tuple[str, int], list[dict]]:
    """The teacher's marks on written answers of these sessions: (session_id, answer_seq) -> their payloads,
    oldest first (each with its event's seq and created_at)."""
    if not session_ids:
        return {}
    ids = sorted(set(session_ids))
    cur = store.cursor().execute(
        f"SELECT session_id, seq, payload, created_at FROM events WHERE type = ? AND session_id IN "
        f"({', '.join('?' for _ in ids)}) ORDER BY session_id, seq", [TEACHER_MARKED, *ids])
    found: dict[tuple[str, int], list[dict]] = {}
    for row in _decoded(_dicts(cur)):
        p = row["payload"]
        found.setdefault((row["session_id"], int(p["answer_seq"])), []).append(
            {**p, "seq": row["seq"], "created_at": row["created_at"]})
    return found


def student_marked(store: Store, student: str, limit: int = 20) -> list[dict]:
    """A student's written answers in practice and lessons that a teacher has marked, newest mark first:
    the mark's payload and time, and the answer's event (``answer``: its payload) with the question's stem."""
    d = dialect_of(store)
    cur = store.cursor().execute(
        "SELECT m.session_id, m.seq, m.payload, m.created_at, s.kind, a.payload AS answer_payload, i.stem "
        "FROM events m JOIN sessions s ON s.id = m.session_id "
        f"JOIN events a ON a.session_id = m.session_id AND a.seq = CAST({d.json_text('m.payload', 'answer_seq')} "
        "AS INTEGER) "
        f"LEFT JOIN items i ON i.id = {d.json_text('m.payload', 'item_id')} "
        "WHERE m.type = ? AND s.student = ? AND s.kind IN (?, ?) ORDER BY m.created_at DESC, m.seq DESC LIMIT ?",
        [TEACHER_MARKED, student, *KINDS, int(limit)])
    rows = _decoded(_dicts(cur))
    for row in rows:
        raw = row.pop("answer_payload")
        row["answer"] = json.loads(raw) if isinstance(raw, str) and raw else (raw or {})
    return rows


def answer_event(store: Store, session_id: str, seq: int) -> Optional[dict]:
    """One event of a session (its type, payload, created_at), with the session's kind and student."""
    cur = store.cursor().execute(
        "SELECT e.session_id, e.seq, e.type, e.payload, e.created_at, s.kind, s.student FROM events e "
        "JOIN sessions s ON s.id = e.session_id WHERE e.session_id = ? AND e.seq = ?", [session_id, int(seq)])
    rows = _decoded(_dicts(cur))
    return rows[0] if rows else None
