"""Each skill level's one-off sampling work, done in a worker process when the server opens its library.

Listing the parameter values a level's constraints allow takes seconds of CPU for the whole library. Done in a
thread of the app it would hold the interpreter lock against every page run for as long (the first minute of a
lesson, every click slowed); done in a worker process, at a lower priority, it runs on another core, and the
app only takes over the results (``SkillGenerator.install_sampling_state``), a tenth of a second. The worker
compiles the same blueprints, so its results are checked against each skill's compiled hash before use.
"""
from __future__ import annotations

import concurrent.futures
import dataclasses
import logging
import multiprocessing
import os
from typing import Any, Iterable, Optional

from core.blueprints.compiler import compile_skill
from core.blueprints.loader import BlueprintError, LoadedBlueprint, NodeIndex
from core.items.generator import SkillGenerator
from core.items.sampler import GenerationError
from core.jobs.runner import WORKER_NAME, keep_main_out_of_workers

_log = logging.getLogger(__name__)
WORKER_NICENESS = 10
TIME_LIMIT_S = 300.0        # for one part
CHUNK = 8


def sampling_states(skills: list[LoadedBlueprint]) -> dict[str, tuple[str, Optional[dict], Optional[str]]]:
    """Worker side: {skill id: (compiled hash, sampling state or None, why it failed or None)}."""
    if multiprocessing.parent_process() is not None:   # a worker: yield the CPU to the app's page runs
        try:
            os.nice(WORKER_NICENESS)
        except OSError:
            pass
    out: dict[str, tuple[str, Optional[dict], Optional[str]]] = {}
    for loaded in skills:
        try:
            gen = SkillGenerator(compile_skill(loaded.model, loaded))
        except BlueprintError as exc:
            out[loaded.id] = ("", None, str(exc))
            continue
        try:
            gen.warm_up()
            out[loaded.id] = (gen.cs.hash, gen.sampling_state(), None)
        except GenerationError as exc:   # said again, to whoever uses this level, when it is used
            out[loaded.id] = (gen.cs.hash, gen.sampling_state(), str(exc))
    return out


def install(library: Any, states: dict) -> int:
    """Take over the worker's results for the skills whose compiled form is the same; the components taken."""
    taken = 0
    for skill_id, (digest, state, problem) in states.items():
        gen = library.generators.get(skill_id)
        if problem:
            _log.warning("Preparing %s for generating questions failed: %s", skill_id, problem)
        if gen is None or state is None or gen.cs.hash != digest:
            continue
        taken += gen.install_sampling_state(state)
    return taken


class _NamedWorkers:
    """A multiprocessing context whose processes carry the job workers' name, so that, like every job worker,
    they never import the app's main script (under Streamlit, app.py, which opens the database)."""

    def __init__(self, context: Any, name: str) -> None:
        self._context, self._name = context, name

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._context, attr)

    def Process(self, *args: Any, **kwargs: Any) -> Any:   # noqa: N802 - multiprocessing's name
        kwargs.setdefault("name", self._name)
        return self._context.Process(*args, **kwargs)


def _slim(loaded: LoadedBlueprint) -> LoadedBlueprint:
    return dataclasses.replace(loaded, text="", index=NodeIndex(None))


def warming_order(library: Any, first: Iterable[tuple[Optional[str], Optional[str]]] = ()) -> list[str]:
    """The skills to prepare, those of the courses ``first`` ((subject, level): the classes' own) before the
    rest: a class's first mock exam is drawn from them, maybe within seconds of the server starting."""
    wanted = {((subject or "").lower(), (level or "").lower()) for subject, level in first}   # a class may have none

    def later(skill_id: str) -> bool:
        meta = library.skills[skill_id].model.metadata
        return ((meta.subject or "").lower(), (meta.level or "").lower()) not in wanted

    return sorted((s for s in library.skills if s in library.generators), key=lambda s: (later(s), s))


def warm_library(library: Any, first: Iterable[tuple[Optional[str], Optional[str]]] = ()) -> int:
    """Prepare every skill level of ``library`` in a worker process and install the results here, the skills of
    the courses ``first`` first.

    Falls back to doing the work in this thread when no worker process can be started. Returns the
    components prepared.
    """
    skills = [_slim(library.skills[s]) for s in warming_order(library, first)]
    taken = 0
    try:
        keep_main_out_of_workers()
        context = _NamedWorkers(multiprocessing.get_context("forkserver"), f"{WORKER_NAME}-sampling")
        with concurrent.futures.ProcessPoolExecutor(max_workers=1, mp_context=context) as pool:
            # In parts, each installed as it arrives: the first skills are ready in seconds, not at the end.
            for start in range(0, len(skills), CHUNK):
                states = pool.submit(sampling_states, skills[start:start + CHUNK]).result(timeout=TIME_LIMIT_S)
                taken += install(library, states)
        return taken
    except (OSError, ValueError, RuntimeError, concurrent.futures.TimeoutError,
            concurrent.futures.process.BrokenProcessPool) as exc:
        _log.warning("Preparing question generation in a worker process failed (%s); doing it here instead", exc)
        for skill_id in warming_order(library, first):
            gen = library.generators[skill_id]
            try:
                gen.warm_up()
            except GenerationError as exc2:
                _log.warning("Preparing %s for generating questions failed: %s", gen.bp.skill_id, exc2)
            taken += 1
        return taken
