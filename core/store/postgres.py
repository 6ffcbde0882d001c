"""The PostgreSQL store: the same interface as the DuckDB file, for schools that run several app servers.

``Store("postgresql://USER:PASS@HOST:PORT/DB")`` gives a ``PostgresStore``.
Connections come from a pool (``WORKBENCH_DB_POOL``, default 10 per process):
a read borrows one for its statement, a write for its transaction. Writes run
at REPEATABLE READ, so two servers changing one row conflict as they do in
DuckDB and the loser's transaction is retried from the start; nothing is
counted twice and no answer is lost. Analytics reads come back through Arrow
(ADBC) in one pass. Errors never show the password.
"""
from __future__ import annotations

import contextlib
import os
import re
import threading
import time
import urllib.parse
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Iterator, Optional, TypeVar

import psycopg
import psycopg.adapt
import psycopg.errors
import psycopg.pq
import psycopg.sql
import psycopg_pool

from core.store.db import (PROJECT_ROOT, WRITE_RETRIES, ConstraintViolation, EngineError, Store, StoreError,
                           db_target, masked_url, problem_kind)
from core.store.dialect import POSTGRES
from core.store.migrations import migrate

T = TypeVar("T")
POOL_ENV = "WORKBENCH_DB_POOL"
CONNECT_TIMEOUT_S = 10


class _Text(psycopg.adapt.Loader):
    """JSON columns arrive as their text, as DuckDB gives them."""

    def load(self, data: Any) -> str:
        return bytes(data).decode("utf-8")


class _Number(psycopg.adapt.Loader):
    """numeric (what PostgreSQL's sum and avg of integers give) as int when whole, else float, as DuckDB's."""

    def load(self, data: Any) -> Any:
        text = bytes(data).decode("ascii")
        if text.lstrip("-").isdigit():
            return int(text)
        return float(text)


def _configure(conn: psycopg.Connection) -> None:
    for name in ("json", "jsonb"):
        conn.adapters.register_loader(name, _Text)
    conn.adapters.register_loader("numeric", _Number)
    conn.execute("SET TIME ZONE 'UTC'")   # TIMESTAMP columns hold UTC without a zone, as in the DuckDB file


_TOKENS = re.compile(r"'(?:[^']|'')*'|\"[^\"]*\"|--[^\n]*|\?|%")


@lru_cache(maxsize=4096)
def pyformat(sql: str) -> str:
    """``?`` placeholders (DuckDB's and the store's) as psycopg's ``%s``, and a literal ``%`` doubled."""
    return _TOKENS.sub(lambda m: {"?": "%s", "%": "%%"}.get(m.group(), m.group()), sql)


@lru_cache(maxsize=1024)
def numbered(sql: str) -> str:
    """``?`` placeholders as ``$1, $2, ...`` (ADBC's style)."""
    counter = iter(range(1, 10_000))
    return _TOKENS.sub(lambda m: f"${next(counter)}" if m.group() == "?" else m.group(), sql)


