"""A student in a real browser: sign in, three practice questions (a typed answer is shown as it was read
before it is checked), a mock exam handed in and its results.

Runs `streamlit run app.py` on a free port against a temporary database and
drives Debian's chromium with Playwright (no browser download: CI installs the
chromium package). Screenshots go to tests/artifacts/ (git-ignored).
"""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "tests" / "artifacts"
CLASS, NAME = "B-CLASS", "Bea Browser"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(),
                                reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_healthy(url: str, server: subprocess.Popen, log: Path, timeout: float = 90) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if server.poll() is not None:
            pytest.fail(f"streamlit exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        time.sleep(0.25)
    pytest.fail(f"streamlit did not answer {url} within {timeout:.0f} s:\n{log.read_text()[-3000:]}")


def stop_server(server: subprocess.Popen) -> None:
    """Stopped as a service manager stops it: terminate, then kill if it does not end."""
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def settle(page, timeout: float = 30_000) -> None:
    """Wait for the script run a click started to finish."""
    page.wait_for_timeout(300)   # let the rerun start, so 'notRunning' below is the run after it
    page.wait_for_selector(IDLE, timeout=timeout)


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
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    log = tmp_path / "streamlit.log"
    # The app as deployed, with its periodic snapshot thread: the thread must not keep the database open at exit.
    env = {**os.environ, "WORKBENCH_DB": str(db), "WORKBENCH_SNAPSHOT_INTERVAL": "300"}
    started = time.monotonic()
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                                   "--server.port", str(port), "--server.address", "127.0.0.1"],
                                  cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"{url}/_stcore/health", server, log)
        healthy = time.monotonic()
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM),
                                         args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                                               "--disable-component-update", "--disable-sync", "--no-first-run"])
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
                        box = page.get_by_label("Your answer")
                        box.fill("7")
                        box.press("Enter")
                        settle(page)
                        expect(page.get_by_text("Your answer was read as:")).to_be_visible()
                        shot(page, f"2_practice_preview_{n}")
                    page.get_by_role("button", name="Check answer").click()
                    feedback = page.locator("[data-testid='stAlert']", has_text="Right!").or_(
                        page.locator("[data-testid='stAlert']", has_text="Not quite"))
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
    finally:
        stop_server(server)
    # Stopped like a service manager stops it: the app closes its database, so nothing is reported leaked.
    shutdown = log.read_text()
    assert "Stopping..." in shutdown and "leaked" not in shutdown, shutdown[-3000:]
