"""Checks of the stored data that run once per database (the only SQL for the data_checks table)."""
from __future__ import annotations

import json
from typing import Any, Optional

import duckdb

from core.store.db import Store


def check_done(store: Store, name: str) -> bool:
    return bool(store.cursor().execute("SELECT 1 FROM data_checks WHERE name = ?", [name]).fetchall())


def check_result(store: Store, name: str) -> Optional[Any]:
    """What the check recorded when it ran (decoded JSON), or None when it has not run."""
    rows = store.cursor().execute("SELECT result FROM data_checks WHERE name = ?", [name]).fetchall()
    return json.loads(rows[0][0]) if rows and rows[0][0] is not None else None


def record_check(store: Store, name: str, result: Any) -> None:
    def run(cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute("INSERT INTO data_checks (name, result) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                    [name, json.dumps(result)])
    store.write(run)
