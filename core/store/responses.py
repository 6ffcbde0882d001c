"""Responses in bulk: import a frame of answers, load all answers as a frame (the only SQL for this).

Calibration (core.analytics.irt) reads every response at once, so both
directions go column-wise: a DataFrame is inserted with one
``INSERT ... SELECT`` over it, and responses come back through Arrow, never
row by row in Python.
"""
from __future__ import annotations

import json
import uuid
from typing import Any

import numpy as np
import pandas as pd

from core.store.db import Store

REQUIRED = ("student", "item_id", "correct")
OPTIONAL = ("session_id", "answer", "score", "max_score", "time_taken_ms", "attempt", "created_at")
IMPORT_PREFIX = "import:"


def import_responses(store: Store, df: pd.DataFrame) -> int:
    """Insert responses from ``df``; return how many rows were new.

    ``df`` needs columns student, item_id and correct (True/False, 1/0, or
    null for unmarked), and may have session_id, answer, score, max_score,
    time_taken_ms, attempt and created_at. Without a session_id a student's
    rows go to the session "import:<student>"; without an attempt, rows
    repeating a (session_id, item_id) are numbered 1, 2, ... in frame order.
    A response already stored (same session_id, item_id, attempt) is kept and
    not counted, so importing the same frame twice adds nothing.
    """
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"import_responses needs a pandas DataFrame, got {type(df).__name__}")
    missing = [c for c in REQUIRED if c not in df.columns]
    if missing:
        raise ValueError(f"responses to import need the column(s) {', '.join(missing)}; the frame has "
                         f"{', '.join(map(str, df.columns)) or 'no columns'}")
    if len(df) == 0:
        return 0
    for col in ("student", "item_id"):
        blank = int(df[col].isna().sum())
        if blank:
            raise ValueError(f"{blank} rows have no {col}; fill in or drop them before importing")
    correct = _correct_column(df["correct"])
    if "attempt" in df.columns:
        attempts = pd.to_numeric(df["attempt"], errors="coerce")
        if attempts.isna().any() or (attempts < 1).any() or (attempts % 1 != 0).any():
            raise ValueError("column 'attempt' must hold whole numbers from 1 in every row (or leave it out)")

    # Columns by position (the frame's index may repeat labels), with correct as nullable booleans.
    frame = pd.DataFrame({c: (correct if c == "correct" else df[c].array)
                          for c in REQUIRED + OPTIONAL if c in df.columns})
    if "attempt" not in frame.columns:
        frame["_row"] = np.arange(len(frame), dtype=np.int64)
    session = (f"coalesce(CAST(session_id AS VARCHAR), '{IMPORT_PREFIX}' || CAST(student AS VARCHAR))"
               if "session_id" in frame.columns else f"'{IMPORT_PREFIX}' || CAST(student AS VARCHAR)")
    source = f"SELECT *, {session} AS _session FROM {{name}}"
    attempt = ("CAST(attempt AS INTEGER)" if "attempt" in frame.columns
               else "CAST(row_number() OVER (PARTITION BY _session, CAST(item_id AS VARCHAR) ORDER BY _row) "
                    "AS INTEGER)")
    columns = ["session_id", "item_id", "student", "correct", "attempt"]
    values = ["_session", "CAST(item_id AS VARCHAR)", "CAST(student AS VARCHAR)", "CAST(correct AS BOOLEAN)", attempt]
    casts = {"answer": "CAST(answer AS VARCHAR)", "score": "CAST(score AS DOUBLE PRECISION)",
             "max_score": "CAST(max_score AS DOUBLE PRECISION)", "time_taken_ms": "CAST(time_taken_ms AS INTEGER)",
             "created_at": "CAST(created_at AS TIMESTAMP)"}
    for col, expr in casts.items():
        if col in frame.columns:
            columns.append(col)
            values.append(expr)
    name = f"incoming_{uuid.uuid4().hex[:12]}"
    sql = (f"INSERT INTO responses ({', '.join(columns)}) SELECT {', '.join(values)} "
           f"FROM ({source.format(name=name)}) AS incoming ON CONFLICT DO NOTHING")

    def run(cur: Any) -> int:
        cur.register(name, frame)
        try:
            rows = cur.execute(sql).fetchall()
        finally:
            cur.unregister(name)
        return int(rows[0][0]) if rows else 0

    return store.write(run)


