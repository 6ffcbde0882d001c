"""Students' page times while a teacher validates the slowest blueprint, against the same students alone.

Starts the real app (`streamlit run app.py`, headless, on a free port) on a
temporary DuckDB file holding the demo class, and drives Debian's chromium
with Playwright: one browser, a context (a separate session) per user.

Students sign in as demo students and practise: start rapid fire, answer
(a typed answer is previewed, then checked), next question, open My progress
and go back to Practice, thinking for ``--think`` seconds (0.5 to 1.5 times,
at random) between actions. Each action is timed in the browser, from the
click to the end of the script run it started (the page's "running" state
ending and staying ended), which is the time a student waits for the page.
The browsers run on the same machine as the app, so they take some of its
CPU in both conditions.

1. baseline: the students alone, for ``--seconds``;
2. teacher: the same students, for as long again, while a teacher validates
   bench/slow_blueprint.yaml on the Blueprints page over and over (several
   seconds of CPU each time; the app runs it in a worker process).

Prints the median and p95 per condition, their ratio, the teacher's
validations, and the aim: students' median page time under 1 s while the
teacher validates.

    python bench/bench_load.py [--students 4] [--seconds 60] [--think 5] [--port 0]
"""
from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.blueprints.library import Library  # noqa: E402
from core.demo.classroom import DEMO_CODE, DEMO_NAMES, ensure_demo  # noqa: E402
from core.store import Store  # noqa: E402

CHROMIUM = Path("/usr/bin/chromium")
SLOW_BLUEPRINT = (Path(__file__).resolve().parent / "slow_blueprint.yaml").read_text()
SLOW_ID = "BENCH.SLOW.PRODUCTS"
TEACHER_PASSCODE = "demo-teacher"
AIM_MEDIAN_S = 1.0
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
QUIET_MS = 250          # a run has ended when the page stays idle this long (a rerun it asks for counts too)
ACTION_TIMEOUT_MS = 60_000
CLICK_TIMEOUT_MS = 10_000
NO_RUN_MS = 5_000       # a click that starts no run within this long (say, Enter on an unchanged answer) is not timed

# Timing one action in the page: from just before the click to the end of the script runs it started.
ARM = """() => {
  const app = document.querySelector("[data-testid='stApp']");
  if (window.__benchObserver) window.__benchObserver.disconnect();
  const t = {t0: performance.now(), started: false, done: null};
  window.__bench = t;
  window.__benchObserver = new MutationObserver(() => {
    const state = app.getAttribute('data-test-script-state');
    if (state === 'notRunning') { if (t.started && t.done === null) t.done = performance.now(); }
    else { t.started = true; t.done = null; }   // rerunRequested, then running
  });
  window.__benchObserver.observe(app, {attributes: true, attributeFilter: ['data-test-script-state']});
}"""
STARTED = f"() => window.__bench.started || performance.now() - window.__bench.t0 > {NO_RUN_MS}"
SETTLED = f"() => window.__bench.done !== null && performance.now() - window.__bench.done > {QUIET_MS}"
ELAPSED = "() => (window.__bench.done - window.__bench.t0) / 1000"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def prepare_database(path: Path) -> None:
    """The demo class, built before the app starts (the app would otherwise build it on its first page)."""
    store = Store(path)
    try:
        ensure_demo(store, Library.load(exercise=False))
    finally:
        store.close()


