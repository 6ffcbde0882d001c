"""Oracles for SQA Mathematics at National 3, National 4, Higher and Advanced Higher.

Each oracle rebuilds the question from the item's parameters the way the
stem presents it (the numbers on the page) and solves it in plain Python:
``fractions`` and ``decimal`` for exact arithmetic, ``math``/``cmath`` for
roots and angles, explicit loops where a formula would merely repeat the
blueprint. Rounding is "round half up", as taught, on exact values.
Algebraic answers are returned as ``Expr`` in sympy syntax.
"""
from __future__ import annotations

import cmath
import itertools
import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction

from tests.oracles.base import Expr


def _round_half_up(x, places: int) -> float:
    """Round an exact value (int, Fraction, Decimal or float) half up."""
    if isinstance(x, Fraction):
        d = Decimal(x.numerator) / Decimal(x.denominator)
    else:
        d = Decimal(repr(x)) if isinstance(x, float) else Decimal(x)
    q = d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    return float(q)


def _num(x: float) -> str:
    """30.0 -> '30', 22.5 -> '22.5'."""
    return str(int(x)) if float(x).is_integer() else repr(float(x))


def _bracket(root: int) -> str:
    """x - root written as a student would: 'x - 3', 'x + 2'."""
    return f"x - {root}" if root > 0 else f"x + {-root}"


# --------------------------------------------------------------------------
# National 3


