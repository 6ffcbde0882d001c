"""A teacher writes a numeric blueprint in the real code editor: from the template, typed into the editor,
validated with the editor's own button (one preview per level), guarded against losing edits when switching,
marked at the line of a mistake, and saved.

Runs `streamlit run app.py` against a temporary database and a copy of the blueprints (saving writes a file),
and drives Debian's chromium with Playwright. Screenshots go to tests/artifacts/.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

from tests.browser.app_server import ARTIFACTS, IDLE, ROOT, launch, needs_chromium, running_app, settle

pytestmark = needs_chromium


def shot(page, name: str) -> None:
    page.screenshot(path=str(ARTIFACTS / f"blueprint_editor_{name}.png"))


def test_a_teacher_writes_previews_and_saves_a_numeric_blueprint(tmp_path: Path, monkeypatch):
    from playwright.sync_api import expect, sync_playwright

    from core.school.auth import DEMO_PASSCODE
    from core.school.classes import create_class
    from core.store import Store

    blueprints = tmp_path / "blueprints"
    shutil.copytree(ROOT / "blueprints", blueprints)
    monkeypatch.setenv("WORKBENCH_BLUEPRINTS", str(blueprints))
    db = tmp_path / "browser.duckdb"
    store = Store(db)       # a class already there: the app skips the slow first-run demo
    create_class(store, "B-EDIT", "Editor class", "Mathematics", "Nat 5")
    store.close()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with running_app(db, tmp_path / "streamlit.log") as url, sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(30_000)
            page.goto(url)
            page.wait_for_selector(IDLE, timeout=90_000)
            page.get_by_role("tab", name="I'm a teacher").click()
            page.get_by_label("Passcode").fill(DEMO_PASSCODE)
            page.get_by_label("Passcode").press("Enter")
            expect(page.get_by_role("link", name="Sign out")).to_be_visible(timeout=60_000)
            settle(page)
            page.get_by_role("link", name="Blueprints").click()
            expect(page.get_by_role("heading", name="Blueprints")).to_be_visible(timeout=60_000)
            settle(page)
            # The library's tabs are drawn when opened: the course specs' table appears on its tab.
            page.get_by_role("tab", name="Course specs").click()
            settle(page)
            expect(page.locator("[role='tabpanel']:visible [data-testid='stDataFrame']")).to_have_count(1)

            started = time.monotonic()
            choose(page, "New from template: Numeric skill")
            frame = page.frame_locator("iframe[title*='code_editor']")
            expect(frame.locator(".ace_editor .ace_content").first).to_contain_text("NEW.TEMPLATE.NUMERIC", timeout=30_000)
            assert frame.locator(".ace_gutter-cell").count() > 10          # line numbers
            # Typed as a teacher types: the id selected and overwritten, the answer formula changed.
            replace(page, frame, "NEW.TEMPLATE.NUMERIC", "BROWSER.TRIANGLE.AREA")
            replace(page, frame, '"length * width"', '"length * width / 2"')
            replace(page, frame, "Calculate the area of a rectangle", "Calculate the area of a triangle")
            frame.get_by_role("button", name="Validate & preview").click()
            expect(page.get_by_text("Skill BROWSER.TRIANGLE.AREA version 1.0 is valid.")).to_be_visible(timeout=60_000)
            for level in ("Easy", "Medium", "Hard"):
                expect(page.get_by_text(f"{level} · difficulty")).to_be_visible()
            expect(page.get_by_text("Unsaved changes to the new blueprint from the Numeric skill template")) \
                .to_be_visible()
            shot(page, "1_previewed")

            # Switching to another template with unsaved edits asks first; keeping them keeps the text.
            choose(page, "New from template: Algebra skill")
            expect(page.get_by_text("You have unsaved changes to the new blueprint from the Numeric skill "
                                    "template")).to_be_visible()
            shot(page, "2_guard")
            page.get_by_role("button", name="Keep editing").click()
            settle(page)
            expect(frame.locator(".ace_editor .ace_content").first).to_contain_text("BROWSER.TRIANGLE.AREA")

            # A mistake is marked at its line in the editor's margin, and its formula shown as written.
            replace(page, frame, '"length * width / 2"', '"length*width*k"')
            frame.get_by_role("button", name="Validate & preview").click()
            expect(page.get_by_text("unknown name 'k' in")).to_be_visible(timeout=60_000)
            expect(page.locator("code", has_text="length*width*k").first).to_be_visible()
            marked = frame.locator(".ace_text-input").first.evaluate(
                "el => { const ed = el.closest('.ace_editor').env.editor;"
                "        const line = ed.session.getAnnotations().map(a => a.row + ': ' + a.type);"
                "        ed.scrollToLine(ed.session.getAnnotations()[0].row, true, false);"
                "        return [line, ed.session.getLine(ed.session.getAnnotations()[0].row)]; }")
            assert marked[0] and marked[0][0].endswith(": error") and "length*width*k" in marked[1], marked
            expect(frame.locator(".ace_gutter-cell.ace_error")).to_have_count(1, timeout=10_000)
            shot(page, "3_marked")
            replace(page, frame, '"length*width*k"', '"length * width / 2"')

            frame.get_by_role("button", name="Save as new version").click()
            expect(page.get_by_text("Saved BROWSER.TRIANGLE.AREA version 1.0")).to_be_visible(timeout=60_000)
            walk = time.monotonic() - started
            shot(page, "4_saved")
            saved = blueprints / "skills" / "browser_triangle_area.yaml"
            assert "length * width / 2" in saved.read_text(encoding="utf-8")
            expect(page.get_by_text("Unsaved changes to")).to_have_count(0)
            print(f"\ntemplate to saved blueprint, driven by the browser: {walk:.1f} s")
            # The reference is drawn when opened.
            expect(page.get_by_text("Functions a formula may call")).to_have_count(0)
            page.get_by_text("Reference: formula functions and parameter kinds").click()
            expect(page.get_by_text("Functions a formula may call")).to_be_visible(timeout=30_000)
        finally:
            browser.close()


def choose(page, label: str) -> None:
    box = page.get_by_role("combobox", name="Open", exact=True)
    box.click()
    page.get_by_role("option", name=label).click()
    settle(page)


def replace(page, frame, old: str, new: str) -> None:
    """Select ``old`` in the editor with its own search, type ``new`` over it, and let the text reach the app."""
    frame.locator(".ace_editor .ace_content").first.click()
    frame.locator(".ace_text-input").first.evaluate(
        "(el, old) => { const ed = el.closest('.ace_editor').env.editor; ed.find(old, {wrap: true}); ed.focus(); }",
        old)
    page.keyboard.type(new)
    page.wait_for_timeout(600)       # the editor sends its text after a pause in typing
    settle(page)
