"""The LLM's words in a lesson (seed 001's LLMTeacher): teaching for a question no skill teaches, a
transition between cards, and the end-of-lesson summary.

Each is optional: a lesson without an LLM, or whose call fails, teaches from the
blueprint and writes its summary from its own data (``core.flows.lesson_words``).
No call ever carries an answer key the student has not yet been shown.
"""
from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, Field

from core.llm.client import LLMClient

TEACH_SYSTEM = """You teach secondary-school students (about 15 years old) in Scotland. Before the student answers
the question given, write what they need to know to tackle it: 3 to 5 plain sentences on the idea and the method,
with the relationship or rule it uses. Do not answer the question or work it through with its numbers.
Use $...$ for mathematics. Also give one sentence, the key concept, for a student who gets it wrong."""

TRANSITION_SYSTEM = """You are a warm, brief tutor in a lesson of short cards. In one or two sentences, react to how
the student did on the card just finished (right first time, right after retries, wrong, or skipped) and lead into
the next card's topic. Speak to the student as "you"; no exclamation-mark gushing; no answers."""

SUMMARY_SYSTEM = """You write the end-of-lesson summary for a secondary-school student, in 3 to 5 plain sentences:
what went well, what to practise next and one concrete next step, using the figures given (cards right, attempts,
skills strong and to work on). If the lesson was stopped early, say so and do not claim they finished.
Speak to the student as "you". Use $...$ for any mathematics."""


class Teaching(BaseModel):
    text: str = Field(min_length=1, max_length=3000)
    key_concept: str = Field(min_length=1, max_length=600)


class Words(BaseModel):
    text: str = Field(min_length=1, max_length=2000)


class LessonTeacher:
    """The lesson's LLM roles over one ``LLMClient`` (the "tutor" role's model)."""

    def __init__(self, client: LLMClient):
        self.client = client

    def _ask(self, system: str, brief: dict, model: type, stage: str) -> Any:
        messages = [{"role": "system", "content": system},
                    {"role": "user", "content": json.dumps(brief, ensure_ascii=False)}]
        return self.client.structured("tutor", messages, model, stage=stage)

    def teach(self, question: dict) -> dict:
        """Teaching for a question (its student view: text, type, options; never its key)."""
        reply = self._ask(TEACH_SYSTEM, question, Teaching, "lesson_teaching")
        return {"text": reply.text.strip(), "key_concept": reply.key_concept.strip()}

    def transition(self, finished: dict, next_card: dict, progress: dict) -> str:
        """One or two sentences between cards: {title, result, attempts} -> {title} with the lesson's progress."""
        return self._ask(TRANSITION_SYSTEM, {"finished_card": finished, "next_card": next_card,
                                             "progress": progress}, Words, "lesson_transition").text.strip()

    def summary(self, figures: dict) -> str:
        """The end-of-lesson summary from the lesson's figures."""
        return self._ask(SUMMARY_SYSTEM, figures, Words, "lesson_summary").text.strip()
