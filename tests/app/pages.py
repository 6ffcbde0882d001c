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


def show_question(at: AppTest, sid: str, item_id: str) -> AppTest:
    """On a mock exam paper, go to the screen that holds the question's answer box, with the navigator above
    the questions (as a student would); the page as it was when the box is on screen already."""
    prefix = f"ex_{sid}_{item_id}"

    def shown() -> bool:
        return any(str(getattr(w, "key", None) or "").startswith(prefix)
                   for w in (*at.text_input, *at.radio, *at.checkbox))

    if shown():
        return at
    navigator = at.segmented_control(key=f"exam_screen_{sid}")
    for index in range(len(navigator.options)):
        at.segmented_control(key=f"exam_screen_{sid}").set_value(index)
        run(at)
        if shown():
            return at
    raise AssertionError(f"question {item_id} is on no screen of the paper {sid}")
