"""The DuckDB store on real files: migrations, concurrency, crashes, snapshots."""
from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from core.blueprints.loader import parse_text
from core.store import DatabaseBusy, Store, open_for_analysis, repo
from core.store.migrations import MIGRATIONS, current_version, migrate

ROOT = Path(__file__).resolve().parents[2]


def _generator(library):
    return library.generator("MATH.ARITH.ADD.2DIGIT")


def test_migrations_are_idempotent(db_path):
    store = Store(db_path)
    assert current_version(store.cursor()) == MIGRATIONS[-1][0]
    assert migrate(store.cursor()) == []
    store.close()
    store = Store(db_path)
    assert migrate(store.cursor()) == []
    tables = {r[0] for r in store.query("SELECT table_name FROM information_schema.tables")}
    assert {"blueprints", "items", "sessions", "events", "responses", "mastery", "llm_runs"} <= tables
    store.close()


def test_blueprint_versions_are_kept_by_content_hash(db_path, library):
    store = Store(db_path)
    loaded = library.skills["MATH.ARITH.ADD.2DIGIT"]
    assert repo.save_blueprint(store, loaded) is True
    assert repo.save_blueprint(store, loaded) is False
    changed = parse_text(loaded.text.replace('version: "1.0"', 'version: "1.1"'), loaded.file)
    assert repo.save_blueprint(store, changed) is True
    versions = repo.blueprint_versions(store, loaded.id)
    assert [v["version"] for v in versions] == ["1.0", "1.1"]
    assert repo.blueprint_text(store, loaded.id, changed.hash) == changed.text
    store.close()


def test_items_round_trip_with_full_audit_record(db_path, library):
    store = Store(db_path)
    items = _generator(library).batch("medium", 20, seed=3).items
    assert repo.insert_items(store, items) == 20
    assert repo.insert_items(store, items) == 0  # same ids: nothing new
    row = repo.get_item(store, items[0].id)
    it = items[0]
    assert row["answer_key"] == it.correct_answer
    assert row["options"] == it.options and row["correct_index"] == it.correct_index
    assert row["params"] == it.generation_params
    assert row["blueprint_hash"] == it.blueprint_hash and row["blueprint_version"] == "1.0"
    assert row["difficulty_level"] == "medium" and row["difficulty_value"] == it.difficulty_value
    assert row["status"] == "draft" and row["source"] == "formula" and row["seed"] == it.seed
    assert row["option_strategies"] == it.option_strategies
    assert row["created_at"] is not None
    assert repo.count_items(store, "draft") == 20
    assert len(repo.list_items(store, blueprint_id="MATH.ARITH.ADD.2DIGIT", limit=5)) == 5
    store.close()


def test_eight_threads_writing_lose_nothing(db_path, library):
    store = Store(db_path)
    gen = _generator(library)
    batches = {t: gen.batch("hard", 500, seed=f"thread{t}", unique=False).items for t in range(8)}
    expected = {it.id for items in batches.values() for it in items}
    errors: list[BaseException] = []

    def work(t: int) -> None:
        try:
            items = batches[t]
            for start in range(0, 500, 25):
                repo.insert_items(store, items[start:start + 25])
        except BaseException as exc:  # reported to the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []
    stored = {r[0] for r in store.query("SELECT id FROM items")}
    assert stored == expected
    store.close()


