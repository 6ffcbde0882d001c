"""Surveys (seed 002, section 10): ordered questions, no correct answers, skip logic.

The modules: ``definition`` (what a survey is: the pydantic models),
``loading`` (survey YAML files under blueprints/surveys/), ``answers``
(checking answers, skip rules, reading answers back) and ``flow``
(``SurveyFlow``, the session). Everything is importable from here.
"""
from __future__ import annotations

from core.flows.survey.answers import MAX_FREE_TEXT, check_answer, rule_matches, survey_answers
from core.flows.survey.definition import (END, ID_PATTERN, MAX_SCALE_POINTS, ORDERING_OPS, Condition, Scale,
                                          SkipRule, SurveyDefinition, SurveyQuestion)
from core.flows.survey.flow import SurveyFlow
from core.flows.survey.loading import (MAX_FILE_BYTES, SurveyError, list_surveys, load_survey, load_survey_file,
                                       parse_survey, survey_files, surveys_dir)

__all__ = ["SurveyFlow", "SurveyDefinition", "SurveyQuestion", "Scale", "Condition", "SkipRule", "SurveyError",
           "parse_survey", "load_survey_file", "load_survey", "list_surveys", "survey_files", "surveys_dir",
           "check_answer", "rule_matches", "survey_answers", "END", "MAX_FREE_TEXT", "MAX_SCALE_POINTS",
           "MAX_FILE_BYTES", "ID_PATTERN", "ORDERING_OPS"]
