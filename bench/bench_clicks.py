"""Page open and click times in a real browser, for a teacher and a student, against a Streamlit no-op.

Starts the real app (`streamlit run app.py`, headless, on a free local port,
snapshots off) on a fresh DuckDB file holding the demo class, a second small
class and some draft items for the Review page. Debian's chromium, driven by
Playwright, signs in as the teacher (the demo passcode) and as a demo student
(Ava Brown of DEMO-N5), each in its own browser context, and goes round every
page of the role ``--repeats`` times: it opens the page from the menu and does
one or two typical clicks there.

Each action is timed in the page, from just before the click to the end of the
last script run it started, once the element that shows its result is visible
(the page's "running" state ended and stayed ended for 250 ms): the time a
user waits for the page to answer. The result is looked for once the runs have
ended (or, if it is not there yet, until it shows, and timed to then), so the
looking does not compete with the page's drawing.

Beside each time, the app's own record of its script runs (it writes each
run's length to the file WORKBENCH_RUN_LOG names) gives the seconds the server
spent drawing the page in Python for that action; the rest of the time is the
round trip and the browser drawing what it was sent.

The baseline, measured in the same run on the same machine, is the Streamlit
round trip for a no-op: a click on a button in a one-line Streamlit script
served the same way. The ratio column is an action's median over it.

    python bench/bench_clicks.py [--repeats 5] [--db FILE] [--pages practice,review] [--aim 0.5]

``--db`` uses (and keeps) that database file, building the demo class in it if
it has no class; without it a temporary file is built and removed afterwards.
``--pages`` keeps only the pages whose name contains one of the words.
Exits 1 when an action failed (its row says why), else 0.
"""
from __future__ import annotations

import argparse
import dataclasses
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_load import (CHROMIUM, IDLE, NO_RUN_MS, QUIET_MS, TEACHER_PASSCODE,  # noqa: E402
                        free_port, pct, start_app, stop_app)
from core.blueprints.library import Library  # noqa: E402
from core.demo.classroom import DEMO_CODE, ensure_demo  # noqa: E402
from core.store import Store  # noqa: E402

STUDENT = "Ava Brown"
SECOND_CLASS = "S5-BENCH"   # after DEMO-N5, so the demo class is the one each page shows first
TIMEOUT_MS = 60_000
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-renderer-backgrounding",
                "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows"]
NO_OP_APP = 'import streamlit as st\nst.button("Again", key="again")\nst.write("ready")\n'
# The marker's verdict after Check answer: a success alert when right, a warning when not.
FEEDBACK = "[data-testid='stAlertContentSuccess'], [data-testid='stAlertContentWarning']"
# Timing one action in the page: from just before the click to the end of the script runs it started. Every
# change of the page's script state after the click is a run (a quick run may be over before the observer looks).
# A run so quick that the page shows "running" and "not running" in one drawing changes no attribute at all: the
# messages the server sent then say that a run happened, and it counts as ended once what they brought is drawn.
ARM = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (window.__benchObserver) window.__benchObserver.disconnect();
  const t = {t0: performance.now(), started: false, done: null};
  window.__bench = t;
  window.__benchObserver = new MutationObserver(() => {
    t.started = true;
    t.done = app.getAttribute('data-test-script-state') === 'notRunning' ? performance.now() : null;
  });
  window.__benchObserver.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""
# Before the app's own scripts: the arrival of each message from the server, and the frame drawn after it.
WATCH_MESSAGES = """(() => {
  const Native = window.WebSocket;
  window.__message = {at: 0, drawn: 0};
  const note = () => {
    const at = performance.now();
    window.__message.at = at;
    requestAnimationFrame(() => setTimeout(() => { if (window.__message.at === at) window.__message.drawn = performance.now(); }));
  };
  function Watched(...args) { const ws = new Native(...args); ws.addEventListener('message', note); return ws; }
  Watched.prototype = Native.prototype;
  Object.assign(Watched, {CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3});
  window.WebSocket = Watched;
})()"""
_BY_MESSAGE = ("(!window.__bench.started && window.__message.at > window.__bench.t0 "
               "&& document.querySelector(\"[data-testid='stApp']\").getAttribute('data-test-script-state') === 'notRunning')")
