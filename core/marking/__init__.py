"""Marking one student answer against one question.

``mark_answer(spec, answer)`` reads what a student typed (or picked), decides
whether it is right under the question's evaluation method and says why in
one sentence. When it is wrong it tries to name the misconception that
produces exactly that wrong answer, and turns the question's marking criteria
into partial marks and gap tags (the SG_DiagnoseAndPatch step of the design).

Student text is hostile input and is never evaluated. Numbers are read with
anchored regular expressions; expressions go through a whitelist tokeniser
and a small parser written here, so sympy only ever sees trees this module
built. Every size that could make reading or algebra slow (text length,
bracket depth, exponents, degree, expansion size) is bounded before any work
is done, which is what keeps ``mark_answer`` from hanging.
"""
from __future__ import annotations

import cmath
import dataclasses
import functools
import ipaddress
import math
import random
import re
import unicodedata
from decimal import Decimal
from fractions import Fraction
from typing import Any, Callable, Optional, Union

__all__ = ["METHODS", "MarkingSpec", "MarkingSpecError", "CriterionVerdict", "MarkResult", "mark_answer",
           "gap_tags_from_blueprint"]

METHODS = ("mcq", "exact_match", "numeric_tolerance", "algebraic_equivalence", "short_text", "ip_address", "cidr")
FORMS = ("any", "simplified", "factorised", "expanded")

MAX_ANSWER_CHARS = 1000
MAX_NUMBER_CHARS = 120          # longer than any number a student writes; keeps the regexes linear-ish
MAX_NUMBER_DIGITS = 100
MAX_DECIMAL_EXPONENT = 400      # 1e999999 must not become a million-digit integer
MAX_EXPRESSION_CHARS = 200
MAX_NESTING = 20
MAX_PARSE_DEPTH = 60            # signs, functions and brackets together
MAX_EXPONENT = 20               # on anything containing a sum: (x+1)^20 is the most expand may meet
MAX_LETTER_EXPONENT = 100       # on a single letter or monomial x^36 costs nothing and is a common wrong answer
MAX_DEGREE = 400                # (x^20)^20 is fine, ((x^20)^20)^20 is not
MAX_EXPAND_TERMS = 2000         # above this sympy.expand could take seconds; numeric checks decide alone
MAX_FACTOR_DEGREE = 12
DEFAULT_RELATIVE_TOLERANCE = 0.02   # the design's "numeric tolerance ±2%"

TOO_LONG = "The answer is too long (over 1,000 characters)."
NOT_TEXT = "The answer is not text."
NO_ANSWER = "No answer given."
INTERNAL_ERROR = "The answer could not be marked; please tell your teacher."
NOT_SIMPLEST = "Not in its simplest form."
NOT_FACTORISED = "Equivalent, but not factorised."
NOT_FULLY_FACTORISED = "Equivalent, but not fully factorised."
NOT_EXPANDED = "Equivalent, but not expanded."
LIKE_TERMS = "Equivalent, but like terms have not been collected."

# A failed form or significant-figures check costs the criterion that carries
# the final "communication" mark; these tags name it, else the last criterion.
FINAL_MARK_TAGS = ("communication", "units", "unit", "form", "significant_figures", "rounding", "notation")


class MarkingSpecError(ValueError):
    """A question cannot be marked as specified (a teacher's or generator's error, not a student's)."""


class _Refused(Exception):
    """The answer cannot be read at all (hostile, out of bounds)."""


class _Unreadable(Exception):
    """The answer is ordinary text that is not a well-formed answer of the expected kind."""


# --------------------------------------------------------------------------
# Public data


@dataclasses.dataclass
class MarkingSpec:
    """Everything marking needs about one question, and no more."""

    method: str
    key: str
    answer_type: str = "string"
    options: list[str] = dataclasses.field(default_factory=list)
    correct_index: Optional[int] = None
    tolerance_relative: Optional[float] = None
    tolerance_absolute: Optional[float] = None
    significant_figures: Optional[int] = None
    required_form: str = "any"
    accepted_answers: list[str] = dataclasses.field(default_factory=list)
    keywords: list[str] = dataclasses.field(default_factory=list)
    min_keywords: Optional[int] = None
    marks: int = 1
    criteria: list[dict] = dataclasses.field(default_factory=list)
    partial_credit: bool = False
    misconceptions: dict[str, str] = dataclasses.field(default_factory=dict)
    misconception_tags: dict[str, str] = dataclasses.field(default_factory=dict)
    units: Optional[str] = None

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise MarkingSpecError(f"unknown marking method '{self.method}'; expected one of {', '.join(METHODS)}")
        if self.required_form not in FORMS:
            raise MarkingSpecError(f"unknown required_form '{self.required_form}'; expected one of {', '.join(FORMS)}")
        self.key = "" if self.key is None else str(self.key)
        self.options = [str(o) for o in self.options or []]
        self.accepted_answers = [str(a) for a in self.accepted_answers or [] if a is not None]
        self.keywords = [str(k) for k in self.keywords or [] if str(k).strip()]
        self.misconceptions = {str(k): str(v) for k, v in (self.misconceptions or {}).items() if v is not None}
        self.misconception_tags = {str(k): str(v) for k, v in (self.misconception_tags or {}).items() if v}
        self.criteria = [_criterion_dict(c) for c in self.criteria or []]
        if not isinstance(self.marks, int) or isinstance(self.marks, bool) or self.marks < 0:
            raise MarkingSpecError(f"marks must be a whole number of at least 0, got {self.marks!r}")
        for name in ("tolerance_relative", "tolerance_absolute"):
            value = getattr(self, name)
            if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise MarkingSpecError(f"{name} must be a positive number, got {value!r}")
        if self.significant_figures is not None and not (isinstance(self.significant_figures, int)
                                                          and 1 <= self.significant_figures <= 15):
            raise MarkingSpecError(f"significant_figures must be a whole number from 1 to 15, got {self.significant_figures!r}")
        if self.min_keywords is not None and not (isinstance(self.min_keywords, int) and self.min_keywords >= 1):
            raise MarkingSpecError(f"min_keywords must be a whole number of at least 1, got {self.min_keywords!r}")
        if self.method == "mcq":
            if not self.options:
                raise MarkingSpecError("an mcq question needs its options")
            if not isinstance(self.correct_index, int) or not 0 <= self.correct_index < len(self.options):
                raise MarkingSpecError(f"correct_index {self.correct_index!r} does not name one of the {len(self.options)} options")
        elif self.method == "numeric_tolerance":
            if isinstance(_read_number(self.key, latex=True, roots=True), str):
                raise MarkingSpecError(f"the answer key '{self.key}' is not a number")
        elif self.method == "algebraic_equivalence":
            try:
                _parse_answer(self.key)
            except (_Refused, _Unreadable) as exc:
                raise MarkingSpecError(f"the answer key '{self.key}' is not a readable expression: {exc}") from None
        elif self.method == "ip_address":
            if _read_ipv4(self.key) is None:
                raise MarkingSpecError(f"the answer key '{self.key}' is not an IPv4 address")
        elif self.method == "cidr":
            if not isinstance(_read_cidr(self.key), ipaddress.IPv4Interface):
                raise MarkingSpecError(f"the answer key '{self.key}' is not an IPv4 network such as 10.0.0.0/8")
        elif self.method in ("exact_match", "short_text") and not (self.key.strip() or self.accepted_answers or self.keywords):
            raise MarkingSpecError("the question has no answer key, accepted answers or keywords")

    @property
    def max_score(self) -> int:
        return sum(c["marks"] for c in self.criteria) if self.criteria else self.marks

    @classmethod
    def from_item(cls, item: Any, blueprint: Any = None,
                  misconception_tags: Optional[dict[str, str]] = None) -> "MarkingSpec":
        """The marking spec of a generated Item (or a dict shaped like ``Item.to_dict()``).

        Items do not carry the distractors' gap tags; pass them, or the skill
        blueprint (its distractor strategies hold them), to get diagnoses with
        gap tags. A dict may also carry them under ``misconception_tags``.
        """
        d = item.to_dict() if hasattr(item, "to_dict") else dict(item)
        ev = d.get("evaluation") or {}
        scheme = d.get("marking_scheme") or {}
        tol = ev.get("tolerance") or {}
        options = [str(o) for o in d.get("options") or []]
        correct_index = d.get("correct_index")
        key = d.get("correct_answer")
        key = "" if key is None else str(key)
        method = ev.get("method") or "exact_match"
        if options and correct_index is not None:
            # The student picks one of the options whatever the blueprint's text method says.
            method = "mcq"
        elif method == "exact_match" and _read_ipv4(key) is not None:
            method = "ip_address"
        elif method == "exact_match" and "/" in key and isinstance(_read_cidr(key), ipaddress.IPv4Interface):
            method = "cidr"
        tags = dict(gap_tags_from_blueprint(blueprint)) if blueprint is not None else {}
        tags.update(d.get("misconception_tags") or {})
        tags.update(misconception_tags or {})
        criteria = scheme.get("criteria") or []
        accepted = list(d.get("accepted_answers") or [])
        accepted += [a for a in ev.get("accepted_answers") or [] if a not in accepted]
        return cls(method=method, key=key, answer_type=d.get("answer_type") or "string",
                   options=options, correct_index=correct_index if method == "mcq" else None,
                   tolerance_relative=tol.get("relative"), tolerance_absolute=tol.get("absolute"),
                   significant_figures=ev.get("significant_figures"),
                   required_form=ev.get("required_form") or "any",
                   accepted_answers=accepted, keywords=list(ev.get("keywords") or []),
                   min_keywords=ev.get("min_keywords"),
                   marks=int(d.get("marks") or scheme.get("total_marks") or 1),
                   criteria=list(criteria), partial_credit=bool(ev.get("partial_credit")),
                   misconceptions=dict(d.get("misconceptions") or {}), misconception_tags=tags,
                   units=d.get("units"))


