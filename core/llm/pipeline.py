"""The multi-agent question pipeline: Designer -> Implementer -> Verifier -> Style Judge.

Each item gets a reasoning schema (seeded choice among the allowed prefixes) and a
difficulty (seeded choice by weights). The Designer plans the idea, the Implementer
writes the question, the Verifier checks it and the Style Judge scores it. A
``fixable_with_regeneration`` verdict sends the Implementer round again (with the retry
instructions, the idea plan, the previous attempt and the failure reports) while
attempts remain; a ``structural_flaw`` rejects the item at once; an LLMError rejects the
item with its reason and the run goes on; items run concurrently up to the client's
concurrency. Results are exported to files, and ``store_accepted`` puts the accepted
questions into the review queue as drafts.
"""
from __future__ import annotations

import hashlib
import json
import random
import statistics
from datetime import datetime, timezone
from pathlib import Path
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, Callable, Literal, Optional

import yaml
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

from core.items.generator import Item, normalise_text
from core.llm.client import LLMClient, LLMError

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"
SCHEMAS_FILE = PROMPTS_DIR / "reasoning_schemas.yaml"
PROMPT_VERSION = "v1"
DIFFICULTIES = ("easy", "medium", "hard")
AGENTS = ("designer", "implementer", "verifier", "style_judge")
STAGE = "question_pipeline"
STYLE_MIN_SCORE = 7
STYLE_MIN_MEAN = 8.0

Severity = Literal["ok", "fixable_with_regeneration", "structural_flaw"]


class PipelineError(ValueError):
    """A pipeline configuration or prompt file that cannot be used, said in one sentence."""


# --------------------------------------------------------------------------
# Structured answers


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


# --------------------------------------------------------------------------
# Schemas and prompts


class ReasoningSchema(BaseModel):
    id: str
    name: str
    description: str
    question_shapes: list[str] = Field(min_length=1)


