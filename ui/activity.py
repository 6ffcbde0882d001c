"""When the app last ran a page for anyone: background reading waits for a pause, so it never slows a click.

``app.py`` marks the start and the end of every script run; a thread that reads
ahead (Analytics) calls ``wait_for_quiet`` before each piece of work.
"""
from __future__ import annotations

import threading
import time

_state = {"last": 0.0, "running": 0}
_lock = threading.Lock()


def run_started() -> None:
    with _lock:
        _state["running"] += 1
        _state["last"] = time.monotonic()


def run_ended() -> None:
    with _lock:
        _state["running"] = max(0, _state["running"] - 1)
        _state["last"] = time.monotonic()


STUCK_S = 60   # a run that never said it ended (its session vanished): no longer counted as running


def quiet_for(seconds: float) -> bool:
    """No page is running now, and none ran in the last ``seconds``."""
    with _lock:
        since = time.monotonic() - _state["last"]
        return (_state["running"] == 0 or since > STUCK_S) and since >= seconds


def wait_for_quiet(seconds: float, give_up_at: float) -> bool:
    """Wait until the app has been quiet for ``seconds``; False when ``give_up_at`` (monotonic) came first."""
    while not quiet_for(seconds):
        if time.monotonic() > give_up_at:
            return False
        time.sleep(0.1)
    return True
