"""An assigned exam in a real browser whose clock is frozen: the server still ends it at the deadline.

The page's clock is paused with Playwright's clock, so the countdown on the page never runs out (as on a
laptop whose clock is wrong, or a page someone tampered with). The server decides: once the time limit has
passed, the next answer is refused and kept as late, and the student reads "Time is up: your answers saved
by HH:MM were marked", not that the paper was submitted. On the way, an answer typed and left (a click
elsewhere, no Enter) survives a reload.

Same setup as test_student_browser: `streamlit run app.py` on a free port, Debian's chromium via Playwright.
"""
from __future__ import annotations

import datetime as dt
import json
import re
import time
from pathlib import Path

import pytest

from tests.browser.app_server import ARTIFACTS, IDLE, launch, needs_chromium, running_app, settle

CLASS, NAME = "C-CLOCK", "Cleo Clock"
LIMIT_MINUTES = 0.35  # fractional limits are allowed in core; the page offers whole minutes
GRACE = 5.0           # core.flows.exam.GRACE_SECONDS


def pump(page, ready, what: str, step_ms: int = 100, timeout: float = 45.0) -> None:
    """With the page's clock paused, let its timers run in small steps until ``ready()`` (a busy server may
    take a while to answer: the wait is bounded in real time)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ready():
            return
        page.clock.run_for(step_ms)
        page.wait_for_timeout(100)
    if not ready():
        page.screenshot(path=str(ARTIFACTS / "exam_clock_stuck.png"))
        pytest.fail(f"the page did not get to {what}; it shows:\n"
                    f"{page.locator('[data-testid=stMain]').inner_text()[:1500]}")


pytestmark = needs_chromium


def test_the_server_ends_an_assigned_exam_whatever_the_page_clock_says(tmp_path: Path):
    from playwright.sync_api import expect, sync_playwright

    from core.school import assignments
    from core.school.classes import add_student, create_class
    from core.store import Store
    db = tmp_path / "clock.duckdb"
    store = Store(db)
    create_class(store, CLASS, "Clock class", "Mathematics", "Nat 5")
    student = add_student(store, CLASS, NAME)
    now = assignments.utc()
    assignments.create(store, CLASS, "Timed prelim", {"subject": "Mathematics", "level": "Nat 5",
                                                      "seed": "clock", "paper_key": "paper:clock"},
                       now - dt.timedelta(hours=1), now + dt.timedelta(days=1), LIMIT_MINUTES)
    store.close()

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = tmp_path / "streamlit.log"
    with running_app(db, log) as url, sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(30_000)
            page.clock.install()   # the page's clock is ours from the first script on
            page.goto(f"{url}/student_exam")
            page.wait_for_selector(IDLE, timeout=90_000)
            page.get_by_label("Class code").fill(CLASS)
            page.get_by_label("Your name").fill(NAME)
            page.locator("button:visible", has_text="Sign in").first.click()
            expect(page.get_by_text("Timed prelim")).to_be_visible(timeout=30_000)
            settle(page)

            page.get_by_role("button", name="Start", exact=True).click()
            started = time.monotonic()   # the server's deadline is a little after this
            heading = page.get_by_role("heading", name="Mathematics Nat 5: mock exam")
            expect(heading).to_be_visible(timeout=60_000)
            settle(page)
            # The paper is sat a screen at a time: the first screen with two typed answers.
            boxes = page.get_by_role("textbox", name="Your answer to question")
            screens = page.get_by_role("radiogroup", name="Questions").get_by_role("radio")
            expect(screens.first).to_be_visible()   # the heading is drawn before the rest of the paper
            for k in range(1, screens.count()):
                if boxes.count() >= 2:
                    break
                screens.nth(k).click()
                expect(screens.nth(k)).to_be_checked()
                settle(page)
            assert boxes.count() >= 2, "no screen of the paper has two typed answers"

            # Frozen from here: the page's time moves only as far as pump() lets the app's own timers run
            # (a few seconds in all), so the countdown never runs out and the page never asks the server
            # whether time is up; only the student's own actions reach it.
            page.clock.pause_at(dt.datetime.now() + dt.timedelta(seconds=1))
            countdown = page.frame_locator("iframe[title='Time left in the exam']").locator("#clock")

            # Typed, then a click elsewhere (no Enter): saved on leaving the box.
            page.get_by_role("textbox", name="Your answer to question").first.fill("12")
            heading.click()
            pump(page, lambda: page.get_by_text("1 of ").count() > 0, "the answer to be saved")
            page.reload()
            pump(page, lambda: page.locator(IDLE).count() > 0 and page.get_by_role(
                "textbox", name="Your answer to question").count() > 0, "the exam to show again")
            expect(page.get_by_role("textbox", name="Your answer to question").first).to_have_value("12")
            shown = countdown.inner_text()
            assert shown.startswith("⏱ Time left")
            page.screenshot(path=str(ARTIFACTS / "exam_clock_1_after_reload.png"))
            took = time.monotonic() - started
            assert took < LIMIT_MINUTES * 60, f"the reload was checked {took:.1f} s in, after the deadline"

            # The deadline and the grace pass on the server; the page's countdown has not moved.
            page.wait_for_timeout(max(0.0, LIMIT_MINUTES * 60 + GRACE + 2 - (time.monotonic() - started)) * 1000)
            assert countdown.inner_text() == shown
            page.get_by_role("textbox", name="Your answer to question").nth(1).fill("99")
            heading.click()
            warning = page.locator("[data-testid='stAlert']", has_text="Time is up: your answers saved by")
            pump(page, lambda: warning.count() > 0 and page.locator(IDLE).count() > 0, "the time-up message")
            assert re.fullmatch(r"Time is up: your answers saved by \d\d:\d\d were marked\.",
                                warning.inner_text().strip()), warning.inner_text()
            expect(page.get_by_role("heading", name="Timed prelim: handed in")).to_be_visible()
            assert page.get_by_text("Your paper was submitted").count() == 0
            expect(page.get_by_text("Results are released when the assignment closes")).to_be_visible()
            assert page.get_by_text("Correct answer").count() == 0
            page.screenshot(path=str(ARTIFACTS / "exam_clock_2_time_up.png"))
        finally:
            browser.close()

    # What the server kept: the answer saved in time was marked; the later one is recorded as late.
    store = Store(db)
    try:
        (sid,), = store.query("SELECT id FROM sessions WHERE student = ? AND kind = 'exam'", [student])
        events = [(t, json.loads(p)) for t, p in store.query(
            "SELECT type, payload FROM events WHERE session_id = ? ORDER BY seq", [sid])]
    finally:
        store.close()
    saved = [p["answer"] for t, p in events if t == "saved"]
    marked = [p for t, p in events if t == "marked"]
    late = [p for t, p in events if t == "late"]
    assert saved == ["12"]
    assert len(marked) == 1 and marked[0]["expired"] and marked[0]["late"]
    assert [(p["action"], p["answer"]) for p in late] == [("save", "99")] and late[0]["at"] > late[0]["deadline"]
    delivered = next(p for t, p in events if t == "delivered")
    assert marked[0]["deadline"] == pytest.approx(delivered["t"] + LIMIT_MINUTES * 60)
