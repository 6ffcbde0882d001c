"""Significant figures and decimal places: how precise a number is as written, and whether it is right.

The rule (the one STACK documents for its NumSigFigs test):
- leading zeros never count; zeros between digits always do;
- trailing zeros after a decimal point count (2.50 has 3 s.f., 0.0010 has 2);
- trailing zeros of a whole number are ambiguous: 1200 has 2, 3 or 4 s.f., and is
  accepted for any of them; write 1200. or 1.200e3 to mean exactly 4;
- in e-notation and ×10^n only the digits before the power count (1.00e3 has 3);
- zero written as 0 or 0.0 has 1 s.f.; 0.00 has 2 (one for each decimal place).
A value is right to n s.f. when, rounded half-up to n s.f., it equals the key
rounded the same way. Decimal places count the digits after the point, trailing
zeros included (12.30 has 2 d.p.), and the value is compared rounded to that many.
"""
from __future__ import annotations

import dataclasses
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Optional, Union

SigFigs = Union[int, tuple, list, str, None]


@dataclasses.dataclass(frozen=True)
class SigFigRule:
    """Written to between low and high s.f. (high None: at least low), right to `accuracy` s.f.
    (None: the value is judged by a tolerance instead; 0: not judged)."""

    low: int
    high: Optional[int]
    accuracy: Optional[int]

    def describe(self) -> str:
        if self.high is None:
            return f"at least {self.low} significant figures"
        if self.high == self.low:
            return f"{self.low} significant figure{'s' if self.low != 1 else ''}"
        return f"{self.low} to {self.high} significant figures"


def sig_fig_rule(value: SigFigs) -> Optional[SigFigRule]:
    """The rule a question states: 3 (exactly 3, right to 3), [4, 3] (written to 4, right to 3),
    [3, 0] (written to 3, value not judged), [3, -1] (at least 3), "3-5" (a range), "at least 3".
    Raises ValueError naming what is wrong."""
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError(f"significant_figures must be a whole number, got {value!r}")
    if isinstance(value, int):
        _check(value)
        return SigFigRule(value, value, value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text.startswith("at least"):
            n = _whole(text[8:])
            return SigFigRule(n, None, n)
        if "-" in text or " to " in text:
            a, b = text.replace(" to ", "-").split("-", 1)
            low, high = _whole(a), _whole(b)
            if high < low:
                raise ValueError(f"significant_figures range {value!r} runs backwards")
            return SigFigRule(low, high, low)
        n = _whole(text)
        return SigFigRule(n, n, n)
    if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, int) for v in value):
        n, m = value
        _check(n)
        if m == -1:
            return SigFigRule(n, None, n)
        if m < -1 or m > n:
            raise ValueError(f"significant_figures [{n}, {m}]: the accuracy must be from -1 to {n}")
        return SigFigRule(n, n, m)
    raise ValueError(f"significant_figures must be a whole number, [n, m], 'a-b' or 'at least n'; got {value!r}")


def _whole(text: str) -> int:
    try:
        n = int(text.strip())
    except ValueError:
        raise ValueError(f"significant_figures: '{text.strip()}' is not a whole number") from None
    _check(n)
    return n


def _check(n: int) -> None:
    if not 1 <= n <= 15:
        raise ValueError(f"significant_figures must be from 1 to 15, got {n}")


def written_sig_figs(mantissa: str) -> tuple[int, int]:
    """(fewest, most) significant figures the digits as written can mean; see the module rule."""
    text = mantissa.replace(",", "").lstrip("+-")
    digits = text.replace(".", "")
    stripped = digits.lstrip("0")
    if not stripped:
        places = len(text.split(".", 1)[1]) if "." in text else 0
        return (max(1, places), max(1, places))
    if "." in text:
        return (len(stripped), len(stripped))
    return (len(stripped.rstrip("0")), len(stripped))


def decimal_places(mantissa: str) -> int:
    text = mantissa.replace(",", "")
    return len(text.split(".", 1)[1]) if "." in text else 0


def round_sig(value: Decimal, n: int) -> Decimal:
    if value == 0:
        return Decimal(0)
    q = Decimal(1).scaleb(value.adjusted() - n + 1)
    return value.quantize(q, rounding=ROUND_HALF_UP)


def round_places(value: Decimal, places: int) -> Decimal:
    return value.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)


def as_decimal(value) -> Optional[Decimal]:
    """A Fraction, float or mpmath number as a Decimal with 40 digits; None if it is not a finite real."""
    try:
        if hasattr(value, "numerator") and hasattr(value, "denominator"):
            from decimal import localcontext
            with localcontext() as ctx:
                ctx.prec = 40
                exact = Decimal(value.numerator) / Decimal(value.denominator)
        else:
            exact = Decimal(str(value))
    except (InvalidOperation, ValueError, OverflowError):
        return None
    return exact if exact.is_finite() else None   # a float that overflowed to inf, or nan


def sig_fig_problem(rule: SigFigRule, written: tuple[int, int], value: Decimal, key: Decimal) -> Optional[str]:
    """None when the answer meets the rule; else 'digits' (written to the wrong precision)
    or 'value' (not right to the required figures)."""
    fewest, most = written
    if rule.high is None:
        if most < rule.low:
            return "digits"
    elif not (fewest <= rule.high and most >= rule.low):
        return "digits"
    if rule.accuracy:
        if round_sig(value, rule.accuracy) != round_sig(key, rule.accuracy):
            return "value"
    return None
