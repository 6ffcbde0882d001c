"""Algebraic equivalence of a student's expression or equation and the key.

Exact with sympy where the expansion is small enough, at sample points
otherwise; equations match when one is a fixed multiple of the other. Also
how an answer is shown back and its written shape, which matches
misconceptions of form. sympy is imported on the first algebraic answer, not
with this module: it costs about half a second.
"""
from __future__ import annotations

import functools
from typing import Optional, Union

from core.marking.expressions import _SAMPLES, Node, _ceval, _is_polynomial, _numeric_equal, _terms_bound
from core.marking.limits import MAX_EXPAND_TERMS
from core.marking.numeric import _show_number


@functools.lru_cache(maxsize=1)
def _sympy():
    # Imported on first algebraic marking: it costs about half a second.
    import sympy
    return sympy


@functools.lru_cache(maxsize=2048)
def _to_sympy(node: Node):
    sp = _sympy()
    kind = node[0]
    if kind == "num":
        return sp.Rational(node[1].numerator, node[1].denominator)
    if kind == "var":
        return sp.Symbol(node[1], positive=True)
    if kind == "const":
        return sp.pi if node[1] == "pi" else sp.E
    if kind == "neg":
        return -_to_sympy(node[1])
    if kind == "add":
        return sp.Add(*[_to_sympy(t) for t in node[1]])
    if kind == "mul":
        num = sp.Mul(*[_to_sympy(f) for f in node[1]])
        return num / sp.Mul(*[_to_sympy(f) for f in node[2]]) if node[2] else num
    if kind == "pow":
        return sp.Pow(_to_sympy(node[1]), _to_sympy(node[2]))
    if kind == "func":
        arg = _to_sympy(node[2])
        name = node[1]
        if name == "log":
            return sp.log(arg, 10)
        return {"sqrt": sp.sqrt, "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "exp": sp.exp, "ln": sp.log}[name](arg)
    raise ValueError(f"unknown node {kind}")


def _equivalent(a: Node, b: Node) -> Optional[bool]:
    """True/False, or None when neither an exact nor a numeric check could decide."""
    if (_is_polynomial(a) and _is_polynomial(b)
            and _terms_bound(a) + _terms_bound(b) <= MAX_EXPAND_TERMS):
        sp = _sympy()
        try:
            difference = sp.expand(_to_sympy(a) - _to_sympy(b))
            if difference == 0:
                return True
            # A non-zero difference with rational coefficients is a real difference, however
            # small (x + 10^-12 is not x); with constants such as sin(1) the numbers decide.
            if not difference.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                symbols = sorted(difference.free_symbols, key=str)
                coeffs = sp.Poly(difference, *symbols).coeffs() if symbols else [difference]
                if all(c.is_Rational for c in coeffs):
                    return False
        except Exception:   # sympy's own failures only mean "not decided here"
            pass
    return _numeric_equal(a, b)


def _proportional(a: Node, b: Node) -> Optional[bool]:
    """Whether a = 0 and b = 0 are the same equation: a is a fixed non-zero multiple of b."""
    ratios = []
    for env in _SAMPLES:
        try:
            va, vb = _ceval(a, env), _ceval(b, env)
        except (ArithmeticError, ValueError, KeyError):
            continue
        if abs(vb) < 1e-12:
            if abs(va) > 1e-9:
                return False
            continue
        ratios.append(va / vb)
    if len(ratios) < 4:
        return None
    r0 = ratios[0]
    if abs(r0) < 1e-12:
        return False
    return all(abs(r - r0) <= 1e-9 * max(1.0, abs(r0)) for r in ratios)


def _difference(answer: tuple) -> Optional[Node]:
    if answer[0] == "eq":
        return answer[1]
    if answer[0] == "def" and len(answer[1]) == 1:
        return ("add", (("var", answer[1]), ("neg", answer[2])))
    return None


def _compare(student: tuple, key: tuple) -> Union[Optional[bool], str]:
    """True/False/None (undecided), or a sentence when the student's answer has the wrong shape."""
    s_main = student[-1] if student[0] != "eq" else None
    if key[0] == "expr":
        if s_main is None:
            return "Give an expression, not an equation."
        return _equivalent(s_main, key[1])
    if key[0] == "def" and student[0] != "eq":
        if student[0] == "def" and student[1] != key[1]:
            return f"The left-hand side should be {key[1]}."
        return _equivalent(s_main, key[2])
    ds, dk = _difference(student), _difference(key)
    if ds is None or dk is None:
        return False
    return _proportional(ds, dk)


def _answer_shape(answer: tuple) -> str:
    return _canon(answer[1]) if answer[0] == "eq" else _canon(answer[-1])


def _show_answer(answer: tuple) -> str:
    if answer[0] == "def":
        return f"{answer[1]} = {_show_expression(answer[2])}"
    if answer[0] == "eq":
        return f"{_show_expression(answer[2])} = {_show_expression(answer[3])}"
    return _show_expression(answer[1])


def _canon(node: Node) -> str:
    """Order-insensitive shape of an expression: 2(x^2 - 1) and (-1 + x^2)*2 match, 2x^2 - 2 does not."""
    kind = node[0]
    if kind == "num":
        return str(node[1])
    if kind in ("var", "const"):
        return node[1]
    if kind == "neg":
        return f"-({_canon(node[1])})"
    if kind == "add":
        return "add(" + ",".join(sorted(_canon(t) for t in node[1])) + ")"
    if kind == "mul":
        return ("mul(" + ",".join(sorted(_canon(f) for f in node[1])) + "/"
                + ",".join(sorted(_canon(f) for f in node[2])) + ")")
    if kind == "pow":
        return f"pow({_canon(node[1])},{_canon(node[2])})"
    return f"{node[1]}({_canon(node[2])})"


_PRECEDENCE = {"add": 1, "mul": 2, "neg": 3, "pow": 4}


def _show_expression(node: Node, outer: int = 0) -> str:
    """The tree as read, with implicit multiplication written out: '2(x^2-1)' -> '2*(x^2 - 1)'."""
    kind = node[0]
    if kind == "num":
        text = _show_number(node[1])
    elif kind in ("var", "const"):
        text = node[1]
    elif kind == "func":
        text = f"{node[1]}({_show_expression(node[2])})"
    elif kind == "neg":
        text = "-" + _show_expression(node[1], 3)
    elif kind == "add":
        text = _show_expression(node[1][0], 1)
        for t in node[1][1:]:
            text += f" - {_show_expression(t[1], 2)}" if t[0] == "neg" else f" + {_show_expression(t, 1)}"
    elif kind == "mul":
        text = "*".join(_show_expression(f, 2) for f in node[1])
        if len(node[2]) == 1:
            text += "/" + _show_expression(node[2][0], 3)
        elif node[2]:
            text += "/(" + "*".join(_show_expression(f, 2) for f in node[2]) + ")"
    else:
        text = _show_expression(node[1], 5) + "^" + _show_expression(node[2], 5)
    return f"({text})" if _PRECEDENCE.get(kind, 9) < outer else text
