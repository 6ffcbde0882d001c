"""Background reading waits for the app to be quiet: a page running, or one that ran a moment ago, holds it."""
from __future__ import annotations

import threading
import time

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