def gap_tags_from_blueprint(blueprint: Any) -> dict[str, str]:
    """{distractor strategy type: gap tag} from a SkillBlueprint (or its dict form)."""
    if isinstance(blueprint, dict):
        strategies = (blueprint.get("presentation") or {}).get("distractor_strategies") or []
        pairs = [(s.get("type"), s.get("gap_tag")) for s in strategies]
    else:
        strategies = getattr(getattr(blueprint, "presentation", None), "distractor_strategies", None) or []
        pairs = [(s.type, s.gap_tag) for s in strategies]
    return {t: g for t, g in pairs if t and g}


def _criterion_dict(c: Any) -> dict:
    if hasattr(c, "model_dump"):
        c = c.model_dump()
    if not isinstance(c, dict):
        raise MarkingSpecError(f"a marking criterion must be a mapping with step and marks, got {c!r}")
    marks = c.get("marks", 1)
    if not isinstance(marks, int) or isinstance(marks, bool) or marks < 0:
        raise MarkingSpecError(f"criterion '{c.get('step')}' has marks {marks!r}; expected a whole number")
    return {"step": str(c.get("step") or ""), "marks": marks, "gap_tag": c.get("gap_tag") or None,
            "description": c.get("description")}


@dataclasses.dataclass
class CriterionVerdict:
    step: str
    marks: int
    awarded: int
    met: bool
    gap_tag: Optional[str]


@dataclasses.dataclass
class MarkResult:
    correct: bool
    score: float
    max_score: float
    method: str
    feedback: str
    normalised_answer: Optional[str]
    criteria: list[CriterionVerdict]
    gap_tags: list[str]
    misconception: Optional[str]
    refused: Optional[str] = None

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


# --------------------------------------------------------------------------
# Reading the answer as text


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


def _clean(text: str) -> str:
    """NFKC, one kind of minus, single spaces; superscripts become ^(...) first (NFKC would turn x² into x2)."""
    text = _SUPERSCRIPT_RUN.sub(lambda m: "^(" + m.group().translate(_SUPERSCRIPTS) + ")", text)
    text = unicodedata.normalize("NFKC", text).translate(_DASHES)
    return " ".join(text.split())


def _norm_text(text: str) -> str:
    """Text as compared for exact matches: NFKC, case-folded, single spaces, no trailing full stop."""
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).casefold()
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


def _shown_char(c: str) -> str:
    if c.isprintable() and not c.isspace():
        return f"'{c}'"
    return f"U+{ord(c):04X}"


# --------------------------------------------------------------------------
# Numbers


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


def _digits(text: str) -> str:
    return text.replace(",", "")


def _decimal(text: str) -> Fraction:
    text = _digits(text)
    return Fraction(text[:-1] if text.endswith(".") else text)


def _sig_figs(mantissa: str) -> tuple[int, int]:
    digits = _digits(mantissa).replace(".", "")
    stripped = digits.lstrip("0")
    if not stripped:
        return (1, 1)
    if "." in mantissa:
        return (len(stripped), len(stripped))
    # "1200" may be 2, 3 or 4 significant figures.
    return (len(stripped.rstrip("0")), len(stripped))


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
    sig_figs = fraction = exponent = None
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
        if exp_text is not None:
            exponent = int(exp_text)
            if abs(exponent) > MAX_DECIMAL_EXPONENT:
                return "That number is too large or too small to mark."
            value *= Fraction(10) ** exponent
            kind = "scientific"
        else:
            kind = "decimal" if "." in mant else "integer"
    if negative:
        value = -value
    unit = m["cur"] or (m["unit"].strip() if m["unit"] else None)
    return _Number(value, kind, sig_figs, fraction, unit, bool(m["pct"]), exponent)


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


# --------------------------------------------------------------------------
# Units


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


# --------------------------------------------------------------------------
# Expressions: whitelist tokeniser, parser to tuples, bounded evaluation


_FUNCS = frozenset({"sqrt", "sin", "cos", "tan", "exp", "log", "ln"})
_NAME_WORDS = ("sqrt", "sin", "cos", "tan", "exp", "log", "ln", "pi")
_NUM_TOKEN = re.compile(r"[0-9]+(?:\.[0-9]*)?|\.[0-9]+")
_EXPRESSION_CHARS = str.maketrans({"×": "*", "·": "*", "⋅": "*", "÷": "/", "√": " sqrt ", "π": " pi "})

