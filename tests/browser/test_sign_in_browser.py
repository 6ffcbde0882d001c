"""Signing in as a teacher in a real browser: the very first wrong passcode, typed while the server is still
opening a new database, shows its error on the teacher's tab; signing out leads back to the sign-in form.

Same setup as test_student_browser: `streamlit run app.py` on a free port, Debian's chromium via Playwright.
"""
from __future__ import annotations

from pathlib import Path

from tests.browser.app_server import IDLE, launch, needs_chromium, running_app, settle

pytestmark = needs_chromium


def test_the_first_wrong_passcode_shows_its_error_and_signing_out_leads_back(tmp_path: Path):
    from playwright.sync_api import expect, sync_playwright

    from core.school.auth import DEMO_PASSCODE

    with running_app(tmp_path / "new.duckdb", tmp_path / "streamlit.log") as url, sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(30_000)
            # Typed at once, before the first run (which fills the new database with the demo) has finished.
            page.goto(url)
            teacher_tab = page.get_by_role("tab", name="I'm a teacher")
            teacher_tab.click(timeout=120_000)
            page.get_by_label("Passcode").fill("not-the-passcode")
            page.get_by_label("Passcode").press("Enter")
            error = page.get_by_text("That passcode is not right")
            expect(error).to_be_visible(timeout=90_000)
            settle(page)
            expect(teacher_tab).to_have_attribute("aria-selected", "true")
            expect(error).to_be_visible()

            page.get_by_label("Passcode").fill(DEMO_PASSCODE)
            page.get_by_label("Passcode").press("Enter")
            expect(page.get_by_role("link", name="Sign out")).to_be_visible(timeout=60_000)
            page.get_by_role("link", name="Sign out").click()
            expect(page.get_by_text("You are signed out.")).to_be_visible()
            page.get_by_role("link", name="Sign in again").click()
            page.wait_for_selector(IDLE)
            expect(page.get_by_label("Class code")).to_be_visible()
        finally:
            browser.close()
