"""Classes, rosters and assignments (the SQL for them)."""
from __future__ import annotations

import datetime as dt
import json
from typing import Any, Callable, Iterable, Optional

import duckdb

from core.store.db import Store, dict_rows as _rows
from core.store.dialect import dialect_of


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
    allowed = {"name", "subject", "level", "allow_unknown_names", "approved_items_only", "decimal_comma", "require_pin"}
    unknown = set(fields) - allowed
    if unknown:
        raise ValueError(f"cannot change {', '.join(sorted(unknown))} of a class")
    if not fields:
        return
    sets = ", ".join(f"{k} = ?" for k in fields)
    store.write(lambda cur: cur.execute(f"UPDATE classes SET {sets} WHERE code = ?", [*fields.values(), code]))


def roster(store: Store, code: str) -> list[dict]:
    """The class list, with when each student's PIN was issued (None without one)."""
    return _rows(store.cursor().execute(
        "SELECT r.student, r.display_name, r.created_at, p.issued_at AS pin_issued_at FROM roster r "
        "LEFT JOIN student_pins p ON p.class_code = r.class_code AND p.student = r.student "
        "WHERE r.class_code = ? ORDER BY r.display_name, r.student", [code]))


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


def add_named_students(store: Store, code: str, names: Iterable[str], key: Callable[[str], str],
                       make_id: Callable[[str, set[str]], str]) -> tuple[list[tuple[str, str]], list[str]]:
    """Add students by name in one transaction: a name whose ``key`` is already on the roster is left alone,
    every other gets ``make_id(name, ids in use)``. Returns the (id, name) pairs added and the names already there."""
    names = list(names)

    def run(cur: duckdb.DuckDBPyConnection) -> tuple[list[tuple[str, str]], list[str]]:
        rows = cur.execute("SELECT student, display_name FROM roster WHERE class_code = ?", [code]).fetchall()
        taken = {student for student, _ in rows}
        present = {key(name) for _, name in rows}
        added, already = [], []
        for name in names:
            if key(name) in present:
                already.append(name)
                continue
            sid = make_id(name, taken)
            cur.execute("INSERT INTO roster (class_code, student, display_name) VALUES (?, ?, ?)", [code, sid, name])
            taken.add(sid)
            present.add(key(name))
            added.append((sid, name))
        return added, already
    return store.write(run)


def remove_student(store: Store, code: str, student: str) -> bool:
    def run(cur: duckdb.DuckDBPyConnection) -> bool:
        found = cur.execute("SELECT 1 FROM roster WHERE class_code = ? AND student = ?", [code, student]).fetchall()
        cur.execute("DELETE FROM roster WHERE class_code = ? AND student = ?", [code, student])
        cur.execute("DELETE FROM student_pins WHERE class_code = ? AND student = ?", [code, student])
        return bool(found)
    return store.write(run)


def set_pins(store: Store, code: str, hashes: list[tuple[str, str]], issued_at: dt.datetime) -> None:
    """Store (student, PIN hash) pairs for students of the class, replacing their old PINs."""
    if not hashes:
        return

    def run(cur: duckdb.DuckDBPyConnection) -> None:
        for student, pin_hash in hashes:
            cur.execute("DELETE FROM student_pins WHERE class_code = ? AND student = ?", [code, student])
            cur.execute("INSERT INTO student_pins (class_code, student, pin_hash, issued_at) VALUES (?, ?, ?, ?)",
                        [code, student, pin_hash, issued_at])
    store.write(run)


