"""A student in a real browser: sign in, three practice questions (a typed answer is shown as it was read
before it is checked), a mock exam handed in and its results.

Runs `streamlit run app.py` on a free port against a temporary database and
drives Debian's chromium with Playwright (no browser download: CI installs the
chromium package). Screenshots go to tests/artifacts/ (git-ignored).
"""
from __future__ import annotations

import re
import time
from pathlib import Path

from tests.browser.app_server import ARTIFACTS, IDLE, READ_AS, launch, needs_chromium, running_app, settle

CLASS, NAME = "B-CLASS", "Bea Browser"

pytestmark = needs_chromium


def shot(page, name: str) -> None:
    # Streamlit scrolls inside its own container, so this is what the student sees, not the whole page.
    page.screenshot(path=str(ARTIFACTS / f"student_{name}.png"))


def test_student_practises_and_sits_a_mock_exam(tmp_path: Path):
    from playwright.sync_api import expect, sync_playwright

    from core.school.classes import add_student, create_class
    from core.store import Store
    db = tmp_path / "browser.duckdb"
    store = Store(db)   # a class already there: the app skips the slow first-run demo
    create_class(store, CLASS, "Browser class", "Mathematics", "Nat 5")
    add_student(store, CLASS, NAME)
    store.close()

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = tmp_path / "streamlit.log"
    started = time.monotonic()
    # The app as deployed, with its periodic snapshot thread: the thread must not keep the database open at exit.
    with running_app(db, log, snapshot_interval="300") as url, sync_playwright() as pw:
        healthy = time.monotonic()
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(30_000)
            opened = time.monotonic()
            page.goto(url)
            page.wait_for_selector(IDLE, timeout=90_000)
            expect(page.get_by_text("I'm a student")).to_be_visible()
            rendered = time.monotonic()
            timing = (f"page load: server start to first render of the sign-in page {rendered - started:.1f} s "
                      f"(server ready after {healthy - started:.1f} s; "
                      f"browser open to render {rendered - opened:.1f} s)")
            print("\n" + timing)
            (ARTIFACTS / "student_page_load.txt").write_text(timing + "\n")
            shot(page, "1_sign_in")

            page.get_by_label("Class code").fill(CLASS)
            page.get_by_label("Your name").fill(NAME)
            page.locator("button:visible", has_text="Sign in").first.click()
            expect(page.get_by_role("heading", name="Practice")).to_be_visible(timeout=30_000)
            settle(page)

            # Three practice questions: right or wrong, feedback each time.
            page.get_by_role("button", name="Start", exact=True).click()
            for n in range(1, 4):
                expect(page.get_by_role("heading", name=f"Question {n}")).to_be_visible()
                settle(page)
                form = page.locator("[data-testid='stForm']")
                if form.count() and form.get_by_role("radiogroup").count():
                    form.locator("label:has(input[type='radio'])").first.click()
                else:
                    # A typed answer: Enter shows how it was read, and only then can it be checked.
                    # One box, or one per step when the question is answered step by step.
                    boxes = page.get_by_role("textbox", name=re.compile(r"^(Your answer|Step \d)"))
                    for k in range(boxes.count()):
                        boxes.nth(k).fill("7")
                    boxes.last.press("Enter")
                    settle(page)
                    expect(page.get_by_text(READ_AS).first).to_be_visible()
                    shot(page, f"2_practice_preview_{n}")
                page.get_by_role("button", name="Check answer").click()
                feedback = page.locator("[data-testid='stAlertContentSuccess'], "
                                        "[data-testid='stAlertContentWarning']")
                expect(feedback.first).to_be_visible()
                expect(page.get_by_text("Correct answer:")).to_be_visible()
                settle(page)
                shot(page, f"2_practice_feedback_{n}")
                if n < 3:
                    page.get_by_role("button", name="Next question").click()
            expect(page.locator("[data-testid='stMetric']", has_text="Answered")).to_contain_text("3")

            # A mock exam of the student's own: one answer saved, handed in, results.
            page.get_by_role("link", name="Mock exam").click()
            page.get_by_role("button", name="Start mock exam").click()
            expect(page.get_by_role("heading", name="Mathematics Nat 5: mock exam")).to_be_visible(timeout=60_000)
            settle(page)
            clock = page.frame_locator("iframe[title='Time left in the exam']")
            expect(clock.get_by_text("Time left")).to_be_visible()
            shot(page, "3_exam_start")
            box = page.get_by_role("textbox", name="Your answer to question").first
            box.fill("12")
            box.press("Tab")   # on_change saves it
            settle(page)
            expect(page.get_by_text("1 of ")).to_be_visible()
            expect(page.get_by_text("Your answer was read as:")).to_be_visible()
            shot(page, "3_exam_answer_saved")
            page.get_by_role("button", name="Submit exam").click()
            page.get_by_role("button", name="Yes, submit my exam").click()
            results = page.get_by_role("heading", name="Mathematics Nat 5: your results")
            expect(results).to_be_visible(timeout=60_000)
            settle(page)
            expect(page.locator("[data-testid='stMetric']", has_text="Grade")).to_be_visible()
            expect(page.get_by_role("heading", name="What to work on")).to_be_visible()
            shot(page, "5_exam_remediation")
            results.scroll_into_view_if_needed()
            shot(page, "4_exam_results")
        finally:
            browser.close()
    # Stopped like a service manager stops it: the app closes its database, so nothing is reported leaked.
    shutdown = log.read_text()
    assert "Stopping..." in shutdown and "leaked" not in shutdown, shutdown[-3000:]
