"""Survey answers read back from the event log (the only SQL for surveys).

A survey has no correct answers, so nothing goes in ``responses``; each
answer is an ``answered`` event of a ``survey`` session, and this is where
they are read back.
"""
from __future__ import annotations

import json
from typing import Optional

from core.store.db import Store
from core.store.dialect import dialect_of


def answer_events(store: Store, survey_id: Optional[str] = None) -> list[dict]:
    """Every ``answered`` event of survey sessions (optionally one survey), oldest session first."""
    sql = ("SELECT s.id, s.student, s.status, s.config, e.seq, e.payload, e.created_at "
           "FROM events e JOIN sessions s ON s.id = e.session_id "
           "WHERE s.kind = 'survey' AND e.type = 'answered'")
    params: list = []
    if survey_id is not None:
        sql += f" AND {dialect_of(store).json_text('s.config', 'survey_id')} = ?"
        params.append(survey_id)
    sql += " ORDER BY s.created_at, s.id, e.seq"
    rows = store.cursor().execute(sql, params).fetchall()
    return [{"session_id": r[0], "student": r[1], "status": r[2], "config": json.loads(r[3]) if r[3] else {},
             "seq": r[4], "payload": json.loads(r[5]) if r[5] else {}, "created_at": r[6]} for r in rows]
