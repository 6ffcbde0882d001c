"""Sign-in attempts, for slowing down repeated wrong guesses (the SQL for them).

Each attempt is stored with the account it was for (``who``), whether it was
right, its scope (teacher or student sign-in) and the client it came from (the
browser session and, when known, its network address).
"""
from __future__ import annotations

import datetime as dt
from typing import Optional

from core.store.db import Store, utc_now as _now

_CLIENT_COLUMNS = {"session", "address"}


def record_attempt(store: Store, who: str, ok: bool, scope: Optional[str] = None, session: Optional[str] = None,
                   address: Optional[str] = None, at: Optional[dt.datetime] = None) -> None:
    store.write(lambda cur: cur.execute(
        "INSERT INTO sign_in_attempts (who, ok, created_at, scope, session, address) VALUES (?, ?, ?, ?, ?, ?)",
        [who, ok, at or _now(), scope, session, address]))


def account_failures(store: Store, who: str, since: dt.datetime) -> tuple[int, Optional[dt.datetime]]:
    """Wrong attempts on ``who`` after ``since`` and after its last right one: how many, and the latest."""
    rows = store.cursor().execute(
        "SELECT count(*), max(created_at) FROM sign_in_attempts WHERE who = ? AND NOT ok AND created_at > ? "
        "AND created_at > coalesce((SELECT max(created_at) FROM sign_in_attempts WHERE who = ? AND ok), "
        "TIMESTAMP '1970-01-01')", [who, since, who]).fetchall()
    return int(rows[0][0]), rows[0][1]


def client_failures(store: Store, scope: str, column: str, client: str,
                    since: dt.datetime) -> tuple[int, Optional[dt.datetime]]:
    """Wrong attempts in ``scope`` from one client (by ``session`` or ``address``) after ``since``."""
    if column not in _CLIENT_COLUMNS:
        raise ValueError(f"no client column {column!r}")
    rows = store.cursor().execute(
        f"SELECT count(*), max(created_at) FROM sign_in_attempts WHERE scope = ? AND {column} = ? AND NOT ok "
        "AND created_at > ?", [scope, client, since]).fetchall()
    return int(rows[0][0]), rows[0][1]

