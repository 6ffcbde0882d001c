"""Bounded background jobs: CPU-bound work in worker processes, waiting-bound work (LLM calls) in threads.

A process job runs a module-level function in a worker process of its own,
forked from a clean server process that has the heavy modules imported
already (multiprocessing's forkserver), so a job starts in milliseconds and
never holds the app's interpreter lock: students' pages stay quick while a
teacher validates a slow blueprint. The worker runs at a lower priority and is
killed when its time limit passes. A worker never opens the database (DuckDB
lets one process hold the file): it gets its inputs as arguments and sends its
result back; ``finish`` then runs in the app process, on the job's own thread,
to store what should be stored, so the result is kept even when nobody is
looking at the page any more.

A thread job (calls to an LLM, which mostly wait on the network) runs in a
thread of the app process. Its time limit is checked whenever it reports
progress (the progress callback raises ``JobTimeout`` once the limit has
passed, so the work stops at its next step), and the job reads as timed out at
its deadline whatever the thread is doing; a late result is dropped, never
stored.

Both kinds are capped: at most ``max_processes`` (``max_threads``) running at
once in the app, and ``per_owner`` of each kind per owner (a teacher). A job
over a cap is refused at once with a sentence saying why, rather than queued
behind others.
"""
from __future__ import annotations

import dataclasses
import inspect
import itertools
import math
import multiprocessing
import os
import pickle
import sys
import threading
import time
import traceback
from typing import Any, Callable, Mapping, Optional, Sequence

PROCESS, THREAD = "process", "thread"
RUNNING, DONE, FAILED, TIMED_OUT, CANCELLED = "running", "done", "failed", "timed out", "cancelled"
WORKER_NICENESS = 10            # workers yield the CPU to the app's page runs
PROGRESS_EVERY_S = 0.1          # a worker sends at most this many progress reports per second (and the last)
KEEP_FINISHED = 200             # finished jobs remembered for lookup by id

# What a job is given to report how far it has got: progress(fraction 0..1 or None, message).
JobProgress = Optional[Callable[[Optional[float], str], None]]


class JobError(RuntimeError):
    """A background job that could not run or did not finish, said in one sentence."""


class JobBusy(JobError):
    """Refused: the app (or this owner) already runs as many jobs of this kind as it may."""


class JobTimeout(JobError):
    """Stopped at its time limit."""


class JobCancelled(JobError):
    """Stopped because its owner asked."""


class JobFailed(JobError):
    """The worker stopped without a result (it crashed, was killed, or its result could not be sent back)."""


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{round(seconds, 1):g} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


