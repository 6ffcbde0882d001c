"""Question banks: the centre's own questions and past-paper / Understanding Standards questions.

A bank is a JSON file (a list of question objects, or ``{"questions": [...]}``)
or a CSV file with a header row, in the seed's Question schema plus what
marking needs (answer, item type, options, tolerance, keywords ...). Every
good row becomes an ``Item`` like a generated one, so practice, exams and
marking treat bank questions and blueprint questions alike.

A bank file is teacher input from anywhere: nothing in it is evaluated except
through ``core.blueprints.formula``, and every problem is reported against the
row and column a teacher sees in a spreadsheet, one sentence each, while the
good rows are kept.

A question may carry a formula (template, variables, values, answer_formula)
so that ``mutate_bank_question`` can give it new numbers with a recomputed key.
"""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import keyword
import math
import random
import re
import string
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from fractions import Fraction
from itertools import product
from pathlib import Path
from typing import Any, Optional, Union

from core.blueprints import helpers
from core.blueprints.compiler import Template, compile_template
from core.blueprints.formula import CONSTANTS, FUNCTIONS, Formula, FormulaError, compile_formula
from core.items.generator import Item, format_value, jsonable, normalise_text
from core.items.sampler import GenerationError
from core.store import repo

MAX_BYTES = 5 * 1024 * 1024
MAX_ROWS = 10_000
MAX_VARIABLE_VALUES = 1_000_000
MAX_LISTED_VALUES = 1_000
ENUMERATE_LIMIT = 5_000
RANDOM_DRAWS = 300

SOURCES = ("local", "past", "us")
ITEM_TYPES = ("multiple_choice", "numeric", "algebraic", "short_text")
METHODS = ("exact_match", "numeric_tolerance", "algebraic_equivalence", "mcq", "short_text")
DEFAULT_METHOD = {"multiple_choice": "mcq", "numeric": "numeric_tolerance",
                  "algebraic": "algebraic_equivalence", "short_text": "short_text"}
ANSWER_TYPES = ("integer", "decimal", "fraction", "string", "expression")
DIFFICULTY_VALUES = {"easy": 0.3, "medium": 0.5, "hard": 0.7}
CALCULATOR = ("none", "optional", "required")
FORMULA_FIELDS = ("template", "variables", "values", "answer_formula")

# Flat columns a spreadsheet is likely to have; they land in metadata so a CSV
# need not carry a JSON cell just to say "hard" or "2019".
METADATA_SHORTCUTS = ("difficulty", "calculator", "year", "paper", "created_by")

FIELDS = frozenset({
    "id", "source", "subject", "level", "outcome_id", "text", "marks", "marking_scheme", "metadata",
    "answer", "item_type", "options", "correct_index", "method", "tolerance_relative", "tolerance_absolute",
    "keywords", "explanation", "units", "hints", "accepted_answers", "answer_type", "answer_decimals",
    "answer_sig_figs", "template", "variables", "values", "answer_formula", "constraints",
    "explanation_template", *METADATA_SHORTCUTS,
})

