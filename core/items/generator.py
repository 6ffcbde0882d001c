"""Deterministic item generation from skill blueprints.

(skill blueprint, difficulty level, seed) -> item. The same inputs always
give the same item: every random choice comes from a ``random.Random`` seeded
with a string built from the blueprint id, version, level and seed.

Each item (and each count of variants, and each key recomputed) has a time
budget of ``ITEM_BUDGET_S`` for all its formula evaluations together, so a
blueprint whose formulas are slow, or whose constraints are rarely met, gives
a ``GenerationTimeout`` rather than holding a worker for minutes.
"""
from __future__ import annotations

import collections
import contextlib
import dataclasses
import hashlib
import json
import math
import pickle
import random
import threading
from fractions import Fraction
from typing import Any, Iterator, Optional

from core.blueprints import helpers
from core.blueprints.compiler import CompiledSkill
from core.blueprints.follow_through import follow_through_text
from core.blueprints.formula import FormulaError, TimeBudgetExceeded, time_budget
from core.items.item import Item, content_key, jsonable, normalise_text  # noqa: F401 - many modules import them from here
from core.items.sampler import GenerationError, GenerationTimeout, LevelSampler
from core.marking import MarkingSpec, MarkingSpecError

MAX_PARAM_DRAWS = 60
UNIQUE_TRIES = 60
ITEM_BUDGET_S = 10.0     # all the formula evaluations of one item, one variants count or one key
# Items made lately, by (compiled blueprint, level, seed): an item is a pure function of the three, so work done
# ahead (a paper drawn while the student is still choosing) is not done again when the same item is asked for.
# Kept pickled: one bytes object each, which the garbage collector never walks (a full collection follows every
# page run), and each caller gets a copy of its own.
MADE_KEPT = 2048
_made: "collections.OrderedDict[tuple[str, str, str], bytes]" = collections.OrderedDict()
_made_lock = threading.Lock()


def format_value(value: Any, answer_type: str, decimals: Optional[int], strict: bool, what: str) -> str:
    """A value as the option or key text a student sees."""
    try:
        return _format_value(value, answer_type, decimals, strict, what)
    except GenerationError:
        raise
    except (OverflowError, ValueError, ArithmeticError) as exc:    # 2 ** 1024 - 1 has no float, say
        raise GenerationError(f"{what} gave a value that cannot be written as a {answer_type}: {exc}") from None


def _format_value(value: Any, answer_type: str, decimals: Optional[int], strict: bool, what: str) -> str:
    if isinstance(value, bool):
        raise GenerationError(f"{what} gave a true/false value ({value}), expected a {answer_type}")
    if answer_type == "integer":
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, Fraction) and value.denominator == 1:
            value = value.numerator
        if isinstance(value, int):
            return str(value)
        if strict:
            raise GenerationError(f"{what} gave {value!r}, but answer_type is integer")
    elif answer_type == "decimal" and isinstance(value, (int, float, Fraction)):
        if decimals is not None:
            return helpers.fmt(float(value), decimals)
        return helpers.nice(float(value))
    elif answer_type == "fraction" and isinstance(value, (int, float, Fraction)):
        f = value if isinstance(value, Fraction) else Fraction(value).limit_denominator(10_000)
        return helpers.frac_str(f)
    if isinstance(value, (list, tuple)):
        return helpers.join(value)
    text = helpers.nice(value) if isinstance(value, (int, float, Fraction)) else str(value)
    text = text.strip()
    if strict and not text:
        raise GenerationError(f"{what} gave an empty answer")
    return text


