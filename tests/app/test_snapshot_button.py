"""Snapshots for notebooks: the one the app publishes when it starts, and the Settings page's "Publish a snapshot now"."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import duckdb
import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pages import open_page

from core.analytics import snapshots
from tests.app.test_teacher_authoring import ROOT, TEACHER, values

CLASS = "SNAP-1"
BUTTON = "Publish a snapshot now"


def new_database(folder: Path) -> Path:
    """A database that already holds a class, so the app skips the slow first-run demo."""
    from core.school.classes import create_class
    from core.store import Store
    db = folder / "school.duckdb"
    store = Store(db)
    create_class(store, CLASS, "Snapshot class", "Mathematics", "Nat 5")
    store.close()
    return db


@pytest.fixture
def app(tmp_path, monkeypatch):
    """The app as deployed (snapshots on: one at start, then hourly) on a new database; closed afterwards."""
    from ui import shared
    db = new_database(tmp_path)
    monkeypatch.setenv("WORKBENCH_DB", str(db))
    monkeypatch.setenv("WORKBENCH_SNAPSHOT_INTERVAL", "3600")   # the periodic thread never fires during a test
    monkeypatch.chdir(ROOT)
    shared._open.clear()
    shared._runner.clear()
    yield db
    wb = shared._open(str(db))
    snapshots.wait_for_start(wb.store)
    wb.store.close()
    shared._open.clear()
    shared._runner.clear()


def settings_page() -> AppTest:
    return open_page(TEACHER, "pages/teacher_settings.py")


def started(db: Path):
    """The app's workbench once its snapshot at start is done."""
    from ui import shared
    wb = shared._open(str(db))
    assert wb.start_snapshot is not None
    wb.start_snapshot.join(timeout=60)
    assert not wb.start_snapshot.is_alive()
    return wb


def published(db: Path) -> list[Path]:
    return sorted((db.parent / "snapshots").glob(f"{db.stem}-*.duckdb"))


def last_line(at: AppTest) -> str:
    return [c for c in values(at.caption) if c.startswith(("Last snapshot:", "No snapshot"))][-1]


def classes_in(snapshot: Path) -> list[str]:
    conn = duckdb.connect(str(snapshot), read_only=True)
    try:
        return [r[0] for r in conn.execute("SELECT code FROM classes ORDER BY code").fetchall()]
    finally:
        conn.close()


def test_the_app_publishes_a_snapshot_when_it_starts_and_the_page_says_when(app):
    settings_page()
    started(app)
    snaps = published(app)
    assert len(snaps) == 1 and classes_in(snaps[0]) == [CLASS]
    at = settings_page()
    line = last_line(at)
    assert line.startswith("Last snapshot: ") and " UTC, just now (" in line
    assert line.endswith(f"({snaps[0].name}).")
    assert str(app.parent) not in " ".join(values(at.caption))      # the file's name, never the server's folders
    assert not any("snapshot" in w for w in values(at.warning)) and not at.error


def test_publish_now_adds_a_newer_snapshot_holding_the_latest_changes(app):
    from core.school.classes import create_class
    at = settings_page()
    wb = started(app)
    first = published(app)
    create_class(wb.store, "SNAP-2", "Joined after the start", "Mathematics", "Nat 5")
    assert classes_in(first[-1]) == [CLASS]                          # the snapshot at start predates the class
    at.button(key="snapshot_publish").click().run()
    assert not at.exception and not at.error, values(at.error)
    now = published(app)
    assert len(now) == 2 and now[-1] not in first
    assert values(at.success) == [f"Published {now[-1].name}."]
    assert last_line(at).endswith(f"({now[-1].name}).")
    assert classes_in(now[-1]) == [CLASS, "SNAP-2"]


def test_a_failed_publish_says_so_in_one_line_without_server_paths(app):
    at = settings_page()
    started(app)
    folder = app.parent / "snapshots"
    for snap in published(app):
        snap.unlink()
    folder.rmdir()
    folder.write_text("not a folder")                                  # the snapshots folder cannot be made
    at.button(key="snapshot_publish").click().run()
    assert not at.exception, [e.value for e in at.exception]
    errors = values(at.error)
    assert errors == ["No snapshot was published: The snapshot could not be written beside the database. Ask whoever "
                      "runs the workbench to check its snapshots folder, then try again."]
    assert "\n" not in errors[0] and str(app.parent) not in errors[0]
    assert last_line(at) == "No snapshot has been published yet."
    assert not values(at.success)


def test_a_failed_snapshot_at_start_is_shown_on_the_page(tmp_path, monkeypatch):
    from ui import shared
    db = new_database(tmp_path)
    (db.parent / "snapshots").write_text("not a folder")
    monkeypatch.setenv("WORKBENCH_DB", str(db))
    monkeypatch.setenv("WORKBENCH_SNAPSHOT_INTERVAL", "3600")
    monkeypatch.chdir(ROOT)
    shared._open.clear()
    try:
        settings_page()
        started(db)
        at = settings_page()
        assert ("The snapshot when the app started failed: The snapshot could not be written beside the database. "
                "Ask whoever runs the workbench to check its snapshots folder, then try again.") in values(at.warning)
        assert last_line(at) == "No snapshot has been published yet."
        (db.parent / "snapshots").unlink()                              # fixed: the button publishes, the warning goes
        at.button(key="snapshot_publish").click().run()
        assert not values(at.error) and len(published(db)) == 1
        at = settings_page()
        assert not any("when the app started failed" in w for w in values(at.warning))
    finally:
        shared._open(str(db)).store.close()
        shared._open.clear()
        shared._runner.clear()


def test_with_postgresql_the_page_says_notebooks_read_the_live_database(pg_url, monkeypatch):
    from core.school.classes import create_class
    from core.store import Store
    from ui import shared
    store = Store(pg_url)
    create_class(store, CLASS, "Snapshot class", "Mathematics", "Nat 5")
    store.close()
    monkeypatch.setenv("WORKBENCH_DB", pg_url)
    monkeypatch.setenv("WORKBENCH_SNAPSHOT_INTERVAL", "3600")
    monkeypatch.chdir(ROOT)
    shared._open.clear()
    try:
        at = settings_page()
        assert shared._open(pg_url).start_snapshot is None                # nothing to publish at start either
        assert snapshots.POSTGRES_NOTE in values(at.info)
        assert BUTTON not in [b.label for b in at.button]
        assert not any(c.startswith(("Last snapshot", "No snapshot")) for c in values(at.caption))
    finally:
        shared._open(pg_url).store.close()
        shared._open.clear()
        shared._runner.clear()


def test_the_last_snapshot_line():
    taken = dt.datetime(2025, 3, 1, 14, 5, 12, tzinfo=dt.timezone.utc)
    status = snapshots.SnapshotStatus("school-20250301T140512000000Z.duckdb", taken)
    line = status.sentence(now=taken + dt.timedelta(minutes=3, seconds=10))
    assert line == "Last snapshot: 14:05 UTC, 3 minutes ago (school-20250301T140512000000Z.duckdb)."
    assert status.sentence(now=taken + dt.timedelta(days=2)).startswith("Last snapshot: 2025-03-01 14:05 UTC, 2 days")
    assert snapshots.SnapshotStatus(None, None).sentence() == "No snapshot has been published yet."
    assert snapshots.taken_at(Path("school-20250301T140512000000Z.duckdb")) == taken
    assert [snapshots.ago(s) for s in (5, 70, 3500, 7200, 90000)] == \
        ["just now", "1 minute ago", "1 hour ago", "2 hours ago", "1 day ago"]
