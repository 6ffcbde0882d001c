"""Every student page in a real browser meets WCAG 2.1 AA as axe-core measures it, and works by keyboard alone.

The app runs as deployed (`streamlit run app.py`, see app_server) on a database holding the demo class; the
student signs in as the demo student (class code DEMO-N5, Ava Brown). axe-core (axe-playwright-python) checks
the WCAG 2.0 and 2.1 A and AA rules on each state a student meets: signing in; practice set up; a rapid-fire
question, its feedback right and wrong (with the remediation); a lesson card, a retry with a hint, a finished
card and the lesson's summary; the exit ticket; the mock exam list, an exam under way and its results; the tutor
(offline: it needs an LLM); My progress. A failure lists each violation: the state, the rule, its impact, the
offending elements (selector and what is wrong) and the rule's help, so it says what to fix.

A second student goes through a rapid-fire question and a whole mock exam with the keyboard alone (Tab,
Shift+Tab, Enter, the arrow keys): every control is reached, in reading order, with its focus visible, and
Tab and Shift+Tab go round each page and back with no trap.

Before the app starts, the test sets up the sessions the audit resumes (two rapid-fire questions it knows the
answers to, one to answer wrong and one right, and a lesson): the pages never show an answer before marking,
and the right and wrong states must each be seen.
"""
from __future__ import annotations

import os
import re
from typing import Callable, Optional

import pytest

from tests.browser.app_server import ARTIFACTS, IDLE, READ_AS, launch, needs_chromium, running_app, settle

pytestmark = needs_chromium

CLASS, STUDENT = "DEMO-N5", "Ava Brown"
KEYBOARD_STUDENT = "Ben Clark"          # another demo student: the keyboard walk starts from a page of its own
WCAG = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
WRONG_GUESSES = ("98765", "x + 98765", "definitely not the answer 98765", "10.98.76.5", "10.98.76.0/24")


# ---------------------------------------------------------------------------
# The app, with the sessions the audit resumes


def _wrong_answer(item) -> str:
    """A wrong answer the question can read (an unreadable one is not counted, so it would show no feedback)."""
    if item.options:
        return next(o for k, o in enumerate(item.options) if k != item.correct_index)
    from core.marking import MarkingSpec, mark_answer
    spec = MarkingSpec.from_item(item)
    for guess in WRONG_GUESSES:
        result = mark_answer(spec, guess)
        if result.valid and not result.correct:
            return guess
    raise AssertionError(f"no readable wrong answer for {item.id}")


def _plain(question: dict) -> bool:
    """One answer box or one choice, and no clock: answered the same way whatever question it is."""
    return not question.get("steps") and not question.get("choose_several") and \
        question.get("time_limit_seconds") is None


def _answers(store, question: dict) -> dict:
    from core.store import repo
    item = repo.load_item(store, question["id"])
    return {"options": list(item.options or []), "right": item.typed_answer, "wrong": _wrong_answer(item)}


def _rapid_fire(runner, store, student: str) -> dict:
    from core.school import sittings
    kind, config = sittings.practice_start("Mathematics", "Nat 5", None, lesson=False)
    sid = runner.start(kind, student, config)
    view = runner.view(sid)
    for _ in range(20):
        if _plain(view["question"]):
            return _answers(store, view["question"])
        view = runner.command(sid, "skip")
    raise AssertionError("no plain rapid-fire question in 20")


def _lesson(runner, store, student: str) -> dict:
    from core.school import sittings
    kind, config = sittings.practice_start("Mathematics", "Nat 5", None, lesson=True, cards=3)
    sid = runner.start(kind, student, config)
    view = runner.view(sid)
    while not _plain(view["card"]["question"]):
        view = runner.command(sid, "skip", card_index=view["card"]["index"])
        assert view["stage"] != "ended", "no plain card in the lesson"
    return _answers(store, view["card"]["question"])


