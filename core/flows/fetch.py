"""SG_FetchQuestion: pick an outcome, collect candidates, prefer what the student has not seen.

Routing, as in the seed, with one change: skill blueprints give unlimited
fresh items, so when every bank question for an outcome has been seen, a
fresh blueprint item comes before a variant of a seen bank question.
1. ensure_outcome: the target, or a weighted choice over the course's
   outcomes that skips the last few practised and falls back to the least used;
   outcomes nothing can supply are skipped.
2. collect_candidates: unseen local questions; from National 5 up, unseen past
   paper and Understanding Standards questions too.
3. apply_novelty: the first unseen candidate; else a fresh blueprint item the
   student has not seen; else a variant of a seen bank question; else the LLM
   (when configured); else a clear error naming the outcome.
"""
from __future__ import annotations

import dataclasses
import random
from typing import Any, Optional

from core.items.generator import Item
from core.items.sources import NoQuestions, QuestionSource, stem_key
from core.store import sessions

AVOID_LAST = 2


@dataclasses.dataclass
class Fetched:
    item: Item
    outcome_id: str
    route: str          # local | past | generated | variant | llm


def choose_outcome(outcomes: list, recent: list[str], counts: dict[str, int], rng: random.Random,
                   avoid_last: int = AVOID_LAST) -> str:
    """Weighted choice that avoids the last few outcomes; least used when all are recent."""
    if not outcomes:
        raise NoQuestions("the course spec has no outcomes that any source can supply")
    n_avoid = min(avoid_last, len(outcomes) - 1)
    recent_set = set(recent[:n_avoid])
    pool = [o for o in outcomes if o.id not in recent_set]
    if not pool:
        return min(outcomes, key=lambda o: (counts.get(o.id, 0), o.id)).id
    total = sum(o.weight for o in pool)
    pick = rng.random() * total
    for o in pool:
        pick -= o.weight
        if pick <= 0:
            return o.id
    return pool[-1].id


def suppliable_outcomes(source: QuestionSource, subject: str, level: str, calculator: Optional[bool] = None,
                        approved_only: bool = False) -> list:
    spec = source.spec(subject, level)
    out = []
    for o in spec.outcomes:
        if approved_only:
            if source.approved_candidates(subject, level, o.id, limit=1):
                out.append(o)
            continue
        if source.blueprints_for(subject, level, o.id, calculator) or source.llm is not None:
            out.append(o)
        elif source.get_local_questions(subject, level, o.id, 1) or source.get_us_or_past_questions(subject, level, o.id, 1):
            out.append(o)
    return out


def _first_usable(items: list[Item], calculator: Optional[bool], marks: Optional[int], avoid: set[str]) -> Optional[Item]:
    """The first candidate that fits the paper (calculator, marks) and repeats nothing."""
    for item in items:
        if calculator is False and item.calculator == "required":
            continue
        if marks is not None and item.marks != marks:
            continue
        if item.content_key not in avoid and stem_key(item) not in avoid:
            return item
    return None


def fetch_question(source: QuestionSource, student: str, subject: str, level: str, seed: Any,
                   target_outcome: Optional[str] = None, avoid: Optional[set[str]] = None,
                   calculator: Optional[bool] = None, marks: Optional[int] = None,
                   difficulty: Optional[str] = None, approved_only: bool = False) -> Fetched:
    """One question for a student, unseen wherever possible.

    ``avoid`` holds content and stem keys already used in this session but not
    yet recorded as seen (an exam fills all its slots before it is stored).
    """
    rng = random.Random(f"fetch|{student}|{subject}|{level}|{seed}")
    avoid = set(avoid or ())
    seen_content, seen_stems = source.seen(student)
    avoid |= seen_content | seen_stems

    outcome = target_outcome
    if outcome is None:
        options = suppliable_outcomes(source, subject, level, calculator, approved_only)
        outcome = choose_outcome(options, sessions.recent_outcomes(source.store, student),
                                 sessions.outcome_counts(source.store, student), rng)
    else:
        known = {o.id for o in source.spec(subject, level).outcomes}
        if outcome not in known:
            raise NoQuestions(f"outcome {outcome} is not in the {subject} {level} course spec; "
                              f"outcomes: {', '.join(sorted(known))}")

    order = f"{student}|{seed}"
    if approved_only:
        # The class receives teacher-approved questions only: no live generation, no variants.
        item = _first_usable(source.approved_candidates(subject, level, outcome, unseen_by=student, order_seed=order),
                             calculator, marks, avoid)
        if item is not None:
            return Fetched(item, outcome, item.source)
        raise NoQuestions(f"no approved question left for outcome {outcome} ({subject} {level}) that this student "
                          f"has not seen: ask the teacher to approve more on the Review page")
    candidates = source.get_local_questions(subject, level, outcome, 10, unseen_by=student, order_seed=order)
    candidates += source.get_us_or_past_questions(subject, level, outcome, 10, unseen_by=student, order_seed=order)
    item = _first_usable(candidates, calculator, marks, avoid)
    if item is not None:
        return Fetched(item, outcome, item.source)

    if source.blueprints_for(subject, level, outcome, calculator):
        item = source.generate_question(subject, level, outcome, marks=marks, seed=f"{student}|{seed}",
                                        calculator=calculator, difficulty=difficulty, avoid=avoid)
        if item.content_key not in avoid and stem_key(item) not in avoid:
            return Fetched(item, outcome, "generated")

    used = source.get_local_questions(subject, level, outcome, 10, order_seed=order)
    used += source.get_us_or_past_questions(subject, level, outcome, 10, order_seed=order)
    for n, item in enumerate(used, 1):
        if (marks is not None and item.marks != marks) or (calculator is False and item.calculator == "required"):
            continue
        try:
            variant = source.mutate_question(item, n, seed=f"{student}|{seed}")
        except NoQuestions:
            continue
        if variant.content_key not in avoid:
            return Fetched(variant, outcome, "variant")

    if source.blueprints_for(subject, level, outcome, calculator):
        # Every draw repeated something: the blueprint space is used up for this
        # student; a repeat beats stopping the session.
        item = source.generate_question(subject, level, outcome, marks=marks, seed=f"{student}|{seed}|repeat",
                                        calculator=calculator, difficulty=difficulty)
        return Fetched(item, outcome, "generated")
    if source.llm is not None:
        return Fetched(source.llm.generate_question(subject, level, outcome, marks or 4, seed=f"{student}|{seed}"),
                       outcome, "llm")
    raise NoQuestions(f"no unseen question for outcome {outcome} ({subject} {level}) and nothing to vary: "
                      f"add bank questions or a skill blueprint for it, or configure an LLM")
