"""Turns a validated skill blueprint into compiled formulas and templates.

Every expression is compiled once with the names that are in scope where it
is used; every stem, hint and explanation template is checked field by
field. All problems are collected with their field paths, so a teacher sees
every mistake in one pass rather than one per save.
"""
from __future__ import annotations

import dataclasses
import re
import string
from fractions import Fraction
from typing import Any, Optional

from core.blueprints import helpers
from core.blueprints.follow_through import check_follow_through
from core.blueprints.failures import code
from core.blueprints.formula import (CONSTANTS, FUNCTIONS, Formula, FormulaError, TimeBudgetExceeded, compile_formula,
                                    time_budget)
from core.blueprints.loader import MAX_ISSUES, BlueprintError, Issue, LoadedBlueprint, path_text
from core.blueprints.models import DistractorStrategy, MarkingCriterion, SkillBlueprint

RESERVED = {"answer", "distractor", "other_distractors"}
COMPILE_BUDGET_S = 5.0      # checking all of one blueprint's formulas (their constant parts are evaluated)
_SPEC = re.compile(r"^[<>^=]?[+\- ]?#?0?\d{0,2}[,_]?(\.\d{1,2})?[bdeEfFgGnoxX%]?$")


class _NiceFloat(float):
    def __format__(self, spec: str) -> str:
        return helpers.nice(float(self)) if not spec else float.__format__(self, spec)


class _NiceText(str):
    def __format__(self, spec: str) -> str:
        return str.__format__(str(self), spec)


def display_value(value: Any) -> Any:
    """A value as it should appear in a stem: no float noise, lists joined."""
    if isinstance(value, bool):
        return _NiceText(str(value))
    if isinstance(value, float):
        return _NiceFloat(value)
    if isinstance(value, Fraction):
        return _NiceText(helpers.frac_str(value))
    if isinstance(value, (list, tuple)):
        return _NiceText(helpers.join(value))
    return value


class Template:
    """A str.format template restricted to plain names and simple specs."""

    __slots__ = ("text", "fields")

    def __init__(self, text: str, fields: tuple[str, ...]):
        self.text = text
        self.fields = fields

    def render(self, env: dict) -> str:
        return self.text.format_map({name: display_value(env[name]) for name in self.fields})


def compile_template(text: str, known: set[str]) -> Template:
    """Check a template; raise FormulaError describing the first problem."""
    fields: list[str] = []
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError as exc:
        raise FormulaError(f"template is not well formed: {exc} (write '{{{{' and '}}}}' for literal braces)") from None
    for _literal, field, spec, conversion in parsed:
        if field is None:
            continue
        if field == "" or field.isdigit():
            raise FormulaError("template fields must name a value, for example {operand_1}")
        if not field.isidentifier() or field.startswith("_"):
            raise FormulaError(f"template field '{{{field}}}' may only be a plain name (no '.', '[', or leading '_')")
        if conversion:
            raise FormulaError(f"conversion '!{conversion}' not allowed in template field '{{{field}}}'")
        if spec and ("{" in spec or not _SPEC.match(spec)):
            raise FormulaError(f"format spec ':{spec}' not allowed in template field '{{{field}}}'")
        if field not in known:
            raise FormulaError(f"template field '{{{field}}}' is not a parameter or computed value")
        fields.append(field)
    return Template(text, tuple(dict.fromkeys(fields)))


@dataclasses.dataclass
class CompiledDistractor:
    strategy: DistractorStrategy
    formula: Formula
    condition: Optional[Formula]


@dataclasses.dataclass
class CompiledStep:
    """A marking criterion with its own answer: the formula for its key, and how it follows from earlier steps."""

    index: int                          # position in evaluation.marking_criteria
    criterion: MarkingCriterion
    answer: Formula
    follow_through: Optional[Formula]


@dataclasses.dataclass
class CompiledDiagramPart:
    """A side (``name`` "BC") or an angle (``name`` "B") of a diagram: its label and the formula of its size."""

    name: str
    label: Optional[Template]
    value: Optional[Formula]            # length or size in degrees, for the shape
    right: bool = False


@dataclasses.dataclass
class CompiledDiagram:
    kind: str
    vertices: list[str]
    when: Optional[Formula]
    sides: list[CompiledDiagramPart]
    angles: list[CompiledDiagramPart]


