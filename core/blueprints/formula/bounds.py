"""Bounded values: sizes no computation may exceed, and the operators that check them before computing.

Blueprint expressions are hostile input, and Python's numbers and strings
grow without limit: ``9**9**9`` or ``'a' * 10**9`` would exhaust memory long
before a deadline fires. So every operator that can grow a value estimates
the result's size from its operands first and refuses oversized ones, and
every result is checked against the same limits (integers and fractions by
bits, strings and collections by length, floats must be finite).
Collections are measured all the way down: ``[[x] * 1000] * 1000`` is short at
the top but would print as a million entries, so a collection counts every
entry it holds, nested ones included, and the characters of its text.
Text formatting with ``%`` has its widths and precisions checked before it
runs, since ``'%0999999999d' % 1`` asks C code for gigabytes at once.
"""
from __future__ import annotations

import ast
import math
import operator as _op
import re
from fractions import Fraction
from typing import Any, Callable

from core.blueprints.formula.errors import FormulaError

MAX_INT_BITS = 1_024
MAX_STR_LEN = 10_000
MAX_COLLECTION_LEN = 1_000
MAX_NESTED_ITEMS = 10_000       # entries of a collection counted all the way down
MAX_NESTED_CHARS = 100_000      # characters of the text held anywhere inside a collection
MAX_NESTED_DEPTH = 32
MAX_FORMAT_WIDTH = 99           # width or precision in '%' formatting (f-strings allow two digits too)
MAX_EXPONENT = 10_000

_CONTAINERS = (list, tuple, set, frozenset, dict)


def check_nested(value: Any) -> None:
    """Refuse a collection (a table too) whose entries, counted all the way down, are too many or too deep,
    or hold too much text."""
    items = chars = 0
    stack = [(value, 1)]
    while stack:
        current, depth = stack.pop()
        if depth > MAX_NESTED_DEPTH:
            raise FormulaError(f"collection nested too deeply (more than {MAX_NESTED_DEPTH} levels)")
        entries = [*current.keys(), *current.values()] if isinstance(current, dict) else current
        items += len(entries)
        if items > MAX_NESTED_ITEMS:
            raise FormulaError(f"collection too large (more than {MAX_NESTED_ITEMS} entries, nested ones included)")
        for entry in entries:
            if isinstance(entry, str):
                chars += len(entry)
            elif isinstance(entry, _CONTAINERS):
                stack.append((entry, depth + 1))
        if chars > MAX_NESTED_CHARS:
            raise FormulaError(f"collection too large (more than {MAX_NESTED_CHARS} characters of text)")


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
        check_nested(value)
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
    if isinstance(b, (int, float, Fraction)) and not isinstance(b, bool) and abs(b) > MAX_EXPONENT:
        raise FormulaError(f"exponent too large (at most {MAX_EXPONENT})")
    if isinstance(a, (int, Fraction)) and isinstance(b, int) and b != 0:
        # A negative power of a fraction is exact too: (1/3) ** -5000 is 3 ** 5000.
        if (isinstance(a, Fraction) or b > 0) and _bits(a) * abs(b) > MAX_INT_BITS + abs(b):
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


# One '%' directive: mapping key, flags, width, precision, length modifier, conversion.
_PERCENT = re.compile(r"%(?:\((?P<key>[^)]*)\))?[-#0 +]*(?P<width>\*|\d+)?"
                      r"(?:\.(?P<precision>\*|\d*))?[hlL]?(?P<conv>.?)", re.S)


def _check_percent_format(text: str) -> None:
    """Refuse '%' directives whose width or precision would build a huge string in C code."""
    for m in _PERCENT.finditer(text):
        if m.group("key") and "(" in m.group("key"):
            raise FormulaError("'%' formatting keys may not contain brackets")
        for part in ("width", "precision"):
            size = m.group(part)
            if size == "*":
                raise FormulaError(f"'%' formatting with '*' for the {part} is not allowed; write the number")
            if size and (len(size) > 2 or int(size) > MAX_FORMAT_WIDTH):
                raise FormulaError(f"'%' formatting {part} too large (at most {MAX_FORMAT_WIDTH})")


def _safe_mod(a, b):
    if isinstance(a, str):
        _check_percent_format(a)
        items = b if isinstance(b, tuple) else (b,)
        for x in items:
            _check_value(x)
    try:
        return _check_value(a % b)
    except ZeroDivisionError:
        raise FormulaError("division by zero") from None


def bounded_sum(values: Any, start: Any = 0) -> Any:
    """``sum`` with every partial sum checked: adding 1000 fractions could otherwise build million-bit numbers."""
    values = list(values)
    if not any(isinstance(v, Fraction) for v in values):
        return _check_value(sum(values, start))     # whole numbers and floats cannot grow past the limits here
    total = start
    for value in values:
        total = _check_value(total + value)
    return total


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
    ast.Mod: _safe_mod,
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
