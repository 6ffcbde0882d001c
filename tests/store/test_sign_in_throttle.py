"""Sign-in throttling on a real database: growing delays per client and per account, no lockout an attacker
controls, concurrent guesses counted before they are checked, class codes not probed without limit."""
from __future__ import annotations

import datetime as dt
import threading
import time

import pytest

from core.school import auth, throttle
from core.school.auth import DEMO_PASSCODE, Client, sign_in_student, sign_in_teacher
from core.school.classes import add_student, create_class
from core.store import Store


class FakeTime:
    """A clock that moves only when told to, or when the code sleeps."""

    def __init__(self) -> None:
        self.now = dt.datetime(2030, 1, 6, 9, 0, 0)
        self.slept: list[float] = []

    def clock(self) -> dt.datetime:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.advance(seconds)

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


@pytest.fixture
def store(db_path):
    s = Store(db_path)
    yield s
    s.close()


@pytest.fixture
def fake(monkeypatch) -> FakeTime:
    t = FakeTime()
    monkeypatch.setattr(throttle, "clock", t.clock)
    monkeypatch.setattr(throttle, "sleep", t.sleep)
    return t


def checked(store: Store, who: str = "teacher") -> int:
    return store.query("SELECT count(*) FROM sign_in_attempts WHERE who = ?", [who])[0][0]


def guess(store: Store, client: Client, passcode: str = "wrong") -> throttle.Attempt | throttle.Refused:
    """One teacher sign-in through the gate, as sign_in_teacher makes it."""
    attempt = throttle.admit(store, "teacher", "teacher", client, account=True)
    if isinstance(attempt, throttle.Attempt):
        throttle.finish(store, attempt, passcode == DEMO_PASSCODE)
    return attempt


def test_a_clients_delay_doubles_after_a_few_wrong_guesses(store, fake):
    attacker = Client(session="attacker")
    for _ in range(throttle.SESSION.free):
        assert "not right" in sign_in_teacher(store, "wrong", client=attacker).message
    waits = []
    for _ in range(8):
        refused = guess(store, attacker)
        assert isinstance(refused, throttle.Refused)
        assert "Too many wrong passcodes" in sign_in_teacher(store, "wrong", client=attacker).message
        waits.append(round(refused.wait, 3))
        fake.advance(refused.wait)
        assert isinstance(guess(store, attacker), throttle.Attempt)   # exactly when the wait is over
    assert waits == [1, 2, 4, 8, 16, 32, 64, 128]
    assert checked(store) == throttle.SESSION.free + 8
    # Refusals are not checks, and even the right passcode waits out this client's own delay.
    assert "Too many wrong passcodes" in sign_in_teacher(store, DEMO_PASSCODE, client=attacker).message
    assert checked(store) == throttle.SESSION.free + 8


def test_the_delay_is_capped_and_forgotten_after_the_window(store, fake):
    attacker = Client(session="attacker")
    for _ in range(40):
        result = guess(store, attacker)
        if isinstance(result, throttle.Refused):
            assert result.wait <= throttle.SESSION.cap
            fake.advance(result.wait)
    fake.advance(throttle.WINDOW.total_seconds() + 1)
    assert isinstance(guess(store, attacker), throttle.Attempt)


def test_the_teacher_gets_in_after_a_short_bounded_wait_whatever_other_clients_did(store, fake):
    # Wrong guesses from many clients, one after another: each is held for the account's turn, and the turns
    # grow apart up to the cap, but never further.
    for n in range(30):
        assert isinstance(guess(store, Client(session=f"bot-{n}")), throttle.Attempt)
    holds = [round(s, 3) for s in fake.slept]
    assert holds == [1, 2, 4] + [throttle.ACCOUNT.cap] * (30 - throttle.ACCOUNT.free - 3)
    fake.slept.clear()
    result = sign_in_teacher(store, DEMO_PASSCODE, client=Client(session="teacher-laptop"))
    assert result.ok and sum(fake.slept) <= throttle.ACCOUNT.cap
    # A right answer ends the account's delay.
    fake.slept.clear()
    assert sign_in_teacher(store, DEMO_PASSCODE, client=Client(session="teacher-laptop")).ok and not fake.slept