def _n3_rounding(p: dict) -> str:
    x = Decimal(p["whole"]) + Decimal(p["dec"]) / 100
    place = p["place"]
    if place == "tenth":
        return str(x.quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
    unit = {"ten": 10, "hundred": 100, "thousand": 1000, "whole": 1}[place]
    return str(int((x / unit).quantize(Decimal(1), rounding=ROUND_HALF_UP)) * unit)


def _n3_percent(p: dict) -> float:
    return _round_half_up(Fraction(p["pct"], 100) * p["amount"], 2)


def _n3_rectangle(p: dict) -> str:
    length, breadth, unit = p["length"], p["breadth"], p["unit"]
    if p["ask"] == "area":
        return f"{length * breadth} {unit}²"
    return f"{length + breadth + length + breadth} {unit}"


def _n3_time(p: dict) -> str:
    start = p["start_h"] * 60 + p["start_m"]
    end = start + p["dur"]
    minutes = end - start
    hours, mins = divmod(minutes, 60)
    parts = []
    if hours:
        parts.append(f"{hours} hour" + ("s" if hours > 1 else ""))
    if mins:
        parts.append(f"{mins} minutes")
    return " ".join(parts)


def _n3_mean(p: dict) -> float:
    # The five values shown in the stem.
    m = p["m"]
    step = 1 if m <= 12 else (2 if m <= 30 else 3)
    devs = [p["d1"], p["d2"], p["d3"], p["d4"]]
    data = [m + step * d for d in devs] + [m - step * sum(devs) + p["extra"]]
    return _round_half_up(Fraction(sum(data), len(data)), 1)


def _n3_probability(p: dict) -> str:
    counts = {"red": p["r"], "blue": p["b"], "green": p["g"]}
    total = sum(counts.values())
    if p["ask"] == "single":
        favourable = counts[p["target"]]
    else:  # "not target", or "one of the other two colours"
        favourable = sum(v for colour, v in counts.items() if colour != p["target"])
    return str(Fraction(favourable, total))


# --------------------------------------------------------------------------
# National 4


def _n4_interest(p: dict) -> float:
    rate = Fraction(str(p["rate"]))
    interest = p["principal"] * rate / 100 * Fraction(p["months"], 12)
    value = interest if p["ask"] == "interest" else p["principal"] + interest
    return _round_half_up(value, 2)


def _n4_expand(p: dict) -> Expr:
    return Expr(f"{p['p']}*({p['q']}*x + ({p['r']})) + ({p['s']})*({p['t']}*x + ({p['u']}))")


def _n4_circle(p: dict) -> float:
    radius = p["size"] if p["given"] == "radius" else p["size"] / 2
    share = {"circle": 1, "semicircle": 0.5, "quarter circle": 0.25}[p["shape"]]
    return _round_half_up(math.pi * radius * radius * share, 1)


def _n4_gradient(p: dict) -> str:
    x1, y1 = p["x1"], p["y1"]
    x2, y2 = x1 + p["dx"], y1 + p["dy"]
    return str(Fraction(y2 - y1, x2 - x1))


def _n4_solve(p: dict) -> int:
    a, b, c = p["a"], p["b"], p["c"]
    rhs_const = (a - c) * p["sol"] + p["b"]          # the number printed on the right
    x = Fraction(rhs_const - b, a - c)               # a x + b = c x + rhs_const
    assert x.denominator == 1
    return int(x)


def _n4_pythagoras(p: dict) -> float:
    a, b = p["p"], p["q"]
    if p["ask"] == "hypotenuse":
        return _round_half_up(math.hypot(a, b), 1)
    return _round_half_up(math.sqrt(b * b - a * a), 1)


# --------------------------------------------------------------------------
# Higher


def _h_recurrence(p: dict) -> float:
    a = Fraction(str(p["a"]))
    assert -1 < a < 1
    limit = Fraction(p["b"]) / (1 - a)
    return _round_half_up(limit, 2)


def _h_line(p: dict) -> Expr:
    x1, y1, dx, dy = p["x1"], p["y1"], p["dx"], p["dy"]
    x2, y2 = x1 + dx, y1 + dy
    m_ab = Fraction(y2 - y1, x2 - x1)
    if p["kind"] == "line":
        m, px, py = m_ab, Fraction(x1), Fraction(y1)
    else:
        m = -1 / m_ab
        px, py = Fraction(x1 + x2, 2), Fraction(y1 + y2, 2)
    c = py - m * px
    return Expr(f"({m})*x + ({c})")


def _simplest_surd(n: int) -> str:
    outside, inside = 1, n
    for k in range(int(math.isqrt(n)), 1, -1):
        if inside % (k * k) == 0:
            outside, inside = k, inside // (k * k)
            break
    if inside == 1:
        return str(outside)
    return f"√{inside}" if outside == 1 else f"{outside}√{inside}"


def _h_circle(p: dict) -> str:
    k, g, f, rsq = p["k"], p["g"], p["f"], p["rsq"]
    # The printed equation: k x² + k y² + 2gk x + 2fk y + ck = 0 with c = g² + f² - rsq.
    cx_coef, cy_coef, const = 2 * g * k, 2 * f * k, (g * g + f * f - rsq) * k
    G, F, C = Fraction(cx_coef, 2 * k), Fraction(cy_coef, 2 * k), Fraction(const, k)
    r2 = G * G + F * F - C
    assert r2.denominator == 1 and r2 > 0
    return f"centre ({-G}, {-F}), radius {_simplest_surd(int(r2))}"


def _h_differentiate(p: dict) -> Expr:
    a, b, c, d = p["a"], p["b"], p["c"], p["d"]
    if p["form"] == "poly":                      # a x³ + b x² + c x + d
        return Expr(f"3*({a})*x**2 + 2*({b})*x + ({c})")
    if p["form"] == "negative power":            # a x³ + c x + b/x²
        return Expr(f"3*({a})*x**2 + ({c}) - 2*({b})/x**3")
    # (a x + b)(c x² + d) = ac x³ + bc x² + ad x + bd
    return Expr(f"3*({a * c})*x**2 + 2*({b * c})*x + ({a * d})")


def _h_integral(p: dict) -> str:
    coeffs = [p["a"], p["b"], p["c"], p["d"]]     # x³, x², x, 1

    def F(t: int) -> Fraction:
        return sum((Fraction(co, 4 - i) * Fraction(t) ** (4 - i) for i, co in enumerate(coeffs)), Fraction(0))

    return str(F(p["hi"]) - F(p["lo"]))


_COEF = {"half": 2, "root3_over_2": 2, "root2_over_2": 2, "one": 1, "root3": 1, "root3_over_3": 3}
_SURD = {"half": 1, "root3_over_2": 3, "root2_over_2": 2, "one": 1, "root3": 3, "root3_over_3": 3}


def _h_trig(p: dict) -> str:
    # The printed equation: (coef) f(mult·x) + shift = sgn·t·√surd + shift.
    coef = _COEF[p["vkey"]] * p["t"]
    rhs = p["sgn"] * p["t"] * math.sqrt(_SURD[p["vkey"]])
    fn = {"sin": math.sin, "cos": math.cos, "tan": math.tan}[p["func"]]
    sols = []
    for half_degrees in range(0, 720):              # every 0.5° in [0, 360)
        x = half_degrees / 2
        angle = math.radians(p["mult"] * x)
        if p["func"] == "tan" and abs(math.cos(angle)) < 1e-12:
            continue
        if abs(coef * fn(angle) - rhs) < 1e-9:
            sols.append(x)
    return ", ".join(_num(s) for s in sols)


def _h_complete_square(p: dict) -> str:
    # The printed quadratic a x² + b x + c is symmetric about the midpoint of its roots of
    # f(x) = c, x = 0 and x = -b/a; q is the value of f there (the turning point's y).
    a, b, c = Fraction(p["a"]), Fraction(p["b"]), Fraction(p["c"])
    axis = (0 + (-b / a)) / 2
    return str(a * axis * axis + b * axis + c)


def _h_composite(p: dict) -> Expr:
    a, b, c = p["a"], p["b"], p["c"]
    f = f"(({a})*({{0}}) + ({b}))"                # f(t) = a t + b
    g = f"(({{0}})**2 + ({c}))"                   # g(t) = t² + c
    if p["kind"] == "f(g(x))":
        return Expr(f.format(g.format("x")))
    if p["kind"] == "g(f(x))":
        return Expr(g.format(f.format("x")))
    # the inverse undoes f: subtract b, then divide by a
    return Expr(f"(x - ({b}))/({a})")


def _h_factor(p: dict) -> Expr:
    # Rebuild the printed cubic from its factors, then find its rational roots by trial
    # (p/q with p dividing the constant and q the leading coefficient), as a student would.
    n, s, r1, r2 = p["n"], p["s"], p["r1"], p["r2"]
    coeffs = [1]
    for lead, const in ((1, -r1), (1, -r2), (n, -s)):
        nxt = [0] * (len(coeffs) + 1)
        for i, co in enumerate(coeffs):
            nxt[i] += co * lead
            nxt[i + 1] += co * const
        coeffs = nxt

    def value(x: Fraction) -> Fraction:
        out = Fraction(0)
        for co in coeffs:
            out = out * x + co
        return out

    lead, const = coeffs[0], coeffs[-1]
    candidates = {Fraction(sign * num, den) for num in range(1, abs(const) + 1) if const % num == 0
                  for den in range(1, abs(lead) + 1) if lead % den == 0 for sign in (1, -1)}
    roots = sorted(r for r in candidates if value(r) == 0)
    assert len(roots) == 3, (coeffs, roots)
    factors = [f"({r.denominator}*x - ({r.numerator}))" for r in roots]
    scale = Fraction(lead, math.prod(r.denominator for r in roots))
    return Expr(f"({scale})*" + "*".join(factors))


def _h_log(p: dict) -> int:
    b, n = p["b"], p["n"]
    power = b ** n
    if p["kind"] == "evaluate":
        u, v = p["u"], p["v"]
        w = u * v // power                        # the third number printed
        value = math.log(u, b) + math.log(v, b) - math.log(w, b)
        assert abs(value - round(value)) < 1e-9
        return round(value)
    x0 = p["x0"]
    if p["kind"] == "double":                     # 2 log x - log k = n, k as printed
        k = x0 * x0 // power
        sols = [x for x in range(1, 1001) if Fraction(x * x, k) == power]
    else:                                         # log x + log (x + d) = n, d as printed
        d = power // x0 - x0
        sols = [x for x in range(1, 1001) if x * (x + d) == power]
    assert len(sols) == 1
    return sols[0]


def _h_scalar(p: dict) -> int:
    P = (p["p1"], p["p2"], p["p3"])
    Q = (p["q1"], p["q2"], p["q3"])
    C = (p["c1"], p["c2"], p["c3"])

    def dot(u, v) -> int:
        return sum(x * y for x, y in zip(u, v))

    if p["kind"] == "p.(p+q)":
        return dot(P, P) + dot(P, Q)              # distributive law instead of forming p + q
    if p["kind"] == "AB.AC":
        return dot([q - a for q, a in zip(Q, P)], [c - a for c, a in zip(C, P)])
    sols = [t for t in range(-200, 201) if dot((t, P[1], P[2]), (Q[0], Q[1], t)) == 0]
    assert len(sols) == 1
    return sols[0]


def _h_vector_angle(p: dict) -> float:
    # The cosine rule in the triangle with sides |x|, |y| and |x - y|, not the scalar product.
    A = (p["a1"], p["a2"], p["a3"])
    B = (p["b1"], p["b2"], p["b3"])
    C = (p["c1"], p["c2"], p["c3"])
    x = [s - t for s, t in zip(A, B)]
    y = [s - t for s, t in zip(C, B)]
    xx, yy = sum(v * v for v in x), sum(v * v for v in y)
    opp = sum((s - t) ** 2 for s, t in zip(x, y))
    cos_b = (xx + yy - opp) / (2 * math.sqrt(xx) * math.sqrt(yy))
    return _round_half_up(math.degrees(math.acos(cos_b)), 1)


def _h_tangent(p: dict) -> Expr:
    a, b, c, d, k, x0 = p["a"], p["b"], p["c"], p["d"], p["k"], p["x0"]

    def f(x: Fraction) -> Fraction:
        return a * x ** 3 + b * x ** 2 + c * x + d + (k / x if k else 0)

    h = Fraction(1, 10 ** 6)                      # a central difference, exact in fractions
    slope = ((f(x0 + h) - f(x0 - h)) / (2 * h)).limit_denominator(1000)
    y0 = f(Fraction(x0))
    return Expr(f"({slope})*(x - ({x0})) + ({y0})")


def _h_stationary(p: dict) -> str:
    a, p0, q0, d = p["a"], p["p"], p["q"], p["d"]
    b, c = Fraction(-3 * a * (p0 + q0), 2), 3 * a * p0 * q0     # the printed cubic

    def f(x) -> Fraction:
        return a * Fraction(x) ** 3 + b * Fraction(x) ** 2 + c * x + d

    h = Fraction(1, 10 ** 6)
    flat = [x for x in range(-10, 11) if abs((f(x + h) - f(x - h)) / (2 * h)) < Fraction(1, 10 ** 6)]
    assert len(flat) == 2, flat
    return " and ".join(f"({x}, {f(x)})" for x in flat)


_TRIPLES = [(3, 4, 5), (5, 12, 13), (8, 15, 17), (7, 24, 25), (20, 21, 29)]


def _h_addition(p: dict) -> str:
    def angle(t: int, flip: int) -> float:
        leg1, leg2, _ = _TRIPLES[t]
        opp, adj = (leg2, leg1) if flip else (leg1, leg2)
        return math.atan2(opp, adj)

    A, B = angle(p["ta"], p["fa"]), angle(p["tb"], p["fb"])
    fn = math.sin if p["func"] == "sin" else math.cos
    target = {"double": 2 * A, "sum": A + B, "difference": A - B}[p["kind"]]
    return str(Fraction(fn(target)).limit_denominator(1000))


def _h_wave(p: dict) -> float:
    a, b = p["a"], p["b"]
    k = math.sqrt(a * a + b * b)
    alpha = math.degrees(math.acos(a / k))        # 0..180 from the cosine; the sine's sign picks the half-turn
    if b < 0:
        alpha = 360 - alpha
    return _round_half_up(alpha, 1)


# --------------------------------------------------------------------------
# Advanced Higher


def _ah_binomial(p: dict) -> int:
    # Expand (A x^P + B x^-Q)^n term by term, tracking powers of x.
    a, b, n = p["a"], p["b"], p["n"]
    if p["form"] == "linear":
        powers = {1: a, 0: b}
        wanted = p["k"]
    else:
        powers = {p["p"]: a, -p["q"]: b}
        wanted = 0
    poly = {0: 1}
    for _ in range(n):
        nxt: dict[int, int] = {}
        for e1, c1 in poly.items():
            for e2, c2 in powers.items():
                nxt[e1 + e2] = nxt.get(e1 + e2, 0) + c1 * c2
        poly = nxt
    return poly.get(wanted, 0)


def _ah_partial(p: dict) -> str:
    A0, B0, al, be = p["ca"], p["cb"], p["al"], p["be"]
    # The printed numerator: (A + B) x - (A be + B al).
    def num(x: int) -> int:
        return (A0 + B0) * x - (A0 * be + B0 * al)

    A = Fraction(num(al), al - be)                 # cover-up at x = al
    B = Fraction(num(be), be - al)                 # cover-up at x = be
    assert A.denominator == 1 and B.denominator == 1
    sign = "+" if B > 0 else "-"
    return f"{A}/({_bracket(al)}) {sign} {abs(B)}/({_bracket(be)})"


def _ah_product(p: dict) -> Expr:
    c, n, k, m, form = p["c"], p["n"], p["k"], p["m"], p["form"]
    # (u v)' = u' v + u v'
    if form == "x exp":
        u, du, v, dv = f"x**{n}", f"{n}*x**{n - 1}", f"exp({k}*x)", f"{k}*exp({k}*x)"
    elif form == "x sin":
        u, du, v, dv = f"x**{n}", f"{n}*x**{n - 1}", f"sin({k}*x)", f"{k}*cos({k}*x)"
    elif form == "x cos":
        u, du, v, dv = f"x**{n}", f"{n}*x**{n - 1}", f"cos({k}*x)", f"-{k}*sin({k}*x)"
    elif form == "exp sin":
        u, du, v, dv = f"exp({k}*x)", f"{k}*exp({k}*x)", f"sin({m}*x)", f"{m}*cos({m}*x)"
    else:
        u, du, v, dv = f"exp({k}*x)", f"{k}*exp({k}*x)", f"cos({m}*x)", f"-{m}*sin({m}*x)"
    return Expr(f"{c}*(({du})*({v}) + ({u})*({dv}))")


def _ah_argument(p: dict) -> float:
    z = complex(p["a"], p["b"]) * complex(p["r"], p["s"])
    return _round_half_up(cmath.phase(z), 2)


def _ah_determinant(p: dict) -> int:
    m = [[p["m11"], p["m12"], p["m13"]], [p["m21"], p["m22"], p["m23"]], [p["m31"], p["m32"], p["m33"]]]
    total = 0
    for perm in itertools.permutations(range(3)):   # Leibniz formula
        inversions = sum(1 for i in range(3) for j in range(i + 1, 3) if perm[i] > perm[j])
        total += (-1) ** inversions * m[0][perm[0]] * m[1][perm[1]] * m[2][perm[2]]
    return total


def _ah_series(p: dict) -> str:
    a = Fraction(p["a"])
    if p["kind"] == "arithmetic":
        return str(sum(a + i * p["d"] for i in range(p["n"])))
    r = Fraction(p["rn"], p["rd"])
    if p["kind"] == "geometric":
        return str(sum(a * r ** i for i in range(p["n"])))
    assert abs(r) < 1
    return str(a / (1 - r))


def _ah_euclid(p: dict) -> int:
    a, b = p["g"] * p["p"], p["g"] * p["q"]
    while b:                                   # the Euclidean algorithm itself
        a, b = b, a - (a // b) * b
    return a


def _ah_implicit(p: dict) -> str:
    # F(x, y) = a x^p + b xy + c y^q as {(i, j): coefficient}; dy/dx = -F_x / F_y.
    poly = {(p["p"], 0): p["a"], (1, 1): p["b"], (0, p["q"]): p["c"]}
    x, y = Fraction(p["x0"]), Fraction(p["y0"])
    fx = sum(c * i * x ** (i - 1) * y ** j for (i, j), c in poly.items() if i)
    fy = sum(c * j * x ** i * y ** (j - 1) for (i, j), c in poly.items() if j)
    return str(-fx / fy)


def _ah_maclaurin(p: dict) -> str:
    # Coefficient of x^k = f^(k)(0) / k!, the kth derivative found by following the derivatives round.
    a, b, k, form = p["a"], p["b"], p["k"], p["form"]
    if form == "exp":
        d = a ** k
    elif form in ("sin", "cos"):
        cycle = [0, 1, 0, -1] if form == "sin" else [1, 0, -1, 0]    # derivatives 0..3 at 0, a = 1
        d = cycle[k % 4] * a ** k
    elif form == "ln":
        d = (-1) ** (k - 1) * math.factorial(k - 1) * a ** k        # kth derivative of ln(1 + ax) at 0
    else:                                                          # Leibniz rule for (1 + bx) e^(ax)
        d = a ** k + math.comb(k, 1) * b * a ** (k - 1)
    return str(Fraction(d, math.factorial(k)))


def _ah_by_parts(p: dict) -> float:
    # Composite Simpson's rule on the integrand itself, then rounded half up to 3 places.
    k, form = p["k"], p["form"]
    top = p["b"] if form in ("x exp", "x2 exp") else math.pi / p["q"]
    f = {"x exp": lambda x: x * math.exp(k * x), "x sin": lambda x: x * math.sin(k * x),
         "x cos": lambda x: x * math.cos(k * x), "x2 exp": lambda x: x * x * math.exp(k * x)}[form]
    n = 20000
    h = top / n
    total = math.fsum((1 if i in (0, n) else 4 if i % 2 else 2) * f(i * h) for i in range(n + 1))
    return _round_half_up(total * h / 3, 3)


ORACLES = {
    "SQA.MATH.N3.ROUNDING": _n3_rounding,
    "SQA.MATH.N3.PERCENT_OF_AMOUNT": _n3_percent,
    "SQA.MATH.N3.RECTANGLE_AREA_PERIMETER": _n3_rectangle,
    "SQA.MATH.N3.TIME_INTERVAL": _n3_time,
    "SQA.MATH.N3.MEAN": _n3_mean,
    "SQA.MATH.N3.PROBABILITY": _n3_probability,
    "SQA.MATH.N4.SIMPLE_INTEREST": _n4_interest,
    "SQA.MATH.N4.EXPAND_SIMPLIFY": _n4_expand,
    "SQA.MATH.N4.CIRCLE_AREA": _n4_circle,
    "SQA.MATH.N4.GRADIENT": _n4_gradient,
    "SQA.MATH.N4.SOLVE_LINEAR": _n4_solve,
    "SQA.MATH.N4.PYTHAGORAS": _n4_pythagoras,
    "SQA.MATH.H.RECURRENCE_LIMIT": _h_recurrence,
    "SQA.MATH.H.LINE_EQUATION": _h_line,
    "SQA.MATH.H.CIRCLE_CENTRE_RADIUS": _h_circle,
    "SQA.MATH.H.DIFFERENTIATE": _h_differentiate,
    "SQA.MATH.H.DEFINITE_INTEGRAL": _h_integral,
    "SQA.MATH.H.TRIG_EQUATION": _h_trig,
    "SQA.MATH.H.COMPLETE_SQUARE": _h_complete_square,
    "SQA.MATH.H.COMPOSITE_FUNCTION": _h_composite,
    "SQA.MATH.H.FACTOR_THEOREM": _h_factor,
    "SQA.MATH.H.LOG_EQUATION": _h_log,
    "SQA.MATH.H.SCALAR_PRODUCT": _h_scalar,
    "SQA.MATH.H.VECTOR_ANGLE": _h_vector_angle,
    "SQA.MATH.H.TANGENT_EQUATION": _h_tangent,
    "SQA.MATH.H.STATIONARY_POINTS": _h_stationary,
    "SQA.MATH.H.ADDITION_FORMULAE": _h_addition,
    "SQA.MATH.H.WAVE_FUNCTION": _h_wave,
    "SQA.MATH.AH.BINOMIAL_COEFF": _ah_binomial,
    "SQA.MATH.AH.PARTIAL_FRACTIONS": _ah_partial,
    "SQA.MATH.AH.PRODUCT_RULE": _ah_product,
    "SQA.MATH.AH.COMPLEX_ARGUMENT": _ah_argument,
    "SQA.MATH.AH.MATRIX_DETERMINANT": _ah_determinant,
    "SQA.MATH.AH.SERIES_SUM": _ah_series,
    "SQA.MATH.AH.EUCLIDEAN_GCD": _ah_euclid,
    "SQA.MATH.AH.IMPLICIT_DIFF": _ah_implicit,
    "SQA.MATH.AH.MACLAURIN_COEFF": _ah_maclaurin,
    "SQA.MATH.AH.INTEGRATION_BY_PARTS": _ah_by_parts,
}