def engine_error(exc: psycopg.Error, label: str) -> EngineError:
    """A psycopg error as the store's own, with the password never in the text."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    text = _hide_passwords(text)
    state = getattr(exc, "sqlstate", None) or ""
    cls = ConstraintViolation if isinstance(exc, psycopg.errors.IntegrityError) else EngineError
    return cls(f"database {label}: {text}", sqlstate=state)


def _missing_database(exc: psycopg.Error) -> bool:
    state = getattr(exc, "sqlstate", None) or getattr(getattr(exc, "diag", None), "sqlstate", None)
    text = str(exc)
    return state == "3D000" or ("database \"" in text and "does not exist" in text)


def _hide_passwords(text: str) -> str:
    text = re.sub(r"(postgres(?:ql)?://[^:/@\s]*:)[^@\s]*@", r"\1***@", text)
    return re.sub(r"(password\s*=\s*)\S+", r"\1***", text, flags=re.I)


class PgCursor:
    """What the repositories use: ``execute(sql, params)`` with ``?`` placeholders, ``fetchall``,
    ``fetchone``, ``description``, and ``register``/``unregister`` of a frame for ``INSERT ... SELECT``.

    Bound to a connection inside a transaction; otherwise each statement borrows
    one from the pool. Rows are fetched at once, so the connection goes back
    before the caller reads them.
    """

    dialect = POSTGRES

    def __init__(self, store: "PostgresStore", conn: Optional[psycopg.Connection] = None):
        self._store = store
        self._conn = conn
        self.description: Optional[list] = None
        self.rowcount = -1
        self._rows: list[tuple] = []
        self._pos = 0

    def execute(self, sql: str, params: Optional[list] = None) -> "PgCursor":
        query = pyformat(sql) if params else sql
        args = list(params) if params else None
        try:
            if self._conn is not None:
                self._take(self._conn.execute(query, args))
            else:
                with self._store.connection() as conn:
                    self._take(conn.execute(query, args))
        except psycopg.Error as exc:
            raise engine_error(exc, self._store.label) from None
        return self

    def _take(self, cur: psycopg.Cursor) -> None:
        self.description = cur.description
        self.rowcount = cur.rowcount
        # Like DuckDB, a statement without rows (INSERT, UPDATE) reports how many it changed.
        self._rows = cur.fetchall() if cur.description is not None else [(max(cur.rowcount, 0),)]
        self._pos = 0

    def fetchall(self) -> list[tuple]:
        rows, self._pos = self._rows[self._pos:], len(self._rows)
        return rows

    def fetchone(self) -> Optional[tuple]:
        if self._pos >= len(self._rows):
            return None
        self._pos += 1
        return self._rows[self._pos - 1]

    def register(self, name: str, frame: Any) -> None:
        """A temporary table ``name`` holding ``frame`` (pandas or Arrow), for the transaction's next statements."""
        if self._conn is None:
            raise StoreError("a frame can be registered only inside a write")
        import pyarrow as pa
        table = frame if isinstance(frame, pa.Table) else pa.Table.from_pandas(frame, preserve_index=False)
        columns = ", ".join(f'"{f.name}" {_pg_type(f.type)}' for f in table.schema)
        self.execute(f'CREATE TEMP TABLE "{name}" ({columns}) ON COMMIT DROP')
        self.copy_arrow(name, table)

    def copy_arrow(self, table_name: str, table: Any) -> None:
        """Append an Arrow table to ``table_name`` with COPY, as CSV (nulls unquoted and empty, empty text quoted)."""
        import io

        import pyarrow.csv as pa_csv
        buffer = io.BytesIO()
        pa_csv.write_csv(plain_arrow(table), buffer, pa_csv.WriteOptions(include_header=False))
        names = ", ".join(f'"{n}"' for n in table.column_names)
        try:
            with self._conn.cursor().copy(f'COPY "{table_name}" ({names}) FROM STDIN WITH (FORMAT csv)') as copy:
                copy.write(buffer.getbuffer())
        except psycopg.Error as exc:
            raise engine_error(exc, self._store.label) from None

    def unregister(self, name: str) -> None:
        # After a failed statement the transaction is rolled back, table and all: the failure is what to report.
        if self._conn is not None and self._conn.info.transaction_status != psycopg.pq.TransactionStatus.INERROR:
            try:
                self._conn.execute(f'DROP TABLE IF EXISTS "{name}"')
            except psycopg.Error as exc:
                raise engine_error(exc, self._store.label) from None

    def close(self) -> None:
        self._rows = []


def plain_arrow(table: Any) -> Any:
    """ADBC's table with PostgreSQL's own types as DuckDB gives them: JSON as text, numeric as double."""
    import pyarrow as pa
    import pyarrow.compute as pc
    columns, fields = [], []
    for field, column in zip(table.schema, table.columns):
        if isinstance(field.type, pa.ExtensionType):
            storage = pa.chunked_array([chunk.storage for chunk in column.chunks], type=field.type.storage_type)
            if (field.metadata or {}).get(b"POSTGRESQL:type") == b"numeric":
                storage = pc.cast(storage, pa.float64())
            column, field = storage, pa.field(field.name, storage.type)
        columns.append(column)
        fields.append(pa.field(field.name, field.type))
    return pa.Table.from_arrays(columns, schema=pa.schema(fields))


def adbc_error() -> type:
    import adbc_driver_manager.dbapi
    return adbc_driver_manager.dbapi.Error


def _pg_type(arrow_type: Any) -> str:
    import pyarrow as pa
    if pa.types.is_boolean(arrow_type):
        return "BOOLEAN"
    if pa.types.is_integer(arrow_type):   # INTEGER where it fits: PostgreSQL casts integer, not bigint, to boolean
        return "BIGINT" if arrow_type.bit_width > 32 or arrow_type in (pa.uint32(),) else "INTEGER"
    if pa.types.is_floating(arrow_type):
        return "DOUBLE PRECISION"
    if pa.types.is_timestamp(arrow_type):
        return "TIMESTAMP"
    if pa.types.is_date(arrow_type):
        return "DATE"
    return "TEXT"


