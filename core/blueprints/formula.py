"""Safe evaluation of the expressions that blueprints carry.

Answer formulas, constraints, conditions, computed values and distractor
formulas come from YAML files a teacher may have downloaded from anywhere, so
they are treated as hostile. Two layers guard them:

1. ``compile_formula`` parses the text and walks the syntax tree against a
   whitelist: arithmetic, comparisons, boolean logic, conditional
   expressions, literals of bounded size, list/tuple/set displays, indexing,
   f-strings with plain format specs, and calls of whitelisted functions by
   name. No attribute access at all, no lambdas, comprehensions, dicts,
   starred arguments or names starting with an underscore. Only names the
   caller declares (parameters, computed values, tables) may be read.
2. The tree is evaluated by simpleeval with size-bounded operators (power,
   multiplication, addition, shifts), wrapped functions that refuse oversized
   arguments and results, and a deadline checked at every node.
"""
from __future__ import annotations

import ast
import difflib
import math
import re
import threading
import time
from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping

import simpleeval

from core.blueprints import helpers

MAX_SOURCE_CHARS = 2_000
MAX_NODES = 400
MAX_DEPTH = 40
MAX_INT_BITS = 1_024
MAX_STR_LEN = 10_000
MAX_LITERAL_STR_LEN = 1_000
MAX_COLLECTION_LEN = 1_000
DEFAULT_TIME_LIMIT_S = 2.0   # generous: sizes are bounded already; this only stops the unforeseen


class FormulaError(ValueError):
    """An expression was refused at compile time or failed at evaluation."""

    def __init__(self, message: str, expression: str | None = None):
        self.message = message
        self.expression = expression
        super().__init__(message)


# --------------------------------------------------------------------------
# Bounded values

def _check_value(value: Any) -> Any:
    """Refuse values too large to keep computing with."""
    kind = type(value)
    if kind is int:
        if value.bit_length() > MAX_INT_BITS:
            raise FormulaError(f"integer too large (more than {MAX_INT_BITS} bits)")
    elif kind is float:
        if math.isnan(value) or math.isinf(value):
            raise FormulaError("result is not a finite number")
    elif kind is str:
        if len(value) > MAX_STR_LEN:
            raise FormulaError(f"string too long (more than {MAX_STR_LEN} characters)")
    elif kind in (list, tuple, set, frozenset):
        if len(value) > MAX_COLLECTION_LEN:
            raise FormulaError(f"collection too long (more than {MAX_COLLECTION_LEN} items)")
    elif kind is complex:
        raise FormulaError("result is not a real number")
    elif kind is Fraction:
        if value.numerator.bit_length() > MAX_INT_BITS or value.denominator.bit_length() > MAX_INT_BITS:
            raise FormulaError(f"fraction too large (more than {MAX_INT_BITS} bits)")
    return value


def _is_seq(x: Any) -> bool:
    return isinstance(x, (str, list, tuple))


def _bits(x: Any) -> int:
    if isinstance(x, bool):
        return 1
    if isinstance(x, int):
        return x.bit_length()
    if isinstance(x, Fraction):
        return max(x.numerator.bit_length(), x.denominator.bit_length())
    return 0


def _safe_add(a, b):
    if _is_seq(a) and _is_seq(b) and len(a) + len(b) > MAX_STR_LEN:
        raise FormulaError(f"result too long (more than {MAX_STR_LEN} characters)")
    return _check_value(a + b)


def _safe_mult(a, b):
    for seq, times in ((a, b), (b, a)):
        if _is_seq(seq) and isinstance(times, int):
            if times * len(seq) > MAX_STR_LEN:
                raise FormulaError(f"repetition too long (more than {MAX_STR_LEN} characters)")
    if _bits(a) + _bits(b) > MAX_INT_BITS + 1:
        raise FormulaError(f"product too large (more than {MAX_INT_BITS} bits)")
    return _check_value(a * b)


def _safe_pow(a, b):
    if isinstance(b, (int, Fraction)) and not isinstance(b, bool) and abs(b) > 10_000:
        raise FormulaError("exponent too large (at most 10000)")
    if isinstance(b, float) and abs(b) > 10_000:
        raise FormulaError("exponent too large (at most 10000)")
    if isinstance(a, (int, Fraction)) and isinstance(b, int) and b > 0:
        if _bits(a) * b > MAX_INT_BITS + b:
            raise FormulaError(f"power too large (more than {MAX_INT_BITS} bits)")
    try:
        return _check_value(a ** b)
    except OverflowError:
        raise FormulaError("power too large") from None
    except ZeroDivisionError:
        raise FormulaError("zero raised to a negative power") from None


