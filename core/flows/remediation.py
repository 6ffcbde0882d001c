"""SG_DiagnoseAndPatch: mark an answer, name the gaps, build the remediation.

What the gap tags and misconceptions mean lives with marking
(``core.marking.diagnosis``); this module adds what needs the question
source and the tutor: a similar item to try and the tutor's explanation.

The remediation block follows the seed: what went wrong (the mistake the
answer matches), the key concept (a sentence from the misconception's
explanation or the skill's teaching), and something to try (a question on the
same skill one level easier, that the student has not seen).
"""
from __future__ import annotations

import dataclasses
from typing import Any, Optional

from core.items.generator import Item
from core.llm import LLMError
from core.marking import MarkingSpec, MarkResult, final_text, mark_answer, mark_steps, step_answers
from core.marking.diagnosis import concept_for, misconception_explanation, misconception_text
from core.items.skills import skill_for, teaching_for
from core.items.sampler import GenerationError
from core.items.sources import NoQuestions, QuestionSource


@dataclasses.dataclass
class Diagnosis:
    mark: MarkResult
    gap_tags: list[str]
    remediation: Optional[dict]
    similar: Optional[Item]
    judged: Optional[dict] = None   # how an LLM judge marked a short written answer, when one did
    # An answer given step by step (a mapping of step to text): the final answer's text, what was written
    # for each step ({criterion index as text: text}; None for a plain answer) and each box's verdict.
    answer_text: str = ""
    step_answers: Optional[dict] = None
    steps: Optional[list[dict]] = None

    def to_dict(self) -> dict:
        return {"mark": self.mark.to_dict(), "gap_tags": list(self.gap_tags), "remediation": self.remediation,
                "similar_item_id": self.similar.id if self.similar else None, "judged": self.judged,
                "answer_text": self.answer_text, "step_answers": self.step_answers, "steps": self.steps}


def marking_spec(item: Item) -> MarkingSpec:
    """The spec ``item`` is marked by, with its distractors' gap tags (raises MarkingSpecError)."""
    return MarkingSpec.from_item(item, misconception_tags=(item.evaluation or {}).get("misconception_tags") or None)


def diagnose(item: Item, answer: Any, source: Optional[QuestionSource] = None, seed: Any = 0,
             avoid: Optional[set[str]] = None, similar: bool = True, tutor: bool = True,
             decimal_comma: bool = False, spec: Optional[MarkingSpec] = None) -> Diagnosis:
    """Mark ``answer`` and, when it is not fully right, explain and offer a similar item.

    With an LLM on the source (practice and lessons only), a short written
    answer is also judged by the LLM, and with ``tutor`` a wrong answer gets
    the tutor's fuller remediation next to core's. ``spec``: ``marking_spec(item)`` when already built.
    """
    spec = spec or marking_spec(item)
    if decimal_comma:
        spec = dataclasses.replace(spec, decimal_comma=True)
    stepped = isinstance(answer, dict)   # one answer per step (the item's criteria have their own keys)
    result = mark_steps(spec, answer) if stepped else mark_answer(spec, answer)
    given = {"answer_text": final_text(spec, answer),
             "step_answers": {str(i): t for i, t in step_answers(spec, answer).items()} if stepped else None,
             "steps": step_feedback(result) if stepped else None}
    if not result.valid:
        # Nothing could be read: there is no mistake to diagnose, and no judge or tutor is asked.
        return Diagnosis(result, [], None, None, **given)
    assistant = getattr(source, "llm", None) if source is not None else None
    judged = None
    if assistant is not None and spec.method == "short_text" and result.refused is None and not stepped:
        judged = assistant.judge_short_text(item, str(answer), result)
        result = judged.mark
    if result.correct:
        return Diagnosis(result, [], None, None, judged.to_dict() if judged else None, **given)
    gaps = list(result.gap_tags)
    library = source.library if source is not None else None
    mistaken = misconception_text(item, result.misconception, library)
    # What went wrong: the mistake the answer matches when it matches one; the marker's words otherwise
    # (the page shows those already, so it is left out there).
    why = f"This looks like: {mistaken.rstrip('.')}." if mistaken else result.feedback
    similar_item = None
    if similar and source is not None:
        similar_item = similar_item_for(item, source, seed, avoid or set())
    remediation = {
        "what_went_wrong": why,
        "key_concept": key_concept(item, result, library),
        "try_this": similar_item.stem if similar_item else None,
        "explanation": item.explanation,
    }
    if assistant is not None and tutor:
        remediation.update(_tutor_remediation(assistant, item, given["answer_text"] if stepped else answer,
                                              remediation))
    return Diagnosis(result, gaps, remediation, similar_item, judged.to_dict() if judged else None, **given)


