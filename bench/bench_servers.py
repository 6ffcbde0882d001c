"""Two app servers on one PostgreSQL database, 50 students answering through both: every answer written once.

Starts a throwaway PostgreSQL cluster (tests/pg_cluster.py), builds the demo
class in a new database and adds students to its roster until it has
``--students`` of them, then starts two real app servers on that database
together (`streamlit run app.py`, headless, each on a free port, with
``WORKBENCH_DB`` the database's URL, snapshots off, and no reloading of the
project's modules when a file changes). Debian's chromium, driven by
Playwright, opens a context (a separate browser session) per student, the
students alternating between the two servers; each signs in and does rapid
fire: Start, then ``--answers`` times type an answer (or pick an option), see
how it is read, Check answer, and Next question.

All the students' sessions stay open and interleaved on both servers; at most
``--active`` of their clicks are in flight at once (a first-come queue), since
50 pages and two servers share this machine's cores. An answer counts as sent
when the browser saw its feedback (the marker's verdict, a success or a warning) after Check
answer (or, after a failed step, on the page opened again). Afterwards the
database is counted for the students' new sessions: responses rows,
``answered`` events, sessions, and any answer stored twice (two rows or two
events for one question of one session). The PostgreSQL log shows the write
conflicts the servers retried (serialization failures).

Prints answers sent and written per server, lost and extra, conflicts, the
Check answer page time (median, p95) per server and where the CPU went. Exits
1 when the answers written differ from the answers sent (or one is stored
twice), 2 when they add up but a student could not finish or a server printed
a traceback, else 0.

Each answer costs about 3 CPU seconds here (app server 1.3, browser page 1.9)
and each sign-in about 5 (mostly the page loading in its own context), so on
2 cores 50 students take about 5 minutes with the default 2 answers each and
11 minutes with 6.

    python bench/bench_servers.py [--students 50] [--answers 2] [--active 8] [--think 0] [--shots DIR]
"""
from __future__ import annotations

import argparse
import asyncio
import collections
import concurrent.futures
import dataclasses
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_load import (ACTION_TIMEOUT_MS, CHROMIUM, CLICK_TIMEOUT_MS, ELAPSED, IDLE, TICK, _stat, free_port, pct,  # noqa: E402
                        settle, start_app, stop_app, timed, visible)
from core.blueprints.library import Library  # noqa: E402
from core.demo.classroom import DEMO_CODE, DEMO_NAMES, demo_students, ensure_demo  # noqa: E402
from core.school.classes import add_student  # noqa: E402
from core.store import Store  # noqa: E402
from tests.pg_cluster import start_cluster, unavailable_reason  # noqa: E402

FIRST = ["Iona", "Jack", "Kirsty", "Lewis", "Morag", "Niall", "Orla", "Pavel", "Quinn", "Rhona", "Sami", "Tara",
         "Umar", "Vera", "Wes", "Xena", "Yusuf", "Zara"]
LAST = ["Jamieson", "Kerr", "Laing", "Munro", "Nairn", "Orr", "Paterson", "Quigley", "Ross", "Stewart"]
FEEDBACK = "[data-testid='stAlertContentSuccess'], [data-testid='stAlertContentWarning']"
UNITS = re.compile(r"with its units \(([^)]*)\)")
# Fifty pages share the machine with both servers: software compositing in the browser process, no motion.
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-gpu-compositing", "--in-process-gpu",
                "--force-prefers-reduced-motion", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--no-first-run", "--disable-renderer-backgrounding",
                "--disable-background-timer-throttling", "--disable-backgrounding-occluded-windows",
                "--disable-dev-shm-usage"]
CONTEXT = {"viewport": {"width": 1024, "height": 768}, "reduced_motion": "reduce"}
SHOTS: Optional[Path] = None    # --shots: a screenshot of each page where a student's action failed
CONFLICT_LINES = {"serialization failure": "could not serialize access",
                  "deadlock": "deadlock detected",
                  "duplicate key": "duplicate key value violates unique constraint"}


@dataclasses.dataclass
class Tally:
    """One student's run as the browser saw it."""
    server: int
    name: str
    student: str
    checks: int = 0          # Check answer clicked with an answer the page could read
    sent: int = 0            # ... and its feedback came back (then, or when the page was next looked at)
    late: int = 0            # of those, feedback seen only after the page was opened again
    pending: bool = False    # Check answer clicked, feedback not yet seen
    right: int = 0
    unreadable: int = 0      # the page could not read the typed answer: the question was skipped instead
    reloads: int = 0         # first pages that showed an error and were reloaded
    doing: str = ""          # what the student is at (for error messages)
    trace: list = dataclasses.field(default_factory=list)     # (seconds, what): kept with --shots
    times: list = dataclasses.field(default_factory=list)     # (action, seconds)
    errors: list = dataclasses.field(default_factory=list)