def _safe_lshift(a, b):
    if not isinstance(b, int) or b < 0 or _bits(a) + b > MAX_INT_BITS:
        raise FormulaError(f"shift too large (result over {MAX_INT_BITS} bits)")
    return a << b


def _safe_rshift(a, b):
    if not isinstance(b, int) or b < 0 or b > MAX_INT_BITS:
        raise FormulaError("shift out of range")
    return a >> b


def _division(fn: Callable) -> Callable:
    def wrapped(a, b):
        try:
            return _check_value(fn(a, b))
        except ZeroDivisionError:
            raise FormulaError("division by zero") from None
    return wrapped


import operator as _op

_OPERATORS = {
    ast.Add: _safe_add,
    ast.Sub: lambda a, b: _check_value(a - b),
    ast.Mult: _safe_mult,
    ast.Div: _division(_op.truediv),
    ast.FloorDiv: _division(_op.floordiv),
    ast.Mod: _division(_op.mod),
    ast.Pow: _safe_pow,
    ast.LShift: _safe_lshift,
    ast.RShift: _safe_rshift,
    ast.BitAnd: _op.and_,
    ast.BitOr: _op.or_,
    ast.BitXor: _op.xor,
    ast.Invert: _op.invert,
    ast.USub: _op.neg,
    ast.UAdd: _op.pos,
    ast.Not: _op.not_,
    ast.Eq: _op.eq,
    ast.NotEq: _op.ne,
    ast.Lt: _op.lt,
    ast.LtE: _op.le,
    ast.Gt: _op.gt,
    ast.GtE: _op.ge,
    ast.In: lambda x, y: _op.contains(y, x),
    ast.NotIn: lambda x, y: not _op.contains(y, x),
}


# --------------------------------------------------------------------------
# Whitelisted functions

def _bounded(fn: Callable, name: str) -> Callable:
    """Wrap a function so oversized arguments and results are refused."""

    def wrapped(*args):
        for arg in args:
            _check_value(arg)
            if isinstance(arg, (list, tuple)):
                for x in arg:
                    _check_value(x)
        try:
            result = fn(*args)
        except FormulaError:
            raise
        except (ValueError, TypeError, ArithmeticError, IndexError, KeyError) as exc:
            raise FormulaError(f"{name}(): {exc}") from None
        return _check_value(result)

    wrapped.__name__ = name
    return wrapped


def _round(x, ndigits=None):
    if ndigits is None:
        return round(x)
    if not isinstance(ndigits, int) or abs(ndigits) > 15:
        raise FormulaError("round(): ndigits must be an integer between -15 and 15")
    return round(x, ndigits)


def _int(x, base=10):
    if isinstance(x, str):
        if len(x) > 200:
            raise FormulaError("int(): text too long")
        return int(x, base)
    return int(x)


def _factorial(n):
    if not isinstance(n, int) or n < 0 or n > 170:
        raise FormulaError("factorial(): n must be an integer from 0 to 170")
    return math.factorial(n)


def _comb(n, k):
    if not isinstance(n, int) or n > 1_000:
        raise FormulaError("comb(): n must be an integer of at most 1000")
    return math.comb(n, k)


def _perm(n, k=None):
    if not isinstance(n, int) or n > 1_000:
        raise FormulaError("perm(): n must be an integer of at most 1000")
    return math.perm(n, k)


def _fraction(n, d=1):
    for v in (n, d):
        if isinstance(v, str):
            raise FormulaError("fraction(): give numbers, not text")
    return Fraction(n, d) if not isinstance(n, float) and not isinstance(d, float) else Fraction(n) / Fraction(d)


def _exp(x):
    if x > 700:
        raise FormulaError("exp(): argument too large")
    return math.exp(x)


def _seq_fn(fn: Callable, name: str) -> Callable:
    def wrapped(*args):
        if len(args) == 1 and isinstance(args[0], (list, tuple, set)):
            return fn(args[0])
        return fn(args)
    wrapped.__name__ = name
    return wrapped


