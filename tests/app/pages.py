"""Opening one page of the app as a signed-in user, for the page tests."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def open_page(user: dict, page: Optional[str] = None, timeout: float = 120) -> AppTest:
    """The app run once as ``user``, switched to ``page`` (a file under pages/), with no exception shown."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=timeout)
    at.session_state["user"] = user
    at.run()
    if page:
        at.switch_page(page)
        at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def run(at: AppTest) -> AppTest:
    """Run the page again (after a click or an input), with no exception shown."""
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at
