"""Required forms: why an answer with the right value is not written as asked.

Fractions in their simplest form, and expressions simplified, expanded or
(fully) factorised. A form the answer key is not in itself is never required
of a student.
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import Optional

from core.marking.algebra import _sympy, _to_sympy
from core.marking.expressions import Node, _degree, _has_vars, _int_exponent, _is_polynomial, _terms_bound, _walk
from core.marking.limits import MAX_FACTOR_DEGREE
from core.marking.numeric import _Number

NOT_SIMPLEST = "Not in its simplest form."
NOT_FACTORISED = "Equivalent, but not factorised."
NOT_FULLY_FACTORISED = "Equivalent, but not fully factorised."
NOT_EXPANDED = "Equivalent, but not expanded."
LIKE_TERMS = "Equivalent, but like terms have not been collected."


def _fraction_form_problem(a: _Number, key: Optional[_Number]) -> Optional[str]:
    if a.kind in ("fraction", "mixed"):
        if a.fraction is None:
            return NOT_SIMPLEST
        num, den, proper = a.fraction
        if den == 1 or math.gcd(num, den) != 1 or not proper:
            return NOT_SIMPLEST
        return None
    if key is not None and key.kind in ("fraction", "mixed") and a.kind in ("decimal", "scientific"):
        return "Equivalent, but give the answer as a fraction."
    return None


def _strip_neg(node: Node) -> Node:
    while node[0] == "neg":
        node = node[1]
    return node


def _literal(node: Node) -> Optional[Fraction]:
    sign = 1
    while node[0] == "neg":
        sign, node = -sign, node[1]
    return sign * node[1] if node[0] == "num" else None


def _like_terms(terms: tuple) -> bool:
    seen = set()
    for t in terms:
        _, rest = _to_sympy(t).as_coeff_Mul()
        if rest in seen:
            return True
        seen.add(rest)
    return False


def _square_factor(n: int) -> bool:
    k = 2
    while k * k <= n:
        if n % (k * k) == 0:
            return True
        k += 1
    return False


def _simplified_problem(root: Node) -> Optional[str]:
    """Why an expression is not in its simplest form: like terms, unmultiplied numbers, uncombined powers..."""
    for node in _walk(root):
        kind = node[0]
        if kind == "neg" and node[1][0] == "neg":
            return NOT_SIMPLEST
        if kind == "add":
            if any(_literal(t) == 0 for t in node[1]):
                return NOT_SIMPLEST
            if _like_terms(node[1]):
                return LIKE_TERMS
        elif kind == "mul":
            num = [v for v in map(_literal, node[1]) if v is not None]
            den = [v for v in map(_literal, node[2]) if v is not None]
            if len(num) > 1 or len(den) > 1 or (num and abs(num[0]) == 1 and len(node[1]) > 1):
                return NOT_SIMPLEST
            if den:
                top = num[0] if num else Fraction(1)
                if abs(den[0]) == 1 or (top.denominator == 1 and den[0].denominator == 1
                                        and math.gcd(top.numerator, den[0].numerator) > 1):
                    return NOT_SIMPLEST
            bases = []
            for f in node[1] + node[2]:
                f = _strip_neg(f)
                if f[0] == "var":
                    bases.append(f[1])
                elif f[0] == "pow" and f[1][0] == "var":
                    bases.append(f[1][1])
            if len(bases) != len(set(bases)):
                return NOT_SIMPLEST
        elif kind == "pow":
            base, k = _strip_neg(node[1]), _int_exponent(node[2])
            if k in (0, 1):
                return NOT_SIMPLEST
            if base[0] == "num" and k is not None:
                return NOT_SIMPLEST
            if base[0] in ("pow", "mul"):
                return NOT_SIMPLEST
        elif kind == "func" and node[1] == "sqrt":
            v = _literal(node[2])
            if v is not None and v.denominator == 1 and v >= 0 and (v <= 1 or _square_factor(int(v))):
                return NOT_SIMPLEST
    return None


def _expanded_problem(root: Node) -> Optional[str]:
    for node in _walk(root):
        kind = node[0]
        if kind == "mul" and any(_strip_neg(f)[0] == "add" for f in node[1]):
            return NOT_EXPANDED
        if kind == "pow" and _strip_neg(node[1])[0] == "add" and (_int_exponent(node[2]) or 0) >= 2:
            return NOT_EXPANDED
        if kind == "neg" and node[1][0] == "add":
            return NOT_EXPANDED
        if kind == "add" and any(_strip_neg(t)[0] == "add" for t in node[1]):
            return NOT_EXPANDED
    if root[0] == "add" and _like_terms(root[1]):
        return LIKE_TERMS
    return None


def _factorised_problem(root: Node, fully: bool = True) -> Optional[str]:
    """A product with at least two factors other than ±1, one of them not constant; 'fully' also
    needs every bracket irreducible with its common number factor taken out."""
    node = _strip_neg(root)
    if node[0] == "mul":
        parts = list(node[1])
    elif node[0] == "pow":
        parts = [node]
    else:
        return NOT_FACTORISED
    factors: list[tuple[Node, int]] = []
    for f in parts:
        f = _strip_neg(f)
        k = _int_exponent(f[2]) if f[0] == "pow" else None
        factors.append((f[1], k) if k is not None and k >= 1 else (f, 1))
    variable = [(f, m) for f, m in factors if _has_vars(f)]
    count = sum(m for _, m in variable)
    constant = any(not _has_vars(f) and _literal(f) not in (1, -1) for f, _ in factors)
    if count == 0 or (count == 1 and not constant):
        return NOT_FACTORISED
    if not fully:
        return None
    sp = _sympy()
    for f, _ in variable:
        f = _strip_neg(f)
        if f[0] != "add" or not _is_polynomial(f) or _degree(f) > MAX_FACTOR_DEGREE or _terms_bound(f) > 200:
            continue
        try:
            coeff, found = sp.factor_list(_to_sympy(f))
        except Exception:   # sympy refuses some coefficient domains; then the bracket is taken as it is
            continue
        if len(found) != 1 or found[0][1] != 1:
            return NOT_FULLY_FACTORISED
        if getattr(coeff, "is_Integer", False) and abs(coeff) != 1:
            return NOT_FULLY_FACTORISED
    return None


def _form_problem(form: str, student: Node, key: Node) -> Optional[str]:
    """Why the student's form is not the required one. A check the key itself fails is skipped:
    a student is never held to a stricter standard than the answer key shows."""
    if form == "factorised":
        key_problem = _factorised_problem(key)
        if key_problem == NOT_FACTORISED:
            return None
        return _factorised_problem(student, fully=key_problem is None)
    check = {"simplified": _simplified_problem, "expanded": _expanded_problem}.get(form)
    if check is None or check(key) is not None:
        return None
    return check(student)