_RAW_FUNCTIONS: dict[str, Callable] = {
    "abs": abs,
    "min": _seq_fn(min, "min"),
    "max": _seq_fn(max, "max"),
    "sum": _seq_fn(sum, "sum"),
    "sorted": lambda xs: sorted(xs),
    "round": _round,
    "int": _int,
    "float": float,
    "str": str,
    "bool": bool,
    "len": len,
    "sqrt": math.sqrt,
    "isqrt": math.isqrt,
    "floor": math.floor,
    "ceil": math.ceil,
    "trunc": math.trunc,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "atan2": math.atan2,
    "degrees": math.degrees,
    "radians": math.radians,
    "log": math.log,
    "log10": math.log10,
    "log2": math.log2,
    "exp": _exp,
    "hypot": math.hypot,
    "factorial": _factorial,
    "comb": _comb,
    "perm": _perm,
    "gcd": math.gcd,
    "lcm": math.lcm,
    "fraction": _fraction,
    "Fraction": _fraction,
}
_RAW_FUNCTIONS.update(helpers.FUNCTIONS)

FUNCTIONS: dict[str, Callable] = {name: _bounded(fn, name) for name, fn in _RAW_FUNCTIONS.items()}
CONSTANTS: dict[str, Any] = {"pi": math.pi, "e": math.e, "True": True, "False": False, "None": None}


# --------------------------------------------------------------------------
# Compile-time whitelist

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


def compile_formula(source: Any, known_names: Iterable[str] | None = None) -> Formula:
    """Parse and check an expression; raise FormulaError naming what is wrong.

    ``known_names``, when given, is the set of variables the expression may
    read; anything else is reported as unknown.
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
    return Formula(text, tree, frozenset(names), frozenset(functions))


# --------------------------------------------------------------------------
# Evaluation

class _Evaluator(simpleeval.EvalWithCompoundTypes):
    """simpleeval with bounded operators and a deadline checked per node."""

    def __init__(self):
        super().__init__(operators=dict(_OPERATORS), functions=dict(FUNCTIONS), names={})
        self.deadline = 0.0

    def _eval(self, node):
        if time.perf_counter() > self.deadline:
            raise FormulaError("evaluation took too long")
        return super()._eval(node)

    def _eval_formattedvalue(self, node):
        value = self._eval(node.value)
        if node.format_spec is None:
            return value
        spec = "".join(p.value for p in node.format_spec.values)
        return format(value, spec)


_local = threading.local()


def _evaluator() -> _Evaluator:
    ev = getattr(_local, "evaluator", None)
    if ev is None:
        ev = _local.evaluator = _Evaluator()
    return ev


def evaluate_compiled(formula: Formula, env: Mapping[str, Any], time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Any:
    ev = _evaluator()
    names = dict(CONSTANTS)
    names.update(env)
    ev.names = names
    ev.deadline = time.perf_counter() + time_limit_s
    try:
        result = ev.eval(formula.source, previously_parsed=formula.tree.body)
    except FormulaError as exc:
        exc.expression = formula.source
        raise
    except simpleeval.NameNotDefined as exc:
        raise FormulaError(f"name '{exc.name}' has no value here", formula.source) from None
    except simpleeval.InvalidExpression as exc:
        raise FormulaError(str(exc), formula.source) from None
    except ZeroDivisionError:
        raise FormulaError("division by zero", formula.source) from None
    except (TypeError, ValueError, ArithmeticError, IndexError, KeyError) as exc:
        detail = str(exc) or type(exc).__name__
        if isinstance(exc, KeyError):
            detail = f"no entry {exc} in table"
        raise FormulaError(f"{type(exc).__name__}: {detail}", formula.source) from None
    except (RecursionError, MemoryError):
        raise FormulaError("expression too large to evaluate", formula.source) from None
    try:
        return _check_value(result)
    except FormulaError as exc:
        exc.expression = formula.source
        raise


def safe_eval(source: str, env: Mapping[str, Any] | None = None, time_limit_s: float = DEFAULT_TIME_LIMIT_S) -> Any:
    """Compile and evaluate in one step (names are checked against ``env``)."""
    env = env or {}
    return compile_formula(source, env.keys()).evaluate(env, time_limit_s)
