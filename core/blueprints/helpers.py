"""Domain helper functions that blueprint formulas may call.

Every helper takes plain numbers or text, checks its own inputs and raises
ValueError with a sentence a teacher can act on; the formula layer turns that
into a FormulaError naming the expression.

Types and sizes are checked before any work, because the work is often done
in C code that no deadline can interrupt: ``Fraction("1e99999999")`` builds a
hundred-million-digit number. A helper that wants a number refuses text, and
whole numbers and fractions are held to the formula layer's size limit.
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from typing import Any

MAX_NUMBER_BITS = 1_024     # the formula layer's limit on whole numbers and on fractions' parts
MAX_VALUES = 1_000          # the formula layer's limit on a list's length
MAX_TEXT = 200              # short text: a variable name, a separator, a power written as text


def _kind(x: Any) -> str:
    return "text" if isinstance(x, str) else "true/false" if isinstance(x, bool) else type(x).__name__


def _number(x: Any, what: str = "the value") -> Any:
    """A real number (int, float or Fraction) of bounded size, or ValueError saying what was given."""
    if isinstance(x, bool) or not isinstance(x, (int, float, Fraction)):
        raise ValueError(f"{what} must be a number, not {_kind(x)}")
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"{what} must be a finite number")
    elif isinstance(x, int):
        if x.bit_length() > MAX_NUMBER_BITS:
            raise ValueError(f"{what} is too large (more than {MAX_NUMBER_BITS} bits)")
    elif max(x.numerator.bit_length(), x.denominator.bit_length()) > MAX_NUMBER_BITS:
        raise ValueError(f"{what} is too large (more than {MAX_NUMBER_BITS} bits)")
    return x


def _numbers(values: Any, what: str = "values") -> list:
    """A list or tuple of at most MAX_VALUES numbers."""
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"{what} must be a list of numbers, not {_kind(values)}")
    if len(values) > MAX_VALUES:
        raise ValueError(f"{what} has more than {MAX_VALUES} entries")
    return [_number(v, f"each of the {what}") for v in values]


def _total(values: list) -> Any:
    """A sum whose every partial sum stays within the size limit (fractions' denominators multiply up)."""
    if not any(isinstance(v, Fraction) for v in values):
        return _number(sum(values), "the sum")
    total: Any = 0
    for v in values:
        total = _number(total + v, "the sum")
    return total


def _fraction_of(x: Any, d: Any = None, what: str = "the value") -> Fraction:
    """Fraction(x) or Fraction(x, d) from numbers only; text is refused (it may carry a vast exponent)."""
    _number(x, what)
    if d is None:
        return Fraction(x)
    _number(d, "the denominator")
    if isinstance(x, float) or isinstance(d, float):
        raise ValueError("with a denominator, give whole numbers or fractions, not decimals")
    if d == 0:
        raise ValueError("the denominator must not be zero")
    return Fraction(x, d)


# --------------------------------------------------------------------------
# IPv4


def _octets(o1, o2, o3, o4) -> list[int]:
    octets = [o1, o2, o3, o4]
    for i, o in enumerate(octets, 1):
        if not isinstance(o, int) or isinstance(o, bool) or not 0 <= o <= 255:
            raise ValueError(f"octet {i} must be an integer from 0 to 255, got {o!r}")
    return octets


def _cidr(cidr) -> int:
    if not isinstance(cidr, int) or isinstance(cidr, bool) or not 0 <= cidr <= 32:
        raise ValueError(f"CIDR prefix must be an integer from 0 to 32, got {cidr!r}")
    return cidr


def _to_int(octets: list[int]) -> int:
    return (octets[0] << 24) | (octets[1] << 16) | (octets[2] << 8) | octets[3]


def _to_str(value: int) -> str:
    return ".".join(str((value >> shift) & 255) for shift in (24, 16, 8, 0))


def _parse_ip(text) -> int:
    if not isinstance(text, str) or len(text) > 15:
        raise ValueError(f"expected a dotted IPv4 address, got {text!r}")
    parts = text.split(".")
    if len(parts) != 4 or not all(p.isdigit() and len(p) <= 3 for p in parts):
        raise ValueError(f"expected a dotted IPv4 address, got {text!r}")
    return _to_int(_octets(*(int(p) for p in parts)))


def _mask(cidr: int) -> int:
    return (0xFFFFFFFF << (32 - cidr)) & 0xFFFFFFFF


def dotted_ip(o1, o2, o3, o4) -> str:
    return _to_str(_to_int(_octets(o1, o2, o3, o4)))


def cidr_to_mask(cidr) -> str:
    return _to_str(_mask(_cidr(cidr)))


def mask_to_cidr(mask) -> int:
    value = _parse_ip(mask)
    cidr = bin(value).count("1")
    if _mask(cidr) != value:
        raise ValueError(f"{mask} is not a contiguous subnet mask")
    return cidr


def wildcard_mask(cidr) -> str:
    return _to_str(~_mask(_cidr(cidr)) & 0xFFFFFFFF)


def compute_network_address(o1, o2, o3, o4, cidr) -> str:
    return _to_str(_to_int(_octets(o1, o2, o3, o4)) & _mask(_cidr(cidr)))


def compute_broadcast_address(o1, o2, o3, o4, cidr) -> str:
    c = _cidr(cidr)
    return _to_str((_to_int(_octets(o1, o2, o3, o4)) & _mask(c)) | (~_mask(c) & 0xFFFFFFFF))


def compute_first_host(o1, o2, o3, o4, cidr) -> str:
    c = _cidr(cidr)
    network = _to_int(_octets(o1, o2, o3, o4)) & _mask(c)
    return _to_str(network if c >= 31 else network + 1)


def compute_last_host(o1, o2, o3, o4, cidr) -> str:
    c = _cidr(cidr)
    broadcast = (_to_int(_octets(o1, o2, o3, o4)) & _mask(c)) | (~_mask(c) & 0xFFFFFFFF)
    return _to_str(broadcast if c >= 31 else broadcast - 1)


def total_addresses(cidr) -> int:
    return 2 ** (32 - _cidr(cidr))


def host_count(cidr) -> int:
    """Usable hosts: /31 and /32 are the point-to-point and single-host cases."""
    c = _cidr(cidr)
    if c == 32:
        return 1
    if c == 31:
        return 2
    return 2 ** (32 - c) - 2


def network_with_error(address, error) -> str:
    """A plausible wrong address: one octet incremented or decremented.

    ``error`` is 'increment_octet_N' or 'decrement_octet_N' with N in 1..4;
    the octet wraps within 0..255 so the result is always a valid address.
    """
    value = _parse_ip(address)
    if not isinstance(error, str):
        raise ValueError("error must be text such as 'increment_octet_3'")
    kind, _, index = error.rpartition("_octet_")
    if kind not in ("increment", "decrement") or index not in ("1", "2", "3", "4"):
        raise ValueError(f"unknown error kind {error!r}; use increment_octet_N or decrement_octet_N with N from 1 to 4")
    shift = 8 * (4 - int(index))
    octet = (value >> shift) & 255
    octet = (octet + (1 if kind == "increment" else -1)) % 256
    return _to_str((value & ~(255 << shift) & 0xFFFFFFFF) | (octet << shift))


def to_binary_octet(o) -> str:
    _octets(o, 0, 0, 0)
    return format(o, "08b")


# --------------------------------------------------------------------------
# Numbers as a teacher writes them


def nice(x) -> str:
    """A number without float noise: 2.5 not 2.5000000001, 3 not 3.0."""
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, Fraction):
        return frac_str(x)
    if isinstance(x, float):
        if x == 0:
            return "0"
        if x.is_integer() and abs(x) < 1e15:
            return str(int(x))
        text = f"{x:.10g}"
        if "e" in text:
            return text
        return text
    return str(x)


