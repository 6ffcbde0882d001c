"""Blueprint-driven items written by an LLM and verified by core.

The model gets the skill blueprint's statement, parameter ranges, the level's
constraints, difficulty factors and distractor strategies, and answers with a
stem, options, its key, an explanation and the parameters it used. Core then
checks the shape, that the parameters lie in their domains and meet the
level's constraints, that the stem shows those parameters, and recomputes the
key from the parameters with the blueprint's answer formula. The model's key
is never taken on trust: the stored key is always core's.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import string
from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, Callable, Optional, Union

import yaml
from pydantic import BaseModel, Field

from core.blueprints.compiler import display_value
from core.items.generator import GenerationError, Item, SkillGenerator, content_key, format_value, jsonable, normalise_text
from core.llm import LLMClient, LLMError
from core.store.db import Store

STAGE = "item_generation"
ROLE = "item_generator"
LLM_DISTRACTOR = "llm_distractor"

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


# --------------------------------------------------------------------------
# The prompt


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


# --------------------------------------------------------------------------
# Verification


class _Rejected(Exception):
    """A failed check; the report already says which."""


@dataclasses.dataclass
class _Checks:
    checks: list[dict] = dataclasses.field(default_factory=list)

    def check(self, name: str, ok: bool, detail: str) -> None:
        self.checks.append({"name": name, "ok": bool(ok), "detail": detail})
        if not ok:
            raise _Rejected(detail)


def _same(a: str, b: str) -> bool:
    return normalise_text(a) == normalise_text(b)


def _domain_value(domain: list, value: Any) -> tuple[bool, Any]:
    """Whether value is in the domain, and the domain's own copy of it (7.0 becomes 7)."""
    if isinstance(value, bool):
        return False, value
    for v in domain:
        if type(v) is str or type(value) is str:
            if type(v) is type(value) and v == value:
                return True, v
        elif v == value:
            return True, v
    return False, value


_FIELD_BOUNDARY = r"(?<![0-9A-Za-z.])", r"(?![0-9A-Za-z]|\.[0-9])"


def _stem_shows(generator: SkillGenerator, env: dict, stem: str) -> tuple[bool, str]:
    """Whether the stem shows the values some stem template would show for these parameters."""
    missing_best: Optional[list[str]] = None
    for template in generator.bp.presentation.stem_templates:
        missing = []
        for _literal, field, spec, _conv in string.Formatter().parse(template):
            if not field or field not in env:
                continue
            shown = ("{0:" + spec + "}").format(display_value(env[field])) if spec else format(display_value(env[field]))
            pattern = _FIELD_BOUNDARY[0] + re.escape(shown) + _FIELD_BOUNDARY[1]
            if not re.search(pattern, stem):
                missing.append(f"{field}={shown}")
        if not missing:
            return True, "the stem shows the declared parameter values"
        if missing_best is None or len(missing) < len(missing_best):
            missing_best = missing
    return False, f"the stem does not show the declared values ({', '.join(missing_best or [])})"


def _item_id(generator: SkillGenerator, level: str, seed: Any, params: dict, llm: LLMItem) -> str:
    bp = generator.bp
    identity = json.dumps([bp.skill_id, bp.version, generator.cs.hash, level, str(seed), jsonable(params),
                           llm.stem, llm.options], sort_keys=True, ensure_ascii=False)
    return "llm_" + hashlib.sha256(identity.encode()).hexdigest()[:16]


