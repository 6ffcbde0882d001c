"""The teacher pages' heavy work, cut so a worker process can do the computing and the app does the storing.

Worker-side functions (``check_blueprint``, ``validate``, ``sample_items``,
``generate_items``, ``calibrate``) take plain inputs, never open the
database, and return what the page shows; the app-side halves
(``store_calibration``, and ``authoring.store_batches`` or
``save_new_version`` as a job's ``finish``) write from the app process.
``llm_drafts`` and ``pipeline`` wait on an LLM and so run in a thread.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterable, Optional

import pandas as pd

from core.analytics import calibration as cal
from core.blueprints.library import Library
from core.blueprints.loader import LoadedBlueprint, NodeIndex
from core.items import authoring
from core.items.authoring.plans import PlanEntry
from core.jobs.runner import JobProgress
from core.store import Store
from core.store import analytics as data

# Seconds a job may run before it is stopped.
TIME_LIMITS = {"validate": 120.0, "preview": 60.0, "generate": 300.0, "calibrate": 600.0, "llm": 1800.0}
SAMPLES_PER_LEVEL = 3


def library_context(library: Library) -> Library:
    """What validating against ``library`` needs, small enough to hand to a worker with every job.

    A blueprint being validated is cross-checked against the library's
    skills (their levels and outcomes) and course specs; their source text
    and line index are left behind (they are only used to point at lines of
    the files themselves).
    """
    context = Library(exercise=False)
    context.skills = {k: _slim(v) for k, v in library.skills.items()}
    context.specs = {k: _slim(v) for k, v in library.specs.items()}
    return context


def _slim(loaded: LoadedBlueprint) -> LoadedBlueprint:
    return dataclasses.replace(loaded, text="", index=NodeIndex(None))


def _counted(progress: JobProgress, start: float, end: float, template: str):
    """An authoring progress(done, total) reported as the job's fraction between ``start`` and ``end``."""
    if progress is None:
        return None
    return lambda done, total: progress(start + (end - start) * (done / total if total else 1.0),
                                        template.format(done=done, total=total))


def validate(text: str, context: Library, progress: JobProgress = None):
    """``validate_text`` against the library context: (loaded or None, issues)."""
    if progress:
        progress(0.05, "Exercising every difficulty level…")
    return authoring.validate_text(text, context)


def check_blueprint(text: str, context: Library, seed: Any = 1, progress: JobProgress = None) -> dict:
    """Validate a blueprint and, for a valid skill, count each level's distinct items and draw sample items.

    Returns {text, seed, loaded, issues, sizes, samples, preview_error};
    ``samples`` maps each level to item dicts (as stored), ``preview_error``
    says why sizes or samples could not be had.
    """
    loaded, issues = validate(text, context, progress)
    out = {"text": text, "seed": seed, "loaded": loaded, "issues": issues, "sizes": None, "samples": None,
           "preview_error": None}
    if loaded is None or loaded.kind != "skill":
        return out
    try:
        out["sizes"] = authoring.variant_sizes(loaded, progress=_counted(progress, 0.5, 0.9, "Counted the distinct items of {done} of {total} levels…"))
        out["samples"] = sample_items(loaded, seed, progress)
    except authoring.AuthoringError as exc:
        out["preview_error"] = str(exc)
    return out


def sample_items(loaded: LoadedBlueprint, seed: Any, progress: JobProgress = None) -> dict[str, list[dict]]:
    """A few sample items per level of a valid skill, as item dicts; AuthoringError when a level cannot give them."""
    if progress:
        progress(0.9, "Drawing sample items…")
    return {level: [item.to_dict() for item in items]
            for level, items in authoring.preview(loaded, SAMPLES_PER_LEVEL, seed).items()}


def generate_items(skills: Iterable[LoadedBlueprint], plan: Iterable[PlanEntry], seed: Any,
                   progress: JobProgress = None) -> dict:
    """A plan's items generated from the given skills (nothing stored): what ``authoring.store_batches`` stores."""
    library = Library(exercise=False)
    for loaded in skills:
        library.add_loaded(loaded)
    return authoring.generate_batches(library, plan, seed, progress=_counted(progress, 0.0, 1.0, "Generated {done} of {total} items…"))


def calibration_responses(store: Store, class_code: Optional[str]) -> pd.DataFrame:
    """The responses a calibration of a class (or of everyone) reads."""
    return data.responses(store, class_code, columns=cal.COLUMNS)


def calibrate(frame: pd.DataFrame, model: str, unit_level: str, progress: JobProgress = None) -> cal.Calibration:
    if progress:
        progress(0.1, f"Calibrating {len(frame):,} answers…")
    return cal.calibrate(frame, model, unit_level)


def store_calibration(store: Store, result: cal.Calibration) -> tuple[cal.Calibration, str]:
    """A calibration stored as the newest run: (the calibration, its run id)."""
    return result, data.save_calibration(store, result.run_record(), result.parameters, result.abilities)


def llm_drafts(library: Library, store: Store, client: Any, plan: Iterable[PlanEntry], seed: Any,
               progress: JobProgress = None) -> dict:
    """``generate_llm_drafts`` with its progress reported as the job's (which stops it at its time limit)."""
    return authoring.generate_llm_drafts(library, store, client, plan, seed,
                                         progress=_counted(progress, 0.0, 1.0, "{done} of {total} items done…"))


def pipeline(client: Any, config: Any, progress: JobProgress = None):
    """``run_pipeline`` with its progress reported as the job's (which stops it at its time limit)."""
    from core.llm.pipeline import run_pipeline
    say = _counted(progress, 0.0, 1.0, "{done} of {total} questions done…")
    return run_pipeline(client, config, progress=(lambda done, total, _outcome: say(done, total)) if say else None)
