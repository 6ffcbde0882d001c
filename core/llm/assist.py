"""LLM help where the product allows it: practice and lessons, never an exam or evaluation before submission.

``Assistant`` is what a ``QuestionSource`` calls when no blueprint or bank can
supply a question (``generate_question``), when a bank question has no formula
to draw new numbers from (``mutate_question``), and what marking and
remediation call in practice and lessons (``judge_short_text``,
``remediation``, ``tutor``). The short-text judge also marks the written
answers of a mock exam or evaluation, once it has been handed in
(``core.flows.judging``).

Nothing the model says about an answer key is taken on trust. A generated or
varied question is checked by core (its shape, through the bank-question
builder) and then solved again by a separate verifier call that never sees
the key; core marks the verifier's answer against the key with the same
marking a student gets, and a disagreement rejects the question. A rejected
question raises ``NoQuestions`` with the reason, so a flow reports it like any
other missing question. Every call is recorded in ``llm_runs`` by the client.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from typing import Any, Literal, Optional

from pydantic import BaseModel, Field

from core.items.generator import Item
from core.llm.client import LLMClient, LLMError
from core.marking import MarkingSpec, MarkResult, mark_answer
from core.items.sources import NoQuestions

STAGE = "practice_help"
JUDGE_CONFIDENCE = 0.7   # below this the keyword rubric decides
TUTOR_TURNS = 8          # earlier turns of a tutor chat sent as context
MAX_TUTOR_QUESTION = 1000

QUESTION_SYSTEM = """You write assessment questions for Scottish (SQA) courses.
Write one question for the outcome given, worth the marks given, at the level given.
The answer must be correct and unambiguous; a numeric answer is a plain number with its units
in "units"; a short-text answer lists the key points a marker looks for in "keywords".
Give a worked explanation a student can follow. Use $...$ for mathematics."""

VARIANT_SYSTEM = """You write fresh variants of assessment questions.
Keep the skill, the marks and the question type; change the numbers and the context so the
variant is a new question. The answer must be correct for the new numbers. Use $...$ for mathematics."""

VERIFIER_SYSTEM = """You are checking an assessment question. Solve it yourself, step by step,
and give only your final answer in "answer" (for multiple choice: the text of the option you choose).
If the question is ambiguous or cannot be answered, say so in "problem"."""

JUDGE_SYSTEM = """You mark a student's short written answer against the model answer.
Decide whether the student's answer means the same as the model answer, ignoring spelling and
wording. Give your confidence from 0 to 1 and a one-sentence reason addressed to a teacher."""

REMEDIATION_SYSTEM = """You are a patient tutor for a secondary-school student who just answered a
question wrongly. Using the question, the correct answer, the student's answer and the marker's
notes, say in plain words what went wrong (one or two sentences, about this student's answer),
the key concept they need (one or two sentences), and one thing to try next (a short exercise or
check). Do not just repeat the correct answer. Use $...$ for mathematics."""

TUTOR_SYSTEM = """You are a friendly tutor helping a secondary-school student after they answered a
practice question. You know the question, the correct answer, the student's answer and the feedback
they were given. Answer the student's question briefly and clearly; guide rather than lecture, and
stay on this question and its topic. Use $...$ for mathematics."""


class WrittenQuestion(BaseModel):
    """A question as the model writes it (the bank-question fields core builds an Item from)."""
    text: str = Field(min_length=1)
    item_type: Literal["numeric", "short_text", "multiple_choice", "algebraic"]
    answer: str = Field(min_length=1)
    options: list[str] = Field(default_factory=list)
    units: Optional[str] = None
    keywords: list[str] = Field(default_factory=list)
    explanation: str = Field(min_length=1)
    hints: list[str] = Field(default_factory=list)


class Solution(BaseModel):
    answer: str
    working: str = ""
    problem: Optional[str] = None


class Judgement(BaseModel):
    equivalent: bool
    confidence: float = Field(ge=0, le=1)
    reason: str = ""


class Remediation(BaseModel):
    what_went_wrong: str = Field(min_length=1)
    key_concept: str = Field(min_length=1)
    try_this: str = Field(min_length=1)


class TutorReply(BaseModel):
    reply: str = Field(min_length=1)


@dataclasses.dataclass
class JudgedMark:
    """A short-text mark after the judge: which of the LLM and the keyword rubric decided, and why."""
    mark: MarkResult
    judged_by: str                      # "llm" or "keywords"
    confidence: Optional[float] = None
    reason: Optional[str] = None
    error: Optional[str] = None         # why the judge could not be used, when it was asked and failed
    equivalent: Optional[bool] = None   # the LLM's verdict (same meaning as the model answer), when it gave one

    def to_dict(self) -> dict:
        return {"judged_by": self.judged_by, "confidence": self.confidence, "reason": self.reason,
                "error": self.error, "equivalent": self.equivalent}


def _digest(*parts: Any) -> str:
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _item_brief(item: Item) -> dict:
    brief = {"question": item.stem, "type": item.item_type, "marks": item.marks}
    if item.options:
        brief["options"] = list(item.options)
    if item.units:
        brief["units"] = item.units
    return brief


class Assistant:
    """The LLM's roles in practice and lessons, over one ``LLMClient``."""

    def __init__(self, client: LLMClient, library: Any = None, store: Any = None):
        self.client = client
        self.library = library
        self.store = store

    # ------------------------------------------------------------------
    # Questions

    def _outcome_label(self, subject: str, level: str, outcome_id: str) -> str:
        if self.library is None:
            return outcome_id
        from core.blueprints.library import LibraryError
        try:
            spec = self.library.spec(subject, level)
        except LibraryError:
            return outcome_id  # no spec for this course: the id alone still names the outcome
        for outcome in spec.outcomes:
            if outcome.id == outcome_id:
                return f"{outcome_id}: {outcome.label}"
        return outcome_id

    def _build(self, written: WrittenQuestion, subject: str, level: str, outcome_id: str, marks: int,
               item_id: str, source: str) -> Item:
        from core.items.banks import BankQuestionError, bank_question_to_item
        question = {"id": item_id, "subject": subject, "level": level, "outcome_id": outcome_id, "marks": marks,
                    "text": written.text, "answer": written.answer, "item_type": written.item_type,
                    "explanation": written.explanation}
        for name in ("options", "keywords", "hints"):
            if getattr(written, name):
                question[name] = list(getattr(written, name))
        if written.units:
            question["units"] = written.units
        try:
            item = bank_question_to_item(question, source="local")
        except BankQuestionError as exc:
            problems = "; ".join(e.message for e in exc.errors[:3])
            raise NoQuestions(f"the model's question for {outcome_id} was rejected: {problems}") from None
        item.source = source
        item.status = "draft"
        return item

    def verify(self, item: Item) -> dict:
        """Solve ``item`` again without its key and mark that answer; the report says whether they agree."""
        messages = [{"role": "system", "content": VERIFIER_SYSTEM},
                    {"role": "user", "content": json.dumps(_item_brief(item), ensure_ascii=False)}]
        solution = self.client.structured("verifier", messages, Solution, stage=STAGE)
        report = {"method": "independent_solve", "verifier_answer": solution.answer, "core_key": item.correct_answer,
                  "problem": solution.problem}
        if solution.problem:
            report.update(verdict="rejected", reason=f"the verifier found a problem: {solution.problem}")
            return report
        spec = MarkingSpec.from_item(item)
        # The verifier states a value; its units, where it leaves them off, are the question's.
        agree = any(mark_answer(spec, answer).correct
                    for answer in dict.fromkeys([solution.answer, f"{solution.answer} {item.units or ''}".strip()]))
        report.update(verdict="verified" if agree else "rejected",
                      reason=None if agree else f"the verifier's answer {solution.answer!r} does not match "
                                                f"the key {item.correct_answer!r}")
        return report

    def _checked(self, messages: list[dict], subject: str, level: str, outcome_id: str, marks: int,
                 item_id: str, source: str) -> Item:
        try:
            written = self.client.structured("item_generator", messages, WrittenQuestion, stage=STAGE)
            item = self._build(written, subject, level, outcome_id, marks, item_id, source)
            report = self.verify(item)
        except LLMError as exc:
            raise NoQuestions(f"the LLM could not write a question for {outcome_id}: {exc}") from None
        if report["verdict"] != "verified":
            raise NoQuestions(f"the LLM's question for {outcome_id} failed verification: {report['reason']}")
        item.computed_values = {**item.computed_values, "verification": report}
        if self.store is not None:
            from core.store.llm_runs import save_verification
            from core.store.repo import insert_items
            insert_items(self.store, [item], status="draft")  # the teacher sees it in the review queue
            save_verification(self.store, item.id, report)
        return item

    def generate_question(self, subject: str, level: str, outcome_id: str, marks: int = 4, seed: Any = None) -> Item:
        """A new verified question for an outcome no blueprint or bank covers (source "llm")."""
        label = self._outcome_label(subject, level, outcome_id)
        brief = {"subject": subject, "level": level, "outcome": label, "marks": marks}
        if seed is not None:
            brief["variety_seed"] = str(seed)
        messages = [{"role": "system", "content": QUESTION_SYSTEM},
                    {"role": "user", "content": json.dumps(brief, ensure_ascii=False)}]
        item_id = f"llm_{outcome_id}_{_digest(brief)}"
        return self._checked(messages, subject, level, outcome_id, marks, item_id, "llm")

    def mutate_question(self, item: Item, n: int = 1) -> Item:
        """A verified variant of a question that has no formula to draw new numbers from (source "variant")."""
        outcome = item.outcome_ids[0] if item.outcome_ids else "unknown"
        brief = {**_item_brief(item), "answer": item.correct_answer, "variant_number": n}
        messages = [{"role": "system", "content": VARIANT_SYSTEM},
                    {"role": "user", "content": json.dumps(brief, ensure_ascii=False)}]
        return self._checked(messages, item.subject or "", item.level or "", outcome, item.marks,
                             f"{item.id}_variant_{n}", "variant")

    # ------------------------------------------------------------------
    # Marking and help

    def judge_short_text(self, item: Item, answer: str, keyword_mark: MarkResult) -> JudgedMark:
        """The LLM's verdict on a short written answer when it is confident; the keyword rubric's otherwise."""
        brief = {**_item_brief(item), "model_answer": item.correct_answer,
                 "also_accepted": list(item.accepted_answers), "key_points": (item.evaluation or {}).get("keywords") or [],
                 "student_answer": answer}
        messages = [{"role": "system", "content": JUDGE_SYSTEM},
                    {"role": "user", "content": json.dumps(brief, ensure_ascii=False)}]
        try:
            verdict = self.client.structured("verifier", messages, Judgement, stage="short_text_judge")
        except LLMError as exc:
            return JudgedMark(keyword_mark, "keywords", error=str(exc))
        if verdict.confidence < JUDGE_CONFIDENCE:
            return JudgedMark(keyword_mark, "keywords", verdict.confidence, verdict.reason,
                              error=f"the LLM judge was not confident enough ({verdict.confidence:.2f})",
                              equivalent=verdict.equivalent)
        if verdict.equivalent == keyword_mark.correct:
            return JudgedMark(keyword_mark, "llm", verdict.confidence, verdict.reason, equivalent=verdict.equivalent)
        mark = dataclasses.replace(
            keyword_mark, correct=verdict.equivalent,
            score=keyword_mark.max_score if verdict.equivalent else 0.0,
            feedback="Correct." if verdict.equivalent else f"Not the correct answer. {verdict.reason}".strip(),
            gap_tags=[] if verdict.equivalent else list(keyword_mark.gap_tags),
            misconception=None if verdict.equivalent else keyword_mark.misconception)
        return JudgedMark(mark, "llm", verdict.confidence, verdict.reason, equivalent=verdict.equivalent)

    def remediation(self, item: Item, answer: Any, remediation: dict) -> dict:
        """Richer what-went-wrong / key-concept / try-this text; LLMError when the model gives none."""
        brief = {**_item_brief(item), "correct_answer": item.correct_answer, "student_answer": str(answer),
                 "marker_notes": remediation.get("what_went_wrong"), "explanation": item.explanation}
        messages = [{"role": "system", "content": REMEDIATION_SYSTEM},
                    {"role": "user", "content": json.dumps(brief, ensure_ascii=False)}]
        return self.client.structured("tutor", messages, Remediation, stage="remediation").model_dump()

    def tutor(self, context: dict, history: list[dict], question: str) -> str:
        """The tutor's reply to a student's question about the item in ``context``; LLMError if none."""
        question = question.strip()
        if not question:
            raise ValueError("type a question for the tutor first")
        if len(question) > MAX_TUTOR_QUESTION:
            raise ValueError(f"a question for the tutor may be at most {MAX_TUTOR_QUESTION} characters")
        messages: list[dict] = [{"role": "system", "content": TUTOR_SYSTEM},
                                {"role": "user", "content": "The practice question and my answer:\n"
                                 + json.dumps(context, ensure_ascii=False)}]
        for turn in history[-TUTOR_TURNS:]:
            messages.append({"role": "user", "content": turn["question"]})
            messages.append({"role": "assistant", "content": turn["reply"]})
        messages.append({"role": "user", "content": question})
        return self.client.structured("tutor", messages, TutorReply, stage="tutor").reply
