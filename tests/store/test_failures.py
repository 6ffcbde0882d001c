"""A damaged file, a file held by another program, a full disk: one sentence each, saying what to do.

The sentence for the command line (and the server's log) may name the file;
the one a visitor to the app sees (``exc.public``) never does.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from core.store import DatabaseBusy, Store, StoreError
from core.store.db import DatabaseDamaged, DiskFull, problem_kind, public_message

pytestmark = pytest.mark.duckdb_only   # the DuckDB file's own failures; PostgreSQL's: test_postgres.py

ROOT = Path(__file__).resolve().parents[2]


def one_line(text: str) -> bool:
    return bool(text) and "\n" not in text and "Traceback" not in text


def test_garbage_in_the_file_is_a_damaged_database(tmp_path: Path):
    path = tmp_path / "w.duckdb"
    path.write_bytes(b"this is not a database, just some bytes a disk left behind\n" * 200)
    with pytest.raises(DatabaseDamaged) as info:
        Store(path)
    assert one_line(str(info.value)) and "damaged" in str(info.value) and "backup" in str(info.value)
    public = info.value.public
    assert one_line(public) and "damaged" in public and "backup" in public
    assert str(tmp_path) not in public and "w.duckdb" not in public
    cli = subprocess.run([sys.executable, "-m", "core", "init", "--db", str(path)],
                         capture_output=True, text=True, cwd=ROOT)
    assert cli.returncode == 2 and one_line(cli.stderr.strip()) and "damaged" in cli.stderr


def test_a_damaged_block_inside_a_good_file_is_a_damaged_database_and_the_file_is_let_go(tmp_path: Path):
    path = tmp_path / "w.duckdb"
    store = Store(path)
    store.write(lambda cur: cur.execute(
        "INSERT INTO llm_runs (id, role, model, verdict) SELECT 'r' || range, 'tutor', md5(range::VARCHAR), 'ok' "
        "FROM range(50000)"))
    store.close()
    data = bytearray(path.read_bytes())
    for k in range(12_288, len(data), 7):   # past the headers: every table block
        data[k] = 0x5A
    path.write_bytes(bytes(data))
    with pytest.raises(StoreError) as info:
        store = Store(path)
        store.query("SELECT count(*), max(model) FROM llm_runs")   # if opening did not touch a bad block
    assert problem_kind(info.value) in ("damaged", None) and one_line(str(info.value))
    assert "Traceback" not in info.value.public and str(tmp_path) not in info.value.public
    # Opening failed, but the file is not left locked by this process: another program can take it.
    probe = subprocess.run([sys.executable, "-c", "import duckdb, sys\ntry:\n duckdb.connect(sys.argv[1])\n"
                            "except duckdb.Error as e:\n print(e)\nelse:\n print('open')", str(path)],
                           capture_output=True, text=True)
    assert probe.returncode == 0 and "Could not set lock" not in probe.stdout, probe.stdout + probe.stderr


def test_a_file_held_by_another_program_says_who_and_what_to_do(tmp_path: Path):
    path = tmp_path / "w.duckdb"
    Store(path).close()
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
                               "print('ready', flush=True); time.sleep(60)", str(path)],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        with pytest.raises(DatabaseBusy) as info:
            Store(path)
        assert one_line(str(info.value)) and str(holder.pid) in str(info.value)
        public = info.value.public
        assert one_line(public) and "in use" in public and str(holder.pid) in public and "reload" in public
        assert str(tmp_path) not in public and "-c" not in public   # the holder's arguments may name files
    finally:
        holder.kill()
        holder.wait()


class FullDisk:
    """A cursor whose commits fail as DuckDB's do when the disk is full (or whose every write does)."""

    def __init__(self, cursor, error: Exception, on: str = "COMMIT"):
        self._cursor, self._error, self._on = cursor, error, on
        self.attempts = 0

    def execute(self, sql, *args, **kwargs):
        if sql.strip().upper().startswith(self._on):
            self.attempts += 1
            raise self._error
        return self._cursor.execute(sql, *args, **kwargs)

    def __getattr__(self, name):
        return getattr(self._cursor, name)


@pytest.mark.parametrize("error", [
    duckdb.IOException('IO Error: Could not write file "/data/workbench.duckdb.wal": No space left on device'),
    # What DuckDB really raises when the commit cannot be written: a transaction error, which is not a conflict.
    duckdb.TransactionException('TransactionContext Error: Failed to commit: Could not write file '
                                '"/data/workbench.duckdb.wal": No space left on device'),
])
def test_a_full_disk_is_said_at_once_and_not_retried_as_a_write_conflict(db_path: Path, monkeypatch, error):
    store = Store(db_path)
    full = FullDisk(store.cursor(), error)
    monkeypatch.setattr(store, "cursor", lambda: full)
    with pytest.raises(DiskFull) as info:
        store.write(lambda cur: cur.execute("INSERT INTO mastery (student, skill, score) VALUES ('a', 'x', 1)"))
    assert full.attempts == 1
    assert one_line(str(info.value)) and "disk" in str(info.value) and "free some space" in str(info.value)
    assert info.value.public.startswith("The server's disk is full") and "/data" not in info.value.public
    with pytest.raises(DiskFull):
        with store.transaction():
            store.write(lambda cur: cur.execute("INSERT INTO mastery (student, skill, score) VALUES ('b', 'x', 1)"))
    monkeypatch.undo()
    assert store.query("SELECT count(*) FROM mastery")[0][0] == 0
    store.close()


def test_conflicts_are_still_retried(db_path: Path, monkeypatch):
    store = Store(db_path)
    conflict = FullDisk(store.cursor(), duckdb.TransactionException("TransactionContext Error: Conflict on update!"))
    monkeypatch.setattr(store, "cursor", lambda: conflict)
    with pytest.raises(duckdb.TransactionException):
        store.write(lambda cur: None, retries=3)
    assert conflict.attempts == 4
    monkeypatch.undo()
    store.close()


def test_a_snapshot_that_does_not_fit_leaves_nothing_behind(db_path: Path, monkeypatch):
    store = Store(db_path)

    def full(target, alias):
        Path(target).write_bytes(b"half a snapshot")
        raise duckdb.IOException(f'IO Error: Could not write file "{target}": No space left on device')
    monkeypatch.setattr(store, "_copy_to", full)
    with pytest.raises(DiskFull):
        store.publish_snapshot()
    assert not list(store.snapshot_dir().iterdir())
    monkeypatch.undo()
    store.close()


def test_public_messages_cover_what_the_app_may_meet():
    assert public_message(ValueError("a bug")) is None
    assert "disk is full" in public_message(OSError(28, "No space left on device"))
    assert "damaged" in public_message(duckdb.IOException('IO Error: The file "/x/y.duckdb" exists, but it is not '
                                                          'a valid DuckDB database file!'))
    assert "/x/y" not in public_message(duckdb.Error("Corrupt database file: computed checksum 1 does not match"))
    assert "earlier error" in public_message(duckdb.FatalException("FATAL Error: database has been invalidated "
                                                                  "because of a previous fatal error"))
