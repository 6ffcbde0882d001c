"""Answer oracles for the SQA National 5 Mathematics skill blueprints.

Each oracle recomputes the key from an item's parameters in plain Python
(math, fractions, decimal, statistics), without the project's helpers and
without the blueprint's formulas. Rounded answers are rounded half up, as
pupils and SQA marking schemes round, so a key that Python's round-half-even
would round the other way shows up as a mismatch.
"""
from __future__ import annotations

import math
import statistics
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from tests.oracles.base import Expr


# --------------------------------------------------------------------------
# Small independent helpers


def half_up(x, places: int) -> float:
    """Round to decimal places, halves away from zero (exact for Fractions)."""
    if isinstance(x, Fraction):
        d = Decimal(x.numerator) / Decimal(x.denominator)
    else:
        d = Decimal(repr(float(x)))
    return float(d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))


def half_up_sf(x, figures: int) -> float:
    """Round to significant figures, halves away from zero."""
    d = Decimal(repr(float(x)))
    if d == 0:
        return 0.0
    exponent = d.adjusted() - figures + 1
    return float(d.quantize(Decimal(1).scaleb(exponent), rounding=ROUND_HALF_UP))


def fraction_text(f: Fraction) -> str:
    f = Fraction(f)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


def decimal_text(f: Fraction) -> str:
    """A terminating fraction written as a decimal without trailing zeros."""
    d = (Decimal(f.numerator) / Decimal(f.denominator)).normalize()
    text = format(d, "f")
    return text


def sin_d(deg: float) -> float:
    return math.sin(math.radians(deg))


def cos_d(deg: float) -> float:
    return math.cos(math.radians(deg))


def tan_d(deg: float) -> float:
    return math.tan(math.radians(deg))


# --------------------------------------------------------------------------
# MNU-5-01 numerical skills


LOSES_VALUE = {"car", "motorbike", "caravan", "boat"}


def percent_appreciation(p: dict) -> float:
    change = -p["rate"] if p["thing"] in LOSES_VALUE else p["rate"]
    value = Fraction(p["value"])
    for _ in range(p["years"]):
        value = value * (100 + change) / 100
    return half_up(value, 2)


def fractions_mixed_numbers(p: dict) -> str:
    first = p["w1"] + Fraction(p["n1"], p["d1"])
    second = p["w2"] + Fraction(p["n2"], p["d2"])
    result = {"+": first + second, "-": first - second, "×": first * second, "÷": first / second}[p["op"]]
    return fraction_text(result)


def surd(coefficient: int, radicand: int) -> str:
    return f"√{radicand}" if coefficient == 1 else f"{coefficient}√{radicand}"