@pytest.fixture(scope="module")
def app(tmp_path_factory):
    """The app on a database with the demo class, and the answers to the questions the audit resumes."""
    from core.demo.classroom import ensure_demo
    from core.flows.registry import make_runner
    from core.school.names import student_id
    from core.workbench import open_workbench
    folder = tmp_path_factory.mktemp("accessibility")
    db = folder / "demo.duckdb"
    wb = open_workbench(db)
    try:
        assert ensure_demo(wb.store, wb.library)   # as the app's first run does, before the browser waits on it
        runner = make_runner(wb.store, wb.library)
        ava = student_id(CLASS, STUDENT)
        # The practice page resumes the newest unfinished session: the wrong one first, then the right one,
        # then the lesson.
        lesson = _lesson(runner, wb.store, ava)
        right = _rapid_fire(runner, wb.store, ava)
        wrong = _rapid_fire(runner, wb.store, ava)
    finally:
        wb.store.close()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with pytest.MonkeyPatch.context() as mp:
        for name in [n for n in os.environ if n.startswith("WORKBENCH_LLM_")]:
            mp.delenv(name)   # the tutor is offline: the page says it needs an LLM
        with running_app(db, folder / "streamlit.log") as url:
            yield {"url": url, "wrong": wrong, "right": right, "lesson": lesson}


@pytest.fixture
def page(app):
    from playwright.sync_api import sync_playwright
    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport=VIEWPORT)
            page.set_default_timeout(30_000)
            yield page
        finally:
            browser.close()


VIEWPORT = {"width": 1280, "height": 900}


# ---------------------------------------------------------------------------
# axe-core


class Audit:
    """axe-core on the page as it stands, state by state; the violations are kept and reported together."""

    def __init__(self, page) -> None:
        from axe_playwright_python.sync_playwright import Axe
        self.page = page
        self.axe = Axe()
        self.states: list[str] = []
        self.failures: list[str] = []

    def __call__(self, state: str) -> None:
        page = self.page
        settle(page)
        # Streamlit scrolls inside its own container, and axe leaves out what is scrolled away: the window is
        # made as tall as the page, so every element is checked.
        tall = page.evaluate("() => Math.max(...[...document.querySelectorAll("
                             "'[data-testid=stMain], [data-testid=stSidebarContent]')].map(e => e.scrollHeight))")
        page.set_viewport_size({"width": VIEWPORT["width"], "height": max(VIEWPORT["height"], int(tall) + 40)})
        page.wait_for_timeout(300)
        try:
            found = self._run(page, None, None)     # every rule, everywhere: the student's menu is one plain list
            for frame in page.main_frame.child_frames:   # the clocks: documents of their own
                title = frame.frame_element().get_attribute("title") or frame.url
                found += [(f" (frame {title!r})", v) for _, v in self._run(frame, None, None)]
        finally:
            page.set_viewport_size(VIEWPORT)
        self.states.append(state)
        for where, v in found:
            self.failures.append(describe(f"{state}{where}", v))
        if found:
            page.screenshot(path=str(ARTIFACTS / f"accessibility_{len(self.states):02d}.png"))

    def _run(self, target, context: Optional[dict], extra: Optional[dict], rules: Optional[list] = None):
        options = {"runOnly": {"type": "rule", "values": rules} if rules else {"type": "tag", "values": WCAG},
                   "resultTypes": ["violations"], **(extra or {})}
        result = self.axe.run(target, context=context, options=options)
        return [("", v) for v in result.response["violations"]]


def describe(state: str, violation: dict) -> str:
    lines = [f"{state}: {violation['id']} ({violation['impact']}): {violation['help']} - {violation['helpUrl']}"]
    for node in violation["nodes"]:
        target = " ".join(str(t) for t in node["target"])
        why = " ".join(node.get("failureSummary", "").split())
        lines.append(f"    {target}\n        {why}")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# The student's actions (the audit may use the mouse)


def sign_in(page, url: str, name: str) -> None:
    page.goto(url)
    page.wait_for_selector(IDLE, timeout=90_000)
    page.get_by_label("Class code").fill(CLASS)
    page.get_by_label("Your name").fill(name)
    page.locator("button:visible", has_text="Sign in").first.click()


def click(page, name: str, timeout: float = 30_000) -> None:
    page.get_by_role("button", name=name, exact=True).click()
    settle(page, timeout)


def answer(page, answers: dict, which: str) -> None:
    """The right or wrong answer in the answer box on screen (a choice, or a typed answer shown as read first)."""
    given = answers[which]
    if answers["options"]:
        options = page.locator("[data-testid='stForm'] label[data-testid='stRadioOption']")
        options.nth(answers["options"].index(given)).click()   # by place: the options' maths is drawn
    else:
        box = page.get_by_role("textbox", name=re.compile(r"^Your answer"))
        box.fill(given)
        box.press("Enter")
        settle(page)
        page.get_by_text(READ_AS).first.wait_for()
    click(page, "Check answer")


