"""Algebraic equivalence of a student's answer and the key.

Expressions are equal when they agree at sample points with every variable
real and of either sign (``evaluation``); nothing is assumed positive unless
the question declares it. Equations match when one is a fixed multiple of the
other (x = 2 and 2 = x; y = 2x + 1 and 2x - y + 1 = 0), inequalities when one
is a positive multiple of the other, lists item by item and sets in any
order. sympy, imported on first use, is used only to judge required forms.
"""
from __future__ import annotations

import functools
from typing import Optional, Union

from core.marking import evaluation
from core.marking.expressions import Node
from core.marking.relations import same_condition, same_equations

_MAX_SOLVE_DEGREE = 12


@functools.lru_cache(maxsize=1)
def _sympy():
    # Imported on first use: it costs about half a second.
    import sympy
    return sympy


_SYMPY_FUNCTIONS = {"sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "sec": "sec", "csc": "csc",
                    "cot": "cot", "asin": "asin", "acos": "acos", "atan": "atan", "asec": "asec", "acsc": "acsc",
                    "acot": "acot", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "sech": "sech", "csch": "csch",
                    "coth": "coth", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh", "exp": "exp",
                    "ln": "log", "abs": "Abs", "fact": "factorial"}


@functools.lru_cache(maxsize=2048)
def _to_sympy(node: Node):
    sp = _sympy()
    kind = node[0]
    if kind == "num":
        return sp.Rational(node[1].numerator, node[1].denominator)
    if kind == "var":
        return sp.Symbol(node[1], real=True)
    if kind == "const":
        return {"pi": sp.pi, "e": sp.E, "i": sp.I}[node[1]]
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
        if node[1] == "log":
            return sp.log(arg, 10)
        return getattr(sp, _SYMPY_FUNCTIONS[node[1]])(arg)
    raise ValueError(f"unknown node {kind}")


def _equivalent(a: Node, b: Node, names: set[str], positive: bool = False) -> Optional[bool]:
    """True/False, or None when the sample points could not decide."""
    return evaluation.numeric_equal(a, b, names, positive)


def _difference(answer: tuple) -> Optional[Node]:
    if answer[0] == "eq":
        return answer[1]
    if answer[0] == "def" and "(" not in answer[1]:
        return ("add", (("var", answer[1]), ("neg", answer[2])))
    return None


def _compare(student: tuple, key: tuple, names: set[str], positive: bool = False) -> Union[Optional[bool], str]:
    """True/False/None (undecided), or a sentence when the student's answer has the wrong shape."""
    sk, kk = student[0], key[0]
    condition = same_condition(student, key)
    if condition is not None:
        return condition
    if kk in ("list", "set", "and") or sk in ("list", "set", "and"):
        return _compare_many(student, key, names, positive)
    if kk == "rel" or sk == "rel":
        if kk != sk:
            return "Give an inequality." if kk == "rel" else "Give an equation or expression, not an inequality."
        if student[1] != key[1]:
            return False
        return evaluation.proportional(student[2], key[2], names, positive,
                                       sign=None if key[1] == "ne" else 1)
    s_main = student[-1] if sk in ("expr", "def") else None
    if kk == "expr":
        if s_main is None:
            return "Give an expression, not an equation."
        return _equivalent(s_main, key[1], names, positive)
    if kk == "def" and sk == "expr" or sk == "def" and student[1] == key[1]:
        return _equivalent(s_main, key[2], names, positive)
    return _same_equation(student, key, names, positive)


def _same_equation(student: tuple, key: tuple, names: set[str], positive: bool) -> Union[Optional[bool], str]:
    """Equations are the same when one is a fixed multiple of the other, or (in one unknown)
    when they have the same solutions: x^2 = 4 and "x = 2 or x = -2"."""
    ds, dk = _difference(student), _difference(key)
    if ds is None or dk is None:
        return False
    zero_s = evaluation.identically_zero(ds, names, positive)
    zero_k = evaluation.identically_zero(dk, names, positive)
    if zero_s or zero_k:
        return bool(zero_s and zero_k)
    same = evaluation.proportional(ds, dk, names, positive)
    if same:
        return True
    solved = _same_solutions(student, key)
    if solved is None:
        solved = same_equations(student, key)
    if solved:
        return True
    if student[0] == "def" and key[0] == "def" and "(" not in key[1] and student[1] != key[1]:
        return f"The left-hand side should be {key[1]}."
    return solved if solved is not None else same