@dataclasses.dataclass
class CompiledSkill:
    blueprint: SkillBlueprint
    hash: str
    domains: dict[str, list]
    decimals: dict[str, int]
    tables: dict[str, Any]
    computed: list[tuple[str, Formula]]
    answer: Formula
    constraints: dict[str, list[tuple[int, Formula]]]
    adjustments: list[tuple[Formula, float]]
    distractors: list[CompiledDistractor]
    validation: list[Formula]
    accepted: list[Formula]
    stems: list[Template]
    explanation: Optional[Template]
    hints: list[Template]
    steps: list[CompiledStep] = dataclasses.field(default_factory=list)
    units: Optional[Template] = None        # units that depend on the item, such as "{unit}"
    diagrams: list[CompiledDiagram] = dataclasses.field(default_factory=list)

    @property
    def skill_id(self) -> str:
        return self.blueprint.skill_id

    @property
    def levels(self) -> list[str]:
        return list(self.blueprint.generation.difficulty_levels)

    def computed_closure(self, names: frozenset[str] | set[str]) -> tuple[set[str], list[tuple[str, Formula]]]:
        """Parameters a set of names depends on, and the computed values needed (in order)."""
        need = set(names)
        if "answer" in need:
            need |= self.answer.names
        needed_computed: list[tuple[str, Formula]] = []
        for name, formula in reversed(self.computed):
            if name in need:
                need |= formula.names
                needed_computed.append((name, formula))
        needed_computed.reverse()
        params = {n for n in need if n in self.domains}
        return params, needed_computed


def compile_skill(bp: SkillBlueprint, loaded: Optional[LoadedBlueprint] = None, blueprint_hash: str = "") -> CompiledSkill:
    """Compile all formulas and templates; raise BlueprintError listing every problem."""
    with time_budget(COMPILE_BUDGET_S):
        return _compile_skill(bp, loaded, blueprint_hash)


