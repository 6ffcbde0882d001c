"""The editor's reference: every function a formula may call and every kind of parameter, with a one-line example.

The rows come from the formula layer's own registry (``FUNCTIONS``) and the
parameter model (``ParameterSpec``), and each example's result is worked out
by the formula evaluator itself, so the reference shows what the workbench
really does. A function added to the registry without a description here
shows as "not described yet" (and a test says so).
"""
from __future__ import annotations

import typing

import yaml

from core.blueprints.formula import FUNCTIONS, FormulaError, safe_eval
from core.blueprints.models.skill import ParameterSpec

# name: (group, what it does, example)
DESCRIPTIONS: dict[str, tuple[str, str, str]] = {
    "abs": ("Numbers", "size of a number, without its sign", "abs(-7)"),
    "min": ("Numbers", "smallest of the values", "min(4, 9, 2)"),
    "max": ("Numbers", "largest of the values", "max(4, 9, 2)"),
    "sum": ("Lists and statistics", "total of the values", "sum([3, 4, 5])"),
    "sorted": ("Lists and statistics", "values in order, smallest first", "sorted([5, 1, 3])"),
    "round": ("Rounding and writing numbers", "round to places (Python rounds halves to even; dp() rounds half up)",
              "round(3.14159, 2)"),
    "int": ("Numbers", "whole-number part, or text read as a whole number", "int(7.9)"),
    "float": ("Numbers", "as a decimal number", "float(3)"),
    "str": ("Text", "a value as text", "str(12) + ' cm'"),
    "bool": ("Numbers", "true or false", "bool(0)"),
    "len": ("Lists and statistics", "how many entries a list (or letters a text) has", "len([2, 4, 6])"),
    "sqrt": ("Numbers", "square root", "sqrt(20.25)"),
    "isqrt": ("Numbers", "whole-number square root, rounded down", "isqrt(20)"),
    "floor": ("Numbers", "round down to a whole number", "floor(4.7)"),
    "ceil": ("Numbers", "round up to a whole number", "ceil(4.2)"),
    "trunc": ("Numbers", "drop the decimal part", "trunc(-4.7)"),
    "sin": ("Trigonometry", "sine of an angle in radians (use radians(deg))", "nice(sin(radians(30)))"),
    "cos": ("Trigonometry", "cosine of an angle in radians", "nice(cos(radians(60)))"),
    "tan": ("Trigonometry", "tangent of an angle in radians", "nice(tan(radians(45)))"),
    "asin": ("Trigonometry", "angle (radians) whose sine is the value", "nice(degrees(asin(0.5)))"),
    "acos": ("Trigonometry", "angle (radians) whose cosine is the value", "nice(degrees(acos(0.5)))"),
    "atan": ("Trigonometry", "angle (radians) whose tangent is the value", "degrees(atan(1))"),
    "atan2": ("Trigonometry", "angle (radians) of the point (x, y), written atan2(y, x)", "degrees(atan2(1, 1))"),
    "degrees": ("Trigonometry", "radians to degrees", "degrees(pi)"),
    "radians": ("Trigonometry", "degrees to radians", "radians(180)"),
    "log": ("Numbers", "natural logarithm, or log(x, base)", "log(8, 2)"),
    "log10": ("Numbers", "logarithm to base 10", "log10(1000)"),
    "log2": ("Numbers", "logarithm to base 2", "log2(32)"),
    "exp": ("Numbers", "e to the power x", "exp(1)"),
    "hypot": ("Numbers", "length of the hypotenuse from the two shorter sides", "hypot(3, 4)"),
    "factorial": ("Numbers", "n! (n up to 170)", "factorial(5)"),
    "comb": ("Numbers", "ways to choose k from n (nCr)", "comb(5, 2)"),
    "perm": ("Numbers", "ordered ways to choose k from n (nPr)", "perm(5, 2)"),
    "gcd": ("Numbers", "highest common factor", "gcd(12, 18)"),
    "lcm": ("Numbers", "lowest common multiple", "lcm(4, 6)"),
    "fraction": ("Fractions", "an exact fraction", "fraction(6, 8)"),
    "Fraction": ("Fractions", "the same as fraction()", "Fraction(3, 4) + Fraction(1, 4)"),
    "dotted_ip": ("Networking", "an IPv4 address from its four octets", "dotted_ip(192, 168, 1, 10)"),
    "cidr_to_mask": ("Networking", "subnet mask of a prefix length", "cidr_to_mask(26)"),
    "mask_to_cidr": ("Networking", "prefix length of a subnet mask", "mask_to_cidr('255.255.255.192')"),
    "wildcard_mask": ("Networking", "wildcard (inverse) mask of a prefix length", "wildcard_mask(26)"),
    "compute_network_address": ("Networking", "network address of an address and prefix",
                                "compute_network_address(192, 168, 1, 77, 26)"),
    "compute_broadcast_address": ("Networking", "broadcast address of an address and prefix",
                                  "compute_broadcast_address(192, 168, 1, 77, 26)"),
    "compute_first_host": ("Networking", "first usable host address", "compute_first_host(192, 168, 1, 77, 26)"),
    "compute_last_host": ("Networking", "last usable host address", "compute_last_host(192, 168, 1, 77, 26)"),
    "total_addresses": ("Networking", "addresses in a block of that prefix", "total_addresses(26)"),
    "host_count": ("Networking", "usable hosts in a block of that prefix", "host_count(26)"),
    "network_with_error": ("Networking", "a plausible wrong address (one octet off by one)",
                           "network_with_error('192.168.1.64', 'increment_octet_3')"),
    "to_binary_octet": ("Networking", "an octet as eight binary digits", "to_binary_octet(192)"),
    "nice": ("Rounding and writing numbers", "a number without float noise", "nice(0.1 + 0.2)"),
    "fmt": ("Rounding and writing numbers", "text with fixed decimal places, half up", "fmt(2.5, 2)"),
    "sig": ("Rounding and writing numbers", "round to significant figures (a number)", "sig(0.004567, 2)"),
    "sf": ("Rounding and writing numbers", "text to significant figures, trailing zeros kept", "sf(2.3, 3)"),
    "dp": ("Rounding and writing numbers", "round to decimal places, half up (a number)", "dp(2.345, 2)"),
    "frac_str": ("Fractions", "a fraction as text, simplified", "frac_str(6, 8)"),
    "mixed_str": ("Fractions", "a mixed number as text", "mixed_str(7, 4)"),
    "numerator": ("Fractions", "top of the simplified fraction", "numerator(fraction(6, 8))"),
    "denominator": ("Fractions", "bottom of the simplified fraction", "denominator(fraction(6, 8))"),
    "signed": ("Algebra text", "a number with its sign spaced, for 'x {signed(b)}'", "'x ' + signed(-9)"),
    "term": ("Algebra text", "one term as a student writes it (no 1x, no x^1)", "term(-1, 'x', 2)"),
    "poly": ("Algebra text", "a polynomial from its coefficients, highest power first", "poly([2, -3, 0, 1])"),
    "linear": ("Algebra text", "a*x + b written properly", "linear(2, -9)"),
    "choose": ("Lists and statistics", "look up a key in a table (a list, by position)", "choose(['red', 'green', 'blue'], 1)"),
    "surd_simplify": ("Numbers", "simplest form of a square root", "surd_simplify(12)"),
    "is_prime": ("Numbers", "whether a whole number is prime", "is_prime(91)"),
    "digit": ("Numbers", "the digit in a place: 0 ones, 1 tens, 2 hundreds", "digit(4725, 1)"),
    "mean": ("Lists and statistics", "the mean of the values", "mean([2, 4, 9])"),
    "median": ("Lists and statistics", "the median of the values", "median([7, 2, 9, 4])"),
    "stdev": ("Lists and statistics", "sample standard deviation (n - 1)", "stdev([2, 4, 4, 6])"),
    "join": ("Text", "values as one text, comma-separated", "join([3, 5, 8])"),
    "item": ("Lists and statistics", "the entry at a position, counting from 0", "item([10, 20, 30], 1)"),
}

