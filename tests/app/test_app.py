"""The app through Streamlit's AppTest, on a temporary database."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def app(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(tmp_path / "app.duckdb"))
    monkeypatch.chdir(ROOT)
    from pages import shared
    shared._open.clear()
    yield AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    shared._open(str(tmp_path / "app.duckdb")).store.close()  # stops its snapshot thread too
    shared._open.clear()


def test_first_run_creates_the_database_with_the_library(app, tmp_path: Path):
    at = app.run()
    assert not at.exception
    assert at.title[0].value == "Teacher Workbench"
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Skill blueprints"]) >= 16
    assert int(metrics["Course specs"]) >= 1
    assert (tmp_path / "app.duckdb").exists()


def test_busy_database_is_a_sentence_not_a_stack_trace(app, tmp_path: Path):
    import subprocess
    import sys
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, time, sys; c = duckdb.connect(sys.argv[1]); "
                               "print('ready', flush=True); time.sleep(60)", str(tmp_path / "app.duckdb")],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        at = app.run()
        assert not at.exception
        assert at.error and "in use" in at.error[0].value and str(holder.pid) in at.error[0].value
    finally:
        holder.kill()
        holder.wait()