def fmt(x, decimals) -> str:
    """Fixed decimals, rounded half up, e.g. fmt(2.5, 2) -> '2.50'."""
    if not isinstance(decimals, int) or not 0 <= decimals <= 12:
        raise ValueError("decimals must be an integer from 0 to 12")
    return f"{_half_up(float(_number(x)), decimals):.{decimals}f}"


def _half_up(x: float, decimals: int) -> float:
    """Round half away from zero, as students and mark schemes do (Python's round() goes to even).

    The float's shortest decimal form is rounded, so 2.675 (stored as
    2.67499999...) still gives 2.68, which is what a student writes.
    """
    quantum = Decimal(1).scaleb(-decimals)
    return float(Decimal(repr(float(x))).quantize(quantum, rounding=ROUND_HALF_UP))


def sig(x, figures):
    """Round to significant figures, half up (returns a number)."""
    if not isinstance(figures, int) or not 1 <= figures <= 15:
        raise ValueError("significant figures must be an integer from 1 to 15")
    x = float(_number(x))
    if x == 0:
        return 0.0
    digits = figures - int(math.floor(math.log10(abs(x)))) - 1
    return _half_up(x, digits)


def sf(x, figures) -> str:
    """Text to significant figures, keeping trailing zeros: sf(2.3, 3) -> '2.30'."""
    value = sig(x, figures)
    if value == 0:
        return "0" if figures == 1 else "0." + "0" * (figures - 1)
    magnitude = int(math.floor(math.log10(abs(value))))
    decimals = max(0, figures - magnitude - 1)
    if magnitude >= 15 or magnitude < -6:
        return f"{value:.{figures - 1}e}"
    return f"{value:.{decimals}f}"