Node = tuple


def _tokenise(text: str) -> list[tuple[str, Any]]:
    tokens: list[tuple[str, Any]] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c.isspace():
            i += 1
        elif c in "0123456789." :
            m = _NUM_TOKEN.match(text, i)
            if m is None:
                raise _Unreadable("A decimal point must be followed by digits.")
            tokens.append(("num", _decimal(m.group())))
            i = m.end()
        elif "a" <= c <= "z":
            word = next((w for w in _NAME_WORDS if text.startswith(w, i)), c)
            tokens.append(("name", word))
            i += len(word)
        elif c == "*" and text.startswith("**", i):
            tokens.append(("op", "^"))
            i += 2
        elif c in "+-*/^()":
            tokens.append(("op", c))
            i += 1
        else:
            raise _Refused(f"The character {_shown_char(c)} is not allowed in an expression.")
    return tokens


class _Parser:
    """Recursive descent over the tokens; depth is counted so nothing recurses unboundedly."""

    def __init__(self, tokens: list[tuple[str, Any]]):
        self.toks = tokens
        self.i = 0
        self.depth = 0
        self.brackets = 0

    def peek(self) -> Optional[tuple[str, Any]]:
        return self.toks[self.i] if self.i < len(self.toks) else None

    def take(self) -> tuple[str, Any]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    @staticmethod
    def is_op(tok: Optional[tuple[str, Any]], ops: str) -> bool:
        return tok is not None and tok[0] == "op" and tok[1] in ops

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_PARSE_DEPTH:
            raise _Refused("The expression is nested too deeply.")

    def parse(self) -> Node:
        if not self.toks:
            raise _Unreadable("No expression was found.")
        node = self.expr()
        tok = self.peek()
        if tok is not None:
            if self.is_op(tok, ")"):
                raise _Unreadable("There is a ')' without a matching '('.")
            raise _Unreadable(f"Unexpected '{tok[1]}' in the expression.")
        return node

    def expr(self) -> Node:
        terms = [self.term()]
        while self.is_op(self.peek(), "+-"):
            op = self.take()[1]
            t = self.term()
            terms.append(t if op == "+" else ("neg", t))
        return terms[0] if len(terms) == 1 else ("add", tuple(terms))

    def term(self) -> Node:
        num, den = [self.unary()], []
        while True:
            tok = self.peek()
            if self.is_op(tok, "*"):
                self.take()
                num.append(self.unary())
            elif self.is_op(tok, "/"):
                self.take()
                den.append(self.unary())
            elif tok is not None and (tok[0] == "name" or self.is_op(tok, "(")):
                num.append(self.power())        # implicit multiplication: 2x, 3(x+1), (x+1)(x-2), x y
            elif tok is not None and tok[0] == "num":
                raise _Unreadable("A number straight after a letter, bracket or number is ambiguous; use * or ^.")
            else:
                break
        if len(num) == 1 and not den:
            return num[0]
        return ("mul", tuple(num), tuple(den))

    def unary(self) -> Node:
        tok = self.peek()
        if self.is_op(tok, "+-"):
            self.take()
            self.deeper()
            inner = self.unary()
            self.depth -= 1
            return ("neg", inner) if tok[1] == "-" else inner
        return self.power()

    def power(self) -> Node:
        base = self.primary()
        if self.is_op(self.peek(), "^"):
            self.take()
            exponent = self.exponent()
            if self.is_op(self.peek(), "^"):
                raise _Refused("Powers of powers like 2^3^4 are not allowed; use brackets.")
            return ("pow", base, exponent)
        return base

    def exponent(self) -> Node:
        tok = self.peek()
        if self.is_op(tok, "+-"):
            self.take()
            self.deeper()
            inner = self.exponent()
            self.depth -= 1
            return ("neg", inner) if tok[1] == "-" else inner
        node = self.primary()
        if any(n[0] == "pow" for n in _walk(node)):
            raise _Refused("Powers inside powers are not allowed.")
        return node

    def primary(self) -> Node:
        tok = self.peek()
        if tok is None:
            raise _Unreadable("The expression ends too early.")
        self.take()
        kind, val = tok
        if kind == "num":
            return ("num", val)
        if kind == "name":
            if val in _FUNCS:
                if self.peek() is None:
                    raise _Unreadable(f"'{val}' needs something to act on.")
                self.deeper()
                # sin(x)^2 squares the sine; sqrt 2 and sqrt x take the next power.
                arg = self.primary() if self.is_op(self.peek(), "(") else self.power()
                self.depth -= 1
                return ("func", val, arg)
            if val in ("pi", "e"):
                return ("const", val)
            return ("var", val)
        if val == "(":
            self.brackets += 1
            if self.brackets > MAX_NESTING:
                raise _Refused(f"Brackets are nested more than {MAX_NESTING} deep.")
            self.deeper()
            inner = self.expr()
            if not self.is_op(self.peek(), ")"):
                raise _Unreadable("A closing bracket ')' is missing.")
            self.take()
            self.brackets -= 1
            self.depth -= 1
            return inner
        if val == ")":
            raise _Unreadable("There is a ')' without a matching '('.")
        raise _Unreadable(f"Unexpected '{val}' in the expression.")


def _children(node: Node) -> tuple:
    kind = node[0]
    if kind == "neg":
        return (node[1],)
    if kind == "add":
        return node[1]
    if kind == "mul":
        return node[1] + node[2]
    if kind == "pow":
        return (node[1], node[2])
    if kind == "func":
        return (node[2],)
    return ()


