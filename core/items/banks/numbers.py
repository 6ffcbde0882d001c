"""Numbers as teachers write them in a key ('3/4', '3.98 × 10^-19'), and computed keys written the same way."""
from __future__ import annotations

import math
import re
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, Optional, Union

from core.items.generator import format_value, normalise_text
from core.items.sampler import GenerationError

_PLAIN_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_FRACTION = re.compile(r"^([+-]?\d+)\s*/\s*(\d+)$")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SCIENTIFIC = re.compile(
    r"^([+-]?\d+(?:\.\d+)?)\s*(×|x|X|\*|\\times)\s*10\s*(?:\^\s*\{?\s*([+-]?\d+)\s*\}?|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))$")


def parse_number(text: Any) -> Optional[Union[int, float, Fraction]]:
    """A number from key text: '12', '-0.5', '3/4', '6.63e-34', '3.98 × 10^-19'; None if it is not one."""
    if isinstance(text, bool):
        return None
    if isinstance(text, (int, float, Fraction)):
        return text if not isinstance(text, float) or math.isfinite(text) else None
    if not isinstance(text, str):
        return None
    s = text.strip().strip("$").strip().replace("\u2212", "-")
    if not s or len(s) > 60:
        return None
    if _PLAIN_NUMBER.match(s):
        if re.fullmatch(r"[+-]?\d+", s):
            return int(s)
        value = float(s)
        return value if math.isfinite(value) else None
    m = _FRACTION.match(s)
    if m:
        return Fraction(int(m.group(1)), int(m.group(2))) if int(m.group(2)) else None
    m = _SCIENTIFIC.match(s)
    if m:
        exponent = int(m.group(3) if m.group(3) is not None else m.group(4).translate(_SUPERSCRIPT))
        if abs(exponent) > 300:
            return None
        return float(m.group(1)) * 10.0 ** exponent
    return None


def _numeric_answer_type(text: str) -> Optional[str]:
    value = parse_number(text)
    if value is None:
        return None
    if isinstance(value, int):
        return "integer"
    if isinstance(value, Fraction):
        return "fraction"
    return "decimal"


def _answer_format(answer: str, decimals: Optional[int], sig_figs: Optional[int]) -> dict:
    """How a recomputed key should be written: the precision the teacher used for the original.

    A physics key written '3.98 × 10^-19' means three significant figures in
    scientific notation; '12.50' means two decimal places. Variants keep that.
    """
    s = answer.strip().strip("$").strip()
    m = _SCIENTIFIC.match(s)
    if decimals is not None:
        return {"decimals": decimals}
    if sig_figs is not None:
        return {"sig_figs": sig_figs, **({"scientific": m.group(2)} if m else {})}
    if m:
        mantissa = m.group(1).lstrip("+-")
        return {"sig_figs": len(mantissa.replace(".", "").lstrip("0")) or 1, "scientific": m.group(2)}
    if _PLAIN_NUMBER.match(s) and "." in s and "e" not in s.lower():
        return {"decimals": len(s.split(".", 1)[1])}
    return {}


def _half_up(x: float, places: int) -> float:
    # Teachers round 2.25 to 2.3; float formatting would give 2.2 (half-even on a binary value).
    try:
        return float(Decimal(repr(float(x))).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP))
    except InvalidOperation:
        return round(float(x), places)


def key_text(value: Any, answer_type: str, answer_format: Optional[dict] = None) -> str:
    """A computed answer as key text; raises GenerationError when it does not fit the answer type."""
    fmt = answer_format or {}
    if answer_type == "decimal" and isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
        x = float(value)
        if not math.isfinite(x):
            raise GenerationError("answer_formula gave a value that is not a finite number")
        if "decimals" in fmt:
            n = int(fmt["decimals"])
            return format_value(_half_up(x, n), "decimal", n, True, "answer_formula")
        if "sig_figs" in fmt:
            n = int(fmt["sig_figs"])
            if x == 0:
                return format_value(0.0, "decimal", max(n - 1, 0), True, "answer_formula")
            exponent = math.floor(math.log10(abs(x)))
            if fmt.get("scientific"):
                mantissa = _half_up(x / 10.0 ** exponent, n - 1)
                if abs(mantissa) >= 10:
                    mantissa, exponent = _half_up(mantissa / 10, n - 1), exponent + 1
                text = format_value(mantissa, "decimal", n - 1, True, "answer_formula")
                return f"{text} {fmt['scientific']} 10^{exponent}"
            places = n - 1 - exponent
            return format_value(_half_up(x, places), "decimal", max(places, 0), True, "answer_formula")
    return format_value(value, answer_type, None, True, "answer_formula")


def _same_answer(a: str, b: str, answer_type: str, tolerance: Optional[dict]) -> bool:
    if answer_type in ("integer", "decimal", "fraction"):
        x, y = parse_number(a), parse_number(b)
        if x is None or y is None:
            return False
        x, y = float(x), float(y)
        if abs(x - y) <= 1e-9 * max(abs(x), abs(y), 1e-300):
            return True
        if tolerance:
            if tolerance.get("absolute") is not None and abs(x - y) <= tolerance["absolute"]:
                return True
            if tolerance.get("relative") is not None and abs(x - y) <= tolerance["relative"] * abs(y):
                return True
        return False
    squash = (lambda t: normalise_text(t).replace(" ", "")) if answer_type == "expression" else normalise_text
    return squash(a) == squash(b)
