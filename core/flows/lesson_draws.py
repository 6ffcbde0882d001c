"""Drawing a lesson card's question and its worked example from a skill generator.

A card's question avoids what the student has seen (a repeat only when every
redraw repeated something); its worked example is drawn from the same skill
and level and, where the skill's items differ in a worded parameter (a
sphere, a cone or a prism to find the volume of), shares the question's words,
so the example's steps are the ones the question needs.
"""
from __future__ import annotations

from typing import Optional

from core.flows.base import FlowError
from core.items.generator import Item, SkillGenerator
from core.items.sampler import GenerationError
from core.items.sources import stem_key

DRAW_TRIES = 12            # redraws before accepting an item the student has seen
EXAMPLE_TRIES = 10         # draws for a worked example of the same kind as the card's question


def draw(gen: SkillGenerator, level: str, seed: str, avoid: set[str]) -> Item:
    """An item of ``level`` whose content and stem are not in ``avoid``, or the last drawn if none is."""
    try:
        item = gen.generate(level, seed)
        for k in range(DRAW_TRIES):
            if item.content_key not in avoid and stem_key(item) not in avoid:
                return item
            item = gen.generate(level, f"{seed}/{k}")
    except GenerationError as exc:
        raise FlowError(f"could not make a question for {gen.bp.skill_id}: {exc}") from None
    return item  # every draw repeated something the student has seen; a repeat beats no lesson


def worked_example(gen: SkillGenerator, level: str, seed: str, avoid: set[str], question: Optional[Item]) -> Item:
    """A worked example for a card whose question is ``question`` (None for a question from elsewhere): the
    first draw, or among a few more the one sharing most of the question's worded parameter values."""
    example = draw(gen, level, seed, avoid)
    worded = {k: v for k, v in ((question.generation_params or {}) if question else {}).items()
              if isinstance(v, str)}
    if not worded:
        return example

    def shared(candidate: Item) -> int:
        theirs = candidate.generation_params or {}
        return sum(theirs.get(k) == v for k, v in worded.items())

    best = shared(example)
    for k in range(EXAMPLE_TRIES):
        if best == len(worded):
            break
        candidate = draw(gen, level, f"{seed}/like{k}", avoid)
        score = shared(candidate)
        if score > best and candidate.content_key not in avoid:
            example, best = candidate, score
    return example
