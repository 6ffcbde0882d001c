"""Numbers as students write them.

Reading (whole numbers, decimals, fractions, mixed numbers, roots, powers of
ten, percentages, a trailing unit) is done with anchored regular expressions
on bounded text; then significant figures, showing a value back as a student
would write it, comparing within a tolerance, and the units a question asks for.
"""
from __future__ import annotations

import dataclasses
import math
import re
from fractions import Fraction
from typing import Optional, Union

from core.marking.precision import written_sig_figs
from core.marking.limits import MAX_DECIMAL_EXPONENT, MAX_NUMBER_CHARS, MAX_NUMBER_DIGITS, TOO_LARGE
from core.marking.reading import _clean, _delatex


_NUM = r"(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?:\.[0-9]*)?|\.[0-9]+"
_TIMES = r"(?:x|X|\*|×|·|⋅)"
_UNIT_WORD = r"(?:[^\W\d_]|°)+(?:\^?[+-]?[0-9]+)?"
_NUMBER_RE = re.compile(rf"""
    (?:[^\W\d_]\w{{0,11}}\s*=\s*)?
    (?P<sign>[+-])?\s*(?P<cur>[£$€¥])?\s*(?P<sign2>[+-])?\s*
    (?:
        (?P<whole>[0-9]+)\s+(?P<mn>[0-9]+)\s*/\s*(?P<md>[0-9]+)
      | (?P<fn>{_NUM})\s*/\s*(?P<fd>{_NUM})
      | (?P<coef>{_NUM})?\s*(?:sqrt|√)\s*(?P<rad>{_NUM})
      | (?P<mant>{_NUM})(?:\s*[eE]\s*(?P<e1>[+-]?[0-9]+)|\s*{_TIMES}\s*10\s*(?:\^|\*\*)\s*(?P<e2>[+-]?[0-9]+))?
    )
    \s*(?P<pct>%)?
    \s*(?P<unit>{_UNIT_WORD}(?:\s*(?:/|·|\*|\.|\s)\s*{_UNIT_WORD}){{0,5}})?
    """, re.VERBOSE)
_PAREN_NUMBER = re.compile(r"\(\s*([+-]?\s*[0-9.,]+)\s*\)")
_NUMBER_WORDS = {"nan", "inf", "infinity", "-inf", "+inf", "∞", "-∞"}


@dataclasses.dataclass
class _Number:
    value: Union[Fraction, float]       # float only for roots
    kind: str                           # integer | decimal | fraction | mixed | scientific | root
    sig_figs: Optional[tuple[int, int]] # (fewest, most) the digits written can mean; None if not a decimal
    fraction: Optional[tuple[int, int, bool]]   # numerator, denominator, proper (for simplest-form checks)
    unit: Optional[str]
    percent: bool
    exponent: Optional[int]             # the power of ten written, if any
    mantissa: Optional[str] = None      # the digits as written, for significant figures and decimal places


def _digits(text: str) -> str:
    return text.replace(",", "")


def _decimal(text: str) -> Fraction:
    text = _digits(text)
    return Fraction(text[:-1] if text.endswith(".") else text)


def _sig_figs(mantissa: str) -> tuple[int, int]:
    return written_sig_figs(mantissa)


def _read_number(text: str, latex: bool = False, roots: bool = False, units: bool = True) -> Union[_Number, str]:
    """A number as a student writes it, or a one-sentence reason it cannot be read."""
    text = _clean(text)
    if latex:
        text = _delatex(text)
    if len(text) > MAX_NUMBER_CHARS:
        return "That is too long to be read as a number."
    if text.endswith(".") and not text[:-1].rstrip().endswith(tuple("0123456789")):
        text = text[:-1].rstrip()   # "12 m/s." - the full stop ends a sentence
    for _ in range(5):
        new = _PAREN_NUMBER.sub(r"\1", text)
        if new == text:
            break
        text = new
    if text.startswith("(") and text.endswith(")") and "(" not in text[1:-1] and ")" not in text[1:-1]:
        text = text[1:-1].strip()
    if text.lower() in _NUMBER_WORDS:
        return "That is not a number that can be marked."
    m = _NUMBER_RE.fullmatch(text)
    if m is None:
        return "Could not read a number in your answer."
    if m["sign"] and m["sign2"]:
        return "Could not read a number in your answer."
    if m["unit"] and not units:
        return "Could not read a number in your answer."
    if m["rad"] is not None and not roots:
        return "Could not read a number in your answer."
    digit_count = sum(ch.isdigit() for ch in m.group(0))
    if digit_count > MAX_NUMBER_DIGITS:
        return "That number has too many digits to mark."
    negative = "-" in ((m["sign"] or "") + (m["sign2"] or ""))
    sig_figs = fraction = exponent = mantissa = None
    if m["whole"] is not None:
        whole, num, den = int(m["whole"]), int(m["mn"]), int(m["md"])
        if den == 0:
            return "That fraction divides by zero."
        value: Union[Fraction, float] = whole + Fraction(num, den)
        kind, fraction = "mixed", (num, den, num < den)
    elif m["fn"] is not None:
        num_f, den_f = _decimal(m["fn"]), _decimal(m["fd"])
        if den_f == 0:
            return "That fraction divides by zero."
        value = num_f / den_f
        kind = "fraction"
        if num_f.denominator == 1 and den_f.denominator == 1 and "." not in m["fn"] + m["fd"]:
            fraction = (int(num_f), int(den_f), True)
    elif m["rad"] is not None:
        coef = _decimal(m["coef"]) if m["coef"] else Fraction(1)
        try:
            value = float(coef) * math.sqrt(float(_decimal(m["rad"])))
        except OverflowError:
            return "That number is too large to mark."
        kind = "root"
    else:
        mant = m["mant"]
        value = _decimal(mant)
        exp_text = m["e1"] if m["e1"] is not None else m["e2"]
        sig_figs = _sig_figs(mant)
        mantissa = mant
        if exp_text is not None:
            exponent = int(exp_text)
            if abs(exponent) > MAX_DECIMAL_EXPONENT:
                return TOO_LARGE
            value *= Fraction(10) ** exponent
            kind = "scientific"
        else:
            kind = "decimal" if "." in mant else "integer"
    if negative:
        value = -value
    unit = m["cur"] or (m["unit"].strip() if m["unit"] else None)
    return _Number(value, kind, sig_figs, fraction, unit, bool(m["pct"]), exponent, mantissa)