def open_expanders(page) -> None:
    """What is folded away is read too: every expander on the page opened (one whose content is drawn only once
    opened asks the server for it, so each is let finish before the next)."""
    closed = page.locator("details:not([open]) > summary")
    for _ in range(closed.count()):
        closed.first.click()
        settle(page)
    page.wait_for_timeout(300)


def test_every_student_page_meets_wcag_21_aa(app, page):
    from playwright.sync_api import expect

    audit = Audit(page)
    page.goto(app["url"])
    page.wait_for_selector(IDLE, timeout=90_000)
    expect(page.get_by_text("I'm a student")).to_be_visible()
    audit("sign-in")

    sign_in(page, app["url"], STUDENT)
    # Rapid fire, answered wrong: the feedback and the remediation.
    expect(page.get_by_role("heading", name=re.compile(r"^Question \d+"))).to_be_visible()
    audit("rapid-fire question")
    answer(page, app["wrong"], "wrong")
    expect(page.locator("[data-testid='stAlertContentWarning']").first).to_be_visible()
    expect(page.get_by_text("Key concept:").first).to_be_visible()
    open_expanders(page)   # "Ask the tutor"
    audit("rapid-fire feedback, wrong, with remediation")
    click(page, "Finish")
    expect(page.get_by_text("Question 1 of")).to_be_visible()
    audit("exit ticket")
    click(page, "Not now")

    # Rapid fire, answered right.
    expect(page.get_by_role("heading", name=re.compile(r"^Question \d+"))).to_be_visible()
    answer(page, app["right"], "right")
    expect(page.locator("[data-testid='stAlertContentSuccess']").first).to_be_visible()
    audit("rapid-fire feedback, right")
    click(page, "Finish")
    click(page, "Not now")

    # A lesson: a card, a retry with a hint, the card finished, the summary.
    expect(page.get_by_text("Check your understanding")).to_be_visible()
    open_expanders(page)
    audit("lesson card")
    answer(page, app["lesson"], "wrong")
    expect(page.get_by_text(re.compile(r"^Hint")).first).to_be_visible()
    audit("lesson retry with a hint")
    answer(page, app["lesson"], "right")
    expect(page.get_by_role("button", name="Next card")).to_be_visible()
    audit("lesson card finished")
    click(page, "Next card")
    while page.get_by_role("button", name="Skip this card").count():
        click(page, "Skip this card")
    expect(page.get_by_role("heading", name="How the lesson went")).to_be_visible()
    audit("lesson summary")
    click(page, "Start something new")
    expect(page.get_by_role("button", name="Start", exact=True)).to_be_visible()
    audit("practice set-up")

    # Mock exams: the list, an exam under way (its instructions open), handing in, the results.
    page.get_by_role("link", name="Mock exam").click()
    settle(page)
    expect(page.get_by_role("button", name="Start mock exam")).to_be_visible()
    audit("mock exam list")
    click(page, "Start mock exam", 90_000)
    expect(page.get_by_role("heading", name="Mathematics Nat 5: mock exam")).to_be_visible(timeout=60_000)
    settle(page)
    # The paper is sat a screen at a time, and each paper is new: the first screen with a typed answer (the
    # first can be all choices).
    boxes = page.get_by_role("textbox", name=re.compile("^Your answer to question"))
    screens = page.get_by_role("radiogroup", name="Questions").get_by_role("radio")
    expect(screens.first).to_be_visible()   # the heading is drawn before the rest of the paper
    for k in range(1, screens.count()):
        if boxes.count():
            break
        screens.nth(k).click()
        expect(screens.nth(k)).to_be_checked()
        settle(page)
    box = boxes.first
    box.fill("12")
    box.press("Tab")   # saved as it is left
    settle(page)
    page.locator("summary", has_text="Instructions").click()
    audit("mock exam under way")
    click(page, "Submit exam")
    audit("mock exam, asked before handing in")
    click(page, "Yes, submit my exam", 90_000)
    expect(page.get_by_role("heading", name="Mathematics Nat 5: your results")).to_be_visible(timeout=60_000)
    open_expanders(page)   # every question's marking
    audit("mock exam results")

    page.get_by_role("link", name="Tutor").click()
    settle(page)
    expect(page.get_by_text("needs an LLM").first).to_be_visible()
    audit("tutor, offline")

    page.get_by_role("link", name="My progress").click()
    settle(page)
    expect(page.get_by_role("heading", name="What to practise next")).to_be_visible()
    audit("my progress")

    assert not audit.failures, (f"{len(audit.failures)} accessibility violations (axe-core, WCAG 2.1 A and AA) "
                                f"in {len(audit.states)} states:\n" + "\n".join(audit.failures))


