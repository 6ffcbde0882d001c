"""Pydantic models of the three blueprint kinds.

Skill blueprints say how to generate and mark one skill's items; assessment
blueprints say how to assemble an evaluation from skills; course specs give a
course's outcomes and exam structure (SQA-style). Field names follow the YAML
formats teachers write; unknown fields are refused so a misspelt key is
reported rather than silently ignored.
"""
from __future__ import annotations

from pydantic import BaseModel

from core.blueprints.models.assessment import (AssessmentBlueprint, AssessmentConfiguration, AssessmentMetadata,
                                               AssessmentSection, GradeBand, Scoring, WeightedSkill)
from core.blueprints.models.base import (ID_PATTERN, MAX_DOMAIN, SKILL_ID_PATTERN, AnswerType, Calculator, CognitiveLevel,
                                         EvaluationMethod, ItemType, Scalar, Strict, fail)
from core.blueprints.models.course import CourseSpec, ExamFormat, Formula, Outcome, SpecSection
from core.blueprints.models.skill import (Benchmark, DifficultyAdjustment, DifficultyLevel, DistractorStrategy, Evaluation,
                                          Generation, MarkingCriterion, ParameterSpec, Presentation, SkillBlueprint,
                                          SkillMetadata, Tolerance)

KINDS = {"skill": SkillBlueprint, "assessment": AssessmentBlueprint, "spec": CourseSpec}
ID_FIELDS = {"skill": "skill_id", "assessment": "assessment_id", "spec": "spec_id"}


def blueprint_id(kind: str, model: BaseModel) -> str:
    return getattr(model, ID_FIELDS[kind])


__all__ = ["AnswerType", "AssessmentBlueprint", "AssessmentConfiguration", "AssessmentMetadata",
           "AssessmentSection", "Benchmark", "Calculator", "CognitiveLevel", "CourseSpec",
           "DifficultyAdjustment", "DifficultyLevel", "DistractorStrategy", "Evaluation", "EvaluationMethod", "ExamFormat",
           "Formula",
           "Generation", "GradeBand", "ID_PATTERN", "ItemType", "MAX_DOMAIN", "MarkingCriterion", "Outcome",
           "ParameterSpec", "Presentation", "SKILL_ID_PATTERN", "Scalar", "Scoring", "SkillBlueprint",
           "SkillMetadata", "SpecSection", "Strict", "Tolerance", "WeightedSkill", "fail", "KINDS",
           "ID_FIELDS", "blueprint_id"]
