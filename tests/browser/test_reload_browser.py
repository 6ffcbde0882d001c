"""Reloads in a real browser: a student stays signed in on the page that was open, a page's address opened
signed out shows the sign-in form (never "Page not found") and then that page, and signing out ends it.

Same setup as test_student_browser: `streamlit run app.py` on a free port, Debian's chromium via Playwright.
"""
from __future__ import annotations

import time
from pathlib import Path

from tests.browser.app_server import IDLE, launch, needs_chromium, running_app, settle

CLASS, NAME = "R-CLASS", "Rae Reload"

pytestmark = needs_chromium


def no_page_not_found(page) -> None:
    page.wait_for_timeout(500)   # the box would come with the first render
    assert page.get_by_text("Page not found").count() == 0


def test_reloads_keep_the_student_signed_in_on_the_same_page(tmp_path: Path):
    from playwright.sync_api import expect, sync_playwright

    from core.school.classes import add_student, create_class
    from core.store import Store
    db = tmp_path / "reload.duckdb"
    store = Store(db)
    create_class(store, CLASS, "Reload class", "Mathematics", "Nat 5")
    add_student(store, CLASS, NAME)
    store.close()

    log = tmp_path / "streamlit.log"
    with running_app(db, log) as url, sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.set_default_timeout(30_000)

            # A page's address opened signed out: the sign-in form, then that page.
            page.goto(f"{url}/student_exam")
            page.wait_for_selector(IDLE, timeout=90_000)
            expect(page.get_by_text("I'm a student")).to_be_visible()
            no_page_not_found(page)
            page.get_by_label("Class code").fill(CLASS)
            page.get_by_label("Your name").fill(NAME)
            page.locator("button:visible", has_text="Sign in").first.click()
            expect(page.get_by_role("heading", name="Mock exam", exact=True)).to_be_visible(timeout=30_000)
            settle(page)
            assert "session=" in page.url and "/student_exam" in page.url

            # A reload keeps the student signed in, on the same page.
            page.reload()
            page.wait_for_selector(IDLE, timeout=60_000)
            expect(page.get_by_role("heading", name="Mock exam", exact=True)).to_be_visible()
            no_page_not_found(page)

            # Another page, then the address in a new tab.
            page.get_by_role("link", name="My progress").click()
            settle(page)
            time.sleep(0.5)
            address = page.url
            assert "session=" in address
            tab = browser.new_page(viewport={"width": 1280, "height": 900})
            tab.goto(address)
            tab.wait_for_selector(IDLE, timeout=60_000)
            expect(tab.get_by_role("link", name="Sign out")).to_be_visible()
            no_page_not_found(tab)

            # Signing out ends it: the old address signs no one in.
            page.get_by_role("link", name="Sign out").click()
            settle(page)
            expect(page.get_by_text("You are signed out")).to_be_visible()
            page.goto(address)
            page.wait_for_selector(IDLE, timeout=60_000)
            expect(page.get_by_text("I'm a student")).to_be_visible()
            no_page_not_found(page)
            assert "session=" not in page.url
        finally:
            browser.close()
