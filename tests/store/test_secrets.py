"""Secrets stay out of the database file, its snapshots and llm_runs; databases that hold one are scrubbed."""
from __future__ import annotations

import json
import os
import stat
from pathlib import Path

from core.store import Store
from core.store.llm_runs import list_runs, record_run, record_runs, redact_keys
from core.store.secret_file import (LLM_API_KEY, ensure_secret, read_secret, secrets_path, write_secret)

KEY = "sk-proj-LEGACYabcdefghijklmnop0123456789"


def file_holds(path: Path, secret: str) -> bool:
    return any(secret.encode() in f.read_bytes() for f in [path, *path.parent.rglob("*.duckdb")] if f.exists())


def old_database(path: Path) -> None:
    """A database as earlier versions left it: the key in app_settings and echoed in llm_runs, and a snapshot."""
    store = Store(path)
    store.write(lambda cur: cur.execute(
        "INSERT INTO app_settings (key, value) VALUES ('llm', ?)",
        [json.dumps({"api_key": KEY, "base_url": "https://example.test/v1", "model": "m", "models": {}})]))
    store.write(lambda cur: cur.execute(
        "INSERT INTO llm_runs (id, role, model, verdict, error) VALUES "
        "('r1', 'tutor', 'm', 'error', ?), ('r2', 'tutor', 'm', 'error', ?), ('r3', 'tutor', 'm', 'ok', NULL)",
        [f"the model server refused the request (HTTP 401): Incorrect API key provided: {KEY}.",
         "Invalid token: Bearer gsk_abcdefghijklmnopqrstuvwxyz012345"]))
    store.write(lambda cur: cur.execute("DELETE FROM data_checks"))   # as before the check existed
    store.publish_snapshot()
    store.close()


def test_an_old_database_is_scrubbed_when_opened(tmp_path: Path):
    path = tmp_path / "w.duckdb"
    old_database(path)
    assert file_holds(path, KEY)
    store = Store(path)
    try:
        saved = store.query("SELECT value FROM app_settings WHERE key = 'llm'")[0][0]
        assert "api_key" not in json.loads(saved) and json.loads(saved)["model"] == "m"
        errors = [r["error"] for r in list_runs(store) if r["error"]]
        assert len(errors) == 2 and all("[redacted]" in e for e in errors)
        assert not any(KEY in e or "gsk_" in e for e in errors)
        assert read_secret(path, LLM_API_KEY) == KEY                      # moved, not lost
        assert not list(store.snapshot_dir().glob("*.duckdb"))             # the snapshots that held it are gone
        snap = store.publish_snapshot()
        assert KEY.encode() not in snap.read_bytes()
    finally:
        store.close()
    assert not file_holds(path, KEY)   # not even in the file's free blocks
    assert stat.S_IMODE(os.stat(secrets_path(path)).st_mode) == 0o600
    store = Store(path)                # the next open finds nothing to do
    try:
        assert store.query("SELECT count(*) FROM llm_runs")[0][0] == 3
    finally:
        store.close()


def test_llm_runs_never_store_a_key_a_server_echoes(db_path: Path):
    store = Store(db_path)
    try:
        record_run(store, stage=None, role="tutor", model="m", prompt_hash="h", prompt_tokens=None,
                   completion_tokens=None, latency_ms=1.0, verdict="error",
                   error="Incorrect API key provided: sk-abcdefghijklmnopqrstuvwx. See the docs.")
        record_runs(store, [{"role": "tutor", "model": "m", "verdict": "error",
                             "error": "bad key AIzaSyA-abcdefghijklmnopqrstuvwxyz0123456"}])
        errors = sorted(r["error"] for r in list_runs(store))
        assert errors == ["Incorrect API key provided: [redacted]. See the docs.", "bad key [redacted]"]
    finally:
        store.close()


def test_redaction_keeps_ordinary_words():
    text = "the task-0123456789abcdef timed out on disk-0123456789abcdef"
    assert redact_keys(text) == text
    assert redact_keys("echo: my-own-secret-value", "my-own-secret-value") == "echo: [redacted]"
    assert redact_keys(None) is None


def test_the_secrets_file_is_beside_the_database_and_private(tmp_path: Path, monkeypatch):
    path = tmp_path / "school.duckdb"
    assert secrets_path(path) == tmp_path / "school.secrets.json"
    first = ensure_secret(path, "signing_key")
    assert len(first) >= 40 and ensure_secret(path, "signing_key") == first
    write_secret(path, LLM_API_KEY, "sk-x")
    write_secret(path, LLM_API_KEY, None)
    assert read_secret(path, LLM_API_KEY) is None and read_secret(path, "signing_key") == first
    assert stat.S_IMODE(os.stat(secrets_path(path)).st_mode) == 0o600
    elsewhere = tmp_path / "etc" / "workbench.json"
    monkeypatch.setenv("WORKBENCH_SECRETS_FILE", str(elsewhere))
    write_secret(path, LLM_API_KEY, "sk-y")
    assert json.loads(elsewhere.read_text()) == {LLM_API_KEY: "sk-y"}


def test_no_room_for_the_rewrite_leaves_the_database_usable_and_tries_again(tmp_path: Path, monkeypatch):
    import duckdb
    path = tmp_path / "w.duckdb"
    old_database(path)

    def full(self, target, alias):
        raise duckdb.IOException(f'IO Error: Could not write file "{target}": No space left on device')
    with monkeypatch.context() as m:
        m.setattr(Store, "_copy_to", full)
        store = Store(path)
        assert "api_key" not in store.query("SELECT value FROM app_settings")[0][0]   # moved out all the same
        store.close()
    assert file_holds(path, KEY) and not list(tmp_path.glob(".*rewrite*"))
    Store(path).close()                      # room again: the rewrite is done now
    assert not file_holds(path, KEY) and read_secret(path, LLM_API_KEY) == KEY
