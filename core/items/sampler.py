"""Parameter sampling for one difficulty level of a skill blueprint.

Constraints tie some parameters together; parameters no constraint mentions
are drawn freely. Each group of tied parameters (a component) picks the
cheapest sound strategy, decided from a short pilot run:

- ``enumerate``: the component's whole domain is small, or acceptance is low
  and the domain is still small enough to list once; every valid combination
  is listed (and cached), so sampling is a uniform pick and the count is exact;
- ``reject``: draw at random until the constraints hold (acceptance is high);
- ``pivot``: the domain is too large to list and acceptance is tiny; draw all
  parameters but one, then scan that one's whole domain for values that work
  (solving for one parameter), rotating the pivot.

Every loop is bounded; a level whose constraints cannot be met is reported,
never waited on. Each loop counts evaluations, not time, so a constraint that
is slow to evaluate still makes a loop slow: callers set a time budget
(``core.blueprints.formula.time_budget``), and when it runs out while
constraints are being checked the sampler raises ``GenerationTimeout`` saying
that the constraints are met by too few draws in the time allowed.
"""
from __future__ import annotations

import itertools
import math
import random
from typing import Any, Iterator, Optional

from core.blueprints.compiler import CompiledSkill
from core.blueprints.formula import Formula, FormulaError, TimeBudgetExceeded

ENUM_LIMIT = 100_000        # combinations listed once per level at most
# Listing a component that sampling does not need listed (drawing at random works) is only worth it when cheap:
# bounded by formula evaluations, not combinations, so a level with many computed values is not listed for seconds.
ENUM_EVAL_LIMIT = 150_000
PRUNE_LIMIT = 200_000       # domains filtered by single-parameter constraints up to this size
SMALL_DOMAIN = 500           # listed straight away: cheaper than a pilot
PILOT_DRAWS = 300
REJECT_MIN_RATE = 0.02       # below this, rejection sampling is too slow
REJECT_BUDGET = 5_000
PIVOT_ROUNDS = 40
PIVOT_PILOT = 8             # pivot attempts per parameter when ranking them
DISCOVERY_ROUNDS = 400
DISCOVERY_CHECKS = 200_000
COUNT_SAMPLES = 5_000
COUNT_EXACT_LIMIT = 50_000


class GenerationError(ValueError):
    """Items cannot be generated as asked; the message says why and what to change."""


class GenerationTimeout(GenerationError):
    """The time allowed for generating ran out (a formula too slow, or constraints too rarely met)."""


def too_slow_for_constraints(skill_id: str, level: str, exc: TimeBudgetExceeded) -> GenerationTimeout:
    return GenerationTimeout(
        f"{skill_id} level {level}: constraints are met by too few parameter draws within the time allowed "
        f"({exc.seconds:g} s); relax the constraints, make them quicker to evaluate or narrow the parameter ranges")


