"""Planning a batch: how many items of which skill at which level, from skills or outcomes and a difficulty mix."""
from __future__ import annotations

import math
import random
from typing import Any, Iterable

from core.blueprints.library import Library, LibraryError
from core.items.authoring.errors import AuthoringError

MAX_PLAN_ITEMS = 1000
PlanEntry = tuple[str, str, int]


def courses(library: Library) -> list[dict]:
    """The courses with a spec: subject, level, title, spec_id."""
    return library.courses()


def outcomes(library: Library, subject: str, level: str) -> list[dict]:
    """A course's outcomes with how many skill blueprints cover each."""
    try:
        spec = library.spec(subject, level)
    except LibraryError as exc:
        raise AuthoringError(f"{exc}.") from None
    return [{"id": o.id, "label": o.label, "skills": len(library.skills_for_outcome(subject, level, o.id))}
            for o in spec.outcomes]


def levels_for(library: Library, skill_ids: Iterable[str]) -> list[str]:
    """The difficulty levels the skills have, easiest first (by their mean difficulty value)."""
    values: dict[str, list[float]] = {}
    for sid in skill_ids:
        loaded = library.skills.get(sid)
        if loaded is None:
            continue
        for level, spec in loaded.model.generation.difficulty_levels.items():
            values.setdefault(level, []).append(spec.value)
    return sorted(values, key=lambda lvl: (sum(values[lvl]) / len(values[lvl]), lvl))


def _apportion(total: int, weights: dict[str, float], order: list[str]) -> dict[str, int]:
    """Split ``total`` by ``weights`` (largest remainder; ties go to the earlier key in ``order``)."""
    weights = {k: w for k, w in weights.items() if w > 0}
    if not weights or total <= 0:
        return {}
    s = sum(weights.values())
    raw = {k: total * w / s for k, w in weights.items()}
    out = {k: int(math.floor(v + 1e-9)) for k, v in raw.items()}
    left = total - sum(out.values())
    rank = sorted(weights, key=lambda k: (-round(raw[k] - out[k], 9), order.index(k)))
    for k in rank[:left]:
        out[k] += 1
    return {k: n for k, n in out.items() if n > 0}


def _check_request(difficulty_mix: dict[str, float], count: int) -> dict[str, float]:
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_PLAN_ITEMS:
        raise AuthoringError(f"Ask for between 1 and {MAX_PLAN_ITEMS} items.")
    mix = {}
    for level, share in (difficulty_mix or {}).items():
        try:
            share = float(share)
        except (TypeError, ValueError):
            raise AuthoringError(f"The share for '{level}' must be a number, for example 30.") from None
        if share < 0 or not math.isfinite(share):
            raise AuthoringError(f"The share for '{level}' must be zero or more.")
        if share > 0:
            mix[level] = share
    if not mix:
        raise AuthoringError("Give at least one difficulty level a share above zero.")
    return mix


def _plan(library: Library, weights: dict[str, float], difficulty_mix: dict[str, float], count: int,
          seed: Any) -> list[PlanEntry]:
    mix = _check_request(difficulty_mix, count)
    order = list(mix)
    plan: list[PlanEntry] = []
    for level, level_count in _apportion(count, mix, order).items():
        candidates = {sid: w for sid, w in weights.items()
                      if level in library.skills[sid].model.generation.difficulty_levels}
        if not candidates:
            have = ", ".join(levels_for(library, weights)) or "none"
            raise AuthoringError(f"None of the chosen skills has a '{level}' level (they have: {have}); "
                                 f"set its share to 0.")
        tie_order = sorted(candidates)
        random.Random(f"plan|{seed}|{level}").shuffle(tie_order)
        for sid, n in sorted(_apportion(level_count, candidates, tie_order).items()):
            plan.append((sid, level, n))
    return sorted(plan, key=lambda e: (e[0], order.index(e[1])))


def _known_skills(library: Library, skill_ids: Iterable[str]) -> list[str]:
    ids = list(dict.fromkeys(skill_ids or []))
    if not ids:
        raise AuthoringError("Choose at least one skill.")
    for sid in ids:
        if sid not in library.generators:
            try:
                library.generator(sid)
            except LibraryError as exc:
                raise AuthoringError(f"{exc}.") from None
    return ids


def plan_for_skills(library: Library, skill_ids: Iterable[str], difficulty_mix: dict[str, float], count: int,
                    seed: Any = 1) -> list[PlanEntry]:
    """``count`` items in total, shared evenly across the skills and by ``difficulty_mix`` across levels."""
    ids = _known_skills(library, skill_ids)
    return _plan(library, {sid: 1.0 for sid in ids}, difficulty_mix, count, seed)


def plan_for_outcomes(library: Library, subject: str, level: str, outcome_ids: Iterable[str],
                      difficulty_mix: dict[str, float], count: int, seed: Any = 1) -> list[PlanEntry]:
    """``count`` items in total, shared evenly across the outcomes (then across each outcome's skills)
    and by ``difficulty_mix`` across levels."""
    chosen = list(dict.fromkeys(outcome_ids or []))
    if not chosen:
        raise AuthoringError("Choose at least one outcome.")
    known = {o["id"]: o for o in outcomes(library, subject, level)}
    weights: dict[str, float] = {}
    for oid in chosen:
        if oid not in known:
            raise AuthoringError(f"Outcome '{oid}' is not in the {subject} {level} course spec; choose one from the list.")
        skills = [s.skill_id for s in library.skills_for_outcome(subject, level, oid)]
        if not skills:
            raise AuthoringError(f"No skill blueprint covers outcome '{oid}' yet; remove it or write a blueprint for it.")
        for sid in skills:
            weights[sid] = weights.get(sid, 0.0) + 1.0 / len(skills)
    return _plan(library, weights, difficulty_mix, count, seed)
