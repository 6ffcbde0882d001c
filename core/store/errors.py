"""What went wrong with the database, in one sentence with what to do: the store's errors and their kinds.

DuckDB's and the system's errors are read by their text and errno;
PostgreSQL's by their SQLSTATE. ``str(exc)`` is for whoever runs the
workbench; ``exc.public`` for a visitor to the app.
"""
from __future__ import annotations

import errno
import re
import time
from pathlib import Path
from typing import Optional, Union

import duckdb

class StoreError(RuntimeError):
    """A database problem described in one sentence with what to do.

    ``str(exc)`` is for whoever runs the workbench (the command line, the
    server's log) and may name files; ``exc.public`` is the sentence a visitor
    to the app may see: what happened and what to do, with no server path.
    """

    public = ("The database could not be used just now. Try again in a moment; if it keeps happening, "
              "tell whoever runs the workbench.")

    def __init__(self, message: str, public: Optional[str] = None):
        super().__init__(message)
        if public:
            self.public = public


class DatabaseBusy(StoreError):
    """Another process holds the database file."""


class DatabaseDamaged(StoreError):
    """The database file cannot be read: damaged, not a DuckDB file, or written by another DuckDB version."""


class DiskFull(StoreError):
    """The disk holding the database is full: nothing of the change was saved."""


class EngineError(StoreError):
    """An error the PostgreSQL server reported, with its SQLSTATE and the password never in the text."""

    def __init__(self, message: str, public: Optional[str] = None, sqlstate: str = ""):
        super().__init__(message, public)
        self.sqlstate = sqlstate


class ConstraintViolation(EngineError):
    """A key or constraint refused the change (PostgreSQL's integrity errors)."""


# SQLSTATEs of the PostgreSQL server by storage problem (classes 08 and 57P are connections lost).
_SQLSTATE_PROBLEMS = {"40001": "conflict", "40P01": "conflict", "53100": "disk_full", "28000": "denied",
                      "28P01": "denied", "42501": "denied", "57P01": "unreachable", "57P02": "unreachable",
                      "57P03": "unreachable"}


# What a storage failure is, from DuckDB's or the system's message (checked in this order).
_PROBLEMS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("disk_full", ("no space left on device", "not enough space on the disk", "disk quota exceeded",
                   "disk is full")),
    ("busy", ("could not set lock", "conflicting lock")),
    ("version", ("version number", "newer version of duckdb", "older version of duckdb")),
    ("damaged", ("not a valid duckdb database file", "corrupt database file", "checksum",
                 "serialization error", "failed to deserialize")),
    ("invalidated", ("database has been invalidated",)),
    ("denied", ("permission denied", "read-only file system", "access is denied")),
)
_ERRNO_PROBLEMS = {errno.ENOSPC: "disk_full", errno.EDQUOT: "disk_full", errno.EACCES: "denied",
                   errno.EPERM: "denied", errno.EROFS: "denied"}
STORAGE_PROBLEMS = ("disk_full", "busy", "version", "damaged", "invalidated", "denied", "unreachable")
# What the engines raise, for callers outside the store (which never import them).
ENGINE_ERRORS = (duckdb.Error, EngineError)
CONSTRAINT_ERRORS = (duckdb.ConstraintException, ConstraintViolation)


def problem_kind(exc: BaseException) -> Optional[str]:
    """What kind of storage failure ``exc`` is: one of STORAGE_PROBLEMS, "conflict" (another writer got
    there first: worth retrying) or None (not a storage failure: a bug or a constraint)."""
    if isinstance(exc, DatabaseBusy):
        return "busy"
    if isinstance(exc, DiskFull):
        return "disk_full"
    if isinstance(exc, OSError) and exc.errno in _ERRNO_PROBLEMS:
        return _ERRNO_PROBLEMS[exc.errno]
    if isinstance(exc, EngineError):
        state = exc.sqlstate or ""
        return _SQLSTATE_PROBLEMS.get(state) or ("unreachable" if state.startswith("08") else None)
    text = str(exc).lower()
    for kind, needles in _PROBLEMS:
        if any(n in text for n in needles):
            return kind
    if isinstance(exc, duckdb.TransactionException) or "conflict on" in text:
        return "conflict"
    return None


def _one_line(exc: BaseException, limit: int = 240) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