def _compile_skill(bp: SkillBlueprint, loaded: Optional[LoadedBlueprint], blueprint_hash: str) -> CompiledSkill:
    issues: list[Issue] = []
    file = loaded.file if loaded else bp.skill_id

    def issue(parts: list, message: str) -> None:
        if loaded is not None:
            issues.append(loaded.issue(parts, message))
        else:
            issues.append(Issue(file, None, path_text(parts), message))

    g, p, e = bp.generation, bp.presentation, bp.evaluation
    params = dict(g.parameters)
    domains = {name: spec.domain() for name, spec in params.items()}
    decimals = {name: spec.decimals() for name, spec in params.items()}

    # Names must not shadow each other, functions, constants or reserved words.
    seen: dict[str, str] = {}
    for group, names in (("parameters", params), ("tables", g.tables), ("computed_values", g.computed_values)):
        for name in names:
            if name in RESERVED:
                issue(["generation", group, name], f"'{name}' is a reserved name; choose another")
            elif name in FUNCTIONS or name in CONSTANTS:
                issue(["generation", group, name], f"'{name}' is the name of a built-in function or constant; choose another")
            elif name in seen:
                issue(["generation", group, name], f"'{name}' is already defined in {seen[name]}")
            seen[name] = group

    # Values the same for every item: the tables, and computed values that read only tables and each other.
    # Formula parts that read only these are worked out once, now, so one that fails is found now.
    constants: dict[str, Any] = dict(g.tables)

    def formula(parts: list, source: str, known: set[str]) -> Optional[Formula]:
        try:
            return compile_formula(source, known, constants)
        except FormulaError as exc:
            issue(parts, f"{exc.message} in {code(source)}")
            return None

    scope = set(params) | set(g.tables)
    computed: list[tuple[str, Formula]] = []
    for name, source in g.computed_values.items():
        f = formula(["generation", "computed_values", name], source, scope)
        if f is not None:
            computed.append((name, f))
            if f.names <= constants.keys():
                try:
                    constants[name] = f.evaluate(constants)
                except (FormulaError, TimeBudgetExceeded):
                    pass        # reported when compiled, or out of time: it is then simply not a known constant
        scope.add(name)
    value_scope = set(scope)
    answer = formula(["generation", "answer_formula"], g.answer_formula, value_scope)
    with_answer = value_scope | {"answer"}

    constraints: dict[str, list[tuple[int, Formula]]] = {}
    for level, spec in g.difficulty_levels.items():
        constraints[level] = []
        for i, source in enumerate(spec.constraints):
            f = formula(["generation", "difficulty_levels", level, "constraints", i], source, with_answer)
            if f is not None:
                constraints[level].append((i, f))
    adjustments = []
    for i, adj in enumerate(g.difficulty_adjustments):
        f = formula(["generation", "difficulty_adjustments", i, "condition"], adj.condition, with_answer)
        if f is not None:
            adjustments.append((f, adj.delta))

    distractors = []
    for i, strategy in enumerate(p.distractor_strategies):
        f = formula(["presentation", "distractor_strategies", i, "formula"], strategy.formula, with_answer)
        c = None
        if strategy.condition:
            c = formula(["presentation", "distractor_strategies", i, "condition"], strategy.condition, with_answer)
        if f is not None:
            distractors.append(CompiledDistractor(strategy, f, c))
    types = [s.type for s in p.distractor_strategies]
    for i, t in enumerate(types):
        if t in types[:i]:
            issue(["presentation", "distractor_strategies", i, "type"], f"strategy type '{t}' is listed twice")
    validation = []
    for i, source in enumerate(p.distractor_validation):
        f = formula(["presentation", "distractor_validation", i], source, with_answer | {"distractor", "other_distractors"})
        if f is not None:
            validation.append(f)
    accepted = []
    for i, source in enumerate(e.accepted_answers):
        f = formula(["evaluation", "accepted_answers", i], source, with_answer)
        if f is not None:
            accepted.append(f)

    # Marking criteria with their own answers (the steps a student answers one box at a time).
    steps: list[CompiledStep] = []
    step_names: set[str] = set()     # the named steps before the one being compiled
    all_step_names = {c.name for c in e.marking_criteria if c.name is not None and c.answer is not None}
    for i, c in enumerate(e.marking_criteria):
        parts = ["evaluation", "marking_criteria", i]
        if c.name is not None:
            if c.name in RESERVED or c.name in FUNCTIONS or c.name in CONSTANTS:
                issue(parts + ["name"], f"'{c.name}' is a reserved or built-in name; choose another")
            elif c.name in seen:
                issue(parts + ["name"], f"'{c.name}' is already defined in {seen[c.name]}; a step needs its own name")
        if c.answer is None:
            if c.name is not None:
                issue(parts + ["name"], "only a step with its own 'answer' can be named (later steps use its value)")
            continue
        f = formula(parts + ["answer"], c.answer, with_answer)
        ft = None
        if c.follow_through is not None:
            ft = formula(parts + ["follow_through"], c.follow_through, value_scope | all_step_names)
            if ft is not None:
                later = {n for n in ft.names if n in all_step_names and n not in step_names}
                uses = sorted(n for n in ft.names if n in step_names)
                try:
                    check_follow_through(ft, all_step_names)
                except FormulaError as exc:
                    issue(parts + ["follow_through"], exc.message)
                    ft = None
                else:
                    if later:
                        issue(parts + ["follow_through"], f"uses {', '.join(sorted(later))}, which is not an earlier step; "
                                                          f"a step follows only from steps before it")
                        ft = None
                    elif not uses:
                        issue(parts + ["follow_through"], "names no earlier step; it says how this step's value "
                                                          "follows from the values of earlier named steps")
                        ft = None
        if f is not None:
            steps.append(CompiledStep(i, c, f, ft))
        if c.name is not None:
            step_names.add(c.name)

    def template(parts: list, text: str, known: set[str], leaks_answer: bool) -> Optional[Template]:
        try:
            t = compile_template(text, known)
        except FormulaError as exc:
            if leaks_answer and "'{answer" in exc.message:
                issue(parts, "the template shows the answer ({answer}); the stem would give it away")
            else:
                issue(parts, exc.message)
            return None
        return t

    stems = [t for i, text in enumerate(p.stem_templates)
             if (t := template(["presentation", "stem_templates", i], text, value_scope - set(g.tables), True))]
    hints = [t for i, text in enumerate(p.hint_templates)
             if (t := template(["presentation", "hint_templates", i], text, value_scope - set(g.tables), True))]
    explanation = None
    if p.explanation_template:
        explanation = template(["presentation", "explanation_template"], p.explanation_template,
                               (with_answer - set(g.tables)), False)

    units = None
    if p.units and "{" in p.units:
        units = template(["presentation", "units"], p.units, value_scope - set(g.tables), False)

    diagrams: list[CompiledDiagram] = []
    for d, diagram in enumerate(bp.diagrams):
        where: list = ["diagram", d] if isinstance(bp.diagram, list) else ["diagram"]
        when = formula(where + ["when"], diagram.when, with_answer) if diagram.when else None
        parts: dict[str, list[CompiledDiagramPart]] = {"sides": [], "angles": []}
        for group, entries in (("sides", diagram.sides), ("angles", diagram.angles)):
            for name, entry in entries.items():
                size_field = "length" if group == "sides" else "size"
                label = (template(where + [group, name, "label"], entry.label, value_scope - set(g.tables), True)
                         if entry.label else None)
                source = getattr(entry, size_field)
                value = formula(where + [group, name, size_field], source, with_answer) if source else None
                if value is None and source is None and label is not None and label.fields:
                    # "{a} cm": the side is a long, when a is a number
                    value = formula(where + [group, name, size_field], label.fields[0], with_answer)
                parts[group].append(CompiledDiagramPart(name, label, value, getattr(entry, "right", False)))
        diagrams.append(CompiledDiagram(diagram.kind, list(diagram.vertices), when, parts["sides"],
                                        parts["angles"]))

    if issues:
        if len(issues) > MAX_ISSUES:
            more = len(issues) - MAX_ISSUES
            issues = issues[:MAX_ISSUES] + [Issue(file, None, "", f"and {more} more problem(s) not listed")]
        raise BlueprintError(issues)
    assert answer is not None
    return CompiledSkill(
        blueprint=bp, hash=blueprint_hash or (loaded.hash if loaded else ""), domains=domains, decimals=decimals,
        tables=dict(g.tables), computed=computed, answer=answer, constraints=constraints, adjustments=adjustments,
        distractors=distractors, validation=validation, accepted=accepted, stems=stems, explanation=explanation,
        hints=hints, steps=steps, units=units, diagrams=diagrams,
    )
