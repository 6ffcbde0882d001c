"""The multi-agent question pipeline: Designer -> Implementer -> Verifier -> Style Judge.

Each item gets a reasoning schema (seeded choice among the allowed prefixes: M mathematics,
P physics, C chemistry, B biology; the prompts speak of the schema's subject) and a
difficulty (seeded choice by weights). The Designer plans the idea, the Implementer
writes the question, the Verifier checks it and the Style Judge scores it. A
``fixable_with_regeneration`` verdict, a malformed reply, a failed call or an error in
checking an answer sends the item round again (the Implementer with the retry
instructions, the idea plan, the previous attempt and the failure reports) while
retries remain; a ``structural_flaw`` rejects the item at once; an item out of retries
is rejected with its stage and reason and the run goes on; items run concurrently up to
the client's concurrency. Accepted questions carry when they were accepted and, when the
run names one, the course outcome they assess. Results are exported to files, and
``store_accepted`` puts the accepted questions into the review queue as drafts.
"""
from core.llm.pipeline.config import AGENTS, DIFFICULTIES, PipelineConfig, families
from core.llm.pipeline.errors import PipelineError
from core.llm.pipeline.models import (STYLE_MIN_MEAN, STYLE_MIN_SCORE, DistractorNote, IdeaPlan, ImplementedItem,
                                      Option, Severity, StyleReport, StyleScores, VerifierVerdict)
from core.llm.pipeline.prompts import (PROMPT_VERSION, PROMPTS_DIR, SCHEMAS_FILE, ReasoningSchema, load_prompt,
                                       load_schemas, render)
from core.llm.pipeline.results import ItemOutcome, LogEntry, PipelineResult, default_run_folder
from core.llm.pipeline.review_queue import (DIFFICULTY_VALUES, SUBJECTS, outcome_choices, outcome_item,
                                            store_accepted)
from core.llm.pipeline.run import STAGE, ProgressFn, run_pipeline

__all__ = [
    "AGENTS", "DIFFICULTIES", "PipelineConfig", "PipelineError", "families",
    "STYLE_MIN_MEAN", "STYLE_MIN_SCORE", "Severity", "IdeaPlan", "Option", "DistractorNote", "ImplementedItem",
    "VerifierVerdict", "StyleScores", "StyleReport",
    "PROMPT_VERSION", "PROMPTS_DIR", "SCHEMAS_FILE", "ReasoningSchema", "load_prompt", "load_schemas", "render",
    "ItemOutcome", "LogEntry", "PipelineResult", "default_run_folder",
    "STAGE", "ProgressFn", "run_pipeline",
    "DIFFICULTY_VALUES", "SUBJECTS", "outcome_choices", "outcome_item", "store_accepted",
]