def cpu_seconds(roots: list[int], exclude: tuple[int, ...] = ()) -> float:
    """CPU seconds of these processes and all their live descendants (and the children they have waited for)."""
    parent: dict[int, int] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                parent[int(proc.name)] = int(_stat(int(proc.name))[1])
            except (OSError, ValueError, IndexError):
                continue
    children = collections.defaultdict(list)
    for pid, ppid in parent.items():
        children[ppid].append(pid)
    total, todo = 0.0, [r for r in roots if r not in exclude]
    while todo:
        pid = todo.pop()
        try:
            f = _stat(pid)
        except (OSError, ValueError, IndexError):
            continue
        total += sum(int(x) for x in f[11:15]) / TICK
        todo += [c for c in children[pid] if c not in exclude]
    return total


def machine_busy() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far."""
    total = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    return (sum(total) - total[3] - total[4]) / TICK, sum(total) / TICK


def postmaster(cluster) -> int:
    return int((cluster.data / "postmaster.pid").read_text().split()[0])


def roster_names(count: int) -> list[str]:
    """The demo students first, then made-up names, ``count`` in all."""
    names = DEMO_NAMES + [f"{first} {last}" for last in LAST for first in FIRST]
    if count > len(names):
        raise SystemExit(f"--students: at most {len(names)}")
    return names[:count]


def prepare_database(url: str, names: list[str]) -> tuple[dict[str, str], set[str]]:
    """The demo class with ``names`` on its roster; ({name: student id}, ids of the sessions already there)."""
    store = Store(url)
    try:
        ensure_demo(store, Library.load(exercise=False))
        ids = dict(zip(DEMO_NAMES, demo_students()))
        for name in names:
            if name not in ids:
                ids[name] = add_student(store, DEMO_CODE, name)
        before = {r[0] for r in store.query("SELECT id FROM sessions")}
    finally:
        store.close()
    return {n: ids[n] for n in names}, before


async def act(gate: asyncio.Semaphore, tally: Tally, page, what: str, click, until=None) -> None:
    """One timed click, holding one of the ``--active`` places while its script runs.

    With ``until`` (a locator) the click's time runs to the end of the script runs after which ``until``
    shows: a click whose script asks for another run (st.rerun) may leave the page idle in between.
    """
    tally.doing = what
    async with gate:
        timing = await timed(page, what, click)
        if until is not None:
            tally.doing = f"{what}: waiting for its result"
            await until.first.wait_for()
            await settle(page)
            timing = [(what, await page.evaluate(ELAPSED))]
    tally.times.extend(timing)
    note(tally, f"{what}: {timing[0][1]:.2f} s" if timing else f"{what}: no run started")


def note(tally: Tally, what: str) -> None:
    if SHOTS:
        tally.trace.append((time.monotonic(), what))


def feedback(page):
    return page.locator("[data-testid='stMain']").locator(FEEDBACK)


async def received(tally: Tally, page, late: bool = False) -> None:
    """The answer just checked came back with its feedback: it counts as sent."""
    note(tally, "feedback" + (" (late)" if late else ""))
    tally.sent += 1
    tally.late += late
    tally.pending = False
    tally.right += await page.locator("[data-testid='stMain'] [data-testid='stAlertContentSuccess']").count() > 0


async def answer(page, gate: asyncio.Semaphore, tally: Tally, n: int) -> None:
    """Answer the question on screen: pick the first option, or type a number (with units if asked)."""
    main = page.locator("[data-testid='stMain']")
    form = main.locator("[data-testid='stForm']")
    check = page.get_by_role("button", name="Check answer")
    if await visible(form.get_by_role("radiogroup")) or await visible(form.locator("label:has(input[type='checkbox'])")):
        tally.doing = "choosing an option"
        await form.locator("label:has(input[type='radio']), label:has(input[type='checkbox'])").first.click(
            timeout=CLICK_TIMEOUT_MS)
        tally.checks += 1
        tally.pending = True
        await act(gate, tally, page, "check answer", form.get_by_role("button", name="Check answer").first.click,
                  until=feedback(page))
    else:
        boxes = main.locator("[data-testid='stTextInput'] input")
        count = await boxes.count()
        if not count:
            raise RuntimeError("a question with neither options nor an answer box")
        tally.doing = "typing an answer"
        for i in range(count):
            label = await boxes.nth(i).get_attribute("aria-label") or ""
            units = UNITS.search(label)
            value = f"{7 + (n + i) % 5}.{n % 10 + 1}" + (f" {units.group(1)}" if units else "")
            await boxes.nth(i).fill(value, timeout=CLICK_TIMEOUT_MS)
            note(tally, f"typed {value!r} in {label[:40]!r}")
        last = boxes.nth(count - 1)
        await act(gate, tally, page, "preview answer", lambda timeout: last.press("Enter", timeout=timeout),
                  until=main.get_by_text(re.compile("was read as")).or_(main.get_by_text("could not be read")).first)
        tally.doing = "looking at Check answer"
        if not await check.first.is_enabled():
            tally.unreadable += 1
            await act(gate, tally, page, "skip", page.get_by_role("button", name="Skip this question").first.click)
            return
        tally.checks += 1
        tally.pending = True
        again = page.get_by_text("Check how your answer was read")   # the answer was not previewed after all
        await act(gate, tally, page, "check answer", check.first.click, until=feedback(page).or_(again))
        if await visible(again):
            await act(gate, tally, page, "check answer", check.first.click, until=feedback(page))
    await received(tally, page)


async def look_back(page, tally: Tally) -> None:
    """An answer whose feedback did not show: the page, opened again, says whether it was recorded."""
    tally.doing = "looking for the feedback of the last answer"
    await settle(page)
    if await visible(feedback(page)):
        await received(tally, page, late=True)
    else:
        tally.pending = False


async def step(page, gate: asyncio.Semaphore, tally: Tally, n: int) -> None:
    """The next thing on this student's Practice page: start, move on, or answer."""
    if tally.pending:
        await look_back(page, tally)
    await settle(page)
    question = page.get_by_role("button", name="Check answer")
    for label in ("Next question", "Start"):
        button = page.get_by_role("button", name=label, exact=True)
        if await visible(button):
            await act(gate, tally, page, label.lower(), button.first.click, until=question)
            return
    await answer(page, gate, tally, n)


