"""A course spec (SQA-style): the course's outcomes, the structure of its exam, and its formulae list.

The exam's structure is ``assessment_structure`` (the paper as the awarding
body sets it); ``formats`` may add other shapes of paper (a shorter mock, say),
each with its own sections, chosen by name when an exam is set.
"""
from __future__ import annotations

import re
from typing import Optional

from pydantic import Field, field_validator, model_validator

from core.blueprints.models.base import (ID_PATTERN, ItemType, Strict, fail, _version_text)

MAX_OUTCOMES = 200
MAX_SECTIONS = 20               # exam sections (papers), instructions, formats
MAX_MARKS = 1_000               # marks of one section: an exam is assembled question by question to fill them
MAX_MINUTES = 10_000
MAX_FORMULAE = 60
MAX_FORMULA_CHARS = 2_000
DEFAULT_MAX_PER_TOPIC = 2       # questions on one skill in one paper, unless the spec says otherwise
FULL_FORMAT = "full"            # the name of the paper ``assessment_structure`` describes


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
    # Questions on one skill this section may hold; None: the format's or the spec's setting.
    max_per_topic: Optional[int] = Field(default=None, ge=1, le=MAX_MARKS)
    # The kinds of question the section holds (an SQA Section 1 is multiple choice only); None: any kind.
    item_types: Optional[list[ItemType]] = Field(default=None, min_length=1, max_length=4)

    def takes(self, item_type: str) -> bool:
        return self.item_types is None or item_type in self.item_types


class Formula(Strict):
    """One entry of the course's formulae list, as printed with the paper."""
    name: str = Field(min_length=1, max_length=200)
    latex: str = Field(min_length=1, max_length=MAX_FORMULA_CHARS)


class ExamFormat(Strict):
    """Another shape of paper for the course: its own sections (and, optionally, instructions)."""
    title: str = Field(min_length=1, max_length=200)
    description: Optional[str] = Field(default=None, max_length=2_000)
    assessment_structure: list[SpecSection] = Field(min_length=1, max_length=MAX_SECTIONS)
    instructions: Optional[list[str]] = Field(default=None, max_length=MAX_SECTIONS)
    max_per_topic: Optional[int] = Field(default=None, ge=1, le=MAX_MARKS)

    @property
    def total_marks(self) -> int:
        return sum(s.marks for s in self.assessment_structure)


class CourseSpec(Strict):
    spec_id: str = Field(pattern=ID_PATTERN)
    version: str = "1.0"
    subject: str
    level: str
    title: Optional[str] = None
    outcomes: list[Outcome] = Field(min_length=1, max_length=MAX_OUTCOMES)
    assessment_structure: list[SpecSection] = Field(min_length=1, max_length=MAX_SECTIONS)
    instructions: list[str] = Field(default_factory=list, max_length=MAX_SECTIONS)
    max_per_topic: int = Field(default=DEFAULT_MAX_PER_TOPIC, ge=1, le=MAX_MARKS)
    formulae: list[Formula] = Field(default_factory=list, max_length=MAX_FORMULAE)
    formats: dict[str, ExamFormat] = Field(default_factory=dict, max_length=MAX_SECTIONS)

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
        for name, fmt in self.formats.items():
            if name == FULL_FORMAT or not re.fullmatch(ID_PATTERN, name):
                fail(f"formats.{name}", f"a format needs a name of letters, digits, '_', '-' or '.', other than "
                                        f"'{FULL_FORMAT}' (the paper 'assessment_structure' describes)")
            for i, section in enumerate(fmt.assessment_structure):
                unknown = [o for o in section.outcome_ids if o not in known]
                if unknown:
                    fail(f"formats.{name}.assessment_structure.{i}.outcome_ids",
                         f"names outcomes not in 'outcomes': {', '.join(unknown)}")
        return self

    @property
    def total_marks(self) -> int:
        return sum(s.marks for s in self.assessment_structure)

    def format_names(self) -> list[str]:
        """The formats an exam may be set in, the full paper first."""
        return [FULL_FORMAT, *self.formats]

    def exam_format(self, name: Optional[str] = None) -> ExamFormat:
        """The paper for a format name (None, "" or "full": the paper ``assessment_structure`` describes).

        Raises ValueError naming the formats there are when the name is unknown.
        """
        key = (name or "").strip()
        if key in ("", FULL_FORMAT):
            return ExamFormat(title=self.title or f"{self.subject} {self.level}",
                              assessment_structure=self.assessment_structure, instructions=self.instructions,
                              max_per_topic=self.max_per_topic)
        if key not in self.formats:
            raise ValueError(f"the {self.subject} {self.level} course has no exam format '{key}'; "
                             f"formats: {', '.join(self.format_names())}")
        return self.formats[key]

    def topic_cap(self, section: SpecSection, fmt: Optional[ExamFormat] = None) -> int:
        """How many questions on one skill ``section`` may hold."""
        if section.max_per_topic is not None:
            return section.max_per_topic
        if fmt is not None and fmt.max_per_topic is not None:
            return fmt.max_per_topic
        return self.max_per_topic
