"""The answer preview: how a typed answer is read, before it counts.

A student sees "your answer was read as ..." (as maths when the reader gives
LaTeX), with notes on readings worth checking ("xy was read as x times y"), or
the reason the answer could not be read. The preview never says whether an
answer is right. An answer that cannot be read costs nothing: practice and
lessons refuse it without recording an attempt, evaluations without recording
an answer, and mock exams keep it as typed and name it before hand-in.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Optional

from core.flows.base import FlowError
from core.items.generator import Item
from core.marking import (MarkingSpec, MarkingSpecError, MarkResult, final_text, mark_steps, read_answer,
                          step_answers, step_boxes)
from core.marking.steps import step_spec
from core.store import Store, repo, school

UNREADABLE = "Your answer could not be read."


def reading(answer: Any, read_as: Optional[str], latex: Optional[str], valid: bool,
            problem: Optional[str], notes: Optional[list[str]] = None) -> dict:
    """The preview as a plain, JSON-safe dict; ``empty`` when nothing was typed."""
    text = "" if answer is None else (answer if isinstance(answer, str) else str(answer))
    empty = not text.strip()
    return {"answer": text, "empty": empty, "valid": bool(valid) and not empty,
            "read_as": read_as if valid else None, "latex": (latex or None) if valid else None,
            "problem": None if valid else (problem or UNREADABLE), "notes": list(notes or [])}


def from_mark(mark: MarkResult, answer: Any) -> dict:
    """The preview of an answer that has just been marked (the verdict itself is left out)."""
    return reading(answer, mark.read_as, mark.read_as_latex, mark.valid, None if mark.valid else mark.feedback,
                   mark.notes)


def preview(item: Item, answer: Any, decimal_comma: bool = False) -> dict:
    """How ``answer`` to ``item`` is read (for a multiple-choice item: which option, if it is one);
    ``decimal_comma`` for a class that writes 3,5."""
    try:
        spec = MarkingSpec.from_item(item)
        if decimal_comma:
            spec = dataclasses.replace(spec, decimal_comma=True)
    except MarkingSpecError:
        # The question itself cannot be marked (its key is at fault, not the student): show the answer as
        # typed and let it through, so a student is never held up by the preview.
        text = "" if answer is None or isinstance(answer, dict) else str(answer)
        return reading(answer, text, None, True, None)
    if isinstance(answer, dict):
        # Answered step by step: how the final answer is read, or which step cannot be read; and how each box
        # typed in so far is read, so a student sees their first step read before the last is written.
        shown = from_mark(mark_steps(spec, answer), final_text(spec, answer))
        shown["steps"] = step_readings(spec, answer)
        return shown
    result = read_answer(spec, answer)
    return reading(answer, result.read_as, result.latex, result.valid, result.problem, result.notes)


def step_readings(spec: MarkingSpec, answer: dict) -> list[dict]:
    """How each step box with something typed in it is read, in order: the preview of each (``number`` and
    ``final`` say which box), read as that step is marked, never saying whether it is right."""
    given = step_answers(spec, answer)
    out = []
    for box in step_boxes(spec.criteria):
        text = given.get(box["index"], "")
        if not text.strip():
            continue
        result = read_answer(step_spec(spec, box["index"]), text)
        out.append({"number": box["number"], "final": box["final"],
                    **reading(text, result.read_as, result.latex, result.valid, result.problem, result.notes)})
    return out


def preview_item(store: Store, item_id: str, answer: Any, student: Optional[str] = None) -> dict:
    """The preview for a question shown to the student, by its id (read as the student's class writes)."""
    item = repo.load_item(store, item_id)
    if item is None:
        raise FlowError(f"question {item_id} is missing from the database; start a new session")
    return preview(item, answer, bool(student) and school.decimal_comma_for(store, student))
