"""The llm_runs audit table and item verification reports (the only SQL for them)."""
from __future__ import annotations

import json
import re
import uuid
from typing import Any, Optional

import duckdb

from core.store.db import ENGINE_ERRORS, Store, StoreError

RUN_COLUMNS = ("id", "stage", "role", "model", "prompt_hash", "prompt_tokens", "completion_tokens",
               "latency_ms", "verdict", "error", "created_at")

# API keys as providers write them, masked or not (sk-... for OpenAI, Anthropic, OpenRouter, DeepSeek; gsk_ Groq;
# hf_ Hugging Face; xai- xAI; AIza Google) and bearer tokens. A server that echoes the key in an error message
# must not put it in the table. The pattern is also valid for DuckDB's regexp functions (RE2).
KEY_PATTERN = (r"\b(?:sk|gsk|hf|xai)[-_][A-Za-z0-9_*\-]{12,}|\bAIza[0-9A-Za-z_\-]{30,}"
               r"|\b[Bb]earer\s+[A-Za-z0-9._~+/*\-]{12,}=*")
REDACTED = "[redacted]"
_KEYS = re.compile(KEY_PATTERN)


def redact_keys(text: Optional[str], *secrets: Optional[str]) -> Optional[str]:
    """``text`` without the given secrets and without anything shaped like an API key."""
    if not text:
        return text
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    return _KEYS.sub(REDACTED, text)


def record_run(store: Store, *, stage: Optional[str], role: str, model: str, prompt_hash: str,
               prompt_tokens: Optional[int], completion_tokens: Optional[int], latency_ms: float,
               verdict: str, error: Optional[str]) -> str:
    """Store one LLM call attempt; return its id (StoreError if the row cannot be written)."""
    run_id = "run_" + uuid.uuid4().hex

    def run(cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute("INSERT INTO llm_runs (id, stage, role, model, prompt_hash, prompt_tokens, completion_tokens, "
                    "latency_ms, verdict, error) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [run_id, stage, role, model, prompt_hash, prompt_tokens, completion_tokens, latency_ms,
                     verdict, redact_keys(error)])
    try:
        store.write(run)
    except ENGINE_ERRORS as exc:
        raise StoreError(f"could not record the LLM call in llm_runs: {exc}") from None
    return run_id


def record_runs(store: Store, runs: list[dict[str, Any]]) -> int:
    """Store several call attempts in one transaction (a batch's audit rows); StoreError if they cannot be written."""
    if not runs:
        return 0
    cols = RUN_COLUMNS[1:-1]
    values = [v for run in runs
              for v in ["run_" + uuid.uuid4().hex] + [redact_keys(run.get(c)) if c == "error" else run.get(c)
                                                      for c in cols]]
    holes = ", ".join("(" + ", ".join("?" for _ in range(len(cols) + 1)) + ")" for _ in runs)

    def run(cur: duckdb.DuckDBPyConnection) -> None:
        cur.execute(f"INSERT INTO llm_runs (id, {', '.join(cols)}) VALUES {holes}", values)
    try:
        store.write(run)
    except ENGINE_ERRORS as exc:
        raise StoreError(f"could not record {len(runs)} LLM calls in llm_runs: {exc}") from None
    return len(runs)


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


def save_verifications(store: Store, reports: dict[str, dict]) -> int:
    """Attach verification reports to stored items in one statement; return how many items were found."""
    if not reports:
        return 0
    holes = ", ".join("(?, ?)" for _ in reports)
    values = [v for item_id, report in reports.items() for v in (item_id, json.dumps(report))]

    def run(cur: duckdb.DuckDBPyConnection) -> int:
        return len(cur.execute(f"UPDATE items SET verification = v.report::JSON FROM (VALUES {holes}) AS v(id, report) "
                               f"WHERE items.id = v.id RETURNING items.id", values).fetchall())
    return store.write(run)


def save_verification(store: Store, item_id: str, report: dict) -> bool:
    """Attach a verification report to a stored item; False if no such item is stored."""
    def run(cur: duckdb.DuckDBPyConnection) -> bool:
        rows = cur.execute("UPDATE items SET verification = ? WHERE id = ? RETURNING id",
                           [json.dumps(report), item_id]).fetchall()
        return bool(rows)
    return store.write(run)
