"""What a run is asked for: how many items, the seed, retries, the difficulty mix and the schemas to draw from."""
from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from core.llm.pipeline.errors import PipelineError
from core.llm.pipeline.prompts import PROMPT_VERSION

DIFFICULTIES = ("easy", "medium", "hard")
AGENTS = ("designer", "implementer", "verifier", "style_judge")
SUBJECTS = {"M": "Mathematics", "P": "Physics"}   # the subject of each reasoning-schema family


class PipelineConfig(BaseModel):
    n: int = Field(default=1, ge=1, le=1000)
    seed: int = 0
    max_retries: int = Field(default=2, ge=0, le=10)
    difficulty_weights: dict[str, float] = Field(default_factory=lambda: {"easy": 0.3, "medium": 0.5, "hard": 0.2})
    schema_prefixes: list[str] = Field(default_factory=lambda: ["M", "P"], min_length=1)
    prompt_version: str = PROMPT_VERSION
    # Where accepted questions are filed: a course (subject and level) and the outcome they assess. Without an
    # outcome no student gets a question, even approved, until the reviewer chooses one on the Review page.
    subject: Optional[str] = None
    level: Optional[str] = None
    outcome_id: Optional[str] = None

    @field_validator("difficulty_weights")
    @classmethod
    def _weights(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - set(DIFFICULTIES))
        if unknown:
            raise ValueError(f"unknown difficulty {', '.join(unknown)}; difficulties are {', '.join(DIFFICULTIES)}")
        if any(w < 0 for w in value.values()) or sum(value.values()) <= 0:
            raise ValueError("difficulty weights must be non-negative with a positive total")
        return value

    @model_validator(mode="after")
    def _course_fits_schemas(self) -> "PipelineConfig":
        if self.outcome_id and not (self.subject and self.level):
            raise ValueError("an outcome needs its course: name the subject and level too")
        if self.subject:
            other = sorted(p for p in self.schema_prefixes if SUBJECTS.get(p[:1], "").lower() != self.subject.lower())
            if other:
                raise ValueError(f"schemas {', '.join(other)} do not write {self.subject} questions: choose only "
                                 f"{self.subject} schemas, or file the questions under no course")
        return self

    @classmethod
    def checked(cls, **values: Any) -> "PipelineConfig":
        """A config from a form or the command line; PipelineError names the first setting that is wrong.

        With a course ``subject``, only the chosen schemas that write that subject's questions are used.
        """
        subject = values.get("subject")
        if subject:
            chosen = values.get("schema_prefixes") or list(SUBJECTS)     # none chosen: every schema
            kept = [p for p in chosen if SUBJECTS.get(str(p)[:1], "").lower() == subject.lower()]
            if not kept:
                raise PipelineError(f"none of the chosen reasoning schemas writes {subject} questions: choose the "
                                    f"{subject} schemas, or an outcome of another subject")
            values = {**values, "schema_prefixes": kept}
        try:
            return cls(**values)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = " ".join(str(p) for p in first["loc"]).replace("_", " ")
            said = first["msg"].removeprefix("Value error, ")
            raise PipelineError(f"{where}: {said}" if where else said) from None
