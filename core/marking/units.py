"""Quantities with units: a number times a product of unit symbols, converted with pint.

An answer such as "12.3 m/s", "-9.81*m*s^(-2)", "(15*kN)/(pi*mm^2)" or "2.0 kg m s^-2"
is read by the same reader as every other answer, with each name taken as one unit
symbol, and split into its number and its units. pint (loaded on first use) knows
the units, their prefixes and dimensions; unit symbols are case sensitive, as in SI
(mHz is not MHz).
"""
from __future__ import annotations

import dataclasses
import functools
import re
from fractions import Fraction
from typing import Optional

from core.marking.expressions import Node, _has_vars, _literal_value, _read, _Unreadable

_UNIT_CHARS = [("°C", " degC "), ("°F", " degF "), ("℃", " degC "), ("°", " deg "), ("µ", "u"), ("μ", "u"),
               ("Ω", " ohm "), ("Å", " angstrom ")]
_FIRST_NUMBER = re.compile(r"[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+\.")
# Units a question may state that are not physical units a student must write:
# money, percentages and counting words are never required.
_NOT_PHYSICAL = re.compile(r"\s*(?:[£$€¥]|%|percent|per cent|marks?|people|items?|days?|years?)\s*", re.I)


@dataclasses.dataclass(frozen=True)
class Quantity:
    number: Node                        # the numerical part as a tree
    units: tuple[tuple[str, Fraction], ...]   # (symbol, power), sorted
    mantissa: Optional[str]             # the first number as written, for significant figures
    decimal: bool                       # the number is a written decimal (times a power of ten)
    mantissa_text: Optional[str] = None  # the number as written, with its power of ten

    @property
    def unit_text(self) -> str:
        return unit_text(self.units)


def unit_text(units: tuple) -> str:
    top = [s if p == 1 else f"{s}^{_show_power(p)}" for s, p in units if p > 0]
    bottom = [s if p == -1 else f"{s}^{_show_power(-p)}" for s, p in units if p < 0]
    text = " ".join(top) or "1"
    if bottom:
        text += "/" + (bottom[0] if len(bottom) == 1 else "(" + " ".join(bottom) + ")")
    return text


def _show_power(p: Fraction) -> str:
    return str(p.numerator) if p.denominator == 1 else f"({p.numerator}/{p.denominator})"


@functools.lru_cache(maxsize=1)
def registry():
    import pint
    return pint.UnitRegistry(autoconvert_offset_to_baseunit=True)


@functools.lru_cache(maxsize=256)
def physical(units_text: Optional[str]) -> bool:
    """Whether a question's stated units are physical units the answer must carry."""
    if not units_text or not units_text.strip() or _NOT_PHYSICAL.fullmatch(units_text):
        return False
    try:
        q = read_quantity("1 " + units_text)
    except (_Unreadable, ValueError):
        return False
    if not q.units:
        return False
    try:
        return not _pint_unit(q.units).dimensionless       # degrees and radians are never required
    except ValueError:
        return True


_SI_POWER = re.compile(r"(?<=[A-Za-z])(-?[0-9]+)(?![0-9.])")
_NAMED = re.compile(r"\s*[A-Za-z][A-Za-z0-9_]{0,11}\s*=\s*")


_WORD_POWERS = [(re.compile(r"\b(?:square|sq\.?)\s+([A-Za-z]+)\b"), r"\1^2"),
                (re.compile(r"\bcubic\s+([A-Za-z]+)\b"), r"\1^3"),
                (re.compile(r"\b([A-Za-z]+)\s+squared\b"), r"\1^2"), (re.compile(r"\b([A-Za-z]+)\s+cubed\b"), r"\1^3")]


