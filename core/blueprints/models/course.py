"""A course spec (SQA-style): the course's outcomes and the structure of its exam."""
from __future__ import annotations

from typing import Optional

from pydantic import Field, field_validator, model_validator

from core.blueprints.models.base import (ID_PATTERN, Strict, fail, _version_text)


class Outcome(Strict):
    id: str = Field(pattern=ID_PATTERN)
    label: str
    weight: float = Field(gt=0)


class SpecSection(Strict):
    section: str
    outcome_ids: list[str] = Field(min_length=1)
    marks: int = Field(ge=1)
    calculator_allowed: bool = True
    time_allowed_minutes: float = Field(gt=0)


class CourseSpec(Strict):
    spec_id: str = Field(pattern=ID_PATTERN)
    version: str = "1.0"
    subject: str
    level: str
    title: Optional[str] = None
    outcomes: list[Outcome] = Field(min_length=1)
    assessment_structure: list[SpecSection] = Field(min_length=1)
    instructions: list[str] = Field(default_factory=list)

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