STARTED = (f"() => window.__bench.started || window.__message.at > window.__bench.t0 "
           f"|| performance.now() - window.__bench.t0 > {NO_RUN_MS}")
SETTLED = (f"() => (window.__bench.done !== null && performance.now() - window.__bench.done > {QUIET_MS}) "
           f"|| ({_BY_MESSAGE} && window.__message.drawn >= window.__message.at "
           f"&& performance.now() - window.__message.drawn > {QUIET_MS})")
ELAPSED = (f"() => ((window.__bench.started ? window.__bench.done : window.__message.drawn) - window.__bench.t0) / 1000")



@dataclasses.dataclass
class Row:
    role: str
    page: str
    action: str
    times: list = dataclasses.field(default_factory=list)
    errors: list = dataclasses.field(default_factory=list)
    script: list = dataclasses.field(default_factory=list)   # seconds in the app's script runs, per action


class RunLog:
    """The app's own record of its script runs (WORKBENCH_RUN_LOG: end time, seconds), read per action."""

    def __init__(self, path: Optional[Path]):
        self.path = path

    def seconds_between(self, start: float, end: float) -> Optional[float]:
        if self.path is None or not self.path.exists():
            return None
        total = 0.0
        for line in self.path.read_text().splitlines():
            ended, seconds = (float(x) for x in line.split("\t"))
            if start <= ended <= end:
                total += seconds
        return total


class Recorder:
    """Times actions in one browser page and keeps them by (role, page, action)."""

    def __init__(self, page, role: str, rows: dict, runs: Optional[RunLog] = None):
        self.page, self.role, self.rows, self.runs = page, role, rows, runs or RunLog(None)

    def row(self, page_name: str, action: str) -> Row:
        key = (self.role, page_name, action)
        if key not in self.rows:
            self.rows[key] = Row(self.role, page_name, action)
        return self.rows[key]

    def time(self, page_name: str, action: str, click: Callable[[], None], until=None) -> Optional[float]:
        """Seconds from the click to the end of the script runs it started, with ``until`` visible; None if the
        click started no run (or failed: the row keeps why)."""
        from playwright.sync_api import Error as PlaywrightError
        row = self.row(page_name, action)
        page = self.page
        try:
            page.evaluate(ARM)
            clicked = time.time()
            click()
            page.wait_for_function(STARTED, polling=25, timeout=TIMEOUT_MS)
            if not page.evaluate("() => window.__bench.started || window.__message.at > window.__bench.t0"):
                row.errors.append("the click started no script run")
                return None
            # The runs' end first (a cheap check of one attribute), then the result: a locator waiting on a page
            # that is still drawing looks through the whole page at every frame, on the page's own thread, and
            # slowed the drawing it was timing. A result that shows only later is timed to when it showed.
            page.wait_for_function(SETTLED, polling=25, timeout=TIMEOUT_MS)
            seconds = page.evaluate(ELAPSED)
            if until is not None and not until.first.is_visible():
                until.first.wait_for(state="visible", timeout=TIMEOUT_MS)
                shown = page.evaluate("() => (performance.now() - window.__bench.t0) / 1000")
                page.wait_for_function(SETTLED, polling=25, timeout=TIMEOUT_MS)
                seconds = max(page.evaluate(ELAPSED), shown)
            script = self.runs.seconds_between(clicked, time.time())
        except PlaywrightError as exc:
            row.errors.append(str(exc).splitlines()[0][:160])
            settle(page)
            return None
        row.times.append(seconds)
        if script is not None:
            row.script.append(script)
        return seconds


def settle(page) -> None:
    page.wait_for_timeout(QUIET_MS)
    page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)


