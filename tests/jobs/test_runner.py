"""The job runner: results come back, time limits are enforced, caps refuse with a sentence, workers stay apart.

The functions the workers run are defined here, at module level, so a worker
process can import them by name.
"""
from __future__ import annotations

import os
import sys
import threading
import time
import types
from pathlib import Path

import pytest

from core.jobs import (CANCELLED, DONE, FAILED, TIMED_OUT, JobBusy, JobCancelled, JobFailed, JobRunner,
                       JobTimeout)

SLACK_S = 5.0     # a stopped worker is gone within this much of its time limit, even on a busy machine


def add(a, b, progress=None):
    if progress:
        progress(0.5, "half way")
    return {"sum": a + b, "pid": os.getpid()}


def spin_forever():
    n = 0
    while True:
        n += 1


def spin_reporting(progress=None):
    while True:
        progress(None, "still going")
        time.sleep(0.01)


def refuse(what):
    raise ValueError(f"cannot do {what}")


def crash():
    os._exit(3)


def sleep_then(seconds, value):
    time.sleep(seconds)
    return value


def write_marker(path):
    return Path(path).exists()


@pytest.fixture(scope="module")
def runner():
    jobs = JobRunner(max_processes=1, max_threads=2, per_owner=1)
    yield jobs
    jobs.shutdown()


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    status = Path(f"/proc/{pid}/stat")
    return not (status.exists() and status.read_text().split()[2] == "Z")


def test_a_result_comes_back_from_a_worker_process_and_finish_runs_here(runner):
    seen = {}

    def finish(result):
        seen["thread"] = threading.current_thread().name
        return {**result, "finished_in": os.getpid()}

    job = runner.submit(add, 2, 3, owner="t1", label="Adding", time_limit=60, finish=finish, tag="mine")
    assert job.wait(60)
    result = job.result()
    assert job.state == DONE and job.tag == "mine"
    assert result["sum"] == 5
    assert result["pid"] != os.getpid() and result["pid"] == job.pid      # computed in the worker
    assert result["finished_in"] == os.getpid()                          # stored from the app process
    assert seen["thread"] != threading.current_thread().name
    assert job.fraction == 0.5 and job.message == "half way"
    assert not runner.running()


def test_a_job_that_loops_forever_is_stopped_at_its_time_limit(runner):
    started = time.monotonic()
    job = runner.submit(spin_forever, owner="t1", label="Counting for ever", time_limit=1.5,
                        advice="Ask for less.")
    assert job.wait(1.5 + SLACK_S)
    assert job.state == TIMED_OUT
    assert 1.5 <= time.monotonic() - started < 1.5 + SLACK_S
    with pytest.raises(JobTimeout) as caught:
        job.result()
    assert str(caught.value) == "Counting for ever was stopped at its time limit of 1.5 s. Ask for less."
    assert not alive(job.pid)
    assert not runner.running()


def test_a_busy_runner_says_so_and_takes_jobs_again_once_free(runner):
    first = runner.submit(sleep_then, 1.0, "first", owner="t1", label="Sleeping", time_limit=30)
    with pytest.raises(JobBusy, match=r"^You already have a job running: Sleeping \(for .* so far\)\. Wait for it"):
        runner.submit(add, 1, 1, owner="t1", label="Adding", time_limit=30)
    with pytest.raises(JobBusy, match=r"^The workbench is busy: 1 other job\(s\) like this are running, and it runs "
                                      r"at most 1 at once so that students' pages stay quick\. Try again in a minute\.$"):
        runner.submit(add, 1, 1, owner="t2", label="Adding", time_limit=30)
    assert [j.label for j in runner.running()] == ["Sleeping"]
    assert first.wait(30) and first.result() == "first"
    second = runner.submit(add, 1, 1, owner="t2", label="Adding", time_limit=30)   # the slot is free again at once
    assert second.wait(30) and second.result()["sum"] == 2


def test_a_task_error_comes_back_as_itself(runner):
    job = runner.submit(refuse, "that", owner="t1", label="Refusing", time_limit=30)
    assert job.wait(30) and job.state == FAILED
    with pytest.raises(ValueError, match="cannot do that"):
        job.result()