def step_feedback(result: MarkResult) -> list[dict]:
    """Each answer box's verdict as a student reads it: the step, what they wrote, the marks and why."""
    return [{"number": v.number, "step": v.step, "answer": v.answer, "marks": v.marks, "awarded": v.awarded,
             "met": v.met, "feedback": v.feedback, "follow_through": v.follow_through, "final": v.final}
            for v in result.criteria if getattr(v, "number", None) is not None]


def _tutor_remediation(assistant: Any, item: Item, answer: Any, remediation: dict) -> dict:
    """The tutor's richer text next to core's; when the tutor fails, core's stands and the reason is kept."""
    try:
        return {"tutor": assistant.remediation(item, answer, remediation)}
    except LLMError as exc:
        return {"tutor_error": f"The tutor's explanation is unavailable: {exc}"}


def key_concept(item: Item, result: MarkResult, library: Any) -> str:
    """The idea a student who got ``item`` wrong needs, as a sentence they can read.

    The matched misconception's explanation first (it speaks to this mistake), then the skill's
    teaching, then what the marking scheme's gap tags mean where they are known words.
    """
    said = misconception_explanation(item, result.misconception, library)
    if said:
        return said
    teaching = teaching_for(item, library) if library is not None else None
    if teaching:
        return teaching["key_concept"]
    concepts = [c for c in dict.fromkeys(concept_for(t) for t in result.gap_tags) if c]
    if concepts:
        return " ".join(concepts)
    return "Compare your working with the explanation, one step at a time."


def easier_level(levels: dict, level: Optional[str]) -> Optional[str]:
    """The level just below ``level`` by declared difficulty (the easiest stays itself); None for an unknown one."""
    order = sorted(levels, key=lambda name: levels[name].value)
    if level not in order:
        return order[0] if order else None
    return order[max(0, order.index(level) - 1)]


def similar_item_for(item: Item, source: QuestionSource, seed: Any, avoid: set[str]) -> Optional[Item]:
    """Something to try next: a fresh question on the same skill one level easier (the same level when it is
    the easiest); for a question no skill fits, a fresh one on the same outcome."""
    library = source.library
    skill = skill_for(item, library)
    if skill and skill in library.generators:
        gen = library.generator(skill)
        levels = gen.bp.generation.difficulty_levels
        own = item.difficulty_level if item.blueprint_id == skill else _bank_level(item, levels)
        level = easier_level(levels, own) or gen.cs.levels[0]
        for k in range(6):
            try:
                candidate = gen.generate(level, f"similar/{item.id}/{seed}/{k}")
            except GenerationError:
                return None
            if candidate.content_key not in avoid and candidate.content_key != item.content_key:
                return candidate
        return None
    if item.subject and item.level and item.outcome_ids:
        try:
            candidate = source.generate_question(item.subject, item.level, item.outcome_ids[0], seed=f"similar/{item.id}/{seed}",
                                                 avoid=avoid | {item.content_key})
        except NoQuestions:
            return None
        return candidate if candidate.content_key not in avoid else None
    return None


def _bank_level(item: Item, levels: dict) -> Optional[str]:
    """The blueprint level nearest a bank question's declared difficulty."""
    if not levels:
        return None
    value = item.difficulty_value if item.difficulty_value is not None else 0.5
    return min(levels, key=lambda name: abs(levels[name].value - value))
