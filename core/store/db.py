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
import threading
import time
from pathlib import Path
from typing import Callable, Iterator, Optional, TypeVar, Union

import duckdb

from core.store.dialect import DUCKDB
from core.store.errors import (CONSTRAINT_ERRORS, ENGINE_ERRORS, STORAGE_PROBLEMS, ConstraintViolation,  # noqa: F401
                               DatabaseBusy, DatabaseDamaged, DiskFull, EngineError, StoreError, busy_message,
                               busy_public, newest_snapshot, problem_kind, public_message, storage_error, _one_line)
from core.store.migrations import migrate

T = TypeVar("T")
PROJECT_ROOT = Path(__file__).resolve().parents[2]
WRITE_RETRIES = 12
KEEP_SNAPSHOTS = 3


DATABASE_URL_SCHEMES = ("postgresql://", "postgres://")


def is_database_url(target: object) -> bool:
    """True for a PostgreSQL connection URL (``postgresql://USER:PASS@HOST:PORT/DB``), False for a file path."""
    return isinstance(target, str) and target.strip().lower().startswith(DATABASE_URL_SCHEMES)


def db_target(value: Union[str, Path, None]) -> Union[str, Path]:
    """What ``--db`` or ``WORKBENCH_DB`` names: a PostgreSQL URL (kept as text) or a DuckDB file path."""
    if value is None:
        value = os.environ.get("WORKBENCH_DB") or PROJECT_ROOT / "data" / "workbench.duckdb"
    if is_database_url(value):
        return str(value).strip()
    return Path(value)


def default_db_path() -> Union[str, Path]:
    return db_target(None)


def masked_url(url: str) -> str:
    """The URL with its password replaced by ``***`` (safe to print, log and show)."""
    import urllib.parse
    parts = urllib.parse.urlsplit(url)
    netloc = parts.netloc
    if "@" in netloc:
        userinfo, host = netloc.rsplit("@", 1)
        if ":" in userinfo:
            userinfo = userinfo.split(":", 1)[0] + ":***"
        netloc = f"{userinfo}@{host}"
    query = "&".join("password=***" if q.lower().startswith("password=") else q
                     for q in parts.query.split("&")) if parts.query else ""
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))


def _rollback(cur: duckdb.DuckDBPyConnection) -> None:
    try:
        cur.execute("ROLLBACK")
    except duckdb.Error:
        pass  # the failed transaction is already closed


