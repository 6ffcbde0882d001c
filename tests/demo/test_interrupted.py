"""A demo build that is interrupted leaves nothing; the next start builds the whole class. Resetting works too."""
from __future__ import annotations

import datetime as dt
import os
import select
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from core.demo.classroom import DEMO_CODE, demo_students, ensure_demo, reset_demo
from core.store import Store, school

from tests.demo.conftest import first_start, utc_now

ROOT = Path(__file__).resolve().parents[2]


class Stop(Exception):
    """The page closed, the server stopped: anything that ends a build half way."""


def stop_at(student: int):
    def progress(done: int, total: int) -> None:
        if done == student:
            raise Stop(f"stopped after {done} of {total} students")
    return progress


def nothing_of_the_demo(store: Store) -> None:
    assert school.list_classes(store) == []
    for table in ("roster", "sessions", "events", "responses", "seen", "mastery"):
        assert store.query(f"SELECT count(*) FROM {table}") == [(0,)], table
    assert store.query("SELECT count(*) FROM items WHERE status = 'session'") == [(0,)]


def shape(store: Store) -> dict:
    """What a complete build holds, independent of ids, times and the questions drawn."""
    orphans = {
        "events": "SELECT count(*) FROM events WHERE session_id NOT IN (SELECT id FROM sessions)",
        "responses": "SELECT count(*) FROM responses WHERE session_id NOT IN (SELECT id FROM sessions)",
        "items": "SELECT count(*) FROM items WHERE status = 'session' AND session_id NOT IN (SELECT id FROM sessions)",
        "sessions": "SELECT count(*) FROM sessions WHERE student NOT IN (SELECT student FROM roster)",
        "silent sessions": "SELECT count(*) FROM sessions WHERE id NOT IN (SELECT session_id FROM events)",
    }
    return {"classes": [c["code"] for c in school.list_classes(store)],
            "roster": sorted(r["student"] for r in school.roster(store, DEMO_CODE)),
            "sessions": sorted(store.query("SELECT student, kind, status, count(*) FROM sessions GROUP BY ALL")),
            "students answering": store.query("SELECT count(DISTINCT student) FROM responses")[0][0],
            "orphans": {name: store.query(sql)[0][0] for name, sql in orphans.items()}}


def test_a_build_stopped_half_way_leaves_nothing_and_the_next_start_builds_it_all(tmp_path, app_library, built):
    store = first_start(tmp_path / "workbench.duckdb", app_library)
    try:
        with pytest.raises(Stop):
            ensure_demo(store, app_library, progress=stop_at(4))
        nothing_of_the_demo(store)
        assert ensure_demo(store, app_library)
        assert shape(store) == shape(built[0])   # exactly one class, exactly a full build's history
    finally:
        store.close()


def test_a_killed_build_leaves_nothing_and_the_next_start_builds_it_all(tmp_path, app_library, built):
    db = tmp_path / "workbench.duckdb"
    first_start(db, app_library).close()
    script = textwrap.dedent(f"""
        import sys, time
        sys.path.insert(0, {str(ROOT)!r})
        from core.blueprints.library import Library
        from core.demo.classroom import ensure_demo
        from core.store import Store

        def progress(done, total):
            if done == 3:
                print("half way", flush=True)
                time.sleep(120)   # killed here, the transaction open

        ensure_demo(Store({str(db)!r}), Library.load(exercise=False), progress=progress)
    """)
    child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT)
    try:
        ready, _, _ = select.select([child.stdout], [], [], 180)
        line = child.stdout.readline() if ready else ""
        assert line.strip() == "half way", "the build never got half way" if child.poll() is None else child.stderr.read()
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(timeout=30)
        child.stdout.close()
        child.stderr.close()

    store = Store(db)
    try:
        nothing_of_the_demo(store)
        assert ensure_demo(store, app_library)
        assert shape(store) == shape(built[0])
    finally:
        store.close()


def test_reset_replaces_the_history_and_a_stopped_reset_keeps_the_old_one(tmp_path, app_library):
    store = first_start(tmp_path / "workbench.duckdb", app_library)
    try:
        assert ensure_demo(store, app_library)
        first = shape(store)
        old_ids = {r[0] for r in store.query("SELECT id FROM sessions")}

        with pytest.raises(Stop):
            reset_demo(store, app_library, progress=stop_at(5))
        assert {r[0] for r in store.query("SELECT id FROM sessions")} == old_ids
        assert shape(store) == first

        before = utc_now()
        reset_demo(store, app_library)
        after = utc_now()
        new_ids = {r[0] for r in store.query("SELECT id FROM sessions")}
        assert new_ids and not new_ids & old_ids
        assert shape(store) == first
        oldest, newest = store.query("SELECT min(created_at), max(created_at) FROM responses")[0]
        assert newest <= after and newest.date() in (before.date(), after.date())
        assert oldest.date() <= before.date() - dt.timedelta(days=18)
        assert sorted(r["student"] for r in school.roster(store, DEMO_CODE)) == sorted(demo_students())
    finally:
        store.close()


def test_reset_without_a_demo_class_builds_one(tmp_path, app_library):
    store = first_start(tmp_path / "workbench.duckdb", app_library)
    try:
        reset_demo(store, app_library)
        assert [c["code"] for c in school.list_classes(store)] == [DEMO_CODE]
        assert len(school.roster(store, DEMO_CODE)) == len(demo_students())
    finally:
        store.close()
