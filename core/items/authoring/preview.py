"""What a valid skill produces: sample items per level, and how many distinct items each level can give."""
from __future__ import annotations

from typing import Any

from core.blueprints.loader import LoadedBlueprint
from core.items.authoring.compiled import _GENERATOR_CACHE, _SIZES, _cache_lock, _generator
from core.items.authoring.errors import AuthoringError
from core.items.authoring.progress import Progress
from core.items.generator import Item
from core.items.sampler import GenerationError


def preview(loaded: LoadedBlueprint, n_per_level: int = 3, seed: Any = "preview") -> dict[str, list[Item]]:
    """A few sample items per difficulty level of a valid skill (the same items for the same seed)."""
    gen = _generator(loaded)
    out: dict[str, list[Item]] = {}
    for level in gen.cs.levels:
        try:
            out[level] = gen.batch(level, n_per_level, seed).items
        except GenerationError as exc:
            raise AuthoringError(f"{exc} (validate the blueprint to see where)") from None
    return out


def variant_sizes(loaded: LoadedBlueprint, progress: Progress = None) -> list[dict]:
    """How many distinct items each difficulty level of a skill can produce."""
    with _cache_lock:
        known = _SIZES.get(loaded.hash)
    if known is not None:
        if progress:
            progress(len(known), len(known))
        return [dict(r) for r in known]
    gen = _generator(loaded)
    levels = gen.cs.levels
    rows = []
    for k, level in enumerate(levels):
        try:
            v = gen.variants(level)
        except GenerationError as exc:
            raise AuthoringError(str(exc)) from None
        count = int(v["parameter_combinations"])
        rows.append({"level": level, "difficulty": loaded.model.generation.difficulty_levels[level].value,
                     "distinct_items": count, "exact": bool(v["exact"]),
                     "shown": f"{'' if v['exact'] else 'about '}{count:,}", "stem_wordings": v["stem_templates"]})
        if progress:
            progress(k + 1, len(levels))
    with _cache_lock:
        _SIZES[loaded.hash] = rows
        while len(_SIZES) > _GENERATOR_CACHE:
            _SIZES.popitem(last=False)
    return [dict(r) for r in rows]