_LEVELS = {
    "nat3": "Nat 3", "n3": "Nat 3", "national3": "Nat 3",
    "nat4": "Nat 4", "n4": "Nat 4", "national4": "Nat 4",
    "nat5": "Nat 5", "n5": "Nat 5", "national5": "Nat 5",
    "higher": "Higher", "h": "Higher",
    "advancedhigher": "Advanced Higher", "ah": "Advanced Higher",
}
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,119}$")
_PLAIN_NUMBER = re.compile(r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$")
_FRACTION = re.compile(r"^([+-]?\d+)\s*/\s*(\d+)$")
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SCIENTIFIC = re.compile(
    r"^([+-]?\d+(?:\.\d+)?)\s*(×|x|X|\*|\\times)\s*10\s*(?:\^\s*\{?\s*([+-]?\d+)\s*\}?|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))$")


@dataclasses.dataclass
class RowError:
    row: int            # as a teacher sees it: CSV data rows from 2, JSON entries from 1, 0 for the whole file
    field: Optional[str]
    message: str


@dataclasses.dataclass
class BankImport:
    questions: list[Item]
    errors: list[RowError]
    duplicates: list[tuple[int, str]]   # (row, id of the question it repeats)

    @property
    def ok(self) -> bool:
        return not self.errors


class BankQuestionError(ValueError):
    """One bank question could not be turned into an item; ``errors`` says why."""

    def __init__(self, errors: list[RowError]):
        self.errors = errors
        super().__init__("; ".join(f"{e.field or 'question'}: {e.message}" for e in errors))


_BAD = object()  # a field that was present but wrong (already reported)


# --------------------------------------------------------------------------
# Numbers as teachers write them


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


# --------------------------------------------------------------------------
# Variables of a formula question


def _decimals_of(x: Any) -> int:
    if isinstance(x, int):
        return 0
    exponent = Decimal(repr(x)).as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _domain_size(spec: dict) -> int:
    if "values" in spec:
        return len(spec["values"])
    step = spec.get("step", 1)
    return int(math.floor((spec["max"] - spec["min"]) / step + 1e-9)) + 1


def _domain_value(spec: dict, k: int) -> Any:
    if "values" in spec:
        return spec["values"][k]
    lo, hi, step = spec["min"], spec["max"], spec.get("step", 1)
    if all(isinstance(v, int) for v in (lo, hi, step)):
        return lo + k * step
    value = round(lo + k * step, max(_decimals_of(lo), _decimals_of(hi), _decimals_of(step)))
    return int(value) if value.is_integer() and all(float(v).is_integer() for v in (lo, step)) else value


def _is_plain_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def check_variables(raw: Any) -> tuple[Optional[dict], Optional[str]]:
    """(variables, None) or (None, the reason they are wrong)."""
    if not isinstance(raw, dict) or not raw:
        return None, "variables must be an object giving each name {min, max, step} or {values: [...]}."
    out: dict[str, dict] = {}
    for name, spec in raw.items():
        if (not isinstance(name, str) or not name.isidentifier() or name.startswith("_") or keyword.iskeyword(name)
                or name in FUNCTIONS or name in CONSTANTS or name == "answer"):
            return None, f"variable name {name!r} must be a plain name that is not a function, a constant or 'answer'."
        if not isinstance(spec, dict):
            return None, f"variable '{name}' must be {{min, max, step}} or {{values: [...]}}, not {type(spec).__name__}."
        if "values" in spec:
            values = spec["values"]
            if set(spec) != {"values"}:
                return None, f"variable '{name}' gives 'values', so it may not also give {sorted(set(spec) - {'values'})}."
            if not isinstance(values, list) or not values or len(values) > MAX_LISTED_VALUES:
                return None, f"variable '{name}' needs a list of 1 to {MAX_LISTED_VALUES} values."
            for v in values:
                if not (_is_plain_number(v) or (isinstance(v, str) and len(v) <= 200)):
                    return None, f"variable '{name}' lists {v!r}; values must be numbers or short text."
            out[name] = {"values": list(values)}
            continue
        extra = set(spec) - {"min", "max", "step"}
        if extra:
            return None, f"variable '{name}' has unknown keys {sorted(extra)}; use min, max and step, or values."
        lo, hi, step = spec.get("min"), spec.get("max"), spec.get("step", 1)
        if not (_is_plain_number(lo) and _is_plain_number(hi) and _is_plain_number(step)):
            return None, f"variable '{name}' needs numbers for min and max (and step, if given)."
        if step <= 0 or lo > hi:
            return None, f"variable '{name}' needs min <= max and a step greater than 0."
        clean = {"min": lo, "max": hi, **({"step": step} if "step" in spec else {})}
        if _domain_size(clean) > MAX_VARIABLE_VALUES:
            return None, f"variable '{name}' has more than {MAX_VARIABLE_VALUES:,} values; use a larger step."
        out[name] = clean
    return out, None


def _template_fields(text: str) -> list[str]:
    return [f for _, f, _, _ in string.Formatter().parse(text) if f]


def _compile_template(text: str, names: set[str], what: str) -> Template:
    try:
        unknown = [f for f in _template_fields(text) if f.isidentifier() and f not in names]
    except ValueError:
        unknown = []  # compile_template reports the malformed template itself
    if unknown:
        raise FormulaError(f"{what} field '{{{unknown[0]}}}' is not one of the variables ({', '.join(sorted(names))})")
    return compile_template(text, names)


# --------------------------------------------------------------------------
# One row


class _Row:
    """One question's cells, with every problem collected against its field."""

    def __init__(self, number: int, data: dict, from_csv: bool):
        self.number = number
        self.data = data
        self.csv = from_csv
        self.errors: list[RowError] = []

    def error(self, field: Optional[str], message: str) -> Any:
        self.errors.append(RowError(self.number, field, message))
        return _BAD

    def present(self, field: str) -> bool:
        v = self.data.get(field)
        return not (v is None or (isinstance(v, str) and not v.strip()))

    def text(self, field: str, required: bool = False) -> Any:
        v = self.data.get(field)
        if not self.present(field):
            return self.error(field, f"{field} is required and must not be empty.") if required else None
        if isinstance(v, bool) or not isinstance(v, (str, int, float)):
            return self.error(field, f"{field} must be text, not {type(v).__name__}.")
        return helpers.nice(v) if not isinstance(v, str) else v.strip()

    def structured(self, field: str) -> Any:
        """A JSON value: native in a JSON bank, a JSON string in a CSV cell (plain text passed through)."""
        v = self.data.get(field)
        if not self.present(field):
            return None
        if isinstance(v, str):
            s = v.strip()
            if s[:1] in ("{", "["):
                try:
                    return json.loads(s)
                except (json.JSONDecodeError, RecursionError) as exc:
                    where = f" ({exc.msg} at character {exc.pos + 1})" if isinstance(exc, json.JSONDecodeError) else ""
                    return self.error(field, f"{field} is not valid JSON{where}.")
            return s
        return v

    def text_list(self, field: str, sep: str = "|") -> Any:
        v = self.structured(field)
        if v is None:
            return []
        if v is _BAD:
            return v
        parts = [p.strip() for p in v.split(sep)] if isinstance(v, str) else v
        if not isinstance(parts, list):
            return self.error(field, f"{field} must be a list (in CSV: 'a{sep}b{sep}c' or a JSON list).")
        out = []
        for i, p in enumerate(parts, 1):
            if isinstance(p, bool) or not isinstance(p, (str, int, float)):
                return self.error(field, f"entry {i} of {field} must be text, not {type(p).__name__}.")
            p = helpers.nice(p) if not isinstance(p, str) else p.strip()
            if not p:
                if field == "options":
                    return self.error(field, f"option {i} is empty.")
                continue
            out.append(p)
        return out

    def obj(self, field: str) -> Any:
        v = self.structured(field)
        if v is None or v is _BAD:
            return v
        if not isinstance(v, dict):
            return self.error(field, f"{field} must be an object (in CSV, a JSON object such as {{\"a\": 1}}).")
        return v

    def whole(self, field: str, minimum: int, required: bool = False) -> Any:
        v = self.data.get(field)
        if not self.present(field):
            return self.error(field, f"{field} is required and must not be empty.") if required else None
        n: Optional[int] = None
        if isinstance(v, int) and not isinstance(v, bool):
            n = v
        elif isinstance(v, float) and v.is_integer():
            n = int(v)
        elif isinstance(v, str) and re.fullmatch(r"\s*[+-]?\d{1,9}\s*", v):
            n = int(v)
        if n is None or n < minimum:
            return self.error(field, f"{field} must be a whole number of at least {minimum}, not {v!r}.")
        return n

    def positive(self, field: str, below_one: bool = False) -> Any:
        v = self.data.get(field)
        if not self.present(field):
            return None
        n = parse_number(v) if not isinstance(v, str) or _PLAIN_NUMBER.match(v.strip()) else None
        n = float(n) if n is not None else None
        if n is None or n <= 0 or (below_one and n >= 1):
            limit = "between 0 and 1 (for example 0.02 for 2%)" if below_one else "greater than 0"
            return self.error(field, f"{field} must be a number {limit}, not {v!r}.")
        return n


def _content_key(text: str) -> str:
    return hashlib.sha256(("bank|" + normalise_text(text)).encode()).hexdigest()[:20]


def _level(text: str) -> str:
    return _LEVELS.get(re.sub(r"[\s_.-]+", "", text.lower()), text)


def _marking_scheme(row: _Row, marks: Any) -> Any:
    raw = row.structured("marking_scheme")
    if raw is None or raw is _BAD:
        return raw
    if isinstance(raw, str):
        # CSV shorthand "Identify equation:1;Substitute:1" (optionally "step:marks:gap_tag")
        criteria = []
        for part in (p.strip() for p in raw.split(";")):
            if not part:
                continue
            head, _, tail = part.rpartition(":")
            step, _, mid = head.rpartition(":")
            if head.strip() and tail.strip().isdigit():
                criteria.append({"step": head, "marks": int(tail)})
            elif step.strip() and mid.strip().isdigit() and tail.strip():
                criteria.append({"step": step, "marks": int(mid), "gap_tag": tail})
            else:
                return row.error("marking_scheme", f"marking step {part!r} should be written 'step:marks' "
                                                   f"(or 'step:marks:gap_tag').")
        raw = {"criteria": criteria}
    if isinstance(raw, list):
        raw = {"criteria": raw}
    if not isinstance(raw, dict):
        return row.error("marking_scheme", "marking_scheme must be an object with 'criteria' and 'total_marks'.")
    extra = set(raw) - {"criteria", "total_marks"}
    if extra:
        return row.error("marking_scheme", f"marking_scheme has unknown keys {sorted(extra)}; "
                                           f"use 'criteria' and 'total_marks'.")
    criteria = raw.get("criteria", [])
    if not isinstance(criteria, list):
        return row.error("marking_scheme", "marking_scheme.criteria must be a list of {step, marks}.")
    clean = []
    for i, c in enumerate(criteria, 1):
        if not isinstance(c, dict) or set(c) - {"step", "marks", "gap_tag", "description"}:
            return row.error("marking_scheme", f"criterion {i} must be an object with step, marks and "
                                               f"optionally gap_tag and description.")
        step, m = c.get("step"), c.get("marks")
        if not isinstance(step, str) or not step.strip():
            return row.error("marking_scheme", f"criterion {i} needs a step description.")
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            return row.error("marking_scheme", f"criterion {i} ('{step.strip()}') needs marks as a whole number "
                                               f"of at least 1.")
        for opt in ("gap_tag", "description"):
            if c.get(opt) is not None and not isinstance(c[opt], str):
                return row.error("marking_scheme", f"criterion {i} {opt} must be text.")
        entry = {"step": step.strip(), "marks": m}
        entry.update({k: c[k].strip() for k in ("gap_tag", "description") if isinstance(c.get(k), str) and c[k].strip()})
        clean.append(entry)
    if isinstance(marks, int):
        total = raw.get("total_marks")
        if total is not None and total != marks:
            return row.error("marking_scheme", f"marking_scheme.total_marks is {total!r} but the question is "
                                               f"worth {marks} marks.")
        if clean and sum(c["marks"] for c in clean) != marks:
            return row.error("marking_scheme", f"the marking criteria add up to {sum(c['marks'] for c in clean)} "
                                               f"but the question is worth {marks} marks.")
    return {"criteria": clean, "total_marks": marks}


def _metadata(row: _Row) -> Any:
    meta = row.obj("metadata")
    if meta is _BAD:
        return meta
    meta = dict(meta or {})
    for key in METADATA_SHORTCUTS:
        if row.present(key) and key not in meta:
            v = row.data[key]
            meta[key] = int(v) if key == "year" and isinstance(v, str) and v.strip().isdigit() else v
    if "difficulty" in meta:
        d = meta["difficulty"]
        if not isinstance(d, str) or d.strip().lower() not in DIFFICULTY_VALUES:
            return row.error("metadata.difficulty", f"difficulty must be easy, medium or hard, not {d!r}.")
        meta["difficulty"] = d.strip().lower()
    if "calculator" in meta:
        c = meta["calculator"]
        if isinstance(c, bool):  # "calculator allowed?" in a spreadsheet
            c = "optional" if c else "none"
        if not isinstance(c, str) or c.strip().lower() not in CALCULATOR:
            return row.error("metadata.calculator", f"calculator must be none, optional or required, not {c!r}.")
        meta["calculator"] = c.strip().lower()
    return meta


def _formula(row: _Row, answer_type: Optional[str], answer: Any, tolerance: Optional[dict],
             precision: dict) -> Any:
    """Check the formula parts; returns (text, computed_values, values) or None / _BAD."""
    given = [f for f in FORMULA_FIELDS if row.present(f)]
    extras = [f for f in ("constraints", "explanation_template") if row.present(f)]
    if not given:
        if extras:
            return row.error(extras[0], f"{extras[0]} applies only to a question with a template and variables.")
        return None
    missing = [f for f in FORMULA_FIELDS if f not in given]
    if missing:
        return row.error(missing[0], f"a question with a formula needs all of {', '.join(FORMULA_FIELDS)}; "
                                     f"{missing[0]} is missing.")
    raw_variables = row.structured("variables")
    if raw_variables is _BAD:
        return raw_variables
    variables, why = check_variables(raw_variables)
    if variables is None:
        return row.error("variables", why)
    names = set(variables)
    values = row.obj("values")
    if values is _BAD:
        return values
    if set(values) != names:
        odd = sorted(set(values) ^ names)
        return row.error("values", f"values must give exactly the variables ({', '.join(sorted(names))}); "
                                   f"check {', '.join(odd)}.")
    for name, v in values.items():
        if not (_is_plain_number(v) or isinstance(v, str)):
            return row.error("values", f"value of '{name}' must be a number or text, not {v!r}.")
    template_text = row.text("template")
    if template_text is _BAD:
        return template_text
    try:
        template = _compile_template(template_text, names, "template")
        rendered = template.render(values)
    except FormulaError as exc:
        return row.error("template", f"{exc.message}.")
    source = row.text("answer_formula")
    if source is _BAD:
        return source
    try:
        answer_f = compile_formula(source, names)
    except FormulaError as exc:
        return row.error("answer_formula", f"answer_formula does not compile: {exc.message}.")
    constraints = row.structured("constraints")
    if constraints is _BAD:
        return constraints
    if isinstance(constraints, str):
        constraints = [c.strip() for c in constraints.split(";") if c.strip()]
    if not isinstance(constraints or [], list):
        return row.error("constraints", "constraints must be a list of conditions on the variables.")
    compiled: list[Formula] = []
    for c in constraints or []:
        try:
            compiled.append(compile_formula(c, names))
        except FormulaError as exc:
            return row.error("constraints", f"constraint {c!r} does not compile: {exc.message}.")
    explanation_t = row.text("explanation_template")
    if explanation_t is not None and explanation_t is not _BAD:
        try:
            _compile_template(explanation_t, names | {"answer"}, "explanation_template")
        except FormulaError as exc:
            return row.error("explanation_template", f"{exc.message}.")
    try:
        for f in compiled:
            if not f.evaluate(values):
                return row.error("constraints", f"constraint {f.source!r} is false for the given values.")
        value = answer_f.evaluate(values)
    except FormulaError as exc:
        return row.error("answer_formula", f"answer_formula fails for the given values: {exc.message}.")
    if isinstance(answer_type, str) and isinstance(answer, str):
        try:
            computed = key_text(value, answer_type, precision)
        except GenerationError as exc:
            return row.error("answer_formula", f"{exc}; round it or set answer_type.")
        if not _same_answer(computed, answer, answer_type, tolerance):
            return row.error("answer_formula", f"answer_formula gives {computed} for the given values, "
                                               f"but the answer is {answer}.")
    computed_values = {"template": template_text, "variables": variables, "answer_formula": answer_f.source}
    if compiled:
        computed_values["constraints"] = [f.source for f in compiled]
    if explanation_t:
        computed_values["explanation_template"] = explanation_t
    if precision:
        computed_values["answer_format"] = precision
    return rendered, computed_values, dict(values)


def _build(row: _Row, forced_source: Optional[str]) -> Optional[Item]:
    """The item for one row, or None with the problems in ``row.errors``."""
    for key in row.data:
        if key not in FIELDS and not row.csv:
            row.error(str(key), f"'{key}' is not a bank field; check the spelling.")
    if forced_source is not None:
        source = forced_source
    else:
        source = row.text("source", required=True)
        if isinstance(source, str) and source.lower() not in SOURCES:
            source = row.error("source", f"source must be local, past or us, not {source!r}.")
        elif isinstance(source, str):
            source = source.lower()
    subject = row.text("subject", required=True)
    level = row.text("level", required=True)
    outcome_id = row.text("outcome_id", required=True)
    marks = row.whole("marks", 1, required=True)
    answer = row.text("answer", required=True)
    qid = row.text("id")
    if isinstance(qid, str) and not _ID.match(qid):
        qid = row.error("id", f"id {qid!r} may use only letters, digits and _ . : - (at most 120 characters).")
    units, explanation = row.text("units"), row.text("explanation")
    options = row.text_list("options")
    keywords, hints, accepted = row.text_list("keywords"), row.text_list("hints"), row.text_list("accepted_answers")
    scheme = _marking_scheme(row, marks)
    meta = _metadata(row)
    tol_rel = row.positive("tolerance_relative", below_one=True)
    tol_abs = row.positive("tolerance_absolute")
    decimals = row.whole("answer_decimals", 0)
    sig_figs = row.whole("answer_sig_figs", 1)
    if isinstance(decimals, int) and isinstance(sig_figs, int):
        row.error("answer_sig_figs", "give answer_decimals or answer_sig_figs, not both.")

    item_type = row.text("item_type")
    if isinstance(item_type, str) and item_type not in ITEM_TYPES:
        item_type = row.error("item_type", f"item_type must be one of {', '.join(ITEM_TYPES)}, not {item_type!r}.")
    if item_type is None and options is not _BAD and isinstance(answer, str):
        item_type = ("multiple_choice" if options else
                     "numeric" if parse_number(answer) is not None else "short_text")

    answer_type = row.text("answer_type")
    if isinstance(answer_type, str) and answer_type not in ANSWER_TYPES:
        answer_type = row.error("answer_type", f"answer_type must be one of {', '.join(ANSWER_TYPES)}, "
                                               f"not {answer_type!r}.")
    numeric_kind = _numeric_answer_type(answer) if isinstance(answer, str) else None
    if answer_type in ("integer", "decimal", "fraction") and isinstance(answer, str) and numeric_kind is None:
        answer_type = row.error("answer", f"the answer {answer!r} is not a number, but answer_type is {answer_type}.")
    precision_given = isinstance(decimals, int) or isinstance(sig_figs, int)
    if answer_type is None and precision_given and numeric_kind in ("integer", "decimal"):
        answer_type = "decimal"  # "377 to 3 significant figures" is a rounded decimal, not a whole number
    if answer_type is None and isinstance(item_type, str) and isinstance(answer, str):
        answer_type = ("expression" if item_type == "algebraic" else numeric_kind or "string")
    if precision_given and isinstance(answer_type, str) and answer_type != "decimal":
        row.error("answer_decimals" if isinstance(decimals, int) else "answer_sig_figs",
                  f"a rounding instruction applies only to a decimal answer, but answer_type is {answer_type}.")
    if item_type == "numeric" and isinstance(answer, str) and numeric_kind is None:
        row.error("answer", f"a numeric question needs a number as its answer, not {answer!r} "
                            f"(put units in the units column).")

    method = row.text("method")
    if isinstance(method, str) and method not in METHODS:
        method = row.error("method", f"method must be one of {', '.join(METHODS)}, not {method!r}.")
    if method is None and isinstance(item_type, str):
        method = DEFAULT_METHOD[item_type]
    if isinstance(method, str) and isinstance(item_type, str):
        if (method == "mcq") != (item_type == "multiple_choice"):
            row.error("method", "the mcq method goes with multiple_choice questions and only with them.")
        elif (method == "numeric_tolerance" and item_type != "numeric" and isinstance(answer, str)
              and numeric_kind is None):
            row.error("method", "numeric_tolerance needs a number as the answer.")
    tolerance = {k: v for k, v in (("relative", tol_rel), ("absolute", tol_abs)) if isinstance(v, float)} or None
    if tolerance and isinstance(method, str) and method != "numeric_tolerance":
        row.error("tolerance_relative" if "relative" in tolerance else "tolerance_absolute",
                  "a tolerance applies only to the numeric_tolerance method.")

    correct_index: Any = None
    if row.present("correct_index"):
        raw_ci = row.data["correct_index"]
        if isinstance(raw_ci, str) and re.fullmatch(r"\s*[A-Za-z]\s*", raw_ci):
            correct_index = ord(raw_ci.strip().upper()) - ord("A")  # a spreadsheet's "B"
        else:
            correct_index = row.whole("correct_index", 0)
    if item_type == "multiple_choice" and isinstance(options, list):
        if len(options) < 2:
            row.error("options", "a multiple-choice question needs at least 2 options.")
        elif len({normalise_text(o) for o in options}) != len(options):
            row.error("options", "two options read the same; every option must be different.")
        elif isinstance(correct_index, int) and not 0 <= correct_index < len(options):
            correct_index = row.error("correct_index", f"correct_index {row.data['correct_index']!r} is out of "
                                                       f"range: there are {len(options)} options (0 to {len(options) - 1}).")
        elif isinstance(answer, str):
            matches = [i for i, o in enumerate(options) if o == answer] or \
                      [i for i, o in enumerate(options) if normalise_text(o) == normalise_text(answer)]
            if not matches:
                row.error("answer", f"the answer {answer!r} is not one of the options.")
            elif correct_index is None:
                correct_index = matches[0]
                answer = options[correct_index]
            elif correct_index not in matches:
                row.error("correct_index", f"option {correct_index} is {options[correct_index]!r}, "
                                           f"not the answer {answer!r}.")
            else:
                answer = options[correct_index]
    elif isinstance(item_type, str) and item_type != "multiple_choice":
        if options:
            row.error("options", f"options are given but the item_type is {item_type}; "
                                 f"use multiple_choice or remove them.")
        if correct_index is not None and correct_index is not _BAD:
            row.error("correct_index", "correct_index applies only to multiple-choice questions.")

    precision: dict = {}
    if isinstance(answer, str) and answer_type == "decimal":
        precision = _answer_format(answer, decimals if isinstance(decimals, int) else None,
                                   sig_figs if isinstance(sig_figs, int) else None)
    formula = None
    if item_type == "multiple_choice" and any(row.present(f) for f in FORMULA_FIELDS):
        row.error("template", "new numbers cannot be drawn for a multiple-choice question (its options would not "
                              "change); use numeric, algebraic or short_text.")
    else:
        formula = _formula(row, answer_type, answer, tolerance, precision)
    text = row.text("text", required=formula is None and not any(row.present(f) for f in FORMULA_FIELDS))
    if isinstance(formula, tuple) and isinstance(text, str) and normalise_text(text) != normalise_text(formula[0]):
        row.error("text", "text does not match the template filled in with the values.")
    if row.errors or formula is _BAD:
        return None

    if isinstance(formula, tuple):
        text = text or formula[0]
        explanation_t = formula[1].get("explanation_template")
        if not explanation and explanation_t:
            display = {**formula[2], "answer": answer}
            explanation = compile_template(explanation_t, set(display)).render(display)
    assert isinstance(text, str) and isinstance(answer, str) and isinstance(marks, int)
    criteria = scheme["criteria"] if isinstance(scheme, dict) else []
    difficulty = meta.get("difficulty", "medium")
    key = _content_key(text)
    computed = dict(formula[1]) if isinstance(formula, tuple) else {}
    if meta:
        computed["metadata"] = jsonable(meta)  # year, paper, author: nowhere else on an Item keeps them
    return Item(
        id=qid or "bank_" + key, blueprint_id=None, blueprint_version=None, blueprint_hash="",  # type: ignore[arg-type]
        source=source, seed="", difficulty_level=difficulty, difficulty_value=DIFFICULTY_VALUES[difficulty],
        item_type=item_type, stem=text, options=list(options),
        option_strategies=[None if i == correct_index else "bank_distractor" for i in range(len(options))],
        options_shuffled=False, correct_answer=answer,
        correct_index=correct_index if item_type == "multiple_choice" else None,
        answer_value=_answer_value(answer, answer_type), accepted_answers=[a for a in accepted if a != answer],
        misconceptions={}, explanation=explanation or _default_explanation(answer, units), hints=list(hints),
        answer_type=answer_type, units=units, marks=marks,
        marking_scheme={"criteria": criteria, "total_marks": marks},
        evaluation={"method": method, "tolerance": tolerance, "significant_figures": None, "required_form": "any",
                    "keywords": list(keywords), "min_keywords": None, "partial_credit": bool(criteria)},
        generation_params=formula[2] if isinstance(formula, tuple) else {}, computed_values=computed,
        subject=subject, level=_level(level), outcome_ids=[outcome_id], skill_ids=[],
        calculator=meta.get("calculator", "optional"), content_key=key, status="approved",
    )


def _answer_value(answer: str, answer_type: str) -> Any:
    if answer_type in ("integer", "decimal", "fraction"):
        value = parse_number(answer)
        return jsonable(value) if value is not None else answer
    return answer


def _default_explanation(answer: str, units: Optional[str]) -> str:
    return f"The correct answer is {answer}{(' ' + units) if units else ''}."


def bank_question_to_item(question: dict, source: Optional[str] = None, row: int = 1) -> Item:
    """One bank question (a dict in the bank schema) as an approved Item; BankQuestionError if it is not valid."""
    if source is not None and source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
    if not isinstance(question, dict):
        raise BankQuestionError([RowError(row, None, "a question must be an object of fields.")])
    r = _Row(row, question, from_csv=False)
    item = _build(r, source)
    if item is None:
        raise BankQuestionError(r.errors)
    return item


# --------------------------------------------------------------------------
# Files


def _looks_like_path(value: Any) -> bool:
    """A one-line string naming a .json/.csv file or an existing file; anything else is bank text."""
    if not isinstance(value, str) or "\n" in value or len(value) >= 1024 or value.strip()[:1] in ("[", "{"):
        return False
    try:
        return Path(value).suffix.lower() in (".json", ".csv") or Path(value).is_file()
    except (OSError, ValueError):
        return False


def _read(path_or_text: Any, fmt: Optional[str]) -> tuple[Optional[str], Optional[str], Optional[str]]:
    """(text, format, None) or (None, None, why the file cannot be read)."""
    data: Union[bytes, str]
    if isinstance(path_or_text, Path) or _looks_like_path(path_or_text):
        path = Path(path_or_text)
        fmt = fmt or path.suffix.lower().lstrip(".") or None
        try:
            if path.stat().st_size > MAX_BYTES:
                return None, None, f"the file is larger than {MAX_BYTES // (1024 * 1024)} MB; split it into smaller banks."
            data = path.read_bytes()
        except FileNotFoundError:
            return None, None, f"there is no file {str(path)!r}."
        except OSError as exc:
            return None, None, f"the file could not be read ({exc.strerror or exc})."
    else:
        data = path_or_text
    if isinstance(data, (bytes, bytearray)):
        if len(data) > MAX_BYTES:
            return None, None, f"the file is larger than {MAX_BYTES // (1024 * 1024)} MB; split it into smaller banks."
        try:
            text = bytes(data).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            return None, None, (f"the file is not UTF-8 text (byte {exc.start + 1} cannot be read); "
                                f"save it as 'CSV UTF-8' or UTF-8 JSON.")
    elif isinstance(data, str):
        if len(data.encode("utf-8", "surrogatepass")) > MAX_BYTES:
            return None, None, f"the file is larger than {MAX_BYTES // (1024 * 1024)} MB; split it into smaller banks."
        text = data.lstrip("\ufeff")
    else:
        raise TypeError(f"parse_bank takes a path, text or bytes, not {type(data).__name__}")
    if fmt is None:
        fmt = "json" if text.lstrip()[:1] in ("[", "{") else "csv"
    fmt = fmt.lower()
    if fmt not in ("json", "csv"):
        return None, None, f"a bank must be a .json or .csv file, not '.{fmt}'."
    if not text.strip():
        return None, None, "the file is empty."
    return text, fmt, None


def _json_rows(text: str) -> tuple[list[tuple[int, Any]], list[RowError]]:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        return [], [RowError(0, None, f"the file is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}.")]
    except RecursionError:
        return [], [RowError(0, None, "the file is not valid JSON: it is nested too deeply.")]
    if isinstance(doc, dict) and isinstance(doc.get("questions"), list):
        doc = doc["questions"]
    if not isinstance(doc, list):
        return [], [RowError(0, None, 'a JSON bank must be a list of questions or {"questions": [...]}.')]
    errors = []
    if len(doc) > MAX_ROWS:
        errors.append(RowError(MAX_ROWS + 1, None, f"the bank has more than {MAX_ROWS:,} questions; only the first "
                                                   f"{MAX_ROWS:,} were read; split the file."))
    return list(enumerate(doc[:MAX_ROWS], 1)), errors


def _csv_rows(text: str) -> tuple[list[tuple[int, Any]], list[RowError]]:
    errors: list[RowError] = []
    rows: list[tuple[int, Any]] = []
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader, None)
    except csv.Error as exc:
        return [], [RowError(1, None, f"the header row cannot be read as CSV: {exc}.")]
    header = [re.sub(r"\s+", "_", (h or "").strip().lower()) for h in header or []]
    if not any(header):
        return [], [RowError(1, None, "the first row must be a header naming the columns (subject, level, ...).")]
    seen: set[str] = set()
    keep: list[Optional[str]] = []
    for h in header:
        if not h:
            keep.append(None)
        elif h in seen:
            errors.append(RowError(1, h, f"column '{h}' appears twice in the header; the second is ignored."))
            keep.append(None)
        elif h not in FIELDS:
            # A stray "notes" column should not sink every question in the file.
            errors.append(RowError(1, h, f"'{h}' is not a bank column and is ignored; check the spelling."))
            keep.append(None)
        else:
            seen.add(h)
            keep.append(h)
    number = 1
    try:
        for cells in reader:
            number += 1
            if not any(c.strip() for c in cells):
                continue  # spreadsheets leave blank rows at the end
            if len(rows) >= MAX_ROWS:
                errors.append(RowError(number, None, f"the bank has more than {MAX_ROWS:,} questions; only the first "
                                                     f"{MAX_ROWS:,} were read; split the file."))
                break
            if len(cells) > len(header) and any(c.strip() for c in cells[len(header):]):
                errors.append(RowError(number, None, f"this row has {len(cells)} cells but the header has "
                                                     f"{len(header)} columns (a comma inside a cell needs quotes)."))
                continue
            rows.append((number, {h: c for h, c in zip(keep, cells) if h is not None}))
    except csv.Error as exc:
        errors.append(RowError(number + 1, None, f"the file cannot be read as CSV from here on: {exc}."))
    return rows, errors


