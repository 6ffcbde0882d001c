"""The run: each item through the four agents, round again while a failure is fixable, items side by side.

Fixable, and so tried again while retries remain: a ``fixable_with_regeneration``
verdict, a reply that is not the structured answer asked for (not JSON, fields
missing, wrong types), a failed call (server error, timeout) and an exception in
the checking of a reply. The Designer has ``max_retries`` retries of its own; the
Implementer, Verifier and Style Judge share the item's ``max_retries`` rounds. A
failed Implementer writes again with the retry prompt (the failure reports say
what was wrong with its answer); a failed Verifier or Style Judge call is asked
again about the same question, told why its answer could not be used. Only a
``structural_flaw`` rejects an item at once.
"""
from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor, as_completed
from datetime import datetime, timezone
from typing import Callable, Optional

from pydantic import BaseModel

from core.llm.client import LLMClient, LLMError, MalformedReply
from core.llm.pipeline.config import AGENTS, DIFFICULTIES, SUBJECTS, PipelineConfig, voice
from core.llm.pipeline.errors import PipelineError
from core.llm.pipeline.models import IdeaPlan, ImplementedItem, StyleReport, VerifierVerdict
from core.llm.pipeline.prompts import ReasoningSchema, _as_yaml, load_prompt, load_schemas, render
from core.llm.pipeline.results import ItemOutcome, LogEntry, PipelineResult

STAGE = "question_pipeline"
UNUSABLE = ("Your previous answer could not be used: {problem}.\n"
            "Answer again with every field the structured answer asks for, each with the type asked for.")
NO_PREVIOUS = "(none: the previous answer could not be used, see the failure reports)"

ProgressFn = Callable[[int, int, ItemOutcome], None]


class StageFailure(Exception):
    """A stage that gave no usable answer: a malformed reply, a failed call or an error in checking it."""

    def __init__(self, stage: str, kind: str, reason: str):
        super().__init__(reason)
        self.stage, self.kind, self.reason = stage, kind, reason   # kind: "malformed" or "error"

    def sentence(self) -> str:
        what = "reply could not be used" if self.kind == "malformed" else "call failed"
        return f"{self.stage} {what}: {self.reason}"


