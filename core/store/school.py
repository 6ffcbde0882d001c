"""Classes, rosters, assignments, item review history and sign-in attempts (the SQL for them)."""
from __future__ import annotations

import datetime as dt
import json
from typing import Any, Optional

import duckdb

from core.store.db import Store


def _now() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def _rows(cur: duckdb.DuckDBPyConnection) -> list[dict]:
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


# --------------------------------------------------------------------------
# Classes and rosters


def create_class(store: Store, code: str, name: str, subject: Optional[str], level: Optional[str],
                 allow_unknown_names: bool = False, approved_items_only: bool = False, demo: bool = False) -> None:
    store.write(lambda cur: cur.execute(
        "INSERT INTO classes (code, name, subject, level, allow_unknown_names, approved_items_only, demo) "
        "VALUES (?, ?, ?, ?, ?, ?, ?)", [code, name, subject, level, allow_unknown_names, approved_items_only, demo]))


def get_class(store: Store, code: str) -> Optional[dict]:
    rows = _rows(store.cursor().execute("SELECT * FROM classes WHERE upper(code) = upper(?)", [code]))
    return rows[0] if rows else None


def list_classes(store: Store) -> list[dict]:
    return _rows(store.cursor().execute(
        "SELECT c.*, (SELECT count(*) FROM roster r WHERE r.class_code = c.code) AS students "
        "FROM classes c ORDER BY c.created_at, c.code"))


def update_class(store: Store, code: str, **fields: Any) -> None:
    allowed = {"name", "subject", "level", "allow_unknown_names", "approved_items_only"}
    unknown = set(fields) - allowed
    if unknown:
        raise ValueError(f"cannot change {', '.join(sorted(unknown))} of a class")
    if not fields:
        return
    sets = ", ".join(f"{k} = ?" for k in fields)
    store.write(lambda cur: cur.execute(f"UPDATE classes SET {sets} WHERE code = ?", [*fields.values(), code]))


def roster(store: Store, code: str) -> list[dict]:
    return _rows(store.cursor().execute(
        "SELECT student, display_name, created_at FROM roster WHERE class_code = ? ORDER BY display_name", [code]))