def test_an_address_allows_a_classroom_of_typos_but_not_a_script_with_fresh_sessions(store, fake):
    address = "203.0.113.7"
    for n in range(throttle.ADDRESS.free):
        assert isinstance(guess(store, Client(session=f"tab-{n}", address=address)), throttle.Attempt)
    refused = guess(store, Client(session="tab-new", address=address))
    assert isinstance(refused, throttle.Refused)
    # Another address is not slowed by this one.
    assert isinstance(guess(store, Client(session="elsewhere", address="198.51.100.2")), throttle.Attempt)


def test_forty_concurrent_wrong_guesses_are_not_all_checked_and_the_teacher_still_gets_in(store):
    attacker = Client(session="attacker", address="203.0.113.9")
    start = threading.Barrier(40)
    results: list[auth.SignIn] = []

    def attack(n: int) -> None:
        start.wait()
        results.append(sign_in_teacher(store, f"guess-{n}", client=attacker))

    threads = [threading.Thread(target=attack, args=(n,)) for n in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 40 and not any(r.ok for r in results)
    assert checked(store) <= throttle.SESSION.free
    assert sum("Too many wrong passcodes" in r.message for r in results) >= 40 - throttle.SESSION.free

    began = time.monotonic()
    result = sign_in_teacher(store, DEMO_PASSCODE, client=Client(session="teacher-laptop", address="192.0.2.1"))
    assert result.ok and result.role == "teacher"
    assert time.monotonic() - began <= throttle.ACCOUNT.cap + 2


def test_a_burst_from_many_new_sessions_is_checked_in_spaced_turns(store, fake, monkeypatch):
    """Fresh sessions dodge the per-session delay, but the account's turns space their checks out."""
    calls: list[dt.datetime] = []
    real = auth.verify_passcode

    def verify(passcode: str, stored: str) -> bool:
        calls.append(fake.clock())
        return real(passcode, stored)
    monkeypatch.setattr(auth, "verify_passcode", verify)
    lock = threading.Lock()

    def attack(n: int) -> None:
        with lock:   # the fake clock is not thread-safe; the gate's counting is what is tested
            sign_in_teacher(store, f"guess-{n}", client=Client(session=f"bot-{n}"))
    threads = [threading.Thread(target=attack, args=(n,)) for n in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gaps = [(b - a).total_seconds() for a, b in zip(calls, calls[1:])]
    assert gaps[throttle.ACCOUNT.free - 1:] == [1, 2, 4, 8, 8, 8, 8]


def test_class_codes_and_names_cannot_be_probed_without_limit(store, fake):
    create_class(store, "T-CLASS", "Test class")
    add_student(store, "T-CLASS", "Amy Pond")
    prober = Client(session="prober")
    for n in range(throttle.SESSION.free):
        assert "no class with the code" in sign_in_student(store, f"CODE-{n}", "Amy Pond", client=prober).message
    # The next try is refused before anything about the code is said, even for the real code and name.
    result = sign_in_student(store, "T-CLASS", "Amy Pond", client=prober)
    assert not result.ok and "Too many wrong tries" in result.message
    # Guessing names on the roster counts the same way.
    namer = Client(session="namer")
    for n in range(throttle.SESSION.free):
        assert "not on the class list" in sign_in_student(store, "T-CLASS", f"Someone {n}", client=namer).message
    assert "Too many wrong tries" in sign_in_student(store, "T-CLASS", "Someone else", client=namer).message
    # Other browsers are not affected.
    assert sign_in_student(store, "T-CLASS", "Amy Pond", client=Client(session="amy")).ok


def test_attempts_survive_a_restart(db_path, fake):
    store = Store(db_path)
    attacker = Client(session="attacker")
    for _ in range(throttle.SESSION.free):
        guess(store, attacker)
    store.close()
    store = Store(db_path)
    try:
        assert isinstance(guess(store, attacker), throttle.Refused)
    finally:
        store.close()
