"""Heavy work started from a teacher page as a bounded background job, and followed on the page until it ends.

The process's job runner (core.jobs) does the work off the page's own run:
validating, generating and calibrating in worker processes, LLM calls in
threads. A quick job is waited for briefly and shown at once; a longer one
leaves a progress bar that refreshes every second (the rest of the page stays
usable) and reruns the page when the job ends.
"""
from __future__ import annotations

import atexit
import os
from typing import Any, Callable, Optional

import streamlit as st

from core.jobs import Job, JobBusy, JobError, JobRunner
from ui import activity, shared

POLL_S = 1.0
WAIT_S = 3.0     # how long a page waits for a job before following it every second (WORKBENCH_JOB_WAIT)


@st.cache_resource(show_spinner=False)
def runner() -> JobRunner:
    """The process's job runner; its worker server starts at once, so the first job does not wait for it."""
    jobs = JobRunner.from_env(preload=("core.jobs.tasks",))
    jobs.warm_up()
    atexit.register(jobs.shutdown)
    return jobs


def owner() -> str:
    """Whose job it is: the caps per teacher count by this."""
    who = shared.user() or {}
    return f"{who.get('role', '')}:{who.get('user', '')}"


def _wait_s() -> float:
    try:
        return max(0.0, float(os.environ.get("WORKBENCH_JOB_WAIT", WAIT_S)))
    except ValueError:
        return WAIT_S


def start(key: str, fn: Callable, *args: Any, label: str, limit: float, thread: bool = False,
          finish: Optional[Callable[[Any], Any]] = None, tag: Any = None, advice: str = "",
          running: str = "", **kwargs: Any) -> Optional[Job]:
    """Start ``fn`` as this page's job ``key`` (a worker process, or a thread for LLM calls).

    When the workbench or this teacher is already running as many jobs as
    allowed, says so and returns None. Otherwise waits a moment for it, so
    quick work shows at once; ``follow(key)`` then gives the job once it ends.
    """
    jobs = runner()
    submit = jobs.submit_thread if thread else jobs.submit
    try:
        job = submit(fn, *args, owner=owner(), label=label, time_limit=limit, finish=finish, tag=tag,
                     advice=advice, **kwargs)
    except JobBusy as exc:
        st.warning(str(exc), icon="⏳")
        return None
    st.session_state[key] = job
    with st.spinner(running or f"{label}…"):
        job.wait(_wait_s())
    return job


def running(key: str) -> bool:
    """Whether this page's job ``key`` is still running."""
    job = st.session_state.get(key)
    return job is not None and not job.done()


def follow(key: str, text: str) -> Optional[Job]:
    """This page's job ``key`` once it has ended (taken off the session, so it is shown once).

    While it runs: a progress bar with a Stop button, refreshed every second,
    and None.
    """
    job = st.session_state.get(key)
    if job is None:
        return None
    if job.done():
        del st.session_state[key]
        return job
    _progress(key, text)
    return None


@activity.fragment(run_every=POLL_S)
def _progress(key: str, text: str) -> None:
    job: Optional[Job] = st.session_state.get(key)
    if job is None:
        return
    if job.done():
        st.rerun()
    st.progress(job.fraction or 0.0,
                text=f"{job.message or text} ({job.elapsed:.0f} s; stopped at {job.time_limit:.0f} s)")
    if st.button("Stop", key=f"{key}_stop"):
        job.cancel()
        st.rerun()


def result(job: Job, *expected: type[BaseException]) -> tuple[bool, Any]:
    """(True, the result) when the job succeeded; else (False, the error), shown as its sentence.

    ``expected`` are the task's own errors (a request that cannot be done);
    the job's own failures (time limit, stopped, worker lost) are always
    shown. Anything else is a fault and is raised.
    """
    try:
        return True, job.result()
    except (JobError, *expected) as exc:
        shared.error(exc)
        return False, exc
