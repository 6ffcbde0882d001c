"""QuestionSource: course specs, the question banks, blueprint generation, variants.

Every question, whatever its source, is an ``Item``: blueprint items come
from the generator, bank questions from the items table (source local, past
or us), variants from either. Answer keys stay inside ``core``.
"""
from __future__ import annotations

import copy
import hashlib
import random
import time
from typing import Any, Optional

from core.blueprints.library import Library, LibraryError
from core.blueprints.models import CourseSpec
from core.items.generator import Item, normalise_text
from core.items.sampler import GenerationError
from core.store import Store, repo, sessions

NAT5_PLUS = ("nat 5", "higher", "advanced higher")
LLM_HINT = "configure an LLM to generate questions for it, or add a skill blueprint or bank questions for it"


class NoQuestions(LookupError):
    """No source can supply a question for an outcome."""


def stem_key(item: Item) -> str:
    return hashlib.sha256(normalise_text(item.stem).encode()).hexdigest()[:20]


def level_is_nat5_plus(level: str) -> bool:
    return level.strip().lower() in NAT5_PLUS


class QuestionSource:
    """The seed's QuestionSource over the library and the database."""

    BANK_TTL_S = 30.0
    SEEN_TTL_S = 5.0

    def __init__(self, library: Library, store: Store, llm: Any = None):
        self.library = library
        self.store = store
        self.llm = llm  # a core.llm.assist.Assistant when an LLM is configured; None means offline
        # Only one process may open the database, so what this process wrote is all
        # there is; short lifetimes still cover a second runner in the same process.
        self._bank: dict[tuple[str, str], tuple[float, int, list[Item]]] = {}
        self._seen: dict[str, tuple[float, set[str], set[str]]] = {}

    def offline(self) -> "QuestionSource":
        """This source without the LLM (sharing its caches), for exams and evaluations."""
        if self.llm is None:
            return self
        view = copy.copy(self)
        view.llm = None
        return view

    # ------------------------------------------------------------------
    def bank(self, subject: str, level: str) -> list[Item]:
        key = (subject.lower(), level.lower())
        now = time.monotonic()
        cached = self._bank.get(key)
        if cached and cached[1] == repo.bank_generation() and now - cached[0] < self.BANK_TTL_S:
            return cached[2]
        items = repo.bank_items(self.store, subject, level)
        self._bank[key] = (now, repo.bank_generation(), items)
        return items

    def seen(self, student: str) -> tuple[set[str], set[str]]:
        """Content keys and stem keys (plus item ids) of everything the student has been shown."""
        now = time.monotonic()
        cached = self._seen.get(student)
        if cached and now - cached[0] < self.SEEN_TTL_S:
            return cached[1], cached[2]
        content, stems = sessions.seen_keys(self.store, student)
        self._seen[student] = (now, content, stems)
        return content, stems

    def note_seen(self, student: str, items: list[Item]) -> None:
        cached = self._seen.get(student)
        if cached:
            cached[1].update(it.content_key for it in items)
            cached[1].update(it.id for it in items)
            cached[2].update(stem_key(it) for it in items)

    def approved_candidates(self, subject: str, level: str, outcome_id: str, unseen_by: Optional[str] = None,
                            order_seed: str = "", limit: int = 20) -> list[Item]:
        """Teacher-approved questions (banks and reviewed drafts) for an outcome."""
        items = [it for it in repo.approved_items(self.store, subject, level) if outcome_id in it.outcome_ids]
        return self._unseen_in_order(items, unseen_by, order_seed, limit)

    def bank_candidates(self, subject: str, level: str, outcome_id: str, sources: tuple[str, ...],
                        unseen_by: Optional[str] = None, order_seed: str = "", limit: int = 20) -> list[Item]:
        if not level_is_nat5_plus(level):
            sources = tuple(s for s in sources if s == "local")
        # Approved questions imported from another system or written by the LLM pipeline are the centre's own:
        # they come with "local".
        items = [it for it in self.bank(subject, level)
                 if (it.source in sources or (it.source in ("import", "pipeline") and "local" in sources))
                 and outcome_id in it.outcome_ids]
        return self._unseen_in_order(items, unseen_by, order_seed, limit)

    def _unseen_in_order(self, items: list[Item], unseen_by: Optional[str], order_seed: str, limit: int) -> list[Item]:
        """Drop what the student has seen (by content, stem or id); a seeded order, so draws vary but repeat by seed."""
        if unseen_by is not None:
            content, stems = self.seen(unseen_by)
            items = [it for it in items if it.content_key not in content and it.id not in content
                     and stem_key(it) not in stems]
        items.sort(key=lambda it: hashlib.sha256(f"{it.id}|{order_seed}".encode()).digest())
        return items[:limit]

    # ------------------------------------------------------------------
    def spec(self, subject: str, level: str) -> CourseSpec:
        try:
            return self.library.spec(subject, level)
        except LibraryError as exc:
            raise NoQuestions(str(exc)) from None

    def get_sqa_spec(self, subject: str, level: str) -> dict:
        spec = self.spec(subject, level)
        return {
            "subject": spec.subject, "level": spec.level,
            "outcomes": [o.model_dump() for o in spec.outcomes],
            "assessment_structure": [s.model_dump() for s in spec.assessment_structure],
        }

    def get_local_questions(self, subject: str, level: str, outcome_id: str, limit: int = 5,
                            unseen_by: Optional[str] = None, order_seed: str = "") -> list[Item]:
        return self.bank_candidates(subject, level, outcome_id, ("local",), unseen_by, order_seed, limit)

    def get_us_or_past_questions(self, subject: str, level: str, outcome_id: str, limit: int = 5,
                                 unseen_by: Optional[str] = None, order_seed: str = "") -> list[Item]:
        if not level_is_nat5_plus(level):
            return []  # Understanding Standards and past papers exist from National 5 up
        return self.bank_candidates(subject, level, outcome_id, ("past", "us"), unseen_by, order_seed, limit)

    def blueprints_for(self, subject: str, level: str, outcome_id: str, calculator: Optional[bool] = None) -> list[str]:
        """Skill ids that generate for an outcome (optionally only those usable without a calculator)."""
        ids = []
        for bp in self.library.skills_for_outcome(subject, level, outcome_id):
            if calculator is False and bp.metadata.calculator == "required":
                continue
            ids.append(bp.skill_id)
        return ids

    def generate_question(self, subject: str, level: str, outcome_id: str, marks: Optional[int] = None,
                          seed: Any = 0, calculator: Optional[bool] = None, difficulty: Optional[str] = None,
                          avoid: Optional[set[str]] = None, tries: int = 12) -> Item:
        """A fresh item from one of the outcome's skill blueprints.

        With ``marks``, blueprints worth that many marks are preferred; with
        ``avoid`` (content keys), draws that repeat one are redrawn.
        """
        skills = self.blueprints_for(subject, level, outcome_id, calculator)
        if not skills:
            if self.llm is not None:
                return self.llm.generate_question(subject, level, outcome_id, marks or 4, seed=seed)
            raise NoQuestions(f"no question source covers outcome {outcome_id} ({subject} {level}): {LLM_HINT}")
        rng = random.Random(f"generate|{subject}|{level}|{outcome_id}|{seed}")
        if marks is not None:
            exact = [s for s in skills if self.library.generator(s).bp.evaluation.total_marks() == marks]
            skills = exact or skills
        last: Optional[Item] = None
        for attempt in range(tries):
            gen = self.library.generator(rng.choice(skills))
            level_name = difficulty if difficulty in gen.cs.levels else rng.choice(gen.cs.levels)
            try:
                item = gen.generate(level_name, f"{seed}/{attempt}")
            except GenerationError as exc:
                raise NoQuestions(f"outcome {outcome_id}: {exc}") from None
            last = item
            if not avoid or (item.content_key not in avoid and stem_key(item) not in avoid):
                return item
        assert last is not None
        return last

    def mutate_question(self, item: Item, n: int = 1, seed: Any = 0) -> Item:
        """A fresh variant: blueprint items are redrawn; bank items with a formula get new numbers."""
        if item.blueprint_id and item.blueprint_id in self.library.generators:
            gen = self.library.generator(item.blueprint_id)
            level = item.difficulty_level if item.difficulty_level in gen.cs.levels else gen.cs.levels[0]
            fresh = gen.generate(level, f"variant/{item.id}/{n}/{seed}")
            fresh.id = f"{item.id}_variant_{n}"
            fresh.source = "variant"
            return fresh
        from core.items.banks import mutate_bank_question
        variant = mutate_bank_question(item, n, seed)
        if variant is not None:
            return variant
        if self.llm is not None:
            return self.llm.mutate_question(item, n)
        raise NoQuestions(f"question {item.id} has no formula to draw new numbers from: {LLM_HINT}")
