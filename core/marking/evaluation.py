"""Expressions evaluated at sample points, which decides equality where algebra cannot.

Values are computed with mpmath at 50 digits, in complex numbers, with every
variable real: a variable is never assumed positive unless the question says
so (sqrt(x^2) is |x|, not x). Two expressions are equal when they agree, to
far more digits than any typed number carries, wherever both are defined:
0.333333333333333 is not 1/3, and 0.5 is 1/2.
"""
from __future__ import annotations

import cmath
import math
import threading
import zlib
from typing import Optional

from fractions import Fraction

from core.marking.expressions import Node

_ZERO = Fraction(0)

_LOCAL = threading.local()
SAMPLE_COUNT = 16
_POSITIVE_POINTS = 6
_MIN_DEFINED = 4
_MAX_POWER_DIGITS = 10 ** 6     # a value with more digits than this is out of reach: the point is skipped


class _Undefined(ArithmeticError):
    """The expression has no finite value at this point (division by zero, a log of zero, too large)."""


def _ctx():
    ctx = getattr(_LOCAL, "ctx", None)
    if ctx is None:
        import mpmath
        ctx = mpmath.MPContext()
        ctx.dps = 50
        _LOCAL.ctx = ctx
        _LOCAL.funcs = _functions(ctx)
    return ctx


def _functions(ctx) -> dict:
    def fact(z):
        if z.imag != 0 or z.real < 0 and z.real == int(z.real):
            raise _Undefined("factorial of a negative whole number")
        return ctx.gamma(z + 1)

    def acot(z):
        return ctx.atan(1 / z)

    return {
        "sqrt": ctx.sqrt, "sin": ctx.sin, "cos": ctx.cos, "tan": ctx.tan, "sec": ctx.sec, "csc": ctx.csc,
        "cot": ctx.cot, "asin": ctx.asin, "acos": ctx.acos, "atan": ctx.atan, "asec": lambda z: ctx.acos(1 / z),
        "acsc": lambda z: ctx.asin(1 / z), "acot": acot, "sinh": ctx.sinh, "cosh": ctx.cosh, "tanh": ctx.tanh,
        "sech": ctx.sech, "csch": ctx.csch, "coth": ctx.coth, "asinh": ctx.asinh, "acosh": ctx.acosh,
        "atanh": ctx.atanh, "exp": ctx.exp, "ln": ctx.ln, "log": ctx.log10, "abs": lambda z: ctx.mpf(abs(z)),
        "fact": fact,
    }


def _eval(node: Node, env: dict, scale: list) -> object:
    """The value of a tree at one point, as an mpmath number; scale[0] tracks the largest magnitude met,
    so cancellation is judged against the size of what was added."""
    ctx = _LOCAL.ctx
    kind = node[0]
    if kind == "num":
        v = node[1]
        r = ctx.mpf(v.numerator) / v.denominator if v.denominator != 1 else ctx.mpf(v.numerator)
    elif kind == "var":
        r = env[node[1]]
    elif kind == "const":
        r = ctx.pi if node[1] == "pi" else ctx.e if node[1] == "e" else ctx.mpc(0, 1)
    elif kind == "neg":
        r = -_eval(node[1], env, scale)
    elif kind == "add":
        r = ctx.mpf(0)
        for t in node[1]:
            r += _eval(t, env, scale)
    elif kind == "mul":
        r = ctx.mpf(1)
        for f in node[1]:
            r *= _eval(f, env, scale)
        for f in node[2]:
            q = _eval(f, env, scale)
            if q == 0:
                raise _Undefined("division by zero")
            r /= q
    elif kind == "pow":
        base = _eval(node[1], env, scale)
        exponent = _eval(node[2], env, scale)
        if base == 0:
            if ctx.re(exponent) <= 0:
                raise _Undefined("zero to a power that is not positive")
            r = ctx.mpf(0)
        else:
            if abs(exponent) * (abs(ctx.log(abs(base))) + 1) > _MAX_POWER_DIGITS:
                raise _Undefined("power too large")
            if ctx.im(exponent) == 0 and ctx.re(exponent) == int(ctx.re(exponent)):
                r = base ** int(ctx.re(exponent))
            else:
                r = base ** exponent
    elif kind == "func":
        arg = _eval(node[2], env, scale)
        name = node[1]
        if name in ("ln", "log") and arg == 0:
            raise _Undefined("log of zero")
        if name in ("exp", "sinh", "cosh") and abs(ctx.re(arg)) > _MAX_POWER_DIGITS:
            raise _Undefined("too large")
        if name == "fact" and abs(arg) > 10 ** 5:
            raise _Undefined("too large")
        try:
            r = _LOCAL.funcs[name](arg)
        except (ZeroDivisionError, ValueError) as exc:
            raise _Undefined(str(exc)) from None
    else:
        raise ValueError(f"unknown node {kind}")
    if not ctx.isfinite(r):
        raise _Undefined("not finite")
    m = abs(r)
    if m > scale[0]:
        scale[0] = m
    if not scale[1] and ctx.im(r) != 0 and abs(ctx.im(r)) > m * 1e-40:
        scale[1] = True
    return r


