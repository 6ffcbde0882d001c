"""Marking numbers: value within tolerance or right to the stated precision, and units.

One path for every numeric answer. The key is a number (or a constant such as
pi/4), with units from the question or written in the key itself ("12.3 m/s").
When the question has physical units the answer must carry units; equivalent
units are converted with pint unless the question asks for its exact units. The
feedback separates a wrong number from wrong or missing units, and a right value
written to the wrong precision from a wrong value.
"""
from __future__ import annotations

import dataclasses
import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any, Optional, Union

from core.marking import evaluation
from core.marking import precision as pr
from core.marking import units as un
from core.marking.expressions import _read, _Refused, _Unreadable
from core.marking.limits import TOO_LARGE
from core.marking.numeric import _distance, _Number, _read_number, _show_number, _spec_units, \
    _unit_key, _within
from core.marking.spec import MarkingSpec, _Outcome

DEFAULT_RELATIVE_TOLERANCE = 0.02   # the design's "numeric tolerance ±2%"
Value = Union[Fraction, float]


class _Key:
    """The answer key as marking needs it: its value, its units and how it was written."""

    def __init__(self, value: Value, units: tuple, number: Optional[_Number]):
        self.value, self.units, self.number = value, units, number


def _comma(text: str, spec: MarkingSpec) -> str:
    if not spec.decimal_comma:
        return text
    return re.sub(r"(?<=[0-9]),(?=[0-9])", ".", text)


def _constant(text: str, decimal_comma: bool = False) -> Optional[Value]:
    """The value of a constant expression such as pi/4 or 3sqrt(2); None if it is not one."""
    try:
        node, _ = _read(text, frozenset(), decimal_comma)
    except (_Refused, _Unreadable):
        return None
    from core.marking.expressions import _has_vars
    if _has_vars(node):
        return None
    try:
        v = evaluation.value(node)
    except (ArithmeticError, ValueError):
        return None
    if abs(v.imag) > 1e-12 * max(1.0, abs(v.real)):
        return None
    return _exact(node) or v.real


def _exact(node) -> Optional[Fraction]:
    kind = node[0]
    if kind == "num":
        return node[1]
    if kind == "neg":
        inner = _exact(node[1])
        return None if inner is None else -inner
    if kind == "mul":
        r = Fraction(1)
        for f in node[1]:
            v = _exact(f)
            if v is None:
                return None
            r *= v
        for f in node[2]:
            v = _exact(f)
            if not v:
                return None
            r /= v
        return r
    if kind == "pow":
        base, p = _exact(node[1]), _exact(node[2])
        if base is None or p is None or p.denominator != 1 or abs(p) > 400 or (base == 0 and p < 0):
            return None
        return base ** int(p)
    if kind == "add":
        parts = [_exact(t) for t in node[1]]
        return None if any(p is None for p in parts) else sum(parts, Fraction(0))
    return None


def _read_key(spec: MarkingSpec) -> Union[_Key, str]:
    scale, _ = _spec_units(spec.units)
    stated = spec.units if scale is None and un.physical(spec.units) else None
    many = _items(spec.key)
    if many is not None:
        for item in many[1]:
            problem = _read_key(dataclasses.replace(spec, key=item))
            if isinstance(problem, str):
                return problem
        return _Key(Fraction(0), (), None)
    text = _comma(_key_text(spec), spec)
    number = _read_number(text, latex=True, roots=True, units=stated is None)
    if isinstance(number, _Number) and not (number.unit and stated is None and un.physical(number.unit)):
        units = un.read_quantity("1 " + stated).units if stated else ()
        return _Key(number.value, units, number)
    value = _constant(text, spec.decimal_comma)
    if value is not None:
        units = un.read_quantity("1 " + stated).units if stated else ()
        return _Key(value, units, None)
    try:
        q = un.read_quantity(text, spec.decimal_comma)
        value = _quantity_value(q)
        if stated:
            return f"the answer key '{spec.key}' has units and the question states units too; give the units once"
    except (_Refused, _Unreadable, ValueError, ArithmeticError) as exc:
        return f"the answer key '{spec.key}' is not a number ({exc})" if str(exc) else \
            f"the answer key '{spec.key}' is not a number"
    return _Key(value, q.units, None)


def _quantity_value(q: un.Quantity) -> Value:
    exact = _exact(q.number)
    if exact is not None:
        return exact
    v = evaluation.value(q.number)
    if abs(v.imag) > 1e-12 * max(1.0, abs(v.real)):
        raise ArithmeticError("not a real number")
    return v.real