# A prefixed ohm ("2.5 kΩ") is one unit, not a prefix and an ohm; "amps" is amperes (pint would read it as
# attometres per second); "2.0 x 10^5 Pa" writes "times" with the letter x, as many students do.
_PREFIXED_OHM = re.compile(r"(?<![A-Za-z])([kMGmuµμ]?)Ω")
_AMPS = re.compile(r"\bamps\b", re.I)
_LETTER_TIMES = re.compile(r"(?<=[0-9.])\s*[xX]\s*(?=10\s*(?:\^|\*\*))")
# After one "/", the unit factors written side by side are all below the line: "J/kg °C" is J/(kg °C).
_PER_FACTORS = re.compile(r"(?<=[A-Za-z)])\s*/\s*([A-Za-z][A-Za-z0-9^\-]*(?:\s+[A-Za-z][A-Za-z0-9^\-]*)+)\s*$")


def _prepare_units(text: str) -> str:
    """SI writing read as meant: "v = 12 m s-1" is 12 m s^-1, "78.5 cm2" is 78.5 cm^2, and so are
    "78.5 square cm" and "78.5 cm squared"; "2.5 kΩ", "3 amps", "2.0 x 10^5 Pa" and "4180 J/kg°C" too."""
    text = _PREFIXED_OHM.sub(lambda m: f" {m.group(1)}ohm ", text)
    text = _AMPS.sub("amp", text)
    text = _LETTER_TIMES.sub(" * ", text)
    for a, b in _UNIT_CHARS:
        text = text.replace(a, b)
    for pattern, replacement in _WORD_POWERS:
        text = pattern.sub(replacement, text)
    text = _NAMED.sub("", text, count=1) if _NAMED.match(text) else text
    head = _FIRST_NUMBER.search(text)
    if head is None:
        return text
    cut = head.end()
    rest = _SI_POWER.sub(r"^\1", text[cut:])
    if rest.count("/") == 1 and "(" not in rest:
        rest = _PER_FACTORS.sub(lambda m: "/(" + m.group(1).strip() + ")", rest)
    return text[:cut] + rest


def resplit(units: tuple, target: tuple) -> Optional[tuple]:
    """Units with a symbol read as two ("ms" as m s rather than millisecond) when only that reading
    measures the same thing as the target; None when there is no such reading."""
    ureg = registry()
    try:
        goal = _pint_unit(target).dimensionality
    except ValueError:
        return None
    for i, (symbol, power) in enumerate(units):
        for cut in range(1, len(symbol)):
            a, b = symbol[:cut], symbol[cut:]
            try:
                ureg.Unit(a), ureg.Unit(b)
            except Exception:   # pint raises several kinds for names it does not know
                continue
            rest = dict(units[:i] + units[i + 1:])
            if power == -1 or power == 1:
                # "ms^-1" is m s^-1: the power belongs to the last symbol.
                rest[a] = rest.get(a, 0) + 1
                rest[b] = rest.get(b, 0) + power
            else:
                continue
            candidate = tuple(sorted((k, v) for k, v in rest.items() if v))
            try:
                if _pint_unit(candidate).dimensionality == goal:
                    return candidate
            except ValueError:
                continue
    return None


@functools.lru_cache(maxsize=1024)
def read_quantity(text: str, decimal_comma: bool = False) -> Quantity:
    """A number times units; raises _Unreadable (or _Refused) with a sentence for the student."""
    prepared = _prepare_units(text)
    node, _ = _read(prepared, None, decimal_comma, True)
    number, units = _split(node)
    if number is None:
        raise _Unreadable("Give a number as well as the units.")
    first = _FIRST_NUMBER.search(prepared.replace(",", ".") if decimal_comma else prepared)
    mantissa = re.split(r"[eE]", first.group())[0] if first else None
    sign = "-" if number[0] == "neg" else ""
    return Quantity(number, tuple(sorted(units.items())), mantissa, _is_decimal(number),
                    sign + first.group() if first else None)


