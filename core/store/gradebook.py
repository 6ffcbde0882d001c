"""What a gradebook and the reports of marked papers read: sessions by id and their events in bulk."""
from __future__ import annotations

import json
from typing import Iterable, Optional, Sequence

from core.store.db import Store, dict_rows
from core.store.dialect import dialect_of


def _decoded(rows: list[dict]) -> list[dict]:
    for row in rows:
        if isinstance(row.get("config"), str):
            row["config"] = json.loads(row["config"]) if row["config"] else {}
    return rows


def sessions_by_id(store: Store, session_ids: Sequence[str]) -> list[dict]:
    """Session rows (with their config) for these ids, in no particular order."""
    if not session_ids:
        return []
    holes = ", ".join("?" for _ in session_ids)
    return _decoded(dict_rows(store.cursor().execute(
        f"SELECT id, kind, student, config, status, created_at, updated_at, completed_at FROM sessions "
        f"WHERE id IN ({holes})", list(session_ids))))


def events_for(store: Store, session_ids: Iterable[str], types: Optional[Sequence[str]] = None) -> dict[str, list[dict]]:
    """{session id: its events in order} for many sessions in one query, optionally only events of ``types``."""
    ids = list(dict.fromkeys(session_ids))
    out: dict[str, list[dict]] = {sid: [] for sid in ids}
    if not ids:
        return out
    where = [f"session_id IN ({', '.join('?' for _ in ids)})"]
    params: list = list(ids)
    if types:
        where.append(f"type IN ({', '.join('?' for _ in types)})")
        params += list(types)
    rows = store.cursor().execute(
        f"SELECT session_id, seq, type, payload, created_at FROM events WHERE {' AND '.join(where)} "
        f"ORDER BY session_id, seq", params).fetchall()
    for sid, seq, type_, payload, at in rows:
        out[sid].append({"seq": seq, "type": type_, "payload": json.loads(payload) if payload else {}, "at": at})
    return out


def evaluation_titles(store: Store, session_ids: Sequence[str]) -> dict[str, str]:
    """{session id: the evaluation's title as it was when the sitting started}."""
    if not session_ids:
        return {}
    holes = ", ".join("?" for _ in session_ids)
    rows = store.cursor().execute(
        f"SELECT session_id, {dialect_of(store).json_text('payload', 'title')} FROM events "
        f"WHERE type = 'started' AND session_id IN ({holes})", list(session_ids)).fetchall()
    return {sid: title for sid, title in rows if title}


def finished_sessions(store: Store, kind: str, class_code: Optional[str] = None) -> list[dict]:
    """Sessions of ``kind`` that are no longer in progress, oldest first, of a class's students (or everyone's)."""
    where, params = ["kind = ?", "status <> 'active'"], [kind]
    if class_code is not None:
        where.append("student IN (SELECT student FROM roster WHERE class_code = ?)")
        params.append(class_code)
    return _decoded(dict_rows(store.cursor().execute(
        f"SELECT id, kind, student, config, status, created_at, updated_at, completed_at FROM sessions "
        f"WHERE {' AND '.join(where)} ORDER BY created_at, id", params)))