class _Run:
    def __init__(self, client: LLMClient, config: PipelineConfig, result: PipelineResult):
        self.client = client
        self.config = config
        self.result = result
        self.logs: dict[int, list[LogEntry]] = {}   # per item, so concurrent items keep their own order
        self.voices: dict[int, dict[str, str]] = {}   # per item, the prompt words of its subject
        self.prompts = {agent: load_prompt(agent, config.prompt_version) for agent in AGENTS}
        if "retry" not in self.prompts["implementer"]:
            raise PipelineError(f"the prompt file implementer.{config.prompt_version}.md needs a '<!-- retry -->' section")

    def call(self, item: int, agent: str, attempt: int, model: type[BaseModel], values: dict[str, str],
             section: str = "user", problem: Optional[str] = None) -> BaseModel:
        """The agent's answer; StageFailure (logged) when there is none. ``problem``: why its last answer failed."""
        values = {**self.voices.get(item, {}), **values}   # the words of the item's subject
        user = render(self.prompts[agent][section], values)
        if problem is not None:
            user += "\n\n" + UNUSABLE.format(problem=problem)
        messages = [{"role": "system", "content": render(self.prompts[agent]["system"], values)},
                    {"role": "user", "content": user}]
        try:
            return self.client.structured(agent, messages, model, stage=STAGE)
        except MalformedReply as exc:
            failure = StageFailure(agent, "malformed", str(exc))
        except LLMError as exc:
            failure = StageFailure(agent, "error", str(exc))
        self.log(item, agent, attempt, failure.kind, failure.reason)
        raise failure

    def log(self, item: int, agent: str, attempt: int, verdict: str, reason: Optional[str] = None) -> None:
        self.logs.setdefault(item, []).append(LogEntry(item=item, agent=agent, attempt=attempt, verdict=verdict,
                                                       reason=reason))

    def retried(self, item: int) -> None:
        """Mark the item's last log entry as a failure that sends the item round again."""
        self.logs[item][-1].retried = True

    def checking(self, item: int, agent: str, attempt: int, exc: Exception) -> StageFailure:
        """An exception in checking an agent's answer, logged as a failed stage."""
        failure = StageFailure(agent, "error", f"checking the answer failed ({type(exc).__name__}: {exc})")
        self.log(item, agent, attempt, "error", failure.reason)
        return failure

    # ---------------------------------------------------------------- one item
    def item(self, index: int, schema: ReasoningSchema, difficulty: str) -> ItemOutcome:
        outcome = ItemOutcome(item=index, schema_id=schema.id, difficulty=difficulty, accepted=False)
        self.voices[index] = voice(schema.id)
        plan_text = self.design(index, outcome, schema, difficulty)
        if plan_text is None:
            return outcome
        return self.implement(index, outcome, plan_text, difficulty)

    def design(self, index: int, outcome: ItemOutcome, schema: ReasoningSchema, difficulty: str) -> Optional[str]:
        """The Designer's idea plan as text for the Implementer (kept in ``outcome``); None when it gave none."""
        values = {"schema_id": schema.id, "schema_name": schema.name, "schema_description": schema.description,
                  "question_shapes": "\n".join(f"- {s}" for s in schema.question_shapes), "difficulty": difficulty}
        problem: Optional[str] = None
        tries = self.config.max_retries + 1
        for attempt in range(tries):
            try:
                plan = self.call(index, "designer", attempt, IdeaPlan, values, problem=problem)
                plan_text = _as_yaml(plan)
            except PipelineError:
                raise
            except Exception as exc:  # noqa: BLE001 - an error in checking an answer is a fixable failure, logged
                failure = exc if isinstance(exc, StageFailure) else self.checking(index, "designer", attempt, exc)
                if attempt + 1 == tries:
                    self._reject(outcome, "designer", failure.sentence(), tries)
                    return None
                self.retried(index)
                problem = failure.reason
                continue
            self.log(index, "designer", attempt, "ok")
            outcome.idea_plan = plan.model_dump()
            return plan_text
        raise AssertionError("the designer loop always returns")  # pragma: no cover

    def implement(self, index: int, outcome: ItemOutcome, plan_text: str, difficulty: str) -> ItemOutcome:
        previous: Optional[ImplementedItem] = None   # the last question the Implementer wrote
        judged: list[str] = []                       # the last judge's report on it
        reports: list[str] = []                      # what the next retry prompt says went wrong
        again: Optional[str] = None                  # the judge to ask again about the same question
        problem: Optional[str] = None                # why that judge's last answer could not be used
        question: Optional[ImplementedItem] = None
        verdict: Optional[VerifierVerdict] = None
        rounds = self.config.max_retries + 1
        for attempt in range(rounds):
            last = attempt + 1 == rounds
            stage = again or "implementer"
            try:
                if again is None:
                    question = self.write(index, outcome, attempt, plan_text, difficulty, previous, reports)
                    verdict = None
                assert question is not None
                question_text = _as_yaml(question)
                if verdict is None:
                    stage = "verifier"
                    verdict = self.verify(index, outcome, attempt, difficulty, question_text,
                                          problem if again == "verifier" else None)
                    if verdict.severity != "ok":
                        reason = f"verifier {verdict.failure_type or 'failure'}: " + (
                            "; ".join(verdict.reasons) or "no reason given")
                        self.log(index, "verifier", attempt, verdict.severity, reason)
                        if verdict.severity == "structural_flaw" or last:
                            return self._reject(outcome, "verifier", reason,
                                                outcome.attempts if verdict.severity != "structural_flaw" else None)
                        self.retried(index)
                        previous, again, problem = question, None, None
                        judged = reports = ["Verifier FAIL report:\n" + _as_yaml(verdict)]
                        continue
                    self.log(index, "verifier", attempt, "ok")
                stage = "style_judge"
                style, rule = self.judge(index, outcome, attempt, difficulty, question_text, verdict,
                                         problem if again == "style_judge" else None)
            except PipelineError:
                raise   # a prompt file the run cannot use: no retry can help
            except Exception as exc:  # noqa: BLE001 - an error in checking an answer is a fixable failure, logged
                failure = exc if isinstance(exc, StageFailure) else self.checking(index, stage, attempt, exc)
                if last:
                    return self._reject(outcome, failure.stage, failure.sentence(), rounds)
                self.retried(index)
                if failure.stage == "implementer":
                    again, problem = None, None
                    reports = judged + [UNUSABLE.format(problem=failure.reason)]
                else:
                    again, problem = failure.stage, failure.reason
                continue
            if style.severity == "ok" and not rule:
                self.log(index, "style_judge", attempt, "ok")
                return self._accept(outcome)
            severity = "structural_flaw" if style.severity == "structural_flaw" else "fixable_with_regeneration"
            reason = "style " + (style.failure_type or "failure") + ": " + (
                "; ".join(rule) if rule else "the judge failed the question")
            self.log(index, "style_judge", attempt, severity, reason)
            if severity == "structural_flaw" or last:
                return self._reject(outcome, "style_judge", reason,
                                    outcome.attempts if severity != "structural_flaw" else None)
            self.retried(index)
            previous, again, problem = question, None, None
            judged = reports = ["Style Judge FAIL report:\n" + _as_yaml(style)
                                + ("\nThe style rule failed: " + "; ".join(rule) if rule else "")]
        raise AssertionError("the attempt loop always returns")  # pragma: no cover

    def write(self, index: int, outcome: ItemOutcome, attempt: int, plan_text: str, difficulty: str,
              previous: Optional[ImplementedItem], reports: list[str]) -> ImplementedItem:
        values = {"difficulty": difficulty, "idea_plan": plan_text}
        outcome.attempts += 1
        if not reports:
            question = self.call(index, "implementer", attempt, ImplementedItem, values)
        else:
            values.update(previous_attempt_number=str(attempt),
                          previous_attempt=_as_yaml(previous) if previous is not None else NO_PREVIOUS,
                          failure_reports="\n\n".join(reports))
            question = self.call(index, "implementer", attempt, ImplementedItem, values, section="retry")
        outcome.question = question.model_dump()
        outcome.verifier_report = outcome.style_report = None
        self.log(index, "implementer", attempt, "ok")
        return question  # type: ignore[return-value]

    def verify(self, index: int, outcome: ItemOutcome, attempt: int, difficulty: str, question_text: str,
               problem: Optional[str]) -> VerifierVerdict:
        verdict = self.call(index, "verifier", attempt, VerifierVerdict,
                            {"difficulty": difficulty, "question": question_text}, problem=problem)
        outcome.verifier_report = verdict.model_dump()
        return verdict  # type: ignore[return-value]

    def judge(self, index: int, outcome: ItemOutcome, attempt: int, difficulty: str, question_text: str,
              verdict: VerifierVerdict, problem: Optional[str]) -> tuple[StyleReport, list[str]]:
        style = self.call(index, "style_judge", attempt, StyleReport,
                          {"difficulty": difficulty, "question": question_text,
                           "verifier_report": _as_yaml(verdict)}, problem=problem)
        outcome.style_report = style.model_dump()
        return style, style.scores.failures()  # type: ignore[attr-defined,return-value]

    def _accept(self, outcome: ItemOutcome) -> ItemOutcome:
        outcome.accepted = True
        outcome.accepted_at = datetime.now(timezone.utc).isoformat(timespec="seconds")
        outcome.subject = self.config.subject or SUBJECTS.get(outcome.schema_id[:1])
        outcome.level, outcome.outcome_id = self.config.level, self.config.outcome_id
        return outcome

    @staticmethod
    def _reject(outcome: ItemOutcome, stage: str, reason: str, tries: Optional[int]) -> ItemOutcome:
        """Reject the item at ``stage``; ``tries`` when it ran out of retries (None: rejected at once)."""
        outcome.stage = stage
        outcome.reason = reason + (f" (no attempts left after {tries})" if tries else "")
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