def add_students(store: Store, code: str, students: list[tuple[str, str]]) -> int:
    """Add (student id, display name) pairs; those already on the roster are left alone. Returns how many were new."""
    if not students:
        return 0

    def run(cur: duckdb.DuckDBPyConnection) -> int:
        before = cur.execute("SELECT count(*) FROM roster WHERE class_code = ?", [code]).fetchall()[0][0]
        for student, name in students:
            cur.execute("INSERT INTO roster (class_code, student, display_name) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                        [code, student, name])
        return cur.execute("SELECT count(*) FROM roster WHERE class_code = ?", [code]).fetchall()[0][0] - before
    return store.write(run)


def remove_student(store: Store, code: str, student: str) -> bool:
    def run(cur: duckdb.DuckDBPyConnection) -> bool:
        found = cur.execute("SELECT 1 FROM roster WHERE class_code = ? AND student = ?", [code, student]).fetchall()
        cur.execute("DELETE FROM roster WHERE class_code = ? AND student = ?", [code, student])
        return bool(found)
    return store.write(run)


def find_student(store: Store, code: str, name: str) -> Optional[dict]:
    rows = _rows(store.cursor().execute(
        "SELECT student, display_name FROM roster WHERE class_code = ? AND (lower(display_name) = lower(?) "
        "OR lower(student) = lower(?))", [code, name, name]))
    return rows[0] if rows else None


def classes_of(store: Store, student: str) -> list[dict]:
    return _rows(store.cursor().execute(
        "SELECT c.* FROM classes c JOIN roster r ON r.class_code = c.code WHERE r.student = ? ORDER BY c.code", [student]))


def class_results(store: Store, code: str) -> list[dict]:
    """Each student's sessions with their responses summed, newest first."""
    return _rows(store.cursor().execute("""
        SELECT r.display_name, s.student, s.id AS session_id, s.kind, s.status, s.created_at, s.completed_at,
               count(x.item_id) AS answers, sum(CASE WHEN x.correct THEN 1 ELSE 0 END) AS correct,
               sum(x.score) AS score, sum(x.max_score) AS max_score
        FROM roster r JOIN sessions s ON s.student = r.student
        LEFT JOIN responses x ON x.session_id = s.id
        WHERE r.class_code = ?
        GROUP BY ALL ORDER BY s.created_at DESC""", [code]))


def delete_student_history(store: Store, students: list[str]) -> None:
    """Remove everything these students did (used to reset the demo class)."""
    if not students:
        return
    holes = ", ".join("?" for _ in students)

    def run(cur: duckdb.DuckDBPyConnection) -> None:
        ids = f"SELECT id FROM sessions WHERE student IN ({holes})"
        cur.execute(f"DELETE FROM events WHERE session_id IN ({ids})", students)
        cur.execute(f"DELETE FROM responses WHERE student IN ({holes})", students)
        cur.execute(f"DELETE FROM seen WHERE student IN ({holes})", students)
        cur.execute(f"DELETE FROM mastery WHERE student IN ({holes})", students)
        cur.execute(f"DELETE FROM items WHERE session_id IN ({ids}) AND status = 'session'", students)
        cur.execute(f"DELETE FROM sessions WHERE student IN ({holes})", students)
    store.write(run)


# --------------------------------------------------------------------------
# Assignments


def add_assignment(store: Store, assignment_id: str, class_code: str, kind: str, title: str, config: dict,
                   opens_at: dt.datetime, closes_at: dt.datetime, time_limit_minutes: Optional[float],
                   created_by: Optional[str]) -> None:
    store.write(lambda cur: cur.execute(
        "INSERT INTO assignments (id, class_code, kind, title, config, opens_at, closes_at, time_limit_minutes, created_by) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [assignment_id, class_code, kind, title, json.dumps(config), opens_at, closes_at, time_limit_minutes, created_by]))


def assignments_for_class(store: Store, class_code: str) -> list[dict]:
    rows = _rows(store.cursor().execute(
        "SELECT * FROM assignments WHERE class_code = ? ORDER BY opens_at DESC", [class_code]))
    for row in rows:
        row["config"] = json.loads(row["config"])
    return rows


# --------------------------------------------------------------------------
# Item review history


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


def set_item_status(cur: duckdb.DuckDBPyConnection, item_id: str, status: str, reviewer: Optional[str],
                    notes: Optional[str]) -> None:
    cur.execute("UPDATE items SET status = ?, reviewer = ?, review_notes = coalesce(?, review_notes) WHERE id = ?",
                [status, reviewer, notes, item_id])


def update_item_content(cur: duckdb.DuckDBPyConnection, item_id: str, fields: dict) -> None:
    allowed = {"stem", "options", "answer_key", "correct_index", "explanation"}
    sets = []
    values: list[Any] = []
    for key, value in fields.items():
        if key not in allowed:
            raise ValueError(f"cannot edit {key}")
        sets.append(f"{key} = ?")
        values.append(json.dumps(value) if key == "options" else value)
    if sets:
        cur.execute(f"UPDATE items SET {', '.join(sets)} WHERE id = ?", [*values, item_id])


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
        where.append("list_contains(CAST(outcome_ids AS VARCHAR[]), ?)")
        params.append(outcome_id)
    sql = "SELECT * FROM items WHERE " + " AND ".join(where) + " ORDER BY created_at DESC, id LIMIT ?"
    from core.store.repo import _decode
    return [_decode(r) for r in _rows(store.cursor().execute(sql, params + [limit]))]


# --------------------------------------------------------------------------
# Sign-in attempts


def record_attempt(store: Store, who: str, ok: bool) -> None:
    store.write(lambda cur: cur.execute("INSERT INTO sign_in_attempts (who, ok, created_at) VALUES (?, ?, ?)",
                                        [who, ok, _now()]))


def recent_failures(store: Store, who: str, seconds: float) -> tuple[int, Optional[dt.datetime]]:
    since = _now() - dt.timedelta(seconds=seconds)
    rows = store.cursor().execute(
        "SELECT count(*), max(created_at) FROM sign_in_attempts WHERE who = ? AND NOT ok AND created_at > ? "
        "AND created_at > coalesce((SELECT max(created_at) FROM sign_in_attempts WHERE who = ? AND ok), TIMESTAMP '1970-01-01')",
        [who, since, who]).fetchall()
    return int(rows[0][0]), rows[0][1]


def approved_only_for(store: Store, student: str) -> bool:
    """Whether any class the student is in receives approved items only."""
    rows = store.cursor().execute(
        "SELECT bool_or(c.approved_items_only) FROM classes c JOIN roster r ON r.class_code = c.code WHERE r.student = ?",
        [student]).fetchall()
    return bool(rows and rows[0][0])