def _split(node: Node) -> tuple[Optional[Node], dict[str, Fraction]]:
    """(the number, or None where there is only units; {unit symbol: power})."""
    kind = node[0]
    if kind in ("num", "const"):
        return node, {}
    if kind == "var":
        return None, {node[1]: Fraction(1)}
    if kind == "neg":
        n, u = _split(node[1])
        return ("neg", n if n is not None else ("num", Fraction(1))), u
    if kind == "mul":
        nums, dens, units = [], [], {}
        for side, sign in ((node[1], 1), (node[2], -1)):
            for f in side:
                n, u = _split(f)
                if n is not None:
                    (nums if sign > 0 else dens).append(n)
                for s, p in u.items():
                    units[s] = units.get(s, 0) + sign * p
        units = {s: p for s, p in units.items() if p}
        if not nums and not dens:
            return None, units
        if len(nums) == 1 and not dens:
            return nums[0], units
        return ("mul", tuple(nums) or (("num", Fraction(1)),), tuple(dens)), units
    if kind == "pow":
        base, units = _split(node[1])
        if _has_vars(node[2]):
            raise _Unreadable("A power cannot contain a unit.")
        if units:
            p = _literal_value(node[2])
            if p is None:
                raise _Unreadable("Powers of units must be numbers, such as m^2 or s^-1.")
            units = {s: q * p for s, q in units.items()}
        return (("pow", base, node[2]) if base is not None else None), units
    if _has_vars(node):
        raise _Unreadable("Write the number times its units, such as 9.81 m/s^2; units cannot be added "
                          "or put inside a function.")
    return node, {}


def _is_decimal(node: Node) -> bool:
    """A written decimal, possibly signed and times a power of ten: 12.3, -0.05, 1.38*10^-1."""
    while node[0] == "neg":
        node = node[1]
    if node[0] == "num":
        return True
    if node[0] != "mul":
        return False
    plain = [f for f in node[1] if f[0] == "num"]
    tens = [f for f in node[1] + node[2] if f[0] == "pow" and f[1] == ("num", Fraction(10))]
    return len(plain) == 1 and len(plain) + len(tens) == len(node[1]) + len(node[2])


@functools.lru_cache(maxsize=512)
def _pint_unit(units: tuple):
    ureg = registry()
    import pint
    result = ureg.dimensionless
    for symbol, power in units:
        try:
            unit = ureg.Unit(symbol)
        except (pint.UndefinedUnitError, AttributeError, ValueError, AssertionError):
            raise ValueError(unknown_unit_message(symbol)) from None
        result = result * unit ** (float(power) if power.denominator != 1 else int(power))
    return result


def unknown_unit_message(symbol: str) -> str:
    ureg = registry()
    guesses = []
    for candidate in dict.fromkeys([symbol.lower(), symbol.upper(), symbol.capitalize(), symbol[:-1] + symbol[-1].upper(),
                                    symbol[0].lower() + symbol[1:].upper() if len(symbol) > 1 else symbol]):
        if candidate != symbol:
            try:
                ureg.Unit(candidate)
                guesses.append(candidate)
            except Exception:   # pint raises several kinds for names it does not know
                continue
    if guesses:
        return f"'{symbol}' is not a unit; unit symbols are case sensitive: did you mean {' or '.join(guesses)}?"
    return f"'{symbol}' is not a unit this answer box knows."


def conversion(student: tuple, key: tuple) -> Optional[float]:
    """How many key units one student unit is (km vs m: 1000), or None when the dimensions differ.
    Raises ValueError naming a unit pint does not know."""
    su, ku = _pint_unit(student), _pint_unit(key)
    if su.dimensionality != ku.dimensionality:
        return None
    return float((1 * su).to(ku).magnitude)


def convert_value(value: float, student: tuple, key: tuple) -> Optional[float]:
    """value in the student's units, in the key's units (temperatures shift as well as scale)."""
    ureg = registry()
    su, ku = _pint_unit(student), _pint_unit(key)
    if su.dimensionality != ku.dimensionality:
        return None
    return float(ureg.Quantity(value, su).to(ku).magnitude)


def dimension_name(units: tuple) -> str:
    try:
        dims = _pint_unit(units).dimensionality
    except ValueError:
        return "unknown"
    return str(dims).replace("[", "").replace("]", "") or "no units"