class Component:
    def __init__(self, cs: CompiledSkill, level: str, params: list[str], constraints: list[tuple[int, Formula]],
                 domains: dict[str, list]):
        self.cs = cs
        self.level_domains = domains
        self.level = level
        self.params = params
        self.constraints = constraints
        names: set[str] = set()
        for _, f in constraints:
            names |= f.names
        _, self.computed = cs.computed_closure(names)
        self.needs_answer = "answer" in names
        self.domains = [domains[p] for p in params]
        self.size = math.prod(len(d) for d in self.domains)
        self.mode: Optional[str] = None
        self.valid: Optional[list[tuple]] = None
        self.found: Optional[list[dict]] = None
        self.pivots: list[str] = []
        self.rate = 1.0

    def check(self, values: dict) -> bool:
        env = dict(self.cs.tables)
        env.update(values)
        try:
            for name, f in self.computed:
                env[name] = f.evaluate(env)
            if self.needs_answer:
                env["answer"] = self.cs.answer.evaluate(env)
            for index, f in self.constraints:
                if not f.evaluate(env):
                    return False
        except FormulaError as exc:
            shown = ", ".join(f"{k}={v!r}" for k, v in values.items())
            raise GenerationError(
                f"{self.cs.skill_id} level '{self.level}': evaluating the constraints failed for {shown}: "
                f"{exc.message} in '{exc.expression}'") from None
        return True

    def state(self) -> Optional[dict]:
        """The one-off sampling work done so far (None before ``prepare``), as plain data another process of the
        same blueprint can ``install`` instead of doing it again."""
        if self.mode is None:
            return None
        return {"params": list(self.params), "mode": self.mode, "valid": self.valid, "found": self.found,
                "pivots": list(self.pivots), "rate": self.rate}

    def install(self, state: Optional[dict]) -> bool:
        """Take over ``state`` (from ``state()`` of the same component elsewhere); False when it does not fit."""
        if state is None or self.mode is not None or state.get("params") != list(self.params):
            return False
        self.valid = [tuple(v) for v in state["valid"]] if state.get("valid") is not None else None
        self.found = state.get("found")
        self.pivots = list(state.get("pivots") or [])
        self.rate = state.get("rate", 1.0)
        self.mode = state["mode"]     # last: a component with a mode is ready
        return True

    def formulas_per_check(self) -> int:
        return len(self.computed) + len(self.constraints) + int(self.needs_answer)

    def _draw(self, rng: random.Random) -> dict:
        return {p: rng.choice(d) for p, d in zip(self.params, self.domains)}

    def _enumerate(self) -> list[tuple]:
        if self.valid is None:
            valid = []
            for combo in itertools.product(*self.domains):
                if self.check(dict(zip(self.params, combo))):
                    valid.append(combo)
            self.valid = valid
        return self.valid

    def prepare(self) -> None:
        # The mode is set only once its work is done: a budget running out half way leaves nothing half made.
        if self.mode is not None:
            return
        if self.size <= SMALL_DOMAIN:
            self._enumerate()
            self.mode = "enumerate"
            return
        rng = random.Random(f"pilot|{self.cs.skill_id}|{self.level}|{','.join(self.params)}")
        hits = sum(self.check(self._draw(rng)) for _ in range(PILOT_DRAWS))
        rate = hits / PILOT_DRAWS
        if rate >= REJECT_MIN_RATE:
            mode = "reject"
        elif self.size <= ENUM_LIMIT:
            self._enumerate()
            mode = "enumerate"
        else:
            self._rank_pivots()
            mode = "pivot"
        self.rate = rate
        self.mode = mode

    def _rank_pivots(self) -> None:
        """Order the parameters by how often solving for each one succeeds (a fixed-seed pilot).

        Solving for the parameter the constraints pin down most tightly finds
        a valid value in one scan far more often than solving for a free one.
        """
        rng = random.Random(f"pivots|{self.cs.skill_id}|{self.level}|{','.join(self.params)}")
        scores = []
        for p in self.params:
            hits = sum(self._pivot_once(rng, p) is not None for _ in range(PIVOT_PILOT))
            scores.append((-hits, self.params.index(p), p))
        ranked = [p for neg, _, p in sorted(scores) if neg < 0]
        self.pivots = ranked or list(self.params)

    def sample(self, rng: random.Random) -> Optional[dict]:
        self.prepare()
        if self.mode == "enumerate":
            if not self.valid:
                return None
            return dict(zip(self.params, rng.choice(self.valid)))
        if self.mode == "reject":
            for _ in range(REJECT_BUDGET):
                values = self._draw(rng)
                if self.check(values):
                    return values
            return self._pivot(rng)
        return self._pivot(rng)

    def _pivot_once(self, rng: random.Random, pivot: str) -> Optional[dict]:
        """Draw every parameter but ``pivot``, then pick among the pivot values that work."""
        base = self._draw(rng)
        domain = self.level_domains[pivot]
        if len(domain) > 20_000:
            domain = rng.sample(domain, 20_000)
        hits = [v for v in domain if self.check({**base, pivot: v})]
        if not hits:
            return None
        base[pivot] = rng.choice(hits)
        return base

    def _discover(self) -> list[dict]:
        """Valid combinations found once, with a fixed seed, for when a pivot draw misses.

        Built the same way in every process, so a fallback pick stays a pure
        function of the item's seed.
        """
        if self.found is None:
            rng = random.Random(f"discover|{self.cs.skill_id}|{self.level}|{','.join(self.params)}")
            found: dict[tuple, dict] = {}
            budget = DISCOVERY_CHECKS
            for round_ in range(DISCOVERY_ROUNDS):
                pivot = self.params[round_ % len(self.params)]
                budget -= min(len(self.level_domains[pivot]), 20_000)
                if budget < 0:
                    break
                hit = self._pivot_once(rng, pivot)
                if hit is not None:
                    found.setdefault(tuple(hit[p] for p in self.params), hit)
            self.found = [found[k] for k in sorted(found, key=repr)]
        return self.found

    def _pivot(self, rng: random.Random) -> Optional[dict]:
        pivots = self.pivots or self.params
        for round_ in range(PIVOT_ROUNDS):
            hit = self._pivot_once(rng, pivots[round_ % len(pivots)])
            if hit is not None:
                return hit
        if self._discover():
            return dict(rng.choice(self.found))
        return None

    def count(self) -> tuple[int, bool]:
        """Number of valid combinations and whether the number is exact."""
        self.prepare()
        if self.mode == "enumerate" or self.size <= COUNT_EXACT_LIMIT:
            return len(self._enumerate()), True
        rng = random.Random(f"count|{self.cs.skill_id}|{self.level}")
        hits = sum(self.check(self._draw(rng)) for _ in range(COUNT_SAMPLES))
        return round(self.size * hits / COUNT_SAMPLES), False


