"""What a run is asked for: how many items, the seed, retries, the difficulty mix and the schemas to draw from."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, ValidationError, field_validator

from core.llm.pipeline.errors import PipelineError
from core.llm.pipeline.prompts import PROMPT_VERSION

DIFFICULTIES = ("easy", "medium", "hard")
AGENTS = ("designer", "implementer", "verifier", "style_judge")


class PipelineConfig(BaseModel):
    n: int = Field(default=1, ge=1, le=1000)
    seed: int = 0
    max_retries: int = Field(default=2, ge=0, le=10)
    difficulty_weights: dict[str, float] = Field(default_factory=lambda: {"easy": 0.3, "medium": 0.5, "hard": 0.2})
    schema_prefixes: list[str] = Field(default_factory=lambda: ["M", "P"], min_length=1)
    prompt_version: str = PROMPT_VERSION

    @field_validator("difficulty_weights")
    @classmethod
    def _weights(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - set(DIFFICULTIES))
        if unknown:
            raise ValueError(f"unknown difficulty {', '.join(unknown)}; difficulties are {', '.join(DIFFICULTIES)}")
        if any(w < 0 for w in value.values()) or sum(value.values()) <= 0:
            raise ValueError("difficulty weights must be non-negative with a positive total")
        return value

    @classmethod
    def checked(cls, **values: Any) -> "PipelineConfig":
        """A config from a form or the command line; PipelineError names the first setting that is wrong."""
        try:
            return cls(**values)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = " ".join(str(p) for p in first["loc"]).replace("_", " ")
            raise PipelineError(f"{where}: {first['msg']}") from None