def load_schemas(path: Path = SCHEMAS_FILE) -> list[ReasoningSchema]:
    """The reasoning-schema library, in file order."""
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as exc:
        raise PipelineError(f"the reasoning-schema library {path} cannot be read: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("schemas"), list):
        raise PipelineError(f"the reasoning-schema library {path} needs a top-level 'schemas' list")
    return [ReasoningSchema(**entry) for entry in data["schemas"]]


def load_prompt(agent: str, version: str = PROMPT_VERSION) -> dict[str, str]:
    """The sections (system, user, and retry for the Implementer) of one agent's versioned prompt file."""
    path = PROMPTS_DIR / f"{agent}.{version}.md"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PipelineError(f"the prompt file {path.name} cannot be read: {exc.strerror or exc}") from None
    sections: dict[str, list[str]] = {}
    current: Optional[str] = None
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("<!--") and stripped.endswith("-->"):
            current = stripped[4:-3].strip()
            sections[current] = []
        elif current is not None:
            sections[current].append(line)
    if "system" not in sections or "user" not in sections:
        raise PipelineError(f"the prompt file {path.name} needs '<!-- system -->' and '<!-- user -->' sections")
    return {name: "\n".join(lines).strip() for name, lines in sections.items()}


def render(template: str, values: dict[str, str]) -> str:
    try:
        return template.format_map(values)
    except KeyError as exc:
        raise PipelineError(f"a prompt asks for {{{exc.args[0]}}}, which the pipeline does not fill") from None


def _as_yaml(model: BaseModel | dict) -> str:
    data = model.model_dump() if isinstance(model, BaseModel) else model
    return yaml.safe_dump(data, sort_keys=False, allow_unicode=True).strip()


# --------------------------------------------------------------------------
# Configuration and results


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


class LogEntry(BaseModel):
    item: int
    agent: str
    attempt: int
    verdict: str
    reason: Optional[str] = None


class ItemOutcome(BaseModel):
    item: int
    schema_id: str
    difficulty: str
    accepted: bool
    stage: Optional[str] = None           # where a rejected item stopped
    reason: Optional[str] = None
    attempts: int = 0                     # Implementer calls made
    idea_plan: Optional[dict] = None
    question: Optional[dict] = None       # the accepted, or last, implementation
    verifier_report: Optional[dict] = None
    style_report: Optional[dict] = None

    def record(self, models: dict[str, str]) -> dict[str, Any]:
        row = self.model_dump(exclude={"accepted"})
        if self.accepted:
            row.pop("stage")
            row.pop("reason")
            fingerprint = hashlib.sha256(json.dumps(self.question, sort_keys=True).encode()).hexdigest()[:10]
            row = {"id": f"{self.schema_id}-{self.difficulty}-{fingerprint}", **row, "models": models}
        return row


class PipelineResult(BaseModel):
    config: PipelineConfig
    models: dict[str, str]
    items: list[ItemOutcome] = Field(default_factory=list)
    logs: list[LogEntry] = Field(default_factory=list)

    @property
    def accepted(self) -> list[ItemOutcome]:
        return [i for i in self.items if i.accepted]

    @property
    def rejected(self) -> list[ItemOutcome]:
        return [i for i in self.items if not i.accepted]

    def stats(self) -> dict[str, Any]:
        per_stage: dict[str, dict[str, Any]] = {}
        for agent in AGENTS:
            calls = [e for e in self.logs if e.agent == agent]
            passed = sum(1 for e in calls if e.verdict == "ok")
            per_stage[agent] = {"calls": len(calls), "passed": passed,
                                "acceptance_rate": round(passed / len(calls), 4) if calls else None}
        rejected_by_stage: dict[str, int] = {}
        for item in self.rejected:
            rejected_by_stage[item.stage or "unknown"] = rejected_by_stage.get(item.stage or "unknown", 0) + 1
        tried = [i.attempts for i in self.items if i.attempts]
        accepted_attempts = [i.attempts for i in self.accepted]
        by_schema: dict[str, dict[str, int]] = {}
        for item in self.items:
            entry = by_schema.setdefault(item.schema_id, {"accepted": 0, "rejected": 0})
            entry["accepted" if item.accepted else "rejected"] += 1
        return {
            "items": len(self.items), "accepted": len(self.accepted), "rejected": len(self.rejected),
            "acceptance_rate": round(len(self.accepted) / len(self.items), 4) if self.items else None,
            "stages": per_stage, "rejected_by_stage": rejected_by_stage, "by_schema": by_schema,
            "mean_attempts": round(statistics.fmean(tried), 4) if tried else None,
            "mean_attempts_accepted": round(statistics.fmean(accepted_attempts), 4) if accepted_attempts else None,
            "config": self.config.model_dump(), "models": self.models,
        }

    def files(self) -> dict[str, str]:
        """The export files' names and contents: accepted.jsonl, rejected.jsonl, logs.jsonl and stats.json."""
        def lines(rows: list[dict]) -> str:
            return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)

        return {"accepted.jsonl": lines([i.record(self.models) for i in self.accepted]),
                "rejected.jsonl": lines([i.record(self.models) for i in self.rejected]),
                "logs.jsonl": lines([e.model_dump() for e in self.logs]),
                "stats.json": json.dumps(self.stats(), indent=2, ensure_ascii=False) + "\n"}

    def export(self, folder: Path | str) -> Path:
        """Write the export files into ``folder``."""
        out = Path(folder)
        out.mkdir(parents=True, exist_ok=True)
        for name, text in self.files().items():
            (out / name).write_text(text, encoding="utf-8")
        return out


def default_run_folder(root: Path | str = "runs") -> Path:
    return Path(root) / datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")


# --------------------------------------------------------------------------
# The run


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


# --------------------------------------------------------------------------
# Into the review queue

SUBJECTS = {"M": "Mathematics", "P": "Physics"}
DIFFICULTY_VALUES = {"easy": 0.3, "medium": 0.5, "hard": 0.7}


def outcome_item(outcome: ItemOutcome, models: dict[str, str], level: Optional[str] = None) -> Item:
    """An accepted pipeline question as a draft multiple-choice Item carrying its reports."""
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
        generation_params={"schema_id": outcome.schema_id, "difficulty": outcome.difficulty},
        computed_values={"idea_plan": outcome.idea_plan, "attempts": outcome.attempts},
        subject=SUBJECTS.get(outcome.schema_id[:1]), level=level, outcome_ids=[], skill_ids=[],
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