def test_a_worker_that_dies_is_reported(runner):
    job = runner.submit(crash, owner="t1", label="Crashing", time_limit=30)
    assert job.wait(30) and job.state == FAILED
    with pytest.raises(JobFailed, match=r"^Crashing stopped without a result \(exit code 3\)\.$"):
        job.result()


def test_a_job_can_be_stopped(runner):
    job = runner.submit(spin_forever, owner="t1", label="Counting", time_limit=60)
    time.sleep(0.5)
    job.cancel()
    assert job.wait(SLACK_S) and job.state == CANCELLED
    with pytest.raises(JobCancelled, match="Counting was stopped."):
        job.result()
    assert not runner.running()


def test_workers_never_run_the_main_script(runner, tmp_path, monkeypatch):
    """Under Streamlit ``__main__`` is the app's script, which opens the database: a worker must not import it."""
    marker = tmp_path / "main_ran"
    script = tmp_path / "app_like.py"
    script.write_text(f"from pathlib import Path\nPath({str(marker)!r}).write_text('ran')\n")
    main = types.ModuleType("__main__")
    main.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", main)
    job = runner.submit(write_marker, str(marker), owner="t1", label="Looking", time_limit=30)
    assert job.wait(30) and job.result() is False
    assert not marker.exists()


def test_a_thread_job_is_stopped_at_its_next_progress_report_after_its_limit(runner):
    job = runner.submit_thread(spin_reporting, owner="t1", label="Asking the LLM", time_limit=0.5)
    assert job.wait(SLACK_S) and job.state == TIMED_OUT
    with pytest.raises(JobTimeout, match="^Asking the LLM was stopped at its time limit of 0.5 s.$"):
        job.result()
    deadline = time.monotonic() + SLACK_S
    while runner.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not runner.running()


def test_a_thread_job_reads_as_timed_out_at_its_deadline_and_its_late_result_is_dropped(runner):
    stored = []
    job = runner.submit_thread(sleep_then, 1.5, "late", owner="t1", label="Waiting", time_limit=0.3,
                               finish=stored.append)
    assert job.wait(SLACK_S) and job.state == TIMED_OUT
    assert job.elapsed < 1.5
    # the thread still runs, so the caps still count it
    with pytest.raises(JobBusy):
        runner.submit_thread(add, 1, 1, owner="t1", label="Adding", time_limit=5)
    deadline = time.monotonic() + SLACK_S
    while runner.running() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not runner.running() and stored == []
    with pytest.raises(JobTimeout):
        job.result()


def test_thread_jobs_have_their_own_caps(runner):
    slow = runner.submit(sleep_then, 1.0, "process", owner="t1", label="Sleeping", time_limit=30)
    quick = runner.submit_thread(add, 1, 2, owner="t1", label="Adding", time_limit=30)
    assert quick.wait(30) and quick.result()["pid"] == os.getpid()      # a thread of this process
    assert slow.wait(30) and slow.result() == "process"


def test_caps_and_limits_are_checked():
    with pytest.raises(ValueError):
        JobRunner(max_processes=0)
    jobs = JobRunner()
    with pytest.raises(ValueError):
        jobs.submit(add, 1, 2, owner="t", label="Adding", time_limit=0)
    jobs.shutdown()
    with pytest.raises(JobBusy, match="shutting down"):
        jobs.submit(add, 1, 2, owner="t", label="Adding", time_limit=5)


def test_caps_from_the_environment():
    jobs = JobRunner.from_env({"WORKBENCH_JOB_PROCESSES": "3", "WORKBENCH_JOB_THREADS": "5",
                               "WORKBENCH_JOBS_PER_TEACHER": "2"})
    assert (jobs.max_processes, jobs.max_threads, jobs.per_owner) == (3, 5, 2)
    cpus = os.cpu_count() or 1
    assert JobRunner.from_env({}).max_processes == max(1, min(4, cpus - 1))
