"""The prompt files in core/llm/prompts: the reasoning-schema library and each agent's versioned prompt."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import yaml
from pydantic import BaseModel, Field

from core.llm.pipeline.errors import PipelineError

PROMPTS_DIR = Path(__file__).resolve().parents[1] / "prompts"
SCHEMAS_FILE = PROMPTS_DIR / "reasoning_schemas.yaml"
PROMPT_VERSION = "v1"


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