async def student(page, gate: asyncio.Semaphore, tally: Tally, answers: int, think: float) -> None:
    n = 0
    while tally.sent < answers and n < 4 * answers + 8:
        try:
            await step(page, gate, tally, n)
        except Exception as exc:  # noqa: BLE001 - counted and reported; the student carries on
            tally.errors.append(f"{tally.doing}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")
            note(tally, "ERROR " + tally.errors[-1])
            if SHOTS:
                await page.screenshot(path=str(SHOTS / f"{tally.name.replace(' ', '_')}_{len(tally.errors)}.png"),
                                      full_page=True)
            try:
                await page.get_by_role("link", name="Practice").click(timeout=CLICK_TIMEOUT_MS)
                await settle(page)
            except Exception as again:  # noqa: BLE001 - the next step looks again
                tally.errors.append(f"back to Practice failed: {type(again).__name__}")
        n += 1
        if think:
            await asyncio.sleep(think)
    if tally.pending:
        try:
            await look_back(page, tally)
        except Exception as exc:  # noqa: BLE001 - reported
            tally.errors.append(f"{tally.doing}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")


async def sign_in(browser, gate: asyncio.Semaphore, url: str, tally: Tally, pages: dict) -> None:
    """As bench_load's sign_in_student, but a first page that shows an error is reloaded once, as a student would."""
    async with gate:
        tally.doing = "opening the app"
        try:
            context = await browser.new_context(**CONTEXT)
            page = await context.new_page()
            page.set_default_timeout(ACTION_TIMEOUT_MS)
            await page.goto(url)
            for attempt in range(2):
                await page.wait_for_selector(IDLE, timeout=120_000)
                failed = page.locator("[data-testid='stException']")
                await page.get_by_text("I'm a student").or_(failed).first.wait_for()
                if not await failed.count():
                    break
                shown = " ".join((await failed.first.inner_text()).split())
                tally.errors.append(f"first page showed an error: {shown[:300]}")
                tally.reloads += 1
                if attempt:
                    raise RuntimeError("the first page failed again after a reload")
                await page.reload()
            tally.doing = "signing in"
            await page.get_by_label("Class code").fill(DEMO_CODE)
            await page.get_by_label("Your name").fill(tally.name)
            await page.locator("button:visible", has_text="Sign in").first.click()
            await page.get_by_role("heading", name="Practice").wait_for()
            await settle(page)
            pages[tally.name] = page
        except Exception as exc:  # noqa: BLE001 - reported; this student answers nothing
            tally.errors.append(f"{tally.doing}: {type(exc).__name__}: {str(exc).splitlines()[0][:200]}")


