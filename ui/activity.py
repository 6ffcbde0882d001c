"""When the app last ran a page for anyone: background work waits for a pause, so it never slows a click.

``app.py`` marks the start and the end of every script run; a thread that reads
ahead (Analytics) calls ``wait_for_quiet`` before each piece of work, and
``when_quiet`` runs one piece of work ahead of a likely click.
"""
from __future__ import annotations

import collections
import functools
import logging
import queue
import threading
import time
from typing import Any, Callable, Optional

_state = {"last": 0.0, "running": 0}
_lock = threading.Lock()


def fragment(func: Optional[Callable[..., Any]] = None, **options: Any) -> Any:
    """``st.fragment`` (with its options), whose runs count as the app's activity like a whole page's: a
    fragment's run (handing in a paper, say) does not pass through ``app.py``."""
    import streamlit as st

    def counted(body: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(body)   # the fragment is known by the body's module and name
        def run(*args: Any, **kwargs: Any) -> Any:
            run_started()
            try:
                return body(*args, **kwargs)
            finally:   # also when it stops or asks for a rerun
                run_ended()
        return st.fragment(run, **options)

    return counted if func is None else counted(func)


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


# ---------------------------------------------------------------- work done ahead of a likely click

AHEAD_GIVE_UP_S = 120   # work not started by then is dropped: the click it was for does it itself
AHEAD_KEPT = 2000       # names remembered as done (or waiting), so the same work is not queued twice
_ahead: "queue.Queue[tuple[str, float, float, Callable[..., Any], tuple]]" = queue.Queue()
_ahead_names: "collections.OrderedDict[str, None]" = collections.OrderedDict()
_ahead_worker: dict[str, Optional[threading.Thread]] = {"thread": None}

log = logging.getLogger(__name__)


class GaveUp(Exception):
    """The app was not quiet for long enough before the work's deadline: the work is left for its click."""


def pausing(idle_s: float = 0.75) -> Callable[[], None]:
    """A ``pause()`` for work done in pieces in the background: it waits, before each piece, until the app has
    been quiet for ``idle_s``, so a click that comes in the middle waits for one piece at most."""
    give_up = time.monotonic() + AHEAD_GIVE_UP_S

    def pause() -> None:
        if not wait_for_quiet(idle_s, give_up):
            raise GaveUp()
    return pause


def when_quiet(name: str, fn: Callable[..., Any], *args: Any, idle_s: float = 0.75) -> None:
    """Run ``fn(*args)`` once, in the background, as soon as no page has run for ``idle_s`` seconds: work a click
    that is likely to come would otherwise do itself (a mock exam's paper drawn while the student is choosing).

    One piece at a time, in the order asked; a ``name`` asked for again while remembered is not run again. A
    failure is logged, not shown: the click does the work itself, and shows any error then."""
    with _lock:
        if name in _ahead_names:
            return
        _ahead_names[name] = None
        while len(_ahead_names) > AHEAD_KEPT:
            _ahead_names.popitem(last=False)
        _ahead.put((name, idle_s, time.monotonic() + AHEAD_GIVE_UP_S, fn, args))
        # Not a daemon: the interpreter waits for the piece under way at exit instead of stopping it inside the
        # database engine.
        keep_running(_ahead_worker, _work_ahead, "work ahead", daemon=False)


def keep_running(holder: dict, target: Callable[[], None], name: str, daemon: bool) -> None:
    """Start ``target`` in a thread called ``name`` unless the thread kept in ``holder["thread"]`` is still alive
    (the caller holds the lock that guards ``holder``)."""
    thread = holder.get("thread")
    if thread is None or not thread.is_alive():
        thread = threading.Thread(target=target, name=name, daemon=daemon)
        holder["thread"] = thread
        thread.start()


def _work_ahead() -> None:
    main = threading.main_thread()
    while main.is_alive():
        try:
            name, idle_s, give_up, fn, args = _ahead.get(timeout=1.0)
        except queue.Empty:
            with _lock:
                if _ahead.empty():
                    _ahead_worker["thread"] = None
                    return
            continue
        if not wait_for_quiet(idle_s, give_up) or not main.is_alive():
            continue
        try:
            fn(*args)
        except GaveUp:
            log.info("Working ahead on %s: the app was not quiet before the deadline; left for its click", name)
        except Exception as exc:   # noqa: BLE001 - the click this was for does the work again and shows its error
            log.warning("Working ahead on %s failed (%s); it is done when asked for", name, exc)
