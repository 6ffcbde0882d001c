"""Bounded values: sizes no computation may exceed, and the operators that check them before computing.

Blueprint expressions are hostile input, and Python's numbers and strings
grow without limit: ``9**9**9`` or ``'a' * 10**9`` would exhaust memory long
before a deadline fires. So every operator that can grow a value estimates
the result's size from its operands first and refuses oversized ones, and
every result is checked against the same limits (integers and fractions by
bits, strings and collections by length, floats must be finite).
"""
from __future__ import annotations

import ast
import math
import operator as _op
from fractions import Fraction
from typing import Any, Callable

from core.blueprints.formula.errors import FormulaError

MAX_INT_BITS = 1_024
MAX_STR_LEN = 10_000
MAX_COLLECTION_LEN = 1_000


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