def _equations(answer: tuple) -> Optional[list[Node]]:
    if answer[0] in ("list", "set"):
        found = [_equations(a) for a in answer[1]]
        return None if any(f is None for f in found) else [d for f in found for d in f]
    d = _difference(answer)
    return None if d is None else [d]


def _solutions(answer: tuple) -> Optional[tuple[str, list[complex]]]:
    """(unknown, solutions) of an equation or a set of them in one unknown that are polynomial
    after clearing fractions; None otherwise."""
    from core.marking.expressions import _variables
    diffs = _equations(answer)
    if not diffs:
        return None
    unknowns = set().union(*(_variables(d) for d in diffs))
    if len(unknowns) != 1:
        return None
    sp = _sympy()
    v = sp.Symbol(next(iter(unknowns)), real=True)
    roots: list[complex] = []
    for d in diffs:
        try:
            numerator = sp.numer(sp.together(_to_sympy(d)))
            poly = sp.Poly(numerator, v)
            if poly.degree() < 1 or poly.degree() > _MAX_SOLVE_DEGREE:
                return None
            found = [complex(r) for r in poly.nroots(n=30)]
        except Exception:   # not a polynomial in the unknown: solutions are not compared
            return None
        roots += found
    distinct: list[complex] = []
    for r in roots:
        if not any(abs(r - q) <= 1e-9 * max(1.0, abs(q)) for q in distinct):
            distinct.append(r)
    return str(v), distinct


def _same_solutions(student: tuple, key: tuple) -> Optional[bool]:
    a, b = _solutions(student), _solutions(key)
    if a is None or b is None or a[0] != b[0]:
        return None
    if len(a[1]) != len(b[1]):
        return False
    return all(any(abs(r - q) <= 1e-9 * max(1.0, abs(q)) for q in b[1]) for r in a[1])


def _compare_many(student: tuple, key: tuple, names: set[str], positive: bool) -> Union[Optional[bool], str]:
    if "and" in (student[0], key[0]):
        return False if student[0] != key[0] else _same_items(student, key, names, positive)
    if student[0] not in ("list", "set"):
        if key[0] == "set" and len(key[1]) == 1:
            return _compare(student, key[1][0], names, positive)
        solved = _same_solutions(student, key)
        if solved is None:
            solved = same_equations(student, key)
        if solved is not None:
            return solved
        return "Give a list of answers." if key[0] == "list" else False
    if key[0] not in ("list", "set"):
        if len(student[1]) == 1:
            return _compare(student[1][0], key, names, positive)
        solved = _same_solutions(student, key)
        return bool(solved if solved is not None else same_equations(student, key))
    solved = _same_solutions(student, key)
    if solved is None:
        solved = same_equations(student, key)
    if solved is not None:
        return solved
    s_items, k_items = list(student[1]), list(key[1])
    if key[0] == "list" and student[0] == "list":
        if len(s_items) != len(k_items):
            return f"Your list has {len(s_items)} entries; it should have {len(k_items)}."
        results = [_compare(a, b, names, positive) for a, b in zip(s_items, k_items)]
        return True if all(r is True for r in results) else False
    s_set, k_set = _distinct(s_items, names, positive), _distinct(k_items, names, positive)
    if len(s_set) != len(k_set):
        return False
    return all(any(_compare(a, b, names, positive) is True for b in k_set) for a in s_set)


def _same_items(student: tuple, key: tuple, names: set[str], positive: bool) -> bool:
    s_set, k_set = _distinct(list(student[1]), names, positive), _distinct(list(key[1]), names, positive)
    return len(s_set) == len(k_set) and all(any(_compare(a, b, names, positive) is True for b in k_set)
                                            for a in s_set)


def _distinct(items: list, names: set[str], positive: bool) -> list:
    out: list = []
    for a in items:
        if not any(_compare(a, b, names, positive) is True for b in out):
            out.append(a)
    return out


def _answer_shape(answer: tuple) -> str:
    kind = answer[0]
    if kind in ("list", "set", "and"):
        inner = ",".join(_answer_shape(a) for a in answer[1])
        return f"{kind}({inner if kind == 'list' else ','.join(sorted(_answer_shape(a) for a in answer[1]))})"
    if kind == "rel":
        return f"rel({answer[1]},{_canon(answer[2])})"
    if kind == "truth":
        return str(answer[1])
    return _canon(answer[1]) if kind == "eq" else _canon(answer[-1])


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
