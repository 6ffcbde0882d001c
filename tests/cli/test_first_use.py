"""First use of the installed command: the default database, exams that can be continued, the demo class,
and the one line a busy database gets."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import ROOT, run, run_process


def workbench_script() -> str:
    beside = Path(sys.executable).parent / "workbench"
    found = str(beside) if beside.exists() else shutil.which("workbench")
    if not found:
        pytest.fail("the `workbench` command is not installed: run `pip install -r requirements.txt`")
    return found


def test_the_installed_command_runs_from_any_folder(tmp_path: Path):
    out = subprocess.run([workbench_script(), "--help"], capture_output=True, text=True, cwd=tmp_path, timeout=60,
                         env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("usage: workbench") and "demo" in out.stdout and "session" in out.stdout
    assert list(tmp_path.iterdir()) == []


def test_a_command_without_db_creates_and_initialises_the_default(default_db: Path):
    assert not default_db.exists()
    out = run("session", "start", "practice", "--arg", "subject=Mathematics", "--arg", "level=Nat 4", "--json")
    assert out.returncode == 0, out.stderr
    sid = json.loads(out.stdout)["session_id"]
    assert default_db.exists()
    from core.store import Store, repo
    store = Store(default_db)
    try:
        assert sum(repo.count_blueprints(store).values()) >= 18
        assert store.query("SELECT kind FROM sessions WHERE id = ?", [sid]) == [("practice",)]
    finally:
        store.close()


def test_exam_uses_the_default_database_leaves_no_temp_files_and_can_be_continued(tmp_path: Path, monkeypatch):
    private_tmp = tmp_path / "tmp"
    private_tmp.mkdir()
    monkeypatch.setenv("TMPDIR", str(private_tmp))
    # Real processes: TMPDIR is read by each library as a process starts (Python's tempfile keeps the first
    # answer for the life of the process), so only a process of its own is sure to put its temp files there.
    out = run_process("exam", "--subject", "Mathematics", "--level", "Nat 5", "--seed", "2", "--json")
    assert out.returncode == 0, out.stderr
    exam = json.loads(out.stdout)
    sid, first = exam["session_id"], exam["sections"][0]["questions"][0]
    saved = run_process("session", "do", sid, "save", "--arg", f"item_id={first['id']}", "--arg", "answer=7 cm",
                        "--json")
    assert saved.returncode == 0, saved.stderr
    assert json.loads(saved.stdout)["stage"] == "sitting"
    submitted = run_process("session", "do", sid, "submit", "--json")
    assert submitted.returncode == 0, submitted.stderr
    results = json.loads(submitted.stdout)["results"]["questions"]
    assert results[first["id"]]["answer"] == "7 cm" and len(results) == exam["question_count"]
    assert list(private_tmp.iterdir()) == []


# --------------------------------------------------------------------------
# The demo class


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> tuple[Path, dict]:
    db = tmp_path_factory.mktemp("demo") / "demo.duckdb"
    out = run("demo", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    return db, json.loads(out.stdout)


def test_demo_builds_the_class_the_app_shows_on_first_run(demo):
    db, summary = demo
    assert summary["db"] == str(db) and summary["created"] is True and summary["reset"] is False
    assert summary["class_code"] and summary["students"] == 8
    assert len(summary["sessions"]) >= 2 and all(n > 0 for n in summary["sessions"].values())
    assert summary["first_activity"] <= summary["last_activity"]


def test_demo_again_keeps_the_class_and_says_so(demo):
    db, summary = demo
    out = run("demo", "--db", str(db))
    assert out.returncode == 0, out.stderr
    assert f"demo class {summary['class_code']}" in out.stdout and "already there" in out.stdout
    assert "8 students" in out.stdout


def test_demo_refuses_a_database_that_already_has_other_classes(tmp_path: Path):
    from core.school.classes import create_class
    from core.store import Store
    db = tmp_path / "school.duckdb"
    store = Store(db)
    try:
        create_class(store, "S4-MATHS", "S4 Maths", "Mathematics", "Nat 5")
    finally:
        store.close()
    out = run("demo", "--db", str(db), "--json")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "already has classes" in out.stderr


# --------------------------------------------------------------------------
# A database open in another program

HOLDER = """
import sys, time
sys.path.insert(0, {root!r})
from core.store import Store
store = Store({db!r})
{snapshot}
print("ready", flush=True)
time.sleep(120)
"""


def hold(db: Path, snapshot: bool) -> subprocess.Popen:
    code = HOLDER.format(root=str(ROOT), db=str(db), snapshot="print(store.publish_snapshot(), flush=True)"
                         if snapshot else "")
    return subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)


@pytest.mark.parametrize("command", [["snapshot"], ["session", "view", "exam_x"]])
def test_a_busy_database_is_one_line_naming_the_holder_and_the_snapshot(tmp_path: Path, command):
    db = tmp_path / "busy.duckdb"
    proc = hold(db, snapshot=True)
    try:
        snapshot = proc.stdout.readline().strip()
        assert proc.stdout.readline().strip() == "ready"
        out = run(*command, "--db", str(db))
        assert out.returncode == 2 and out.stdout == ""
        assert out.stderr.count("\n") == 1
        line = out.stderr
        assert f"database {db} is open in process {proc.pid}" in line
        assert f"newest snapshot is {snapshot}, taken" in line and "seconds ago" in line
        assert "every five minutes" in line and f"workbench snapshot --db {db}" in line
    finally:
        proc.kill()
        proc.wait()


def test_a_busy_database_without_a_snapshot_says_there_is_none(tmp_path: Path):
    db = tmp_path / "busy.duckdb"
    proc = hold(db, snapshot=False)
    try:
        assert proc.stdout.readline().strip() == "ready"
        # Two real processes, as a teacher meets it: the command's process ends with exit 2 and the one line.
        out = run_process("llm-status", "--db", str(db))
        assert out.returncode == 2 and out.stderr.count("\n") == 1
        assert f"process {proc.pid}" in out.stderr and "no snapshot of it has been published yet" in out.stderr
        assert f"workbench snapshot --db {db}" in out.stderr
    finally:
        proc.kill()
        proc.wait()