def main_area(page):
    return page.locator("[data-testid='stMain']")


def heading(page, name) -> object:
    return main_area(page).get_by_role("heading", name=name)


def open_page(rec: Recorder, name: str, link: str, title) -> bool:
    """Open a page from the menu, timed; True when its heading showed."""
    page = rec.page
    page.keyboard.press("Escape")   # a list left open by the last choice would take the click
    return rec.time(name, "open", lambda: page.locator("[data-testid='stSidebarNav']").get_by_role(
        "link", name=link, exact=True).click(), heading(page, title)) is not None


def choose(rec: Recorder, name: str, action: str, label: str, pick: int, until=None,
           among: Optional[set[str]] = None) -> Optional[float]:
    """Pick option number ``pick`` (cycling) of the select box labelled ``label`` (counting only the options in
    ``among``, when given); the option click is timed."""
    page = rec.page
    box = main_area(page).get_by_role("combobox", name=label, exact=True).first
    row = rec.row(name, action)
    try:
        current = box.input_value(timeout=10_000).strip()
        options = page.get_by_role("option")
        for attempt in range(3):   # the list closes when the page scrolls: scrolled into view first, then opened
            box.scroll_into_view_if_needed(timeout=10_000)
            page.wait_for_timeout(150)
            box.locator("xpath=following-sibling::button").first.click(timeout=10_000)
            try:
                options.first.wait_for(timeout=3_000)
                break
            except Exception:  # noqa: BLE001 - not open yet: try again
                if attempt == 2:
                    raise
        if among is None:
            texts = [t.strip() for t in options.all_inner_texts()]
            usable = [k for k, t in enumerate(texts) if t != current]
            option = options.nth(usable[pick % len(usable)])   # the next option from ``pick`` on, not the one now
        else:   # the list shows a dozen options at a time: the wanted one is typed to bring it into view
            wanted = sorted(among - {current})[pick % len(among - {current})]
            box.fill(wanted, timeout=10_000)
            option = options.filter(has_text=re.compile(f"^{re.escape(wanted)}$")).first
            option.wait_for(timeout=5_000)
    except Exception as exc:  # noqa: BLE001 - Playwright's errors; the row says what went wrong
        row.errors.append(f"the select box '{label}' could not be opened: {str(exc).splitlines()[0][:120]}")
        page.keyboard.press("Escape")
        return None
    return rec.time(name, action, option.click, until)


def click_button(rec: Recorder, name: str, action: str, button: str, until=None, exact=True) -> Optional[float]:
    page = rec.page
    target = main_area(page).get_by_role("button", name=button, exact=exact).first
    return rec.time(name, action, target.click, until)


# ---------------------------------------------------------------- the teacher's round

def switch_tab(rec: Recorder, name: str, tab: str, action: str, until) -> Optional[float]:
    """A click on the tab labelled ``tab``, timed: only the open tab is drawn, so a switch runs the page."""
    tabs = main_area(rec.page).get_by_role("tab")
    return rec.time(name, action, tabs.filter(has_text=tab).first.click, until)


def student_tab(rec: Recorder, name: str, tab: str, n: int) -> None:
    """The tab that shows one student (timed), then another student chosen there (timed)."""
    student = main_area(rec.page).get_by_role("combobox", name="Student", exact=True)
    if switch_tab(rec, name, tab, f"{tab} tab", student) is not None:
        choose(rec, name, "change student", "Student", n + 1)


