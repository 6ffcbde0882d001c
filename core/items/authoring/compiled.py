"""Skills compiled while validating, kept by text hash so previewing the same text does not compile it again."""
from __future__ import annotations

import collections
import threading

from core.blueprints.loader import LoadedBlueprint
from core.items.authoring.errors import AuthoringError
from core.items.authoring.kinds import _article
from core.items.generator import SkillGenerator

_GENERATORS: "collections.OrderedDict[str, SkillGenerator]" = collections.OrderedDict()
_SIZES: "collections.OrderedDict[str, list[dict]]" = collections.OrderedDict()
_GENERATOR_CACHE = 16
_cache_lock = threading.Lock()


def _remember(text_hash: str, gen: SkillGenerator) -> None:
    with _cache_lock:
        _GENERATORS[text_hash] = gen
        _GENERATORS.move_to_end(text_hash)
        while len(_GENERATORS) > _GENERATOR_CACHE:
            _GENERATORS.popitem(last=False)


def _generator(loaded: LoadedBlueprint) -> SkillGenerator:
    """The generator of a validated skill (reused from validation when possible)."""
    if loaded.kind != "skill":
        raise AuthoringError(f"{loaded.id} is {_article(loaded.kind)}, not a skill; only skills have sample items.")
    with _cache_lock:
        gen = _GENERATORS.get(loaded.hash)
    if gen is not None:
        return gen
    from core.blueprints.library import check_skill
    gen, issues = check_skill(loaded, exercise=False)
    if gen is None:
        raise AuthoringError(f"{loaded.id} does not compile; validate it first and fix the issues shown.")
    _remember(loaded.hash, gen)
    return gen