def numeric_key_problem(spec: MarkingSpec) -> Optional[str]:
    key = _read_key(spec)
    if isinstance(key, str):
        return key
    if isinstance(spec.tolerance_absolute, str):
        try:
            _tolerance_in(spec.tolerance_absolute, key)
        except ValueError as exc:
            return f"tolerance_absolute '{spec.tolerance_absolute}': {exc}"
    return None


def _tolerance_in(text: str, key: _Key) -> Fraction:
    """An absolute tolerance written with units ("5 kJ"), in the key's units; a bare number is in them."""
    try:
        q = un.read_quantity(text)
        value = float(_quantity_value(q))
    except (_Refused, _Unreadable, ArithmeticError) as exc:
        raise ValueError(f"it is not a positive number with units ({exc})") from None
    if value <= 0:
        raise ValueError("it must be positive")
    if q.units and key.units and q.units != key.units:
        converted = un.convert_value(value, q.units, key.units)
        if converted is None:
            raise ValueError(f"{q.unit_text} does not measure the same thing as {un.unit_text(key.units)}")
        value = converted
    return Fraction(str(value))


def _tolerances(spec: MarkingSpec, key: Optional[_Key] = None) -> tuple[Optional[Fraction], Optional[Fraction]]:
    rel, ab = spec.tolerance_relative, spec.tolerance_absolute
    if isinstance(ab, str):
        return (Fraction(str(rel)) if rel is not None else None,
                _tolerance_in(ab, key if key is not None else _Key(Fraction(0), (), None)))
    if rel is None and ab is None:
        rel = DEFAULT_RELATIVE_TOLERANCE
    # str() first: Fraction(0.02) would be the binary float, a hair off 2/100.
    return (Fraction(str(rel)) if rel is not None else None, Fraction(str(ab)) if ab is not None else None)


def _precision_rule(spec: MarkingSpec) -> Optional[str]:
    """'sf' or 'dp' when precision, not a tolerance, decides the value; None for a tolerance."""
    if spec.tolerance_relative is not None or spec.tolerance_absolute is not None:
        return None
    if spec.significant_figures is not None:
        return "sf"
    if spec.decimal_places is not None:
        return "dp"
    return None


def _judge(spec: MarkingSpec, value: Value, mantissa: Optional[str], decimal: bool, key: _Key,
           unit: Optional[str]) -> tuple[str, str]:
    """('right'|'form'|'wrong', feedback) for a value in the key's units."""
    rule = pr.sig_fig_rule(spec.significant_figures)
    mode = _precision_rule(spec)
    v, k = pr.as_decimal(value), pr.as_decimal(key.value)
    if mode == "sf":
        if v is None or k is None:
            return "wrong", "That's not the right answer."
        accurate = rule.accuracy == 0 or pr.round_sig(v, rule.accuracy or rule.low) == pr.round_sig(k, rule.accuracy
                                                                                                   or rule.low)
        if not decimal or mantissa is None:
            if accurate:
                return "form", f"Give your answer as a decimal to {rule.describe()}."
            return "wrong", f"Give your answer as a decimal to {rule.describe()}."
        problem = pr.sig_fig_problem(rule, pr.written_sig_figs(mantissa), v, k)
        if problem is None:
            return "right", "That's right."
        if problem == "digits":
            if accurate:
                return "form", f"Your value is right, but give it to {rule.describe()}."
            return "wrong", f"That's not the right answer; give it to {rule.describe()} too."
        if pr.round_sig(v, 1) == pr.round_sig(k, 1) or abs(v - k) <= abs(k) / 10:
            return "wrong", f"Nearly: your answer is not right to {rule.describe()}; check your rounding."
        return "wrong", "That's not the right answer."
    if mode == "dp":
        places = spec.decimal_places
        if v is None or k is None:
            return "wrong", "That's not the right answer."
        accurate = pr.round_places(v, places) == pr.round_places(k, places)
        written = pr.decimal_places(mantissa) if decimal and mantissa is not None else None
        if written == places and accurate:
            return "right", "That's right."
        rounded = f"{places} decimal place{'s' if places != 1 else ''}"
        if accurate:
            return "form", f"Your value is right, but give it to {rounded}."
        return "wrong", "That's not the right answer." if written == places else \
            f"That's not the right answer; give it to {rounded} too."
    rel, ab = _tolerances(spec, key)
    if not _within(value, key.value, rel, ab):
        return "wrong", _outside(rel, ab, unit)
    if rule is not None and mantissa is not None and key.number is not None and key.number.mantissa:
        # With a tolerance, the precision asked for is a matter of form, and a key that is not
        # itself written to that precision does not hold students to it.
        written_key = pr.written_sig_figs(key.number.mantissa)
        if pr.sig_fig_problem(pr.SigFigRule(rule.low, rule.high, 0), written_key, Decimal(0), Decimal(0)) is None \
                and pr.sig_fig_problem(pr.SigFigRule(rule.low, rule.high, 0), pr.written_sig_figs(mantissa),
                                       Decimal(0), Decimal(0)) is not None:
            return "form", f"Your value is close enough, but give it to {rule.describe()}."
    if spec.decimal_places is not None and mantissa is not None and pr.decimal_places(mantissa) != spec.decimal_places:
        return "form", f"Your value is close enough, but give it to {spec.decimal_places} decimal place{'s' if spec.decimal_places != 1 else ''}."
    return "right", "That's right."


