"""Sign-in through the app: a class's PINs turned on, printed and reset on the Class page and checked at
sign-in; the teacher's passcode slowed down after wrong guesses but never locked."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.school import throttle
from core.school.auth import DEMO_PASSCODE

ROOT = Path(__file__).resolve().parents[2]
TEACHER = {"role": "teacher", "user": "teacher", "name": "Teacher"}
NAMES = ["Amy Pond", "Rory Williams", "Zoë Martin", "王小明"]


@pytest.fixture
def app(tmp_path: Path, monkeypatch):
    db = tmp_path / "app.duckdb"
    monkeypatch.setenv("WORKBENCH_DB", str(db))
    monkeypatch.delenv("WORKBENCH_TEACHER_PASSCODE", raising=False)
    monkeypatch.delenv("WORKBENCH_TEACHER_PASSCODE_HASH", raising=False)
    monkeypatch.chdir(ROOT)
    from core.school.classes import add_student, create_class
    from core.store import Store
    store = Store(db)
    create_class(store, "T-CLASS", "Test class", "Mathematics", "Nat 5")
    create_class(store, "OPEN-1", "No PINs", "Mathematics", "Nat 5")
    for name in NAMES:
        add_student(store, "T-CLASS", name)
    add_student(store, "OPEN-1", "Amy Pond")
    store.close()
    from ui import shared
    shared._open.clear()
    shared._runner.clear()
    yield db
    shared._open(str(db)).store.close()
    shared._open.clear()
    shared._runner.clear()


def texts(at: AppTest) -> str:
    parts = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success", "title", "subheader"):
        parts += [str(e.value) for e in getattr(at, kind)]
    return "\n".join(parts)


def sign_in_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    return at


def class_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["user"] = dict(TEACHER)
    at.run()
    at.switch_page("pages/teacher_class.py").run()
    assert not at.exception, at.exception
    at.selectbox(key="cls_code").select("T-CLASS").run()
    return at


def sign_in_student(at: AppTest, code: str, name: str, pin: str = "") -> AppTest:
    at.text_input(key="student_code").input(code)
    at.text_input(key="student_name").input(name)
    at.text_input(key="student_pin").input(pin)
    return at.button(key="student_go").click().run()


def sheet(at: AppTest) -> dict[str, str]:
    """The PIN sheet on the Class page: name -> PIN as typed."""
    frame = next(d.value for d in at.dataframe if list(d.value.columns) == ["name", "PIN"])
    return {name: pin.replace(" ", "") for name, pin in zip(frame["name"], frame["PIN"])}


def test_a_class_without_pins_signs_in_with_code_and_name(app):
    at = sign_in_student(sign_in_page(), "open-1", "amy pond")
    assert not at.exception and at.session_state["user"]["user"] == "OPEN-1:amy-pond"


def test_pins_turned_on_printed_and_checked_at_sign_in(app):
    at = class_page()
    assert "PIN sheet" not in texts(at)
    at.checkbox(key="cls_pin_T-CLASS").check()
    at.button(key="cls_settings_go").click().run()
    assert not at.exception
    assert "New PINs for 4 student(s) are on the PIN sheet below" in texts(at)
    pins_shown = sheet(at)
    assert sorted(pins_shown) == sorted(NAMES)
    assert all(len(p) == 6 and p.isdigit() for p in pins_shown.values())
    downloads = at.get("download_button")
    assert len(downloads) == 2
    assert "4 of 4 students have a PIN" in texts(at)

    # A student: the name alone, a wrong PIN, then the right one.
    student = sign_in_page()
    student = sign_in_student(student, "T-CLASS", "Zoë Martin")
    assert "type the PIN" in texts(student) and "user" not in student.session_state
    wrong = "000000" if pins_shown["Zoë Martin"] != "000000" else "111111"
    student = sign_in_student(student, "T-CLASS", "Zoë Martin", wrong)
    assert "PIN is not right" in texts(student) and "user" not in student.session_state
    student = sign_in_student(student, "t-class", "zoë martin", pins_shown["Zoë Martin"])
    assert not student.exception and student.session_state["user"]["name"] == "Zoë Martin"

    # Hiding the sheet: the PINs are not shown again, only their issue date.
    at.button(key="cls_pin_hide").click().run()
    assert "PIN sheet" not in texts(at)
    assert all(p not in texts(at) for p in pins_shown.values())

    # Resetting Rory's PIN: the new one is on a sheet of its own and works; the old one does not.
    from core.school.names import student_id
    at.selectbox(key="cls_pin_reset_who").select(student_id("T-CLASS", "Rory Williams"))
    at.button(key="cls_pin_reset_go").click().run()
    assert not at.exception and "Rory Williams has a new PIN" in texts(at)
    new = sheet(at)
    assert list(new) == ["Rory Williams"]
    rory = sign_in_page()
    if new["Rory Williams"] != pins_shown["Rory Williams"]:
        rory = sign_in_student(rory, "T-CLASS", "Rory Williams", pins_shown["Rory Williams"])
        assert "user" not in rory.session_state
    rory = sign_in_student(rory, "T-CLASS", "Rory Williams", new["Rory Williams"])
    assert rory.session_state["user"]["name"] == "Rory Williams"


def test_a_student_added_to_a_pin_class_gets_a_pin_on_the_sheet(app):
    at = class_page()
    at.checkbox(key="cls_pin_T-CLASS").check()
    at.button(key="cls_settings_go").click().run()
    at.button(key="cls_pin_hide").click().run()
    at.text_input(key="cls_add_name").input("Clara Oswald")
    at.button(key="cls_add_go").click().run()
    assert not at.exception and "Clara Oswald added to T-CLASS. New PINs for 1 student(s)" in texts(at)
    clara = sheet(at)["Clara Oswald"]
    student = sign_in_student(sign_in_page(), "T-CLASS", "Clara Oswald", clara)
    assert student.session_state["user"]["name"] == "Clara Oswald"


def test_wrong_passcodes_slow_the_browser_down_but_do_not_lock_the_teacher_out(app, monkeypatch):
    now = [dt.datetime(2030, 1, 6, 9, 0, 0)]
    monkeypatch.setattr(throttle, "clock", lambda: now[0])
    monkeypatch.setattr(throttle, "sleep", lambda seconds: None)
    at = sign_in_page()
    for _ in range(throttle.SESSION.free):
        at.text_input(key="teacher_passcode").input("wrong")
        at.button(key="teacher_go").click().run()
        assert "passcode is not right" in texts(at)
    at.text_input(key="teacher_passcode").input(DEMO_PASSCODE)
    at.button(key="teacher_go").click().run()
    assert "Too many wrong passcodes from this browser. Try again in 1 second." in texts(at)
    assert "user" not in at.session_state
    # Another browser is not held up by this one (test apps all share one session id, so it is given its own).
    from ui import shared
    with monkeypatch.context() as mp:
        mp.setattr(shared, "client", lambda: throttle.Client(session="the teacher's laptop"))
        other = sign_in_page()
        other.text_input(key="teacher_passcode").input(DEMO_PASSCODE)
        other.button(key="teacher_go").click().run()
        assert other.session_state["user"]["role"] == "teacher"
    # And this one gets in once its short wait is over.
    now[0] += dt.timedelta(seconds=1)
    at.text_input(key="teacher_passcode").input(DEMO_PASSCODE)
    at.button(key="teacher_go").click().run()
    assert at.session_state["user"]["role"] == "teacher"
