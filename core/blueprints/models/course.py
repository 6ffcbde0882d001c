"""A course spec (SQA-style): the course's outcomes and the structure of its exam."""
from __future__ import annotations

from typing import Optional

from pydantic import Field, field_validator, model_validator

from core.blueprints.models.base import (ID_PATTERN, Strict, fail, _version_text)

MAX_OUTCOMES = 200
MAX_SECTIONS = 20               # exam sections (papers), instructions
MAX_MARKS = 1_000               # marks of one section: an exam is assembled question by question to fill them
MAX_MINUTES = 10_000


class Outcome(Strict):
    id: str = Field(pattern=ID_PATTERN)
    label: str
    weight: float = Field(gt=0, le=1_000_000)


class SpecSection(Strict):
    section: str
    outcome_ids: list[str] = Field(min_length=1, max_length=MAX_OUTCOMES)
    marks: int = Field(ge=1, le=MAX_MARKS)
    calculator_allowed: bool = True
    time_allowed_minutes: float = Field(gt=0, le=MAX_MINUTES)


class CourseSpec(Strict):
    spec_id: str = Field(pattern=ID_PATTERN)
    version: str = "1.0"
    subject: str
    level: str
    title: Optional[str] = None
    outcomes: list[Outcome] = Field(min_length=1, max_length=MAX_OUTCOMES)
    assessment_structure: list[SpecSection] = Field(min_length=1, max_length=MAX_SECTIONS)
    instructions: list[str] = Field(default_factory=list, max_length=MAX_SECTIONS)

    _version = field_validator("version", mode="before")(_version_text)

    @model_validator(mode="after")
    def _check(self) -> "CourseSpec":
        ids = [o.id for o in self.outcomes]
        if len(set(ids)) != len(ids):
            fail("outcomes", "outcome ids must be distinct")
        known = set(ids)
        for i, section in enumerate(self.assessment_structure):
            unknown = [o for o in section.outcome_ids if o not in known]
            if unknown:
                fail(f"assessment_structure.{i}.outcome_ids", f"names outcomes not in 'outcomes': {', '.join(unknown)}")
        return self

    @property
    def total_marks(self) -> int:
        return sum(s.marks for s in self.assessment_structure)
