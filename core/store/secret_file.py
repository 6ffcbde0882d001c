"""Secrets kept beside the database file, never inside it: the LLM API key saved on the Settings page and
the key that signs sign-in tokens.

The database file is copied into snapshots, opened from notebooks and backed
up with the data, so a secret inside it would travel with every copy. The
secrets file is ``<database name>.secrets.json`` in the database's folder (or
``$WORKBENCH_SECRETS_FILE``), readable by its owner only; the workbench never
copies it. Earlier versions kept the LLM API key in the ``app_settings`` table:
``move_secrets_out`` moves it here when a database is opened, and removes any
key a model server echoed into ``llm_runs``.
"""
from __future__ import annotations

import json
import os
import secrets as _random
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Union

import duckdb

from core.store.db import StoreError
from core.store.dialect import dialect_of
from core.store.llm_runs import KEY_PATTERN, REDACTED

if TYPE_CHECKING:
    from core.store.db import Store

SECRETS_ENV = "WORKBENCH_SECRETS_FILE"
LLM_API_KEY = "llm_api_key"
SIGNING_KEY = "signing_key"
# Secrets that earlier versions stored inside app_settings records: (setting, field) -> name in the secrets file.
SECRETS_IN_SETTINGS = {("llm", "api_key"): LLM_API_KEY}
CHECK = "secrets moved out of the database file"

_lock = threading.RLock()


def secrets_path(db_path: Union[str, Path]) -> Path:
    """Where the secrets of the database at ``db_path`` are kept."""
    configured = os.environ.get(SECRETS_ENV)
    return Path(configured) if configured else beside(db_path)


def beside(db_path: Union[str, Path]) -> Path:
    """The secrets file beside the database at ``db_path`` (where they are kept unless $WORKBENCH_SECRETS_FILE
    names another)."""
    db_path = Path(db_path)
    return db_path.with_name(f"{db_path.stem}.secrets.json")


def read_secrets(db_path: Union[str, Path]) -> dict[str, str]:
    path = secrets_path(db_path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except OSError as exc:
        raise StoreError(f"cannot read the secrets file {path} ({exc}); check its permissions",
                         "The server cannot read its secrets file. Ask whoever runs the workbench to check its "
                         "permissions.") from None
    try:
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("not an object")
    except ValueError:
        raise StoreError(f"the secrets file {path} is not a JSON object; fix it, or remove it (everyone signs in "
                         f"again and a key saved on the Settings page must be entered again)",
                         "The server's secrets file is damaged. Ask whoever runs the workbench to fix it.") from None
    return {str(k): str(v) for k, v in data.items() if v is not None}


def read_secret(db_path: Union[str, Path], name: str) -> Optional[str]:
    return read_secrets(db_path).get(name) or None


def write_secret(db_path: Union[str, Path], name: str, value: Optional[str]) -> None:
    """Set (or with None, remove) one secret; the file is replaced whole and readable by its owner only."""
    path = secrets_path(db_path)
    with _lock:
        data = read_secrets(db_path)
        if value is None:
            if name not in data:
                return
            data.pop(name)
        else:
            data[name] = value
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(data, out, indent=2, sort_keys=True)
                out.write("\n")
                out.flush()
                os.fsync(out.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            from core.store.db import storage_error
            raise storage_error(exc, path) from None


def ensure_secret(db_path: Union[str, Path], name: str, nbytes: int = 32) -> str:
    """The named random secret, made on first use."""
    with _lock:
        value = read_secret(db_path, name)
        if not value:
            value = _random.token_urlsafe(nbytes)
            write_secret(db_path, name, value)
        return value


# ----------------------------------------------------------------------
# Databases written by earlier versions


def move_secrets_out(store: "Store") -> bool:
    """Move secrets stored in the database to the secrets file and scrub echoed keys from llm_runs.

    Runs on every writable open (one small query once nothing is left). True
    when the file still has to be rewritten: the values are gone from the
    tables, but DuckDB leaves what was deleted in its free blocks until then.
    """
    cur = store.cursor()
    moved = []
    for (setting, field), name in SECRETS_IN_SETTINGS.items():
        rows = cur.execute("SELECT value FROM app_settings WHERE key = ?", [setting]).fetchall()
        record = json.loads(rows[0][0]) if rows else None
        if not isinstance(record, dict) or field not in record:
            continue
        secret = record.pop(field)
        if secret:
            write_secret(store.path, name, str(secret))  # outside first, so a failure below loses nothing
        moved.append(name)

        def run(c: duckdb.DuckDBPyConnection, setting=setting, record=record, secret=secret) -> None:
            c.execute("UPDATE app_settings SET value = ? WHERE key = ?", [json.dumps(record), setting])
            if secret and len(str(secret)) >= 4:
                c.execute("UPDATE llm_runs SET error = replace(error, ?, ?) WHERE strpos(error, ?) > 0",
                          [str(secret), REDACTED, str(secret)])
        store.write(run)
    done = cur.execute("SELECT result FROM data_checks WHERE name = ?", [CHECK]).fetchall()
    result = json.loads(done[0][0]) if done and done[0][0] else None
    if result is None:
        found = dialect_of(store).regex_found("error")
        scrubbed = store.write(lambda c: len(c.execute(
            f"UPDATE llm_runs SET error = regexp_replace(error, ?, ?, 'g') WHERE {found} "
            "RETURNING id", [KEY_PATTERN, REDACTED, KEY_PATTERN]).fetchall()))
        result = {"moved": moved, "scrubbed_runs": scrubbed, "rewritten": not (moved or scrubbed)}
        _record(store, result)
    elif moved:
        result = {**result, "moved": sorted(set(result.get("moved", [])) | set(moved)), "rewritten": False}
        _record(store, result)
    return not result.get("rewritten", True)


def file_rewritten(store: "Store") -> None:
    """The database file has been rewritten since the secrets left it."""
    rows = store.cursor().execute("SELECT result FROM data_checks WHERE name = ?", [CHECK]).fetchall()
    result = json.loads(rows[0][0]) if rows and rows[0][0] else {}
    _record(store, {**result, "rewritten": True})


def _record(store: "Store", result: dict) -> None:
    store.write(lambda c: c.execute(
        "INSERT INTO data_checks (name, result) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET "
        "result = excluded.result, done_at = now()", [CHECK, json.dumps(result)]))
