"""The llm_runs audit table and item verification reports (the only SQL for them)."""
from __future__ import annotations

import json
import uuid
from typing import Any, Optional

import duckdb

from core.store.db import Store, StoreError

RUN_COLUMNS = ("id", "stage", "role", "model", "prompt_hash", "prompt_tokens", "completion_tokens",
               "latency_ms", "verdict", "error", "created_at")


def record_run(store: Store, *, stage: Optional[str], role: str, model: str, prompt_hash: str,
               prompt_tokens: Optional[int], completion_tokens: Optional[int], latency_ms: float,
               verdict: str, error: Optional[str]) -> str:
    """Store one LLM call attempt; return its id (StoreError if the row cannot be written)."""
    run_id = "run_" + uuid.uuid4().hex

    def run(cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute("INSERT INTO llm_runs (id, stage, role, model, prompt_hash, prompt_tokens, completion_tokens, "
                    "latency_ms, verdict, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [run_id, stage, role, model, prompt_hash, prompt_tokens, completion_tokens, latency_ms,
                     verdict, error])
    try:
        store.write(run)
    except duckdb.Error as exc:
        raise StoreError(f"could not record the LLM call in llm_runs: {exc}") from None
    return run_id


def list_runs(store: Store, role: Optional[str] = None, limit: int = 200) -> list[dict[str, Any]]:
    """The newest LLM call attempts first (optionally for one role)."""
    sql = f"SELECT {', '.join(RUN_COLUMNS)} FROM llm_runs"
    params: list[Any] = []
    if role is not None:
        sql += " WHERE role = ?"
        params.append(role)
    sql += " ORDER BY created_at DESC, id LIMIT ?"
    params.append(limit)
    rows = store.cursor().execute(sql, params).fetchall()
    return [dict(zip(RUN_COLUMNS, r)) for r in rows]


def save_verification(store: Store, item_id: str, report: dict) -> bool:
    """Attach a verification report to a stored item; False if no such item is stored."""
    def run(cur: duckdb.DuckDBPyConnection) -> bool:
        rows = cur.execute("UPDATE items SET verification = ? WHERE id = ? RETURNING id",
                           [json.dumps(report), item_id]).fetchall()
        return bool(rows)
    return store.write(run)
