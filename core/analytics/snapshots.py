"""Snapshots for analysts: publishing one (when the app starts, or when a teacher asks) and saying when the last was made.

DuckDB lets only one program open the database file, so while the app runs,
notebooks and commands read its newest snapshot (``core.store.open_for_analysis``).
The app publishes one when it starts, in the background so that the first page
does not wait for the copy, then periodically after changes; the Settings page
publishes one on demand. With PostgreSQL there is nothing to publish: notebooks
read the live database directly.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import logging
import threading
import time
import weakref
from pathlib import Path
from typing import Optional

from core.store import Store, StoreError, newest_snapshot
from core.store.db import storage_error

POSTGRES_NOTE = ("This database is PostgreSQL: notebooks and commands read the live database directly "
                 "(set WORKBENCH_DB to its URL), so there are no snapshots to publish.")
_STAMP = "%Y%m%dT%H%M%S%fZ"       # how Store.publish_snapshot names a snapshot: <database>-<stamp>.duckdb
_log = logging.getLogger("workbench")


@dataclasses.dataclass
class _Publishing:
    """What this process knows of a store's snapshots: the start's thread and its outcome."""

    start: Optional[threading.Thread] = None
    start_error: Optional[str] = None     # the visitor's sentence when the snapshot at start failed


_STATE: "weakref.WeakKeyDictionary[Store, _Publishing]" = weakref.WeakKeyDictionary()
_STATE_LOCK = threading.Lock()


def _state(store: Store) -> _Publishing:
    with _STATE_LOCK:
        state = _STATE.get(store)
        if state is None:
            state = _STATE[store] = _Publishing()
        return state


def publishes_snapshots(store: Store) -> bool:
    """True for a DuckDB file (snapshots are how others read it); False for PostgreSQL (read live)."""
    return getattr(store, "backend", "duckdb") == "duckdb"


@dataclasses.dataclass(frozen=True)
class SnapshotStatus:
    """The newest snapshot of a database: its file name (no folders) and when it was taken."""

    name: Optional[str]
    taken_at: Optional[dt.datetime]       # UTC, timezone-aware
    start_error: Optional[str] = None     # why the snapshot at start failed, for a visitor

    def age_seconds(self, now: Optional[dt.datetime] = None) -> Optional[float]:
        if self.taken_at is None:
            return None
        now = now or dt.datetime.now(dt.timezone.utc)
        return max(0.0, (now - self.taken_at).total_seconds())

    def sentence(self, now: Optional[dt.datetime] = None) -> str:
        """"Last snapshot: 14:05 UTC, 3 minutes ago (workbench-20250301T140512123456Z.duckdb)." or that none exists."""
        if self.name is None or self.taken_at is None:
            return "No snapshot has been published yet."
        now = now or dt.datetime.now(dt.timezone.utc)
        when = self.taken_at.strftime("%H:%M UTC")
        if self.taken_at.date() != now.date():
            when = self.taken_at.strftime("%Y-%m-%d %H:%M UTC")
        return f"Last snapshot: {when}, {ago(self.age_seconds(now) or 0.0)} ({self.name})."


def ago(seconds: float) -> str:
    """A duration in the past as a person says it: "just now", "3 minutes ago", "2 hours ago"."""
    if seconds < 45:
        return "just now"
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size * 0.95 or unit == "minute":
            count = max(1, round(seconds / size))
            return f"{count} {unit}{'' if count == 1 else 's'} ago"
    raise AssertionError("unreachable")


def taken_at(snapshot: Path) -> Optional[dt.datetime]:
    """When a snapshot was taken: the time in its name, else its file's modification time; None if it is gone."""
    stamp = snapshot.stem.rsplit("-", 1)[-1]
    try:
        return dt.datetime.strptime(stamp, _STAMP).replace(tzinfo=dt.timezone.utc)
    except ValueError:
        pass  # not named by publish_snapshot (copied in by hand): its file's time says when
    try:
        return dt.datetime.fromtimestamp(snapshot.stat().st_mtime, dt.timezone.utc)
    except OSError:
        return None   # removed by the rotation since it was listed


def last_snapshot(store: Store) -> SnapshotStatus:
    """The newest published snapshot of ``store``'s database file (none for PostgreSQL)."""
    if not publishes_snapshots(store):
        return SnapshotStatus(None, None)
    start_error = _state(store).start_error
    snap = newest_snapshot(store.path)
    if snap is None:
        return SnapshotStatus(None, None, start_error)
    return SnapshotStatus(snap.name, taken_at(snap), start_error)


def publish_now(store: Store) -> SnapshotStatus:
    """Publish a snapshot of ``store``'s database now and return it.

    The store publishes one copy at a time, so this waits for one under way
    (the one at start, say). A failure raises StoreError, whose ``public`` is
    one sentence for the teacher.
    """
    if not publishes_snapshots(store):
        raise StoreError("snapshots are published only for a DuckDB file; PostgreSQL is read live",
                         "This database has no snapshots: notebooks read it directly.")
    try:
        path = store.publish_snapshot()
    except StoreError as exc:
        _log.error("snapshot of %s failed: %s", store.path, exc)
        raise
    except OSError as exc:   # the snapshots folder could not be made or the copy not moved into place
        error = storage_error(exc, store.path)
        if type(error) is StoreError:   # not a full disk or a permission: say where it failed
            error = StoreError(f"no snapshot of database {store.path} was published ({exc}); check that "
                               f"{store.snapshot_dir()} is a folder the workbench may write",
                               "The snapshot could not be written beside the database. Ask whoever runs the "
                               "workbench to check its snapshots folder, then try again.")
        _log.error("%s", error)
        raise error from None
    _state(store).start_error = None
    return SnapshotStatus(path.name, taken_at(path))


def publish_at_start(store: Store) -> Optional[threading.Thread]:
    """Publish a snapshot in the background as the app starts; None when the database has no snapshots.

    Publishing at every start (rather than only when the file changed since the
    newest snapshot) keeps it simple: the running app's writes since its last
    periodic snapshot are in no snapshot yet, and the copy runs beside the
    first page. A failure is logged for whoever runs the workbench and shown
    on the Settings page as one sentence.
    """
    if not publishes_snapshots(store):
        return None
    state = _state(store)

    def run() -> None:
        started = time.perf_counter()
        try:
            status = publish_now(store)
        except StoreError as exc:
            state.start_error = exc.public
            return
        _log.info("published snapshot %s at start in %.2f s", status.name, time.perf_counter() - started)

    state.start = threading.Thread(target=run, name="snapshot-at-start", daemon=True)
    state.start.start()
    return state.start


def wait_for_start(store: Store, timeout_s: float = 60.0) -> None:
    """Let the snapshot at start finish (before the database is closed: a copy must not lose its source)."""
    thread = _state(store).start
    if thread is not None and thread is not threading.current_thread():
        thread.join(timeout=timeout_s)