def cpu_now(servers: list[subprocess.Popen], pg: int) -> dict[str, float]:
    """CPU seconds so far: the app servers, PostgreSQL, the browser (with Playwright and this script), the machine."""
    apps = cpu_seconds([s.pid for s in servers])
    busy, every = machine_busy()
    return {"time": time.monotonic(), "app servers": apps, "PostgreSQL": cpu_seconds([pg]),
            "browser and driver": cpu_seconds([os.getpid()], exclude=tuple(s.pid for s in servers)),
            "machine busy": busy, "machine": every}


async def drive(urls: list[str], tallies: list[Tally], args, meter) -> list[dict]:
    """Sign everyone in, then let them all answer; CPU readings before, between and after."""
    from playwright.async_api import async_playwright
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        try:
            pages: dict[str, object] = {}
            gate = asyncio.Semaphore(max(1, args.active))
            readings = [meter()]
            await asyncio.gather(*(sign_in(browser, gate, urls[t.server], t, pages) for t in tallies))
            readings.append(meter())
            print(f"  {len(pages)} of {len(tallies)} students signed in, in "
                  f"{readings[1]['time'] - readings[0]['time']:.0f} s; answering…", flush=True)
            await asyncio.gather(*(student(pages[t.name], gate, t, args.answers, args.think)
                                   for t in tallies if t.name in pages))
            readings.append(meter())   # before the browser closes: its page processes are still there to count
            return readings
        finally:
            await browser.close()


def count_database(url: str, before: set[str], tallies: list[Tally]) -> dict[str, dict]:
    """Per student id: new sessions by kind, responses, answered events, answers stored twice."""
    ids = [t.student for t in tallies]
    marks = ", ".join("?" for _ in ids)
    store = Store(url)
    try:
        sessions = [r for r in store.query(f"SELECT id, student, kind FROM sessions WHERE student IN ({marks})", ids)
                    if r[0] not in before]
        new = [r[0] for r in sessions]
        found: dict[str, dict] = {i: {"sessions": collections.Counter(), "responses": 0, "answered": 0,
                                      "twice": 0, "not_practice": 0} for i in ids}
        for _, who, kind in sessions:
            found[who]["sessions"][kind] += 1
        if new:
            smarks = ", ".join("?" for _ in new)
            for who, kind, rows, keys in store.query(
                    "SELECT r.student, s.kind, count(*), count(DISTINCT (r.session_id, r.item_id)) FROM responses r "
                    f"JOIN sessions s ON s.id = r.session_id WHERE r.session_id IN ({smarks}) "
                    "GROUP BY r.student, s.kind", new):
                found[who]["responses"] += rows
                found[who]["twice"] += rows - keys
                found[who]["not_practice"] += rows if kind != "practice" else 0
            for who, rows, keys in store.query(
                    "SELECT s.student, count(*), count(DISTINCT (e.session_id, e.payload::json->>'item_id')) "
                    f"FROM events e JOIN sessions s ON s.id = e.session_id WHERE e.session_id IN ({smarks}) "
                    "AND e.type = 'answered' AND s.kind = 'practice' GROUP BY s.student", new):
                found[who]["answered"] += rows
                found[who]["twice"] += rows - keys
        stats = store.query("SELECT xact_commit, xact_rollback, deadlocks FROM pg_stat_database "
                            "WHERE datname = current_database()")[0]
    finally:
        store.close()
    found["_db"] = {"commits": stats[0], "rollbacks": stats[1], "deadlocks": stats[2]}
    return found


def log_conflicts(log: Path) -> dict[str, int]:
    text = log.read_text(errors="replace") if log.exists() else ""
    return {name: text.count(line) for name, line in CONFLICT_LINES.items()}


