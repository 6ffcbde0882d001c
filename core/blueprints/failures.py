"""A formula that failed while a level was exercised, told as the teacher needs it: which formula, as written,
at which level, for which parameter values, and what went wrong.

Generating reports a failure as "ID: answer_formula failed for a=1, b=0:
division by zero" or, when the failing formula was a computed value or the
answer read by a constraint, as "evaluating the constraints failed ... in
'1 / (b - 3)'", which sends the teacher to the constraints. ``explain`` finds
the formula that failed (answer formula, computed value, distractor, marking
step or constraint), points at its field and words the message around it:
"division by zero in computed value 'k' `1 / (b - 3)` at level easy with
a=1, b=3". Formulas are shown in backticks, so a page rendering markdown shows
``a*b*k`` as written, not as "abk" with the middle letter in italics.
"""
from __future__ import annotations

import re
from typing import Optional

from core.blueprints.models import SkillBlueprint

_FAILED = re.compile(r"^[^:]*?(?: level '[^']*')?: (?P<what>.+?) failed for (?P<shown>.+?): (?P<problem>.+?)"
                     r"(?: in '(?P<expr>.+)')?$", re.S)
_COMPUTED = re.compile(r"^computed value '(\w+)'$")
_DISTRACTOR = re.compile(r"^distractor '(.+)'$")
_STEP = re.compile(r"^evaluation\.marking_criteria\[(\d+)\]$")

DIVISION_ADVICE = ("leave out the values that make the divisor zero (add a constraint, or list them under "
                   "'exclude' on the parameter)")


def code(formula: str) -> str:
    """A formula in code style, so markdown shows it as written."""
    text = " ".join(str(formula).split())
    return f"``{text}``" if "`" in text else f"`{text}`"


def _same(a: str, b: str) -> bool:
    return " ".join(a.split()) == " ".join(b.split())


def _locate(bp: SkillBlueprint, level: str, what: str, expr: Optional[str]) -> Optional[tuple[list, str, str]]:
    """(field path, what to call the formula, its source) of the formula named by a failure."""
    g, p = bp.generation, bp.presentation
    if expr is not None:        # a constraint's evaluation failed: in the constraint, or in what it reads
        for name, source in g.computed_values.items():
            if _same(source, expr):
                return ["generation", "computed_values", name], f"computed value '{name}'", source
        if _same(g.answer_formula, expr):
            return ["generation", "answer_formula"], "answer_formula", g.answer_formula
        for i, source in enumerate(g.difficulty_levels[level].constraints if level in g.difficulty_levels else []):
            if _same(source, expr):
                return ["generation", "difficulty_levels", level, "constraints", i], "constraint", source
        return None
    if what == "answer_formula":
        return ["generation", "answer_formula"], "answer_formula", g.answer_formula
    if m := _COMPUTED.match(what):
        source = g.computed_values.get(m.group(1))
        return (["generation", "computed_values", m.group(1)], what, source) if source is not None else None
    if m := _DISTRACTOR.match(what):
        for i, strategy in enumerate(p.distractor_strategies):
            if strategy.type == m.group(1):
                label = f"distractor '{strategy.type}'" + (" (its formula or condition)" if strategy.condition else "")
                return ["presentation", "distractor_strategies", i, "formula"], label, strategy.formula
        return None
    if m := _STEP.match(what):
        index = int(m.group(1))
        criteria = bp.evaluation.marking_criteria
        if index < len(criteria) and criteria[index].answer:
            return ["evaluation", "marking_criteria", index, "answer"], f"marking step {index + 1}", criteria[index].answer
    return None


def explain(message: str, level: str, bp: SkillBlueprint) -> Optional[tuple[list, str]]:
    """(field path, message) for a formula failure met while exercising ``level``; None for anything else."""
    m = _FAILED.match(message.strip())
    if m is None:
        return None
    found = _locate(bp, level, m.group("what"), m.group("expr"))
    if found is None:
        return None
    path, label, source = found
    problem, shown = m.group("problem").strip(), m.group("shown").strip()
    if problem == "division by zero":
        return path, f"division by zero in {label} {code(source)} at level {level} with {shown}; {DIVISION_ADVICE}"
    return path, f"{label} {code(source)} failed at level {level} with {shown}: {problem}"