# ---------------------------------------------------------------------------
# Keyboard alone

# A table (st.dataframe) is a data grid drawn on a canvas; it moves the focus among its canvas, its cells and its
# scroller on its own, and draws the focused cell on the canvas, where no style shows it. The walk checks that
# Tab and Shift+Tab pass through it both ways, counting it as one stop; its focus ring is Streamlit's to draw.
GRID = "[data-testid=stDataFrameResizable]"
# The element with the focus: what it is called, where it is, and its number in this page's list of stops.
FOCUSED = """() => {
  const GRID = '""" + GRID + """';
  const shown = (el) => { for (; el; el = el.parentElement) { const s = getComputedStyle(el);
    if (s.visibility === 'hidden' || parseFloat(s.opacity) === 0) return false; } return true; };
  const e = document.activeElement;
  const stops = (window.__stops = window.__stops || []);
  if (!stops.includes(e)) stops.push(e);
  const group = e.closest('[role=radiogroup]');
  const labelled = e.getAttribute('aria-label') || (e.labels && e.labels.length ? e.labels[0].innerText : '');
  const box = (e.closest('label') || e).getBoundingClientRect();
  const main = document.querySelector('[data-testid=stMain]');
  const grid = e.closest(GRID);
  return {stop: stops.indexOf(e), tag: e.tagName, type: e.type || '',
          grid: grid ? [...document.querySelectorAll(GRID)].indexOf(grid) : -1,
          name: (labelled || e.innerText || e.title || '').trim().replace(/\\s+/g, ' ').slice(0, 80),
          group: group ? group.getAttribute('aria-label') : null,
          where: e.closest('[data-testid=stSidebar]') ? 'menu' : e.closest('[data-testid=stMain]') ? 'main' : 'page',
          top: box.top + (main && main.contains(e) ? main.scrollTop : 0), left: box.left,
          seen: box.width > 0 && box.height > 0 && box.bottom > 0 && box.top < innerHeight && shown(e)};
}"""
# The element with the focus, described as FOCUSED does (without counting it as a stop).
DESCRIBED = """(e) => {
  const group = e.closest('[role=radiogroup]');
  const labelled = e.getAttribute('aria-label') || (e.labels && e.labels.length ? e.labels[0].innerText : '');
  return {tag: e.tagName, name: (labelled || e.innerText || e.title || '').trim().replace(/\\s+/g, ' ').slice(0, 80),
          group: group ? group.getAttribute('aria-label') : null};
}"""
# How an element and what holds it are drawn: a focus ring shows as a change here (an outline, a shadow, a border).
RING = """(e) => [e, e.closest('label'), e.parentElement, e.parentElement && e.parentElement.parentElement,
  e.parentElement && e.parentElement.parentElement && e.parentElement.parentElement.parentElement]
  .filter(Boolean).map(p => { const s = getComputedStyle(p);
    const outline = s.outlineStyle === 'none' || parseFloat(s.outlineWidth) === 0 ? 'none'
      : `${s.outlineStyle} ${s.outlineWidth} ${s.outlineColor}`;
    return [outline, s.boxShadow, s.borderTopColor, s.borderBottomColor].join(' | '); }).join(' / ')"""


def show(stop: dict) -> str:
    return f"{stop['tag'].lower()} {stop['name']!r}" + (f" in {stop['group']!r}" if stop["group"] else "")


