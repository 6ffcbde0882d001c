"""The run: each item through the four agents, round again while a failure is fixable, items side by side."""
from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Callable, Optional

from pydantic import BaseModel

from core.llm.client import LLMClient, LLMError
from core.llm.pipeline.config import AGENTS, DIFFICULTIES, PipelineConfig
from core.llm.pipeline.errors import PipelineError
from core.llm.pipeline.models import IdeaPlan, ImplementedItem, StyleReport, VerifierVerdict
from core.llm.pipeline.prompts import ReasoningSchema, _as_yaml, load_prompt, load_schemas, render
from core.llm.pipeline.results import ItemOutcome, LogEntry, PipelineResult

STAGE = "question_pipeline"

ProgressFn = Callable[[int, int, ItemOutcome], None]


class _Run:
    def __init__(self, client: LLMClient, config: PipelineConfig, result: PipelineResult):
        self.client = client
        self.config = config
        self.result = result
        self.logs: dict[int, list[LogEntry]] = {}   # per item, so concurrent items keep their own order
        self.prompts = {agent: load_prompt(agent, config.prompt_version) for agent in AGENTS}
        if "retry" not in self.prompts["implementer"]:
            raise PipelineError(f"the prompt file implementer.{config.prompt_version}.md needs a '<!-- retry -->' section")

    def call(self, item: int, agent: str, attempt: int, model: type[BaseModel], values: dict[str, str],
             section: str = "user") -> BaseModel:
        messages = [{"role": "system", "content": render(self.prompts[agent]["system"], values)},
                    {"role": "user", "content": render(self.prompts[agent][section], values)}]
        try:
            return self.client.structured(agent, messages, model, stage=STAGE)
        except LLMError as exc:
            self.log(item, agent, attempt, "error", str(exc))
            raise

    def log(self, item: int, agent: str, attempt: int, verdict: str, reason: Optional[str] = None) -> None:
        self.logs.setdefault(item, []).append(LogEntry(item=item, agent=agent, attempt=attempt, verdict=verdict,
                                                       reason=reason))

    def item(self, index: int, schema: ReasoningSchema, difficulty: str) -> ItemOutcome:
        outcome = ItemOutcome(item=index, schema_id=schema.id, difficulty=difficulty, accepted=False)
        stage = "designer"
        try:
            plan = self.call(index, "designer", 0, IdeaPlan, {
                "schema_id": schema.id, "schema_name": schema.name, "schema_description": schema.description,
                "question_shapes": "\n".join(f"- {s}" for s in schema.question_shapes), "difficulty": difficulty})
            self.log(index, "designer", 0, "ok")
            outcome.idea_plan = plan.model_dump()
            plan_text = _as_yaml(plan)
            previous: Optional[ImplementedItem] = None
            reports: list[str] = []
            attempts = self.config.max_retries + 1
            for attempt in range(attempts):
                last = attempt + 1 == attempts
                stage = "implementer"
                values = {"difficulty": difficulty, "idea_plan": plan_text}
                if previous is None:
                    question = self.call(index, "implementer", attempt, ImplementedItem, values)
                else:
                    values.update(previous_attempt_number=str(attempt), previous_attempt=_as_yaml(previous),
                                  failure_reports="\n\n".join(reports))
                    question = self.call(index, "implementer", attempt, ImplementedItem, values, section="retry")
                outcome.attempts = attempt + 1
                outcome.question = question.model_dump()
                self.log(index, "implementer", attempt, "ok")
                question_text = _as_yaml(question)

                stage = "verifier"
                verdict = self.call(index, "verifier", attempt, VerifierVerdict,
                                    {"difficulty": difficulty, "question": question_text})
                outcome.verifier_report = verdict.model_dump()
                outcome.style_report = None
                if verdict.severity != "ok":
                    reason = f"verifier {verdict.failure_type or 'failure'}: " + ("; ".join(verdict.reasons) or "no reason given")
                    self.log(index, "verifier", attempt, verdict.severity, reason)
                    if verdict.severity == "structural_flaw" or last:
                        return self._reject(outcome, "verifier", reason, last and verdict.severity != "structural_flaw")
                    previous = question
                    reports = ["Verifier FAIL report:\n" + _as_yaml(verdict)]
                    continue
                self.log(index, "verifier", attempt, "ok")

                stage = "style_judge"
                style = self.call(index, "style_judge", attempt, StyleReport,
                                  {"difficulty": difficulty, "question": question_text,
                                   "verifier_report": _as_yaml(verdict)})
                outcome.style_report = style.model_dump()
                rule = style.scores.failures()
                if style.severity == "ok" and not rule:
                    self.log(index, "style_judge", attempt, "ok")
                    outcome.accepted = True
                    return outcome
                severity = "structural_flaw" if style.severity == "structural_flaw" else "fixable_with_regeneration"
                reason = "style " + (style.failure_type or "failure") + ": " + (
                    "; ".join(rule) if rule else "the judge failed the question")
                self.log(index, "style_judge", attempt, severity, reason)
                if severity == "structural_flaw" or last:
                    return self._reject(outcome, "style_judge", reason, last and severity != "structural_flaw")
                previous = question
                reports = ["Style Judge FAIL report:\n" + _as_yaml(style)
                           + ("\nThe style rule failed: " + "; ".join(rule) if rule else "")]
            raise AssertionError("the attempt loop always returns")  # pragma: no cover
        except LLMError as exc:
            return self._reject(outcome, stage, f"{stage} call failed: {exc}", False)

    @staticmethod
    def _reject(outcome: ItemOutcome, stage: str, reason: str, exhausted: bool) -> ItemOutcome:
        outcome.stage = stage
        outcome.reason = reason + (f" (no attempts left after {outcome.attempts})" if exhausted else "")
        return outcome


def run_pipeline(client: LLMClient, config: PipelineConfig, progress: Optional[ProgressFn] = None) -> PipelineResult:
    """Generate ``config.n`` items through the four agents; a failed item is rejected and the run goes on."""
    schemas = [s for s in load_schemas() if any(s.id.startswith(p) for p in config.schema_prefixes)]
    if not schemas:
        raise PipelineError(f"no reasoning schema starts with {', '.join(config.schema_prefixes)}")
    models = {agent: client.settings.model_for(agent) for agent in AGENTS}
    result = PipelineResult(config=config, models=models)
    run = _Run(client, config, result)
    rng = random.Random(config.seed)
    names = [d for d in DIFFICULTIES if config.difficulty_weights.get(d, 0) > 0]
    weights = [config.difficulty_weights[d] for d in names]
    plan = []
    for index in range(config.n):  # drawn up front, so the seed fixes the plan whatever order calls finish in
        schema = rng.choice(schemas)
        plan.append((index, schema, rng.choices(names, weights=weights)[0]))
    outcomes: dict[int, ItemOutcome] = {}
    with client.batched(), ThreadPoolExecutor(max_workers=min(config.n, client.settings.concurrency),
                                              thread_name_prefix="pipeline") as pool:
        futures = {pool.submit(run.item, *entry): entry[0] for entry in plan}
        for done, future in enumerate(as_completed(futures), 1):
            outcome = future.result()
            outcomes[futures[future]] = outcome
            if progress is not None:
                progress(done, config.n, outcome)
    result.items = [outcomes[i] for i in range(config.n)]
    result.logs = [entry for i in range(config.n) for entry in run.logs.get(i, [])]
    return result
