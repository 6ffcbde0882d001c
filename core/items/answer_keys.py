"""Whether an item's answer key is sound: the check every path into "approved" makes.

Two questions are asked of a key. Can the marker read it, and does it mark
itself right (``core.marking.item_key_problem``)? No confirmation overrides a
no. And, for an item generated from a skill blueprint, is it equal in value to
what the blueprint computes for the item's parameters? A key that differs is
kept only with the teacher's explicit confirmation and a reason, which go into
the item's history (``KEPT_KEY`` in its changes).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Optional, Union

from core.items.generator import Item, SkillGenerator, normalise_text
from core.items.sampler import GenerationError
from core.marking import MarkingSpec, MarkingSpecError, item_key_problem, mark_answer
from core.store import Store, repo

# The history entry of a kept key: changes[KEPT_KEY] = {"from": the blueprint's key, "to": the key kept}.
KEPT_KEY = "blueprint_key"


def as_item(item_or_row: Union[Item, dict]) -> Item:
    """An Item from an Item or an items-table row (as ``repo.get_item`` returns it)."""
    return item_or_row if isinstance(item_or_row, Item) else repo.row_to_item(item_or_row)


def key_problem(item_or_row: Union[Item, dict]) -> Optional[str]:
    """None when the marker reads the item's key and marks it right, else one sentence saying why not."""
    problem = item_key_problem(as_item(item_or_row))
    return problem.rstrip(".") if problem is not None else None


@dataclasses.dataclass
class KeyDifference:
    """A blueprint item's key that is not what its blueprint computes (or that it cannot recompute)."""

    key: str
    blueprint_key: Optional[str]   # None when the blueprint cannot compute one for the item
    message: str


class Blueprints:
    """The skill generators that made items, by blueprint id and hash, found once per check.

    The version that made an item comes first: the library's when it holds that
    version, else the version stored in the database; the library's current
    version only when neither is there.
    """

    def __init__(self, store: Store, library: Any = None):
        self.store = store
        self.library = library
        self._found: dict[tuple[str, str], Optional[SkillGenerator]] = {}

    def generator(self, item: Item) -> Optional[SkillGenerator]:
        ident = (item.blueprint_id, item.blueprint_hash or "")
        if ident not in self._found:
            self._found[ident] = self._find(*ident)
        return self._found[ident]

    def _find(self, blueprint_id: str, blueprint_hash: str) -> Optional[SkillGenerator]:
        current = (getattr(self.library, "generators", None) or {}).get(blueprint_id)
        if current is not None and blueprint_hash and current.cs.hash == blueprint_hash:
            return current
        text = repo.blueprint_text(self.store, blueprint_id, blueprint_hash) if blueprint_hash else None
        if text:
            from core.blueprints.library import check_skill
            from core.blueprints.loader import BlueprintError, parse_text
            try:
                gen, _ = check_skill(parse_text(text, f"{blueprint_id} (stored version)", "skill"), exercise=False)
            except BlueprintError:
                gen = None
            if gen is not None:
                return gen
        return current

    def difference(self, item: Item) -> Optional[KeyDifference]:
        """None when the item has no blueprint or its key equals, in value, what the blueprint computes."""
        if not item.blueprint_id:
            return None
        key = item.correct_answer
        gen = self.generator(item)
        if gen is None:
            return KeyDifference(key, None, f"The blueprint {item.blueprint_id} that made this item is in neither the "
                                             f"library nor the database, so the key {key} cannot be checked against it.")
        try:
            computed = gen.key_for(item.generation_params or {})
        except GenerationError as exc:
            return KeyDifference(key, None, f"The blueprint cannot recompute the key for this item's parameters "
                                             f"({exc}), so the key {key} cannot be checked against it.")
        if same_value(item, computed, key):
            return None
        return KeyDifference(key, computed, f"The key {key} is not what the blueprint computes for these "
                                            f"parameters ({computed}).")


def same_value(item: Item, blueprint_key: str, key: str) -> bool:
    """Whether ``key`` marks right against the item's marking with the blueprint's key in place of its own.

    For a multiple-choice item the key is compared as text under the blueprint's
    method (options aside), since the blueprint's key need not be among edited options.
    """
    d = item.to_dict()
    d["correct_answer"] = blueprint_key
    if d.get("options"):
        d["options"], d["correct_index"] = [], None
        evaluation = dict(d.get("evaluation") or {})
        if evaluation.get("method") in (None, "mcq"):
            evaluation["method"] = "exact_match"
        d["evaluation"] = evaluation
    try:
        spec = MarkingSpec.from_item(d)
    except MarkingSpecError:
        return normalise_text(key) == normalise_text(blueprint_key)
    return mark_answer(spec, key).correct


def kept_before(history: list[dict], difference: KeyDifference) -> bool:
    """Whether the teacher already confirmed keeping this key instead of this blueprint key."""
    for row in history:
        kept = (row.get("changes") or {}).get(KEPT_KEY)
        if kept and kept.get("to") == difference.key and kept.get("from") == difference.blueprint_key:
            return True
    return False