class LevelSampler:
    """Draws parameter values that satisfy one difficulty level's constraints."""

    def __init__(self, cs: CompiledSkill, level: str, pruned: Optional[dict[str, list]] = None):
        if level not in cs.constraints:
            raise GenerationError(
                f"{cs.skill_id} has no difficulty level '{level}'; levels: {', '.join(cs.levels)}")
        self.cs = cs
        self.level = level
        self._given = pruned or {}      # domains pruned by another process for this same level
        self.pruned: dict[str, list] = {}
        try:
            self._build()
        except TimeBudgetExceeded as exc:
            raise too_slow_for_constraints(cs.skill_id, level, exc) from None

    def _build(self) -> None:
        cs, level = self.cs, self.level
        order = list(cs.domains)
        parent = {p: p for p in order}
        # Constraints on a single parameter ("case == 'timed'", "v == int(v)")
        # shrink that parameter's domain once, here, instead of being
        # rejected draw after draw.
        self.domains: dict[str, list] = dict(cs.domains)
        self.emptied: Optional[tuple[str, Formula]] = None
        remaining: list[tuple[int, Formula]] = []
        for entry in cs.constraints[level]:
            params, _ = cs.computed_closure(entry[1].names)
            if len(params) == 1 and len(self.domains[next(iter(params))]) <= PRUNE_LIMIT:
                p = next(iter(params))
                if p in self._given:    # every single-parameter constraint on p already applied there
                    self.domains[p] = list(self._given[p])
                else:
                    probe = Component(cs, level, [p], [entry], self.domains)
                    self.domains[p] = [v for v in self.domains[p] if probe.check({p: v})]
                self.pruned[p] = self.domains[p]
                if not self.domains[p] and self.emptied is None:
                    self.emptied = (p, entry[1])
            else:
                remaining.append(entry)

        def find(p: str) -> str:
            while parent[p] != p:
                parent[p] = parent[parent[p]]
                p = parent[p]
            return p

        grouped: dict[str, list[tuple[int, Formula]]] = {}
        self.constant: list[tuple[int, Formula]] = []
        tied: list[tuple[tuple[int, Formula], set[str]]] = []
        for entry in remaining:
            params, _ = cs.computed_closure(entry[1].names)
            if not params:
                self.constant.append(entry)
                continue
            tied.append((entry, params))
            first, *rest = sorted(params, key=order.index)
            for p in rest:
                parent[find(p)] = find(first)
        for entry, params in tied:
            grouped.setdefault(find(next(iter(params))), []).append(entry)
        members: dict[str, list[str]] = {}
        for p in order:
            members.setdefault(find(p), []).append(p)
        self.components = [Component(cs, level, members[root], cons, self.domains) for root, cons in grouped.items()]
        constrained = {p for c in self.components for p in c.params}
        self.free = [p for p in order if p not in constrained]
        self._constant_ok: Optional[bool] = None

    def _constants_hold(self) -> bool:
        if self._constant_ok is None:
            env = dict(self.cs.tables)
            try:
                self._constant_ok = all(f.evaluate(env) for _, f in self.constant)
            except FormulaError as exc:
                raise GenerationError(f"{self.cs.skill_id} level '{self.level}': {exc.message} in '{exc.expression}'") from None
        return self._constant_ok

    def sample(self, rng: random.Random) -> dict:
        try:
            return self._sample(rng)
        except TimeBudgetExceeded as exc:
            raise too_slow_for_constraints(self.cs.skill_id, self.level, exc) from None

    def _sample(self, rng: random.Random) -> dict:
        if not self._constants_hold() or self.emptied:
            raise GenerationError(self.infeasible_message())
        values: dict[str, Any] = {}
        for comp in self.components:
            part = comp.sample(rng)
            if part is None:
                raise GenerationError(self.infeasible_message(comp))
            values.update(part)
        for p in self.free:
            values[p] = rng.choice(self.domains[p])
        return {p: values[p] for p in self.cs.domains}

    def infeasible_message(self, comp: Optional[Component] = None) -> str:
        detail = ""
        if self.emptied is not None:
            detail = f" (the constraint '{self.emptied[1].source}' excludes every value of {self.emptied[0]})"
        elif comp is not None:
            searched = "all" if comp.mode == "enumerate" else "a search over"
            detail = f" ({searched} {comp.size:,} combinations of {', '.join(comp.params)} tried)"
        return (f"{self.cs.skill_id}: the constraints of difficulty level '{self.level}' cannot be met{detail}; "
                f"widen the parameter ranges or relax the constraints")

    def count(self) -> tuple[int, bool]:
        """Distinct parameter combinations this level can produce, and whether exact."""
        try:
            return self._count()
        except TimeBudgetExceeded as exc:
            raise too_slow_for_constraints(self.cs.skill_id, self.level, exc) from None

    def _count(self) -> tuple[int, bool]:
        if not self._constants_hold() or self.emptied:
            return 0, True
        total, exact = 1, True
        for comp in self.components:
            n, e = comp.count()
            total *= n
            exact = exact and e
        for p in self.free:
            total *= len(self.domains[p])
        return total, exact

    def known_count(self) -> Optional[int]:
        """The exact count when it costs nothing more (every component already listed)."""
        if not self._constants_hold() or self.emptied:
            return 0
        total = 1
        for comp in self.components:
            if comp.valid is None:
                return None
            total *= len(comp.valid)
        for p in self.free:
            total *= len(self.domains[p])
        return total

    def enumerable(self) -> bool:
        """Whether every valid combination of the whole level can be listed cheaply."""
        try:
            return self._enumerable()
        except TimeBudgetExceeded as exc:
            raise too_slow_for_constraints(self.cs.skill_id, self.level, exc) from None

    def _enumerable(self) -> bool:
        size = 1
        for comp in self.components:
            comp.prepare()
            if comp.mode != "enumerate" and comp.size > ENUM_LIMIT:
                return False
            if comp.valid is None and comp.size * comp.formulas_per_check() > ENUM_EVAL_LIMIT:
                return False
            size *= len(comp._enumerate())
        for p in self.free:
            size *= len(self.domains[p])
        return size <= ENUM_LIMIT

    def all_combinations(self) -> Iterator[dict]:
        parts = [[dict(zip(c.params, v)) for v in (c.valid or [])] for c in self.components]
        parts += [[{p: v} for v in self.domains[p]] for p in self.free]
        for combo in itertools.product(*parts):
            values: dict[str, Any] = {}
            for part in combo:
                values.update(part)
            yield {p: values[p] for p in self.cs.domains}

    def strategies(self) -> list[dict]:
        try:
            return self._strategies()
        except TimeBudgetExceeded as exc:
            raise too_slow_for_constraints(self.cs.skill_id, self.level, exc) from None

    def _strategies(self) -> list[dict]:
        out = []
        for comp in self.components:
            comp.prepare()
            out.append({"parameters": comp.params, "strategy": comp.mode, "combinations": comp.size})
        if self.free:
            out.append({"parameters": self.free, "strategy": "free",
                        "combinations": math.prod(len(self.domains[p]) for p in self.free)})
        return out
