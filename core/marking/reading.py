"""Reading a student's answer as text.

Only plain data types are read; the cleaning every method applies before it
reads (Unicode forms, superscripts, one kind of minus, LaTeX) lives here too.
"""
from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from fractions import Fraction
from typing import Any, Optional

from core.marking.limits import MAX_ANSWER_CHARS

TOO_LONG = "The answer is too long (over 1,000 characters)."
NOT_TEXT = "The answer is not text."


def _answer_text(answer: Any) -> tuple[str, Optional[str]]:
    """(text, refusal). Only plain data types are read; anything else is refused unread."""
    if answer is None:
        return "", None
    if isinstance(answer, bool):
        return "", NOT_TEXT
    if isinstance(answer, (bytes, bytearray, memoryview)):
        size = answer.nbytes if isinstance(answer, memoryview) else len(answer)
        if size > MAX_ANSWER_CHARS * 4:
            return "", TOO_LONG
        try:
            answer = bytes(answer).decode("utf-8")
        except UnicodeDecodeError:
            return "", "The answer is not text (it is not valid UTF-8)."
    elif isinstance(answer, int):
        if answer.bit_length() > 3400:
            return "", TOO_LONG
        answer = int.__repr__(answer)
    elif isinstance(answer, float):
        answer = float.__repr__(answer)
    elif isinstance(answer, Fraction):
        if max(answer.numerator.bit_length(), answer.denominator.bit_length()) > 3400:
            return "", TOO_LONG
        answer = f"{answer.numerator}/{answer.denominator}" if answer.denominator != 1 else str(answer.numerator)
    elif isinstance(answer, Decimal):
        answer = str(answer)
    elif isinstance(answer, str):
        # A str subclass could override methods; work on a plain copy.
        answer = str.__str__(answer)
    else:
        return "", NOT_TEXT
    if len(answer) > MAX_ANSWER_CHARS:
        return "", TOO_LONG
    try:
        answer.encode("utf-8")
    except UnicodeEncodeError:
        return "", "The answer is not text (it holds invalid characters)."
    return answer, None


_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPERSCRIPT_RUN = re.compile("[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_DASHES = {ord(c): "-" for c in "\u2212\u2010\u2011\u2012\u2013\ufe63\uff0d"}
_DASHES.update({ord("\u2044"): "/", ord("\u2215"): "/"})


# Vulgar fractions (½, ¾, ⅞ ...): NFKC makes "2½" into "21⁄2", twenty-one halves. A digit before one makes a mixed
# number ("2 1/2", as students write it by hand); anywhere else it is a bracketed fraction ("½x" is (1/2)x).
# Looked for where Unicode keeps them (¼ ½ ¾ in Latin-1, the rest among the Number Forms), not across every
# character: marking is imported by every process that starts.
_VULGAR = "".join(chr(c) for c in [*range(0xBC, 0xBF), *range(0x2150, 0x2190)]
                  if unicodedata.decomposition(chr(c)).startswith("<fraction>")
                  and all(unicodedata.normalize("NFKC", chr(c)).split("\u2044")))   # not ⅟, a numerator alone
_VULGAR_AFTER = re.compile(f"(?:(\\d)\\s*)?([{_VULGAR}])")


def _vulgar(m: "re.Match[str]") -> str:
    top, bottom = unicodedata.normalize("NFKC", m.group(2)).split("\u2044")
    return f"{m.group(1)} {top}/{bottom}" if m.group(1) else f"({top}/{bottom})"


def _clean(text: str) -> str:
    """NFKC, one kind of minus, single spaces; superscripts become ^(...) first (NFKC would turn x² into x2), and
    vulgar fractions written out (2½ is 2 1/2)."""
    text = _SUPERSCRIPT_RUN.sub(lambda m: "^(" + m.group().translate(_SUPERSCRIPTS) + ")", text)
    text = _VULGAR_AFTER.sub(_vulgar, text)
    text = unicodedata.normalize("NFKC", text).translate(_DASHES)
    return " ".join(text.split())


def _norm_text(text: str, keep_case: bool = False) -> str:
    """Text as compared: NFKC, single spaces, no trailing full stop, and case-folded unless keep_case
    (exact matches keep case: Na is not NA)."""
    text = unicodedata.normalize("NFKC", text).translate(_DASHES)
    if not keep_case:
        text = text.casefold()
    text = " ".join(text.split())
    if text.endswith("."):
        text = text[:-1].rstrip()
    return text


_LATEX_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_LATEX_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_LATEX_TEXT = re.compile(r"\\(?:text|mathrm|mathit|operatorname|mbox)\s*\{([^{}]*)\}")
_LATEX_POWER = re.compile(r"\^\s*\{([^{}]*)\}")
_LATEX_SYMBOLS = [("\\left", ""), ("\\right", ""), ("\\times", "×"), ("\\cdot", "·"), ("\\div", "÷"),
                  ("\\pi", " pi "), ("\\%", "%"), ("\\,", " "), ("\\;", " "), ("\\:", " "), ("\\!", ""),
                  ("\\ ", " "), ("^\\circ", "°"), ("\\circ", "°"), ("\\degree", "°")]
_LATEX_FUNCTIONS = [("\\" + f, " " + f + " ") for f in ("sqrt", "sin", "cos", "tan", "exp", "log", "ln")]


def _delatex(text: str) -> str:
    r"""\frac{a}{b} -> ((a)/(b)), \sqrt{x} -> sqrt(x), ^{n} -> ^(n), innermost first."""
    if "\\" not in text and "$" not in text and "{" not in text:
        return text
    text = text.replace("$", "")
    for a, b in _LATEX_SYMBOLS:
        text = text.replace(a, b)
    for _ in range(60):
        new = _LATEX_FRAC.sub(r"((\1)/(\2))", text)
        new = _LATEX_SQRT.sub(r"sqrt(\1)", new)
        new = _LATEX_TEXT.sub(r" \1", new)
        new = _LATEX_POWER.sub(r"^(\1)", new)
        if new == text:
            break
        text = new
    # Bare function names last, so "\sqrt{" above is not split first.
    for a, b in _LATEX_FUNCTIONS:
        text = text.replace(a, b)
    return " ".join(text.split())
