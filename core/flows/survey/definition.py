"""What a survey is: ordered questions with no correct answers, and skip rules that only jump forward.

Validated by pydantic models that forbid unknown fields (a misspelt field is
an error, not silently ignored). A question is a rating on a scale of at most
11 points, a choice between at least two distinct options, or free text.
A skip rule says: if the answer to a question meets a condition, go to a
later question (or to the end). Rules may only point forward, so a survey
always ends. Option texts and choice answers are compared ignoring case and
spacing.
"""
from __future__ import annotations

import re
from typing import Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Field, StrictInt, model_validator

from core.flows.base import FlowError

END = "end"
MAX_SCALE_POINTS = 11          # 0..10 is the widest scale people answer reliably
ID_PATTERN = r"^[A-Za-z][A-Za-z0-9_\-]{0,63}$"
ORDERING_OPS = ("lt", "lte", "gt", "gte")


def _fail(field: str, message: str) -> None:
    # The field path rides in the message so the loader can point at the exact field.
    raise ValueError(f"@{field}@ {message}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Scale(_Strict):
    min: StrictInt = 1
    max: StrictInt = 5
    labels: dict[int, str] = Field(default_factory=dict)   # int, not StrictInt: JSON (the event log) makes keys text

    @model_validator(mode="after")
    def _sane(self) -> "Scale":
        if self.max <= self.min:
            _fail("max", f"the scale's max ({self.max}) must be above its min ({self.min})")
        if self.max - self.min + 1 > MAX_SCALE_POINTS:
            _fail("max", f"a rating scale may have at most {MAX_SCALE_POINTS} points; {self.min} to {self.max} has "
                         f"{self.max - self.min + 1}")
        for point in self.labels:
            if not self.min <= point <= self.max:
                _fail(f"labels.{point}", f"label {point} is outside the scale {self.min} to {self.max}")
        return self


class SurveyQuestion(_Strict):
    question_id: str = Field(pattern=ID_PATTERN)
    text: str = Field(min_length=1, max_length=1000)
    question_type: Literal["rating", "choice", "free_text"]
    options: list[str] = Field(default_factory=list)
    scale: Optional[Scale] = None
    required: bool = True

    @model_validator(mode="after")
    def _fits_type(self) -> "SurveyQuestion":
        if self.question_id == END:
            _fail("question_id", f"'{END}' is reserved for skip_to; choose another question_id")
        if self.question_type == "choice":
            if len(self.options) < 2:
                _fail("options", "a choice question needs at least two options")
            seen: dict[str, int] = {}
            for k, option in enumerate(self.options):
                key = _norm(option)
                if not key:
                    _fail(f"options.{k}", "an option cannot be empty")
                if key in seen:
                    _fail(f"options.{k}", f"option '{option}' repeats option {seen[key] + 1}")
                seen[key] = k
        elif self.options:
            _fail("options", f"options only apply to choice questions, not {self.question_type}")
        if self.question_type == "rating":
            if self.scale is None:
                self.scale = Scale()
        elif self.scale is not None:
            _fail("scale", f"a scale only applies to rating questions, not {self.question_type}")
        return self


class Condition(_Strict):
    question: str
    op: Literal["equals", "in", "lt", "lte", "gt", "gte"]
    value: Union[StrictInt, float, str, list[Union[StrictInt, float, str]]]


class SkipRule(_Strict):
    if_: Condition = Field(alias="if")
    skip_to: str


class SurveyDefinition(_Strict):
    survey_id: str = Field(pattern=ID_PATTERN)
    version: str = "1"
    title: str = Field(min_length=1)
    description: Optional[str] = None
    questions: list[SurveyQuestion] = Field(min_length=1)
    skip_logic: list[SkipRule] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> "SurveyDefinition":
        position: dict[str, int] = {}
        for k, q in enumerate(self.questions):
            if q.question_id in position:
                _fail(f"questions.{k}.question_id",
                      f"question_id '{q.question_id}' is already used by questions[{position[q.question_id]}]")
            position[q.question_id] = k
        for k, rule in enumerate(self.skip_logic):
            cond = rule.if_
            where = f"skip_logic.{k}"
            if cond.question not in position:
                _fail(f"{where}.if.question", f"no question '{cond.question}' in this survey")
            if rule.skip_to != END and rule.skip_to not in position:
                _fail(f"{where}.skip_to", f"no question '{rule.skip_to}' in this survey (or '{END}')")
            if rule.skip_to != END and position[rule.skip_to] <= position[cond.question]:
                _fail(f"{where}.skip_to", f"skip_to must point forward: '{rule.skip_to}' does not come after "
                                          f"'{cond.question}'")
            _check_condition(self.questions[position[cond.question]], cond, where)
        return self

    def question(self, question_id: str) -> SurveyQuestion:
        for q in self.questions:
            if q.question_id == question_id:
                return q
        raise FlowError(f"this survey has no question '{question_id}'")

    def index(self, question_id: str) -> int:
        return [q.question_id for q in self.questions].index(question_id)


def _check_condition(q: SurveyQuestion, cond: Condition, where: str) -> None:
    values = cond.value if isinstance(cond.value, list) else [cond.value]
    if cond.op in ORDERING_OPS and q.question_type != "rating":
        _fail(f"{where}.if.op", f"op '{cond.op}' compares numbers, but '{q.question_id}' is a {q.question_type} question")
    if cond.op == "in" and not isinstance(cond.value, list):
        _fail(f"{where}.if.value", "op 'in' needs a list of values")
    if cond.op != "in" and isinstance(cond.value, list):
        _fail(f"{where}.if.value", f"op '{cond.op}' needs a single value; use 'in' for a list")
    if q.question_type == "rating":
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                _fail(f"{where}.if.value", f"'{q.question_id}' is a rating, so the value must be a number, not {v!r}")
            if cond.op in ("equals", "in") and not (q.scale.min <= v <= q.scale.max):
                _fail(f"{where}.if.value", f"{v} is outside the scale {q.scale.min} to {q.scale.max} of '{q.question_id}'")
    elif q.question_type == "choice":
        options = {_norm(o) for o in q.options}
        for v in values:
            if _norm(str(v)) not in options:
                _fail(f"{where}.if.value", f"{v!r} is not one of the options of '{q.question_id}'")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().casefold()