def test_conflicting_updates_are_retried_not_lost(db_path):
    store = Store(db_path)
    store.write(lambda cur: cur.execute("INSERT INTO mastery (student, skill, score) VALUES ('s', 'k', 0)"))

    def bump(cur):
        cur.execute("UPDATE mastery SET score = score + 1 WHERE student = 's' AND skill = 'k'")

    def work():
        for _ in range(40):
            store.write(bump)

    threads = [threading.Thread(target=work) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert store.query("SELECT score FROM mastery")[0][0] == 240
    store.close()


def test_failed_write_leaves_nothing_half_done(db_path):
    store = Store(db_path)

    def half(cur):
        cur.execute("INSERT INTO mastery (student, skill, score) VALUES ('a', 'x', 1)")
        raise ValueError("stop")

    with pytest.raises(ValueError):
        store.write(half)
    assert store.query("SELECT count(*) FROM mastery")[0][0] == 0
    store.close()


WRITER = r"""
import sys
sys.path.insert(0, {root!r})
from core.blueprints.library import Library
from core.store import Store, repo
lib = Library.load()
gen = lib.generator("MATH.ARITH.ADD.2DIGIT")
store = Store({db!r})
for k in range(10_000):
    items = gen.batch("easy", 50, seed=f"kill{{k}}", unique=False).items
    repo.insert_items(store, items)
    print(",".join(it.id for it in items), flush=True)
"""


def test_writer_killed_mid_batch_loses_no_committed_row(db_path):
    proc = subprocess.Popen([sys.executable, "-c", WRITER.format(root=str(ROOT), db=str(db_path))],
                            stdout=subprocess.PIPE, text=True)
    committed: set[str] = set()
    try:
        for _ in range(8):
            line = proc.stdout.readline()
            assert line, "writer stopped early"
            committed |= set(line.strip().split(","))
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    store = Store(db_path)  # the file reopens after the crash
    stored = {r[0] for r in store.query("SELECT id FROM items")}
    assert committed <= stored
    # Item ids include their seed, so batches never share ids: a partial batch would show as a remainder.
    assert len(stored) % 50 == 0 and len(stored) >= len(committed)
    store.close()


HOLDER = r"""
import sys, time
sys.path.insert(0, {root!r})
from core.store import Store
store = Store({db!r})
store.write(lambda cur: cur.execute("INSERT INTO mastery (student, skill, score) VALUES ('held', 'x', 1)"))
{snapshot}
print("ready", flush=True)
time.sleep(60)
"""


def _hold(db_path: Path, snapshot: bool) -> subprocess.Popen:
    code = HOLDER.format(root=str(ROOT), db=str(db_path), snapshot="store.publish_snapshot()" if snapshot else "")
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "ready"
    return proc


@pytest.mark.duckdb_only
def test_busy_database_fails_at_once_naming_the_holder(db_path):
    proc = _hold(db_path, snapshot=False)
    try:
        start = time.perf_counter()
        with pytest.raises(DatabaseBusy) as info:
            Store(db_path)
        assert time.perf_counter() - start < 5
        message = str(info.value)
        assert f"process {proc.pid}" in message and "python" in message
        assert "\n" not in message
        with pytest.raises(DatabaseBusy, match="no snapshot of it has been published"):
            open_for_analysis(db_path)
        cli = subprocess.run([sys.executable, "-m", "core", "init", "--db", str(db_path)],
                             capture_output=True, text=True, cwd=ROOT)
        assert cli.returncode != 0
        assert len(cli.stderr.strip().splitlines()) == 1 and str(proc.pid) in cli.stderr
    finally:
        proc.kill()
        proc.wait()


@pytest.mark.duckdb_only
def test_analysis_reads_the_snapshot_while_the_writer_runs(db_path):
    proc = _hold(db_path, snapshot=True)
    try:
        handle = open_for_analysis(db_path)
        assert handle.source == "snapshot"
        assert "snapshot" in handle.description and "minutes ago" in handle.description
        assert handle.sql("SELECT student FROM mastery")["student"].tolist() == ["held"]
        handle.close()
    finally:
        proc.kill()
        proc.wait()
    handle = open_for_analysis(db_path)
    assert handle.source == "live" and "live database" in handle.description
    handle.close()


@pytest.mark.duckdb_only
def test_snapshots_keep_the_newest_few(db_path):
    store = Store(db_path)
    paths = []
    for _ in range(5):
        paths.append(store.publish_snapshot())
    kept = sorted(store.snapshot_dir().glob("*.duckdb"))
    assert kept == sorted(paths[-3:])
    assert not list(store.snapshot_dir().glob(".*tmp"))
    store.close()


@pytest.mark.duckdb_only
def test_periodic_snapshots_publish_after_writes(db_path):
    store = Store(db_path)
    store.write(lambda cur: cur.execute("INSERT INTO mastery (student, skill, score) VALUES ('p', 'x', 1)"))
    store.start_periodic_snapshots(0.2)
    deadline = time.time() + 10
    while time.time() < deadline and not list(store.snapshot_dir().glob("*.duckdb")):
        time.sleep(0.05)
    assert list(store.snapshot_dir().glob("*.duckdb"))
    store.close()


def test_read_only_store_refuses_writes(db_path):
    Store(db_path).close()
    store = Store(db_path, read_only=True)
    with pytest.raises(Exception, match="read-only"):
        store.write(lambda cur: None)
    store.close()


def test_appending_after_someone_else_is_a_sequence_conflict(db_path):
    from core.store import sessions
    from core.store.sessions import SequenceConflict
    store = Store(db_path)
    sid = sessions.create_session(store, "practice", "amy", {})
    assert sessions.append_events(store, sid, 0, [("a", {"n": 1})]) == 1
    with pytest.raises(SequenceConflict):
        sessions.append_events(store, sid, 0, [("b", {"n": 2})])   # a second tab that had not seen event 1
    assert [e["type"] for e in sessions.load_events(store, sid)] == ["a"]
    assert sessions.append_events(store, sid, 1, [("b", {"n": 2}), ("c", {})], status="completed") == 3
    assert sessions.get_session(store, sid)["status"] == "completed"
    store.close()
