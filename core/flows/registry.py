"""Which flow runs each session kind, and a runner over a store and library."""
from __future__ import annotations

import time
from typing import Any, Callable

from core.blueprints.library import Library
from core.flows.base import Context, Flow, Runner
from core.flows.chat import ChatFlow
from core.flows.evaluation import EvaluationFlow
from core.flows.exam import ExamFlow
from core.flows.lesson import LessonFlow
from core.flows.practice import PracticeFlow
from core.flows.survey import SurveyFlow
from core.store import Store

FLOWS: dict[str, type[Flow]] = {
    PracticeFlow.kind: PracticeFlow,
    ExamFlow.kind: ExamFlow,
    EvaluationFlow.kind: EvaluationFlow,
    LessonFlow.kind: LessonFlow,
    SurveyFlow.kind: SurveyFlow,
    ChatFlow.kind: ChatFlow,
}


def make_runner(store: Store, library: Library, llm: Any = None, clock: Callable[[], float] = time.time) -> Runner:
    return Runner(Context.create(store, library, llm, clock), FLOWS)
