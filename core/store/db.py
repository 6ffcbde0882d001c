"""The DuckDB store: one file, one connection per process, a cursor per thread.

DuckDB lets only one process open a database file, and refuses to share one
connection between threads. So a process opens the file once (``Store``),
every thread works through its own cursor, writes run in short transactions
that are retried on DuckDB's optimistic-concurrency conflicts, and the
writing process publishes read-only snapshots that notebooks and commands can
open while it runs (``open_for_analysis``).
"""
from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
import re
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, Optional, TypeVar, Union

import duckdb

from core.store.migrations import migrate

T = TypeVar("T")
PROJECT_ROOT = Path(__file__).resolve().parents[2]
WRITE_RETRIES = 12
KEEP_SNAPSHOTS = 3


def default_db_path() -> Path:
    return Path(os.environ.get("WORKBENCH_DB", PROJECT_ROOT / "data" / "workbench.duckdb"))


class StoreError(RuntimeError):
    """A database problem described in one sentence with what to do."""


class DatabaseBusy(StoreError):
    """Another process holds the database file."""


_LOCK_PID = re.compile(r"PID (\d+)")


def _process_name(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return "unknown program"
    parts = [p for p in raw.decode("utf-8", "replace").split("\x00") if p]
    if not parts:
        return "unknown program"
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


def _is_lock_error(exc: Exception) -> bool:
    text = str(exc)
    return "Could not set lock" in text or "Conflicting lock" in text


def _rollback(cur: duckdb.DuckDBPyConnection) -> None:
    try:
        cur.execute("ROLLBACK")
    except duckdb.Error:
        pass  # the failed transaction is already closed


def _is_conflict(exc: Exception) -> bool:
    return isinstance(exc, duckdb.TransactionException) or "Conflict on" in str(exc)


def connect(path: Union[str, Path], read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open a DuckDB file, turning a lock conflict into DatabaseBusy."""
    path = Path(path)
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    elif not path.exists():
        raise StoreError(f"database {path} does not exist; create it with `workbench init --db {path}`")
    try:
        return duckdb.connect(str(path), read_only=read_only)
    except duckdb.IOException as exc:
        if _is_lock_error(exc):
            raise DatabaseBusy(busy_message(path, exc)) from None
        raise StoreError(f"cannot open database {path}: {exc}") from None
    except duckdb.Error as exc:
        raise StoreError(f"cannot open database {path}: {exc}") from None


@dataclasses.dataclass
class _Transaction:
    failed: bool = False


class Store:
    """The process's handle on the database file."""

    def __init__(self, path: Union[str, Path, None] = None, read_only: bool = False, run_migrations: bool = True):
        self.path = Path(path) if path is not None else default_db_path()
        self.read_only = read_only
        self._conn = connect(self.path, read_only)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._writes = 0
        self._snapshot_writes = -1
        self._snapshot_thread: Optional[threading.Thread] = None
        self._stop = threading.Event()
        self._single_threaded = 0           # blocks inside single_threaded(), and the setting they replaced
        self._threads_before = 0
        if run_migrations and not read_only:
            migrate(self.cursor())

    # ------------------------------------------------------------------
    def cursor(self) -> duckdb.DuckDBPyConnection:
        """This thread's cursor (DuckDB connections must not be shared by threads)."""
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            cur = self._new_cursor()
            self._local.cursor = cur
        return cur

    def query(self, sql: str, params: Optional[list] = None) -> list[tuple]:
        return self.cursor().execute(sql, params or []).fetchall()

    def query_df(self, sql: str, params: Optional[list] = None):
        """A query's rows as a pandas DataFrame, through Arrow (column-wise: a million rows in well under a second)."""
        return self.cursor().sql(sql, params=params or None).to_arrow_table().to_pandas()

    def write(self, fn: Callable[[duckdb.DuckDBPyConnection], T], retries: int = WRITE_RETRIES) -> T:
        """Run ``fn(cursor)`` in a transaction, retrying on write conflicts."""
        if self.read_only:
            raise StoreError(f"database {self.path} was opened read-only; writes are not possible")
        outer = getattr(self._local, "transaction", None)
        if outer is not None:
            try:
                return fn(self.cursor())
            except BaseException:
                outer.failed = True  # part of fn may have been applied and cannot be undone alone
                raise
        cur = self.cursor()
        delay = 0.002
        for attempt in range(retries + 1):
            cur.execute("BEGIN TRANSACTION")
            try:
                result = fn(cur)
                cur.execute("COMMIT")
                self._writes += 1
                return result
            except duckdb.Error as exc:
                _rollback(cur)
                if _is_conflict(exc) and attempt < retries:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.2)
                    continue
                raise
            except BaseException:
                _rollback(cur)
                raise
        raise StoreError("write kept conflicting with other writers")  # pragma: no cover - loop always returns or raises

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Every ``write`` this thread makes inside the block joins one transaction: all kept, or none.

        For bulk work such as building the demo class: one commit instead of one
        per write, and nothing of it is seen by other threads, or left in the
        file after a crash, until the block ends. A write failing inside the
        block fails the whole block (DuckDB cannot undo part of a transaction,
        nor retry a conflict from inside one). Nested blocks join the outer one.
        """
        if self.read_only or getattr(self._local, "transaction", None) is not None:
            yield  # read-only: a write inside says so itself; nested: part of the outer transaction
            return
        cur = self.cursor()
        cur.execute("BEGIN TRANSACTION")
        state = _Transaction()
        self._local.transaction = state
        try:
            yield
            if state.failed:
                raise StoreError("a write inside the transaction failed, so none of it was kept")
            cur.execute("COMMIT")
        except BaseException:
            _rollback(cur)
            raise
        finally:
            self._local.transaction = None
        self._writes += 1

    @contextlib.contextmanager
    def single_threaded(self) -> Iterator[None]:
        """DuckDB without its worker threads while the block runs (a database-wide setting: every thread's queries).

        Thousands of one-row statements in a row, as building the demo class
        makes, run about a quarter faster on the calling thread alone: waking
        the workers costs more than they give on so little data. Big scans
        elsewhere meanwhile run on one core for those seconds.
        """
        cur = self.cursor()
        with self._lock:
            if not self._single_threaded:
                self._threads_before = int(cur.execute("SELECT current_setting('threads')").fetchall()[0][0])
                cur.execute("SET threads = 1")
            self._single_threaded += 1
        try:
            yield
        finally:
            with self._lock:
                self._single_threaded -= 1
                if not self._single_threaded:
                    cur.execute(f"SET threads = {self._threads_before}")

    @property
    def writes(self) -> int:
        return self._writes

    # ------------------------------------------------------------------
    def snapshot_dir(self) -> Path:
        return self.path.parent / "snapshots"

    def publish_snapshot(self) -> Path:
        """Copy the database to a read-only snapshot file others may open."""
        folder = self.snapshot_dir()
        folder.mkdir(parents=True, exist_ok=True)
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        target = folder / f"{self.path.stem}-{stamp}.duckdb"
        tmp = folder / f".{target.name}.tmp"
        if tmp.exists():
            tmp.unlink()
        cur = self._new_cursor()
        try:
            dbname = cur.execute("SELECT current_database()").fetchall()[0][0]
            cur.execute(f"ATTACH '{_sql_text(tmp)}' AS snapshot_target")
            try:
                cur.execute(f'COPY FROM DATABASE "{dbname}" TO snapshot_target')
            finally:
                cur.execute("DETACH snapshot_target")
        finally:
            cur.close()
        wal = Path(str(tmp) + ".wal")
        if wal.exists():  # nothing should remain after DETACH, but never publish half a snapshot
            raise StoreError(f"snapshot {tmp} was not checkpointed; try again")
        os.replace(tmp, target)
        self._snapshot_writes = self._writes
        for old in sorted(folder.glob(f"{self.path.stem}-*.duckdb"))[:-KEEP_SNAPSHOTS]:
            try:
                old.unlink()
            except OSError:
                pass  # a reader still has it open on a system that refuses; removed next time
        return target

    def start_periodic_snapshots(self, interval_s: float = 300.0) -> None:
        """Publish a snapshot every ``interval_s`` seconds when something was written."""
        if self._snapshot_thread is not None:
            return

        def run() -> None:
            while not self._stop.wait(interval_s):
                if self._writes != self._snapshot_writes:
                    try:
                        self.publish_snapshot()
                    except (duckdb.Error, OSError, StoreError) as exc:
                        self.last_snapshot_error = str(exc)

        self.last_snapshot_error: Optional[str] = None
        self._snapshot_thread = threading.Thread(target=run, name="snapshots", daemon=True)
        self._snapshot_thread.start()

    def close(self) -> None:
        """Stop the snapshot thread and close the connection, letting go of it and every thread's cursor.

        Dropping the references matters at exit: DuckDB objects still alive when
        the interpreter shuts down are reported as leaks, one line each.
        """
        self._stop.set()
        if self._snapshot_thread is not None and self._snapshot_thread is not threading.current_thread():
            self._snapshot_thread.join(timeout=5)
        conn, self._conn = self._conn, None
        if conn is not None:
            try:
                conn.close()
            except duckdb.Error:
                pass  # already closed
        self._local = threading.local()

    def _new_cursor(self) -> duckdb.DuckDBPyConnection:
        with self._lock:
            if self._conn is None:
                raise StoreError(f"database {self.path} is closed; open it again")
            return self._conn.cursor()


def utc_now() -> dt.datetime:
    """Now in UTC, naive, as the tables store times."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def dict_rows(cur: duckdb.DuckDBPyConnection) -> list[dict]:
    """The rows of the cursor's last query as dicts by column name."""
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def _sql_text(path: Path) -> str:
    return str(path).replace("'", "''")


def newest_snapshot(path: Union[str, Path]) -> Optional[Path]:
    path = Path(path)
    snaps = sorted((path.parent / "snapshots").glob(f"{path.stem}-*.duckdb"))
    return snaps[-1] if snaps else None


@dataclasses.dataclass
class AnalysisHandle:
    """A read-only connection for analysis, and where it came from."""

    connection: duckdb.DuckDBPyConnection
    source: str                 # "live" or "snapshot"
    path: Path
    age_seconds: float

    @property
    def description(self) -> str:
        if self.source == "live":
            return f"opened the live database {self.path} read-only"
        minutes = self.age_seconds / 60
        return (f"the live database is in use, so opened snapshot {self.path.name}, "
                f"taken {minutes:.1f} minutes ago")

    def sql(self, query: str, params: Optional[list] = None):
        return self.connection.execute(query, params or []).df()

    def store(self) -> "Store":
        """A read-only Store on the same file, for core's query functions (core.store.analytics, ...)."""
        return Store(self.path, read_only=True)

    def close(self) -> None:
        self.connection.close()


def open_for_analysis(path: Union[str, Path, None] = None) -> AnalysisHandle:
    """Open data for reading: the live file when free, else the newest snapshot."""
    path = Path(path) if path is not None else default_db_path()
    try:
        return AnalysisHandle(connect(path, read_only=True), "live", path, 0.0)
    except DatabaseBusy:
        snap = newest_snapshot(path)
        if snap is None:
            raise  # the busy message already says that no snapshot exists and how to get one
        age = max(0.0, time.time() - snap.stat().st_mtime)
        return AnalysisHandle(connect(snap, read_only=True), "snapshot", snap, age)