class PostgresStore(Store):
    """The database on a PostgreSQL server, behind the same interface as the DuckDB file."""

    backend = "postgresql"
    dialect = POSTGRES

    @staticmethod
    def secrets_stem(dbname: str) -> Path:
        """Not a file: where database ``dbname``'s secrets file goes (data/<name>-postgresql.secrets.json)."""
        return PROJECT_ROOT / "data" / f"{dbname}-postgresql"

    def __init__(self, url: Optional[str] = None, read_only: bool = False, run_migrations: bool = True,
                 pool_size: Optional[int] = None):
        self.url = url = str(db_target(url))
        self.label = masked_url(url)
        parts = urllib.parse.urlsplit(url)
        dbname = urllib.parse.unquote(parts.path.lstrip("/")) or "postgres"
        self.path = self.secrets_stem(dbname)
        self.read_only = read_only
        self._local = threading.local()
        self._lock = threading.Lock()
        self._writes = 0
        self._adbc: list[Any] = []
        self._check_reachable()
        size = pool_size or int(os.environ.get(POOL_ENV, "10"))
        options = "-c default_transaction_read_only=on" if read_only else None
        self._pool: Optional[psycopg_pool.ConnectionPool] = psycopg_pool.ConnectionPool(
            url, min_size=1, max_size=max(1, size), open=False, configure=_configure, timeout=30,
            kwargs={"autocommit": True, **({"options": options} if options else {})}, name="workbench")
        try:
            self._pool.open(wait=True, timeout=CONNECT_TIMEOUT_S)
        except psycopg_pool.PoolTimeout:
            self._pool.close()
            raise StoreError(f"database {self.label} did not answer within {CONNECT_TIMEOUT_S} s; "
                             f"check that the server is running") from None
        if run_migrations and not read_only:
            try:
                self._migrate()
                from core.store.secret_file import move_secrets_out
                move_secrets_out(self)
            except BaseException:
                self.close()
                raise

    def _check_reachable(self, create: bool = True) -> None:
        """Connect once directly, so that a wrong password or host is said plainly (the pool only times out).

        A database that does not exist yet is created, as a DuckDB file is on first use, when the user may.
        """
        try:
            psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True).close()
        except psycopg.Error as exc:
            if create and not self.read_only and _missing_database(exc):
                self._create_database()
                return self._check_reachable(create=False)
            detail = _hide_passwords(" ".join(str(exc).split()))
            raise StoreError(f"cannot connect to {self.label}: {detail}; check the server, the user, the password "
                             f"and the database name in the URL",
                             "The database server could not be reached. Try again in a moment; if it keeps "
                             "happening, tell whoever runs the workbench.") from None

    def _create_database(self) -> None:
        """CREATE DATABASE, connected to the server's maintenance database with the same user and password."""
        parts = urllib.parse.urlsplit(self.url)
        name = urllib.parse.unquote(parts.path.lstrip("/"))
        maintenance = urllib.parse.urlunsplit((parts.scheme, parts.netloc, "/postgres", parts.query, parts.fragment))
        try:
            with psycopg.connect(maintenance, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as conn:
                conn.execute(psycopg.sql.SQL("CREATE DATABASE {}").format(psycopg.sql.Identifier(name)))
        except psycopg.errors.DuplicateDatabase:
            return   # another server created it meanwhile
        except psycopg.Error as exc:
            detail = _hide_passwords(" ".join(str(exc).split()))
            raise StoreError(f"database {self.label} does not exist and could not be created ({detail}); create it "
                             f"on the server (createdb) or give the user the right to (CREATEDB)") from None

    def _migrate(self) -> None:
        with self.connection() as conn:
            cur = PgCursor(self, conn)
            # Two app servers starting together: one migrates, the other waits and then finds nothing to do.
            cur.execute("SELECT pg_advisory_lock(hashtext('workbench migrations'))")
            try:
                migrate(cur)
            finally:
                cur.execute("SELECT pg_advisory_unlock(hashtext('workbench migrations'))")

    @contextlib.contextmanager
    def connection(self) -> Iterator[psycopg.Connection]:
        if self._pool is None:
            raise StoreError(f"database {self.label} is closed; open it again")
        try:
            with self._pool.connection() as conn:
                yield conn
        except psycopg_pool.PoolTimeout:
            raise StoreError(f"database {self.label}: every connection of the pool stayed busy for 30 s; raise "
                             f"{POOL_ENV} or the server's max_connections",
                             "The database is too busy just now. Try again in a moment.") from None
        except psycopg.OperationalError as exc:
            raise engine_error(exc, self.label) from None

    # ------------------------------------------------------------------
    def cursor(self) -> PgCursor:
        bound = getattr(self._local, "bound", None)
        if bound is not None:
            return bound
        cur = getattr(self._local, "cursor", None)
        if cur is None:
            cur = self._local.cursor = PgCursor(self)
        return cur

    def query_arrow(self, sql: str, params: Optional[list] = None):
        """A query's rows as an Arrow table, read by ADBC in PostgreSQL's binary format (no row objects);
        inside a write, what the write's transaction sees."""
        bound = getattr(self._local, "bound", None)
        if bound is not None:
            import pyarrow as pa
            bound.execute(sql, params)
            rows = bound.fetchall()
            return pa.table({d[0]: [r[i] for r in rows] for i, d in enumerate(bound.description)})
        conn = self._adbc_connection()
        try:
            with conn.cursor() as cur:
                cur.execute(numbered(sql), parameters=list(params) if params else None)
                table = cur.fetch_arrow_table()
        except adbc_error() as exc:
            conn.close()
            raise EngineError(f"database {self.label}: {_hide_passwords(' '.join(str(exc).split()))}") from None
        self._give_back(conn)
        return plain_arrow(table)

    def load_arrow(self, table: str, data: Any) -> int:
        """Append an Arrow table's rows to ``table`` (its columns by name) with one COPY; returns the count."""
        self.write(lambda cur: cur.copy_arrow(table, data))
        return data.num_rows

    def _adbc_connection(self) -> Any:
        with self._lock:
            if self._adbc:
                return self._adbc.pop()
        import adbc_driver_postgresql.dbapi as adbc
        conn = adbc.connect(self.url, autocommit=True)
        with conn.cursor() as cur:
            cur.execute("SET TIME ZONE 'UTC'")
            if self.read_only:
                cur.execute("SET default_transaction_read_only = on")
        return conn

    def _give_back(self, conn: Any) -> None:
        with self._lock:
            if self._pool is not None and len(self._adbc) < 4:
                self._adbc.append(conn)
                return
        conn.close()

    def write(self, fn: Callable[[Any], T], retries: int = WRITE_RETRIES) -> T:
        if self.read_only:
            raise StoreError(f"database {self.label} was opened read-only; writes are not possible")
        bound = getattr(self._local, "bound", None)
        if bound is not None:
            return fn(bound)   # inside transaction(): its commit keeps or drops this too
        delay = 0.002
        for attempt in range(retries + 1):
            try:
                with self._bound() as cur:
                    result = fn(cur)
                self._writes += 1
                return result
            except EngineError as exc:
                if problem_kind(exc) == "conflict" and attempt < retries:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.2)
                    continue
                raise
        raise StoreError("write kept conflicting with other writers")  # pragma: no cover

    @contextlib.contextmanager
    def _bound(self) -> Iterator[PgCursor]:
        """One connection and one REPEATABLE READ transaction for the block; this thread's reads join it."""
        with self.connection() as conn:
            cur = PgCursor(self, conn)
            cur.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            self._local.bound = cur
            try:
                yield cur
                cur.execute("COMMIT")
            except BaseException:
                with contextlib.suppress(psycopg.Error):
                    conn.execute("ROLLBACK")
                raise
            finally:
                self._local.bound = None

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        if self.read_only or getattr(self._local, "bound", None) is not None:
            yield
            return
        with self._bound():
            yield
        self._writes += 1

    @contextlib.contextmanager
    def single_threaded(self) -> Iterator[None]:
        yield   # DuckDB's worker threads; the server schedules its own work

    @contextlib.contextmanager
    def exclusive(self, name: str) -> Iterator[None]:
        """One process at a time in the block, across every server on this database (an advisory lock)."""
        with self.connection() as conn:
            conn.execute("SELECT pg_advisory_lock(hashtext(%s))", [name])
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(hashtext(%s))", [name])

    # ------------------------------------------------------------------
    def publish_snapshot(self) -> Path:
        raise StoreError(f"{self.label} is a PostgreSQL database: notebooks read it directly while the app runs, "
                         f"so it has no snapshots")

    def start_periodic_snapshots(self, interval_s: float = 300.0) -> None:
        return None   # nothing to publish: readers open the server themselves

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is not None:
            pool.close()
        with self._lock:
            adbc, self._adbc = self._adbc, []
        for conn in adbc:
            with contextlib.suppress(adbc_error()):   # closing at the end: a lost connection is gone anyway
                conn.close()
        self._local = threading.local()


class PgAnalysisHandle:
    """Read-only access for notebooks and commands: the live PostgreSQL database, while the app runs."""

    source = "live"
    age_seconds = 0.0

    def __init__(self, url: str):
        self._store = PostgresStore(url, read_only=True, run_migrations=False, pool_size=2)
        self.url = url
        self.path = self._store.label

    @property
    def description(self) -> str:
        return f"reading the live PostgreSQL database {self._store.label} (read-only)"

    def sql(self, query: str, params: Optional[list] = None):
        return self._store.query_df(query, params)

    def store(self) -> PostgresStore:
        """A read-only Store on the same database, for core's query functions (core.store.analytics, ...)."""
        return PostgresStore(self.url, read_only=True, run_migrations=False, pool_size=2)

    def close(self) -> None:
        self._store.close()