def _parse(path_or_text: Any, fmt: Optional[str], source: Optional[str]
           ) -> tuple[list[tuple[int, Item]], list[RowError], list[tuple[int, str]]]:
    if source is not None and source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
    if fmt is not None and fmt.lower() not in ("json", "csv"):
        raise ValueError(f"fmt must be 'json' or 'csv', not {fmt!r}")
    text, fmt, why = _read(path_or_text, fmt)
    if text is None:
        return [], [RowError(0, None, why or "the file cannot be read.")], []
    raw_rows, errors = _json_rows(text) if fmt == "json" else _csv_rows(text)
    good: list[tuple[int, Item]] = []
    duplicates: list[tuple[int, str]] = []
    by_key: dict[str, str] = {}
    by_id: dict[str, int] = {}
    for number, data in raw_rows:
        if not isinstance(data, dict):
            errors.append(RowError(number, None, f"entry {number} must be an object of fields, "
                                                 f"not {type(data).__name__}."))
            continue
        row = _Row(number, data, from_csv=fmt == "csv")
        item = _build(row, source)
        if item is None:
            errors.extend(row.errors)
            continue
        if item.content_key in by_key:
            duplicates.append((number, by_key[item.content_key]))
            continue
        if item.id in by_id:
            errors.append(RowError(number, "id", f"id '{item.id}' is already used by row {by_id[item.id]} "
                                                 f"for a different question."))
            continue
        by_key[item.content_key] = item.id
        by_id[item.id] = number
        good.append((number, item))
    errors.sort(key=lambda e: e.row)
    return good, errors, duplicates


