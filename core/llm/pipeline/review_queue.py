"""Accepted questions into the review queue: each a draft multiple-choice item carrying its reports."""
from __future__ import annotations

import hashlib
from typing import Any, Optional

from core.items.generator import Item, normalise_text
from core.llm.pipeline.config import SUBJECTS
from core.llm.pipeline.errors import PipelineError
from core.llm.pipeline.models import ImplementedItem
from core.llm.pipeline.results import ItemOutcome, PipelineResult

DIFFICULTY_VALUES = {"easy": 0.3, "medium": 0.5, "hard": 0.7}


def outcome_item(outcome: ItemOutcome, models: dict[str, str], level: Optional[str] = None) -> Item:
    """An accepted pipeline question as a draft multiple-choice Item carrying its reports.

    It is filed under the run's course and outcome when the run named them (``level`` overrides the run's
    level), and carries when it was accepted; a question with no outcome reaches no student until the reviewer
    chooses one.
    """
    if not outcome.accepted or outcome.question is None:
        raise PipelineError(f"item {outcome.item} was not accepted and cannot go to the review queue")
    question = ImplementedItem(**outcome.question)
    record = outcome.record(models)
    options = [o.text for o in question.options]
    index = [o.label for o in question.options].index(question.correct_option)
    why = {d.label: d.reasoning_path for d in question.distractor_map}
    return Item(
        id=record["id"], blueprint_id=None, blueprint_version=None, blueprint_hash="",  # type: ignore[arg-type]
        source="pipeline", seed=f"{outcome.schema_id}/{outcome.item}", difficulty_level=outcome.difficulty,
        difficulty_value=DIFFICULTY_VALUES.get(outcome.difficulty, 0.5), item_type="multiple_choice",
        stem=question.stem, options=options,
        option_strategies=[None if i == index else "pipeline_distractor" for i in range(len(options))],
        options_shuffled=False, correct_answer=options[index], correct_index=index, answer_value=options[index],
        accepted_answers=[], misconceptions={options[i]: why[o.label] for i, o in enumerate(question.options)
                                             if o.label in why and i != index},
        explanation=question.reasoning, hints=[question.key_insight], answer_type="string", units=None, marks=1,
        marking_scheme={"criteria": [], "total_marks": 1},
        evaluation={"method": "mcq", "tolerance": None, "significant_figures": None, "required_form": "any",
                    "keywords": [], "min_keywords": None, "partial_credit": False},
        generation_params={"schema_id": outcome.schema_id, "difficulty": outcome.difficulty,
                           "accepted_at": outcome.accepted_at},
        computed_values={"idea_plan": outcome.idea_plan, "attempts": outcome.attempts},
        subject=outcome.subject or SUBJECTS.get(outcome.schema_id[:1]), level=level or outcome.level,
        outcome_ids=[outcome.outcome_id] if outcome.outcome_id else [], skill_ids=[],
        calculator="none", content_key=hashlib.sha256(normalise_text(question.stem).encode()).hexdigest()[:20],
        status="draft")


def store_accepted(store: Any, result: PipelineResult, level: Optional[str] = None) -> int:
    """Accepted questions into the review queue as drafts, each with its verifier and style reports."""
    from core.store.llm_runs import save_verifications
    from core.store.repo import insert_items
    pairs = [(outcome_item(o, result.models, level), o) for o in result.accepted]
    added = insert_items(store, [item for item, _ in pairs], status="draft")
    save_verifications(store, {item.id: {"method": "four_agent_pipeline", "verdict": "verified",
                                         "verifier": outcome.verifier_report, "style": outcome.style_report,
                                         "attempts": outcome.attempts} for item, outcome in pairs})
    return added


def outcome_choices(library: Any) -> list[tuple[str, str, str, str]]:
    """(subject, level, outcome id, label) of every outcome in the library's course specs whose subject the
    reasoning schemas write, in the specs' order: where a run's accepted questions can be filed."""
    subjects = {s.lower() for s in SUBJECTS.values()}
    return [(spec.model.subject, spec.model.level, o.id, o.label)
            for spec in library.specs.values() if spec.model.subject.lower() in subjects for o in spec.model.outcomes]