def teacher_round(rec: Recorder, n: int, wanted: Callable[[str], bool], demo: "DemoClass") -> None:
    page = rec.page
    if wanted("Home") and open_page(rec, "Home", "Home", "Teacher Workbench"):
        pass
    if wanted("Blueprints") and open_page(rec, "Blueprints", "Blueprints", "Blueprints"):
        choose(rec, "Blueprints", "open a blueprint", "Open", 3 + n)
    if wanted("Generate") and open_page(rec, "Generate", "Generate", "Generate items"):
        source = main_area(page).locator("[data-testid='stRadio']").first
        rec.time("Generate", "change source", source.get_by_text("LLM (blueprint)", exact=True).click)
        rec.time("Generate", "change source back", source.get_by_text("Formula (blueprint)", exact=True).click)
    if wanted("Review") and open_page(rec, "Review", "Review", "Review"):
        approve = main_area(page).get_by_role("button", name="Approve", exact=True)
        if approve.count() and approve.first.is_enabled():
            rec.time("Review", "approve", approve.first.click, heading(page, "Review"))
        choose(rec, "Review", "status filter", "Status", 1)
        choose(rec, "Review", "status filter back", "Status", 0)
    if wanted("Exams") and open_page(rec, "Exams", "Exams", "Mock exams"):
        click_button(rec, "Exams", "build paper", "Build paper", main_area(page).get_by_role("heading", name="Assign to a class"))
    if wanted("Gradebook") and open_page(rec, "Gradebook", "Gradebook", "Gradebook"):
        student_tab(rec, "Gradebook", "Student scripts", n)
        switch_tab(rec, "Gradebook", "Marks", "Marks tab back", main_area(page).get_by_role("button", name="CSV"))
    if wanted("Class") and open_page(rec, "Class", "Class", "Class"):
        choose(rec, "Class", "change class", "Class", n + 1)
    if wanted("Analytics") and open_page(rec, "Analytics", "Analytics", "Analytics"):
        # To the second class and back: the tabs after it show the demo class, which has answers to read.
        choose(rec, "Analytics", "change class", "Class", n + 1)
        choose(rec, "Analytics", "change class back", "Class", 0, among={demo.label})
        student_tab(rec, "Analytics", "Student", n)
        rec.time("Analytics", "open the student's charts", main_area(page).get_by_text(
            "Running accuracy and mastery over time").first.click,
            main_area(page).locator("[data-testid='stPlotlyChart']").first)
        if switch_tab(rec, "Analytics", "Items and blueprints", "Items tab",
                      main_area(page).get_by_role("button", name="Run calibration")) is not None:
            choose(rec, "Analytics", "another blueprint", "Blueprint for distractors and parameters", n + 1,
                   among=demo.answered)
        switch_tab(rec, "Analytics", "Class", "Class tab back", main_area(page).get_by_role("heading", name="Students"))
        rec.time("Analytics", "open the class charts", main_area(page).get_by_text(
            "Answers per day and the spread of abilities").first.click,
            main_area(page).get_by_text(re.compile(r"^(What are logits, abilities and intervals\?|No abilities yet)")))
    if wanted("Settings"):
        open_page(rec, "Settings", "Settings", "Settings")


# ---------------------------------------------------------------- the student's round

def answer_question(rec: Recorder) -> None:
    """Answer the question on screen (first option, or 7 typed) and check it; the check is timed."""
    page = rec.page
    main = main_area(page)
    feedback = main.locator(FEEDBACK)
    form = main.locator("[data-testid='stForm']")
    if form.count() and form.get_by_role("radiogroup").count():
        form.locator("label:has(input[type='radio'])").first.click()
    elif form.count() and form.get_by_role("checkbox").count():
        form.locator("label:has(input[type='checkbox'])").first.click()
    else:
        boxes = main.get_by_role("textbox", name=re.compile(r"^(Your answer|Step \d)"))
        if not boxes.count():
            rec.row("Practice", "check answer").errors.append("no answer box on the page")
            return
        for k in range(boxes.count()):
            boxes.nth(k).fill("7")
        rec.time("Practice", "preview answer (Enter)", lambda: boxes.last.press("Enter"),
                 main.get_by_text(re.compile(r"^(Your answer|Step \d+( \(final answer\))?) was read as:")).first)
    rec.time("Practice", "check answer", main.get_by_role("button", name="Check answer").first.click, feedback)


