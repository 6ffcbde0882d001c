"""Compile-time whitelist: an expression is parsed and its syntax tree checked before anything runs.

Allowed: arithmetic, comparisons, boolean logic, conditional expressions,
literals of bounded size, list/tuple/set displays, indexing, f-strings with
plain format specs, and calls of whitelisted functions by name. Everything
else is refused, notably attribute access and names starting with an
underscore (the usual routes from an expression to Python's internals), and
also lambdas, comprehensions, dicts and starred arguments. Only names the
caller declares (parameters, computed values, tables) may be read. The result is a ``Formula``, checked once and
evaluated many times.

Parts of an expression that read no name (``numerator('1e99999999')``,
``'%09d' % 5``) give the same result every time, so they are evaluated once
here, and one that fails is refused now: hidden behind a condition that is
true for one parameter value in hundreds, it would otherwise fail only in
front of a student.
"""
from __future__ import annotations

import ast
import difflib
import re
from typing import Any, Iterable, Mapping

from core.blueprints.formula.bounds import _OPERATORS, MAX_COLLECTION_LEN, MAX_INT_BITS
from core.blueprints.formula.errors import FormulaError
from core.blueprints.formula.evaluation import DEFAULT_TIME_LIMIT_S, TimeBudgetExceeded, evaluate_compiled, time_budget
from core.blueprints.formula.functions import CONSTANTS, FUNCTIONS

MAX_SOURCE_CHARS = 2_000
MAX_NODES = 400
MAX_DEPTH = 40
MAX_LITERAL_STR_LEN = 1_000


_ALLOWED_NODES = (
    ast.Expression, ast.Constant, ast.Name, ast.Load, ast.BinOp, ast.UnaryOp, ast.BoolOp,
    ast.Compare, ast.IfExp, ast.Call, ast.List, ast.Tuple, ast.Set, ast.Subscript, ast.Slice,
    ast.JoinedStr, ast.FormattedValue, ast.And, ast.Or, *_OPERATORS.keys(),
)
_FORMAT_SPEC = re.compile(r"^[<>^=]?[+\- ]?#?0?\d{0,2}[,_]?(\.\d{1,2})?[bdeEfFgGnoxX%]?$")
_NODE_LABELS = {
    ast.Attribute: "attribute access ('.name')",
    ast.Lambda: "lambda functions",
    ast.ListComp: "comprehensions", ast.SetComp: "comprehensions", ast.DictComp: "comprehensions",
    ast.GeneratorExp: "generator expressions",
    ast.Dict: "dictionary displays",
    ast.Starred: "starred arguments",
    ast.NamedExpr: "assignment expressions (':=')",
    ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield",
}


