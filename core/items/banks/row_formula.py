"""The formula parts of one row (template, variables, values, answer_formula), checked against the row's own key.

A row's formulas get ``ROW_BUDGET_S`` of evaluation time between them (the
file they come from may set a budget for all its rows as well), and a row may
list at most ``MAX_CONSTRAINTS`` constraints, so no bank row can hold an
import for long.
"""
from __future__ import annotations

from typing import Any, Optional

from core.blueprints.formula import Formula, FormulaError, TimeBudgetExceeded, compile_formula, time_budget
from core.items.banks.cells import _BAD, _Row
from core.items.banks.fields import FORMULA_FIELDS
from core.items.banks.numbers import _same_answer, key_text
from core.items.banks.variables import _compile_template, _is_plain_number, check_variables
from core.items.sampler import GenerationError

ROW_BUDGET_S = 2.0          # all the formula evaluations of one row
MAX_CONSTRAINTS = 50
MAX_VALUE_TEXT = 200        # characters of a value given as text (as for listed values)


def _formula(row: _Row, answer_type: Optional[str], answer: Any, tolerance: Optional[dict],
             precision: dict) -> Any:
    """Check the formula parts; returns (text, computed_values, values) or None / _BAD."""
    try:
        with time_budget(ROW_BUDGET_S):
            return _checked_formula(row, answer_type, answer, tolerance, precision)
    except TimeBudgetExceeded as exc:
        if exc.seconds != ROW_BUDGET_S:     # the file's budget, spent by the rows before this one
            return row.error("answer_formula", f"not checked: the time allowed for the formulas of this file "
                                               f"({exc.seconds:g} s) was used up; split the file or simplify "
                                               f"its formulas.")
        return row.error("answer_formula", f"the formulas of this question took longer than the time allowed "
                                           f"({exc.seconds:g} s); make them quicker to evaluate.")


def _checked_formula(row: _Row, answer_type: Optional[str], answer: Any, tolerance: Optional[dict],
                     precision: dict) -> Any:
    given = [f for f in FORMULA_FIELDS if row.present(f)]
    extras = [f for f in ("constraints", "explanation_template") if row.present(f)]
    if not given:
        if extras:
            return row.error(extras[0], f"{extras[0]} applies only to a question with a template and variables.")
        return None
    missing = [f for f in FORMULA_FIELDS if f not in given]
    if missing:
        return row.error(missing[0], f"a question with a formula needs all of {', '.join(FORMULA_FIELDS)}; "
                                     f"{missing[0]} is missing.")
    raw_variables = row.structured("variables")
    if raw_variables is _BAD:
        return raw_variables
    variables, why = check_variables(raw_variables)
    if variables is None:
        return row.error("variables", why)
    names = set(variables)
    values = row.obj("values")
    if values is _BAD:
        return values
    if set(values) != names:
        odd = sorted(set(values) ^ names)
        return row.error("values", f"values must give exactly the variables ({', '.join(sorted(names))}); "
                                   f"check {', '.join(odd)}.")
    for name, v in values.items():
        if not (_is_plain_number(v) or isinstance(v, str)):
            return row.error("values", f"value of '{name}' must be a number or text, not {type(v).__name__}.")
        if isinstance(v, str) and len(v) > MAX_VALUE_TEXT:
            return row.error("values", f"value of '{name}' is text of {len(v):,} characters; "
                                       f"at most {MAX_VALUE_TEXT} are allowed.")
    template_text = row.text("template")
    if template_text is _BAD:
        return template_text
    try:
        template = _compile_template(template_text, names, "template")
        rendered = template.render(values)
    except FormulaError as exc:
        return row.error("template", f"{exc.message}.")
    source = row.text("answer_formula")
    if source is _BAD:
        return source
    try:
        answer_f = compile_formula(source, names)
    except FormulaError as exc:
        return row.error("answer_formula", f"answer_formula does not compile: {exc.message}.")
    constraints = row.structured("constraints")
    if constraints is _BAD:
        return constraints
    if isinstance(constraints, str):
        constraints = [c.strip() for c in constraints.split(";") if c.strip()]
    if not isinstance(constraints or [], list):
        return row.error("constraints", "constraints must be a list of conditions on the variables.")
    if len(constraints or []) > MAX_CONSTRAINTS:
        return row.error("constraints", f"a question may have at most {MAX_CONSTRAINTS} constraints.")
    compiled: list[Formula] = []
    for c in constraints or []:
        try:
            compiled.append(compile_formula(c, names))
        except FormulaError as exc:
            shown = repr(c) if len(repr(c)) <= 80 else repr(c)[:77] + "..."
            return row.error("constraints", f"constraint {shown} does not compile: {exc.message}.")
    explanation_t = row.text("explanation_template")
    if explanation_t is not None and explanation_t is not _BAD:
        try:
            _compile_template(explanation_t, names | {"answer"}, "explanation_template")
        except FormulaError as exc:
            return row.error("explanation_template", f"{exc.message}.")
    try:
        for f in compiled:
            if not f.evaluate(values):
                return row.error("constraints", f"constraint {f.source!r} is false for the given values.")
        value = answer_f.evaluate(values)
    except FormulaError as exc:
        return row.error("answer_formula", f"answer_formula fails for the given values: {exc.message}.")
    if isinstance(answer_type, str) and isinstance(answer, str):
        try:
            computed = key_text(value, answer_type, precision)
        except GenerationError as exc:
            return row.error("answer_formula", f"{exc}; round it or set answer_type.")
        if not _same_answer(computed, answer, answer_type, tolerance):
            return row.error("answer_formula", f"answer_formula gives {computed} for the given values, "
                                               f"but the answer is {answer}.")
    computed_values = {"template": template_text, "variables": variables, "answer_formula": answer_f.source}
    if compiled:
        computed_values["constraints"] = [f.source for f in compiled]
    if explanation_t:
        computed_values["explanation_template"] = explanation_t
    if precision:
        computed_values["answer_format"] = precision
    return rendered, computed_values, dict(values)