_POWERS = str.maketrans("0123456789-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻")


def _unit_as_read(unit: Optional[str]) -> str:
    """A unit after a number as a student reads it: "1 cm³", "0.2 m/s²", "0.5°" (no currency: it goes before)."""
    if not unit or unit in "£$€¥":
        return ""
    shown = re.sub(r"\^\(?(-?\d+)\)?", lambda m: m.group(1).translate(_POWERS), unit)
    return shown if shown.startswith(("°", "%")) else f" {shown}"


def _outside(rel: Optional[Fraction], ab: Optional[Fraction], unit: Optional[str]) -> str:
    """How close an answer must be, as a student reads it: "within 0.1 cm of the right value"."""
    parts = []
    if ab is not None:
        parts.append(f"{_show_number(ab)}" + _unit_as_read(unit))
    if rel is not None:
        parts.append(f"{_show_number(rel * 100)}%")
    return f"Your answer needs to be within {' or '.join(parts)} of the right value."


def _misconception(spec: MarkingSpec, value: Value) -> Optional[str]:
    rel, ab = _tolerances(spec)
    best, best_distance = None, math.inf
    for stype, wrong in spec.misconceptions.items():
        m = _read_number(wrong, latex=True, roots=True)
        if isinstance(m, _Number) and _within(value, m.value, rel, ab):
            d = _distance(value, m.value)
            if d < best_distance:
                best, best_distance = stype, d
    return best


def _outcome(verdict: str, feedback: str, shown: str, spec: MarkingSpec, value: Value, **read: Any) -> _Outcome:
    if verdict == "right":
        return _Outcome(True, feedback, shown, **read)
    if verdict == "form":
        return _Outcome(False, feedback, shown, form_failure=True, **read)
    return _Outcome(False, feedback, shown, misconception=_misconception(spec, value), **read)


_DISPLAY = re.compile(r"\s*(?:displaydp|dispdp|dispsf)\(\s*([^(),]+)\s*,\s*[0-9]+\s*\)\s*")
_DISPLAY_SCI = re.compile(r"\s*displaysci\(\s*([^(),]+)\s*,\s*[0-9]+\s*,\s*(-?[0-9]+)\s*\)\s*")


def _key_text(spec: MarkingSpec) -> str:
    """The key as a number: a key written as a display instruction (displaydp(1.05, 2), as other
    assessment systems store keys) is its value."""
    text = spec.key
    m = _DISPLAY.fullmatch(text)
    if m:
        return m.group(1)
    m = _DISPLAY_SCI.fullmatch(text)
    if m:
        return f"{m.group(1)}*10^({m.group(2)})"
    return text


def _items(text: str) -> Optional[tuple[str, list[str]]]:
    """('list'|'set', item texts) for "[1, 2]" or "{pi, sqrt(2)}"; None for anything else."""
    from core.marking.answers import _enclosed, _split_top
    t = text.strip()
    for opening, closing, kind in (("[", "]", "list"), ("{", "}", "set")):
        if _enclosed(t, opening, closing):
            inner = t[1:-1].strip()
            return kind, [p.strip() for p in _split_top(inner, (",", ";"))] if inner else []
    return None


# A magnification written as "×500" or "x 500": the number of times.
_TIMES_FIRST = re.compile(r"^\s*[×xX]\s*(?=[0-9.])")


