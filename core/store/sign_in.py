"""Sign-in attempts, for locking out repeated wrong passcodes (the SQL for them)."""
from __future__ import annotations

import datetime as dt
from typing import Optional


from core.store.db import Store, utc_now as _now


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