def student_round(rec: Recorder, n: int, wanted: Callable[[str], bool]) -> None:
    page = rec.page
    main = main_area(page)
    if wanted("Practice") and open_page(rec, "Practice", "Practice", "Practice"):
        if main.get_by_role("button", name="Start", exact=True).count():
            click_button(rec, "Practice", "start", "Start", heading(page, re.compile(r"^Question \d+")))
        if main.get_by_role("button", name="Check answer").count():
            answer_question(rec)
            click_button(rec, "Practice", "next question", "Next question", main.get_by_role("button", name="Finish"))
            finish = main.get_by_role("button", name="Finish", exact=True)
            if finish.count():
                rec.time("Practice", "finish", finish.last.click)
                not_now = main.get_by_role("button", name="Not now", exact=True)
                if not_now.count():
                    rec.time("Practice", "exit ticket: not now", not_now.first.click,
                             main.get_by_role("button", name="Start", exact=True))
    if wanted("Mock exam") and open_page(rec, "Mock exam", "Mock exam", "Mock exam"):
        # Timed until the paper's last element (Submit exam) shows: the heading is drawn well before it.
        if click_button(rec, "Mock exam", "start", "Start mock exam",
                        main.get_by_role("button", name="Submit exam", exact=True)) is not None:
            boxes = main.get_by_role("textbox", name=re.compile("^Your answer to question"))
            screens = main.get_by_role("radiogroup", name="Questions").get_by_role("radio")
            # The paper is sat a screen at a time: the next screen (timed), and on until one has a typed answer.
            for k in range(1, screens.count()):
                if k > 1 and boxes.count():
                    break
                if k == 1:
                    rec.time("Mock exam", "next screen", screens.nth(k).click, main.get_by_role(
                        "button", name=re.compile("^← ")))   # under the screen's questions
                else:
                    screens.nth(k).click()
                    settle(page)
            box = boxes.first
            try:
                box.fill("12", timeout=10_000)
                rec.time("Mock exam", "answer (Tab saves)", lambda: box.press("Tab"), main.get_by_text(re.compile(r"^1 of ")))
            except Exception as exc:  # noqa: BLE001 - Playwright's errors; the row says what went wrong
                rec.row("Mock exam", "answer (Tab saves)").errors.append(str(exc).splitlines()[0][:160])
            click_button(rec, "Mock exam", "submit", "Submit exam", main.get_by_role("button", name="Yes, submit my exam"))
            click_button(rec, "Mock exam", "hand in", "Yes, submit my exam", heading(page, re.compile("your results$")))
            click_button(rec, "Mock exam", "back to my exams", "Back to my exams",
                         main.get_by_role("button", name="Start mock exam"))
    if wanted("My progress"):
        open_page(rec, "My progress", "My progress", "My progress")


# ---------------------------------------------------------------- setting up

@dataclasses.dataclass
class DemoClass:
    """The demo class as its select box shows it, and the blueprints it answered (the Analytics Items tab's
    blueprint is chosen among them, so the click reads answers rather than finding none)."""
    label: str
    answered: set[str]

    @classmethod
    def read(cls, db: Path) -> "DemoClass":
        from core.analytics.reports import answered_blueprints
        from core.store import school
        store = Store(db)
        try:
            name = school.get_class(store, DEMO_CODE)["name"]
            return cls(f"{DEMO_CODE} · {name}", set(answered_blueprints(store, DEMO_CODE)))
        finally:
            store.close()


