"""PostgreSQL's own behaviour: connection URLs and their errors, several servers on one database, moving a
school across, and notebooks reading live data. (Every other store test also runs on PostgreSQL.)"""
from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from core.store import Store, StoreError, open_for_analysis, school, sessions
from core.store.db import masked_url

ROOT = Path(__file__).resolve().parents[2]


def _cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, env={**os.environ, "PYTHONPATH": str(ROOT)})


def test_masked_urls_never_show_the_password():
    assert masked_url("postgresql://amy:s3cret@db.school:5432/wb") == "postgresql://amy:***@db.school:5432/wb"
    assert masked_url("postgresql://amy@db/wb") == "postgresql://amy@db/wb"
    assert masked_url("postgres://db/wb?user=amy&password=s3cret&sslmode=require") == \
        "postgres://db/wb?user=amy&password=***&sslmode=require"


def test_an_unreachable_server_is_one_line_with_the_password_masked_and_no_folder_is_made(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    url = "postgresql://teacher:Hunter2pw@127.0.0.1:9/school"      # port 9: nothing listens
    with pytest.raises(StoreError) as info:
        Store(url)
    text = str(info.value)
    assert "Hunter2pw" not in text and "teacher:***@127.0.0.1:9/school" in text
    assert "\n" not in text and "check the server" in text
    assert list(tmp_path.iterdir()) == []          # the URL was not taken for a file path
    out = _cli("init", "--db", url, cwd=tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: cannot connect to postgresql://teacher:***@")
    assert "Hunter2pw" not in out.stderr and list(tmp_path.iterdir()) == []


def test_a_wrong_password_says_so_without_showing_it(pg_url):
    wrong = pg_url.replace(":wb-test-secret@", ":NotThePassword@")
    with pytest.raises(StoreError) as info:
        Store(wrong)
    assert "password authentication failed" in str(info.value)
    assert "NotThePassword" not in str(info.value) and "wb-test-secret" not in str(info.value)


def test_workbench_db_may_name_a_postgresql_database(pg_url, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", pg_url)
    store = Store()
    assert store.backend == "postgresql" and store.label == masked_url(pg_url)
    store.close()


def test_two_servers_bumping_one_row_lose_no_update(pg_url):
    """Two app servers (two stores, two pools) each adding 1 to the same row 40 times from 2 threads."""
    servers = [Store(pg_url), Store(pg_url)]
    servers[0].write(lambda cur: cur.execute("INSERT INTO mastery (student, skill, score) VALUES ('s', 'k', 0)"))

    def bump(cur):
        # Read, then write what was read plus one: only safe if a concurrent change makes this transaction retry.
        score = cur.execute("SELECT score FROM mastery WHERE student = 's' AND skill = 'k'").fetchall()[0][0]
        cur.execute("UPDATE mastery SET score = ? WHERE student = 's' AND skill = 'k'", [score + 1])

    errors: list[BaseException] = []

    def work(store: Store) -> None:
        try:
            for _ in range(40):
                store.write(bump, retries=200)
        except BaseException as exc:   # reported to the main thread below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(s,)) for s in servers for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert servers[1].query("SELECT score FROM mastery")[0][0] == 160
    for s in servers:
        s.close()


def test_a_stale_second_server_cannot_append_the_same_event_twice(pg_url):
    first, second = Store(pg_url), Store(pg_url)
    sid = sessions.create_session(first, "practice", "amy", {})
    assert sessions.append_events(first, sid, 0, [("a", {})]) == 1
    with pytest.raises(sessions.SequenceConflict):
        sessions.append_events(second, sid, 0, [("b", {})])
    assert [e["type"] for e in sessions.load_events(second, sid)] == ["a"]
    first.close()
    second.close()


def test_notebooks_read_postgresql_live_and_cannot_write(pg_url):
    store = Store(pg_url)
    school.create_class(store, "M4B", "Maths 4B", None, None)
    handle = open_for_analysis(pg_url)         # while the app's store is open: no snapshot needed
    assert handle.source == "live" and "PostgreSQL" in handle.description and "wb-test-secret" not in handle.description
    assert handle.sql("SELECT code, name FROM classes").to_dict("records") == [{"code": "M4B", "name": "Maths 4B"}]
    reader = handle.store()
    assert [c["code"] for c in school.list_classes(reader)] == ["M4B"]
    with pytest.raises(StoreError, match="read-only"):
        reader.write(lambda cur: cur.execute("DELETE FROM classes"))
    with pytest.raises(StoreError, match="read-only"):
        reader.query("DELETE FROM classes RETURNING code")      # the server refuses too
    reader.close()
    handle.close()
    store.close()


def test_publishing_a_snapshot_of_postgresql_says_why_not(pg_url):
    store = Store(pg_url)
    with pytest.raises(StoreError, match="notebooks read it directly"):
        store.publish_snapshot()
    store.close()


def test_a_school_moves_from_duckdb_to_postgresql_and_the_app_finds_it(tmp_path, pg_cluster):
    source = tmp_path / "school.duckdb"
    assert _cli("demo", "--db", str(source), "--json").returncode == 0
    target = pg_cluster.create_database(prefix="moved")
    out = _cli("migrate", "--from", str(source), "--to", target, "--json")
    assert out.returncode == 0, out.stderr
    import json
    report = json.loads(out.stdout)
    assert report["ok"] and "wb-test-secret" not in out.stdout
    tables = report["tables"]
    assert tables["responses"]["source_rows"] == tables["responses"]["target_rows"] > 100
    assert tables["responses"]["rows_sampled"] >= 100 and all(not t["mismatches"] for t in tables.values())
    old, new = Store(source), Store(target)
    for table in ("items", "sessions", "events", "responses", "classes", "roster", "mastery", "blueprints"):
        assert old.query(f"SELECT count(*) FROM {table}") == new.query(f"SELECT count(*) FROM {table}")
    assert school.list_classes(old) == school.list_classes(new)
    student = old.query("SELECT student FROM roster ORDER BY student LIMIT 1")[0][0]
    assert sessions.list_sessions(old, student=student) == sessions.list_sessions(new, student=student)
    old.close()
    new.close()
    again = _cli("migrate", "--from", str(source), "--to", target)
    assert again.returncode == 2 and "already holds data" in again.stderr and "wb-test-secret" not in again.stderr
    missing = _cli("migrate", "--from", str(tmp_path / "nope.duckdb"), "--to", target)
    assert missing.returncode == 2 and "no such database file" in missing.stderr


def test_a_database_not_there_yet_is_created_on_first_use_like_a_file(pg_cluster):
    url = pg_cluster.url("school_created_on_first_use")
    store = Store(url)
    assert store.query("SELECT max(version) FROM schema_migrations")[0][0] >= 13
    store.close()
    assert Store(url).query("SELECT count(*) FROM items") == [(0,)]      # the second open finds it there
    with pytest.raises(StoreError, match="does not exist"):   # reading never creates one
        open_for_analysis(pg_cluster.url("no_such_school"))


def test_two_app_servers_opening_a_new_database_together_both_start(pg_cluster):
    """Both store the blueprints and shipped banks once: the second waits for the first, then finds them."""
    url = pg_cluster.create_database(prefix="two_starts")
    code = ("import sys; sys.path.insert(0, {root!r}); from core.workbench import open_workbench; "
            "wb = open_workbench({url!r}); print(wb.new_blueprint_versions); wb.store.close()")
    procs = [subprocess.Popen([sys.executable, "-c", code.format(root=str(ROOT), url=url)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [err for _, err in results]
    stored = sorted(int(out.split()[-1]) for out, _ in results)
    assert stored[0] == 0 and stored[1] > 50        # one stored every blueprint, the other found them there
    store = Store(url)
    banks, distinct = store.query("SELECT count(*), count(DISTINCT content_key) FROM items")[0]
    assert banks > 0 and distinct == banks          # the shipped bank questions, each once
    store.close()
