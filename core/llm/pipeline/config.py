"""What a run is asked for: how many items, the seed, retries, the difficulty mix and the schemas to draw from."""
from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from core.llm.pipeline.errors import PipelineError
from core.llm.pipeline.prompts import PROMPT_VERSION, load_schemas

DIFFICULTIES = ("easy", "medium", "hard")
AGENTS = ("designer", "implementer", "verifier", "style_judge")
# The subject of each reasoning-schema family (the first letter of a schema's id).
SUBJECTS = {"M": "Mathematics", "P": "Physics", "C": "Chemistry", "B": "Biology"}
# Who the questions are written for and what the Verifier checks, by family: the words the prompts take.
CANDIDATES = {
    "M": "The candidate has strong A-level mathematics, knows differentiation and simple integration\n"
         "only, is fluent but short of time, and has no calculator.",
    "C": "The candidate has strong A-level chemistry and the mathematics it uses (moles, ratios,\n"
         "percentages), is fluent but short of time, and has no calculator.",
    "B": "The candidate has strong A-level biology and the mathematics it uses (ratios, percentages,\n"
         "reading graphs), is fluent but short of time, and has no calculator.",
}
CANDIDATES["P"] = CANDIDATES["M"]
DISCIPLINES = {"M": "the mathematics or physics", "P": "the mathematics or physics",
               "C": "the chemistry (and any arithmetic in it)", "B": "the biology (and any arithmetic in it)"}


def families() -> list[tuple[str, str]]:
    """(prefix, label) of each family of reasoning schemas in the library, in file order: "Chemistry (C1–C6)"."""
    ids: dict[str, list[str]] = {}
    for schema in load_schemas():
        ids.setdefault(schema.id[:1], []).append(schema.id)
    return [(p, f"{SUBJECTS.get(p, p)} ({found[0]}–{found[-1]})" if len(found) > 1 else
             f"{SUBJECTS.get(p, p)} ({found[0]})") for p, found in ids.items()]


def voice(schema_id: str) -> dict[str, str]:
    """The prompt words of a schema's subject: ``candidate`` (who answers) and ``discipline`` (what is checked)."""
    family = schema_id[:1] if schema_id[:1] in SUBJECTS else "M"
    return {"candidate": CANDIDATES[family], "discipline": DISCIPLINES[family]}


class PipelineConfig(BaseModel):
    n: int = Field(default=1, ge=1, le=1000)
    seed: int = 0
    max_retries: int = Field(default=2, ge=0, le=10)
    difficulty_weights: dict[str, float] = Field(default_factory=lambda: {"easy": 0.3, "medium": 0.5, "hard": 0.2})
    schema_prefixes: list[str] = Field(default_factory=lambda: list(SUBJECTS), min_length=1)   # every family
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