def storage_error(exc: BaseException, path: Union[str, Path, None]) -> StoreError:
    """``exc`` (a DuckDB or system error on the database at ``path``) as a StoreError saying what to do."""
    if isinstance(exc, StoreError):
        return exc
    kind = problem_kind(exc)
    where = f"database {_printable(path)}" if path is not None else "the database"
    detail = _one_line(exc)
    if kind == "disk_full":
        return DiskFull(f"the disk holding {where} is full ({detail}); nothing of this change was saved: "
                        f"free some space, then try again",
                        "The server's disk is full, so this was not saved. Ask whoever runs the workbench to free "
                        "some space, then try again.")
    if kind == "busy":
        return DatabaseBusy(busy_message(path, exc) if path is not None else f"{where} is open in another program",
                            busy_public(exc))
    if kind in ("damaged", "version"):
        snap = newest_snapshot(path) if path is not None else None
        restore = (f"put a backup or its newest snapshot ({snap}) in its place" if snap is not None
                   else "put a backup in its place")
        why = "was written by another DuckDB version" if kind == "version" else "is damaged or not a DuckDB file"
        return DatabaseDamaged(f"{where} {why} ({detail}); {restore}, or pass --db with another file",
                               "The database file is damaged and cannot be read. Ask whoever runs the workbench "
                               "to restore it from a backup, then reload this page.")
    if kind == "unreachable":
        return StoreError(f"{where}: the connection to the server was lost ({detail}); check that the server "
                          f"is running, then try again",
                          "The database server could not be reached. Try again in a moment; if it keeps "
                          "happening, tell whoever runs the workbench.")
    if kind == "invalidated":
        return StoreError(f"{where} stopped after an earlier error ({detail}); fix that error (often a full disk), "
                          f"then open it again",
                          "The database stopped after an earlier error (often a full disk). Ask whoever runs the "
                          "workbench to fix it, then reload this page.")
    if kind == "denied":
        return StoreError(f"{where} cannot be written ({detail}); check the file's permissions and that its disk "
                          f"is writable",
                          "The server may not write to the database file. Ask whoever runs the workbench to check "
                          "its permissions, then reload this page.")
    return StoreError(f"{where}: {detail}")


def _printable(path: Union[str, Path]) -> str:
    """A database's name for a message: a URL's password is never shown."""
    text = str(path)
    if text.lower().startswith(("postgresql://", "postgres://")):
        from core.store.db import masked_url
        return masked_url(text)
    return text


def public_message(exc: BaseException) -> Optional[str]:
    """The one sentence a visitor may see for a storage failure; None when ``exc`` is not one."""
    if isinstance(exc, StoreError):
        return exc.public
    if isinstance(exc, ENGINE_ERRORS) or (isinstance(exc, OSError) and exc.errno in _ERRNO_PROBLEMS):
        return storage_error(exc, None).public
    return None


_LOCK_PID = re.compile(r"PID (\d+)")


def _process_name(pid: int, program_only: bool = False) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "unknown program"
    parts = [p for p in raw.decode("utf-8", "replace").split("\x00") if p]
    if not parts:
        return "unknown program"
    if program_only:  # its arguments may name files on the server
        return Path(parts[0]).name[:40]
    text = " ".join([Path(parts[0]).name, *parts[1:4]])
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:57] + "..."


def _age(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} seconds"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} minutes"
    if seconds < 36 * 3600:
        return f"{seconds / 3600:.1f} hours"
    return f"{seconds / 86400:.1f} days"


def busy_message(path: Union[str, Path], error: Exception) -> str:
    """One line: who holds the file, the newest snapshot to read instead, and how to get a fresher one."""
    match = _LOCK_PID.search(str(error))
    who = f"process {match.group(1)} ({_process_name(int(match.group(1)))})" if match else "another program"
    snap = newest_snapshot(path)
    try:
        age = max(0.0, time.time() - snap.stat().st_mtime) if snap is not None else None
    except OSError:  # removed by the holder's cleanup since the listing
        age = None
    if snap is None or age is None:
        latest = "no snapshot of it has been published yet"
        fresh = "publishes one"
    else:
        latest = f"its newest snapshot is {snap}, taken {_age(age)} ago (core.store.open_for_analysis() reads it)"
        fresh = "refreshes it"
    # DuckDB refuses a second process even read-only, hence the pointer to the snapshot.
    return (f"database {path} is open in {who}, and DuckDB lets only one program open it; {latest}; "
            f"the running app {fresh} every five minutes after changes, or stop it and run "
            f"`workbench snapshot --db {path}` for a fresh one, or pass --db with another file")


def busy_public(error: Exception) -> str:
    """The visitor's sentence for a database held by another program (no server path)."""
    match = _LOCK_PID.search(str(error))
    who = (f"process {match.group(1)}, {_process_name(int(match.group(1)), program_only=True)}" if match
           else "perhaps a notebook")
    return (f"The database is in use by another program ({who}), and only one program can open it at a time. "
            f"Close that program (a notebook can read the newest snapshot instead), then reload this page.")


def newest_snapshot(path: Union[str, Path]) -> Optional[Path]:
    path = Path(path)
    snaps = sorted((path.parent / "snapshots").glob(f"{path.stem}-*.duckdb"))
    return snaps[-1] if snaps else None
