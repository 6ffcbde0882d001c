"""A cheap fingerprint of everything the Analytics page reads, so its figures can be cached until the data change.

One small query of counts and newest times: a new or deleted answer, a
changed mastery score or ability, a new session event (exam marks,
overrides), a roster change, a new item or a new calibration all give a
different fingerprint. It
reads no answers themselves, so it costs a few milliseconds even at a million
responses, on DuckDB or PostgreSQL alike.
"""
from __future__ import annotations

from core.store.db import Store

VERSION_SQL = """
SELECT (SELECT count(*) FROM responses), (SELECT max(created_at) FROM responses),
       (SELECT count(*) FROM mastery), (SELECT max(updated_at) FROM mastery),
       (SELECT count(*) FROM outcome_ability), (SELECT max(updated_at) FROM outcome_ability),
       (SELECT count(*) FROM events), (SELECT max(created_at) FROM events),
       (SELECT count(*) FROM sessions), (SELECT max(updated_at) FROM sessions),
       (SELECT count(*) FROM roster), (SELECT coalesce(sum(length(display_name)), 0) FROM roster),
       (SELECT count(*) FROM classes), (SELECT count(*) FROM items), (SELECT max(created_at) FROM items),
       (SELECT count(*) FROM calibrations), (SELECT max(created_at) FROM calibrations)"""


def analytics_version(store: Store) -> str:
    """A short text that changes whenever data the Analytics page shows change (the same data give the same text)."""
    row = store.query(VERSION_SQL)[0]
    return f"{store.label}|" + "|".join("" if v is None else str(v) for v in row)
