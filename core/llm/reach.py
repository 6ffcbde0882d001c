"""Whether the LLM server answers: one cheap call (its model list) with a short timeout, remembered for a while.

Settings that are saved are not a server that answers: pages say "on" in green
only when the server answered lately, and otherwise warn with what to do. The
answer is kept for a short while (longer when it answered), so a page's reruns
do not wait on the server each time.
"""
from __future__ import annotations

import dataclasses
import threading
import time
from typing import Optional

from core.llm.settings import LLMSettings, LLMStatus, settings_fingerprint

CHECK_TIMEOUT_S = 3.0
KEEP_ANSWERED_S = 60.0
KEEP_FAILED_S = 15.0
ADVICE = ("Start the server or correct its URL, key or model {where}, then press “Check the connection” on the "
          "Settings page; until it answers, LLM items, the question pipeline and the tutor fail.")
WHERE = {"environment": "in WORKBENCH_LLM_* (or the [llm] table of .streamlit/secrets.toml)",
         "settings page": "on the Settings page"}

_lock = threading.Lock()
_known: dict[str, "Reachability"] = {}
_asking: set[str] = set()          # settings whose server is being asked in the background


@dataclasses.dataclass(frozen=True)
class Reachability:
    """What the server did when it was last asked: answered (``problem`` None) or not, and why."""
    problem: Optional[str]
    checked_at: float            # time.monotonic() of the check

    @property
    def answers(self) -> bool:
        return self.problem is None

    def fresh(self, now: float) -> bool:
        return now - self.checked_at < (KEEP_ANSWERED_S if self.answers else KEEP_FAILED_S)


def _where(settings: LLMSettings) -> str:
    return settings.base_url or "api.openai.com"


def probe(settings: LLMSettings, timeout_s: float = CHECK_TIMEOUT_S) -> Optional[str]:
    """Ask the server for its model list; None when it answered, else why not, in one clause.

    A server without a model list (HTTP 404, 405 or 501) still answered; a
    refused key (HTTP 401 or 403) did not let us in.
    """
    import openai   # here, not at the top: loading it takes a second that only a check with a server needs
    client = openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url, timeout=timeout_s, max_retries=0)
    try:
        client.models.list()
    except openai.APITimeoutError:
        return f"the server at {_where(settings)} did not answer within {timeout_s:g} s"
    except openai.APIConnectionError:
        return f"the server at {_where(settings)} could not be reached (nothing answers at that address)"
    except openai.APIStatusError as exc:
        if exc.status_code in (401, 403):
            return f"the server at {_where(settings)} refused the API key (HTTP {exc.status_code})"
        if exc.status_code >= 500 and exc.status_code != 501:
            return f"the server at {_where(settings)} failed (HTTP {exc.status_code})"
    finally:
        client.close()
    return None


def reachability(settings: LLMSettings, fresh: bool = False, timeout_s: float = CHECK_TIMEOUT_S) -> Reachability:
    """Whether the server answers, from the last check while it is recent, else from a new one (``fresh``: always)."""
    key = settings_fingerprint(settings)
    now = time.monotonic()
    with _lock:
        known = _known.get(key)
    if known is not None and not fresh and known.fresh(now):
        return known
    found = Reachability(probe(settings, timeout_s), time.monotonic())
    with _lock:
        _known[key] = found
    return found


def peek(settings: LLMSettings) -> Optional[Reachability]:
    """The last answer remembered, without waiting: when there is none or it is old, the server is asked in the
    background and the next look finds the new answer. For pages a student is waiting on."""
    key = settings_fingerprint(settings)
    with _lock:
        known = _known.get(key)
        asking = key in _asking
        if not asking and (known is None or not known.fresh(time.monotonic())):
            _asking.add(key)
            threading.Thread(target=_ask_in_background, args=(settings, key), name="llm reachability",
                             daemon=True).start()
    return known


def _ask_in_background(settings: LLMSettings, key: str) -> None:
    try:
        reachability(settings, fresh=True)
    finally:
        with _lock:
            _asking.discard(key)


def forget() -> None:
    """Drop every remembered answer (the next page asks the server again)."""
    with _lock:
        _known.clear()


@dataclasses.dataclass(frozen=True)
class Notice:
    """What a page says about the LLM: ``kind`` is "success", "warning" or "info" (off), with its sentence."""
    kind: str
    text: str


def notice(status: LLMStatus, fresh: bool = False) -> Notice:
    """The LLM's state in one sentence: on and answering, set up but not answering (with what to do), or off."""
    if not status.on or status.settings is None:
        return Notice("info", status.message())
    reach = reachability(status.settings, fresh)
    if reach.answers:
        return Notice("success", status.message())
    return Notice("warning", f"LLM features are set up (model {status.settings.model}, set in the {status.origin}) "
                             f"but {reach.problem}. " + advice(status.origin))


def advice(origin: str) -> str:
    """What to do when the server does not answer, for settings from ``origin``."""
    return ADVICE.format(where=WHERE.get(origin, WHERE["settings page"]))
