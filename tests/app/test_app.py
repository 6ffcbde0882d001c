"""The app through Streamlit's AppTest, on a temporary database: first run, sign-in, roles."""
from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.school.auth import DEMO_PASSCODE

ROOT = Path(__file__).resolve().parents[2]


def prepare_db(path: Path, with_class: bool = True) -> None:
    """A database that already has a class, so the slow first-run demo is skipped."""
    from core.school.classes import add_student, create_class
    from core.store import Store
    store = Store(path)
    if with_class:
        create_class(store, "T-CLASS", "Test class", "Mathematics", "Nat 5")
        add_student(store, "T-CLASS", "Amy Pond")
    store.close()


@pytest.fixture
def app(tmp_path: Path, monkeypatch):
    db = tmp_path / "app.duckdb"
    monkeypatch.setenv("WORKBENCH_DB", str(db))
    monkeypatch.delenv("WORKBENCH_TEACHER_PASSCODE", raising=False)
    monkeypatch.delenv("WORKBENCH_TEACHER_PASSCODE_HASH", raising=False)
    monkeypatch.chdir(ROOT)
    from ui import shared
    shared._open.clear()
    shared._runner.clear()
    yield AppTest.from_file(str(ROOT / "app.py"), default_timeout=180)
    shared._open(str(db)).store.close()  # stops its snapshot thread too
    shared._open.clear()
    shared._runner.clear()


def texts(at: AppTest) -> str:
    parts = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success", "title", "header", "subheader", "text"):
        parts += [str(e.value) for e in getattr(at, kind)]
    return "\n".join(parts)


def sign_in_teacher(at: AppTest, passcode: str) -> AppTest:
    at.text_input(key="teacher_passcode").input(passcode)
    return at.button(key="teacher_go").click().run()


def sign_in_student(at: AppTest, code: str, name: str) -> AppTest:
    at.text_input(key="student_code").input(code)
    at.text_input(key="student_name").input(name)
    return at.button(key="student_go").click().run()


def test_first_run_loads_the_library_and_a_demo_class(app, tmp_path: Path):
    at = app.run()
    assert not at.exception
    assert at.title[0].value == "Teacher Workbench"
    assert (tmp_path / "app.duckdb").exists()
    from ui import shared
    from core.store import school
    store = shared._open(str(tmp_path / "app.duckdb")).store
    demo = school.get_class(store, "DEMO-N5")
    assert demo is not None and len(school.roster(store, "DEMO-N5")) == 8
    assert store.query("SELECT count(*) FROM responses")[0][0] > 50
    at = sign_in_student(at, "demo-n5", "Ava Brown")
    assert not at.exception and at.session_state["user"]["role"] == "student"


def test_teacher_signs_in_with_the_passcode_and_sees_the_demo_warning(app, tmp_path: Path):
    prepare_db(tmp_path / "app.duckdb")
    at = app.run()
    at = sign_in_teacher(at, "not the passcode")
    assert "passcode is not right" in texts(at) and "user" not in at.session_state
    at = sign_in_teacher(at, DEMO_PASSCODE)
    assert not at.exception and at.session_state["user"]["role"] == "teacher"
    at.switch_page("pages/home.py").run()
    metrics = {m.label: m.value for m in at.metric}
    assert int(metrics["Skill blueprints"]) >= 70
    assert "demo teacher passcode is in use" in texts(at)


def test_configured_passcode_replaces_the_demo_one(app, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_TEACHER_PASSCODE", "correct horse battery")
    prepare_db(tmp_path / "app.duckdb")
    at = app.run()
    at = sign_in_teacher(at, DEMO_PASSCODE)
    assert "user" not in at.session_state
    at = sign_in_teacher(at, "correct horse battery")
    assert at.session_state["user"]["role"] == "teacher"
    at.switch_page("pages/home.py").run()
    assert at.metric and "demo teacher passcode" not in texts(at)


def test_failed_attempts_are_rate_limited(app, tmp_path: Path, monkeypatch):
    import datetime as dt

    from core.school import throttle
    frozen = dt.datetime(2030, 1, 6, 9, 0, 0)
    monkeypatch.setattr(throttle, "clock", lambda: frozen)
    prepare_db(tmp_path / "app.duckdb")
    at = app.run()
    for _ in range(throttle.SESSION.free):
        at = sign_in_teacher(at, "wrong")
    at = sign_in_teacher(at, DEMO_PASSCODE)
    assert "Too many wrong passcodes" in texts(at) and "user" not in at.session_state


def test_student_signs_in_from_the_roster_only(app, tmp_path: Path):
    prepare_db(tmp_path / "app.duckdb")
    at = app.run()
    at = sign_in_student(at, "T-CLASS", "Rory Williams")
    assert "not on the class list" in texts(at) and "user" not in at.session_state
    at = sign_in_student(at, "NO-CLASS", "Amy Pond")
    assert "no class with the code" in texts(at)
    at = sign_in_student(at, "t-class", "amy pond")
    assert at.session_state["user"] == {"role": "student", "user": "T-CLASS:amy-pond", "name": "Amy Pond",
                                        "class_code": "T-CLASS"}


def test_sign_out_clears_the_session(app, tmp_path: Path):
    prepare_db(tmp_path / "app.duckdb")
    at = app.run()
    at = sign_in_student(at, "T-CLASS", "Amy Pond")
    at.switch_page("pages/sign_out.py").run()
    assert "user" not in at.session_state and "signed out" in texts(at)
    at.switch_page("pages/sign_in.py").run()
    assert at.button(key="student_go")


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
