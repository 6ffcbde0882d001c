"""Signed in across reloads and tabs (a signed, expiring, revocable token in the address), every address leads
somewhere, and storage failures are one sentence for the visitor.

A reload is a new AppTest (a new browser session) given the address's query
parameters and page. The server runs app.py on every run; AppTest, seeing a
``pages/`` folder, would run a page's file directly after the first run, so
``server_like`` makes it run app.py each time, as the server does.
"""
from __future__ import annotations

import datetime as dt

import duckdb
import pytest
from streamlit.runtime.pages_manager import PagesManager
from streamlit.testing.v1 import AppTest

from core.school import sign_in_tokens as tokens
from core.school.auth import DEMO_PASSCODE
from core.store import Store
from tests.app.test_app import ROOT, app, prepare_db, sign_in_student, sign_in_teacher, texts  # noqa: F401

PARAM = "session"


@pytest.fixture
def server_like(monkeypatch):
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False
    monkeypatch.setattr(PagesManager, "__init__", init)


def reload(token: str | None, page: str | None = None) -> AppTest:
    """The same address opened again (a reload, or the address pasted in a new tab): a new session."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    if token is not None:
        at.query_params[PARAM] = token
    if page is not None:
        at.switch_page(page)
    return at.run()


def titles(at: AppTest) -> list[str]:
    return [t.value for t in at.title]


def addresses(at: AppTest) -> set[str]:
    return {info.get("url_pathname") for info in at._registered_pages.values()}


def shared_store():
    import os

    from ui import shared
    return shared._open(os.environ["WORKBENCH_DB"]).store


def test_a_student_stays_signed_in_across_a_reload_and_lands_on_the_same_page(app, server_like, tmp_path):
    prepare_db(tmp_path / "app.duckdb")
    at = sign_in_student(app.run(), "T-CLASS", "Amy Pond")
    token = at.query_params.get(PARAM)
    assert token and at.session_state["user"]["user"] == "T-CLASS:amy-pond"
    at.switch_page("pages/student_exam.py").run()
    assert at.query_params.get(PARAM) == token             # still in the address after moving page
    again = reload(token, "pages/student_exam.py")
    assert not again.exception
    assert again.session_state["user"] == at.session_state["user"]
    assert titles(again) == ["Mock exam"]                  # the page that was open, not the sign-in form
    assert again.query_params.get(PARAM) == token
    tab = reload(token)                                   # the address in another tab: the role's first page
    assert tab.session_state["user"]["role"] == "student" and titles(tab) == ["Practice"]


def test_signing_out_revokes_the_token_everywhere(app, server_like, tmp_path):
    prepare_db(tmp_path / "app.duckdb")
    at = sign_in_teacher(app.run(), DEMO_PASSCODE)
    token = at.query_params.get(PARAM)
    other_tab = reload(token, "pages/teacher_class.py")
    assert other_tab.session_state["user"]["role"] == "teacher"
    at.switch_page("pages/sign_out.py").run()
    assert "user" not in at.session_state and PARAM not in at.query_params
    back = reload(token)
    assert "user" not in back.session_state and back.button(key="teacher_go")
    assert PARAM not in back.query_params                  # a dead token is taken out of the address
    other_tab.run()                                        # the other tab's next click: signed out there too
    assert "user" not in other_tab.session_state and other_tab.button(key="teacher_go")


def test_forged_expired_and_foreign_tokens_sign_no_one_in(app, server_like, tmp_path, monkeypatch):
    prepare_db(tmp_path / "app.duckdb")
    at = sign_in_student(app.run(), "T-CLASS", "Amy Pond")
    token = at.query_params.get(PARAM)
    token_id, expiry, signature = token.split(".")
    later = str(int(expiry) + 86_400)
    for bad in [f"{token_id}.{later}.{signature}",                     # expiry pushed back: signature fails
                f"{token_id}.{expiry}.{signature[:-2]}AA",              # signature altered
                "x" * 500, "not-a-token", f"{token_id}.{expiry}"]:
        assert "user" not in reload(bad).session_state, bad
    monkeypatch.setenv("WORKBENCH_SECRET_KEY", "another server's key")  # signed by another key
    assert "user" not in reload(token).session_state
    monkeypatch.delenv("WORKBENCH_SECRET_KEY")
    assert reload(token).session_state["user"]["user"] == "T-CLASS:amy-pond"
    monkeypatch.setattr(tokens, "utc_now", lambda: dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
                        + dt.timedelta(hours=13))                        # past the 12 hours a token lasts
    assert "user" not in reload(token).session_state


def test_the_database_holds_no_usable_token(app, server_like, tmp_path):
    prepare_db(tmp_path / "app.duckdb")
    at = sign_in_student(app.run(), "T-CLASS", "Amy Pond")
    token = at.query_params.get(PARAM)
    token_id = token.split(".")[0]
    rows = shared_store().query("SELECT token_hash, who, expires_at, revoked_at FROM sign_in_tokens")
    assert len(rows) == 1 and token_id not in rows[0][0] and "amy-pond" in rows[0][1] and rows[0][3] is None
    assert token_id.encode() not in (tmp_path / "app.duckdb").read_bytes()
    assert (tmp_path / "app.secrets.json").exists()                       # the signing key, beside the file


def test_every_page_address_leads_somewhere_whoever_opens_it(app, server_like, tmp_path):
    prepare_db(tmp_path / "app.duckdb")
    pages = sorted(p.stem for p in (ROOT / "pages").glob("*.py"))
    at = app.run()
    assert set(pages) - {"sign_in"} <= addresses(at)         # signed out: any page's address (a reload)
    signed_out = reload(None, "pages/student_exam.py")       # shows the sign-in form...
    assert signed_out.button(key="student_go") and not signed_out.exception
    signed_out = sign_in_student(signed_out, "T-CLASS", "Amy Pond")
    assert titles(signed_out) == ["Mock exam"]               # ...and, once signed in, the page asked for
    assert set(pages) - {"student_practice"} <= addresses(signed_out)   # the first page's address is the root
    teacher_page = reload(signed_out.query_params[PARAM], "pages/teacher_class.py")
    assert not teacher_page.exception and titles(teacher_page) == ["Practice"]   # not the Class page


def test_a_damaged_database_is_one_sentence_without_a_path(app, tmp_path):
    (tmp_path / "app.duckdb").write_bytes(b"garbage, not a database" * 500)
    at = app.run()
    assert not at.exception
    assert len(at.error) == 1 and "damaged" in at.error[0].value and "backup" in at.error[0].value
    assert str(tmp_path) not in texts(at) and "app.duckdb" not in texts(at) and "Traceback" not in texts(at)
    (tmp_path / "app.duckdb").unlink()   # restored from a backup (an empty one), for the fixture to close


def test_a_database_held_by_a_notebook_is_one_sentence_without_a_path(app, tmp_path):
    import subprocess
    import sys
    prepare_db(tmp_path / "app.duckdb")
    holder = subprocess.Popen([sys.executable, "-c", "import duckdb, time, sys; c = duckdb.connect(sys.argv[1]); "
                               "print('ready', flush=True); time.sleep(60)", str(tmp_path / "app.duckdb")],
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "ready"
        at = app.run()
        assert not at.exception and len(at.error) == 1
        assert "in use" in at.error[0].value and "reload" in at.error[0].value
        assert str(tmp_path) not in texts(at)
    finally:
        holder.kill()
        holder.wait()


def test_a_full_disk_is_one_sentence_and_the_app_recovers(app, server_like, tmp_path, monkeypatch):
    prepare_db(tmp_path / "app.duckdb")
    at = app.run()
    full = {"on": True}
    original = Store.write

    def write(self, fn, retries=12):
        if full["on"]:
            raise duckdb.TransactionException('TransactionContext Error: Failed to commit: Could not write file '
                                              f'"{self.path}.wal": No space left on device')
        return original(self, fn, retries)
    monkeypatch.setattr(Store, "write", write)
    at = sign_in_student(at, "T-CLASS", "Amy Pond")
    assert not at.exception
    assert any("disk is full" in e.value for e in at.error) and str(tmp_path) not in texts(at)
    full["on"] = False
    at = sign_in_student(at, "T-CLASS", "Amy Pond")
    assert not at.exception and at.session_state["user"]["user"] == "T-CLASS:amy-pond"


def test_the_settings_page_keeps_the_key_out_of_the_database_and_never_shows_it(app, server_like, tmp_path):
    key = "sk-settings-page-0123456789abcdef"
    prepare_db(tmp_path / "app.duckdb")
    at = sign_in_teacher(app.run(), DEMO_PASSCODE)
    at.switch_page("pages/teacher_settings.py").run()
    boxes = {t.label: t for t in at.text_input}
    boxes["Server URL"].input("http://127.0.0.1:9/v1")
    boxes["API key"].input(key)
    boxes["Model"].input("m-default")
    at.button[0].click().run()
    assert not at.exception and any(s.value.startswith("Saved.") for s in at.success)
    # Nothing answers at that address: the settings are saved, and the page warns rather than saying "on".
    assert any("could not be reached" in w.value for w in at.warning)
    at = reload(at.query_params[PARAM], "pages/teacher_settings.py")
    api_key = {t.label: t for t in at.text_input}["API key"]
    assert api_key.value == "" and "a key is saved" in api_key.placeholder and key not in texts(at)
    store = shared_store()
    assert key not in str(store.query("SELECT value FROM app_settings"))
    store.cursor().execute("CHECKPOINT")
    assert key.encode() not in (tmp_path / "app.duckdb").read_bytes()
    assert key in (tmp_path / "app.secrets.json").read_text()