def parse_bank(path_or_text: Any, fmt: Optional[str] = None, source: Optional[str] = None) -> BankImport:
    """Read a bank (a path, its text or its bytes): the good questions, the bad rows, the repeats.

    ``fmt`` is "json" or "csv" (default: from the file's suffix, else from the
    first character). ``source`` forces local / past / us for every row.
    """
    good, errors, duplicates = _parse(path_or_text, fmt, source)
    return BankImport([item for _, item in good], errors, duplicates)


def _stored_bank_questions(store) -> tuple[dict[str, str], set[str]]:
    """Content key -> id and the ids of every stored bank-style question (bank sources and variants)."""
    keys: dict[str, str] = {}
    ids: set[str] = set()
    for src in (*SOURCES, "variant"):
        offset = 0
        while True:
            page = repo.list_items(store, source=src, limit=1000, offset=offset)
            for row in page:
                ids.add(row["id"])
                if row.get("content_key"):
                    keys.setdefault(row["content_key"], row["id"])
            if len(page) < 1000:
                break
            offset += 1000
    return keys, ids


def import_bank(store, path: Any, source: Optional[str] = None) -> BankImport:
    """Parse a bank and store its good, new questions as approved items.

    Questions whose content is already in the database are reported as
    duplicates of the stored id and not stored again, so importing the same
    file twice stores nothing the second time. ``questions`` is what was stored.
    """
    good, errors, duplicates = _parse(path, None, source)
    stored_keys, stored_ids = _stored_bank_questions(store)
    fresh: list[tuple[int, Item]] = []
    for number, item in good:
        if item.content_key in stored_keys:
            duplicates.append((number, stored_keys[item.content_key]))
        elif item.id in stored_ids:
            errors.append(_id_taken(number, item.id))
        else:
            fresh.append((number, item))
    if fresh and repo.insert_items(store, [item for _, item in fresh], status="approved") < len(fresh):
        # Some id was taken by a non-bank item (a generated one); only then is each id looked up.
        kept = []
        for number, item in fresh:
            row = repo.get_item(store, item.id)
            if row is not None and row.get("content_key") == item.content_key:
                kept.append((number, item))
            else:
                errors.append(_id_taken(number, item.id))
        fresh = kept
    errors.sort(key=lambda e: e.row)
    duplicates.sort()
    return BankImport([item for _, item in fresh], errors, duplicates)


