"""The functions and constants a formula may use, each wrapped so its arguments and result stay bounded.

Only names in ``FUNCTIONS`` can be called (``whitelist`` refuses any other
call), so this table is the whole of what a formula can do besides
arithmetic. Functions whose cost grows with their argument (factorial, comb,
perm, exp, int of text) get explicit argument limits; every function's errors
become FormulaError, so a bad argument reads as a formula problem, not a crash.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

from core.blueprints import helpers
from core.blueprints.formula.bounds import _check_value, bounded_sum
from core.blueprints.formula.errors import FormulaError


def _bounded(fn: Callable, name: str) -> Callable:
    """Wrap a function so oversized arguments and results are refused."""

    def wrapped(*args):
        for arg in args:
            _check_value(arg)       # collections are measured all the way down
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
    if not isinstance(k, int):
        raise FormulaError("comb(): k must be an integer")
    return math.comb(n, k)


def _perm(n, k=None):
    if not isinstance(n, int) or n > 1_000:
        raise FormulaError("perm(): n must be an integer of at most 1000")
    if k is not None and not isinstance(k, int):
        raise FormulaError("perm(): k must be an integer")
    return math.perm(n, k)


def _float(x):
    if isinstance(x, str) and len(x) > 200:
        raise FormulaError("float(): text too long")
    return float(x)


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
    "sum": _seq_fn(bounded_sum, "sum"),
    "sorted": lambda xs: sorted(xs),
    "round": _round,
    "int": _int,
    "float": _float,
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
