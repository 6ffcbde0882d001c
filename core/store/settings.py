"""Settings a teacher makes in the app (the only SQL for the app_settings table)."""
from __future__ import annotations

import json
from typing import Any, Optional

import duckdb

from core.store.db import Store


def get_setting(store: Store, key: str) -> Optional[Any]:
    """The stored value for ``key`` (decoded JSON), or None when it was never set."""
    rows = store.cursor().execute("SELECT value FROM app_settings WHERE key = ?", [key]).fetchall()
    return json.loads(rows[0][0]) if rows else None


def put_setting(store: Store, key: str, value: Any, updated_by: Optional[str] = None) -> None:
    def run(cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute("INSERT INTO app_settings (key, value, updated_by, updated_at) VALUES (?, ?, ?, current_timestamp) "
                    "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_by = excluded.updated_by, "
                    "updated_at = excluded.updated_at", [key, json.dumps(value), updated_by])
    store.write(run)


def delete_setting(store: Store, key: str) -> bool:
    def run(cur: duckdb.DuckDBPyConnection) -> bool:
        return bool(cur.execute("DELETE FROM app_settings WHERE key = ? RETURNING key", [key]).fetchall())
    return store.write(run)