class Keys:
    """The keyboard walk: where the focus is after each key, and checks that it is visible."""

    def __init__(self, page) -> None:
        self.page = page
        self.unseen: list[str] = []    # stops whose focus could not be seen

    def focused(self) -> dict:
        return self.page.evaluate(FOCUSED)

    def press(self, key: str) -> dict:
        """One key; the focused element must be on screen with a ring that leaves when the focus moves on."""
        page = self.page
        before = page.evaluate_handle("document.activeElement")
        ring = before.evaluate(RING)
        page.keyboard.press(key)
        page.wait_for_timeout(60)
        stop = self.focused()
        # The browser scrolls the focused element into view on its next frames; on a busy machine that can take
        # longer than 60 ms, so an element still off screen is looked at again for up to a second.
        for _ in range(10):
            if stop["seen"] or stop["tag"] in ("BODY", "HTML") or stop["grid"] >= 0:
                break
            page.wait_for_timeout(100)
            stop = self.focused()
        left = before.evaluate("e => e.isConnected && e !== document.activeElement && !['BODY', 'HTML'].includes("
                               f"e.tagName) && !e.closest('{GRID}')")
        if left and before.evaluate(RING) == ring:   # nothing about it changed as the focus left it
            self.unseen.append(show(before.evaluate(DESCRIBED)))
        if stop["tag"] not in ("BODY", "HTML") and stop["grid"] < 0 and not stop["seen"]:
            self.unseen.append(f"{show(stop)} (off screen)")
        return stop

    def to(self, wanted: Callable[[dict], bool], what: str, limit: int = 120, key: str = "Tab") -> list[dict]:
        """Tab on until ``wanted`` has the focus; the stops on the way."""
        stops = []
        for _ in range(limit):
            stops.append(self.press(key))
            if wanted(stops[-1]):
                return stops
        pytest.fail(f"{key} never reached {what} in {limit} presses; it went: "
                    + ", ".join(show(s) for s in stops))

    def round_trip(self, page_name: str, limit: int = 150) -> list[dict]:
        """Tab from here all round the page and back to here, then Shift+Tab all the way back: the same stops in
        reverse (so nothing traps the focus either way), with the main area's in reading order."""
        self.page.evaluate("() => { window.__stops = []; }")
        start = self.focused()
        if start["tag"] in ("BODY", "HTML"):   # after a rerun: the focus starts again from the page
            start = self.press("Tab")
        forward = self.to(lambda s: s["stop"] == start["stop"], f"back to {show(start)} on {page_name}", limit)
        backward = self.to(lambda s: s["stop"] == start["stop"], f"back to {show(start)} on {page_name}", limit,
                           key="Shift+Tab")
        there, back = stops(forward), stops(backward)
        assert back[:-1] == there[-2::-1], (
            f"on {page_name}, Shift+Tab did not retrace Tab:\n  Tab: " + ", ".join(show(s) for s in forward)
            + "\n  Shift+Tab: " + ", ".join(show(s) for s in backward))
        # From the top of the page: "Skip to main content", the menu, then the page itself in reading order.
        first = next((k + 1 for k, s in enumerate(forward) if s["tag"] in ("BODY", "HTML")),
                     next((k for k, s in enumerate(forward) if s["name"] == "Skip to main content"), 0))
        cycle = [s for s in forward[first:] + forward[:first] if s["tag"] not in ("BODY", "HTML")]
        places = [s["where"] for s in cycle]
        assert places == sorted(places, key=["page", "menu", "main"].index), (
            f"on {page_name} the focus does not go skip link, menu, page: " + ", ".join(show(s) for s in cycle))
        main = [s for s in cycle if s["where"] == "main" and s["tag"] != "MAIN" and s["grid"] < 0]
        for a, b in zip(main, main[1:]):
            assert b["top"] > a["top"] - 8 or (abs(b["top"] - a["top"]) <= 8 and b["left"] > a["left"]), (
                f"on {page_name}, Tab goes from {show(a)} back up to {show(b)}: "
                + ", ".join(show(s) for s in main))
        return cycle


def stops(walk: list[dict]) -> list:
    """The stops of a walk, each table one stop (see GRID); past the end of the page the focus rests on the page
    itself, going forward only, which is not a stop either."""
    out: list = []
    for s in walk:
        stop = ("table", s["grid"]) if s["grid"] >= 0 else s["stop"]
        if s["tag"] not in ("BODY", "HTML") and (not out or out[-1] != stop):
            out.append(stop)
    return out


def named(text: str) -> Callable[[dict], bool]:
    return lambda s: s["name"] == text


def question_order(label: str) -> tuple:
    number, part = re.match(r"(\d+)(?:\((\w+)\))?", label).groups()
    return int(number), part or ""


