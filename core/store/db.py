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
import errno
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
STORAGE_PROBLEMS = ("disk_full", "busy", "version", "damaged", "invalidated", "denied")
ENGINE_ERRORS = (duckdb.Error,)   # what DuckDB raises, for callers outside the store (which never import it)


def problem_kind(exc: BaseException) -> Optional[str]:
    """What kind of storage failure ``exc`` is: one of STORAGE_PROBLEMS, "conflict" (another writer got
    there first: worth retrying) or None (not a storage failure: a bug or a constraint)."""
    if isinstance(exc, DatabaseBusy):
        return "busy"
    if isinstance(exc, DiskFull):
        return "disk_full"
    if isinstance(exc, OSError) and exc.errno in _ERRNO_PROBLEMS:
        return _ERRNO_PROBLEMS[exc.errno]
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
    where = f"database {path}" if path is not None else "the database"
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


def public_message(exc: BaseException) -> Optional[str]:
    """The one sentence a visitor may see for a storage failure; None when ``exc`` is not one."""
    if isinstance(exc, StoreError):
        return exc.public
    if isinstance(exc, duckdb.Error) or (isinstance(exc, OSError) and exc.errno in _ERRNO_PROBLEMS):
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