def verify_llm_item(generator: SkillGenerator, level: str, seed: Any, llm: LLMItem) -> tuple[Optional[Item], dict]:
    """Check a model's answer against the blueprint and build the item with core's key."""
    bp = generator.bp
    g, p = bp.generation, bp.presentation
    report: dict[str, Any] = {"skill_id": bp.skill_id, "level": level, "seed": str(seed),
                              "parameters": jsonable(llm.parameters), "model_key": llm.correct_answer,
                              "core_key": None, "checks": [], "verdict": "rejected", "reason": None}
    c = _Checks(report["checks"])
    try:
        n = p.option_count or 4
        options = [o.strip() for o in llm.options]
        c.check("option_count", len(options) == n, f"{len(options)} options given, the blueprint asks for {n}")
        c.check("options_non_empty", all(options), "an option is empty")
        distinct = len({normalise_text(o) for o in options}) == len(options)
        c.check("options_distinct", distinct, "the options are distinct" if distinct else "two options are the same")
        c.check("correct_index", 0 <= llm.correct_index < n,
                f"correct_index {llm.correct_index} is {'inside' if 0 <= llm.correct_index < n else 'outside'} 0..{n - 1}")
        points = _same(options[llm.correct_index], llm.correct_answer)
        c.check("index_matches_answer", points,
                f"correct_index points at '{options[llm.correct_index]}'"
                + ("" if points else f", not at the model's answer '{llm.correct_answer}'"))

        declared = llm.parameters
        unknown = sorted(set(declared) - set(generator.cs.domains))
        missing = sorted(set(generator.cs.domains) - set(declared))
        c.check("parameters_declared", not unknown and not missing,
                "every blueprint parameter is declared" if not unknown and not missing else
                "the parameters do not match the blueprint"
                + (f"; missing: {', '.join(missing)}" if missing else "")
                + (f"; unknown: {', '.join(unknown)}" if unknown else ""))
        params: dict[str, Any] = {}
        outside = []
        for name, domain in generator.cs.domains.items():
            ok, value = _domain_value(domain, declared[name])
            params[name] = value
            if not ok:
                outside.append(f"{name}={declared[name]!r}")
        c.check("parameters_in_range", not outside,
                "every parameter lies in its range" if not outside else f"outside its range: {', '.join(outside)}")

        env = generator.environment(params)
        meets = generator.satisfies(level, env)
        constraints = g.difficulty_levels[level].constraints
        c.check("level_constraints", meets,
                f"the parameters meet the constraints of level '{level}'" if meets else
                f"the parameters do not meet the constraints of level '{level}' ({'; '.join(constraints)})")

        core_key = format_value(env["answer"], g.answer_type, g.answer_decimals, True, "answer_formula")
        report["core_key"] = core_key
        agrees = _same(llm.correct_answer, core_key)
        c.check("key_recomputed", agrees,
                f"core computes {core_key} from the parameters and the model's key agrees" if agrees else
                f"the model's key '{llm.correct_answer}' does not match '{core_key}', which core computes "
                f"from the declared parameters")
        matches = [i for i, o in enumerate(options) if _same(o, core_key)]
        c.check("key_in_options", len(matches) == 1,
                f"core's key is option {matches[0]}" if len(matches) == 1 else "core's key is not among the options")
        shows, detail = _stem_shows(generator, env, llm.stem)
        c.check("stem_shows_parameters", shows, detail)

        base = generator.build(level, params, seed)
        c.check("core_build", base is not None,
                "core built the item's marking from the parameters" if base is not None else
                "core cannot build marking for these parameters (its distractor strategies give too few options)")
        assert base is not None
        key_index = matches[0]
        # Core's key text replaces the model's spelling of it; the model's wording stays elsewhere.
        options[key_index] = core_key
        strategies: list[Optional[str]] = [None if i == key_index else LLM_DISTRACTOR for i in range(n)]
        in_options = {normalise_text(o) for o in options}
        item = dataclasses.replace(
            base, id=_item_id(generator, level, seed, params, llm), source="llm", stem=llm.stem.strip(),
            options=options, option_strategies=strategies, options_shuffled=True, correct_answer=core_key,
            correct_index=key_index, explanation=llm.explanation.strip() or base.explanation,
            misconceptions={t: text for t, text in base.misconceptions.items() if normalise_text(text) in in_options},
            content_key=content_key(bp.skill_id, params), status="draft",
        )
    except _Rejected as exc:
        report["reason"] = str(exc)
        return None, report
    except GenerationError as exc:
        report["checks"].append({"name": "answer_formula", "ok": False, "detail": str(exc)})
        report["reason"] = str(exc)
        return None, report
    report["verdict"] = "verified"
    report["item_id"] = item.id
    return item, report