def test_a_student_practises_and_sits_a_mock_exam_by_keyboard_alone(app, page):
    from playwright.sync_api import expect

    keys = Keys(page)
    page.goto(app["url"])
    page.wait_for_selector(IDLE, timeout=90_000)
    keys.to(named("Class code"), "the class code")
    page.keyboard.type(CLASS)
    keys.to(named("Your name"), "the name box")
    page.keyboard.type(KEYBOARD_STUDENT)
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Practice", exact=True)).to_be_visible(timeout=30_000)
    settle(page)

    # Practice: set up, one rapid-fire question answered, checked, and the next one asked for.
    stops = keys.round_trip("practice set-up")
    order = [s["name"] for s in stops if s["name"] in ("Subject", "Level", "Outcome", "Rapid fire", "Start")]
    assert order == ["Subject", "Level", "Outcome", "Rapid fire", "Start"], order
    keys.to(named("Start"), "Start")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Question 1")).to_be_visible()
    settle(page)
    stops = keys.round_trip("a rapid-fire question")
    names = [s["name"] for s in stops]
    first_input = next(k for k, s in enumerate(stops) if s["tag"] == "INPUT")
    assert first_input < names.index("Skip this question") < names.index("Finish"), names
    form = page.locator("[data-testid='stForm']")
    if form.locator("[role='radiogroup']").count():
        keys.to(lambda s: s["group"] == "Your answer", "the options")
        page.keyboard.press("ArrowDown")   # the next option, chosen
        assert page.evaluate("() => document.activeElement.checked")
    elif form.locator("input[type='checkbox']").count():   # choose several: the first one ticked
        keys.to(lambda s: s["type"] == "checkbox", "the first tick box")
        page.keyboard.press("Space")
        assert page.evaluate("() => document.activeElement.checked")
    else:
        boxes = page.get_by_role("textbox", name=re.compile(r"^(Your answer|Step \d)")).count()
        keys.to(lambda s: s["name"].startswith(("Your answer", "Step 1")), "the answer box")
        for k in range(boxes):
            page.keyboard.type("7")
            if k < boxes - 1:
                keys.press("Tab")   # the next step's box
                settle(page)
        page.keyboard.press("Enter")   # shows how the answer is read
        settle(page)
        expect(page.get_by_text(READ_AS).first).to_be_visible()
    keys.to(named("Check answer"), "Check answer")
    page.keyboard.press("Enter")
    settle(page)
    expect(page.locator("[data-testid='stAlertContentSuccess'], [data-testid='stAlertContentWarning']").first) \
        .to_be_visible()
    expect(page.get_by_text("Correct answer:")).to_be_visible()
    keys.round_trip("the feedback")
    keys.to(named("Next question"), "Next question")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Question 2")).to_be_visible()
    settle(page)

    # A mock exam: opened from the menu, started, one answer, handed in, the results.
    keys.to(lambda s: s["where"] == "menu" and s["name"].endswith("Mock exam"), "the menu's Mock exam")
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Start mock exam")).to_be_visible()
    settle(page)
    stops = keys.round_trip("the mock exam list")
    names = [s["name"] for s in stops]
    assert names.index("Subject") < names.index("Level") < names.index("Start mock exam"), names
    keys.to(named("Start mock exam"), "Start mock exam")
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Mathematics Nat 5: mock exam")).to_be_visible(timeout=60_000)
    settle(page, 60_000)
    stops = keys.round_trip("the exam paper", limit=300)
    boxes = [s["group"] or s["name"] for s in stops]
    labels = [re.sub(r"^Your answer to question ", "", b).split(" ")[0] for b in boxes
              if b.startswith("Your answer to question")]
    assert labels and labels == sorted(labels, key=question_order), f"answer boxes out of order: {labels}"
    assert "Submit exam" in [s["name"] for s in stops]
    first = keys.to(lambda s: (s["group"] or s["name"]).startswith("Your answer to question"), "the first answer")[-1]
    if first["type"] == "radio":
        page.keyboard.press("ArrowDown")   # chosen, and saved as it changes
        settle(page)
    else:
        page.keyboard.type("12")
        keys.press("Tab")   # leaving the box saves it
        settle(page)
    expect(page.get_by_text(re.compile(r"^1 of \d+ questions answered"))).to_be_visible()
    to_submit = keys.to(named("Submit exam"), "Submit exam", limit=300)
    on_the_way = [re.sub(r"^Your answer to question ", "", s["group"] or s["name"]).split(" ")[0] for s in to_submit
                  if (s["group"] or s["name"]).startswith("Your answer to question")]
    assert on_the_way == sorted(on_the_way, key=question_order), on_the_way
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Yes, submit my exam")).to_be_visible()
    asked = keys.to(lambda s: s["name"] in ("Yes, submit my exam", "Keep working"), "the question before handing in")
    assert asked[-1]["name"] == "Yes, submit my exam", [show(s) for s in asked]
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Mathematics Nat 5: your results")).to_be_visible(timeout=60_000)
    settle(page)
    keys.round_trip("the results", limit=300)
    keys.to(named("Back to my exams"), "Back to my exams", limit=300)
    page.keyboard.press("Enter")
    expect(page.get_by_role("button", name="Start mock exam")).to_be_visible()

    assert not keys.unseen, "the focus could not be seen on: " + "; ".join(keys.unseen)
