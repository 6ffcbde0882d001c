"""Expressions as trees, read and evaluated without eval.

Student text goes through a whitelist tokeniser and a small recursive-descent
parser into nested tuples (``Node``), so sympy only ever sees trees built
here. Exponents, degree, bracket and parse depth are bounded while reading.
Trees are evaluated in complex floats at fixed sample points, which decides
equality where algebra cannot.
"""
from __future__ import annotations

import cmath
import functools
import math
import random
import re
from typing import Any, Callable, Optional

from core.marking.limits import (MAX_DEGREE, MAX_EXPONENT, MAX_EXPRESSION_CHARS, MAX_LETTER_EXPONENT, MAX_NESTING,
                                 MAX_PARSE_DEPTH)
from core.marking.numeric import _decimal
from core.marking.reading import _clean, _delatex


class _Refused(Exception):
    """The answer cannot be read at all (hostile, out of bounds)."""


class _Unreadable(Exception):
    """The answer is ordinary text that is not a well-formed answer of the expected kind."""


_FUNCS = frozenset({"sqrt", "sin", "cos", "tan", "exp", "log", "ln"})
_NAME_WORDS = ("sqrt", "sin", "cos", "tan", "exp", "log", "ln", "pi")
_NUM_TOKEN = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
_EXPRESSION_CHARS = str.maketrans({"×": "*", "·": "*", "⋅": "*", "÷": "/", "√": " sqrt ", "π": " pi "})

Node = tuple


def _shown_char(c: str) -> str:
    if c.isprintable() and not c.isspace():
        return f"'{c}'"
    return f"U+{ord(c):04X}"


def _tokenise(text: str) -> list[tuple[str, Any]]:
    tokens: list[tuple[str, Any]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "0123456789." :
            m = _NUM_TOKEN.match(text, i)
            if m is None:
                raise _Unreadable("A decimal point must be followed by digits.")
            tokens.append(("num", _decimal(m.group())))
            i = m.end()
        elif "a" <= c <= "z":
            word = next((w for w in _NAME_WORDS if text.startswith(w, i)), c)
            tokens.append(("name", word))
            i += len(word)
        elif c == "*" and text.startswith("**", i):
            tokens.append(("op", "^"))
            i += 2
        elif c in "+-*/^()":
            tokens.append(("op", c))
            i += 1
        else:
            raise _Refused(f"The character {_shown_char(c)} is not allowed in an expression.")
    return tokens


class _Parser:
    """Recursive descent over the tokens; depth is counted so nothing recurses unboundedly."""

    def __init__(self, tokens: list[tuple[str, Any]]):
        self.toks = tokens
        self.i = 0
        self.depth = 0
        self.brackets = 0

    def peek(self) -> Optional[tuple[str, Any]]:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, Any]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    @staticmethod
    def is_op(tok: Optional[tuple[str, Any]], ops: str) -> bool:
        return tok is not None and tok[0] == "op" and tok[1] in ops

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_PARSE_DEPTH:
            raise _Refused("The expression is nested too deeply.")

    def parse(self) -> Node:
        if not self.toks:
            raise _Unreadable("No expression was found.")
        node = self.expr()
        tok = self.peek()
        if tok is not None:
            if self.is_op(tok, ")"):
                raise _Unreadable("There is a ')' without a matching '('.")
            raise _Unreadable(f"Unexpected '{tok[1]}' in the expression.")
        return node

    def expr(self) -> Node:
        terms = [self.term()]
        while self.is_op(self.peek(), "+-"):
            op = self.take()[1]
            t = self.term()
            terms.append(t if op == "+" else ("neg", t))
        return terms[0] if len(terms) == 1 else ("add", tuple(terms))

    def term(self) -> Node:
        num, den = [self.unary()], []
        while True:
            tok = self.peek()
            if self.is_op(tok, "*"):
                self.take()
                num.append(self.unary())
            elif self.is_op(tok, "/"):
                self.take()
                den.append(self.unary())
            elif tok is not None and (tok[0] == "name" or self.is_op(tok, "(")):
                num.append(self.power())        # implicit multiplication: 2x, 3(x+1), (x+1)(x-2), x y
            elif tok is not None and tok[0] == "num":
                raise _Unreadable("A number straight after a letter, bracket or number is ambiguous; use * or ^.")
            else:
                break
        if len(num) == 1 and not den:
            return num[0]
        return ("mul", tuple(num), tuple(den))

    def unary(self) -> Node:
        tok = self.peek()
        if self.is_op(tok, "+-"):
            self.take()
            self.deeper()
            inner = self.unary()
            self.depth -= 1
            return ("neg", inner) if tok[1] == "-" else inner
        return self.power()

    def power(self) -> Node:
        base = self.primary()
        if self.is_op(self.peek(), "^"):
            self.take()
            exponent = self.exponent()
            if self.is_op(self.peek(), "^"):
                raise _Refused("Powers of powers like 2^3^4 are not allowed; use brackets.")
            return ("pow", base, exponent)
        return base

    def exponent(self) -> Node:
        tok = self.peek()
        if self.is_op(tok, "+-"):
            self.take()
            self.deeper()
            inner = self.exponent()
            self.depth -= 1
            return ("neg", inner) if tok[1] == "-" else inner
        node = self.primary()
        if any(n[0] == "pow" for n in _walk(node)):
            raise _Refused("Powers inside powers are not allowed.")
        return node

    def primary(self) -> Node:
        tok = self.peek()
        if tok is None:
            raise _Unreadable("The expression ends too early.")
        self.take()
        kind, val = tok
        if kind == "num":
            return ("num", val)
        if kind == "name":
            if val in _FUNCS:
                if self.peek() is None:
                    raise _Unreadable(f"'{val}' needs something to act on.")
                self.deeper()
                # sin(x)^2 squares the sine; sqrt 2 and sqrt x take the next power.
                arg = self.primary() if self.is_op(self.peek(), "(") else self.power()
                self.depth -= 1
                return ("func", val, arg)
            if val in ("pi", "e"):
                return ("const", val)
            return ("var", val)
        if val == "(":
            self.brackets += 1
            if self.brackets > MAX_NESTING:
                raise _Refused(f"Brackets are nested more than {MAX_NESTING} deep.")
            self.deeper()
            inner = self.expr()
            if not self.is_op(self.peek(), ")"):
                raise _Unreadable("A closing bracket ')' is missing.")
            self.take()
            self.brackets -= 1
            self.depth -= 1
            return inner
        if val == ")":
            raise _Unreadable("There is a ')' without a matching '('.")
        raise _Unreadable(f"Unexpected '{val}' in the expression.")


