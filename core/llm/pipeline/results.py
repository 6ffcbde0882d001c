"""What a run gives back: each item's outcome, the agents' log, the statistics and the export files."""
from __future__ import annotations

import hashlib
import json
import statistics
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Optional

from pydantic import BaseModel, Field

from core.llm.pipeline.config import AGENTS, PipelineConfig


class LogEntry(BaseModel):
    """One agent call: verdict "ok", a severity, "malformed" (no usable answer) or "error" (the call failed)."""
    item: int
    agent: str
    attempt: int
    verdict: str
    reason: Optional[str] = None
    retried: bool = False                 # the failure sent the item round again


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
    accepted_at: Optional[str] = None     # when the Style Judge passed it (ISO 8601, UTC)
    subject: Optional[str] = None         # the course it is filed under, when the run names one
    level: Optional[str] = None
    outcome_id: Optional[str] = None      # the course outcome it assesses, when the run names one

    def record(self, models: dict[str, str]) -> dict[str, Any]:
        row = self.model_dump(exclude={"accepted"})
        if self.accepted:
            row.pop("stage")
            row.pop("reason")
            fingerprint = hashlib.sha256(json.dumps(self.question, sort_keys=True).encode()).hexdigest()[:10]
            row = {"id": f"{self.schema_id}-{self.difficulty}-{fingerprint}", **row, "models": models}
        else:
            for name in ("accepted_at", "subject", "level", "outcome_id"):
                row.pop(name)
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
                                "acceptance_rate": round(passed / len(calls), 4) if calls else None,
                                "retries": sum(1 for e in calls if e.retried),
                                "malformed": sum(1 for e in calls if e.verdict == "malformed"),
                                "errors": sum(1 for e in calls if e.verdict == "error")}
        retry_reasons: dict[str, dict[str, int]] = {}
        for entry in self.logs:
            if entry.retried:
                kinds = retry_reasons.setdefault(entry.agent, {})
                kinds[entry.verdict] = kinds.get(entry.verdict, 0) + 1
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
            "retries": sum(v["retries"] for v in per_stage.values()), "retry_reasons": retry_reasons,
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