class SkillGenerator:
    """Generates items for one compiled skill blueprint (samplers cached per level)."""

    def __init__(self, cs: CompiledSkill):
        self.cs = cs
        self.bp = cs.blueprint
        self._samplers: dict[str, LevelSampler] = {}

    def sampler(self, level: str) -> LevelSampler:
        if level not in self._samplers:
            self._samplers[level] = LevelSampler(self.cs, level)
        return self._samplers[level]

    # ------------------------------------------------------------------
    def _rng(self, level: str, seed: Any) -> random.Random:
        return random.Random(f"{self.bp.skill_id}|{self.bp.version}|{level}|{seed}")

    @contextlib.contextmanager
    def _budget(self, level: Optional[str] = None) -> Iterator[None]:
        """The time budget of one item (within any budget already running); running out is a GenerationTimeout."""
        try:
            with time_budget(ITEM_BUDGET_S):
                yield
        except TimeBudgetExceeded as exc:
            where = f" level {level}" if level else ""
            raise GenerationTimeout(f"{self.bp.skill_id}{where}: building an item took longer than the time allowed "
                                    f"({exc.seconds:g} s); make the formulas quicker to evaluate") from None

    def environment(self, params: dict) -> dict:
        with self._budget():
            return self._environment(params)

    def _environment(self, params: dict) -> dict:
        env = dict(self.cs.tables)
        env.update(params)
        where = "computed_values"
        try:
            for name, f in self.cs.computed:
                where = f"computed value '{name}'"
                env[name] = f.evaluate(env)
            where = "answer_formula"
            env["answer"] = self.cs.answer.evaluate(env)
        except FormulaError as exc:
            raise GenerationError(f"{self.bp.skill_id}: {where} failed for {_shown(params)}: {exc.message}") from None
        return env

    def key_text(self, env: dict) -> str:
        """The answer key as an item shows it, from an environment with the answer computed."""
        g = self.bp.generation
        return format_value(env["answer"], g.answer_type, g.answer_decimals, True, "answer_formula")

    def key_for(self, params: dict) -> str:
        """The answer key this blueprint computes for given parameters (a stored item's, say).

        Raises GenerationError when the parameters do not fit the blueprint or its formula fails.
        """
        return self.key_text(self.environment(self._check_params(params)))

    def criteria(self, env: dict, answer_text: str, params: Optional[dict] = None) -> list[dict]:
        """The item's marking criteria, each step with its own answer keyed for this item.

        A step with an ``answer`` gets ``answer_key`` (its value for these
        parameters) and, with a ``follow_through``, the formula with every
        parameter and computed value filled in, so only earlier steps' names
        remain; marking then needs no blueprint. The steps are checked as
        marking will use them: each key readable, each follow-through giving
        its step's key from the earlier keys, the last step agreeing with the
        item's own key.
        """
        e = self.bp.evaluation
        out = [{"step": c.step, "marks": c.marks, "gap_tag": c.gap_tag, "description": c.description}
               for c in e.marking_criteria]
        if not self.cs.steps:
            return out
        g = self.bp.generation
        names = [s.criterion.name for s in self.cs.steps if s.criterion.name]
        shown = _shown(params if params is not None else {k: env[k] for k in self.cs.domains if k in env})
        last = self.cs.steps[-1].index
        for s in self.cs.steps:
            c, d = s.criterion, out[s.index]
            where = f"evaluation.marking_criteria[{s.index}]"
            try:
                value = s.answer.evaluate(env)
                number = isinstance(value, (int, float, Fraction)) and not isinstance(value, bool)
                if s.index == last:     # the final answer: written as the item's own key is
                    d["answer_key"] = format_value(value, g.answer_type, g.answer_decimals, True, f"{where}.answer")
                else:
                    d["answer_key"] = format_value(value, "decimal" if number else "string", None, True,
                                                   f"{where}.answer")
                if c.name:
                    d["name"] = c.name
                if s.follow_through is not None:
                    d["follow_through"] = follow_through_text(s.follow_through, env, names)
            except FormulaError as exc:
                raise GenerationError(f"{self.bp.skill_id}: {where} failed for {shown}: {exc.message}") from None
            except GenerationError as exc:
                raise GenerationError(f"{self.bp.skill_id}: {where}: {exc} for {shown}") from None
            if c.method:
                d["method"] = c.method
            if c.tolerance is not None:
                d["tolerance"] = c.tolerance.model_dump(exclude_none=True)
        tol = e.tolerance
        try:
            MarkingSpec(method=e.method, key=answer_text, tolerance_relative=tol.relative if tol else None,
                        tolerance_absolute=tol.absolute if tol else None, criteria=out)
        except MarkingSpecError as exc:
            raise GenerationError(f"{self.bp.skill_id}: evaluation.marking_criteria for {shown}: {exc}") from None
        return out

    def diagram(self, env: dict) -> Optional[dict]:
        """The item's diagram for these values: the first of the blueprint's diagrams whose ``when`` holds,
        with every label filled in and every size worked out (None where a size is not a number)."""
        for d in self.cs.diagrams:
            try:
                if d.when is not None and not d.when.evaluate(env):
                    continue
                sides = [{"from": p.name[0], "to": p.name[1], "label": p.label.render(env) if p.label else None,
                          "length": _size(p.value.evaluate(env)) if p.value else None} for p in d.sides]
                angles = [{"at": p.name, "label": p.label.render(env) if p.label else None,
                           "size": 90.0 if p.right else (_size(p.value.evaluate(env)) if p.value else None),
                           "right": p.right} for p in d.angles]
            except FormulaError as exc:
                raise GenerationError(f"{self.bp.skill_id}: diagram failed for "
                                      f"{_shown({k: env[k] for k in self.cs.domains if k in env})}: "
                                      f"{exc.message}") from None
            except (ValueError, KeyError, IndexError) as exc:
                raise GenerationError(f"{self.bp.skill_id}: a diagram label could not be filled: {exc}") from None
            return {"kind": d.kind, "vertices": list(d.vertices), "sides": sides, "angles": angles}
        return None

    def diagram_for(self, params: dict) -> Optional[dict]:
        """The diagram of an item with these parameters (for an item stored before items kept their diagrams).

        Raises GenerationError when the parameters do not fit the blueprint.
        """
        if not self.cs.diagrams:
            return None
        with self._budget():
            return self.diagram(self._environment(self._check_params(params)))

    def satisfies(self, level: str, env: dict) -> bool:
        try:
            return all(f.evaluate(env) for _, f in self.cs.constraints[level])
        except FormulaError as exc:
            raise GenerationError(f"{self.bp.skill_id} level '{level}': {exc.message} in '{exc.expression}'") from None

    def _distractors(self, env: dict, answer_text: str, rng: random.Random) -> list[tuple[str, str, Any]]:
        g = self.bp.generation
        order = list(self.cs.distractors)
        rng.shuffle(order)
        chosen: list[tuple[str, str, Any]] = []
        texts = {answer_text}
        for d in order:
            what = f"distractor '{d.strategy.type}'"
            try:
                if d.condition is not None and not d.condition.evaluate(env):
                    continue
                value = d.formula.evaluate(env)
                text = format_value(value, g.answer_type, g.answer_decimals, False, what)
                if not text or text in texts:
                    continue
                check_env = dict(env)
                check_env["distractor"] = value
                check_env["other_distractors"] = [v for _, _, v in chosen]
                if not all(f.evaluate(check_env) for f in self.cs.validation):
                    continue
            except FormulaError as exc:
                raise GenerationError(f"{self.bp.skill_id}: {what} failed for "
                                      f"{_shown({k: env[k] for k in self.cs.domains})}: {exc.message}") from None
            chosen.append((d.strategy.type, text, value))
            texts.add(text)
        return chosen

    def build(self, level: str, params: dict, seed: Any) -> Optional[Item]:
        """An item for given parameters, or None if they cannot fill the options.

        Presentation choices (distractors, option order, stem template) use
        their own generator seeded from the item seed, so the same seed and
        parameters always give the same item however the parameters were found.
        """
        bp, g, p, e = self.bp, self.bp.generation, self.bp.presentation, self.bp.evaluation
        rng = self._rng(level, f"{seed}|present")
        env = self.environment(params)
        answer_text = self.key_text(env)
        distractors = self._distractors(env, answer_text, rng)
        options: list[str] = []
        strategies: list[Optional[str]] = []
        correct_index: Optional[int] = None
        if g.item_type == "multiple_choice":
            needed = (p.option_count or 4) - 1
            if len(distractors) < needed:
                return None
            picked = distractors[:needed]
            entries = [(None, answer_text)] + [(t, text) for t, text, _ in picked]
            rng.shuffle(entries)
            strategies = [t for t, _ in entries]
            options = [text for _, text in entries]
            correct_index = strategies.index(None)
        misconceptions = {t: text for t, text, _ in distractors}
        template = rng.randrange(len(self.cs.stems))
        try:
            stem = self.cs.stems[template].render(env)
            display_env = dict(env)
            display_env["answer"] = answer_text
            units = self.cs.units.render(env) if self.cs.units else p.units
            explanation = (self.cs.explanation.render(display_env) if self.cs.explanation
                           else f"The correct answer is {answer_text}{(' ' + units) if units else ''}.")
            hints = [h.render(env) for h in self.cs.hints]
            accepted = []
            for f in self.cs.accepted:
                text = format_value(f.evaluate(env), "string", None, False, "accepted answer")
                if text and text != answer_text and text not in accepted:
                    accepted.append(text)
        except FormulaError as exc:
            raise GenerationError(f"{bp.skill_id}: {exc.message}") from None
        except (ValueError, KeyError, IndexError) as exc:
            raise GenerationError(f"{bp.skill_id}: a template could not be filled: {exc}") from None
        value = g.difficulty_levels[level].value
        for cond, delta in self.cs.adjustments:
            if cond.evaluate(env):
                value += delta
        difficulty = round(min(1.0, max(0.0, value)), 3)
        computed = {name: jsonable(env[name]) for name, _ in self.cs.computed}
        item_params = jsonable(params)
        identity = json.dumps([bp.skill_id, bp.version, self.cs.hash, level, str(seed), item_params], sort_keys=True)
        criteria = self.criteria(env, answer_text, params)
        diagram = self.diagram(env)
        marks = e.total_marks()
        meta = bp.metadata
        return Item(
            id="itm_" + hashlib.sha256(identity.encode()).hexdigest()[:16],
            blueprint_id=bp.skill_id, blueprint_version=bp.version, blueprint_hash=self.cs.hash,
            source="formula", seed=str(seed), difficulty_level=level, difficulty_value=difficulty,
            item_type=g.item_type, stem=stem, options=options, option_strategies=strategies,
            options_shuffled=g.item_type == "multiple_choice", correct_answer=answer_text,
            correct_index=correct_index, answer_value=jsonable(env["answer"]) if not isinstance(env["answer"], (list, tuple)) else answer_text,
            accepted_answers=accepted, misconceptions=misconceptions, explanation=explanation, hints=hints,
            answer_type=g.answer_type, units=units, marks=marks,
            marking_scheme={"criteria": criteria, "total_marks": marks},
            evaluation={"method": e.method,
                        "tolerance": e.tolerance.model_dump() if e.tolerance else None,
                        "significant_figures": e.significant_figures, "required_form": e.required_form,
                        "decimal_places": e.decimal_places, "variables": list(e.variables),
                        "assume_positive": e.assume_positive, "units_exact": e.units_exact,
                        "keywords": list(e.keywords), "min_keywords": e.min_keywords,
                        "partial_credit": e.partial_credit,
                        "misconception_tags": {d.strategy.type: d.strategy.gap_tag
                                               for d in self.cs.distractors if d.strategy.gap_tag}},
            generation_params=item_params, computed_values=computed,
            subject=meta.subject, level=meta.level, outcome_ids=list(meta.outcome_ids),
            skill_ids=[bp.skill_id], calculator=meta.calculator,
            content_key=content_key(bp.skill_id, params), diagram=diagram,
        )

    def generate(self, level: str, seed: Any, params: Optional[dict] = None) -> Item:
        """One item. With ``params`` the draw is skipped (to reproduce a stored item).

        Each call gets an item of its own: one made lately for the same level and seed is copied, not made again.
        """
        if params is not None:
            with self._budget(level):
                return self._generate(level, seed, params)
        key = (self.cs.hash, level, str(seed))
        with _made_lock:
            kept = _made.get(key)
            if kept is not None:
                _made.move_to_end(key)
        if kept is not None:
            return pickle.loads(kept)
        with self._budget(level):
            item = self._generate(level, seed, None)
        with _made_lock:
            _made[key] = pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)
            while len(_made) > MADE_KEPT:
                _made.popitem(last=False)
        return item

    def _generate(self, level: str, seed: Any, params: Optional[dict]) -> Item:
        sampler = self.sampler(level)
        rng = self._rng(level, seed)
        if params is not None:
            params = self._check_params(params)
            env = self.environment(params)
            if not self.satisfies(level, env):
                raise GenerationError(f"{self.bp.skill_id}: {_shown(params)} do not meet the constraints of level '{level}'")
            item = self.build(level, params, seed)
            if item is None:
                raise GenerationError(self._options_message(level, params))
            return item
        last: dict = {}
        for _ in range(MAX_PARAM_DRAWS):
            last = sampler.sample(rng)
            item = self.build(level, last, seed)
            if item is not None:
                return item
        raise GenerationError(self._options_message(level, last))

    def _check_params(self, params: dict) -> dict:
        unknown = sorted(set(params) - set(self.cs.domains))
        missing = sorted(set(self.cs.domains) - set(params))
        if unknown or missing:
            raise GenerationError(f"{self.bp.skill_id}: parameters do not match the blueprint"
                                  f"{'; unknown: ' + ', '.join(unknown) if unknown else ''}"
                                  f"{'; missing: ' + ', '.join(missing) if missing else ''}")
        for name, value in params.items():
            if value not in self.cs.domains[name]:
                raise GenerationError(f"{self.bp.skill_id}: {name}={value!r} is outside the parameter's range")
        return {name: params[name] for name in self.cs.domains}

    def _options_message(self, level: str, params: dict) -> str:
        need = (self.bp.presentation.option_count or 4) - 1
        return (f"{self.bp.skill_id} level '{level}': the distractor strategies cannot give {need} valid distinct "
                f"distractors (last tried {_shown(params)}); add strategies or loosen distractor_validation")

    def batch(self, level: str, n: int, seed: Any, unique: bool = True) -> "Batch":
        """``n`` items; with ``unique``, no two share parameters while the level's space allows.

        Item i gets the seed "SEED/i". Where the level's valid combinations can
        be listed, they are shuffled and dealt without replacement; otherwise
        draws that repeat an earlier item are redrawn a bounded number of times.
        """
        if n < 0:
            raise GenerationError("the number of items must not be negative")
        pool: Optional[list[dict]] = None
        with self._budget(level):
            sampler = self.sampler(level)
            if unique and sampler.enumerable():
                pool = list(sampler.all_combinations())
                random.Random(f"batch|{self.bp.skill_id}|{self.bp.version}|{level}|{seed}").shuffle(pool)
        items: list[Item] = []
        seen: set[str] = set()
        exhausted = False
        skipped = 0
        i = 0
        while len(items) < n:
            item_seed = f"{seed}/{i}"
            i += 1
            if pool:
                with self._budget(level):
                    item = self.build(level, pool.pop(), item_seed)
                if item is None:
                    skipped += 1
                    continue
            else:
                exhausted = exhausted or pool is not None
                item = self.generate(level, item_seed)
                if unique and not exhausted:
                    tries = 0
                    while item.content_key in seen and tries < UNIQUE_TRIES:
                        tries += 1
                        item = self.generate(level, f"{item_seed}+{tries}")
                    exhausted = item.content_key in seen
            seen.add(item.content_key)
            items.append(item)
        duplicates = len(items) - len(seen)
        return Batch(items=items, exhausted=exhausted, duplicates=duplicates, skipped=skipped)

    def warm_up(self) -> None:
        """Do each level's one-off sampling work now (listing or piloting its constraints), so the first item
        asked for later is quick; a level that fails here fails again, with its message, when it is used."""
        for level in self.cs.levels:
            with self._budget(level):
                for component in self.sampler(level).components:
                    component.prepare()

    def sampling_state(self) -> dict:
        """Each level's one-off sampling work (``warm_up``) as plain data: its pruned parameter domains and its
        components' states, for another process of the same blueprint to ``install_sampling_state``."""
        return {level: {"pruned": sampler.pruned, "components": [c.state() for c in sampler.components]}
                for level, sampler in self._samplers.items()}

    def install_sampling_state(self, state: dict) -> int:
        """Take over sampling work done by another process for this same blueprint; the components taken."""
        taken = 0
        for level, done in state.items():
            if level not in self.cs.levels:
                continue
            if level not in self._samplers:
                self._samplers[level] = LevelSampler(self.cs, level, pruned=done.get("pruned"))
            sampler = self._samplers[level]
            if len(sampler.components) == len(done["components"]):
                taken += sum(c.install(s) for c, s in zip(sampler.components, done["components"]))
        return taken

    def variants(self, level: str) -> dict:
        with self._budget(level):
            sampler = self.sampler(level)
            count, exact = sampler.count()
            strategies = sampler.strategies()
        return {"level": level, "parameter_combinations": count, "exact": exact,
                "stem_templates": len(self.cs.stems), "strategies": strategies}


@dataclasses.dataclass
class Batch:
    items: list[Item]
    exhausted: bool
    duplicates: int
    skipped: int


def _size(value: Any) -> Optional[float]:
    """A length or an angle for drawing: a positive finite number, else None (the shape is then guessed)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        return None
    number = float(value)
    return round(number, 6) if math.isfinite(number) and number > 0 else None


def _shown(params: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items()) or "no parameters"
