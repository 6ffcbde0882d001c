"""Slowing down sign-in guesses: growing delays per client and per account, never a lockout someone else controls.

Every attempt has a client (the browser session, and its network address when
the app knows it) and may have an account with a secret (the teacher's
passcode, a student's PIN). A class code and a name alone have no account.

- **Per client.** A client's wrong attempts in the last hour count against it:
  after ``free`` of them each further attempt must come at least 1 s, 2 s,
  4 s, ... (up to 15 minutes) after its previous wrong one; one made sooner is
  refused without being checked. Only a client's own failures count, so one
  client cannot slow another. An address allows more failures than a session,
  since a classroom may share one address. This is also what stops class codes
  and names from being probed without limit.
- **Per account.** An account's wrong attempts since its last right one (within
  the hour) count against it whichever client made them: after ``free`` of them
  its attempts take turns at least 1 s, 2 s, ... up to ``ACCOUNT.cap`` apart.
  An attempt is held until its turn, not refused, so the right passcode still
  gets in after that short, bounded wait however many wrong guesses came from
  other clients (each of which is slowed by its own client's delay).
- **Counted before checked.** One gate per database admits attempts one at a
  time and counts those still being checked as wrong until their answer is
  known, so forty guesses at once from one client are not forty checks.

Counts come from the ``sign_in_attempts`` table, so a restart does not reset
them; ``clock`` and ``sleep`` are module attributes so tests can replace them.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import math
import threading
import time
from typing import Iterator, Optional, Union

from core.store import Store
from core.store import sign_in

WINDOW = dt.timedelta(hours=1)


@dataclasses.dataclass(frozen=True)
class Rule:
    """Wrong attempts allowed before any delay, the first delay and the longest, in seconds."""
    free: int
    first: float
    cap: float

    def delay(self, failures: int) -> float:
        if failures < self.free:
            return 0.0
        return min(self.cap, self.first * 2.0 ** min(failures - self.free, 60))


SESSION = Rule(free=5, first=1.0, cap=900.0)
ADDRESS = Rule(free=30, first=1.0, cap=900.0)
ACCOUNT = Rule(free=5, first=1.0, cap=8.0)


@dataclasses.dataclass(frozen=True)
class Client:
    """Where attempts come from: the browser session and, when known, its network address."""
    session: Optional[str] = None
    address: Optional[str] = None

    def tiers(self) -> Iterator[tuple[str, str, Rule]]:
        if self.session:
            yield "session", self.session, SESSION
        if self.address:
            yield "address", self.address, ADDRESS


def clock() -> dt.datetime:
    """Now in UTC, naive, as the attempts table stores times."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)


def sleep(seconds: float) -> None:
    time.sleep(seconds)


@dataclasses.dataclass(eq=False)
class Attempt:
    """An attempt let through the gate: check it, then ``finish`` it with the answer."""
    scope: str
    who: str
    account: bool
    client: Client
    admitted_at: dt.datetime
    held: float = 0.0          # seconds it waited for its account's turn


@dataclasses.dataclass
class Refused:
    """An attempt that came too soon after its client's wrong ones; it was not checked."""
    wait: float                # seconds until the client may try again

    def text(self) -> str:
        return wait_text(self.wait)


def wait_text(seconds: float) -> str:
    if seconds <= 90:
        n = max(1, math.ceil(seconds))
        return f"{n} second{'s' if n != 1 else ''}"
    n = math.ceil(seconds / 60)
    return f"{n} minutes"


class _Gate:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.in_flight: list[Attempt] = []
        self.turns: dict[str, dt.datetime] = {}


_gates: dict[str, _Gate] = {}
_gates_lock = threading.Lock()


def _gate(store: Store) -> _Gate:
    key = str(store.path.resolve())
    with _gates_lock:
        return _gates.setdefault(key, _Gate())


def _latest(*times: Optional[dt.datetime]) -> Optional[dt.datetime]:
    return max((t for t in times if t is not None), default=None)


def admit(store: Store, scope: str, who: str, client: Optional[Client] = None,
          account: bool = False) -> Union[Attempt, Refused]:
    """Let an attempt through (after its account's turn, if it has one) or refuse it unchecked."""
    client = client or Client()
    gate = _gate(store)
    with gate.lock:
        now = clock()
        since = now - WINDOW
        wait = 0.0
        for column, key, rule in client.tiers():
            failures, last = sign_in.client_failures(store, scope, column, key, since)
            flying = [a.admitted_at for a in gate.in_flight
                      if a.scope == scope and getattr(a.client, column) == key]
            delay = rule.delay(failures + len(flying))
            latest = _latest(last, *flying)
            if delay and latest is not None:
                wait = max(wait, (latest + dt.timedelta(seconds=delay) - now).total_seconds())
        if wait > 0:
            return Refused(wait)
        turn = now
        if account:
            failures, last = sign_in.account_failures(store, who, since)
            flying = sum(1 for a in gate.in_flight if a.account and a.who == who)
            delay = ACCOUNT.delay(failures + flying)
            previous = _latest(last, gate.turns.get(who))
            if delay and previous is not None:
                turn = max(now, previous + dt.timedelta(seconds=delay))
            gate.turns[who] = turn
        attempt = Attempt(scope, who, account, client, now, (turn - now).total_seconds())
        gate.in_flight.append(attempt)
    if attempt.held > 0:
        sleep(attempt.held)
    return attempt


def finish(store: Store, attempt: Attempt, ok: Optional[bool]) -> None:
    """Record the attempt's answer (None: it was not a guess, so it is not recorded) and let it go."""
    gate = _gate(store)
    with gate.lock:
        try:
            if ok is not None:
                sign_in.record_attempt(store, attempt.who, ok, attempt.scope, attempt.client.session,
                                       attempt.client.address, at=clock())
        finally:
            gate.in_flight.remove(attempt)