def _id_taken(number: int, item_id: str) -> RowError:
    return RowError(number, "id", f"id '{item_id}' is already used by a different stored question; "
                                  f"give this one another id.")


# --------------------------------------------------------------------------
# Variants


def _same_values(a: dict, b: dict) -> bool:
    def norm(v: Any) -> Any:
        return float(v) if _is_plain_number(v) else v
    return a.keys() == b.keys() and all(norm(a[k]) == norm(b[k]) for k in a)


def mutate_bank_question(item: Item, n: int, seed: Any) -> Optional[Item]:
    """A variant of a formula question with new numbers and a recomputed key; None without a usable formula.

    Values are drawn from the question's variables with a ``random.Random``
    seeded from (id, n, seed), so a variant can be rebuilt exactly. Draws that
    repeat the original values, break a constraint, or give a key that does
    not fit the answer type (a fraction where a whole number is expected) are
    skipped. None also when the variables allow no other values.
    """
    cv = item.computed_values or {}
    if item.item_type == "multiple_choice" or not all(k in cv for k in ("template", "variables", "answer_formula")):
        return None
    # Stored parts are re-checked: the row may have been edited since import.
    variables, _ = check_variables(cv["variables"])
    if variables is None or not isinstance(cv["template"], str):
        return None
    names = set(variables)
    try:
        template = _compile_template(cv["template"], names, "template")
        answer_f = compile_formula(cv["answer_formula"], names)
        constraints = [compile_formula(c, names) for c in cv.get("constraints") or []]
        explanation_t = (_compile_template(cv["explanation_template"], names | {"answer"}, "explanation_template")
                         if cv.get("explanation_template") else None)
    except (FormulaError, TypeError):
        return None
    answer_format = cv.get("answer_format") if isinstance(cv.get("answer_format"), dict) else {}
    order = sorted(variables)
    sizes = [_domain_size(variables[name]) for name in order]
    if math.prod(sizes) < 2:
        return None
    rng = random.Random(f"{item.id}|{n}|{seed}")
    original = item.generation_params or {}
    if math.prod(sizes) <= ENUMERATE_LIMIT:
        # Small spaces are dealt without replacement, so a valid variant is found whenever one exists.
        draws = list(product(*(range(s) for s in sizes)))
        rng.shuffle(draws)
    else:
        draws = [tuple(rng.randrange(s) for s in sizes) for _ in range(RANDOM_DRAWS)]
    for ks in draws:
        values = {name: _domain_value(variables[name], k) for name, k in zip(order, ks)}
        if _same_values(values, original):
            continue
        try:
            if not all(f.evaluate(values) for f in constraints):
                continue
            value = answer_f.evaluate(values)
            key = key_text(value, item.answer_type, answer_format)
            stem = template.render(values)
        except (FormulaError, GenerationError, ValueError, KeyError, IndexError):
            continue
        if normalise_text(stem) == normalise_text(item.stem):
            continue
        if explanation_t is not None:
            try:
                explanation = explanation_t.render({**values, "answer": key})
            except (FormulaError, ValueError, KeyError, IndexError):
                continue
        else:
            explanation = _default_explanation(key, item.units)
        params = {name: values[name] for name in variables}
        return dataclasses.replace(
            item, id=f"{item.id}_variant_{n}", source="variant", seed=str(seed), stem=stem,
            correct_answer=key, answer_value=_answer_value(key, item.answer_type),
            accepted_answers=[],  # they were written for the original numbers
            explanation=explanation, generation_params=params,
            computed_values={k: (dict(v) if isinstance(v, dict) else v) for k, v in cv.items()},
            marking_scheme=dict(item.marking_scheme), evaluation=dict(item.evaluation),
            options=[], option_strategies=[], correct_index=None, misconceptions={},
            hints=list(item.hints), outcome_ids=list(item.outcome_ids), skill_ids=list(item.skill_ids),
            content_key=_content_key(stem),
        )
    return None
