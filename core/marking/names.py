"""The names an answer may use, and how a typed name is read.

Functions come from one whitelist (with the spellings schools use: cosec,
arcsin, sin^-1 ...), constants are pi, e and %i, and every other name must
be a variable the question declares. A run of letters that is not a name is
never silently split into letters: it is read as a product of declared
variables only when it is exactly that (and the preview says so), and
otherwise refused with a suggestion ("sinx: did you mean sin(x)?").
"""
from __future__ import annotations

import re
from typing import Optional

# Spelling a student may type -> the function it means.
FUNCTIONS = {
    "sin": "sin", "cos": "cos", "tan": "tan", "sec": "sec", "csc": "csc", "cosec": "csc", "cot": "cot",
    "asin": "asin", "arcsin": "asin", "acos": "acos", "arccos": "acos", "atan": "atan", "arctan": "atan",
    "asec": "asec", "arcsec": "asec", "acsc": "acsc", "arccsc": "acsc", "arccosec": "acsc", "acot": "acot",
    "arccot": "acot",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "sech": "sech", "csch": "csch", "cosech": "csch",
    "coth": "coth", "asinh": "asinh", "arsinh": "asinh", "arcsinh": "asinh", "acosh": "acosh",
    "arcosh": "acosh", "arccosh": "acosh", "atanh": "atanh", "artanh": "atanh", "arctanh": "atanh",
    "exp": "exp", "ln": "ln", "log": "log", "lg": "log", "log10": "log", "sqrt": "sqrt", "abs": "abs",
    "binomial": "binomial", "nCr": "binomial",
}
# sin^-1(x) is how schools write arcsin(x).
INVERSES = {"sin": "asin", "cos": "acos", "tan": "atan", "sec": "asec", "csc": "acsc", "cot": "acot",
            "sinh": "asinh", "cosh": "acosh", "tanh": "atanh"}
CONSTANTS = {"pi": "pi", "%pi": "pi", "e": "e", "%e": "e", "%i": "i"}
GREEK = ("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron rho sigma tau "
         "upsilon phi chi psi omega").split()
GREEK_LETTERS = dict(zip("αβγδεζηθικλμνξορστυφχψω", ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta",
                                                       "theta", "iota", "kappa", "lambda", "mu", "nu", "xi",
                                                       "omicron", "rho", "sigma", "tau", "upsilon", "phi", "chi",
                                                       "psi", "omega"]))
GREEK_LETTERS.update({"ς": "sigma", "Δ": "Delta", "Θ": "Theta", "Λ": "Lambda", "Σ": "Sigma", "Φ": "Phi",
                      "Ψ": "Psi", "Ω": "Omega", "Γ": "Gamma"})
_GREEK_NAMES = set(GREEK) | {g.capitalize() for g in GREEK}
RESERVED = {"or", "and"}
_LOG_BASE = re.compile(r"log_?([0-9]+|[A-Za-z])")
_ATOM = re.compile(r"[A-Za-z]+(?:_?[0-9]+|_[A-Za-z0-9]+)|[A-Za-z]+\[[0-9A-Za-z]+\]")


class NameProblem(Exception):
    """A name that is neither a declared variable, a function nor a constant; the message says what to write."""


def log_base(name: str) -> Optional[str]:
    """'log_2' or 'log2' -> '2' (the base as written); None for any other name."""
    m = _LOG_BASE.fullmatch(name)
    if m is None or name in ("log10",):
        return None
    return m.group(1)


def is_atom(name: str) -> bool:
    """A name that is one variable whatever it is made of: Greek letters and subscripted names (x1, x_1, x[1])."""
    return name in _GREEK_NAMES or _ATOM.fullmatch(name) is not None


def is_greek(name: str) -> bool:
    return name in _GREEK_NAMES


def split_product(name: str, known: frozenset[str]) -> Optional[list[str]]:
    """'xy' -> ['x', 'y'] when it is exactly a product of known names (longest names first); else None."""
    best: dict[int, Optional[list[str]]] = {len(name): []}
    for i in range(len(name) - 1, -1, -1):
        found = None
        for j in range(len(name), i, -1):
            piece = name[i:j]
            if (piece in known or piece == "pi") and best.get(j) is not None:
                found = [piece] + best[j]
                break
        best[i] = found
    parts = best[0]
    return parts if parts and len(parts) > 1 else None


def key_split(name: str) -> list[str]:
    """How a multi-letter name in an answer key is read: 'xy' is x times y, 'pir' is pi times r."""
    if is_atom(name) or name in CONSTANTS:
        return [name]
    parts, i = [], 0
    while i < len(name):
        if name.startswith("pi", i):
            parts.append("pi")
            i += 2
        else:
            parts.append(name[i])
            i += 1
    return parts


def unknown_name_message(name: str, known: frozenset[str], followed_by_bracket: bool) -> str:
    """Why a name cannot be read, with what the student probably meant."""
    for spelling in sorted(FUNCTIONS, key=len, reverse=True):
        rest = name[len(spelling):]
        if name.startswith(spelling) and rest:
            return f"'{name}': did you mean {spelling}({rest})?"
    if followed_by_bracket and len(name) > 1:
        return f"'{name}' is not a function this answer box knows; write a product with *, e.g. {'*'.join(name)}."
    swapped = name.swapcase()
    if swapped in known:
        return f"'{name}' is not used in this question, but '{swapped}' is: capital and small letters differ."
    m = re.fullmatch(r"([A-Za-z])([0-9]+)", name)
    if m:
        return f"'{name}': did you mean {m.group(1)}^{m.group(2)} or {m.group(2)}{m.group(1)}?"
    if known:
        return (f"'{name}' is not a name used in this question (it uses {', '.join(sorted(known))}); "
                f"write a product with *, e.g. {'*'.join(name)}.")
    return f"'{name}' is not a name this answer box knows; write a product with *, e.g. {'*'.join(name)}."