def value(node: Node, env: Optional[dict] = None) -> complex:
    """A tree's value (variables from env) as a Python complex; raises ArithmeticError where undefined."""
    ctx = _ctx()
    try:
        r = _eval(node, {k: ctx.mpf(v) for k, v in (env or {}).items()}, [ctx.mpf(0), False])
    except ZeroDivisionError as exc:
        raise _Undefined(str(exc)) from None
    return complex(r)


def _sample_value(name: str, index: int, positive: bool) -> str:
    """A fixed, unremarkable real number for each variable at each sample point (never whole, never 0).
    The first points give every variable a positive value; the rest mix signs."""
    h = zlib.crc32(f"{name}:{index}".encode())
    magnitude = 0.21 + (h % 3779) / 1000          # 0.21 .. 3.99
    if index >= SAMPLE_COUNT - 3:
        magnitude *= 3.7                           # a few points further out
    sign = -1 if (not positive and index >= _POSITIVE_POINTS and (h >> 12) % 2) else 1
    return f"{sign * magnitude:.4f}"


def samples(names: set[str], positive: bool = False) -> list[dict]:
    ctx = _ctx()
    return [{n: ctx.mpf(_sample_value(n, i, positive)) for n in names} for i in range(SAMPLE_COUNT)]


def _values(a: Node, b: Node, names: set[str], positive: bool):
    """(value of a, value of b, scale) at the sample points where both are defined.

    Where every variable is real, points at which either expression passes through a
    non-real value (the square root or log of a negative number) are outside the real
    domain both are meant on and are left out, as long as enough real points remain:
    so sqrt(k/m)*sqrt(m/k) is 1, while sqrt(x^2) is |x| and not x. Expressions that are
    complex by nature (with i) are compared as complex numbers."""
    ctx = _ctx()
    points = samples(names, positive) if names else [{}]
    real, every = [], []
    for env in points:
        scale = [ctx.mpf(1), False]
        try:
            va, vb = _eval(a, env, scale), _eval(b, env, scale)
        except (ArithmeticError, ValueError, KeyError):
            continue
        every.append((va, vb, scale[0]))
        if not scale[1]:
            real.append((va, vb, scale[0]))
    return real if len(real) >= (_MIN_DEFINED if names else 1) else every


def _close(x, y, scale) -> bool:
    return abs(x - y) <= scale * 1e-30


_CMATH = {
    "sqrt": cmath.sqrt, "sin": cmath.sin, "cos": cmath.cos, "tan": cmath.tan, "sec": lambda z: 1 / cmath.cos(z),
    "csc": lambda z: 1 / cmath.sin(z), "cot": lambda z: 1 / cmath.tan(z), "asin": cmath.asin, "acos": cmath.acos,
    "atan": cmath.atan, "asec": lambda z: cmath.acos(1 / z), "acsc": lambda z: cmath.asin(1 / z),
    "acot": lambda z: cmath.atan(1 / z), "sinh": cmath.sinh, "cosh": cmath.cosh, "tanh": cmath.tanh,
    "sech": lambda z: 1 / cmath.cosh(z), "csch": lambda z: 1 / cmath.sinh(z), "coth": lambda z: 1 / cmath.tanh(z),
    "asinh": cmath.asinh, "acosh": cmath.acosh, "atanh": cmath.atanh, "exp": cmath.exp, "ln": cmath.log,
    "log": cmath.log10, "abs": lambda z: complex(abs(z)),
}