def dp(x, decimals):
    """Round to decimal places, half up (returns a number; 0 places gives an int)."""
    if not isinstance(decimals, int) or not 0 <= decimals <= 12:
        raise ValueError("decimals must be an integer from 0 to 12")
    value = _half_up(float(_number(x)), decimals)
    return int(value) if decimals == 0 else value


def frac_str(x, d=None) -> str:
    """'3/4', '-1/2', or '2' for a whole number."""
    f = _fraction_of(x, d)
    if f.denominator == 1:
        return str(f.numerator)
    return f"{f.numerator}/{f.denominator}"


def mixed_str(x, d=None) -> str:
    """'1 3/4' for 7/4; whole numbers and proper fractions as usual."""
    f = _fraction_of(x, d)
    sign = "-" if f < 0 else ""
    f = abs(f)
    whole, rest = divmod(f.numerator, f.denominator)
    if rest == 0:
        return f"{sign}{whole}"
    if whole == 0:
        return f"{sign}{rest}/{f.denominator}"
    return f"{sign}{whole} {rest}/{f.denominator}"


def numerator(x) -> int:
    return _fraction_of(x).numerator


def denominator(x) -> int:
    return _fraction_of(x).denominator


def signed(x) -> str:
    """'+ 3' or '- 3', for writing 'x {signed(b)}'."""
    _number(x)
    return f"- {nice(-x)}" if x < 0 else f"+ {nice(x)}"


def term(coef, var="x", power=1) -> str:
    """One term of a polynomial as a student writes it: 'x', '-3x^2', '5'."""
    if not isinstance(var, str) or len(var) > 10:
        raise ValueError("variable must be short text")
    _number(coef, "the coefficient")
    if isinstance(power, bool) or not isinstance(power, (int, float, Fraction, str)):
        raise ValueError(f"the power must be a number or short text, not {_kind(power)}")
    if isinstance(power, str) and len(power) > MAX_TEXT:
        raise ValueError("the power must be short text")
    if isinstance(power, (int, float, Fraction)):
        _number(power, "the power")
    if coef == 0:
        return "0"
    if power == 0 or var == "":
        return nice(coef)
    base = var if power == 1 else f"{var}^{power}"
    if coef == 1:
        return base
    if coef == -1:
        return f"-{base}"
    return f"{nice(coef)}{base}"


