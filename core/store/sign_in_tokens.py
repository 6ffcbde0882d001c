"""Sign-in tokens that keep a browser signed in across reloads (the SQL for the sign_in_tokens table).

Rows are keyed by a hash of the token's id, so the database (and every
snapshot of it) holds nothing a browser could present; the signature that
makes a token valid needs a key kept outside the database.
"""
from __future__ import annotations

import datetime as dt
import json
from typing import Any, Optional

import duckdb

from core.store.db import Store, utc_now

KEEP_EXPIRED = dt.timedelta(days=7)


def save_token(store: Store, token_hash: str, who: dict[str, Any], expires_at: dt.datetime) -> None:
    """Record a token just issued; tokens expired more than a week ago are dropped on the way."""
    def run(cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute("DELETE FROM sign_in_tokens WHERE expires_at < ?", [utc_now() - KEEP_EXPIRED])
        cur.execute("INSERT INTO sign_in_tokens (token_hash, who, created_at, expires_at) VALUES (?, ?, ?, ?)",
                    [token_hash, json.dumps(who), utc_now(), expires_at])
    store.write(run)


def live_token(store: Store, token_hash: str) -> Optional[dict[str, Any]]:
    """The user a token signs in, while it is neither expired nor revoked; None otherwise."""
    rows = store.cursor().execute(
        "SELECT who FROM sign_in_tokens WHERE token_hash = ? AND revoked_at IS NULL AND expires_at > ?",
        [token_hash, utc_now()]).fetchall()
    return json.loads(rows[0][0]) if rows else None


def revoke_token(store: Store, token_hash: str) -> bool:
    """Revoke one token (signing out); False when it was unknown or already revoked."""
    def run(cur: duckdb.DuckDBPyConnection) -> bool:
        return bool(cur.execute("UPDATE sign_in_tokens SET revoked_at = ? WHERE token_hash = ? AND revoked_at IS NULL "
                                "RETURNING token_hash", [utc_now(), token_hash]).fetchall())
    return store.write(run)