def prepare(db: Path) -> None:
    """The demo class with a mock exam assigned and handed in by three students (for the Gradebook), a second
    class (so a class can be switched) and some drafts waiting for review."""
    import datetime as dt

    from core.flows.registry import make_runner
    from core.items import authoring
    from core.school import assignments, sittings
    from core.school.classes import add_student, create_class
    from core.store import repo, school
    from core.demo.classroom import demo_students
    store = Store(db)
    try:
        library = Library.load(exercise=False)
        ensure_demo(store, library)
        if school.get_class(store, SECOND_CLASS) is not None:
            return
        create_class(store, SECOND_CLASS, "Second class", "Mathematics", "Nat 5")
        for name in ("Zoe Young", "Yan Xu"):
            add_student(store, SECOND_CLASS, name)
        skills = sorted(library.generators)[:4]
        plan = authoring.plan_for_skills(library, skills, {"easy": 50, "medium": 50}, 40, seed=7)
        authoring.store_batches(store, authoring.generate_batches(library, plan, 7))
        now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
        exam = assignments.create(store, DEMO_CODE, "Prelim", {"subject": "Mathematics", "level": "Nat 5"},
                                  now - dt.timedelta(hours=1), now + dt.timedelta(days=7), None, release="on_submit")
        runner = make_runner(store, library)
        kind, config = sittings.assignment_start(assignments.get_assignment(store, exam))
        for k, student in enumerate(demo_students()[1:4]):
            sid = runner.start(kind, student, config)
            questions = [q for s in runner.state(sid)["package"]["sections"] for q in s["questions"]]
            answers = {q["id"]: repo.load_item(store, q["id"]).typed_answer for q in questions[: 4 + 3 * k]}
            runner.command(sid, "submit", answers=answers)
    finally:
        store.close()


def baseline(browser, repeats: int, workdir: Path) -> list[float]:
    """The Streamlit round trip for a no-op: a button in a one-line script, served as the app is."""
    script = workdir / "no_op.py"
    script.write_text(NO_OP_APP)
    port = free_port()
    log = workdir / "no_op.log"
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", str(script), "--server.headless", "true",
                                   "--server.port", str(port), "--server.address", "127.0.0.1",
                                   "--browser.gatherUsageStats", "false"],
                                  cwd=workdir, stdout=out, stderr=subprocess.STDOUT)
    try:
        end = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2):
                    break
            except OSError:
                if time.monotonic() > end or server.poll() is not None:
                    raise SystemExit(f"the no-op Streamlit script did not start:\n{log.read_text()[-2000:]}")
                time.sleep(0.25)
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.add_init_script(WATCH_MESSAGES)
        page = context.new_page()
        page.goto(f"http://127.0.0.1:{port}")
        page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)
        rows: dict = {}
        rec = Recorder(page, "-", rows)
        for _ in range(max(repeats, 5) * 2):
            rec.time("Streamlit", "no-op click", page.get_by_role("button", name="Again").click)
        context.close()
    finally:
        stop_app(server)
    return rows[("-", "Streamlit", "no-op click")].times


def open_app(browser, url: str):
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.add_init_script(WATCH_MESSAGES)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    page.goto(url)
    page.wait_for_selector(IDLE, timeout=120_000)
    page.get_by_text("I'm a student").wait_for()
    return context, page


def sign_in_teacher(browser, url: str):
    context, page = open_app(browser, url)
    page.get_by_role("tab", name="I'm a teacher").click()
    page.get_by_label("Passcode").fill(TEACHER_PASSCODE)
    page.locator("button:visible", has_text="Sign in").first.click()
    page.get_by_role("link", name="Blueprints").wait_for()
    settle(page)
    return context, page


def sign_in_student(browser, url: str):
    context, page = open_app(browser, url)
    page.get_by_label("Class code").fill(DEMO_CODE)
    page.get_by_label("Your name").fill(STUDENT)
    page.locator("button:visible", has_text="Sign in").first.click()
    heading(page, "Practice").wait_for()
    settle(page)
    return context, page


# ---------------------------------------------------------------- the table