def poly(coeffs, var="x") -> str:
    """A polynomial from coefficients, highest power first: poly([2, -3, 1]) -> '2x^2 - 3x + 1'."""
    if not isinstance(coeffs, (list, tuple)) or not coeffs or len(coeffs) > 12:
        raise ValueError("coefficients must be a list of 1 to 12 numbers")
    _numbers(coeffs, "coefficients")
    degree = len(coeffs) - 1
    out = ""
    for i, c in enumerate(coeffs):
        if c == 0:
            continue
        t = term(abs(c), var, degree - i)
        if not out:
            out = t if c > 0 else f"-{t}"
        else:
            out += f" {'+' if c > 0 else '-'} {t}"
    return out or "0"


def linear(a, b, var="x") -> str:
    """'3x + 2', '-x - 4', '2x' for a*var + b."""
    return poly([a, b], var)


def choose(table, key):
    """Look up a key in a table (the same as table[key], for readability)."""
    if isinstance(table, (list, tuple)):
        return table[key]
    return table[key]


def surd_simplify(n) -> str:
    """'2√3' for √12; the simplest form of the square root of a positive integer."""
    if not isinstance(n, int) or n <= 0 or n > 10**9:
        raise ValueError("surd_simplify needs a positive integer up to 10^9")
    outside, inside = 1, n
    k = 2
    while k * k <= inside:
        while inside % (k * k) == 0:
            inside //= k * k
            outside *= k
        k += 1
    if inside == 1:
        return str(outside)
    return f"√{inside}" if outside == 1 else f"{outside}√{inside}"


def is_prime(n) -> bool:
    if not isinstance(n, int) or n > 10**9:
        raise ValueError("is_prime needs an integer up to 10^9")
    if n < 2:
        return False
    k = 2
    while k * k <= n:
        if n % k == 0:
            return False
        k += 1
    return True


def digit(n, place) -> int:
    """The digit of n in a place: 0 ones, 1 tens, 2 hundreds."""
    if not isinstance(place, int) or not 0 <= place <= 18:
        raise ValueError("place must be an integer from 0 to 18")
    return (abs(int(_number(n))) // 10**place) % 10


def mean(values) -> float:
    values = _numbers(values)
    if not values:
        raise ValueError("mean of no values")
    return _total(values) / len(values)


def median(values):
    values = sorted(_numbers(values))
    if not values:
        raise ValueError("median of no values")
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def stdev(values) -> float:
    """Sample standard deviation (n - 1), as SQA courses use."""
    values = _numbers(values)
    if len(values) < 2:
        raise ValueError("standard deviation needs at least two values")
    m = _total(values) / len(values)
    return math.sqrt(_total([_number((v - m) ** 2, "a squared deviation") for v in values]) / (len(values) - 1))


def join(values, sep=", ") -> str:
    if not isinstance(sep, str) or len(sep) > 10:
        raise ValueError("separator must be short text")
    if not isinstance(values, (list, tuple)) or len(values) > MAX_VALUES:
        raise ValueError(f"join needs a list of at most {MAX_VALUES} values")
    return sep.join(nice(v) for v in values)


def item(values, index):
    """The index-th entry of a list (the same as values[index])."""
    return values[index]


FUNCTIONS: dict[str, Any] = {
    "dotted_ip": dotted_ip,
    "cidr_to_mask": cidr_to_mask,
    "mask_to_cidr": mask_to_cidr,
    "wildcard_mask": wildcard_mask,
    "compute_network_address": compute_network_address,
    "compute_broadcast_address": compute_broadcast_address,
    "compute_first_host": compute_first_host,
    "compute_last_host": compute_last_host,
    "total_addresses": total_addresses,
    "host_count": host_count,
    "network_with_error": network_with_error,
    "to_binary_octet": to_binary_octet,
    "nice": nice,
    "fmt": fmt,
    "sig": sig,
    "sf": sf,
    "dp": dp,
    "frac_str": frac_str,
    "mixed_str": mixed_str,
    "numerator": numerator,
    "denominator": denominator,
    "signed": signed,
    "term": term,
    "poly": poly,
    "linear": linear,
    "choose": choose,
    "surd_simplify": surd_simplify,
    "is_prime": is_prime,
    "digit": digit,
    "mean": mean,
    "median": median,
    "stdev": stdev,
    "join": join,
    "item": item,
}