def mark_numeric(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    text = _TIMES_FIRST.sub("", text) if isinstance(text, str) else text
    many = _items(spec.key)
    if many is not None:
        return _mark_many(spec, text, many)
    key = _read_key(spec)
    if isinstance(key, str):
        from core.marking.spec import MarkingSpecError
        raise MarkingSpecError(key)
    if key.units:
        return _mark_quantity(spec, _comma(text, spec), key)
    return _mark_number(spec, _comma(text, spec), key)


def _mark_number(spec: MarkingSpec, text: str, key: _Key) -> _Outcome:
    scale, unit = _spec_units(spec.units)
    percent_ok = (key.number is not None and key.number.percent) or bool(unit and "%" in unit)
    a = _read_number(text, latex=True, roots=True)
    if isinstance(a, str):
        if a != "Could not read a number in your answer.":
            return _Outcome(False, a, invalid=True)
        value = _constant(text, spec.decimal_comma)
        if value is None:
            return _Outcome(False, _reading_problem(text, spec) or a, invalid=True)
        shown = _show_number(value)
        verdict, feedback = _judge(spec, value, None, False, key, unit)
        return _outcome(verdict, feedback, shown, spec, value, latex=shown)
    if a.percent and not percent_ok:
        return _Outcome(False, "Give the answer as a number, not a percentage.", _show_number(a.value))
    value = a.value
    if scale is not None and a.exponent is not None and not _within(value, key.value, *_tolerances(spec)):
        # Asked for in units of 10^-19 J but written out in full as 2.45 × 10^-19 J: read in the question's
        # units when that makes it right, or when it was written with the very power of ten asked for (so a
        # wrong answer is still compared with the mistakes the question knows).
        scaled = value / Fraction(10) ** scale if isinstance(value, Fraction) else value / 10.0 ** scale
        if a.exponent == scale or _within(scaled, key.value, *_tolerances(spec)):
            value = scaled
    shown = _show_number(value)
    decimal = a.kind in ("integer", "decimal", "scientific")
    if decimal and spec.significant_figures is not None or spec.decimal_places is not None:
        shown = _as_written(text)       # 2.450 stays 2.450: its precision is being judged
    verdict, feedback = _judge(spec, value, a.mantissa, decimal, key, unit)
    wrong_unit = bool(unit and a.unit and _unit_key(a.unit) != _unit_key(unit))
    if wrong_unit:
        feedback = feedback.rstrip(".") + f", and the unit should be {unit}." if verdict != "right" else \
            f"That's right, but the unit should be {unit}."
    latex = _fraction_latex(a) if value == a.value else None
    return _outcome(verdict, feedback, shown, spec, value, latex=latex or shown)


def _fraction_latex(a: _Number) -> Optional[str]:
    """A fraction or mixed number of whole numbers shown back as it was typed (5/2 as 5 over 2, 2 1/2 as
    two and a half), not as a decimal that may not end (1/3 read back as 0.3333333333 worries a student who
    wrote a third). The plain reading (``normalised``) stays the decimal, which answers are compared by."""
    if a.fraction is None or a.kind not in ("fraction", "mixed") or a.percent:
        return None
    num, den, _ = a.fraction
    sign = "-" if a.value < 0 else ""
    whole = abs(a.value) - Fraction(num, den) if a.kind == "mixed" else 0
    return f"{sign}{whole if whole else ''}\\frac{{{num}}}{{{den}}}"


def _as_written(text: str) -> str:
    from core.marking.reading import _clean
    return _clean(text).strip()


def _quantity_latex(value: Value, q: un.Quantity, written: Optional[str] = None) -> str:
    number = written or _show_number(value)
    if not q.units:
        return number
    return number + r"\ \mathrm{" + q.unit_text.replace(" ", r"\,") + "}"


def _reading_problem(text: str, spec: MarkingSpec) -> Optional[str]:
    """The reader's own sentence for text that is not a number, when it has a better one."""
    try:
        _read(text, frozenset(), spec.decimal_comma)
    except (_Refused, _Unreadable) as exc:
        message = str(exc)
        return message if "did you mean" in message else None
    return None


def _mark_quantity(spec: MarkingSpec, text: str, key: _Key) -> _Outcome:
    key_unit = un.unit_text(key.units)
    try:
        q = un.read_quantity(text, spec.decimal_comma)
        value = _quantity_value(q)
    except (_Refused, _Unreadable) as exc:
        return _Outcome(False, str(exc), invalid=True)
    except (ArithmeticError, ValueError):
        return _Outcome(False, "Could not read a number in your answer.", invalid=True)
    number = _as_written(q.mantissa_text) if q.decimal and q.mantissa_text and _precision_rule(spec) else None
    shown = (number or _show_number(value)) + (f" {q.unit_text}" if q.units else "")
    read = dict(latex=_quantity_latex(value, q, number))
    if not q.units:
        verdict, _ = _judge(spec, value, q.mantissa, q.decimal, key, key_unit)
        if verdict != "wrong":
            return _Outcome(False, f"Your number is right, but give the units ({key_unit}).", shown,
                            form_failure=True, **read)
        return _Outcome(False, f"That's not the right answer; give the units ({key_unit}) too.", shown,
                        misconception=_misconception(spec, value), **read)
    same_units = q.units == key.units
    try:
        converted = value if same_units else un.convert_value(float(value), q.units, key.units)
        if converted is None:
            other = un.resplit(q.units, key.units)
            if other is not None:
                read["notes"] = [f"{q.unit_text} was read as {un.unit_text(other)}."]
                q = dataclasses.replace(q, units=other)
                same_units = q.units == key.units
                converted = value if same_units else un.convert_value(float(value), q.units, key.units)
                shown = (number or _show_number(value)) + f" {q.unit_text}"
                read["latex"] = _quantity_latex(value, q, number)
    except ValueError as exc:
        return _Outcome(False, str(exc), invalid=True)
    except OverflowError:   # 1e999 in other units: exact as written, but no float holds it to convert
        return _Outcome(False, TOO_LARGE, invalid=True)
    if converted is None:
        verdict, _ = _judge(spec, value, q.mantissa, q.decimal, key, key_unit)
        if verdict != "wrong":
            return _Outcome(False, f"Your number is right, but the units are wrong: {q.unit_text} does not "
                            f"measure the same thing as {key_unit}.", shown, form_failure=True, **read)
        return _Outcome(False, f"That's not the right answer, and the units are wrong: {q.unit_text} does not measure "
                        f"the same thing as {key_unit}.", shown, **read)
    if spec.units_exact and not same_units:
        verdict, _ = _judge(spec, converted, q.mantissa if converted == value else None, q.decimal, key, key_unit)
        if verdict != "wrong":
            return _Outcome(False, f"Equivalent, but give the answer in {key_unit}.", shown, form_failure=True,
                            **read)
        return _Outcome(False, f"That's not the right answer; give it in {key_unit}.", shown, **read)
    mantissa = q.mantissa
    if not same_units and _precision_rule(spec) == "dp":
        mantissa = None     # decimal places do not survive a change of units
    verdict, feedback = _judge(spec, converted, mantissa, q.decimal, key, key_unit)
    if verdict == "wrong" and not same_units:
        direct, _ = _judge(spec, value, q.mantissa, q.decimal, key, key_unit)
        if direct != "wrong":
            feedback = f"Your number would be right in {key_unit}, but not in {q.unit_text}: check the units."
    return _outcome(verdict, feedback, shown, spec, converted, **read)


def _mark_many(spec: MarkingSpec, text: str, many: tuple[str, list[str]]) -> _Outcome:
    """A list (in order) or set (any order) of numbers, each marked as its own number."""
    kind, keys = many
    given = _items(text)
    if given is None:
        return _Outcome(False, f"Give {len(keys)} numbers, separated by commas, in "
                        + ("[ ]." if kind == "list" else "{ }."), invalid=True)
    if given[0] != kind:
        return _Outcome(False, "Give the numbers as a list in order, in [ ]." if kind == "list"
                        else "Give the numbers as a set, in { }.", ", ".join(given[1]))
    answers = given[1]
    shown = ("[" if kind == "list" else "{") + ", ".join(answers) + ("]" if kind == "list" else "}")
    if len(answers) != len(keys) and kind == "list":
        return _Outcome(False, f"Your list has {len(answers)} numbers; it should have {len(keys)}.", shown)

    def right(answer: str, key: str) -> bool:
        sub = dataclasses.replace(spec, key=key, misconceptions={})
        out = mark_numeric(sub, answer, answer)
        if out.invalid:
            raise _Unreadable(out.feedback)
        return out.correct

    try:
        if kind == "list":
            ok = all(right(a, k) for a, k in zip(answers, keys))
        else:
            ok = all(any(right(a, k) for k in keys) for a in answers) and \
                all(any(right(a, k) for a in answers) for k in keys)
    except _Unreadable as exc:
        return _Outcome(False, str(exc), invalid=True)
    return _Outcome(True, "That's right.", shown) if ok else _Outcome(False, "Not all the numbers are right.", shown)
