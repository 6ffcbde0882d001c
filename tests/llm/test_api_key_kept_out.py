"""The LLM API key never reaches the database, its snapshots, llm_runs or an error message."""
from __future__ import annotations

import json

import pytest

from core.llm import LLMClient, LLMError, LLMSettings, clear_settings, llm_status, save_settings
from core.llm.settings import saved_key
from core.store.secret_file import LLM_API_KEY, read_secret, secrets_path
from tests.llm.fake_openai import error

KEY = "sk-page-0123456789abcdefghijklmnop"


def everything_stored(store) -> bytes:
    """Every row of the tables that could hold text, and for a DuckDB file the file itself and a fresh snapshot."""
    rows = json.dumps([store.query(f"SELECT * FROM {t}") for t in ("app_settings", "llm_runs", "data_checks")],
                      default=str).encode()
    if store.backend == "postgresql":
        return rows
    snap = store.publish_snapshot()
    store.cursor().execute("CHECKPOINT")
    return store.path.read_bytes() + snap.read_bytes() + rows


def test_a_key_saved_on_the_settings_page_is_kept_beside_the_database_not_in_it(store):
    save_settings(store, {"api_key": KEY, "base_url": "https://example.test/v1", "model": "m"}, "Teacher")
    status = llm_status({}, {}, store)
    assert status.on and status.settings.api_key == KEY and saved_key(store)
    assert KEY not in status.message() and KEY not in repr(status.settings)
    assert read_secret(store.path, LLM_API_KEY) == KEY and secrets_path(store.path).parent == store.path.parent
    assert KEY.encode() not in everything_stored(store)
    assert clear_settings(store) and not llm_status({}, {}, store).on
    assert read_secret(store.path, LLM_API_KEY) is None and not saved_key(store)


def test_a_local_server_without_a_key_stores_no_placeholder(store):
    save_settings(store, {"api_key": "", "base_url": "http://127.0.0.1:9/v1", "model": "llama3.1"})
    assert read_secret(store.path, LLM_API_KEY) is None and llm_status({}, {}, store).settings.api_key == "unused"


@pytest.mark.parametrize("echo", [
    f"Incorrect API key provided: {KEY}. You can find your API key at https://example.test/keys.",
    f"invalid credentials for key '{KEY[-20:]}' ({KEY})",
])
def test_a_key_the_server_echoes_is_kept_out_of_llm_runs_and_the_message(fake, store, echo):
    fake.push(error(401, echo, "invalid_request_error"))
    client = LLMClient(LLMSettings(api_key=KEY, base_url=fake.base_url, model="m", max_retries=0), store)
    try:
        with pytest.raises(LLMError) as info:
            client.check()
    finally:
        client.close()
    assert "HTTP 401" in str(info.value) and KEY not in str(info.value) and "[redacted]" in str(info.value)
    assert fake.requests[0]["headers"]["authorization"] == f"Bearer {KEY}"   # it was sent, as it must be
    (error_text,) = [r[0] for r in store.query("SELECT error FROM llm_runs")]
    assert KEY not in error_text and "[redacted]" in error_text
    assert KEY.encode() not in everything_stored(store)
