"""Planning and filling a mock-exam paper from a course spec (build_blueprint, fill_slots).

A paper is planned before a single question is drawn, from what this student
(or, for a class paper, the paper key) can still be given (``exam_supply``):
one-off questions the student has not seen, each usable once in the whole
exam, so two papers never count on the same question, and skill blueprints,
which give fresh questions without limit.

Each section's marks are split into slots that add up exactly, each slot a
question of exactly its marks: on one skill (topic) at most ``max_per_topic``
questions per section; every outcome of the section asked, and within it every
area its skills belong to (trigonometry and statistics, say), wherever that can
still add up; and in a section without a calculator nothing that needs one. A section that no choice of questions can fill exactly is an error
naming the section and what to add; no question's marks are ever rescaled.

Filling then takes each planned one-off question as it is and draws each
blueprint slot from its skill, with novelty for the student; in a section
without a calculator, a draw from a calculator-optional skill whose numbers
cannot be worked by hand is drawn again with another seed. Questions on the
same skill in a section are printed together, easier first, as parts (a), (b)
... of one numbered question.
"""
from __future__ import annotations

import dataclasses
import random
from typing import Any, Callable, Optional

from core.blueprints.models.course import FULL_FORMAT
from core.exams.typeset import duration
from core.flows.exam_supply import (Offer, available_marks, by_hand, one_off_questions,  # noqa: F401
                                    section_offers, topic_of)
from core.items.generator import Item
from core.items.sampler import GenerationError
from core.items.sources import NoQuestions, QuestionSource, stem_key

Progress = Optional[Callable[[int, int], None]]

FILL_DRAWS = 40              # draws of one blueprint slot before settling for a repeat
# Draws of a slot whose skill already settled for a repeat in this paper: the student has seen (nearly) all it
# makes, and forty draws more per slot made a keen student's paper ten times the work.
SPENT_DRAWS = 4
MAX_COVERAGE_OUTCOMES = 6    # beyond this many outcomes, asking each is best effort (the check grows as 2^n)


# --------------------------------------------------------------------------
# Planning: which questions, worth what, add up to each section's marks


def _bits(mask: int) -> list[int]:
    out, k = [], 0
    while mask:
        if mask & 1:
            out.append(k)
        mask >>= 1
        k += 1
    return out


def _spread(bits: int, step: int, times: int) -> int:
    """``bits`` OR-ed with itself shifted by step, 2·step, ... times·step (in about log2(times) shifts)."""
    out, span = bits, 1               # out covers the shifts j·step for 0 <= j < span
    while span * 2 <= times + 1:
        out |= out << (span * step)
        span *= 2
    if span < times + 1:
        out |= out << ((times + 1 - span) * step)
    return out