def _walk(node: Node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(_children(n))


def _has_vars(node: Node) -> bool:
    return any(n[0] == "var" for n in _walk(node))


def _variables(node: Node) -> set[str]:
    return {n[1] for n in _walk(node) if n[0] == "var"}


@functools.lru_cache(maxsize=512)
def _parse_expression(text: str) -> Node:
    """Student (or key) text -> expression tree, refusing anything outside the whitelist or the bounds."""
    if len(text.strip()) > MAX_EXPRESSION_CHARS:
        raise _Refused(f"The expression is too long (over {MAX_EXPRESSION_CHARS} characters).")
    s = _delatex(_clean(text)).lower().translate(_EXPRESSION_CHARS)
    node = _Parser(_tokenise(s)).parse()
    for n in _walk(node):
        if n[0] == "pow" and not _has_vars(n[2]):
            value = _const_value(n[2])
            monomial = _has_vars(n[1]) and not any(m[0] in ("add", "func") for m in _walk(n[1]))
            limit = MAX_LETTER_EXPONENT if monomial else MAX_EXPONENT
            if value is None or abs(value) > limit:
                raise _Refused(f"Powers larger than {limit} are not allowed here.")
    if _degree(node) > MAX_DEGREE:
        raise _Refused("The powers in the expression are too large.")
    return node


_FUNCTION_NAME = re.compile(r"\s*([A-Za-z])\s*\(\s*([A-Za-z])\s*\)\s*")


@functools.lru_cache(maxsize=512)
def _parse_answer(text: str) -> tuple:
    """An expression, or an equation (one '=').

    ('expr', node) | ('def', name, node) for 'y = 2x + 3' or 'f(x) = ...' |
    ('eq', left - right, left, right) for any other equation.
    """
    if len(text.strip()) > MAX_EXPRESSION_CHARS:
        raise _Refused(f"The expression is too long (over {MAX_EXPRESSION_CHARS} characters).")
    if "=" not in text:
        return ("expr", _parse_expression(text))
    if text.count("=") > 1:
        raise _Unreadable("Write at most one '=' sign.")
    left_text, right_text = text.split("=")
    if not left_text.strip() or not right_text.strip():
        raise _Unreadable("One side of the '=' is empty.")
    named = _FUNCTION_NAME.fullmatch(left_text)
    right = _parse_expression(right_text)
    if named:
        return ("def", f"{named.group(1).lower()}({named.group(2).lower()})", right)
    left = _parse_expression(left_text)
    if left[0] == "var" and left[1] not in _variables(right):
        return ("def", left[1], right)
    if right[0] == "var" and right[1] not in _variables(left):
        return ("def", right[1], left)
    return ("eq", ("add", (left, ("neg", right))), left, right)


def _const_value(node: Node) -> Optional[complex]:
    try:
        v = _ceval(node, {})
    except (ArithmeticError, ValueError, KeyError):
        return None
    return v if cmath.isfinite(v) else None


def _int_exponent(node: Node) -> Optional[int]:
    """The exponent as a whole number, when it is a written constant like 2 or -3."""
    if _has_vars(node):
        return None
    v = _const_value(node)
    if v is None or v.imag != 0 or not float(v.real).is_integer():
        return None
    return int(v.real)


def _degree(node: Node) -> int:
    kind = node[0]
    if kind == "var":
        return 1
    if kind == "neg":
        return _degree(node[1])
    if kind == "add":
        return max(_degree(t) for t in node[1])
    if kind == "mul":
        return min(sum(_degree(f) for f in node[1] + node[2]), 10 ** 6)
    if kind == "pow":
        v = _const_value(node[2]) if not _has_vars(node[2]) else None
        scale = math.ceil(abs(v)) if v is not None else 1
        return min(_degree(node[1]) * max(scale, 1) + (0 if v is not None else _degree(node[2])), 10 ** 6)
    if kind == "func":
        return _degree(node[2])
    return 0


_CFUNCS: dict[str, Callable[[complex], complex]] = {
    "sqrt": cmath.sqrt, "sin": cmath.sin, "cos": cmath.cos, "tan": cmath.tan,
    "exp": cmath.exp, "ln": cmath.log, "log": cmath.log10,
}
_HUGE = 1e150


def _ceval(node: Node, env: dict[str, complex]) -> complex:
    """Evaluate a tree in complex floats; raises ArithmeticError/ValueError where it is undefined or huge."""
    kind = node[0]
    if kind == "num":
        r = complex(float(node[1]))
    elif kind == "var":
        r = env[node[1]]
    elif kind == "const":
        r = complex(math.pi if node[1] == "pi" else math.e)
    elif kind == "neg":
        r = -_ceval(node[1], env)
    elif kind == "add":
        r = sum((_ceval(t, env) for t in node[1]), 0j)
    elif kind == "mul":
        r = 1 + 0j
        for f in node[1]:
            r *= _ceval(f, env)
        for f in node[2]:
            q = _ceval(f, env)
            if q == 0:
                raise ZeroDivisionError("division by zero")
            r /= q
    elif kind == "pow":
        base = _ceval(node[1], env)
        k = _int_exponent(node[2])
        if k is not None:
            if base == 0 and k < 0:
                raise ZeroDivisionError("zero to a negative power")
            r = base ** k
        else:
            e = _ceval(node[2], env)
            if base == 0:
                if e.real <= 0:
                    raise ZeroDivisionError("zero to a non-positive power")
                r = 0j
            else:
                if abs(e) * abs(cmath.log(base)) > 600:
                    raise OverflowError("power too large")
                r = base ** e
    elif kind == "func":
        arg = _ceval(node[2], env)
        if node[1] in ("ln", "log") and arg == 0:
            raise ValueError("log of zero")
        if node[1] == "exp" and arg.real > 600:
            raise OverflowError("exp too large")
        r = _CFUNCS[node[1]](arg)
    else:
        raise ValueError(f"unknown node {kind}")
    if not cmath.isfinite(r) or abs(r) > _HUGE:
        raise OverflowError("value too large")
    return r


# Sample points are fixed so marking is reproducible. They are positive reals:
# school algebra takes sqrt(x)*sqrt(y) = sqrt(xy), true only there.
_SAMPLE_RNG = random.Random(20240611)
_SAMPLES = [{chr(97 + j): complex(_SAMPLE_RNG.uniform(0.35, 2.65)) for j in range(26)} for _ in range(10)]


def _numeric_equal(a: Node, b: Node) -> Optional[bool]:
    ok = 0
    for env in _SAMPLES:
        try:
            va, vb = _ceval(a, env), _ceval(b, env)
        except (ArithmeticError, ValueError):
            continue
        ok += 1
        if abs(va - vb) > 1e-9 * max(1.0, abs(va), abs(vb)):
            return False
    return True if ok >= 4 else None


def _terms_bound(node: Node) -> int:
    """An upper bound on the number of terms after full expansion (saturating)."""
    cap = 10 ** 7
    kind = node[0]
    if kind == "neg":
        return _terms_bound(node[1])
    if kind == "add":
        return min(sum(_terms_bound(t) for t in node[1]), cap)
    if kind == "mul":
        r = 1
        for f in node[1]:
            r = min(r * _terms_bound(f), cap)
        return r
    if kind == "pow":
        k = _int_exponent(node[2])
        if k is not None and k >= 0:
            t = _terms_bound(node[1])
            if t >= cap:
                return cap
            return min(math.comb(t + k - 1, k) if k else 1, cap)
    return 1


def _is_polynomial(node: Node) -> bool:
    for n in _walk(node):
        if n[0] == "mul" and any(_has_vars(d) for d in n[2]):
            return False
        if n[0] == "pow" and _has_vars(n[1]):
            k = _int_exponent(n[2])
            if k is None or k < 0:
                return False
        if n[0] == "pow" and _has_vars(n[2]):
            return False
        if n[0] == "func" and _has_vars(n[2]):
            return False
    return True


@functools.lru_cache(maxsize=1)
def _sympy():
    # Imported on first algebraic marking: it costs about half a second.
    import sympy
    return sympy


@functools.lru_cache(maxsize=2048)
def _to_sympy(node: Node):
    sp = _sympy()
    kind = node[0]
    if kind == "num":
        return sp.Rational(node[1].numerator, node[1].denominator)
    if kind == "var":
        return sp.Symbol(node[1], positive=True)
    if kind == "const":
        return sp.pi if node[1] == "pi" else sp.E
    if kind == "neg":
        return -_to_sympy(node[1])
    if kind == "add":
        return sp.Add(*[_to_sympy(t) for t in node[1]])
    if kind == "mul":
        num = sp.Mul(*[_to_sympy(f) for f in node[1]])
        return num / sp.Mul(*[_to_sympy(f) for f in node[2]]) if node[2] else num
    if kind == "pow":
        return sp.Pow(_to_sympy(node[1]), _to_sympy(node[2]))
    if kind == "func":
        arg = _to_sympy(node[2])
        name = node[1]
        if name == "log":
            return sp.log(arg, 10)
        return {"sqrt": sp.sqrt, "sin": sp.sin, "cos": sp.cos, "tan": sp.tan, "exp": sp.exp, "ln": sp.log}[name](arg)
    raise ValueError(f"unknown node {kind}")


def _equivalent(a: Node, b: Node) -> Optional[bool]:
    """True/False, or None when neither an exact nor a numeric check could decide."""
    if (_is_polynomial(a) and _is_polynomial(b)
            and _terms_bound(a) + _terms_bound(b) <= MAX_EXPAND_TERMS):
        sp = _sympy()
        try:
            difference = sp.expand(_to_sympy(a) - _to_sympy(b))
            if difference == 0:
                return True
            # A non-zero difference with rational coefficients is a real difference, however
            # small (x + 10^-12 is not x); with constants such as sin(1) the numbers decide.
            if not difference.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
                symbols = sorted(difference.free_symbols, key=str)
                coeffs = sp.Poly(difference, *symbols).coeffs() if symbols else [difference]
                if all(c.is_Rational for c in coeffs):
                    return False
        except Exception:   # sympy's own failures only mean "not decided here"
            pass
    return _numeric_equal(a, b)


def _proportional(a: Node, b: Node) -> Optional[bool]:
    """Whether a = 0 and b = 0 are the same equation: a is a fixed non-zero multiple of b."""
    ratios = []
    for env in _SAMPLES:
        try:
            va, vb = _ceval(a, env), _ceval(b, env)
        except (ArithmeticError, ValueError, KeyError):
            continue
        if abs(vb) < 1e-12:
            if abs(va) > 1e-9:
                return False
            continue
        ratios.append(va / vb)
    if len(ratios) < 4:
        return None
    r0 = ratios[0]
    if abs(r0) < 1e-12:
        return False
    return all(abs(r - r0) <= 1e-9 * max(1.0, abs(r0)) for r in ratios)


def _difference(answer: tuple) -> Optional[Node]:
    if answer[0] == "eq":
        return answer[1]
    if answer[0] == "def" and len(answer[1]) == 1:
        return ("add", (("var", answer[1]), ("neg", answer[2])))
    return None


def _compare(student: tuple, key: tuple) -> Union[Optional[bool], str]:
    """True/False/None (undecided), or a sentence when the student's answer has the wrong shape."""
    s_main = student[-1] if student[0] != "eq" else None
    if key[0] == "expr":
        if s_main is None:
            return "Give an expression, not an equation."
        return _equivalent(s_main, key[1])
    if key[0] == "def" and student[0] != "eq":
        if student[0] == "def" and student[1] != key[1]:
            return f"The left-hand side should be {key[1]}."
        return _equivalent(s_main, key[2])
    ds, dk = _difference(student), _difference(key)
    if ds is None or dk is None:
        return False
    return _proportional(ds, dk)


def _answer_shape(answer: tuple) -> str:
    return _canon(answer[1]) if answer[0] == "eq" else _canon(answer[-1])


def _show_answer(answer: tuple) -> str:
    if answer[0] == "def":
        return f"{answer[1]} = {_show_expression(answer[2])}"
    if answer[0] == "eq":
        return f"{_show_expression(answer[2])} = {_show_expression(answer[3])}"
    return _show_expression(answer[1])


def _canon(node: Node) -> str:
    """Order-insensitive shape of an expression: 2(x^2 - 1) and (-1 + x^2)*2 match, 2x^2 - 2 does not."""
    kind = node[0]
    if kind == "num":
        return str(node[1])
    if kind in ("var", "const"):
        return node[1]
    if kind == "neg":
        return f"-({_canon(node[1])})"
    if kind == "add":
        return "add(" + ",".join(sorted(_canon(t) for t in node[1])) + ")"
    if kind == "mul":
        return ("mul(" + ",".join(sorted(_canon(f) for f in node[1])) + "/"
                + ",".join(sorted(_canon(f) for f in node[2])) + ")")
    if kind == "pow":
        return f"pow({_canon(node[1])},{_canon(node[2])})"
    return f"{node[1]}({_canon(node[2])})"


_PRECEDENCE = {"add": 1, "mul": 2, "neg": 3, "pow": 4}


def _show_expression(node: Node, outer: int = 0) -> str:
    """The tree as read, with implicit multiplication written out: '2(x^2-1)' -> '2*(x^2 - 1)'."""
    kind = node[0]
    if kind == "num":
        text = _show_number(node[1])
    elif kind in ("var", "const"):
        text = node[1]
    elif kind == "func":
        text = f"{node[1]}({_show_expression(node[2])})"
    elif kind == "neg":
        text = "-" + _show_expression(node[1], 3)
    elif kind == "add":
        text = _show_expression(node[1][0], 1)
        for t in node[1][1:]:
            text += f" - {_show_expression(t[1], 2)}" if t[0] == "neg" else f" + {_show_expression(t, 1)}"
    elif kind == "mul":
        text = "*".join(_show_expression(f, 2) for f in node[1])
        if len(node[2]) == 1:
            text += "/" + _show_expression(node[2][0], 3)
        elif node[2]:
            text += "/(" + "*".join(_show_expression(f, 2) for f in node[2]) + ")"
    else:
        text = _show_expression(node[1], 5) + "^" + _show_expression(node[2], 5)
    return f"({text})" if _PRECEDENCE.get(kind, 9) < outer else text


# ---- required forms


def _strip_neg(node: Node) -> Node:
    while node[0] == "neg":
        node = node[1]
    return node


def _literal(node: Node) -> Optional[Fraction]:
    sign = 1
    while node[0] == "neg":
        sign, node = -sign, node[1]
    return sign * node[1] if node[0] == "num" else None


def _like_terms(terms: tuple) -> bool:
    seen = set()
    for t in terms:
        _, rest = _to_sympy(t).as_coeff_Mul()
        if rest in seen:
            return True
        seen.add(rest)
    return False


def _square_factor(n: int) -> bool:
    k = 2
    while k * k <= n:
        if n % (k * k) == 0:
            return True
        k += 1
    return False


def _simplified_problem(root: Node) -> Optional[str]:
    """Why an expression is not in its simplest form: like terms, unmultiplied numbers, uncombined powers..."""
    for node in _walk(root):
        kind = node[0]
        if kind == "neg" and node[1][0] == "neg":
            return NOT_SIMPLEST
        if kind == "add":
            if any(_literal(t) == 0 for t in node[1]):
                return NOT_SIMPLEST
            if _like_terms(node[1]):
                return LIKE_TERMS
        elif kind == "mul":
            num = [v for v in map(_literal, node[1]) if v is not None]
            den = [v for v in map(_literal, node[2]) if v is not None]
            if len(num) > 1 or len(den) > 1 or (num and abs(num[0]) == 1 and len(node[1]) > 1):
                return NOT_SIMPLEST
            if den:
                top = num[0] if num else Fraction(1)
                if abs(den[0]) == 1 or (top.denominator == 1 and den[0].denominator == 1
                                        and math.gcd(top.numerator, den[0].numerator) > 1):
                    return NOT_SIMPLEST
            bases = []
            for f in node[1] + node[2]:
                f = _strip_neg(f)
                if f[0] == "var":
                    bases.append(f[1])
                elif f[0] == "pow" and f[1][0] == "var":
                    bases.append(f[1][1])
            if len(bases) != len(set(bases)):
                return NOT_SIMPLEST
        elif kind == "pow":
            base, k = _strip_neg(node[1]), _int_exponent(node[2])
            if k in (0, 1):
                return NOT_SIMPLEST
            if base[0] == "num" and k is not None:
                return NOT_SIMPLEST
            if base[0] in ("pow", "mul"):
                return NOT_SIMPLEST
        elif kind == "func" and node[1] == "sqrt":
            v = _literal(node[2])
            if v is not None and v.denominator == 1 and v >= 0 and (v <= 1 or _square_factor(int(v))):
                return NOT_SIMPLEST
    return None


def _expanded_problem(root: Node) -> Optional[str]:
    for node in _walk(root):
        kind = node[0]
        if kind == "mul" and any(_strip_neg(f)[0] == "add" for f in node[1]):
            return NOT_EXPANDED
        if kind == "pow" and _strip_neg(node[1])[0] == "add" and (_int_exponent(node[2]) or 0) >= 2:
            return NOT_EXPANDED
        if kind == "neg" and node[1][0] == "add":
            return NOT_EXPANDED
        if kind == "add" and any(_strip_neg(t)[0] == "add" for t in node[1]):
            return NOT_EXPANDED
    if root[0] == "add" and _like_terms(root[1]):
        return LIKE_TERMS
    return None


def _factorised_problem(root: Node, fully: bool = True) -> Optional[str]:
    """A product with at least two factors other than ±1, one of them not constant; 'fully' also
    needs every bracket irreducible with its common number factor taken out."""
    node = _strip_neg(root)
    if node[0] == "mul":
        parts = list(node[1])
    elif node[0] == "pow":
        parts = [node]
    else:
        return NOT_FACTORISED
    factors: list[tuple[Node, int]] = []
    for f in parts:
        f = _strip_neg(f)
        k = _int_exponent(f[2]) if f[0] == "pow" else None
        factors.append((f[1], k) if k is not None and k >= 1 else (f, 1))
    variable = [(f, m) for f, m in factors if _has_vars(f)]
    count = sum(m for _, m in variable)
    constant = any(not _has_vars(f) and _literal(f) not in (1, -1) for f, _ in factors)
    if count == 0 or (count == 1 and not constant):
        return NOT_FACTORISED
    if not fully:
        return None
    sp = _sympy()
    for f, _ in variable:
        f = _strip_neg(f)
        if f[0] != "add" or not _is_polynomial(f) or _degree(f) > MAX_FACTOR_DEGREE or _terms_bound(f) > 200:
            continue
        try:
            coeff, found = sp.factor_list(_to_sympy(f))
        except Exception:   # sympy refuses some coefficient domains; then the bracket is taken as it is
            continue
        if len(found) != 1 or found[0][1] != 1:
            return NOT_FULLY_FACTORISED
        if getattr(coeff, "is_Integer", False) and abs(coeff) != 1:
            return NOT_FULLY_FACTORISED
    return None


def _form_problem(form: str, student: Node, key: Node) -> Optional[str]:
    """Why the student's form is not the required one. A check the key itself fails is skipped:
    a student is never held to a stricter standard than the answer key shows."""
    if form == "factorised":
        key_problem = _factorised_problem(key)
        if key_problem == NOT_FACTORISED:
            return None
        return _factorised_problem(student, fully=key_problem is None)
    check = {"simplified": _simplified_problem, "expanded": _expanded_problem}.get(form)
    if check is None or check(key) is not None:
        return None
    return check(student)


# --------------------------------------------------------------------------
# IPv4


def _read_ipv4(text: str) -> Optional[ipaddress.IPv4Address]:
    s = "".join(unicodedata.normalize("NFKC", text).split())
    if s.endswith(".") and s.count(".") == 4:
        s = s[:-1]
    parts = s.split(".")
    if len(parts) != 4 or not all(re.fullmatch(r"[0-9]{1,3}", p) for p in parts):
        return None
    values = [int(p) for p in parts]    # int() drops leading zeros: 192.168.001.000 is 192.168.1.0
    if any(v > 255 for v in values):
        return None
    return ipaddress.IPv4Address(bytes(values))


def _mask_prefix(mask: ipaddress.IPv4Address) -> Optional[int]:
    m = int(mask)
    p = bin(m).count("1")
    return p if m == (0xFFFFFFFF << (32 - p)) & 0xFFFFFFFF else None


def _read_cidr(text: str) -> Union[ipaddress.IPv4Interface, str]:
    """'10.0.0.0/8', '10.0.0.0 /8', '10.0.0.0 255.0.0.0' or '10.0.0.0/255.0.0.0'; else a reason."""
    s = " ".join(unicodedata.normalize("NFKC", text).split())
    if s.endswith(".") and s.count(".") in (4, 7):
        s = s[:-1]
    if "/" in s:
        address, _, rest = s.partition("/")
        rest = rest.strip()
    else:
        parts = s.split(" ")
        if len(parts) != 2:
            return "Write the network as an address and prefix, such as 10.0.0.0/8."
        address, rest = parts
    ip = _read_ipv4(address)
    if ip is None:
        return "The address part is not a valid IPv4 address."
    if re.fullmatch(r"[0-9]{1,2}", rest):
        prefix = int(rest)
        if prefix > 32:
            return "A prefix length must be from 0 to 32."
    else:
        mask = _read_ipv4(rest)
        if mask is None:
            return "Write the network as an address and prefix, such as 10.0.0.0/8."
        prefix = _mask_prefix(mask)
        if prefix is None:
            return "That is not a valid subnet mask."
    return ipaddress.IPv4Interface((int(ip), prefix))


# --------------------------------------------------------------------------
# Marking by method


@dataclasses.dataclass
class _Outcome:
    correct: bool
    feedback: str
    normalised: Optional[str] = None
    form_failure: bool = False          # right value, wrong form or s.f.: costs the final mark only
    misconception: Optional[str] = None
    refused: Optional[str] = None
    earned: Optional[Fraction] = None   # share of the marks earned (keyword partial credit)


def _exact_number(text: str) -> Optional[_Number]:
    n = _read_number(text, latex=False, roots=False, units=False)
    return n if isinstance(n, _Number) else None


def _same_exact(answer_norm: str, answer_num: Optional[_Number], other: str) -> bool:
    if answer_norm == _norm_text(other):
        return True
    other_num = _exact_number(other) if answer_num is not None else None
    return (other_num is not None and answer_num.percent == other_num.percent
            and answer_num.value == other_num.value)


def _fraction_form_problem(a: _Number, key: Optional[_Number]) -> Optional[str]:
    if a.kind in ("fraction", "mixed"):
        if a.fraction is None:
            return NOT_SIMPLEST
        num, den, proper = a.fraction
        if den == 1 or math.gcd(num, den) != 1 or not proper:
            return NOT_SIMPLEST
        return None
    if key is not None and key.kind in ("fraction", "mixed") and a.kind in ("decimal", "scientific"):
        return "Equivalent, but give the answer as a fraction."
    return None


def _mark_exact(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    answer = _norm_text(text)
    number = _exact_number(text)
    shown = _show_number(number.value) if number is not None else answer
    keys = [k for k in [spec.key] + spec.accepted_answers if k.strip()]
    if any(answer == _norm_text(k) for k in keys):
        return _Outcome(True, "Correct.", shown)
    problem = None
    if number is not None:
        for k in keys:
            k_num = _exact_number(k)
            if k_num is None or k_num.percent != number.percent or k_num.value != number.value:
                continue
            if spec.required_form != "simplified" or _fraction_form_problem(k_num, None) is not None:
                return _Outcome(True, "Correct.", shown)
            found = _fraction_form_problem(number, k_num)
            if found is None:
                return _Outcome(True, "Correct.", shown)
            problem = problem or found
    if problem:
        return _Outcome(False, problem, shown, form_failure=True)
    for stype, wrong in spec.misconceptions.items():
        if _same_exact(answer, number, wrong):
            return _Outcome(False, "Not the correct answer.", shown, misconception=stype)
    return _Outcome(False, "Not the correct answer.", shown)


def _tolerances(spec: MarkingSpec) -> tuple[Optional[Fraction], Optional[Fraction]]:
    rel, ab = spec.tolerance_relative, spec.tolerance_absolute
    if rel is None and ab is None:
        rel = DEFAULT_RELATIVE_TOLERANCE
    # str() first: Fraction(0.02) would be the binary float, a hair off 2/100.
    return (Fraction(str(rel)) if rel is not None else None, Fraction(str(ab)) if ab is not None else None)


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


def _tolerance_text(rel: Optional[Fraction], ab: Optional[Fraction], unit: Optional[str]) -> str:
    parts = []
    if rel is not None:
        parts.append(f"{_show_number(rel * 100)}%")
    if ab is not None:
        parts.append(f"±{_show_number(ab)}" + (f" {unit}" if unit and unit not in "£$€¥" else ""))
    return " or ".join(parts)


def _sig_figs_ok(n: _Number, wanted: int) -> bool:
    return n.sig_figs is not None and n.sig_figs[0] <= wanted <= n.sig_figs[1]


def _mark_numeric(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    key = _read_number(spec.key, latex=True, roots=True)
    if isinstance(key, str):
        raise MarkingSpecError(f"the answer key '{spec.key}' is not a number")
    scale, unit = _spec_units(spec.units)
    percent_ok = key.percent or bool(unit and "%" in unit)
    a = _read_number(text, latex=True, roots=True)
    if isinstance(a, str):
        return _Outcome(False, a)
    if a.percent and not percent_ok:
        return _Outcome(False, "Give the answer as a number, not a percentage.", _show_number(a.value))
    rel, ab = _tolerances(spec)
    value = a.value
    ok = _within(value, key.value, rel, ab)
    if not ok and scale is not None and a.exponent is not None:
        # Asked for in units of 10^-19 J but written out in full as 2.45 × 10^-19 J.
        scaled = value / Fraction(10) ** scale if isinstance(value, Fraction) else value / 10.0 ** scale
        if _within(scaled, key.value, rel, ab):
            ok, value = True, scaled
    shown = _show_number(value)
    wrong_unit = bool(unit and a.unit and _unit_key(a.unit) != _unit_key(unit))
    if ok:
        wanted = spec.significant_figures
        # As with forms, a key that is not itself to that many s.f. does not hold students to it.
        if wanted and _sig_figs_ok(key, wanted) and not _sig_figs_ok(a, wanted):
            return _Outcome(False, f"Within tolerance, but not given to {wanted} significant figures.", shown,
                            form_failure=True)
        return _Outcome(True, f"Correct, but the unit should be {unit}." if wrong_unit else "Correct.", shown)
    best, best_distance = None, math.inf
    for stype, wrong in spec.misconceptions.items():
        m = _read_number(wrong, latex=True, roots=True)
        if isinstance(m, _Number) and _within(value, m.value, rel, ab):
            d = _distance(value, m.value)
            if d < best_distance:
                best, best_distance = stype, d
    feedback = f"Outside the allowed tolerance of {_tolerance_text(rel, ab, unit)}"
    feedback += f", and the unit should be {unit}." if wrong_unit else "."
    return _Outcome(False, feedback, shown, misconception=best)


def _mark_algebraic(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    try:
        student = _parse_answer(text)
    except _Refused as exc:
        return _Outcome(False, str(exc), refused=str(exc))
    except _Unreadable as exc:
        return _Outcome(False, str(exc))
    shown = _show_answer(student)
    keys = [_parse_answer(spec.key)]
    for accepted in spec.accepted_answers:
        try:
            keys.append(_parse_answer(accepted))
        except (_Refused, _Unreadable):
            continue
    problem = shape_message = None
    undecided = False
    for key in keys:
        same = _compare(student, key)
        if isinstance(same, str):
            shape_message = shape_message or same
        elif same is None:
            undecided = True
        elif same:
            found = None
            if student[0] != "eq" and key[0] != "eq":
                found = _form_problem(spec.required_form, student[-1], key[-1])
            if found is None:
                return _Outcome(True, "Correct.", shown)
            problem = problem or found
    shape = _answer_shape(student)
    wrongs = []
    for stype, wrong in spec.misconceptions.items():
        try:
            wrongs.append((stype, _parse_answer(wrong)))
        except (_Refused, _Unreadable):
            continue
    if problem:
        # Right value, wrong form: only a misconception of the same written shape explains it.
        stype = next((t for t, m in wrongs if _answer_shape(m) == shape), None)
        return _Outcome(False, problem, shown, form_failure=True, misconception=stype)
    for stype, m in wrongs:
        # A misconception equivalent to the key is about form and is matched by shape only.
        if _answer_shape(m) == shape or (_compare(m, keys[0]) is not True and _compare(student, m) is True):
            return _Outcome(False, shape_message or "Not equivalent to the correct answer.", shown, misconception=stype)
    if shape_message:
        return _Outcome(False, shape_message, shown)
    if undecided:
        return _Outcome(False, "This expression could not be checked against the answer.", shown)
    return _Outcome(False, "Not equivalent to the correct answer.", shown)


def _keyword_pattern(keyword: str) -> re.Pattern:
    words = _norm_text(keyword).split()
    last = words[-1]
    stem = last[:-1] if last.endswith("s") and len(last) > 3 else last
    body = r"\s+".join(re.escape(w) for w in words[:-1] + [stem])
    return re.compile(r"(?<!\w)" + body + r"(?:s|es)?(?!\w)")


def _compact(text: str) -> str:
    """Spacing a student may vary without changing the answer ("x=2, y=-8" and "x = 2, y = -8")."""
    return re.sub(r"\s+", "", text)


def _mark_short_text(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    answer = _norm_text(text)
    keys = [k for k in [spec.key] + spec.accepted_answers if k.strip()]
    if any(answer == _norm_text(k) or _compact(answer) == _compact(_norm_text(k)) for k in keys):
        return _Outcome(True, "Correct.", answer)
    for stype, wrong in spec.misconceptions.items():
        if answer == _norm_text(wrong) or _compact(answer) == _compact(_norm_text(wrong)):
            return _Outcome(False, "Not the correct answer.", answer, misconception=stype)
    if not spec.keywords:
        return _Outcome(False, "Not the correct answer.", answer)
    need = min(spec.min_keywords or len(spec.keywords), len(spec.keywords))
    found = sum(1 for k in spec.keywords if _keyword_pattern(k).search(answer))
    if found >= need:
        return _Outcome(True, "Correct.", answer)
    return _Outcome(False, f"Your answer makes {found} of the {need} key points needed.", answer,
                    earned=Fraction(found, need))


def _mark_ip(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    address = _read_ipv4(text)
    if address is None:
        return _Outcome(False, "That is not a valid IPv4 address.")
    if address == _read_ipv4(spec.key) or any(address == _read_ipv4(k) for k in spec.accepted_answers):
        return _Outcome(True, "Correct.", str(address))
    for stype, wrong in spec.misconceptions.items():
        if address == _read_ipv4(wrong):
            return _Outcome(False, "Not the correct address.", str(address), misconception=stype)
    return _Outcome(False, "Not the correct address.", str(address))


def _mark_cidr(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    network = _read_cidr(text)
    if isinstance(network, str):
        return _Outcome(False, network)
    key = _read_cidr(spec.key)
    if network == key or any(network == _read_cidr(k) for k in spec.accepted_answers):
        return _Outcome(True, "Correct.", str(network))
    for stype, wrong in spec.misconceptions.items():
        if network == _read_cidr(wrong):
            return _Outcome(False, "Not the correct network.", str(network), misconception=stype)
    if isinstance(key, ipaddress.IPv4Interface) and network.ip == key.ip:
        return _Outcome(False, "The address is right but the prefix length is not.", str(network))
    return _Outcome(False, "Not the correct network.", str(network))


def _mcq_choice(spec: MarkingSpec, text: str, raw: Any) -> Optional[int]:
    n = len(spec.options)
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw if 0 <= raw < n else None
    answer = _norm_text(text)
    # Option text first: with options "a".."d" or "0".."3" the student typed an option.
    for i, option in enumerate(spec.options):
        if answer == _norm_text(option):
            return i
    m = re.fullmatch(r"\(?\s*([a-z])\s*[).:]?", answer)
    if m and ord(m.group(1)) - 97 < n:
        return ord(m.group(1)) - 97
    if re.fullmatch(r"[0-9]{1,3}", answer):
        index = int(answer)
        return index if index < n else None
    number = _exact_number(text)
    if number is not None:
        for i, option in enumerate(spec.options):
            o = _exact_number(option)
            if o is not None and o.value == number.value and o.percent == number.percent:
                return i
    return None


def _mark_mcq(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    choice = _mcq_choice(spec, text, raw)
    if choice is None:
        return _Outcome(False, "That is not one of the options.")
    picked = spec.options[choice]
    if choice == spec.correct_index:
        return _Outcome(True, "Correct.", picked)
    misconception = next((s for s, wrong in spec.misconceptions.items()
                          if _norm_text(wrong) == _norm_text(picked)), None)
    return _Outcome(False, "That is not the correct option.", picked, misconception=misconception)


_MARKERS: dict[str, Callable[[MarkingSpec, str, Any], _Outcome]] = {
    "mcq": _mark_mcq, "exact_match": _mark_exact, "numeric_tolerance": _mark_numeric,
    "algebraic_equivalence": _mark_algebraic, "short_text": _mark_short_text,
    "ip_address": _mark_ip, "cidr": _mark_cidr,
}


# --------------------------------------------------------------------------
# Marks and diagnosis


def _final_criterion(criteria: list[dict]) -> int:
    for i in range(len(criteria) - 1, -1, -1):
        if (criteria[i].get("gap_tag") or "") in FINAL_MARK_TAGS:
            return i
    return len(criteria) - 1


def _finish(spec: MarkingSpec, out: _Outcome) -> MarkResult:
    criteria = spec.criteria
    max_score = spec.max_score
    tag = spec.misconception_tags.get(out.misconception) if out.misconception else None
    verdicts: list[CriterionVerdict] = []
    score: float
    if out.refused is not None:
        verdicts = [CriterionVerdict(c["step"], c["marks"], 0, False, c["gap_tag"]) for c in criteria]
        return MarkResult(False, 0.0, float(max_score), spec.method, out.feedback, None, verdicts, [],
                          None, out.refused)
    if out.correct:
        verdicts = [CriterionVerdict(c["step"], c["marks"], c["marks"], True, c["gap_tag"]) for c in criteria]
        score = float(max_score)
    elif criteria and out.earned is not None and spec.partial_credit:
        left = math.floor(max_score * out.earned)
        for c in criteria:
            met = c["marks"] <= left
            left -= c["marks"] if met else 0
            verdicts.append(CriterionVerdict(c["step"], c["marks"], c["marks"] if met else 0, met, c["gap_tag"]))
        score = float(sum(v.awarded for v in verdicts))
    elif criteria:
        if out.misconception:
            failing = {i for i, c in enumerate(criteria) if tag and c["gap_tag"] == tag} or {len(criteria) - 1}
        elif out.form_failure:
            failing = {_final_criterion(criteria)}
        else:
            failing = set(range(len(criteria)))
        for i, c in enumerate(criteria):
            met = i not in failing
            # Without partial credit the verdicts still diagnose, but nothing is awarded.
            awarded = c["marks"] if met and spec.partial_credit else 0
            verdicts.append(CriterionVerdict(c["step"], c["marks"], awarded, met, c["gap_tag"]))
        score = float(sum(v.awarded for v in verdicts))
    elif out.earned is not None and spec.partial_credit:
        score = float(math.floor(max_score * out.earned))
    else:
        score = 0.0
    gap_tags: list[str] = []
    for v in verdicts:
        if not v.met and v.gap_tag and v.gap_tag not in gap_tags:
            gap_tags.append(v.gap_tag)
    if tag and tag not in gap_tags:
        gap_tags.append(tag)
    return MarkResult(out.correct, score, float(max_score), spec.method, out.feedback, out.normalised,
                      verdicts, gap_tags, out.misconception, None)


def mark_answer(spec: MarkingSpec, answer: Any) -> MarkResult:
    """Mark one answer. Never raises for any student input and always returns promptly."""
    try:
        text, refusal = _answer_text(answer)
        if refusal is not None:
            out = _Outcome(False, refusal, refused=refusal)
        elif not text.strip():
            out = _Outcome(False, NO_ANSWER)
        else:
            out = _MARKERS[spec.method](spec, text, answer)
        return _finish(spec, out)
    except Exception:   # deliberately broad: a marking fault must not end a student's session
        try:
            return _finish(spec, _Outcome(False, INTERNAL_ERROR, refused=INTERNAL_ERROR))
        except Exception:
            return MarkResult(False, 0.0, 0.0, str(getattr(spec, "method", "")), INTERNAL_ERROR, None, [], [],
                              None, INTERNAL_ERROR)