def table(rows: dict, base: float, aim: float) -> str:
    lines = [f"{'role':<8} {'page':<12} {'action':<26} {'n':>3} {'median':>7} {'p90':>7} {'max':>7} {'ratio':>6} "
             f"{'script':>7}  note", "-" * 104]
    for row in rows.values():
        note = ""
        if row.times:
            med, p90, top = statistics.median(row.times), pct(row.times, 0.9), max(row.times)
            script = f"{statistics.median(row.script):7.2f}" if row.script else f"{'–':>7}"
            figures = f"{med:7.2f} {p90:7.2f} {top:7.2f} {med / base:6.1f} {script}"
            note = "over the aim" if med > aim else ""
        else:
            figures = f"{'–':>7} {'–':>7} {'–':>7} {'–':>6} {'–':>7}"
        if row.errors:
            note = (note + "; " if note else "") + f"{len(row.errors)} failed: {row.errors[0]}"
        lines.append(f"{row.role:<8} {row.page:<12} {row.action:<26} {len(row.times):>3} {figures}  {note}")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5, help="rounds of every page and click (default 5)")
    parser.add_argument("--db", type=Path, help="database file to use and keep (default: a fresh temporary one)")
    parser.add_argument("--pages", help="comma-separated words: only the pages whose name contains one of them")
    parser.add_argument("--aim", type=float, default=0.5, help="seconds a click should take at most (default 0.5)")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit("needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)")
    if args.repeats < 1:
        raise SystemExit("--repeats: give 1 or more")
    words = [w.strip().lower() for w in (args.pages or "").split(",") if w.strip()]

    def wanted(name: str) -> bool:
        return not words or any(w in name.lower() for w in words)

    from playwright.sync_api import sync_playwright
    load_before = os.getloadavg()
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="bench_clicks_") as tmp:
        workdir = Path(tmp)
        db = args.db or workdir / "bench.duckdb"
        print(f"Preparing {db} (demo class, a second class, drafts)…", flush=True)
        prepare(db)
        demo = DemoClass.read(db)
        port = free_port()
        run_log = workdir / "runs.tsv"
        os.environ["WORKBENCH_RUN_LOG"] = str(run_log)   # the app records its script runs' lengths there
        try:
            server = start_app(db, port, workdir / "streamlit.log")
        finally:
            os.environ.pop("WORKBENCH_RUN_LOG", None)
        url = f"http://127.0.0.1:{port}"
        rows: dict = {}
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
                try:
                    print("Measuring the Streamlit no-op round trip…", flush=True)
                    base_times = baseline(browser, args.repeats, workdir)
                    teacher_ctx, teacher = sign_in_teacher(browser, url)
                    student_ctx, student = sign_in_student(browser, url)
                    runs = RunLog(run_log)
                    t_rec, s_rec = Recorder(teacher, "teacher", rows, runs), Recorder(student, "student", rows, runs)
                    for n in range(args.repeats):
                        print(f"Round {n + 1} of {args.repeats}…", flush=True)
                        teacher_round(t_rec, n, wanted, demo)
                        student_round(s_rec, n, wanted)
                    teacher_ctx.close()
                    student_ctx.close()
                finally:
                    browser.close()
        finally:
            stop_app(server)
            log = (workdir / "streamlit.log").read_text()
        if "Traceback" in log:
            print("The app printed a traceback:\n" + log[log.index("Traceback"):][:3000])
    base = statistics.median(base_times)
    load_after = os.getloadavg()
    print()
    print(f"Baseline: the Streamlit round trip for a no-op click, median {base:.3f} s "
          f"(p90 {pct(base_times, 0.9):.3f}, n={len(base_times)}); ratio = an action's median over it.")
    print(f"Times in seconds, from the click to the end of the script runs it started, result visible; script: "
          f"the median time the app's whole-page script runs took (callbacks and fragment runs not included), "
          f"the rest is the round trip and the browser drawing. Aim: every click within {args.aim:.1f} s.")
    print(table(rows, base, args.aim))
    over = [r for r in rows.values() if r.times and statistics.median(r.times) > args.aim]
    print(f"\n{len(over)} of {len(rows)} actions over the aim (by median). "
          f"Load average (1 min) {load_before[0]:.1f} before, {load_after[0]:.1f} after, on {os.cpu_count()} cores; "
          f"{time.monotonic() - started:.0f} s in all.")
    return 1 if any(r.errors for r in rows.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