def pin_hash(store: Store, code: str, student: str) -> Optional[str]:
    rows = store.cursor().execute("SELECT pin_hash FROM student_pins WHERE class_code = ? AND student = ?",
                                  [code, student]).fetchall()
    return rows[0][0] if rows else None


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
        GROUP BY r.display_name, s.student, s.id, s.kind, s.status, s.created_at, s.completed_at
        ORDER BY s.created_at DESC""", [code]))


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
        cur.execute(f"DELETE FROM outcome_ability WHERE student IN ({holes})", students)
        cur.execute(f"DELETE FROM items WHERE session_id IN ({ids}) AND status = 'session'", students)
        cur.execute(f"DELETE FROM sessions WHERE student IN ({holes})", students)
    store.write(run)


def add_assignment(store: Store, assignment_id: str, class_code: str, kind: str, title: str, config: dict,
                   opens_at: dt.datetime, closes_at: dt.datetime, time_limit_minutes: Optional[float],
                   created_by: Optional[str], extra_time: Optional[dict] = None, attempts_allowed: int = 1,
                   release_policy: str = "on_close") -> None:
    store.write(lambda cur: cur.execute(
        "INSERT INTO assignments (id, class_code, kind, title, config, opens_at, closes_at, time_limit_minutes, "
        "created_by, extra_time, attempts_allowed, release_policy) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [assignment_id, class_code, kind, title, json.dumps(config), opens_at, closes_at, time_limit_minutes,
         created_by, json.dumps(extra_time or {}), attempts_allowed, release_policy]))


def _assignment(row: dict) -> dict:
    row["config"] = json.loads(row["config"]) if row["config"] else {}
    row["extra_time"] = json.loads(row["extra_time"]) if row.get("extra_time") else {}
    row["attempts_allowed"] = 1 if row.get("attempts_allowed") is None else row["attempts_allowed"]
    row["release_policy"] = row.get("release_policy") or "on_close"
    return row


def get_assignment(store: Store, assignment_id: str) -> Optional[dict]:
    """One assignment with every field (config and extra_time as dicts), deleted or not."""
    rows = _rows(store.cursor().execute("SELECT * FROM assignments WHERE id = ?", [assignment_id]))
    return _assignment(rows[0]) if rows else None


def assignments_for_class(store: Store, class_code: str, include_deleted: bool = False) -> list[dict]:
    """The class's assignments, newest window first; deleted ones only when asked for."""
    where = "" if include_deleted else " AND deleted_at IS NULL"
    rows = _rows(store.cursor().execute(
        f"SELECT * FROM assignments WHERE class_code = ?{where} ORDER BY opens_at DESC, created_at DESC", [class_code]))
    return [_assignment(row) for row in rows]


ASSIGNMENT_FIELDS = {"title", "opens_at", "closes_at", "time_limit_minutes", "extra_time", "attempts_allowed",
                     "release_policy", "released_at", "released_by", "closed_early_at", "deleted_at", "deleted_by"}


def update_assignment(store: Store, assignment_id: str, updated_at: dt.datetime, **fields: Any) -> None:
    unknown = set(fields) - ASSIGNMENT_FIELDS
    if unknown:
        raise ValueError(f"cannot change {', '.join(sorted(unknown))} of an assignment")
    if not fields:
        return
    values = [json.dumps(v) if k == "extra_time" else v for k, v in fields.items()]
    sets = ", ".join(f"{k} = ?" for k in fields)
    store.write(lambda cur: cur.execute(f"UPDATE assignments SET {sets}, updated_at = ? WHERE id = ?",
                                        [*values, updated_at, assignment_id]))


def assignment_sessions(store: Store, assignment_id: str, student: Optional[str] = None) -> list[dict]:
    """Sessions started for an assignment (every status), oldest first: (id, kind, student, status, created_at,
    completed_at)."""
    sql = ("SELECT id, kind, student, status, created_at, completed_at FROM sessions "
           f"WHERE {dialect_of(store).json_text('config', 'assignment_id')} = ?")
    params: list[Any] = [assignment_id]
    if student is not None:
        sql += " AND student = ?"
        params.append(student)
    return _rows(store.cursor().execute(sql + " ORDER BY created_at, id", params))


def decimal_comma_for(store: Store, student: str) -> bool:
    """Whether the student's class writes decimals with a comma (3,5 for three and a half)."""
    rows = store.cursor().execute(
        "SELECT bool_or(c.decimal_comma) FROM classes c JOIN roster r ON r.class_code = c.code WHERE r.student = ?",
        [student]).fetchall()
    return bool(rows and rows[0][0])


def approved_only_for(store: Store, student: str) -> bool:
    """Whether any class the student is in receives approved items only."""
    rows = store.cursor().execute(
        "SELECT bool_or(c.approved_items_only) FROM classes c JOIN roster r ON r.class_code = c.code WHERE r.student = ?",
        [student]).fetchall()
    return bool(rows and rows[0][0])