def tracebacks(log: Path) -> list[str]:
    """The tracebacks a server printed, each to its error line (a chained one with the exceptions before it)."""
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    chained = ("During handling", "The above exception")
    out, i = [], 0
    while i < len(lines):
        if not lines[i].startswith("Traceback"):
            i += 1
            continue
        j = i + 1
        while j < len(lines):
            if lines[j].startswith((" ", "Traceback") + chained) or not lines[j].strip():
                j += 1
                continue
            k = j + 1            # an error line: the end, unless another exception follows from it
            while k < len(lines) and not lines[k].strip():
                k += 1
            if k < len(lines) and lines[k].startswith(chained):
                j = k
                continue
            break
        out.append("\n".join(lines[i:j + 1]))
        i = j + 1
    return out


def project_frames(traceback: str) -> list[str]:
    """The traceback's frames in the project's own files, as path:line function."""
    frame = re.compile(r'File "' + re.escape(str(ROOT)) + r'/([^"]+)", line (\d+), in (\S+)')
    last = traceback.rsplit("Traceback (most recent call last):", 1)[-1]    # the exception that was raised last
    return [f"{m[1]}:{m[2]} {m[3]}" for m in frame.finditer(last) if "site-packages" not in m[1]]


def run(args) -> int:
    # The servers must not reload the project's modules when a file in the tree changes meanwhile.
    os.environ["STREAMLIT_SERVER_FILE_WATCHER_TYPE"] = "none"
    names = roster_names(args.students)
    started = time.monotonic()
    cluster = start_cluster(durable=True)   # every commit flushed, as on a real server
    try:
        url = cluster.create_database(prefix="bench_servers")
        print(f"PostgreSQL {cluster.bin.parent.name} on port {cluster.port}; building the demo class with "
              f"{len(names)} students…", flush=True)
        ids, before = prepare_database(url, names)
        with tempfile.TemporaryDirectory(prefix="bench_servers_") as tmp:
            logs = [Path(tmp) / f"server{k + 1}.log" for k in range(2)]
            ports = [free_port(), free_port()]
            while ports[1] == ports[0]:
                ports[1] = free_port()
            with concurrent.futures.ThreadPoolExecutor(2) as pool:
                futures = [pool.submit(start_app, url, port, log) for port, log in zip(ports, logs)]
                servers = [f.result() for f in futures]
            urls = [f"http://127.0.0.1:{p}" for p in ports]
            print(f"Two app servers at {urls[0]} and {urls[1]} on the same database, after "
                  f"{time.monotonic() - started:.0f} s. {len(names)} students, {args.answers} answers each, "
                  f"at most {args.active} clicks in flight…", flush=True)
            tallies = [Tally(k % 2, name, ids[name]) for k, name in enumerate(names)]
            try:
                readings = asyncio.run(drive(urls, tallies, args, lambda: cpu_now(servers, postmaster(cluster))))
            finally:
                for server in servers:
                    stop_app(server)
            traces = [(k + 1, t) for k, log in enumerate(logs) for t in tracebacks(log)]
            if SHOTS:
                for t in tallies:
                    (SHOTS / f"{t.name.replace(' ', '_')}.txt").write_text(
                        "".join(f"{when - started:8.2f} {what}\n" for when, what in t.trace))
        found = count_database(url, before, tallies)
        conflicts = log_conflicts(cluster.root / "log")
    finally:
        cluster.stop()
    return report(args.answers, tallies, found, conflicts, traces, readings, time.monotonic() - started)


def cpu_lines(readings: list[dict]) -> list[str]:
    out = []
    for name, a, b in (("signing in", readings[0], readings[1]), ("answering", readings[1], readings[2])):
        wall = b["time"] - a["time"]
        parts = [f"{k} {b[k] - a[k]:.0f} s" for k in ("app servers", "browser and driver", "PostgreSQL")]
        busy = (b["machine busy"] - a["machine busy"]) / max(1e-9, b["machine"] - a["machine"])
        out.append(f"  {name:<11} {wall:5.0f} s: CPU " + ", ".join(parts)
                   + f"; machine {busy:.0%} busy on {os.cpu_count()} CPUs")
    return out