class Formula:
    """A validated expression, ready to evaluate many times."""

    __slots__ = ("source", "tree", "names", "functions")

    def __init__(self, source: str, tree: ast.Expression, names: frozenset[str], functions: frozenset[str]):
        self.source = source
        self.tree = tree
        self.names = names  # variables read (functions and constants excluded)
        self.functions = functions

    def evaluate(self, env: Mapping[str, Any], time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Any:
        return evaluate_compiled(self, env, time_limit_s)

    def __repr__(self) -> str:
        return f"Formula({self.source!r})"


def _suggest(name: str, choices: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(choices), n=3, cutoff=0.6)
    return f" (did you mean {', '.join(repr(c) for c in close)}?)" if close else ""


def _describe(node: ast.AST) -> str:
    return _NODE_LABELS.get(type(node), f"'{type(node).__name__}' expressions")


def compile_formula(source: Any, known_names: Iterable[str] | None = None,
                    constants: Mapping[str, Any] | None = None) -> Formula:
    """Parse and check an expression; raise FormulaError naming what is wrong.

    ``known_names``, when given, is the set of variables the expression may
    read; anything else is reported as unknown. ``constants`` are names whose
    values are the same for every item (tables, values computed from them):
    parts reading only those are worked out now, like parts reading no name.
    """
    if isinstance(source, bool) or not isinstance(source, (str, int, float)):
        raise FormulaError(f"expected an expression as text, got {type(source).__name__}")
    text = str(source).strip()
    if not text:
        raise FormulaError("empty expression")
    if len(text) > MAX_SOURCE_CHARS:
        raise FormulaError(f"expression too long ({len(text)} characters, at most {MAX_SOURCE_CHARS})")
    if "\x00" in text:
        raise FormulaError("expression contains a NUL character")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"not a valid expression: {exc.msg}", text) from None
    except (MemoryError, RecursionError):
        raise FormulaError("expression nested too deeply", text) from None

    known = None if known_names is None else set(known_names)
    names: set[str] = set()
    functions: set[str] = set()
    count = 0

    def visit(node: ast.AST, depth: int) -> None:
        nonlocal count
        count += 1
        if count > MAX_NODES:
            raise FormulaError(f"expression too complex (more than {MAX_NODES} parts)", text)
        if depth > MAX_DEPTH:
            raise FormulaError(f"expression nested too deeply (more than {MAX_DEPTH} levels)", text)
        if not isinstance(node, _ALLOWED_NODES):
            raise FormulaError(f"{_describe(node)} not allowed", text)
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool) or value is None or isinstance(value, float):
                pass
            elif isinstance(value, int):
                if value.bit_length() > MAX_INT_BITS:
                    raise FormulaError("number literal too large", text)
            elif isinstance(value, str):
                if len(value) > MAX_LITERAL_STR_LEN:
                    raise FormulaError(f"text literal too long (more than {MAX_LITERAL_STR_LEN} characters)", text)
            else:
                raise FormulaError(f"literal of type {type(value).__name__} not allowed", text)
        elif isinstance(node, ast.Name):
            if node.id.startswith("_"):
                raise FormulaError(f"name '{node.id}' not allowed (names may not start with '_')", text)
            if node.id in FUNCTIONS:
                raise FormulaError(f"function '{node.id}' must be called, not used as a value", text)
            if node.id not in CONSTANTS:
                if known is not None and node.id not in known:
                    raise FormulaError(f"unknown name '{node.id}'{_suggest(node.id, known)}", text)
                names.add(node.id)
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name):
                raise FormulaError(f"only named functions may be called ({_describe(node.func)} not allowed)", text)
            fname = node.func.id
            if fname not in FUNCTIONS:
                raise FormulaError(f"function '{fname}' is not available in formulas{_suggest(fname, FUNCTIONS)}", text)
            if node.keywords:
                raise FormulaError(f"keyword arguments not allowed in call of {fname}()", text)
            if len(node.args) > 8:
                raise FormulaError(f"too many arguments in call of {fname}()", text)
            functions.add(fname)
            for arg in node.args:
                visit(arg, depth + 1)
            return
        elif isinstance(node, ast.FormattedValue):
            if node.conversion != -1:
                raise FormulaError("conversions ('!r', '!s', '!a') not allowed in f-strings", text)
            if node.format_spec is not None:
                spec_parts = node.format_spec.values if isinstance(node.format_spec, ast.JoinedStr) else [node.format_spec]
                if not all(isinstance(p, ast.Constant) and isinstance(p.value, str) for p in spec_parts):
                    raise FormulaError("nested fields in an f-string format spec not allowed", text)
                spec = "".join(p.value for p in spec_parts)
                if not _FORMAT_SPEC.match(spec):
                    raise FormulaError(f"format spec ':{spec}' not allowed", text)
            visit(node.value, depth + 1)
            return
        elif isinstance(node, (ast.List, ast.Tuple, ast.Set)) and len(node.elts) > MAX_COLLECTION_LEN:
            raise FormulaError("list literal too long", text)
        for child in ast.iter_child_nodes(node):
            visit(child, depth + 1)

    try:
        visit(tree, 0)
    except RecursionError:
        raise FormulaError("expression nested too deeply", text) from None
    _check_constant_parts(tree, text, constants or {})
    return Formula(text, tree, frozenset(names), frozenset(functions))


def _constant_parts(tree: ast.Expression, constants: Mapping[str, Any]) -> list[ast.expr]:
    """The largest parts of the tree that read no name but constants and compute something (not bare literals)."""
    parts: list[ast.expr] = []

    def constant(node: ast.AST) -> bool:
        """Whether ``node`` reads no name; collects the largest such parts below a part that does."""
        children = list(ast.iter_child_nodes(node))
        if isinstance(node, ast.Call):
            children = list(node.args)      # the function's own name is not a value read
        elif isinstance(node, ast.FormattedValue):
            children = [node.value]         # the format spec is checked text, not a computation
        flags = [constant(child) for child in children]
        here = all(flags) and not (isinstance(node, ast.Name) and node.id not in CONSTANTS
                                   and node.id not in constants)
        if not here:
            parts.extend(child for child, flag in zip(children, flags)
                         if flag and isinstance(child, ast.expr) and not _is_literal(child))
        return here

    if constant(tree.body) and not _is_literal(tree.body):
        parts.append(tree.body)
    return parts


def _is_literal(node: ast.AST) -> bool:
    return isinstance(node, (ast.Constant, ast.Name)) or (
        isinstance(node, (ast.List, ast.Tuple, ast.Set)) and all(_is_literal(e) for e in node.elts))


def _check_constant_parts(tree: ast.Expression, text: str, constants: Mapping[str, Any]) -> None:
    """Evaluate every part that reads no name but constants, once, all within one formula's time limit;
    refuse one that fails."""
    parts = _constant_parts(tree, constants)
    if not parts:
        return
    try:
        with time_budget(DEFAULT_TIME_LIMIT_S):
            for node in parts:
                source = ast.unparse(node)
                try:
                    evaluate_compiled(Formula(source, ast.Expression(body=node), frozenset(), frozenset()), constants)
                except FormulaError as exc:
                    shown = source if len(source) <= 60 else source[:57] + "..."
                    raise FormulaError(f"{shown} fails whatever the values: {exc.message}", text) from None
    except TimeBudgetExceeded:
        raise FormulaError("the parts that read no name took longer than the time allowed to evaluate", text) from None


def safe_eval(source: str, env: Mapping[str, Any] | None = None, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Any:
    """Compile and evaluate in one step (names are checked against ``env``)."""
    env = env or {}
    return compile_formula(source, env.keys()).evaluate(env, time_limit_s)
