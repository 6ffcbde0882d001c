"""An assessment blueprint: sections drawing items from skills, the difficulty mix, scoring and grade bands."""
from __future__ import annotations

from typing import Literal, Optional

from pydantic import Field, field_validator, model_validator

from core.blueprints.models.base import (ID_PATTERN, MAX_LEVELS, Strict, fail, _version_text)

MAX_ITEMS = 500                 # items in one assessment
MAX_SECTIONS = 50               # sections, section weights, grade bands
MAX_SKILLS = 200                # skills one section draws from
MAX_MINUTES = 10_000            # about a week: longer limits are mistakes (and overflow clocks)


class AssessmentMetadata(Strict):
    title: str
    description: Optional[str] = None
    target_audience: Optional[str] = None
    estimated_duration_minutes: Optional[float] = Field(default=None, gt=0, le=MAX_MINUTES)
    subject: Optional[str] = None
    level: Optional[str] = None


class AssessmentConfiguration(Strict):
    total_items: int = Field(ge=1, le=MAX_ITEMS)
    time_limit_minutes: Optional[float] = Field(default=None, gt=0, le=MAX_MINUTES)
    passing_score_percent: float = Field(default=50, ge=0, le=100)
    shuffle_items: bool = True
    shuffle_options: bool = True
    show_progress: bool = True
    allow_review: bool = False
    allow_skip: bool = False


class WeightedSkill(Strict):
    skill_id: str
    weight: float = Field(default=1, gt=0, le=1_000_000)


class AssessmentSection(Strict):
    section_id: str = Field(pattern=ID_PATTERN)
    title: str
    item_count: int = Field(ge=1, le=MAX_ITEMS)
    skill_blueprints: list[WeightedSkill] = Field(min_length=1, max_length=MAX_SKILLS)
    difficulty_distribution: dict[str, int] = Field(max_length=MAX_LEVELS)

    @model_validator(mode="after")
    def _check(self) -> "AssessmentSection":
        for level, n in self.difficulty_distribution.items():
            if n < 0:
                fail(f"difficulty_distribution.{level}", "must not be negative")
        total = sum(self.difficulty_distribution.values())
        if total != self.item_count:
            fail("difficulty_distribution", f"adds up to {total} but item_count is {self.item_count}")
        ids = [s.skill_id for s in self.skill_blueprints]
        if len(set(ids)) != len(ids):
            fail("skill_blueprints", "a skill is listed twice")
        return self


class GradeBand(Strict):
    label: str
    min_percent: float = Field(ge=0, le=100)


class Scoring(Strict):
    method: Literal["percent_correct", "weighted_sections"] = "percent_correct"
    section_weights: dict[str, float] = Field(default_factory=dict, max_length=MAX_SECTIONS)
    grade_bands: list[GradeBand] = Field(min_length=1, max_length=MAX_SECTIONS)

    @model_validator(mode="after")
    def _check(self) -> "Scoring":
        for name, w in self.section_weights.items():
            if w <= 0:
                fail(f"section_weights.{name}", f"must be positive, got {w}")
        mins = [b.min_percent for b in self.grade_bands]
        if any(a <= b for a, b in zip(mins, mins[1:])):
            fail("grade_bands", "must be listed from highest to lowest min_percent, each strictly lower than the one before")
        if mins[-1] != 0:
            fail(f"grade_bands.{len(mins) - 1}.min_percent", f"the last grade band must start at 0 so every score gets a grade (it starts at {mins[-1]})")
        labels = [b.label for b in self.grade_bands]
        if len(set(labels)) != len(labels):
            fail("grade_bands", "labels must be distinct")
        return self


class AssessmentBlueprint(Strict):
    assessment_id: str = Field(pattern=ID_PATTERN)
    version: str
    metadata: AssessmentMetadata
    configuration: AssessmentConfiguration
    sections: list[AssessmentSection] = Field(min_length=1, max_length=MAX_SECTIONS)
    scoring: Scoring

    _version = field_validator("version", mode="before")(_version_text)

    @model_validator(mode="after")
    def _check(self) -> "AssessmentBlueprint":
        ids = [s.section_id for s in self.sections]
        if len(set(ids)) != len(ids):
            fail("sections", "section ids must be distinct")
        total = sum(s.item_count for s in self.sections)
        if total != self.configuration.total_items:
            fail("configuration.total_items", f"is {self.configuration.total_items} but the sections hold {total} items")
        weights = self.scoring.section_weights
        if weights:
            unknown = sorted(set(weights) - set(ids))
            missing = sorted(set(ids) - set(weights))
            if unknown:
                fail("scoring.section_weights", f"names unknown sections: {', '.join(unknown)}")
            if missing:
                fail("scoring.section_weights", f"has no weight for: {', '.join(missing)}")
        return self
