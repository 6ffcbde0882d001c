"""Conditions on one unknown compared by the values that satisfy them.

"x^2 > 4" and "x > 2 or x < -2" are the same answer; so are "|x| < 2" and
"-2 < x and x < 2", or "x >= 1 and x <= 1" and "x = 1". Each side is tested on
the same points: every boundary either side can have (the roots of each side's
differences, found exactly where they are polynomial), points just either side
of them, and a spread of points across the number line.
"""
from __future__ import annotations

from typing import Optional

from core.marking import evaluation
from core.marking.expressions import Node, _variables

_SPREAD = [k / 2 for k in range(-60, 61)] + [-1000.5, -123.25, -47.75, 47.75, 123.25, 1000.5]
_MAX_BOUNDARIES = 40


def _has_condition(answer: tuple) -> bool:
    kind = answer[0]
    if kind in ("rel", "and", "truth"):
        return True
    if kind in ("set", "list"):
        return any(_has_condition(a) for a in answer[1])
    return False


def _differences(answer: tuple) -> Optional[list[Node]]:
    kind = answer[0]
    if kind in ("set", "and"):
        found = [_differences(a) for a in answer[1]]
        return None if any(f is None for f in found) else [d for f in found for d in f]
    if kind == "rel":
        return [answer[2]]
    if kind == "truth":
        return []
    if kind == "eq":
        return [answer[1]]
    if kind == "def" and "(" not in answer[1]:
        return [("add", (("var", answer[1]), ("neg", answer[2])))]
    return None


def _holds(answer: tuple, env: dict) -> Optional[bool]:
    """Whether the condition holds at a point; None where it cannot be evaluated there."""
    kind = answer[0]
    if kind in ("set", "and"):
        results = [_holds(a, env) for a in answer[1]]
        if any(r is None for r in results):
            return None
        return any(results) if kind == "set" else all(results)
    if kind == "truth":
        return answer[1]
    diffs = _differences(answer)
    try:
        v = evaluation.value(diffs[0], env)
    except (ArithmeticError, ValueError, KeyError):
        return None
    if abs(v.imag) > 1e-12 * max(1.0, abs(v.real)):
        return None
    d = v.real
    zero = abs(d) <= 1e-9
    if kind in ("eq", "def"):
        return zero
    strict = answer[1]
    if strict == "ne":
        return not zero
    return d > 0 and not zero if strict else d > 0 or zero


def _boundaries(diffs: list[Node], name: str) -> list[float]:
    from core.marking.algebra import _sympy, _to_sympy
    sp = _sympy()
    v = sp.Symbol(name, real=True)
    points: list[float] = []
    for d in diffs:
        try:
            poly = sp.Poly(sp.numer(sp.together(_to_sympy(d))), v)
            if 1 <= poly.degree() <= 12:
                points += [complex(r).real for r in poly.nroots(n=30) if abs(complex(r).imag) < 1e-12]
        except Exception:   # not a polynomial in the unknown: the spread of points decides
            continue
    return points[:_MAX_BOUNDARIES]


def same_condition(student: tuple, key: tuple) -> Optional[bool]:
    """True/False when both are conditions on the same single unknown; None when this does not apply."""
    if not (_has_condition(student) or _has_condition(key)):
        return None
    if any(a[0] in ("set", "list") and not a[1] for a in (student, key)):
        return None         # an empty set is a set, not a condition
    ds, dk = _differences(student), _differences(key)
    if ds is None or dk is None:
        return None
    names = set().union(set(), *(_variables(d) for d in ds + dk))
    if len(names) > 1:
        return None
    name = next(iter(names)) if names else None
    points: list = [None]
    if name is not None:
        points = list(_SPREAD)
        for b in _boundaries(ds + dk, name):
            points += [b, b - 1e-6, b + 1e-6]
    checked = 0
    for x in points:
        env = {name: x} if name is not None else {}
        a, b = _holds(student, env), _holds(key, env)
        if a is None or b is None:
            continue
        checked += 1
        if a != b:
            return False
    return True if checked >= (4 if name is not None else 1) else None


def _equation_items(answer: tuple) -> Optional[list[Node]]:
    """The differences of an equation or of equations joined by "or"; None for anything else."""
    kind = answer[0]
    if kind == "set":
        found = [_equation_items(a) for a in answer[1]]
        return None if any(f is None for f in found) else [d for f in found for d in f]
    if kind in ("eq", "def"):
        return _differences(answer)
    return None


def _on_curve(diffs: list[Node], names: list[str]) -> list[dict]:
    """Points that satisfy one of the equations: the other unknowns fixed at sample values and the
    last solved for (where the equation is polynomial in it after clearing fractions)."""
    from core.marking.algebra import _sympy, _to_sympy
    sp = _sympy()
    from mpmath.libmp.libhyper import NoConvergence   # sympy's numerics (mpmath): loaded with it
    points: list[dict] = []
    for d in diffs:
        expr = sp.numer(sp.together(_to_sympy(d)))
        for solve_for in names:
            others = [n for n in names if n != solve_for]
            v = sp.Symbol(solve_for, real=True)
            chosen = evaluation.samples(set(others))[:4]
            for env in chosen + [{n: -v for n, v in e.items()} for e in chosen]:   # both signs
                try:
                    fixed = expr.subs({sp.Symbol(n, real=True): sp.Rational(str(env[n])) for n in others})
                    poly = sp.Poly(fixed, v)
                except Exception:   # not polynomial in this unknown: try the next one
                    break
                if poly.degree() < 1 or poly.degree() > 12:
                    continue
                try:
                    roots = poly.nroots(n=30)
                except NoConvergence:   # coefficients such as 1e999: no roots to sample here, try the next values
                    continue
                for r in roots:
                    r = complex(r)
                    if abs(r.imag) < 1e-12:
                        points.append({**{n: float(env[n]) for n in others}, solve_for: r.real})
            if points:
                break
    return points


def _holds_on(diffs: list[Node], env: dict) -> Optional[bool]:
    for d in diffs:
        try:
            v = evaluation.value(d, env)
        except (ArithmeticError, ValueError, KeyError):
            return None
        if abs(v) <= 1e-7 * max(1.0, max(abs(x) for x in env.values())):
            return True
    return False


def same_equations(student: tuple, key: tuple) -> Optional[bool]:
    """Equations in several unknowns (joined by "or") with the same solutions: a*b = 0 and
    "a = 0 or b = 0". None when this does not apply."""
    ds, dk = _equation_items(student), _equation_items(key)
    if not ds or not dk:
        return None
    names = sorted(set().union(*(_variables(d) for d in ds + dk)))
    if len(names) < 2:
        return None
    checked = 0
    for here, there in ((ds, dk), (dk, ds)):
        points = _on_curve(here, names)
        if not points:
            return None
        for env in points:
            holds = _holds_on(there, env)
            if holds is None:
                continue
            if not holds:
                return False
            checked += 1
    return True if checked >= 4 else None
