"""The review queue and each item's review history (the SQL for them)."""
from __future__ import annotations

import json
from typing import Any, Optional

import duckdb

from core.store.db import Store, dict_rows as _rows
from core.store.dialect import dialect_of
from core.store.repo import _decode


def record_item_action(cur: duckdb.DuckDBPyConnection, item_id: str, action: str, actor: Optional[str],
                       note: Optional[str], changes: Optional[dict]) -> None:
    seq = cur.execute("SELECT coalesce(max(seq), 0) + 1 FROM item_history WHERE item_id = ?", [item_id]).fetchall()[0][0]
    cur.execute("INSERT INTO item_history (item_id, seq, action, actor, note, changes) VALUES (?, ?, ?, ?, ?, ?)",
                [item_id, seq, action, actor, note, json.dumps(changes) if changes else None])


def item_history(store: Store, item_id: str) -> list[dict]:
    rows = _rows(store.cursor().execute(
        "SELECT seq, action, actor, note, changes, created_at FROM item_history WHERE item_id = ? ORDER BY seq", [item_id]))
    for row in rows:
        row["changes"] = json.loads(row["changes"]) if row["changes"] else None
    return rows


def item_exists(cur: duckdb.DuckDBPyConnection, item_id: str) -> bool:
    return bool(cur.execute("SELECT 1 FROM items WHERE id = ?", [item_id]).fetchall())


def item_status(cur: duckdb.DuckDBPyConnection, item_id: str) -> Optional[str]:
    """The item's status, or None when there is no such item."""
    rows = cur.execute("SELECT status FROM items WHERE id = ?", [item_id]).fetchall()
    return rows[0][0] if rows else None


def approved_rows(store: Store) -> list[dict]:
    """Every approved item, as rows (JSON columns decoded)."""
    return [_decode(r) for r in _rows(store.cursor().execute("SELECT * FROM items WHERE status = 'approved' ORDER BY id"))]


def set_item_status(cur: duckdb.DuckDBPyConnection, item_id: str, status: str, reviewer: Optional[str],
                    notes: Optional[str]) -> None:
    cur.execute("UPDATE items SET status = ?, reviewer = ?, review_notes = coalesce(?, review_notes) WHERE id = ?",
                [status, reviewer, notes, item_id])


def update_item_content(cur: duckdb.DuckDBPyConnection, item_id: str, fields: dict) -> None:
    allowed = {"stem", "options", "answer_key", "correct_index", "explanation", "accepted_answers", "evaluation"}
    sets = []
    values: list[Any] = []
    for key, value in fields.items():
        if key not in allowed:
            raise ValueError(f"cannot edit {key}")
        sets.append(f"{key} = ?")
        values.append(json.dumps(value) if key in ("options", "accepted_answers", "evaluation") else value)
    if sets:
        cur.execute(f"UPDATE items SET {', '.join(sets)} WHERE id = ?", [*values, item_id])


def set_item_course(cur: duckdb.DuckDBPyConnection, item_id: str, subject: str, level: str,
                    outcome_ids: list[str], skill_ids: list[str]) -> None:
    cur.execute("UPDATE items SET subject = ?, level = ?, outcome_ids = ?, skill_ids = ? WHERE id = ?",
                [subject, level, json.dumps(outcome_ids), json.dumps(skill_ids), item_id])


def review_queue(store: Store, status: Optional[str] = "draft", blueprint_id: Optional[str] = None,
                 outcome_id: Optional[str] = None, source: Optional[str] = None, limit: int = 200) -> list[dict]:
    where, params = [], []
    if status:
        where.append("status = ?")
        params.append(status)
    else:
        where.append("status <> 'session'")
    if blueprint_id:
        where.append("blueprint_id = ?")
        params.append(blueprint_id)
    if source:
        where.append("source = ?")
        params.append(source)
    if outcome_id:
        where.append(dialect_of(store).json_list_has("outcome_ids"))
        params.append(outcome_id)
    sql = "SELECT * FROM items WHERE " + " AND ".join(where) + " ORDER BY created_at DESC, id LIMIT ?"
    return [_decode(r) for r in _rows(store.cursor().execute(sql, params + [limit]))]


def item_histories(store: Store, item_ids: list[str]) -> dict[str, list[dict]]:
    """The review histories of several items in one query: {item id: its rows in order} (every id given is a key)."""
    found: dict[str, list[dict]] = {item_id: [] for item_id in item_ids}
    if not found:
        return found
    marks = ", ".join("?" for _ in found)
    rows = _rows(store.cursor().execute(
        f"SELECT item_id, seq, action, actor, note, changes, created_at FROM item_history WHERE item_id IN ({marks}) "
        f"ORDER BY item_id, seq", list(found)))
    for row in rows:
        item_id = row.pop("item_id")
        row["changes"] = json.loads(row["changes"]) if row["changes"] else None
        found[item_id].append(row)
    return found


QUEUE_VERSION_SQL = """
SELECT (SELECT count(*) FROM items), (SELECT max(created_at) FROM items), (SELECT count(verification) FROM items),
       (SELECT count(*) FROM item_history), (SELECT max(created_at) FROM item_history)"""


def queue_version(store: Store) -> str:
    """A short text that changes whenever the review queue may have changed: an item added or removed, a
    verification report attached, or a review action (every status, content or course change records one)."""
    return "|".join("" if v is None else str(v) for v in store.query(QUEUE_VERSION_SQL)[0])