# One example of each kind of parameter, as it is written under generation.parameters.
PARAMETER_EXAMPLES: dict[str, tuple[str, str]] = {
    "integer": ("whole numbers from min to max (step 1 unless given); 'exclude' leaves some out",
                "{type: integer, min: -9, max: 9, exclude: [0]}"),
    "decimal": ("numbers from min to max in steps of 'step' (which sets the decimal places)",
                "{type: decimal, min: 1, max: 12, step: 0.5}"),
    "choice": ("one of the listed values (numbers or text)", "{type: choice, values: [\"train\", \"bus\"]}"),
}

OTHER_SYNTAX: list[tuple[str, str, str]] = [
    ("{name} in a template", "put a parameter, computed value or {answer} into the question text",
     "\"Find {a} × {b}.\""),
    ("computed_values", "a value worked out from the parameters, usable in formulas and templates",
     "perimeter: \"2 * (length + width)\""),
    ("constraints", "what the parameters must satisfy at one difficulty level", "[\"a > b\", \"a % b == 0\"]"),
    ("conditional", "one value or another", "\"'more' if a > b else 'less'\""),
    ("f-text", "text with values in it, formatted", "\"f'{a:.2f} cm'\""),
]


def _result(example: str) -> str:
    try:
        return repr(safe_eval(example))
    except FormulaError as exc:
        return f"(fails: {exc.message})"


def function_rows() -> list[dict]:
    """One row per function formulas may call: group, call, what it does, an example and its result."""
    rows = []
    for name in FUNCTIONS:
        group, what, example = DESCRIPTIONS.get(name, ("Other", "not described yet", ""))
        rows.append({"group": group, "function": name, "what it does": what, "example": example,
                     "gives": _result(example) if example else ""})
    rows.sort(key=lambda r: (r["group"], r["function"].lower()))
    return rows


def parameter_rows() -> list[dict]:
    """One row per kind of parameter the skill model accepts, with an example that the model accepts."""
    kinds = typing.get_args(ParameterSpec.model_fields["type"].annotation)
    rows = []
    for kind in kinds:
        what, example = PARAMETER_EXAMPLES.get(kind, ("not described yet", ""))
        rows.append({"kind": kind, "what it gives": what, "example": f"name: {example}" if example else ""})
    return rows


def example_parameter(kind: str) -> ParameterSpec:
    """The reference's example of a kind of parameter, read by the skill model (for the tests)."""
    return ParameterSpec.model_validate(yaml.safe_load(PARAMETER_EXAMPLES[kind][1]))


def syntax_rows() -> list[dict]:
    return [{"write": w, "what it does": what, "example": ex} for w, what, ex in OTHER_SYNTAX]
