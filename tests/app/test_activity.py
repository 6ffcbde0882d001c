"""Background reading waits for the app to be quiet: a page running, or one that ran a moment ago, holds it."""
from __future__ import annotations

import threading
import time

import pytest

from ui import activity


def test_quiet_only_when_no_page_runs_and_none_ran_just_now(monkeypatch):
    monkeypatch.setattr(activity, "_state", {"last": 0.0, "running": 0})
    assert activity.quiet_for(0.5)
    activity.run_started()
    assert not activity.quiet_for(0.0)              # a page is running
    activity.run_ended()
    assert not activity.quiet_for(0.5)              # it ended a moment ago
    assert activity.quiet_for(0.0)


def test_a_waiting_reader_goes_on_once_the_runs_stop_and_gives_up_at_its_deadline(monkeypatch):
    monkeypatch.setattr(activity, "_state", {"last": 0.0, "running": 0})
    activity.run_started()
    assert activity.wait_for_quiet(0.1, time.monotonic() + 0.3) is False   # still running at the deadline
    done = []
    reader = threading.Thread(target=lambda: done.append(activity.wait_for_quiet(0.1, time.monotonic() + 10)))
    reader.start()
    time.sleep(0.3)
    assert not done                                    # held while the page runs
    activity.run_ended()
    reader.join(5)
    assert done == [True]


def test_a_run_that_never_ended_stops_holding_after_a_minute(monkeypatch):
    monkeypatch.setattr(activity, "_state", {"last": time.monotonic() - activity.STUCK_S - 1, "running": 1})
    assert activity.quiet_for(0.75)


def wait_until(check, seconds: float = 10.0) -> bool:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if check():
            return True
        time.sleep(0.02)
    return check()


def test_work_ahead_runs_once_per_name_after_a_pause_and_a_failure_is_logged(monkeypatch, caplog):
    monkeypatch.setattr(activity, "_state", {"last": 0.0, "running": 0})
    monkeypatch.setattr(activity, "_ahead_names", activity.collections.OrderedDict())
    done: list[str] = []
    activity.run_started()                     # a page is running: nothing starts yet
    activity.when_quiet("paper|amy", done.append, "paper", idle_s=0.05)
    activity.when_quiet("paper|amy", done.append, "again", idle_s=0.05)   # the same work, asked twice
    time.sleep(0.3)
    assert done == []
    activity.run_ended()
    assert wait_until(lambda: done == ["paper"])

    def broken() -> None:
        raise RuntimeError("the database is busy")
    with caplog.at_level("WARNING", logger=activity.__name__):
        activity.when_quiet("keys|s1", broken, idle_s=0.0)
        activity.when_quiet("keys|s2", done.append, "after", idle_s=0.0)   # a failure stops nothing after it
        assert wait_until(lambda: done == ["paper", "after"])
    assert "keys|s1" in caplog.text and "the database is busy" in caplog.text


def test_work_ahead_not_started_by_its_deadline_is_dropped(monkeypatch):
    monkeypatch.setattr(activity, "_state", {"last": time.monotonic(), "running": 1})
    monkeypatch.setattr(activity, "_ahead_names", activity.collections.OrderedDict())
    monkeypatch.setattr(activity, "AHEAD_GIVE_UP_S", 0.2)
    done: list[str] = []
    activity.when_quiet("late", done.append, "late", idle_s=0.0)
    time.sleep(0.5)
    activity.run_ended()
    activity.when_quiet("next", done.append, "next", idle_s=0.0)
    assert wait_until(lambda: done == ["next"])


def test_work_in_pieces_waits_for_each_pause_and_gives_up_at_its_deadline(monkeypatch):
    monkeypatch.setattr(activity, "_state", {"last": 0.0, "running": 0})
    pause = activity.pausing(0.05)
    pause()                                    # quiet: goes straight on
    activity.run_started()
    pieces: list[float] = []
    worker = threading.Thread(target=lambda: (pause(), pieces.append(time.monotonic())))
    worker.start()
    time.sleep(0.3)
    assert pieces == []                        # a page is running: the next piece waits
    ended = time.monotonic()
    activity.run_ended()
    worker.join(5)
    assert pieces and pieces[0] - ended >= 0.05
    monkeypatch.setattr(activity, "AHEAD_GIVE_UP_S", 0.1)
    late = activity.pausing(0.05)
    activity.run_started()
    try:
        with pytest.raises(activity.GaveUp):
            late()
    finally:
        activity.run_ended()


def test_a_fragment_run_counts_as_activity(monkeypatch):
    from streamlit.testing.v1 import AppTest
    monkeypatch.setattr(activity, "_state", {"last": 0.0, "running": 0})
    at = AppTest.from_string("""
import streamlit as st
from ui import activity

@activity.fragment
def part():
    st.session_state["inside"] = (activity._state["running"], activity.quiet_for(0.0))
    st.button("Again", key="again")

part()
""")
    at.run()
    assert not at.exception and at.session_state["inside"] == (1, False)   # counted while it runs
    activity._state["last"] = 0.0
    at.button(key="again").click().run()   # a run of the fragment alone
    assert at.session_state["inside"] == (1, False)
    assert activity._state["running"] == 0 and not activity.quiet_for(0.5)   # ended, a moment ago