def _children(node: Node) -> tuple:
    kind = node[0]
    if kind == "neg":
        return (node[1],)
    if kind == "add":
        return node[1]
    if kind == "mul":
        return node[1] + node[2]
    if kind == "pow":
        return (node[1], node[2])
    if kind == "func":
        return (node[2],)
    return ()


def _walk(node: Node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(_children(n))


def _has_vars(node: Node) -> bool:
    return any(n[0] == "var" for n in _walk(node))


def _variables(node: Node) -> set[str]:
    return {n[1] for n in _walk(node) if n[0] == "var"}


@functools.lru_cache(maxsize=512)
def _parse_expression(text: str) -> Node:
    """Student (or key) text -> expression tree, refusing anything outside the whitelist or the bounds."""
    if len(text.strip()) > MAX_EXPRESSION_CHARS:
        raise _Refused(f"The expression is too long (over {MAX_EXPRESSION_CHARS} characters).")
    s = _delatex(_clean(text)).lower().translate(_EXPRESSION_CHARS)
    node = _Parser(_tokenise(s)).parse()
    for n in _walk(node):
        if n[0] == "pow" and not _has_vars(n[2]):
            value = _const_value(n[2])
            monomial = _has_vars(n[1]) and not any(m[0] in ("add", "func") for m in _walk(n[1]))
            limit = MAX_LETTER_EXPONENT if monomial else MAX_EXPONENT
            if value is None or abs(value) > limit:
                raise _Refused(f"Powers larger than {limit} are not allowed here.")
    if _degree(node) > MAX_DEGREE:
        raise _Refused("The powers in the expression are too large.")
    return node


_FUNCTION_NAME = re.compile(r"\s*([A-Za-z])\s*\(\s*([A-Za-z])\s*\)\s*")


@functools.lru_cache(maxsize=512)
def _parse_answer(text: str) -> tuple:
    """An expression, or an equation (one '=').

    ('expr', node) | ('def', name, node) for 'y = 2x + 3' or 'f(x) = ...' |
    ('eq', left - right, left, right) for any other equation.
    """
    if len(text.strip()) > MAX_EXPRESSION_CHARS:
        raise _Refused(f"The expression is too long (over {MAX_EXPRESSION_CHARS} characters).")
    if "=" not in text:
        return ("expr", _parse_expression(text))
    if text.count("=") > 1:
        raise _Unreadable("Write at most one '=' sign.")
    left_text, right_text = text.split("=")
    if not left_text.strip() or not right_text.strip():
        raise _Unreadable("One side of the '=' is empty.")
    named = _FUNCTION_NAME.fullmatch(left_text)
    right = _parse_expression(right_text)
    if named:
        return ("def", f"{named.group(1).lower()}({named.group(2).lower()})", right)
    left = _parse_expression(left_text)
    if left[0] == "var" and left[1] not in _variables(right):
        return ("def", left[1], right)
    if right[0] == "var" and right[1] not in _variables(left):
        return ("def", right[1], left)
    return ("eq", ("add", (left, ("neg", right))), left, right)


def _const_value(node: Node) -> Optional[complex]:
    try:
        v = _ceval(node, {})
    except (ArithmeticError, ValueError, KeyError):
        return None
    return v if cmath.isfinite(v) else None


def _int_exponent(node: Node) -> Optional[int]:
    """The exponent as a whole number, when it is a written constant like 2 or -3."""
    if _has_vars(node):
        return None
    v = _const_value(node)
    if v is None or v.imag != 0 or not float(v.real).is_integer():
        return None
    return int(v.real)


def _degree(node: Node) -> int:
    kind = node[0]
    if kind == "var":
        return 1
    if kind == "neg":
        return _degree(node[1])
    if kind == "add":
        return max(_degree(t) for t in node[1])
    if kind == "mul":
        return min(sum(_degree(f) for f in node[1] + node[2]), 10 ** 6)
    if kind == "pow":
        v = _const_value(node[2]) if not _has_vars(node[2]) else None
        scale = math.ceil(abs(v)) if v is not None else 1
        return min(_degree(node[1]) * max(scale, 1) + (0 if v is not None else _degree(node[2])), 10 ** 6)
    if kind == "func":
        return _degree(node[2])
    return 0


_CFUNCS: dict[str, Callable[[complex], complex]] = {
    "sqrt": cmath.sqrt, "sin": cmath.sin, "cos": cmath.cos, "tan": cmath.tan,
    "exp": cmath.exp, "ln": cmath.log, "log": cmath.log10,
}
_HUGE = 1e150


def _ceval(node: Node, env: dict[str, complex]) -> complex:
    """Evaluate a tree in complex floats; raises ArithmeticError/ValueError where it is undefined or huge."""
    kind = node[0]
    if kind == "num":
        r = complex(float(node[1]))
    elif kind == "var":
        r = env[node[1]]
    elif kind == "const":
        r = complex(math.pi if node[1] == "pi" else math.e)
    elif kind == "neg":
        r = -_ceval(node[1], env)
    elif kind == "add":
        r = sum((_ceval(t, env) for t in node[1]), 0j)
    elif kind == "mul":
        r = 1 + 0j
        for f in node[1]:
            r *= _ceval(f, env)
        for f in node[2]:
            q = _ceval(f, env)
            if q == 0:
                raise ZeroDivisionError("division by zero")
            r /= q
    elif kind == "pow":
        base = _ceval(node[1], env)
        k = _int_exponent(node[2])
        if k is not None:
            if base == 0 and k < 0:
                raise ZeroDivisionError("zero to a negative power")
            r = base ** k
        else:
            e = _ceval(node[2], env)
            if base == 0:
                if e.real <= 0:
                    raise ZeroDivisionError("zero to a non-positive power")
                r = 0j
            else:
                if abs(e) * abs(cmath.log(base)) > 600:
                    raise OverflowError("power too large")
                r = base ** e
    elif kind == "func":
        arg = _ceval(node[2], env)
        if node[1] in ("ln", "log") and arg == 0:
            raise ValueError("log of zero")
        if node[1] == "exp" and arg.real > 600:
            raise OverflowError("exp too large")
        r = _CFUNCS[node[1]](arg)
    else:
        raise ValueError(f"unknown node {kind}")
    if not cmath.isfinite(r) or abs(r) > _HUGE:
        raise OverflowError("value too large")
    return r


# Sample points are fixed so marking is reproducible. They are positive reals:
# school algebra takes sqrt(x)*sqrt(y) = sqrt(xy), true only there.
_SAMPLE_RNG = random.Random(20240611)
_SAMPLES = [{chr(97 + j): complex(_SAMPLE_RNG.uniform(0.35, 2.65)) for j in range(26)} for _ in range(10)]


def _numeric_equal(a: Node, b: Node) -> Optional[bool]:
    ok = 0
    for env in _SAMPLES:
        try:
            va, vb = _ceval(a, env), _ceval(b, env)
        except (ArithmeticError, ValueError):
            continue
        ok += 1
        if abs(va - vb) > 1e-9 * max(1.0, abs(va), abs(vb)):
            return False
    return True if ok >= 4 else None


def _terms_bound(node: Node) -> int:
    """An upper bound on the number of terms after full expansion (saturating)."""
    cap = 10 ** 7
    kind = node[0]
    if kind == "neg":
        return _terms_bound(node[1])
    if kind == "add":
        return min(sum(_terms_bound(t) for t in node[1]), cap)
    if kind == "mul":
        r = 1
        for f in node[1]:
            r = min(r * _terms_bound(f), cap)
        return r
    if kind == "pow":
        k = _int_exponent(node[2])
        if k is not None and k >= 0:
            t = _terms_bound(node[1])
            if t >= cap:
                return cap
            return min(math.comb(t + k - 1, k) if k else 1, cap)
    return 1


def _is_polynomial(node: Node) -> bool:
    for n in _walk(node):
        if n[0] == "mul" and any(_has_vars(d) for d in n[2]):
            return False
        if n[0] == "pow" and _has_vars(n[1]):
            k = _int_exponent(n[2])
            if k is None or k < 0:
                return False
        if n[0] == "pow" and _has_vars(n[2]):
            return False
        if n[0] == "func" and _has_vars(n[2]):
            return False
    return True
