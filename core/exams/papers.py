"""Mock-exam papers for teachers: what a class paper will hold, keys included.

A paper is assembled exactly as the flows assemble one, without writing
anything to the database:

* from a course spec (``build_paper``), as the exam flow does for an assigned
  class paper: novelty is judged for the paper key ``paper:SEED`` rather than a
  student, so the preview is the paper every student of the class will sit;
* from an assessment blueprint (``build_evaluation_paper``), as the
  evaluation flow does for a student who has not been shown any of its items.

The paper dict carries the answer keys and explanations: it is for teachers
only; ``core.exams.printing`` makes printable versions of it, with or without
the keys.
"""
from __future__ import annotations

import random
from typing import Any, Callable, Optional

from core.blueprints.library import Library, LibraryError
from core.flows.base import FlowError
from core.flows.evaluation import draw_item, order_slots, plan_slots
from core.flows.exam_plan import assemble_sections, exam_instructions, format_name
from core.items.generator import Item
from core.items.sources import NoQuestions, QuestionSource, stem_key

EXAM_COUNT = 1   # an assigned paper is a student's first (and only) sitting of that config

Progress = Optional[Callable[[int, int], None]]


class PaperError(ValueError):
    """A paper that cannot be built; the message says why and what to do."""


def paper_key(seed: Any) -> str:
    """The name novelty is judged under for a class paper (the exam flow's ``paper_key``)."""
    return f"paper:{seed}"


def _question(item: Item, number: int, marks: int, section: str, outcome_id: Optional[str], route: str) -> dict:
    """A question as the student sees it, plus everything a teacher needs (the key)."""
    return {**item.student_view(), "number": number, "marks": marks, "section": section, "outcome_id": outcome_id,
            "route": route, "source": item.source, "blueprint_id": item.blueprint_id,
            "difficulty_level": item.difficulty_level, "calculator": item.calculator,
            # teacher-only from here on
            "answer_key": item.correct_answer, "correct_index": item.correct_index,
            "accepted_answers": list(item.accepted_answers), "explanation": item.explanation,
            "marking_scheme": item.marking_scheme,
            # a choose-several question: each option's share of the marks (for the marking scheme)
            **({"fractions": list((item.evaluation or {}).get("fractions") or [])} if item.choose_several else {}),
            # the figure printed with it; for an item stored before items kept their diagrams, the parameters
            # let printing work it out from the blueprint (core.exams.diagrams.fill_diagrams)
            "diagram": item.diagram, "generation_params": dict(item.generation_params or {})}


# --------------------------------------------------------------------------
# From a course spec (the exam flow)


def build_paper(source: QuestionSource, subject: str, level: str, seed: Any, progress: Progress = None,
                approved_only: bool = False, exam_format: Optional[str] = None) -> dict:
    """The class paper the exam flow assembles for config {subject, level, seed, paper_key: paper:SEED}.

    With ``approved_only`` (a class that gets approved items only) the paper holds
    teacher-approved questions only, as the flow then draws them. ``exam_format``
    names another shape of paper from the course spec's ``formats`` (the National 5
    "short" mock, say); None is the full paper. Questions on one skill share a
    question number as parts: each question keeps ``number`` (its answer slot,
    1..n) and has ``question``, ``part`` (None, "a", "b" ...) and ``label`` ("5(a)").
    """
    seed = str(seed).strip()
    if not seed:
        raise PaperError("Give the paper a seed (any word or number); the same seed gives the same paper.")
    student = paper_key(seed)
    try:
        spec = source.spec(subject, level)
    except NoQuestions as exc:
        raise PaperError(f"{exc}.") from None
    subject, level = spec.subject, spec.level
    fmt = format_name(exam_format)
    try:
        shape = spec.exam_format(fmt)
    except ValueError as exc:
        raise PaperError(f"{str(exc)[:1].upper()}{str(exc)[1:]}.") from None
    try:
        drawn = assemble_sections(source, spec, student, seed, EXAM_COUNT, approved_only, progress,
                                  exam_format=fmt or None)
    except NoQuestions as exc:
        raise PaperError(f"{exc}.") from None
    sections = []
    number = 0
    for part in drawn:
        section, questions = part["section"], []
        for q in part["questions"]:
            question = _question(q.item, q.number, q.marks, section.section, q.outcome_id, q.route)
            question.update(question=q.question, part=q.part, label=q.label)
            if q.marked_out_of is not None:
                question["marked_out_of"] = q.marked_out_of
            questions.append(question)
            number = q.number
        sections.append({"section": section.section, "calculator_allowed": section.calculator_allowed,
                         "marks": section.marks, "time_allowed_minutes": section.time_allowed_minutes,
                         "questions": questions, "outcomes_without_questions": part["missing"]})
    config = {"subject": subject, "level": level, "seed": seed, "paper_key": student}
    if approved_only:
        config["approved_only"] = True
    if fmt:
        config["format"] = fmt
    title = spec.title or f"{subject} {level}"
    return {
        "kind": "exam", "title": f"{title}: {shape.title.lower() if fmt else 'mock exam'}",
        "course_title": title, "format": fmt or "full",
        "subject": subject, "level": level, "seed": seed, "paper_key": student, "approved_only": approved_only,
        "config": config,
        "total_marks": sum(q["marks"] for s in sections for q in s["questions"]),
        "question_count": number, "time_allowed_minutes": sum(s["time_allowed_minutes"] for s in sections),
        "instructions": exam_instructions(spec, fmt or None),
        "formulae": [f.model_dump() for f in spec.formulae],
        "sections": sections,
    }