def _topic_sums(offers: list[Offer], room: int, limit: int) -> int:
    """The totals (as a bitset, 0 included) that up to ``room`` of a topic's offers can make, up to ``limit``.

    A blueprint offer may be taken again and again, a one-off question once.
    """
    full = (1 << (limit + 1)) - 1
    room = min(room, limit // min((o.marks for o in offers), default=limit + 1))
    items = [o.marks for o in offers if o.item is not None]
    repeatable = [o.marks for o in offers if o.item is None]
    if len(repeatable) > 1:           # a topic is one skill, so this is rare: treat copies as pieces
        items += [m for m in repeatable for _ in range(min(room, limit // m))]
        repeatable = []
    by_count = [1] + [0] * min(room, len(items))    # by_count[k]: totals of exactly k one-off questions
    for marks in items:
        for k in range(len(by_count) - 1, 0, -1):
            by_count[k] |= (by_count[k - 1] << marks) & full
    total = 0
    for k, sums in enumerate(by_count):
        if sums and repeatable:
            m = repeatable[0]
            sums = _spread(sums, m, min(room - k, limit // m)) & full
        total |= sums
    return total


class _SectionPlan:
    """The state of one section's planning: what each topic has left and which outcomes are still to be asked."""

    def __init__(self, total: int, offers: list[Offer], cap: int, taken: set[str]):
        self.total = total
        self.cap = cap
        self.taken = taken                # keys of one-off questions already in the exam
        self.topics: dict[str, list[Offer]] = {}
        self.outcome_of: dict[str, str] = {}
        for offer in offers:
            self.topics.setdefault(offer.topic, []).append(offer)
            self.outcome_of.setdefault(offer.topic, offer.outcome_id)
        self.used: dict[str, int] = {t: 0 for t in self.topics}
        self.group_of: dict[str, Optional[str]] = dict(self.outcome_of)   # what asking a topic covers
        self._sums: dict[tuple, int] = {}

    def sums(self, topic: str, room: int) -> int:
        """What ``room`` more questions on a topic can add (bitset, 0 included), up to the section's marks."""
        live = self.live(topic)
        key = (topic, room, tuple(o.item.id for o in live if o.item is not None))
        if key not in self._sums:
            self._sums[key] = _topic_sums(live, room, self.total)
        return self._sums[key]

    def cover_by(self, key: Callable[[Offer], Optional[str]]) -> list[str]:
        """Judge coverage by ``key`` (an offer's outcome, or its area); the groups there are to cover."""
        self.group_of = {t: key(offers[0]) for t, offers in self.topics.items()}
        return [g for g in dict.fromkeys(self.group_of.values()) if g is not None]

    def live(self, topic: str) -> list[Offer]:
        return [o for o in self.topics[topic] if o.item is None or not (o.keys & self.taken)]

    def feasible(self, remaining: int, uncovered: list[str]) -> bool:
        """Whether what is left can make ``remaining`` marks exactly, asking every outcome in ``uncovered``."""
        if remaining < 0:
            return False
        full = (1 << (remaining + 1)) - 1
        index = {o: k for k, o in enumerate(uncovered)}
        reach = {0: 1}                    # covered outcomes (bitmask) -> reachable totals (bitset)
        for topic in self.topics:
            room = self.cap - self.used[topic]
            if room <= 0:
                continue
            sums = self.sums(topic, room) & full & ~1
            if not sums:
                continue
            group = self.group_of[topic]
            bit = 1 << index[group] if group in index else 0
            shifts = _bits(sums)
            nxt = dict(reach)
            for mask, totals in reach.items():
                grown = 0
                for s in shifts:
                    grown |= totals << s
                grown &= full
                if grown:
                    nxt[mask | bit] = nxt.get(mask | bit, 0) | grown
            reach = nxt
        goal = (1 << len(uncovered)) - 1
        return bool(reach.get(goal, 0) >> remaining & 1)

    def most(self) -> int:
        """The most marks what is left could hold, at most ``cap`` questions a topic."""
        best = 0
        for topic in self.topics:
            room = self.cap - self.used[topic]
            if room > 0:
                sums = _topic_sums(self.live(topic), room, 10 * self.total)
                best += max(_bits(sums) or [0])
        return best


def _weighted_order(cands: list[tuple[Offer, float]], rng: random.Random) -> list[Offer]:
    """The candidates in a random order where heavier ones tend to come first (weighted sampling without replacement)."""
    keyed = [(rng.random() ** (1.0 / w), n, offer) for n, (offer, w) in enumerate(cands)]
    keyed.sort(key=lambda k: (-k[0], k[1]))
    return [offer for _, _, offer in keyed]


def plan_section(total: int, offers: list[Offer], rng: random.Random, cap: int = 2,
                 taken: Optional[set[str]] = None, section: str = "the section",
                 approved_only: bool = False) -> tuple[list[Offer], list[str]]:
    """Split a section's marks into slots (offers) that add up exactly; (slots, outcomes left unasked).

    Outcomes take turns, an outcome not yet asked first; each slot takes a
    topic with room left (a topic not yet in the section is preferred, and
    smaller questions are more common, as in a real paper), and only if the
    rest can still be made up exactly while asking every outcome (a
    subset-sum table over what is left says so). One-off questions taken are
    added to ``taken`` so a later section cannot take them again. Raises
    NoQuestions, saying what to add, when no choice adds up exactly.
    """
    taken = taken if taken is not None else set()
    plan = _SectionPlan(total, offers, cap, taken)
    outcomes = list(dict.fromkeys(o.outcome_id for o in offers))
    if not outcomes:
        raise NoQuestions(f"{section}: nothing can supply a question for it")
    # Ask every area of the course (trigonometry and statistics, say, within one outcome) if that still adds
    # up; else every outcome; else whatever adds up.
    with_areas = {o.outcome_id for o in offers if o.area}
    tiers = [lambda o: o.area if o.outcome_id in with_areas else o.outcome_id, lambda o: o.outcome_id, None]
    for key in tiers:
        uncovered = plan.cover_by(key) if key is not None else []
        if len(uncovered) <= MAX_COVERAGE_OUTCOMES and plan.feasible(total, uncovered):
            break
    else:
        raise NoQuestions(_why_not(plan, offers, section, approved_only))
    order = list(outcomes)
    rng.shuffle(order)
    slots: list[Offer] = []
    remaining = total
    turn = 0
    while remaining > 0:
        queue = [order[(turn + k) % len(order)] for k in range(len(order))]
        pending = {plan.outcome_of[t] for t, g in plan.group_of.items() if g in uncovered}
        queue.sort(key=lambda o: o not in pending)       # stable: outcomes with an area not yet asked first
        for outcome in queue:
            cands = []
            for topic in plan.topics:
                if plan.outcome_of[topic] != outcome or plan.used[topic] >= cap:
                    continue
                for offer in plan.live(topic):
                    if offer.marks <= remaining:
                        weight = (1.0 / offer.marks) * (3.0 if plan.used[topic] == 0 else 1.0) \
                            * (2.0 if offer.item is not None else 1.0)
                        cands.append((offer, weight))
            chosen = None
            for offer in _weighted_order(cands, rng):
                rest = [g for g in uncovered if g != plan.group_of[offer.topic]]
                plan.used[offer.topic] += 1
                taken |= offer.keys
                if plan.feasible(remaining - offer.marks, rest):
                    chosen = offer
                    break
                plan.used[offer.topic] -= 1
                taken -= offer.keys
            if chosen is not None:
                slots.append(chosen)
                remaining -= chosen.marks
                uncovered = [g for g in uncovered if g != plan.group_of[chosen.topic]]
                turn = (order.index(outcome) + 1) % len(order)
                break
        else:  # pragma: no cover - the feasibility table guarantees some outcome fits
            raise NoQuestions(_why_not(plan, offers, section, approved_only))
    asked = {s.outcome_id for s in slots}
    return slots, [o for o in outcomes if o not in asked]


def _why_not(plan: _SectionPlan, offers: list[Offer], section: str, approved_only: bool = False) -> str:
    """Why a section cannot be filled exactly, and what would make it possible."""
    outcomes = ", ".join(dict.fromkeys(o.outcome_id for o in offers))
    cap = plan.cap
    most = plan.most()
    if approved_only:
        short = (f"add up to at most {most} of its {plan.total} marks" if most < plan.total
                 else f"cannot add up to exactly {plan.total} marks")
        return (f"{section}: the approved questions not yet given (at most {cap} a skill) {short}; approve more "
                f"for {outcomes} on the Review page")
    if most < plan.total:
        return (f"{section}: the questions available add up to at most {most} of its {plan.total} marks "
                f"(at most {cap} question(s) a skill); add skill blueprints or bank questions for {outcomes}, "
                f"or raise max_per_topic in the course spec")
    values = sorted({o.marks for o in offers})
    helps = [m for m in range(1, 7) if _helps(plan, offers, m)]
    add = (f"add a skill blueprint or bank questions worth {' or '.join(map(str, helps))} mark(s) for {outcomes}"
           if helps else f"add skill blueprints or bank questions with other marks for {outcomes}")
    return (f"{section}: no choice of the questions available (worth {', '.join(map(str, values))} marks, at most "
            f"{cap} a skill) adds up to exactly {plan.total} marks; {add}, or change the section's marks in the "
            f"course spec")


def _helps(plan: _SectionPlan, offers: list[Offer], marks: int) -> bool:
    extra = Offer("(a new skill)", offers[0].outcome_id, marks, skill_id="(new)")
    trial = _SectionPlan(plan.total, offers + [extra], plan.cap, set(plan.taken))
    return trial.feasible(plan.total, [])


# --------------------------------------------------------------------------
# Filling: the questions themselves


@dataclasses.dataclass
class DrawnQuestion:
    item: Item
    outcome_id: str
    number: int                     # the answer slot: 1..n across the exam (marking and results key on it)
    marks: int                      # what the question is worth in this paper: always the item's own marks
    marked_out_of: Optional[int]    # kept for callers; questions are never rescaled now, so always None
    route: str
    question: int = 0               # the printed question number (parts share it)
    part: Optional[str] = None      # "a", "b", ... when the question has parts
    label: str = ""                 # "5" or "5(a)"
    topic: str = ""                 # the skill it practises


def format_name(exam_format: Optional[str]) -> str:
    """A format name as a config keeps it: "" for the full paper, else the name."""
    name = (exam_format or "").strip()
    return "" if name == FULL_FORMAT else name


def exam_formats(spec) -> list[dict]:
    """The shapes of paper a course offers, for a page's choice: the full paper first.

    Each: {"format": name to pass as ``exam_format`` (config key "format"), "title", "description",
    "total_marks", "time_allowed_minutes"}.
    """
    out = []
    for name in spec.format_names():
        shape = spec.exam_format(name)
        sections = shape.assessment_structure
        description = shape.description or "; ".join(
            f"{s.section} {s.marks} marks in {duration(s.time_allowed_minutes)}" for s in sections)
        out.append({"format": name, "title": "Full paper" if name == FULL_FORMAT else shape.title,
                    "description": description, "total_marks": shape.total_marks,
                    "time_allowed_minutes": sum(s.time_allowed_minutes for s in sections)})
    return out


def exam_instructions(spec, exam_format: Optional[str] = None) -> list[str]:
    """The instructions for a paper: each section's marks, time and calculator rule, then the course's own."""
    try:
        shape = spec.exam_format(exam_format)
    except ValueError as exc:
        raise NoQuestions(str(exc)) from None
    lines = [f"{s.section}: {s.marks} marks, {duration(s.time_allowed_minutes)}; "
             + ("you may use a calculator." if s.calculator_allowed else "you may NOT use a calculator.")
             for s in shape.assessment_structure]
    lines.append(f"Total marks: {shape.total_marks}.")
    own = list(shape.instructions if shape.instructions is not None else spec.instructions)
    return lines + (own or ["Attempt ALL questions.",
                            "Show your working; marks are awarded for each step of a correct method."])


def _draw(source: QuestionSource, offer: Offer, calculator: bool, seed: str, avoid: set[str],
          section: str, spent: bool = False) -> tuple[Item, bool]:
    """A fresh question from a slot's skill, worked by hand where the section has no calculator, and whether it
    is fresh (False: a repeat, the best there was). ``spent``: the skill gave a repeat already in this paper, so
    a repeat is taken after a few draws."""
    gen = source.library.generator(offer.skill_id)
    rng = random.Random(f"fill|{seed}")
    repeat: Optional[Item] = None
    for attempt in range(FILL_DRAWS):
        if spent and repeat is not None and attempt >= SPENT_DRAWS:
            break
        level = rng.choice(gen.cs.levels)
        try:
            item = gen.generate(level, f"{seed}/{attempt}" if attempt else seed)
        except GenerationError as exc:
            raise NoQuestions(f"{section}: {exc}") from None
        if not calculator and item.calculator == "optional" and not by_hand(item):
            continue
        if item.content_key not in avoid and item.id not in avoid and stem_key(item) not in avoid:
            return item, True
        repeat = repeat or item
    if repeat is not None:
        return repeat, False   # every draw repeated something this student has seen: a repeat beats no exam
    raise NoQuestions(f"{section}: skill {offer.skill_id} gave no question whose numbers can be worked without a "
                      f"calculator in {FILL_DRAWS} draws; mark it calculator: required or give it levels with "
                      f"whole-number answers")


MAX_PARTS = 3   # (a), (b), (c): as many parts as one printed question has


def _order_parts(section_questions: list[tuple[Offer, Item]], rng: random.Random) -> list[list[tuple[Offer, Item]]]:
    """Questions on one skill grouped (easier first), and the groups in a paper's order: easier ones first."""
    groups: dict[str, list[tuple[Offer, Item]]] = {}
    for offer, item in section_questions:
        groups.setdefault(offer.topic, []).append((offer, item))
    out = []
    for members in groups.values():
        members.sort(key=lambda m: (m[1].difficulty_value, m[1].marks, m[1].id))
        # A skill asked more often than a question has parts becomes several questions.
        out += [members[k:k + MAX_PARTS] for k in range(0, len(members), MAX_PARTS)]
    keyed = [(round(g[0][1].difficulty_value, 1), rng.random(), g) for g in out]
    keyed.sort(key=lambda k: (k[0], k[1]))
    return [g for _, _, g in keyed]


def assemble_sections(source: QuestionSource, spec, student: str, seed: Any, exam_count: int,
                      approved_only: bool, progress: Progress = None,
                      exam_format: Optional[str] = None) -> list[dict]:
    """build_blueprint and fill_slots: every section planned, then every slot filled with novelty.

    Shared by the exam flow and the teachers' paper preview, so a previewed
    class paper is exactly what the students will sit. Returns, per section of
    the format, {"section": SpecSection, "questions": [DrawnQuestion],
    "missing": outcomes no question asks}. Raises NoQuestions naming the
    section and what to add when one cannot be filled exactly.
    """
    source = source.offline()  # the LLM has no part in an exam before it is submitted
    subject, level = spec.subject, spec.level
    try:
        shape = spec.exam_format(exam_format)
    except ValueError as exc:
        raise NoQuestions(str(exc)) from None
    sections = list(shape.assessment_structure)
    fmt = format_name(exam_format)
    key = f"{student}|{subject}|{level}|{seed}|{exam_count}" + (f"|{fmt}" if fmt else "")
    plans = _plan_all(source, spec, shape, sections, student, approved_only, key)

    seen_content, seen_stems = source.seen(student)
    avoid = set(seen_content) | set(seen_stems)
    for slots, _ in plans:
        for offer in slots:
            avoid |= offer.keys
    total = sum(len(slots) for slots, _ in plans)
    filled = 0
    spent: set[tuple[str, bool]] = set()   # (skill, calculator) slots that settled for a repeat
    drawn: list[list[tuple[Offer, Item]]] = []
    for s_index, (section, (slots, _)) in enumerate(zip(sections, plans)):
        questions = []
        for q_index, offer in enumerate(slots):
            if offer.item is not None:
                item = offer.item
            else:
                skill = (offer.skill_id, section.calculator_allowed)
                item, fresh = _draw(source, offer, section.calculator_allowed,
                                    f"{student}|{seed}/{exam_count}/{s_index}/{q_index}", avoid, section.section,
                                    spent=skill in spent)
                if not fresh:
                    spent.add(skill)
                avoid |= {item.id, item.content_key, stem_key(item)}
            questions.append((offer, item))
            filled += 1
            if progress:
                progress(filled, total)
        drawn.append(questions)

    rng = random.Random(f"order|{key}")
    number = question = 0
    out = []
    for section, (slots, _), questions in zip(sections, plans, drawn):
        asked = {offer.outcome_id for offer in slots}
        missing = [o for o in section.outcome_ids if o not in asked]
        placed = []
        for group in _order_parts(questions, rng):
            question += 1
            for k, (offer, item) in enumerate(group):
                number += 1
                part = chr(ord("a") + k) if len(group) > 1 else None
                label = f"{question}({part})" if part else str(question)
                route = "generated" if offer.item is None else item.source
                placed.append(DrawnQuestion(item, offer.outcome_id, number, item.marks, None, route,
                                            question=question, part=part, label=label, topic=offer.topic))
        out.append({"section": section, "questions": placed, "missing": missing})
    return out


def _plan_all(source: QuestionSource, spec, shape, sections: list, student: str, approved_only: bool,
              key: str) -> list[tuple[list[Offer], list[str]]]:
    """Every section's slots. Sections without a calculator are planned first (they can use less), and one-off
    questions are shared out: a question one section takes, no other can. If a section cannot be filled once
    others have taken their share, it is planned first instead."""
    subject, level = spec.subject, spec.level
    offers = [section_offers(source, subject, level, s.outcome_ids, s.calculator_allowed, student, approved_only,
                             s.item_types)
              for s in sections]
    for section, found in zip(sections, offers):
        if not found:
            outcomes = ", ".join(section.outcome_ids)
            if approved_only:
                raise NoQuestions(f"{section.section}: no approved question not yet given covers its outcomes "
                                  f"({outcomes}); approve more for them on the Review page")
            calc = "" if section.calculator_allowed else " usable without a calculator"
            kinds = section.item_types
            kind = f" of the kind it asks ({', '.join(k.replace('_', ' ') for k in kinds)})" if kinds else ""
            raise NoQuestions(f"{section.section}: no skill blueprint{calc}{kind} or bank question not yet given "
                              f"covers its outcomes ({outcomes}); add some for them")
    order = sorted(range(len(sections)), key=lambda k: (sections[k].calculator_allowed, k))
    last: Optional[NoQuestions] = None
    for _ in range(len(sections)):
        taken: set[str] = set()
        plans: dict[int, tuple[list[Offer], list[str]]] = {}
        try:
            for k in order:
                section = sections[k]
                rng = random.Random(f"exam|{key}|{k}")
                plans[k] = plan_section(section.marks, offers[k], rng, spec.topic_cap(section, shape), taken,
                                        section.section, approved_only)
            return [plans[k] for k in range(len(sections))]
        except NoQuestions as exc:
            last = exc
            failed = next(k for k in order if k not in plans)
            if not taken or order[0] == failed:
                raise
            order = [failed] + [k for k in order if k != failed]
    assert last is not None
    raise last
