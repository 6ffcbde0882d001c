"""What the item-writing model is asked: the blueprint's statement, ranges, constraints and strategies,
and the answer's shape.
"""
from __future__ import annotations

from typing import Any, Optional, Union

import yaml
from pydantic import BaseModel, Field

from core.items.generator import GenerationError, SkillGenerator

ITEM_GENERATOR_SYSTEM_PROMPT = """You are an expert assessment item writer.

Your job is to generate high-quality assessment items from skill blueprints.

## Requirements

1. ACCURACY: The correct answer you provide MUST be mathematically/factually correct.
   - For math: compute the actual result
   - For networking: apply the actual rules (subnetting, etc.)
   - For code: ensure the solution actually works

2. CLARITY: The stem should be unambiguous. One and only one answer is correct.

3. DISTRACTORS: Wrong options should be:
   - Plausible (represent common errors)
   - Clearly distinguishable from each other
   - Not "trick" questions

4. DIFFICULTY: Follow the difficulty constraints provided:
   - Easy: Straightforward application
   - Medium: Requires multi-step thinking
   - Hard: Edge cases or complex scenarios

5. EXPLANATION: Provide a clear explanation that could be shown to a learner
   after they answer (whether correct or not).

6. PARAMETERS: Report the exact value you chose for every blueprint parameter.
   Each value must lie in the parameter's range and together they must meet the
   level's constraints. The stem must show these values.

## Output Format

Always return valid JSON with this structure:
{
  "stem": "The question text",
  "options": ["A", "B", "C", "D"],
  "correct_answer": "B",
  "correct_index": 1,
  "explanation": "Why B is correct...",
  "parameters": {"name": value}
}
"""


class LLMItem(BaseModel):
    """The structured answer the item generator must give."""

    stem: str
    options: list[str]
    correct_answer: str
    correct_index: int
    explanation: str
    parameters: dict[str, Union[int, float, str]] = Field(default_factory=dict)


def _range_text(spec) -> dict:
    if spec.type == "choice":
        out: dict[str, Any] = {"type": "choice", "values": list(spec.values)}
    else:
        out = {"type": spec.type, "min": _num(spec.min), "max": _num(spec.max)}
        if spec.step is not None:
            out["step"] = _num(spec.step)
    if spec.exclude:
        out["exclude"] = list(spec.exclude)
    if spec.description:
        out["description"] = spec.description
    return out


def _num(x: Optional[float]) -> Any:
    return int(x) if isinstance(x, float) and x.is_integer() else x


def _dump(value: Any) -> str:
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=True, default_flow_style=False).rstrip()


def generation_prompt(generator: SkillGenerator, level: str, seed: Any = None) -> str:
    """The user prompt (seed 003, section 4.2) for one item of a skill at a difficulty level."""
    bp = generator.bp
    g, p, meta = bp.generation, bp.presentation, bp.metadata
    if level not in g.difficulty_levels:
        raise GenerationError(f"{bp.skill_id} has no difficulty level '{level}'; "
                              f"its levels are {', '.join(g.difficulty_levels)}")
    spec = g.difficulty_levels[level]
    option_count = p.option_count or 4
    factors: dict[str, Any] = {"value": spec.value}
    if spec.description:
        factors["description"] = spec.description
    factors["constraints"] = list(spec.constraints) or ["(none)"]
    adjustments = [{"condition": a.condition, "effect": a.description or f"difficulty {a.delta:+}"}
                   for a in g.difficulty_adjustments]
    distractors = [{"type": d.type, "description": d.description or d.type} for d in p.distractor_strategies]
    answer_form = g.answer_type + (f" with {g.answer_decimals} decimal places" if g.answer_decimals is not None else "")
    lines = [
        "Generate an assessment item for this skill:",
        "",
        f"SKILL: {meta.skill_statement}",
        f"DOMAIN: {meta.domain}" + (f" / {meta.subdomain}" if meta.subdomain else "")
        + (f" / {meta.topic}" if meta.topic else ""),
        f"DIFFICULTY: {level}",
        f"ITEM TYPE: {g.item_type}",
        f"ANSWER FORM: {answer_form}" + (f" (units: {p.units})" if p.units else ""),
        "",
        "PARAMETERS (choose one value for each, inside its range):",
        _dump({name: _range_text(ps) for name, ps in g.parameters.items()}),
        "",
        f"DIFFICULTY FACTORS FOR {level}:",
        _dump(factors),
    ]
    if adjustments:
        lines += ["", "OTHER DIFFICULTY FACTORS:", _dump(adjustments)]
    lines += [
        "",
        "DISTRACTOR GUIDELINES (common errors to base the wrong options on):",
        _dump(distractors) if distractors else "(none given: use plausible common errors)",
        "",
        "EXAMPLE STEMS (the {names} are the parameters; write your own wording if you like):",
        *[f"- {t}" for t in p.stem_templates],
        "",
        "Generate a complete item with:",
        "1. A clear, unambiguous stem (question) that shows the parameter values you chose",
        "2. The correct answer (computed/determined by you)",
        f"3. {option_count - 1} plausible but incorrect distractors",
        "4. A brief explanation of WHY the answer is correct",
        "5. The parameter values you used",
        "",
        f"The options list holds exactly {option_count} distinct options, shuffled, with the correct answer "
        f"among them; correct_index (0 to {option_count - 1}) is its position in options.",
    ]
    if seed is not None:
        lines += ["", f"Variant tag: {seed} (make this item differ from other variants)."]
    return "\n".join(lines)


def generation_messages(generator: SkillGenerator, level: str, seed: Any = None) -> list[dict]:
    return [{"role": "system", "content": ITEM_GENERATOR_SYSTEM_PROMPT},
            {"role": "user", "content": generation_prompt(generator, level, seed)}]