def _correct_column(col: pd.Series) -> Any:
    """``correct`` as (nullable) booleans; refuses anything but True/False, 1/0 and null."""
    if col.dtype == bool:
        return col.array
    missing = col.isna().to_numpy()
    values = np.where(missing, 0, col.to_numpy(dtype=object)) if missing.any() else col.to_numpy()
    try:
        numbers = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        numbers = None
    if numbers is None or not np.isin(numbers, (0.0, 1.0)).all():
        bad = [v.item() if isinstance(v, np.generic) else v for v in pd.unique(col.dropna()) if not _binary(v)][:3]
        raise ValueError(f"column 'correct' must hold True/False, 1/0 or nothing (unmarked); found "
                         f"{', '.join(map(repr, bad))}")
    return pd.arrays.BooleanArray(numbers == 1.0, missing)


def _binary(value: Any) -> bool:
    try:
        return float(value) in (0.0, 1.0)
    except (TypeError, ValueError):
        return False


_COLUMNS = "student, item_id, CAST(correct AS INTEGER) AS correct, session_id, created_at"


def response_frame(store: Store, *, first_attempt_only: bool = True) -> pd.DataFrame:
    """Every marked response as a frame: student, item_id, correct (int8 0/1), session_id, created_at.

    Unmarked responses (correct is null) are left out. With
    ``first_attempt_only`` (the default, what calibration wants) only each
    session's first attempt at an item is returned. Rows come sorted by
    student, item and mark. Loads through Arrow: a million rows in a fraction of a second.
    """
    if first_attempt_only:
        # Attempt 1 is the first almost always; the rare later-numbered first attempt is found by anti-join.
        sql = (f"SELECT {_COLUMNS} FROM responses WHERE correct IS NOT NULL AND attempt = 1 "
               f"UNION ALL SELECT {_COLUMNS} FROM responses r WHERE correct IS NOT NULL AND attempt > 1 "
               f"AND NOT EXISTS (SELECT 1 FROM responses q WHERE q.session_id = r.session_id "
               f"AND q.item_id = r.item_id AND q.attempt < r.attempt)")
    else:
        sql = f"SELECT {_COLUMNS} FROM responses WHERE correct IS NOT NULL"
    # In one order whatever the engine returned (sums of floats depend on it): the same answers give the
    # same calibration, to the last digit, on either backend and whatever their sessions' ids.
    table = store.query_arrow(sql).sort_by([(c, "ascending") for c in ("student", "item_id", "correct")])
    frame = table.to_pandas()
    frame["correct"] = frame["correct"].astype(np.int8)
    return frame


def rescore(cur: Any, session_id: str, student: str, rows: list[dict]) -> None:
    """Set the marks of a session's responses after marking changed (a teacher's override, a re-mark).

    Each row is {item_id, correct (None: not marked), score, max_score, attempt (default 1), answer,
    step_answers}; a response not recorded yet (a question the marker could not mark) is added with
    its answer, and one already recorded keeps its answer and time and gets the new marks. Meant to run
    in the transaction that appends the event saying why.
    """
    if not rows:
        return
    values: list[Any] = []
    for r in rows:
        steps = r.get("step_answers")
        values += [session_id, r["item_id"], student, r.get("answer"), r.get("correct"), r.get("score"),
                   r.get("max_score"), int(r.get("attempt") or 1), None if steps is None else json.dumps(steps)]
    cur.execute(
        "INSERT INTO responses (session_id, item_id, student, answer, correct, score, max_score, attempt, step_answers) "
        "VALUES " + ", ".join("(?, ?, ?, ?, ?, ?, ?, ?, ?)" for _ in rows)
        + " ON CONFLICT (session_id, item_id, attempt) DO UPDATE SET correct = excluded.correct, "
          "score = excluded.score, max_score = excluded.max_score", values)