# --------------------------------------------------------------------------
# From an assessment blueprint (the evaluation flow)


def build_evaluation_paper(library: Library, assessment_id: str, seed: Any, progress: Progress = None) -> dict:
    """The evaluation the flow assembles for this seed, for a student who has seen none of its items."""
    seed = str(seed).strip()
    if not seed:
        raise PaperError("Give the paper a seed (any word or number); the same seed gives the same paper.")
    try:
        bp = library.assessment(assessment_id)
        generators = {ws.skill_id: library.generator(ws.skill_id) for s in bp.sections for ws in s.skill_blueprints}
    except LibraryError as exc:
        raise PaperError(f"{exc}; open Blueprints to fix the assessment.") from None
    try:
        slots = plan_slots(bp, generators, random.Random(f"evaluation|{bp.assessment_id}|{bp.version}|{seed}"))
        used: set[str] = set()
        never_seen: tuple[set[str], set[str]] = (set(), set())
        items: dict[str, Item] = {}
        for n, slot in enumerate(slots):
            item = draw_item(generators[slot["blueprint_id"]], slot["difficulty_level"], f"{seed}/{n}", used,
                             never_seen)
            used |= {item.content_key, stem_key(item)}
            slot["item_id"] = item.id
            items[item.id] = item
            if progress:
                progress(n + 1, len(slots))
    except FlowError as exc:
        raise PaperError(f"{str(exc)[:1].upper()}{str(exc)[1:]}.") from None
    slots = order_slots(bp, slots, seed)

    sections = []
    number = 0
    for section in bp.sections:
        questions = []
        for slot in (s for s in slots if s["section_id"] == section.section_id):
            item = items[slot["item_id"]]
            number += 1
            question = _question(item, number, item.marks, section.title,
                                 item.outcome_ids[0] if item.outcome_ids else None, "generated")
            question.update(question=number, part=None, label=str(number))
            questions.append(question)
        sections.append({"section": section.title, "section_id": section.section_id, "calculator_allowed": None,
                         "marks": sum(q["marks"] for q in questions), "time_allowed_minutes": None,
                         "questions": questions, "outcomes_without_questions": []})
    cfg = bp.configuration
    instructions = [f"Answer all {cfg.total_items} questions."]
    if bp.metadata.description:
        instructions.insert(0, bp.metadata.description.strip())
    if cfg.time_limit_minutes:
        instructions.append(f"Time allowed: {cfg.time_limit_minutes:g} minutes.")
    instructions.append(f"The pass mark is {cfg.passing_score_percent:g}%.")
    return {
        "kind": "evaluation", "title": bp.metadata.title, "course_title": bp.metadata.title, "formulae": [],
        "assessment_id": bp.assessment_id,
        "version": bp.version, "subject": bp.metadata.subject, "level": bp.metadata.level, "seed": seed,
        "config": {"assessment_id": bp.assessment_id, "seed": seed},
        "total_marks": sum(s["marks"] for s in sections), "question_count": number,
        "time_allowed_minutes": cfg.time_limit_minutes, "instructions": instructions, "sections": sections,
    }