@dataclasses.dataclass(eq=False)
class Job:
    """One submitted job: its state, its last progress report, and (when finished) its result or error."""

    id: str
    label: str
    owner: str
    kind: str
    time_limit: float
    tag: Any = None                          # whatever the caller wants to keep with the job (say, the text it checked)
    advice: str = ""                         # what to do when it times out
    started: float = dataclasses.field(default_factory=time.monotonic)
    ended: Optional[float] = None
    state: str = RUNNING
    fraction: Optional[float] = None         # 0..1 when the job reports it
    message: str = ""
    pid: Optional[int] = None                # the worker process, for process jobs
    _result: Any = dataclasses.field(default=None, repr=False)
    _error: Optional[BaseException] = dataclasses.field(default=None, repr=False)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock, repr=False)
    _finished: threading.Event = dataclasses.field(default_factory=threading.Event, repr=False)
    _cancel: threading.Event = dataclasses.field(default_factory=threading.Event, repr=False)

    @property
    def deadline(self) -> float:
        return self.started + self.time_limit

    @property
    def elapsed(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def done(self) -> bool:
        """True once the job has a result or an error (a thread job past its deadline counts as timed out)."""
        self._expire()
        return self._finished.is_set()

    def wait(self, timeout: Optional[float] = None) -> bool:
        """Wait up to ``timeout`` seconds for the job to finish; True when it has."""
        end = None if timeout is None else time.monotonic() + timeout
        while True:
            if self.done():
                return True
            left = self.deadline - time.monotonic() + 0.05
            if end is not None:
                left = min(left, end - time.monotonic())
                if left <= 0:
                    return self.done()
            self._finished.wait(max(0.01, left))

    def result(self) -> Any:
        """The job's result; raises its error (the task's own exception, or a JobError) when it has one."""
        if not self.done():
            raise JobError(f"{self.label} is still running.")
        if self._error is not None:
            raise self._error
        return self._result

    @property
    def error(self) -> Optional[BaseException]:
        return self._error if self.done() else None

    def cancel(self) -> None:
        """Ask the job to stop: a worker process is killed; a thread stops at its next progress report."""
        self._cancel.set()
        if self.kind == THREAD:
            self._settle(CANCELLED, error=JobCancelled(f"{self.label} was stopped."))

    def progress(self, fraction: Optional[float], message: str = "") -> None:
        with self._lock:
            if fraction is not None:
                self.fraction = max(0.0, min(1.0, float(fraction)))
            if message:
                self.message = message

    # ------------------------------------------------------------------
    def _expire(self) -> None:
        if self.kind == THREAD and not self._finished.is_set() and time.monotonic() > self.deadline:
            self._settle(TIMED_OUT, error=JobTimeout(timeout_message(self)))

    def _settle(self, state: str, result: Any = None, error: Optional[BaseException] = None) -> bool:
        """Record how the job ended, once; False when it had ended already (a late result is dropped)."""
        with self._lock:
            if self._finished.is_set():
                return False
            self.state, self._result, self._error = state, result, error
            self.ended = time.monotonic()
            self._finished.set()
            return True


def timeout_message(job: Job) -> str:
    return " ".join(filter(None, [f"{job.label} was stopped at its time limit of {_duration(job.time_limit)}.",
                                  job.advice]))


def _takes_progress(fn: Callable) -> bool:
    try:
        return "progress" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _picklable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:  # noqa: BLE001 - any exception that cannot travel is described instead
        return JobFailed(f"{type(exc).__name__}: {exc}")


WORKER_NAME = "workbench-job"


def keep_main_out_of_workers() -> None:
    """Workers never run the app's main script.

    multiprocessing tells a new process to import the parent's ``__main__``
    (so that functions defined there can be found). Under Streamlit that is the
    app's script, which opens the database, so for workers that step is left
    out: a job's function always lives in an importable module.
    """
    from multiprocessing import spawn
    if getattr(spawn.get_preparation_data, "_workbench", False):
        return
    original = spawn.get_preparation_data

    def preparation_data(name):
        data = original(name)
        if str(name).startswith(WORKER_NAME):
            data.pop("init_main_from_path", None)
            data.pop("init_main_from_name", None)
        return data

    preparation_data._workbench = True
    spawn.get_preparation_data = preparation_data


def _worker_main(conn, fn: Callable, args: tuple, kwargs: dict, time_limit: float) -> None:
    """The worker process: lower priority, a CPU-time cap as a second guard, run ``fn`` and send what came of it."""
    try:
        os.nice(WORKER_NICENESS)
    except (AttributeError, OSError):
        pass
    try:
        import resource
        cap = int(math.ceil(time_limit)) + 5
        resource.setrlimit(resource.RLIMIT_CPU, (cap, cap + 5))
    except (ImportError, ValueError, OSError):
        pass
    last = [0.0]

    def progress(fraction: Optional[float], message: str = "") -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_EVERY_S or (fraction is not None and fraction >= 1):
            last[0] = now
            conn.send(("progress", fraction, message))

    try:
        if _takes_progress(fn):
            kwargs = {**kwargs, "progress": progress}
        result = fn(*args, **kwargs)
        try:
            conn.send(("ok", result))
        except (pickle.PicklingError, TypeError, AttributeError) as exc:
            conn.send(("error", JobFailed(f"the result could not be sent back ({exc})")))
    except BaseException as exc:  # noqa: BLE001 - every failure goes back to the app as the job's error
        if not isinstance(exc, (ValueError, LookupError, JobError)):
            traceback.print_exc(file=sys.stderr)
        conn.send(("error", _picklable(exc)))
    finally:
        conn.close()


class JobRunner:
    """Runs jobs within caps: ``submit`` for CPU-bound work (a process each), ``submit_thread`` for LLM calls."""

    def __init__(self, max_processes: int = 1, max_threads: int = 4, per_owner: int = 1,
                 preload: Sequence[str] = (), start_method: Optional[str] = None) -> None:
        if max_processes < 1 or max_threads < 1 or per_owner < 1:
            raise ValueError("job caps must be at least 1")
        self.max_processes, self.max_threads, self.per_owner = max_processes, max_threads, per_owner
        methods = multiprocessing.get_all_start_methods()
        method = start_method or ("forkserver" if "forkserver" in methods else "spawn")
        self._ctx = multiprocessing.get_context(method)
        keep_main_out_of_workers()
        if method == "forkserver" and preload:
            self._ctx.set_forkserver_preload(list(preload))
        self._lock = threading.Lock()
        self._active: dict[str, Job] = {}          # jobs whose process or thread is still alive
        self._jobs: dict[str, Job] = {}            # every job still remembered, by id
        self._procs: dict[str, Any] = {}
        self._ids = itertools.count(1)
        self._closed = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ, preload: Sequence[str] = ()) -> "JobRunner":
        """Caps from the environment: WORKBENCH_JOB_PROCESSES (default: one fewer than the CPUs, 1 to 4),
        WORKBENCH_JOB_THREADS (default 4) and WORKBENCH_JOBS_PER_TEACHER (default 1)."""
        cpus = os.cpu_count() or 1
        processes = int(environ.get("WORKBENCH_JOB_PROCESSES") or max(1, min(4, cpus - 1)))
        threads = int(environ.get("WORKBENCH_JOB_THREADS") or 4)
        per_owner = int(environ.get("WORKBENCH_JOBS_PER_TEACHER") or 1)
        return cls(processes, threads, per_owner, preload=preload)

    def warm_up(self) -> None:
        """Start the worker server now (in the background), so the first job does not wait for its imports."""
        if self._ctx.get_start_method() != "forkserver":
            return

        def start() -> None:
            try:
                self._ctx.Process(target=_noop, name=f"{WORKER_NAME}-warm-up", daemon=True).start()
            except Exception:  # noqa: BLE001 - the first real job reports any problem
                pass
        threading.Thread(target=start, name="jobs-warm-up", daemon=True).start()

    # ------------------------------------------------------------------
    def submit(self, fn: Callable, *args: Any, owner: str, label: str, time_limit: float,
               finish: Optional[Callable[[Any], Any]] = None, tag: Any = None, advice: str = "",
               **kwargs: Any) -> Job:
        """Run ``fn(*args, **kwargs)`` in a worker process; ``finish(result)`` then runs in this process.

        ``fn`` must be a module-level function whose arguments and result can
        be pickled; it is given ``progress(fraction, message)`` when it takes
        a ``progress`` argument. ``advice`` ends the message shown when the
        job times out (what to change). Raises JobBusy at once when a cap is
        reached.
        """
        job = self._admit(PROCESS, owner, label, time_limit, tag, advice)
        threading.Thread(target=self._run_process, args=(job, fn, args, kwargs, finish),
                         name=f"{job.id}-watch", daemon=True).start()
        return job

    def submit_thread(self, fn: Callable, *args: Any, owner: str, label: str, time_limit: float,
                      finish: Optional[Callable[[Any], Any]] = None, tag: Any = None, advice: str = "",
                      **kwargs: Any) -> Job:
        """Run ``fn(*args, **kwargs)`` in a thread of this process (for work that waits, such as LLM calls)."""
        job = self._admit(THREAD, owner, label, time_limit, tag, advice)
        threading.Thread(target=self._run_thread, args=(job, fn, args, kwargs, finish),
                         name=f"{job.id}-thread", daemon=True).start()
        return job

    def get(self, job_id: str) -> Optional[Job]:
        with self._lock:
            return self._jobs.get(job_id)

    def running(self, owner: Optional[str] = None) -> list[Job]:
        """Jobs whose process or thread is still alive (a timed-out thread counts until it has stopped)."""
        with self._lock:
            return [j for j in self._active.values() if owner is None or j.owner == owner]

    def shutdown(self) -> None:
        """Refuse new jobs and stop every running one (its worker process is killed)."""
        with self._lock:
            self._closed = True
            jobs, procs = list(self._active.values()), list(self._procs.values())
        for job in jobs:
            job._cancel.set()   # noqa: SLF001
        for proc in procs:
            if proc.is_alive():
                proc.kill()

    # ------------------------------------------------------------------
    def _admit(self, kind: str, owner: str, label: str, time_limit: float, tag: Any, advice: str) -> Job:
        if time_limit <= 0:
            raise ValueError("a job needs a time limit above zero")
        cap = self.max_processes if kind == PROCESS else self.max_threads
        with self._lock:
            if self._closed:
                raise JobBusy("The workbench is shutting down; try again once it has restarted.")
            mine = [j for j in self._active.values() if j.owner == owner and j.kind == kind]
            if len(mine) >= self.per_owner:
                first = mine[0]
                raise JobBusy(f"You already have a job running: {first.label} (for {_duration(first.elapsed)} so far). "
                              f"Wait for it to finish, or stop it, before starting another.")
            same = [j for j in self._active.values() if j.kind == kind]
            if len(same) >= cap:
                raise JobBusy(f"The workbench is busy: {len(same)} other job(s) like this are running, and it runs "
                              f"at most {cap} at once so that students' pages stay quick. Try again in a minute.")
            job = Job(id=f"job-{next(self._ids)}", label=label, owner=owner, kind=kind,
                      time_limit=float(time_limit), tag=tag, advice=advice)
            self._active[job.id] = job
            self._jobs[job.id] = job
            while len(self._jobs) > KEEP_FINISHED + len(self._active):
                oldest = next(k for k, j in self._jobs.items() if k not in self._active)
                del self._jobs[oldest]
            return job

    def _release(self, job: Job) -> None:
        with self._lock:
            self._active.pop(job.id, None)
            self._procs.pop(job.id, None)

    @staticmethod
    def _apply_finish(result: Any, finish: Optional[Callable[[Any], Any]]) -> tuple[str, Any, Optional[BaseException]]:
        """What the job ends as once ``finish`` has run on its result: (state, value, error)."""
        try:
            return DONE, (finish(result) if finish is not None else result), None
        except BaseException as exc:  # noqa: BLE001 - the page shows it as the job's outcome
            return FAILED, None, exc

    def _run_process(self, job: Job, fn: Callable, args: tuple, kwargs: dict,
                     finish: Optional[Callable[[Any], Any]]) -> None:
        outcome: tuple = ("failed", None)
        recv = proc = None
        try:
            recv, send = self._ctx.Pipe(duplex=False)
            proc = self._ctx.Process(target=_worker_main, args=(send, fn, args, kwargs, job.time_limit),
                                     name=f"{WORKER_NAME}-{job.id}", daemon=True)
            with self._lock:
                self._procs[job.id] = proc
            proc.start()
            send.close()
            job.pid = proc.pid
            outcome = self._watch(job, proc, recv)
        except Exception as exc:  # noqa: BLE001 - starting the worker failed; say so as the job's error
            outcome = ("error", JobFailed(f"{job.label} could not start a worker process ({exc})."))
        finally:
            if proc is not None and proc.pid is not None:
                proc.join(2 if outcome[0] in ("ok", "error") else 0)
                if proc.is_alive():
                    proc.kill()
                    proc.join(5)
            if recv is not None:
                recv.close()
            self._release(job)
        kind, value = outcome[0], outcome[1]
        if kind == "ok":
            state, result, error = self._apply_finish(value, finish)
            job._settle(state, result=result, error=error)   # noqa: SLF001
        elif kind == "error":
            job._settle(FAILED, error=value)   # noqa: SLF001
        elif kind == "timeout":
            job._settle(TIMED_OUT, error=JobTimeout(timeout_message(job)))   # noqa: SLF001
        elif kind == "cancelled":
            job._settle(CANCELLED, error=JobCancelled(f"{job.label} was stopped."))   # noqa: SLF001
        else:
            code = proc.exitcode if proc is not None else None
            why = "it ran out of memory or CPU time, or was killed" if code and code < 0 else f"exit code {code}"
            job._settle(FAILED, error=JobFailed(f"{job.label} stopped without a result ({why})."))   # noqa: SLF001

    def _watch(self, job: Job, proc, recv) -> tuple:
        while True:
            if job._cancel.is_set():   # noqa: SLF001
                return ("cancelled", None)
            left = job.deadline - time.monotonic()
            if left <= 0:
                return ("timeout", None)
            try:
                if not recv.poll(min(left, 0.25)):
                    if not proc.is_alive() and not recv.poll(0):
                        return ("failed", None)
                    continue
                message = recv.recv()
            except (EOFError, OSError):
                return ("failed", None)
            except Exception as exc:  # noqa: BLE001 - a result that cannot be read back
                return ("error", JobFailed(f"{job.label} finished, but its result could not be read ({exc})."))
            if message[0] == "progress":
                job.progress(message[1], message[2])
                continue
            return message

    def _run_thread(self, job: Job, fn: Callable, args: tuple, kwargs: dict,
                    finish: Optional[Callable[[Any], Any]]) -> None:
        def progress(fraction: Optional[float], message: str = "") -> None:
            job.progress(fraction, message)
            if job._cancel.is_set():   # noqa: SLF001
                raise JobCancelled(f"{job.label} was stopped.")
            if time.monotonic() > job.deadline:
                raise JobTimeout(timeout_message(job))

        state, value, error = FAILED, None, None
        try:
            if _takes_progress(fn):
                kwargs = {**kwargs, "progress": progress}
            result = fn(*args, **kwargs)
            if job._cancel.is_set():   # noqa: SLF001
                state, error = CANCELLED, JobCancelled(f"{job.label} was stopped.")
            elif time.monotonic() > job.deadline:
                state, error = TIMED_OUT, JobTimeout(timeout_message(job))   # the late result is dropped
            else:
                state, value, error = self._apply_finish(result, finish)
        except JobTimeout as exc:
            state, error = TIMED_OUT, exc
        except JobCancelled as exc:
            state, error = CANCELLED, exc
        except BaseException as exc:  # noqa: BLE001 - the page shows it as the job's outcome
            if not isinstance(exc, (ValueError, LookupError, JobError)):
                traceback.print_exc(file=sys.stderr)
            error = exc
        finally:
            self._release(job)       # before the job reads as finished, so its owner may start the next at once
            job._settle(state, result=value, error=error)   # noqa: SLF001


def _noop() -> None:
    """A job that does nothing (starts the worker server ahead of the first real job)."""