def start_app(db: Path, port: int, log: Path) -> subprocess.Popen:
    env = {**os.environ, "WORKBENCH_DB": str(db), "WORKBENCH_SNAPSHOT_INTERVAL": "0"}
    env.pop("WORKBENCH_JOB_WAIT", None)   # the app as deployed
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                                   "--server.port", str(port), "--server.address", "127.0.0.1",
                                   "--browser.gatherUsageStats", "false"],
                                  cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    end = time.monotonic() + 120
    while time.monotonic() < end:
        if server.poll() is not None:
            raise SystemExit(f"streamlit exited with {server.returncode}:\n{log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return server
        except OSError:
            pass
        time.sleep(0.25)
    server.kill()
    raise SystemExit(f"streamlit did not answer within 120 s:\n{log.read_text()[-3000:]}")


def stop_app(server: subprocess.Popen) -> None:
    server.terminate()
    try:
        server.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


async def timed(page, what: str, click) -> list[tuple[str, float]]:
    """[(what, seconds from the click to the end of the script runs it started)]; [] when it started none."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout
    await page.evaluate(ARM)
    await click(timeout=CLICK_TIMEOUT_MS)
    await page.wait_for_function(STARTED, polling=25, timeout=ACTION_TIMEOUT_MS)
    if not await page.evaluate("() => window.__bench.started"):
        return []
    try:
        await page.wait_for_function(SETTLED, polling=25, timeout=ACTION_TIMEOUT_MS)
    except PlaywrightTimeout:
        raise RuntimeError(f"{what}: the page did not finish within {ACTION_TIMEOUT_MS / 1000:.0f} s") from None
    seconds = await page.evaluate(ELAPSED)
    return [(what, seconds)] if seconds >= 0 else []     # the page was replaced under the timer: not timed


async def settle(page) -> None:
    await page.wait_for_timeout(QUIET_MS)
    await page.wait_for_selector(IDLE, timeout=ACTION_TIMEOUT_MS)


async def open_app(browser, url: str):
    context = await browser.new_context(viewport={"width": 1280, "height": 900})
    page = await context.new_page()
    page.set_default_timeout(ACTION_TIMEOUT_MS)
    await page.goto(url)
    await page.wait_for_selector(IDLE, timeout=120_000)
    await page.get_by_text("I'm a student").wait_for()
    return context, page


async def sign_in_student(browser, url: str, name: str):
    context, page = await open_app(browser, url)
    await page.get_by_label("Class code").fill(DEMO_CODE)
    await page.get_by_label("Your name").fill(name)
    await page.locator("button:visible", has_text="Sign in").first.click()
    await page.get_by_role("heading", name="Practice").wait_for()
    await settle(page)
    return context, page


async def sign_in_teacher(browser, url: str):
    context, page = await open_app(browser, url)
    await page.get_by_role("tab", name="I'm a teacher").click()
    await page.get_by_label("Passcode").fill(TEACHER_PASSCODE)
    await page.locator("button:visible", has_text="Sign in").first.click()
    await page.get_by_role("link", name="Blueprints").wait_for()
    await settle(page)
    await page.get_by_role("link", name="Blueprints").click()
    await page.get_by_role("heading", name="Blueprints").wait_for()
    await settle(page)
    return context, page


async def visible(locator) -> bool:
    try:
        return await locator.count() > 0 and await locator.first.is_visible()
    except Exception:  # noqa: BLE001 - the page changed under us; the next step looks again
        return False


async def student_step(page, n: int) -> list[tuple[str, float]]:
    """One thing a student does next on the Practice page (or a visit to My progress and back); its timings."""
    if n % 6 == 5:
        first = await timed(page, "open My progress", page.get_by_role("link", name="My progress").click)
        await page.get_by_role("heading", name="My progress").wait_for()
        back = await timed(page, "open Practice", page.get_by_role("link", name="Practice").click)
        await page.get_by_role("heading", name="Practice").wait_for()
        return first + back
    for label in ("Start", "Next question", "Practise again", "Start again", "Start something new"):
        button = page.get_by_role("button", name=label, exact=True)
        if await visible(button):
            return await timed(page, label, button.first.click)
    form = page.locator("[data-testid='stForm']")
    check = page.get_by_role("button", name="Check answer")
    if await visible(form.get_by_role("radiogroup")):
        await form.locator("label:has(input[type='radio'])").first.click(timeout=CLICK_TIMEOUT_MS)
        return await timed(page, "answer", form.get_by_role("button").last.click)
    box = page.get_by_label("Your answer")
    if await visible(box):
        await box.first.fill(f"{7 + n % 5}.{n}", timeout=CLICK_TIMEOUT_MS)     # a new value, so Enter reads it
        preview = await timed(page, "preview answer", lambda timeout: box.first.press("Enter", timeout=timeout))
        if await visible(check) and await check.first.is_enabled():
            return preview + await timed(page, "check answer", check.first.click)
        return preview
    # Anything else (an exit ticket, a lesson card): back to a fresh Practice page.
    return await timed(page, "open Practice", page.get_by_role("link", name="Practice").click)


async def student(page, until: float, times: list[tuple[str, float]], errors: list[str], think: float,
                  rng: random.Random) -> None:
    n = 0
    while time.monotonic() < until:
        await asyncio.sleep(think * rng.uniform(0.5, 1.5))
        if time.monotonic() >= until:
            break
        try:
            times.extend(await student_step(page, n))
        except Exception as exc:  # noqa: BLE001 - counted and reported; the student carries on
            errors.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}")
            try:
                await page.get_by_role("link", name="Practice").click(timeout=CLICK_TIMEOUT_MS)
                await settle(page)
            except Exception:  # noqa: BLE001
                pass
        n += 1


async def teacher(page, until: float, runs: list[float], errors: list[str]) -> None:
    """Validate the slow blueprint over and over; each time as a new version, so its success line is new."""
    from playwright.async_api import TimeoutError as PlaywrightTimeout
    editor = page.get_by_label("Blueprint YAML")
    k = 0
    while time.monotonic() < until:
        k += 1
        version = f"1.{k}"
        text = SLOW_BLUEPRINT.replace('version: "1.0"', f'version: "{version}"', 1)
        try:
            await editor.fill(text)
            await editor.press("Control+Enter")     # Streamlit takes a text area's value on Ctrl+Enter
            await settle(page)
            started = time.monotonic()
            await page.get_by_role("button", name="Validate").click()
            valid = page.get_by_text(f"Skill {SLOW_ID} version {version} is valid.")
            refused = page.locator("[data-testid='stAlertContentError']")
            await valid.or_(refused).first.wait_for(timeout=max(1.0, until - time.monotonic()) * 1000)
            runs.append(time.monotonic() - started)
            if not await valid.count():
                errors.append("not valid: " + (await refused.first.inner_text()).splitlines()[0][:200])
        except PlaywrightTimeout as exc:
            if time.monotonic() < until:      # one still running when the condition ends is not a failure
                errors.append(f"TimeoutError: {str(exc).splitlines()[0][:160]}")
        except Exception as exc:  # noqa: BLE001 - counted and reported
            errors.append(f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}")


TICK = os.sysconf("SC_CLK_TCK")


def _stat(pid: int) -> list[str]:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2:].split()      # fields from the state on (the name may hold spaces)


def cpu_of(server_pid: int) -> dict[str, float]:
    """CPU seconds so far: the app process itself, its worker processes (live and finished), the whole machine."""
    app = workers = 0.0
    try:
        fields = _stat(server_pid)
        app = (int(fields[11]) + int(fields[12])) / TICK
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            try:
                f = _stat(int(proc.name))
                if int(f[1]) != server_pid:
                    continue
                # the worker server and what it has forked: its own time, its finished children's, its live ones'
                workers += sum(int(x) for x in f[11:15]) / TICK
                for child in Path("/proc").iterdir():
                    if child.name.isdigit():
                        g = _stat(int(child.name))
                        if int(g[1]) == int(proc.name):
                            workers += (int(g[11]) + int(g[12])) / TICK
            except (OSError, ValueError, IndexError):
                continue
    except OSError:
        pass
    total = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = total[3] + total[4]
    return {"app": app, "workers": workers, "busy": (sum(total) - idle) / TICK, "all": sum(total) / TICK}


def cpu_line(name: str, before: dict, after: dict, seconds: float) -> str:
    d = {k: after[k] - before[k] for k in before}
    busy = d["busy"] / d["all"] if d["all"] else 0.0
    return (f"{name:<28} app process {d['app']:5.1f} s ({d['app'] / seconds:4.0%} of a core), "
            f"workers {d['workers']:5.1f} s, machine {busy:4.0%} busy on {os.cpu_count()} CPUs")


def summary(name: str, times: list[tuple[str, float]]) -> dict:
    values = [t for _, t in times]
    if not values:
        return {"condition": name, "n": 0}
    return {"condition": name, "n": len(values), "median": statistics.median(values), "p95": pct(values, 0.95),
            "max": max(values)}


async def run(args) -> int:
    from playwright.async_api import async_playwright

    with tempfile.TemporaryDirectory(prefix="bench_load_") as tmp:
        tmp = Path(tmp)
        db = tmp / "load.duckdb"
        print(f"Preparing the demo class on {db}…", flush=True)
        prepare_database(db)
        port = args.port or free_port()
        url = f"http://127.0.0.1:{port}"
        log = tmp / "streamlit.log"
        server = start_app(db, port, log)
        print(f"App at {url}; {args.students} student(s) thinking about {args.think:g} s between actions, "
              f"{args.seconds:.0f} s per condition.", flush=True)
        try:
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(
                    executable_path=str(CHROMIUM),
                    args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                          "--disable-component-update", "--disable-sync", "--no-first-run",
                          "--disable-renderer-backgrounding", "--disable-background-timer-throttling",
                          "--disable-backgrounding-occluded-windows"])
                try:
                    names = [DEMO_NAMES[i % len(DEMO_NAMES)] for i in range(args.students)]
                    students = [await sign_in_student(browser, url, name) for name in names]
                    _, teacher_page = await sign_in_teacher(browser, url)
                    # Warm-up: every student's first practice runs, and the teacher's worker server, are not measured.
                    rngs = [random.Random(k) for k in range(len(students))]
                    warm: list = []
                    await asyncio.gather(*(student(p, time.monotonic() + 5, warm, [], 0.5, r)
                                           for (_, p), r in zip(students, rngs)))

                    baseline, base_errors = [], []
                    until = time.monotonic() + args.seconds
                    print("1. baseline: students only…", flush=True)
                    cpu = [cpu_of(server.pid)]
                    await asyncio.gather(*(student(p, until, baseline, base_errors, args.think, r)
                                           for (_, p), r in zip(students, rngs)))
                    cpu.append(cpu_of(server.pid))

                    loaded, load_errors, runs, teacher_errors = [], [], [], []
                    until = time.monotonic() + args.seconds
                    print("2. teacher validating the slow blueprint, students practising…", flush=True)
                    await asyncio.gather(teacher(teacher_page, until, runs, teacher_errors),
                                         *(student(p, until, loaded, load_errors, args.think, r)
                                           for (_, p), r in zip(students, rngs)))
                    cpu.append(cpu_of(server.pid))
                finally:
                    await browser.close()
        finally:
            stop_app(server)

    rows = [summary("baseline (students only)", baseline), summary("teacher validating", loaded)]
    print()
    print(f"{'condition':<28}{'actions':>8}{'median s':>10}{'p95 s':>8}{'max s':>8}")
    for r in rows:
        if r["n"]:
            print(f"{r['condition']:<28}{r['n']:>8}{r['median']:>10.3f}{r['p95']:>8.3f}{r['max']:>8.3f}")
        else:
            print(f"{r['condition']:<28}{0:>8}")
    if rows[0]["n"] and rows[1]["n"]:
        print(f"ratio teacher/baseline: median {rows[1]['median'] / rows[0]['median']:.2f}, "
              f"p95 {rows[1]['p95'] / rows[0]['p95']:.2f}")
    by_action: dict[str, list[float]] = {}
    for action, t in loaded:
        by_action.setdefault(action, []).append(t)
    print("while the teacher validates, by action: " +
          ", ".join(f"{a} {statistics.median(v):.3f} s (n={len(v)})" for a, v in sorted(by_action.items())))
    print("CPU:")
    print("  " + cpu_line("baseline (students only)", cpu[0], cpu[1], args.seconds))
    print("  " + cpu_line("teacher validating", cpu[1], cpu[2], args.seconds))
    if runs:
        print(f"teacher: {len(runs)} validation(s) of {SLOW_ID}, {statistics.mean(runs):.1f} s each on average "
              f"(click to result on the page), {len(runs) - sum(e.startswith('not valid') for e in teacher_errors)} "
              f"of them valid")
    else:
        print("teacher: no validation finished")
    for name, errors in (("baseline", base_errors), ("with teacher", load_errors), ("teacher", teacher_errors)):
        if errors:
            print(f"{name}: {len(errors)} action(s) failed, e.g. {errors[0]}")
    ok = bool(runs) and not teacher_errors and rows[1]["n"] > 0 and rows[1]["median"] < AIM_MEDIAN_S
    print(f"aim: students' median page time under {AIM_MEDIAN_S:.0f} s while the teacher validates: "
          f"{'met' if ok else 'NOT met'}")
    return 0 if ok else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=60.0, help="length of each condition")
    parser.add_argument("--think", type=float, default=5.0, help="mean seconds a student thinks between actions")
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    args = parser.parse_args()
    if not CHROMIUM.exists():
        raise SystemExit("needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)")
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
