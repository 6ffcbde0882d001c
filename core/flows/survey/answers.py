"""Survey answers: checking one against its question, matching skip rules, and reading them back.

There are no correct answers, only acceptable ones: a whole number on the
scale, one of the options (however it is cased or spaced), or free text of at
most 2,000 characters. Answers are stored in their checked form, so skip
rules and repeats compare like with like. Every answer is an event of the
survey session; nothing is written to ``responses`` (that table is for marked
items), and ``survey_answers`` reads the events back.
"""
from __future__ import annotations

import re
from typing import Any, Optional, Union

from core.flows.base import FlowError
from core.flows.survey.definition import Condition, SurveyQuestion, _norm
from core.store import Store
from core.store import surveys as survey_store

MAX_FREE_TEXT = 2000


def check_answer(q: SurveyQuestion, answer: Any) -> Union[int, str]:
    """The answer in its stored form, or a FlowError saying what is acceptable."""
    if answer is None or (isinstance(answer, str) and not answer.strip()):
        if q.required:
            raise FlowError("this question needs an answer")
        raise FlowError("type an answer, or skip this question")
    if q.question_type == "rating":
        scale = q.scale
        value: Optional[int] = None
        if isinstance(answer, int) and not isinstance(answer, bool):
            value = answer
        elif isinstance(answer, float) and answer.is_integer():
            value = int(answer)
        elif isinstance(answer, str) and re.fullmatch(r"\s*-?\d{1,3}\s*", answer):
            value = int(answer)
        if value is None or not scale.min <= value <= scale.max:
            raise FlowError(f"choose a whole number from {scale.min} to {scale.max}")
        return value
    if q.question_type == "choice":
        if isinstance(answer, str):
            for option in q.options:
                if _norm(option) == _norm(answer):
                    return option
        raise FlowError(f"choose one of: {', '.join(q.options)}")
    if not isinstance(answer, str):
        raise FlowError("this question needs a written answer")
    text = answer.strip()
    if len(text) > MAX_FREE_TEXT:
        raise FlowError(f"answers can be at most {MAX_FREE_TEXT:,} characters; this one has {len(text):,}")
    return text


def rule_matches(cond: Condition, answer: Any) -> bool:
    if answer is None:
        return False
    if cond.op == "equals":
        return _same(answer, cond.value)
    if cond.op == "in":
        return any(_same(answer, v) for v in cond.value)
    if isinstance(answer, bool) or not isinstance(answer, (int, float)):
        return False
    return {"lt": answer < cond.value, "lte": answer <= cond.value,
            "gt": answer > cond.value, "gte": answer >= cond.value}[cond.op]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return _norm(str(a)) == _norm(str(b))


def survey_answers(store: Store, survey_id: Optional[str] = None) -> list[dict]:
    """Every answer given to a survey (optionally one survey), one dict per answer, oldest first."""
    out = []
    for row in survey_store.answer_events(store, survey_id):
        p, cfg = row["payload"], row["config"]
        out.append({"session_id": row["session_id"], "student": row["student"],
                    "survey_id": cfg.get("survey_id"), "context": cfg.get("context") or {},
                    "question_id": p.get("question_id"), "question_type": p.get("question_type"),
                    "question": p.get("text"), "answer": p.get("answer"), "answered_at": row["created_at"],
                    "session_status": row["status"]})
    return out


def _canonical(q: SurveyQuestion, answer: Any) -> Any:
    try:
        return check_answer(q, answer)
    except FlowError:
        return answer