# --------------------------------------------------------------------------
# Generation


def _require_multiple_choice(generator: SkillGenerator) -> None:
    if generator.bp.generation.item_type != "multiple_choice":
        raise GenerationError(f"LLM items are made only for multiple-choice skills, and "
                              f"{generator.bp.skill_id} is {generator.bp.generation.item_type}")


def generate_llm_item(client: LLMClient, generator: SkillGenerator, level: str, seed: Any) -> tuple[Optional[Item], dict]:
    """One LLM item verified by core, or None with the report saying why it was rejected."""
    _require_multiple_choice(generator)
    messages = generation_messages(generator, level, seed)
    try:
        answer = client.structured(ROLE, messages, LLMItem, stage=STAGE)
    except LLMError as exc:
        bp = generator.bp
        return None, {"skill_id": bp.skill_id, "level": level, "seed": str(seed), "parameters": None,
                      "model_key": None, "core_key": None,
                      "checks": [{"name": "llm_call", "ok": False, "detail": str(exc)}],
                      "verdict": "rejected", "reason": str(exc)}
    return verify_llm_item(generator, level, seed, answer)


def generate_llm_batch(client: LLMClient, generator: SkillGenerator, level: str, n: int, seed: Any,
                       progress: Optional[Callable[[int, int], None]] = None,
                       verified: Optional[list[dict]] = None) -> tuple[list[Item], list[dict]]:
    """``n`` LLM items (seeds "SEED/i") made concurrently; failures are rejected with their reason.

    Items come back in seed order; an item repeating the parameters of an
    earlier one in the batch is rejected as a duplicate. ``progress(done, n)``
    is called as calls finish; the verified items' reports are appended to
    ``verified`` when a list is given (``store_llm_items`` stores them).
    """
    if n < 0:
        raise GenerationError("the number of items must not be negative")
    _require_multiple_choice(generator)
    generation_prompt(generator, level)  # an unknown level is the caller's mistake, reported once
    results: list[Optional[tuple[Optional[Item], dict]]] = [None] * n
    done = 0
    if n:
        with client.batched(), ThreadPoolExecutor(max_workers=min(n, client.settings.concurrency),
                                                  thread_name_prefix="llm-items") as pool:
            futures = {pool.submit(generate_llm_item, client, generator, level, f"{seed}/{i}"): i for i in range(n)}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                done += 1
                if progress is not None:
                    progress(done, n)
    items: list[Item] = []
    rejected: list[dict] = []
    seen: dict[str, str] = {}
    for item, report in (r for r in results if r is not None):
        if item is None:
            rejected.append(report)
        elif item.content_key in seen:
            report["verdict"] = "rejected"
            report["reason"] = f"it repeats the parameters of item {seen[item.content_key]} in this batch"
            report["checks"].append({"name": "unique_in_batch", "ok": False, "detail": report["reason"]})
            rejected.append(report)
        else:
            seen[item.content_key] = item.id
            items.append(item)
            if verified is not None:
                verified.append(report)
    return items, rejected


def store_llm_items(store: Store, items: list[Item], reports: list[dict]) -> int:
    """Store verified items as drafts with their verification reports; return how many were new."""
    from core.store.llm_runs import save_verifications
    from core.store.repo import insert_items

    added = insert_items(store, items, status="draft")
    by_id = {r.get("item_id"): r for r in reports if r.get("verdict") == "verified"}
    save_verifications(store, {item.id: by_id[item.id] for item in items if item.id in by_id})
    return added
