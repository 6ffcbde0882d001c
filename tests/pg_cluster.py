"""A throwaway PostgreSQL cluster for tests and benchmarks: Debian's server binaries, a free port, a temp folder.

PostgreSQL refuses to run as root, so as root the cluster belongs to the
``postgres`` system user (created by Debian's package) and its commands run
through ``runuser``. The server listens on 127.0.0.1 only, with password
authentication, durability switched off for tests (nothing there must survive
a crash; benchmarks keep it on, as a real server has it) and a role ``workbench`` that owns the databases the tests create.
"""
from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path
from typing import Optional

USER = "workbench"
PASSWORD = "wb-test-secret"


def server_binaries() -> Optional[Path]:
    """The folder of ``initdb``/``pg_ctl`` of the newest installed PostgreSQL, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(Path(p).parts[-3]))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).resolve().parent if initdb else None


def unavailable_reason() -> Optional[str]:
    """Why no cluster can be started here (None when one can)."""
    if server_binaries() is None:
        return "PostgreSQL server is not installed (apt-get install -y postgresql); .ci/run installs it"
    if os.geteuid() == 0:
        try:
            import pwd
            pwd.getpwnam("postgres")
        except KeyError:
            return "running as root but there is no 'postgres' user to run the server as"
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install -r requirements.txt)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """One running server; ``url(db)`` names a database on it, ``create_database()`` makes a new one."""

    def __init__(self, durable: bool = False) -> None:
        self.durable = durable
        self.bin = server_binaries()
        self.root = Path(tempfile.mkdtemp(prefix="wb-pg-"))
        self.data = self.root / "data"
        self.port = _free_port()
        self.as_root = os.geteuid() == 0
        self.created: set[str] = set()

    def _run(self, *args: str) -> subprocess.CompletedProcess:
        cmd = list(args)
        if self.as_root:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, check=True, capture_output=True, text=True, timeout=120)

    def start(self) -> "Cluster":
        if self.as_root:
            shutil.chown(self.root, "postgres", "postgres")
        pwfile = self.root / "pw"
        pwfile.write_text(PASSWORD + "\n")
        if self.as_root:
            shutil.chown(pwfile, "postgres", "postgres")
        self._run(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=scram-sha-256",
                  f"--pwfile={pwfile}", "-E", "UTF8", "--locale=C.UTF-8", "--no-sync")
        opts = (f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.root} -c max_connections=300 "
                f"-c shared_buffers=256MB")
        if not self.durable:
            opts += " -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
        self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", opts, "-l", str(self.root / "log"),
                  "-w", "-t", "60", "start")
        import psycopg
        with psycopg.connect(self.url("postgres", user="postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE ROLE {USER} LOGIN CREATEDB PASSWORD '{PASSWORD}'")
        return self

    def url(self, database: str, user: str = USER, password: str = PASSWORD) -> str:
        return f"postgresql://{user}:{password}@127.0.0.1:{self.port}/{database}"

    def create_database(self, prefix: str = "wb", template: Optional[str] = None) -> str:
        """A new empty database (or a copy of ``template``); returns its URL."""
        import psycopg
        name = f"{prefix}_{uuid.uuid4().hex[:10]}"
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {name}" + (f" TEMPLATE {template} STRATEGY FILE_COPY" if template else ""))
        self.created.add(name)
        return self.url(name)

    def _remove_secrets(self, name: str) -> None:
        """The secrets file the workbench kept for database ``name`` in the project's data/ folder (not one
        named by $WORKBENCH_SECRETS_FILE: that is the user's)."""
        from core.store.postgres import PostgresStore
        from core.store.secret_file import beside
        beside(PostgresStore.secrets_stem(name)).unlink(missing_ok=True)

    def drop_database(self, url: str) -> None:
        import psycopg
        name = url.rsplit("/", 1)[1]
        # As the superuser: FORCE ends every session on the database, and a session of another role (an
        # autovacuum worker of the server's own) may not be ended by the test role.
        with psycopg.connect(self.url("postgres", user="postgres"), autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        self._remove_secrets(name)
        self.created.discard(name)

    def stop(self) -> None:
        try:
            self._run(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop")
        except subprocess.CalledProcessError:
            pass  # already stopped; the folder goes anyway
        finally:
            shutil.rmtree(self.root, ignore_errors=True)
            for name in self.created:
                self._remove_secrets(name)


def start_cluster(attempts: int = 3, durable: bool = False) -> Cluster:
    """Start a cluster, trying another port if the first was taken meanwhile."""
    last: Optional[Exception] = None
    for _ in range(attempts):
        cluster = Cluster(durable)
        try:
            return cluster.start()
        except subprocess.CalledProcessError as exc:
            last = RuntimeError(f"PostgreSQL cluster did not start: {exc.stderr.strip()[-400:]}")
            cluster.stop()
            time.sleep(0.2)
    raise last  # type: ignore[misc]