def surds(p: dict) -> str:
    m = p["m"]
    if p["form"] == 1:
        # Search for the largest square dividing p^2 m directly.
        n = p["p"] ** 2 * m
        best = max(k for k in range(1, math.isqrt(n) + 1) if n % (k * k) == 0)
        return surd(best, n // (best * best))
    if p["form"] == 2:
        total = p["p"] + p["q"] if p["sgn"] == "+" else p["p"] - p["q"]
        return surd(total, m)
    top = Fraction(p["j"], m)  # j/√m = (j/m)√m
    head = surd(top.numerator, m)
    return head if top.denominator == 1 else f"{head}/{top.denominator}"


def indices(p: dict) -> Expr:
    k, l, n, a, b, c, pw = p["k"], p["l"], p["n"], p["a"], p["b"], p["c"], p["pw"]
    if p["form"] == 1:
        return Expr(f"({k}*x**{a})*({l}*x**({b}))")
    if p["form"] == 2:
        return Expr(f"({k}*x**{a})*({l}*x**({b}))/({n}*x**{c})")
    return Expr(f"({k}*x**{a})**{pw}*({l}*x**({b}))")


def scientific_notation(p: dict) -> str:
    first = Fraction(p["big"], 10)
    if p["op"] == "×":
        mantissa, power = first * p["small"], p["e1"] + p["e2"]
    else:
        mantissa, power = first / p["small"], p["e1"] - p["e2"]
    while mantissa >= 10:
        mantissa, power = mantissa / 10, power + 1
    while mantissa < 1:
        mantissa, power = mantissa * 10, power - 1
    return f"{decimal_text(mantissa)} × 10^{power}"


# --------------------------------------------------------------------------
# MNU-5-02 algebraic skills


def expand_brackets(p: dict) -> Expr:
    return Expr(f"({p['a1']}*x + ({p['b1']}))*({p['c2']}*x**2 + ({p['c1']})*x + ({p['c0']}))")


def factorise(p: dict) -> Expr:
    return Expr(f"{p['k']}*({p['a']}*x + ({p['b']}))*({p['c']}*x + ({p['d']}))")


def linear_equations(p: dict) -> str:
    a, b, c, d = p["a"], p["b"], p["c"], p["d"]
    constant = a * b if p["bracket"] == 1 else b
    # a x + constant = c x + d
    return fraction_text(Fraction(d - constant, a - c))


def simultaneous_equations(p: dict) -> str:
    a, b, c, d = p["a"], p["b"], p["c"], p["d"]
    r1 = a * p["x0"] + b * p["y0"]
    r2 = c * p["x0"] + d * p["y0"]
    det = a * d - b * c
    x = Fraction(r1 * d - b * r2, det)
    y = Fraction(a * r2 - c * r1, det)
    return f"x = {fraction_text(x)}, y = {fraction_text(y)}"


def gradient(p: dict) -> str:
    return fraction_text(Fraction(p["y2"] - p["y1"], p["x2"] - p["x1"]))


SUBJECT_LETTERS = {"y,x": ("y", "x"), "P,t": ("P", "t"), "V,h": ("V", "h"), "A,r": ("A", "r"),
                   "C,d": ("C", "d"), "T,n": ("T", "n"), "E,m": ("E", "m"), "W,k": ("W", "k")}


def change_subject(p: dict) -> str:
    L, S = SUBJECT_LETTERS[p["letters"]]
    a, b, c = p["a"], p["b"], p["c"]
    return {
        1: f"{S} = ({L} - {b})/{a}",
        2: f"{S} = ({L} + {b})/{a}",
        3: f"{S} = ({c}{L} - {b})/{a}",
        4: f"{S} = {L}/{a} + {b}",
        5: f"{S} = √(({L} - {b})/{a})",
        6: f"{S} = (({L} - {b})/{a})^2",
    }[p["form"]]


def nature_of_roots(p: dict) -> str:
    disc = p["b"] ** 2 - 4 * p["a"] * p["c"]
    if disc > 0:
        return "real and distinct"
    if disc == 0:
        return "real and equal"
    return "no real roots"


FLIP = {"<": ">", ">": "<", "≤": "≥", "≥": "≤"}


def inequalities(p: dict) -> str:
    a, b, c, d = p["a"], p["b"], p["c"], p["d"]
    constant = a * b if p["bracket"] == 1 else b
    coefficient = a - c
    bound = Fraction(d - constant, coefficient)
    relation = FLIP[p["rel"]] if coefficient < 0 else p["rel"]
    return f"x {relation} {fraction_text(bound)}"


# --------------------------------------------------------------------------
# MNU-5-03 geometric skills


def pythagoras(p: dict) -> float:
    if p["kind"] == "hypotenuse":
        return half_up(math.hypot(p["p"], p["q"]), 1)
    if p["kind"] == "shorter_side":
        return half_up(math.sqrt(p["p"] ** 2 - p["q"] ** 2), 1)
    return half_up(math.sqrt(p["p"] ** 2 + p["q"] ** 2 + p["r"] ** 2), 1)


def arc_sector(p: dict) -> float:
    r = p["size"] if p["given"] == "radius" else p["size"] / 2
    share = p["angle"] / 360
    if p["kind"] == "arc":
        return half_up(share * math.pi * 2 * r, 1)
    if p["kind"] == "area":
        return half_up(share * math.pi * r ** 2, 1)
    return half_up(share * math.pi * 2 * r + 2 * r, 1)


def volume_solids(p: dict) -> float:
    r = p["size"] if p["given"] == "radius" else p["size"] / 2
    h = p["h"]
    sphere = 4 * math.pi * r ** 3 / 3
    cylinder = math.pi * r ** 2 * h
    if p["kind"] == "prism":
        return half_up_sf(Fraction(p["size"] * h * p["length"], 2), 3)
    volume = {
        "sphere": sphere,
        "cylinder": cylinder,
        "cone": cylinder / 3,
        "hemisphere": sphere / 2,
        "cone_hemisphere": cylinder / 3 + sphere / 2,
        "capsule": cylinder + sphere,
    }[p["kind"]]
    return half_up_sf(volume, 3)


def similar_shapes(p: dict) -> float:
    power = {"length": 1, "area": 2, "volume": 3}[p["kind"]]
    return half_up(p["known"] * Fraction(p["lb"], p["la"]) ** power, 1)


def angles_in_circles(p: dict) -> int:
    x = p["x"]
    scenario = p["scenario"]
    if scenario in ("semicircle", "tangent", "chord"):
        return 180 - 90 - x
    if scenario == "isosceles":
        return (180 - x) // 2
    if scenario == "tangent_chord":
        base_angle = 90 - x
        return 180 - 2 * base_angle
    angle_boc = 180 - x
    return (180 - angle_boc) // 2


# --------------------------------------------------------------------------
# MNU-5-04 trigonometric and statistical skills


def right_angled_trigonometry(p: dict) -> float:
    kind, s, t, theta = p["kind"], p["s"], p["t"], p["theta"]
    if kind == "opp_from_hyp":
        value = s * sin_d(theta)
    elif kind == "adj_from_hyp":
        value = s * cos_d(theta)
    elif kind == "opp_from_adj":
        value = s * tan_d(theta)
    elif kind == "hyp_from_opp":
        value = s / sin_d(theta)
    elif kind == "hyp_from_adj":
        value = s / cos_d(theta)
    elif kind == "adj_from_opp":
        value = s / tan_d(theta)
    elif kind == "angle_sin":
        value = math.degrees(math.asin(s / t))
    elif kind == "angle_cos":
        value = math.degrees(math.acos(s / t))
    else:
        value = math.degrees(math.atan2(s, t))
    return half_up(value, 1)


def triangle_area_sine(p: dict) -> float:
    if p["kind"] == "area":
        return half_up(p["a"] * p["b"] * sin_d(p["angle"]) / 2, 1)
    return half_up(2 * p["area_given"] / (p["a"] * sin_d(p["angle"])), 1)


def cosine_rule(p: dict) -> float:
    b, c = p["b"], p["c"]
    if p["kind"] == "side":
        return half_up(math.sqrt(b * b + c * c - 2 * b * c * cos_d(p["angle_a"])), 1)
    a = p["a"]
    return half_up(math.degrees(math.acos((b * b + c * c - a * a) / (2 * b * c))), 1)


def sine_rule(p: dict) -> float:
    b = p["b"]
    if p["kind"] == "angle":
        return half_up(math.degrees(math.asin(p["a"] * sin_d(p["angle_b"]) / b)), 1)
    angle_a = p["angle_a"] if p["kind"] == "side" else 180 - p["angle_b"] - p["angle_c"]
    return half_up(b / sin_d(p["angle_b"]) * sin_d(angle_a), 1)


def standard_deviation(p: dict) -> float:
    values = [p["lo"] + p[f"x{i}"] for i in range(1, p["n"] + 1)]
    return half_up(statistics.stdev(values), 1)


def _median(values: list) -> float:
    values = sorted(values)
    half = len(values) // 2
    if len(values) % 2:
        return values[half]
    return (values[half - 1] + values[half]) / 2


def quartiles_siqr(p: dict) -> float:
    n = p["n"]
    values = sorted(p[f"x{i}"] for i in range(1, n + 1))
    lower = values[: n // 2]
    upper = values[n - n // 2:]
    return (_median(upper) - _median(lower)) / 2


def trig_graphs(p: dict) -> int:
    # The key is the period: the smallest positive shift t with sin(b(x + t)) = sin(bx), i.e. b·t = 360.
    return next(t for t in range(1, 361) if (p["b"] * t) % 360 == 0)


ORACLES = {
    "SQA.MATH.N5.PERCENT_APPRECIATION": percent_appreciation,
    "SQA.MATH.N5.FRACTIONS_MIXED_NUMBERS": fractions_mixed_numbers,
    "SQA.MATH.N5.SURDS": surds,
    "SQA.MATH.N5.INDICES": indices,
    "SQA.MATH.N5.SCIENTIFIC_NOTATION": scientific_notation,
    "SQA.MATH.N5.EXPAND_BRACKETS": expand_brackets,
    "SQA.MATH.N5.FACTORISE": factorise,
    "SQA.MATH.N5.LINEAR_EQUATIONS": linear_equations,
    "SQA.MATH.N5.SIMULTANEOUS_EQUATIONS": simultaneous_equations,
    "SQA.MATH.N5.GRADIENT": gradient,
    "SQA.MATH.N5.CHANGE_SUBJECT": change_subject,
    "SQA.MATH.N5.NATURE_OF_ROOTS": nature_of_roots,
    "SQA.MATH.N5.INEQUALITIES": inequalities,
    "SQA.MATH.N5.PYTHAGORAS": pythagoras,
    "SQA.MATH.N5.ARC_SECTOR": arc_sector,
    "SQA.MATH.N5.VOLUME_SOLIDS": volume_solids,
    "SQA.MATH.N5.SIMILAR_SHAPES": similar_shapes,
    "SQA.MATH.N5.ANGLES_IN_CIRCLES": angles_in_circles,
    "SQA.MATH.N5.RIGHT_ANGLED_TRIGONOMETRY": right_angled_trigonometry,
    "SQA.MATH.N5.TRIANGLE_AREA_SINE": triangle_area_sine,
    "SQA.MATH.N5.COSINE_RULE": cosine_rule,
    "SQA.MATH.N5.SINE_RULE": sine_rule,
    "SQA.MATH.N5.STANDARD_DEVIATION": standard_deviation,
    "SQA.MATH.N5.QUARTILES_SIQR": quartiles_siqr,
    "SQA.MATH.N5.TRIG_GRAPHS": trig_graphs,
}
