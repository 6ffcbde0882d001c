"""Follow-through formulas: how a step's value follows from the values of earlier steps.

A marking criterion's ``follow_through`` is a blueprint formula over the
parameters, computed values and the names of earlier steps. When an item is
generated, everything but the earlier steps' names is replaced by its value
and the formula is written as plain arithmetic the marker reads (``^`` for
powers, ``ln`` for natural logs), so marking an item needs no blueprint: the
marker puts a student's own earlier values in for the step names and
recomputes what this step should then be.

Only arithmetic that the marker can evaluate is allowed: numbers, names,
+ - * / and powers, and the functions in ``FUNCTION_TEXT``; and ``x if test
else y`` where the test uses no step (it is decided when the item is made,
so a formula can depend on the item's context).
"""
from __future__ import annotations

import ast
from fractions import Fraction
from typing import Any, Callable, Iterable

from core.blueprints.formula import CONSTANTS, Formula, FormulaError, compile_formula

_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "^"}


def _call(name: str, args: list[str]) -> str:
    return f"{name}({args[0]})"


# Function in a blueprint formula -> (how many arguments, how the marker writes it).
FUNCTION_TEXT: dict[str, tuple[tuple[int, ...], Callable[[list[str]], str]]] = {
    "sqrt": ((1,), lambda a: _call("sqrt", a)),
    "sin": ((1,), lambda a: _call("sin", a)),
    "cos": ((1,), lambda a: _call("cos", a)),
    "tan": ((1,), lambda a: _call("tan", a)),
    "exp": ((1,), lambda a: _call("exp", a)),
    "log": ((1, 2), lambda a: f"ln({a[0]})" if len(a) == 1 else f"(ln({a[0]}) / ln({a[1]}))"),
    "log10": ((1,), lambda a: f"(ln({a[0]}) / ln(10))"),
    "radians": ((1,), lambda a: f"({a[0]} * pi / 180)"),
    "degrees": ((1,), lambda a: f"({a[0]} * 180 / pi)"),
    "float": ((1,), lambda a: f"({a[0]})"),
    "fraction": ((1, 2), lambda a: f"({a[0]})" if len(a) == 1 else f"(({a[0]}) / ({a[1]}))"),
    "Fraction": ((1, 2), lambda a: f"({a[0]})" if len(a) == 1 else f"(({a[0]}) / ({a[1]}))"),
}


def number_text(value: Any) -> str:
    """A number as the marker reads it: no exponent notation, exact fractions kept, negatives bracketed."""
    from core.marking import MarkingSpecError
    from core.marking.steps import number_text as marker_text
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise FormulaError(f"{value!r} is not a number")
    try:
        return marker_text(value)
    except MarkingSpecError as exc:
        raise FormulaError(str(exc)) from None


def check_follow_through(formula: Formula, step_names: Iterable[str]) -> None:
    """Raise FormulaError when the formula uses anything the marker cannot recompute."""
    steps = set(step_names)

    def both(test: ast.AST) -> None:
        _no_steps(test, steps, formula.source)
        return None

    _translate(formula.tree.body, lambda name: name, formula.source, both)


def follow_through_text(formula: Formula, env: dict, step_names: Iterable[str]) -> str:
    """The formula with every value but the step names filled in, as the marker reads it."""
    steps = set(step_names)

    def name_text(name: str) -> str:
        if name in steps:
            return name
        if name == "pi":
            return "pi"
        if name in CONSTANTS:
            return number_text(CONSTANTS[name])
        if name not in env:
            raise FormulaError(f"'{name}' has no value here")
        try:
            return number_text(env[name])
        except FormulaError:
            raise FormulaError(f"'{name}' is {env[name]!r}, not a number; follow-through needs numbers") from None

    def choose(test: ast.AST) -> bool:
        _no_steps(test, steps, formula.source)
        return bool(compile_formula(ast.unparse(test), env.keys()).evaluate(env))

    return _translate(formula.tree.body, name_text, formula.source, choose)


def _no_steps(test: ast.AST, steps: set[str], source: str) -> None:
    used = sorted({n.id for n in ast.walk(test) if isinstance(n, ast.Name)} & steps)
    if used:
        raise FormulaError(f"the condition of 'if ... else' uses the step {', '.join(used)}; it may only use "
                           f"parameters and computed values", source)


def _translate(node: ast.AST, name_text: Callable[[str], str], source: str,
               choose: Callable[[ast.AST], Any]) -> str:
    def go(n: ast.AST) -> str:
        if isinstance(n, ast.IfExp):
            taken = choose(n.test)
            if taken is None:       # checking only: both branches must be arithmetic the marker reads
                go(n.body)
                return go(n.orelse)
            return go(n.body if taken else n.orelse)
        if isinstance(n, ast.Constant):
            return number_text(n.value)
        if isinstance(n, ast.Name):
            return name_text(n.id)
        if isinstance(n, ast.BinOp) and type(n.op) in _OPERATORS:
            return f"({go(n.left)} {_OPERATORS[type(n.op)]} {go(n.right)})"
        if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
            inner = go(n.operand)
            return f"(-{inner})" if isinstance(n.op, ast.USub) else inner
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in FUNCTION_TEXT:
            counts, write = FUNCTION_TEXT[n.func.id]
            if len(n.args) not in counts or n.keywords:
                raise FormulaError(f"{n.func.id}() takes {' or '.join(map(str, counts))} argument(s) here", source)
            return write([go(a) for a in n.args])
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name):
            raise FormulaError(f"function '{n.func.id}' cannot be used in a follow-through formula; use "
                               f"arithmetic and {', '.join(sorted(FUNCTION_TEXT))}", source)
        raise FormulaError("a follow-through formula may only use numbers, names, + - * / ** and brackets, "
                           f"and 'if ... else' on the item's values (found {type(n).__name__})", source)

    return go(node)