def _fast(node: Node, env: dict, scale: list) -> complex:
    """The same value in ordinary floating point: quick, and only ever used to see a clear difference."""
    kind = node[0]
    if kind == "num":
        r = complex(float(node[1]))
    elif kind == "var":
        r = complex(env[node[1]])
    elif kind == "const":
        r = complex(math.pi) if node[1] == "pi" else complex(math.e) if node[1] == "e" else 1j
    elif kind == "neg":
        r = -_fast(node[1], env, scale)
    elif kind == "add":
        r = sum((_fast(t, env, scale) for t in node[1]), 0j)
    elif kind == "mul":
        r = 1 + 0j
        for f in node[1]:
            r *= _fast(f, env, scale)
        for f in node[2]:
            r /= _fast(f, env, scale)
    elif kind == "pow":
        base, exponent = _fast(node[1], env, scale), _fast(node[2], env, scale)
        if exponent.imag == 0 and exponent.real.is_integer() and abs(exponent.real) <= 64:
            r = base ** int(exponent.real)
        else:
            r = base ** exponent
    elif kind == "func":
        arg = _fast(node[2], env, scale)
        if node[1] == "fact":
            if arg.imag != 0 or arg.real > 170:
                raise OverflowError("too large")
            r = complex(math.gamma(arg.real + 1))
        else:
            r = _CMATH[node[1]](arg)
    else:
        raise ValueError(f"unknown node {kind}")
    if not cmath.isfinite(r) or abs(r) > 1e100:
        raise OverflowError("too large")
    m = abs(r)
    if m > scale[0]:
        scale[0] = m
    if r.imag != 0 and abs(r.imag) > 1e-12 * m:
        scale[1] = True
    return r


def _clearly_different(a: Node, b: Node, names: set[str], positive: bool) -> bool:
    """Whether ordinary floating point already shows a and b differ at a real point where both are
    defined: a difference far beyond any rounding error against the largest value met."""
    for i in range(_POSITIVE_POINTS):
        env = {n: float(_sample_value(n, i, positive)) for n in names}
        scale = [1.0, False]
        try:
            va, vb = _fast(a, env, scale), _fast(b, env, scale)
        except (ArithmeticError, ValueError, KeyError, TypeError):
            continue
        if not scale[1] and abs(va - vb) > 1e-6 * scale[0]:
            return True
    return False


def numeric_equal(a: Node, b: Node, names: set[str], positive: bool = False) -> Optional[bool]:
    """True/False, or None when too few sample points have both defined."""
    if _clearly_different(a, b, names, positive):
        return False
    vals = _values(a, b, names, positive)
    if not vals or (names and len(vals) < _MIN_DEFINED):
        return None
    return all(_close(x, y, s) for x, y, s in vals)


def identically_zero(a: Node, names: set[str], positive: bool = False) -> Optional[bool]:
    """Whether a is 0 wherever it is defined (an equation such as x = x says nothing)."""
    return numeric_equal(a, ("num", _ZERO), names, positive)


def proportional(a: Node, b: Node, names: set[str], positive: bool = False,
                 sign: Optional[int] = None) -> Optional[bool]:
    """Whether a = 0 and b = 0 say the same: a is a fixed non-zero multiple of b (of the given sign)."""
    vals = _values(a, b, names, positive)
    ratios = []
    for x, y, s in vals:
        zero_x, zero_y = abs(x) <= s * 1e-30, abs(y) <= s * 1e-30
        if zero_x and zero_y:
            continue
        if zero_x or zero_y:
            return False
        ratios.append(x / y)
    if len(ratios) < (_MIN_DEFINED if names else 1):
        return None
    r0 = ratios[0]
    if any(abs(r - r0) > 1e-25 * max(1, abs(r0)) for r in ratios):
        return False
    if sign is not None:
        ctx = _LOCAL.ctx
        if ctx.im(r0) != 0 or (ctx.re(r0) > 0) != (sign > 0):
            return False
    return True