def report(answers: int, tallies: list[Tally], found: dict, conflicts: dict, traces: list, readings: list[dict],
           total_s: float) -> int:
    print()
    print(f"{'server':<8}{'students':>9}{'checks':>8}{'sent':>6}{'written':>9}{'events':>8}{'lost':>6}{'extra':>7}"
          f"{'twice':>7}{'unread':>8}{'check median s':>16}{'p95 s':>8}{'n':>5}")
    totals = collections.Counter()
    for server in (0, 1, None):
        group = [t for t in tallies if server is None or t.server == server]
        sent = sum(t.sent for t in group)
        written = sum(found[t.student]["responses"] for t in group)
        events = sum(found[t.student]["answered"] for t in group)
        lost = sum(max(0, t.sent - found[t.student]["responses"]) for t in group)
        extra = sum(max(0, found[t.student]["responses"] - t.sent) for t in group)
        twice = sum(found[t.student]["twice"] for t in group)
        checks = [s for t in group for a, s in t.times if a == "check answer"]
        name = "both" if server is None else f"{server + 1}"
        line = (f"{name:<8}{len(group):>9}{sum(t.checks for t in group):>8}{sent:>6}{written:>9}{events:>8}"
                f"{lost:>6}{extra:>7}{twice:>7}{sum(t.unreadable for t in group):>8}")
        if checks:
            line += f"{statistics.median(checks):>16.3f}{pct(checks, 0.95):>8.3f}{len(checks):>5}"
        print(line)
        if server is None:
            totals.update(sent=sent, written=written, events=events, lost=lost, extra=extra, twice=twice)
    kinds = collections.Counter()
    for t in tallies:
        kinds.update(found[t.student]["sessions"])
    db = found["_db"]
    print(f"new sessions: {dict(kinds) or 'none'}; responses outside practice: "
          f"{sum(found[t.student]['not_practice'] for t in tallies)}; answers whose feedback showed only when the "
          f"page was opened again: {sum(t.late for t in tallies)}; right: {sum(t.right for t in tallies)}")
    print("write conflicts in the PostgreSQL log (each retried by the server that lost): "
          + ", ".join(f"{k} {v}" for k, v in conflicts.items())
          + f"; database: {db['commits']} commits, {db['rollbacks']} rollbacks, {db['deadlocks']} deadlocks")
    actions = collections.defaultdict(list)
    for t in tallies:
        for a, s in t.times:
            actions[a].append(s)
    print("page times, both servers: " + ", ".join(
        f"{a} median {statistics.median(v):.3f} s p95 {pct(v, 0.95):.3f} s (n={len(v)})"
        for a, v in sorted(actions.items())))
    answer_s = readings[2]["time"] - readings[1]["time"]
    print(f"whole run {total_s:.0f} s; {totals['sent'] / answer_s:.1f} answers/s while answering; CPU by phase:")
    print("\n".join(cpu_lines(readings)))
    errors = [(t.name, e) for t in tallies for e in t.errors]
    if errors:
        print(f"{len(errors)} student action(s) failed, e.g. " + "; ".join(f"{n}: {e}" for n, e in errors[:3]))
    short = [t.name for t in tallies if t.sent < answers]
    if short:
        print(f"{len(short)} student(s) did not get all {answers} answers through, e.g. {', '.join(short[:5])}")
    reloads = sum(t.reloads for t in tallies)
    if reloads:
        print(f"{reloads} student(s) got an error on their first page and reloaded it")
    if traces:
        print(f"{len(traces)} traceback(s) in the servers' output:")
        for server, text in traces:
            print(f"  server {server}: {text.splitlines()[-1][:400]}")
            print(f"    raised in {' <- '.join(reversed(project_frames(text)))}")
    consistent = (totals["written"] == totals["sent"] and totals["events"] == totals["sent"] and totals["twice"] == 0
                  and totals["sent"] > 0)
    finished = not short
    print(f"answers written = answers sent ({totals['written']} = {totals['sent']}), each once: "
          f"{'yes' if consistent else 'NO'}")
    print(f"every student signed in and sent {answers} answers: {'yes' if finished else 'NO'}")
    print(f"no traceback in the servers' output: {'yes' if not traces else 'NO'}")
    if not consistent:
        return 1
    return 0 if finished and not traces else 2


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=50, help="students in all, half on each server")
    parser.add_argument("--answers", type=int, default=2, help="answers each student sends")
    parser.add_argument("--active", type=int, default=8, help="clicks in flight at once, across both servers")
    parser.add_argument("--think", type=float, default=0.0, help="seconds a student waits between actions")
    parser.add_argument("--shots", type=Path, help="folder for a screenshot of each page where an action failed")
    args = parser.parse_args()
    if args.shots:
        global SHOTS
        SHOTS = args.shots
        SHOTS.mkdir(parents=True, exist_ok=True)
    if not CHROMIUM.exists():
        raise SystemExit("needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)")
    reason = unavailable_reason()
    if reason:
        raise SystemExit(f"needs a PostgreSQL server: {reason}")
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
