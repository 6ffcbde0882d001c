"""The agents' structured answers: what the Designer, Implementer, Verifier and Style Judge must each return."""
from __future__ import annotations

import statistics
from typing import Literal, Optional

from pydantic import BaseModel, Field, model_validator

STYLE_MIN_SCORE = 7
STYLE_MIN_MEAN = 8.0

Severity = Literal["ok", "fixable_with_regeneration", "structural_flaw"]


class IdeaPlan(BaseModel):
    """The Designer's plan: the reasoning idea, with no numbers or equations."""
    schema_id: str
    idea_summary: str
    function_or_object_type: str
    constraints_used: list[str]
    what_is_asked: str
    intended_wrong_paths: list[str]
    difficulty_rationale: str
    mcq_viability: str


class Option(BaseModel):
    label: str
    text: str


class DistractorNote(BaseModel):
    label: str
    reasoning_path: str


class ImplementedItem(BaseModel):
    """The Implementer's question: stem, 4-8 options labelled A.., the key and the solution."""
    stem: str
    options: list[Option]
    correct_option: str
    reasoning: str
    key_insight: str
    distractor_map: list[DistractorNote]

    @model_validator(mode="after")
    def _options_hold_together(self) -> "ImplementedItem":
        labels = [o.label for o in self.options]
        if not 4 <= len(labels) <= 8:
            raise ValueError(f"a question needs 4 to 8 options, not {len(labels)}")
        if labels != list("ABCDEFGH"[:len(labels)]):
            raise ValueError(f"options must be labelled A to {'ABCDEFGH'[len(labels) - 1]} in order, not {', '.join(labels)}")
        if self.correct_option not in labels:
            raise ValueError(f"the correct option {self.correct_option!r} is not one of the options")
        return self


class VerifierVerdict(BaseModel):
    """The Verifier's judgement; severity 'ok' is a pass."""
    verdict: Literal["PASS", "FAIL"]
    severity: Severity
    confidence: Optional[Literal["high", "medium", "low"]] = None
    failure_type: Optional[str] = None
    reasons: list[str] = Field(default_factory=list)
    regen_instructions: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _verdict_matches_severity(self) -> "VerifierVerdict":
        if (self.verdict == "PASS") != (self.severity == "ok"):
            raise ValueError(f"verdict {self.verdict} does not match severity {self.severity}")
        return self


class StyleScores(BaseModel):
    esat_authenticity: int = Field(ge=0, le=10)
    one_idea_purity: int = Field(ge=0, le=10)
    no_calculator_suitability: int = Field(ge=0, le=10)
    elegance: int = Field(ge=0, le=10)
    distractor_realism: int = Field(ge=0, le=10)
    plausibility: int = Field(ge=0, le=10)

    def failures(self) -> list[str]:
        """Why these scores fail the style rule (any category under 7, or mean under 8); empty when they pass."""
        values = self.model_dump()
        low = [f"{name} scored {score} (under {STYLE_MIN_SCORE})" for name, score in values.items() if score < STYLE_MIN_SCORE]
        mean = statistics.fmean(values.values())
        if mean < STYLE_MIN_MEAN:
            low.append(f"mean score {mean:.2f} is under {STYLE_MIN_MEAN:g}")
        return low


class StyleReport(BaseModel):
    """The Style Judge's scores and verdict; the style rule is applied again in code."""
    verdict: Literal["PASS", "FAIL"]
    scores: StyleScores
    severity: Severity
    failure_type: Optional[str] = None
    regen_instructions: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _verdict_matches_severity(self) -> "StyleReport":
        if (self.verdict == "PASS") != (self.severity == "ok"):
            raise ValueError(f"verdict {self.verdict} does not match severity {self.severity}")
        return self