def _show_number(value: Union[Fraction, float]) -> str:
    """A value as a student would write it: 1/5 -> '0.2', 1/3 -> '0.3333333333'."""
    try:
        if isinstance(value, float):
            return f"{value:.10g}"
        if value.denominator == 1:
            n = value.numerator
            return str(n) if n.bit_length() < 100 else f"{float(n):.6g}"
        k, twos, fives = value.denominator, 0, 0
        while k % 2 == 0:
            k //= 2
            twos += 1
        while k % 5 == 0:
            k //= 5
            fives += 1
        places = max(twos, fives)
        if k == 1 and places <= 20 and abs(value.numerator).bit_length() < 100:
            scaled = abs(value) * 10 ** places
            digits = str(scaled.numerator).rjust(places + 1, "0")
            return ("-" if value < 0 else "") + digits[:-places] + "." + digits[-places:]
        return f"{float(value):.10g}"
    except (OverflowError, ValueError):
        return "a number too large to show"


def _exact_number(text: str) -> Optional[_Number]:
    n = _read_number(text, latex=False, roots=False, units=False)
    return n if isinstance(n, _Number) else None


def _within(value: Union[Fraction, float], target: Union[Fraction, float],
            rel: Optional[Fraction], ab: Optional[Fraction]) -> bool:
    if isinstance(value, float) or isinstance(target, float):
        try:
            v, t = float(value), float(target)
        except OverflowError:
            return False
        if not (math.isfinite(v) and math.isfinite(t)):
            return False
        diff, slack = abs(v - t), 1 + 1e-12
        return ((rel is not None and diff <= float(rel) * abs(t) * slack)
                or (ab is not None and diff <= float(ab) * slack))
    diff = abs(value - target)
    return (rel is not None and diff <= rel * abs(target)) or (ab is not None and diff <= ab)


def _distance(a: Union[Fraction, float], b: Union[Fraction, float]) -> float:
    try:
        return float(abs(a - b))
    except OverflowError:
        return math.inf


def _sig_figs_ok(n: _Number, wanted: int) -> bool:
    return n.sig_figs is not None and n.sig_figs[0] <= wanted <= n.sig_figs[1]


_UNIT_SCALE = re.compile(rf"{_TIMES}\s*10\s*(?:\^|\*\*)\s*([+-]?[0-9]+)\s*(.*)")


def _spec_units(units: Optional[str]) -> tuple[Optional[int], Optional[str]]:
    """'× 10^-19 J' -> (-19, 'J'): answers may be asked for in multiples of a power of ten."""
    if not units or not units.strip():
        return None, None
    text = _PAREN_NUMBER.sub(r"\1", _clean(units))
    m = _UNIT_SCALE.fullmatch(text)
    if m:
        return int(m.group(1)), (m.group(2).strip() or None)
    return None, text


def _unit_key(unit: str) -> str:
    """'m/s', 'm s^-1', 'm·s-1' and 'ms^-1' all become 'ms-1'."""
    u = _PAREN_NUMBER.sub(r"\1", _clean(unit))
    u = re.sub(r"/\s*([^\W\d_]+)\^?([+-]?[0-9]+)?", lambda m: f" {m[1]}-{(m[2] or '1').lstrip('+')}", u)
    return re.sub(r"[\s·*.^]", "", u)
