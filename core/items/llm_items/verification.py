"""Core's checks on an LLM-written item: shape, parameter domains and constraints, the stem, and the
key recomputed by the blueprint's formula.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import string
from typing import Any, Optional

from core.blueprints.compiler import display_value
from core.items.generator import GenerationError, Item, SkillGenerator, content_key, jsonable, normalise_text
from core.items.llm_items.prompt import LLMItem
from core.marking import item_key_problem

LLM_DISTRACTOR = "llm_distractor"
_FIELD_BOUNDARY = r"(?<![0-9A-Za-z.])", r"(?![0-9A-Za-z]|\.[0-9])"


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

        core_key = generator.key_text(env)
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
        problem = item_key_problem(item)
        c.check("key_marks_right", problem is None,
                "the marker reads core's key and marks it right" if problem is None else
                f"the item cannot be approved: {problem}")
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