def connect(path: Union[str, Path], read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open a DuckDB file, turning a lock conflict into DatabaseBusy."""
    path = Path(path)
    if not read_only:
        path.parent.mkdir(parents=True, exist_ok=True)
    elif not path.exists():
        raise StoreError(f"database {path} does not exist; create it with `workbench init --db {path}`")
    try:
        return duckdb.connect(str(path), read_only=read_only)
    except (duckdb.Error, OSError) as exc:
        error = storage_error(exc, path)
        if type(error) is StoreError and problem_kind(exc) is None:
            error = StoreError(f"cannot open database {path}: {_one_line(exc)}")
        raise error from None


@dataclasses.dataclass
class _Transaction:
    failed: bool = False


class Store:
    """The process's handle on the database: a DuckDB file, or a PostgreSQL server given by its URL."""

    backend = "duckdb"
    dialect = DUCKDB

    def __new__(cls, path: Union[str, Path, None] = None, *args, **kwargs):
        if cls is Store and is_database_url(db_target(path)):
            from core.store.postgres import PostgresStore
            return super().__new__(PostgresStore)
        return super().__new__(cls)

    def __init__(self, path: Union[str, Path, None] = None, read_only: bool = False, run_migrations: bool = True):
        self.path = Path(db_target(path))
        self.label = str(self.path)
        self.read_only = read_only
        self._conn = connect(self.path, read_only)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._snapshot_lock = threading.Lock()
        self._writes = 0
        self._snapshot_writes = -1
        self._snapshot_thread: Optional[threading.Thread] = None
        self._stop = threading.Event()
        self._single_threaded = 0           # blocks inside single_threaded(), and the setting they replaced
        self._threads_before = 0
        if run_migrations and not read_only:
            try:
                migrate(self.cursor())
                self._keep_secrets_out()
            except BaseException as exc:
                self.close()  # let go of the file: the process may try again, or another program may take it
                if isinstance(exc, (duckdb.Error, OSError)):
                    raise storage_error(exc, self.path) from None
                raise

    def _keep_secrets_out(self) -> None:
        """Secrets kept in the file by earlier versions (the LLM API key) move to the secrets file beside it.

        When one was found, the file is rewritten (DuckDB leaves deleted values in
        its free blocks) and the snapshots that copied it are removed.
        """
        from core.store.secret_file import file_rewritten, move_secrets_out
        if move_secrets_out(self) and self._rewrite():
            for snap in sorted(self.snapshot_dir().glob(f"{self.path.stem}-*.duckdb")):
                try:
                    snap.unlink()
                except OSError:
                    pass  # a reader holds it on a system that refuses; it is rotated out after three snapshots
            file_rewritten(self)

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
        return self.query_arrow(sql, params).to_pandas()

    def query_arrow(self, sql: str, params: Optional[list] = None):
        """A query's rows as an Arrow table."""
        return self.cursor().sql(sql, params=params or None).to_arrow_table()

    def load_arrow(self, table: str, data) -> int:
        """Append an Arrow table's rows to ``table`` (its columns by name) in one statement; returns the count."""
        name = f"_load_{table}"
        cols = ", ".join(data.column_names)

        def run(cur: duckdb.DuckDBPyConnection) -> int:
            cur.register(name, data)
            try:
                cur.execute(f"INSERT INTO {table} ({cols}) SELECT {cols} FROM {name}")
            finally:
                cur.unregister(name)
            return data.num_rows
        return self.write(run)

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
                kind = problem_kind(exc)   # a full disk comes as a transaction error too, but is no conflict
                if kind == "conflict" and attempt < retries:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.2)
                    continue
                if kind in STORAGE_PROBLEMS:  # a full disk or a damaged file: retrying cannot help
                    raise storage_error(exc, self.path) from None
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
        except duckdb.Error as exc:
            _rollback(cur)
            if problem_kind(exc) in STORAGE_PROBLEMS:
                raise storage_error(exc, self.path) from None
            raise
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

    @contextlib.contextmanager
    def exclusive(self, name: str) -> Iterator[None]:
        """One process at a time in the block: a DuckDB file has one process already."""
        yield

    @property
    def writes(self) -> int:
        return self._writes

    # ------------------------------------------------------------------
    def snapshot_dir(self) -> Path:
        return self.path.parent / "snapshots"

    def publish_snapshot(self) -> Path:
        """Copy the database to a read-only snapshot file others may open (one copy at a time per process)."""
        with self._snapshot_lock:
            return self._publish_snapshot()

    def _publish_snapshot(self) -> Path:
        folder = self.snapshot_dir()
        folder.mkdir(parents=True, exist_ok=True)
        stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y%m%dT%H%M%S%fZ")
        target = folder / f"{self.path.stem}-{stamp}.duckdb"
        tmp = folder / f".{target.name}.tmp"
        if tmp.exists():
            tmp.unlink()
        try:
            self._copy_to(tmp, "snapshot_target")
        except (duckdb.Error, OSError) as exc:
            for leftover in (tmp, Path(str(tmp) + ".wal")):
                leftover.unlink(missing_ok=True)
            raise storage_error(exc, self.path) from None
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

    def _copy_to(self, target: Path, alias: str) -> None:
        """Copy every table of the database into a new DuckDB file (only the rows: no free blocks come along)."""
        cur = self._new_cursor()
        try:
            dbname = cur.execute("SELECT current_database()").fetchall()[0][0]
            cur.execute(f"ATTACH '{_sql_text(target)}' AS {alias}")
            try:
                cur.execute(f'COPY FROM DATABASE "{dbname}" TO {alias}')
            finally:
                cur.execute(f"DETACH {alias}")
        finally:
            cur.close()

    def _rewrite(self) -> bool:
        """Put a fresh copy of the database in place of the file, so that deleted values leave no trace in it.

        Only while opening, before anyone else has a cursor. False when the file
        was left as it was (DuckDB had not checkpointed it).
        """
        tmp = self.path.with_name(f".{self.path.name}.rewrite")
        tmp_wal = Path(str(tmp) + ".wal")
        for leftover in (tmp, tmp_wal):
            leftover.unlink(missing_ok=True)
        try:
            self._copy_to(tmp, "rewrite_target")
        except (duckdb.Error, OSError):
            for leftover in (tmp, tmp_wal):   # no room for the copy, say: the database stays usable, and
                leftover.unlink(missing_ok=True)  # the rewrite is tried again the next time it is opened
            return False
        conn, self._conn = self._conn, None
        cur = getattr(self._local, "cursor", None)
        self._local = threading.local()
        done = False
        try:
            if cur is not None:
                cur.close()
            conn.close()
            done = not (tmp_wal.exists() or Path(str(self.path) + ".wal").exists())
            if done:
                os.replace(tmp, self.path)
        finally:
            if not done:   # not checkpointed: keep the file as it is rather than lose a change
                for leftover in (tmp, tmp_wal):
                    leftover.unlink(missing_ok=True)
            self._conn = connect(self.path)
        return done

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
        for handle in (getattr(self._local, "cursor", None), conn):
            if handle is not None:
                try:
                    handle.close()  # this thread's cursor too: a failed open's traceback may still hold it
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
    """Open data for reading: the live file when free, else the newest snapshot; a PostgreSQL database live."""
    target = db_target(path)
    if is_database_url(target):
        from core.store.postgres import PgAnalysisHandle
        return PgAnalysisHandle(str(target))
    path = Path(target)
    try:
        return AnalysisHandle(connect(path, read_only=True), "live", path, 0.0)
    except DatabaseBusy:
        snap = newest_snapshot(path)
        if snap is None:
            raise  # the busy message already says that no snapshot exists and how to get one
        age = max(0.0, time.time() - snap.stat().st_mtime)
        return AnalysisHandle(connect(snap, read_only=True), "snapshot", snap, age)
