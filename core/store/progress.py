"""A student's sessions with their scores (the SQL behind the student progress and exam pages)."""
from __future__ import annotations

import json
from typing import Optional, Sequence

from core.store.db import Store


def session_summaries(store: Store, student: str, kinds: Optional[Sequence[str]] = None,
                      status: Optional[str] = None, limit: int = 20) -> list[dict]:
    """The student's sessions, newest first, each with its config and its marks.

    Marks count each question once, at its last attempt (a lesson card answered
    three times is one question), so ``score / max_score`` is the session's result.
    """
    where, params = ["s.student = ?"], [student]
    if kinds:
        where.append(f"s.kind IN ({', '.join('?' for _ in kinds)})")
        params += list(kinds)
    if status is not None:
        where.append("s.status = ?")
        params.append(status)
    sql = f"""
        WITH last AS (
            SELECT session_id, item_id, correct, score, max_score FROM (
                SELECT *, row_number() OVER (PARTITION BY session_id, item_id ORDER BY attempt DESC) AS newest
                FROM responses WHERE session_id IN (SELECT id FROM sessions s WHERE {' AND '.join(where)})) answers
            WHERE newest = 1
        ), marks AS (
            SELECT session_id, count(*) AS answers, sum(CASE WHEN correct THEN 1 ELSE 0 END) AS correct,
                   sum(score) AS score, sum(max_score) AS max_score
            FROM last GROUP BY session_id
        )
        SELECT s.id, s.kind, s.status, s.config, s.created_at, s.completed_at,
               coalesce(m.answers, 0) AS answers, coalesce(m.correct, 0) AS correct, m.score, m.max_score
        FROM sessions s LEFT JOIN marks m ON m.session_id = s.id
        WHERE {' AND '.join(where)}
        ORDER BY s.created_at DESC, s.id LIMIT ?"""
    cur = store.cursor().execute(sql, params + params + [limit])
    names = [d[0] for d in cur.description]
    rows = [dict(zip(names, r)) for r in cur.fetchall()]
    for row in rows:
        row["config"] = json.loads(row["config"]) if row["config"] else {}
        row["answers"] = int(row["answers"])
        row["correct"] = int(row["correct"])
    return rows
