"""What an exam paper can hold: the questions a student (or a class paper) can still be given.

* one-off questions (bank questions, or approved questions for a class that
  gets approved questions only) the student has not seen, each usable once in
  the whole exam;
* skill blueprints, which give fresh questions without limit.

Each is an ``Offer`` under one outcome of a section, with its skill (the topic
the per-paper cap counts) and the area of the course it belongs to. In a
section without a calculator nothing that needs one is offered, and a
calculator-optional question only when its numbers can be worked by hand.
"""
from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction
from typing import Optional

from core.items.generator import Item
from core.items.sources import QuestionSource, stem_key

MAX_FRACTION_DENOMINATOR = 20
MAX_DECIMAL_PLACES = 2
MAX_SIGNIFICANT_DIGITS = 7
_NUMBER = re.compile(r"\d+(?:\.\d+)?(?:/\d+)?")
_ROUNDING_ASKED = re.compile(r"correct to|decimal place|significant figure|to the nearest|\bd\.p\.|\bs\.f\.|\bround",
                             re.IGNORECASE)


def topic_of(item: Item) -> str:
    """The skill a question practises: its blueprint, the skill a bank question names, or (neither) itself."""
    if item.blueprint_id:
        return item.blueprint_id
    if item.skill_ids:
        return item.skill_ids[0]
    return f"question:{item.id}"


def by_hand(item: Item) -> bool:
    """Whether a question's numbers can be worked without a calculator.

    Its answer must be whole numbers, decimals of at most two places or
    fractions with small denominators (surds and powers of ten are fine), and a
    question that asks for rounding must come out whole: a rounded answer is
    one a calculator was needed for.
    """
    text = (item.correct_answer or "").replace(",", "")
    rounding = bool(_ROUNDING_ASKED.search(item.stem or ""))
    for number in _NUMBER.findall(text):
        if "/" in number:
            num, den = number.split("/")
            if "." in num or int(den) == 0 or Fraction(int(num), int(den)).denominator > MAX_FRACTION_DENOMINATOR:
                return False
            continue
        whole, _, decimals = number.partition(".")
        if len(decimals.rstrip("0")) > MAX_DECIMAL_PLACES:
            return False
        if len((whole + decimals).lstrip("0").rstrip("0")) > MAX_SIGNIFICANT_DIGITS:
            return False
        if rounding and decimals.rstrip("0"):
            return False
    return True


def _fits(item: Item, calculator: bool) -> bool:
    """Whether a one-off question may go in a section with (or without) a calculator."""
    if calculator:
        return True
    if item.calculator == "required":
        return False
    return item.calculator != "optional" or by_hand(item)


def one_off_questions(source: QuestionSource, subject: str, level: str, outcome_id: str, student: str,
                      approved_only: bool = False) -> list[Item]:
    """The one-off questions for an outcome this student (or paper key) has not been given, in a seeded order."""
    order = f"{student}|exam"
    if approved_only:
        return source.approved_candidates(subject, level, outcome_id, unseen_by=student, order_seed=order,
                                          limit=100_000)
    return (source.get_local_questions(subject, level, outcome_id, 100_000, unseen_by=student, order_seed=order)
            + source.get_us_or_past_questions(subject, level, outcome_id, 100_000, unseen_by=student,
                                              order_seed=order))


def available_marks(source: QuestionSource, subject: str, level: str, outcome_id: str, calculator: bool,
                    approved_only: bool = False, student: Optional[str] = None) -> dict[int, float]:
    """How many questions of each marks value an outcome can still supply (blueprints: without limit).

    With ``student``, only the one-off questions that student (or paper key) has not been given count.
    """
    supply: dict[int, float] = {}
    if not approved_only:
        for skill in source.blueprints_for(subject, level, outcome_id, calculator):
            supply[source.library.generator(skill).bp.evaluation.total_marks()] = math.inf
    if student is not None:
        items = one_off_questions(source, subject, level, outcome_id, student, approved_only)
    elif approved_only:
        items = source.approved_candidates(subject, level, outcome_id, limit=100_000)
    else:
        items = (source.get_local_questions(subject, level, outcome_id, 100_000)
                 + source.get_us_or_past_questions(subject, level, outcome_id, 100_000))
    for item in items:
        if _fits(item, calculator):
            supply[item.marks] = supply.get(item.marks, 0) + 1
    return supply


@dataclasses.dataclass
class Offer:
    """What can fill a slot: a one-off question (used at most once in an exam) or a skill blueprint (without limit).

    ``area`` is the part of the course its skill belongs to (its blueprint's subdomain: "Trigonometric
    skills", "Statistical skills" ...) where that is known, so a paper can ask every area, not just every outcome.
    """
    topic: str
    outcome_id: str
    marks: int
    item: Optional[Item] = None
    skill_id: Optional[str] = None
    area: Optional[str] = None

    @property
    def keys(self) -> set[str]:
        return {self.item.id, self.item.content_key, stem_key(self.item)} if self.item is not None else set()


def section_offers(source: QuestionSource, subject: str, level: str, outcome_ids: list[str], calculator: bool,
                   student: str, approved_only: bool, item_types: Optional[list[str]] = None) -> list[Offer]:
    """Everything that may fill a slot of a section, one offer per question or skill, each under one outcome
    (only questions of ``item_types`` when the section names them: a multiple-choice paper)."""
    def area(outcome: str, skill: str) -> Optional[str]:
        gen = source.library.generators.get(skill)
        sub = gen.bp.metadata.subdomain if gen is not None else None
        return f"{outcome}: {sub}" if sub else None

    offers: list[Offer] = []
    skills_seen: set[str] = set()
    items_seen: set[str] = set()
    for outcome in outcome_ids:
        if not approved_only:
            for skill in source.blueprints_for(subject, level, outcome, calculator):
                if skill in skills_seen:
                    continue   # a skill on two outcomes is offered under the first
                bp = source.library.generator(skill).bp
                if item_types and bp.generation.item_type not in item_types:
                    continue
                skills_seen.add(skill)
                marks = bp.evaluation.total_marks()
                offers.append(Offer(skill, outcome, marks, skill_id=skill, area=area(outcome, skill)))
        for item in one_off_questions(source, subject, level, outcome, student, approved_only):
            if item.id in items_seen or item.marks < 1 or not _fits(item, calculator) or \
                    (item_types and item.item_type not in item_types):
                continue
            items_seen.add(item.id)
            topic = topic_of(item)
            offers.append(Offer(topic, outcome, item.marks, item=item, area=area(outcome, topic)))
    return offers
