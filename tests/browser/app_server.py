"""What the browser tests share: the app served as deployed, Debian's chromium, and waiting for a rerun."""
from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Iterator

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path("/usr/bin/chromium")
ARTIFACTS = ROOT / "tests" / "artifacts"
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
# How a typed answer was read: one line for a single box, one per box typed in for an answer given step by step.
READ_AS = re.compile(r"^(Your answer|Step \d+( \(final answer\))?) was read as:")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]

needs_chromium = pytest.mark.skipif(not CHROMIUM.exists(),
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


@contextlib.contextmanager
def running_app(db: Path, log: Path, snapshot_interval: str = "0") -> Iterator[str]:
    """`streamlit run app.py` on the database, headless on a free local port; yields its address once healthy
    and stops it (terminate, then kill) on the way out, whatever happened."""
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "WORKBENCH_DB": str(db), "WORKBENCH_SNAPSHOT_INTERVAL": snapshot_interval}
    with open(log, "w") as out:
        server = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                                   "--server.port", str(port), "--server.address", "127.0.0.1"],
                                  cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_healthy(f"{url}/_stcore/health", server, log)
        yield url
    finally:
        stop_server(server)


def launch(pw):
    """Debian's chromium (Playwright's own browser download is not used)."""
    return pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)


def settle(page, timeout: float = 30_000) -> None:
    """Wait for the script run a click started to finish."""
    page.wait_for_timeout(300)   # let the rerun start, so 'notRunning' below is the run after it
    page.wait_for_selector(IDLE, timeout=timeout)
