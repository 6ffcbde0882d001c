"""The variables of a formula question (a range or a list of values each) and templates that may name only them."""
from __future__ import annotations

import keyword
import math
import string
from decimal import Decimal
from typing import Any, Optional

from core.blueprints.compiler import Template, compile_template
from core.blueprints.formula import CONSTANTS, FUNCTIONS, FormulaError

MAX_VARIABLE_VALUES = 1_000_000
MAX_LISTED_VALUES = 1_000


def _decimals_of(x: Any) -> int:
    if isinstance(x, int):
        return 0
    exponent = Decimal(repr(x)).as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def _domain_size(spec: dict) -> int:
    if "values" in spec:
        return len(spec["values"])
    step = spec.get("step", 1)
    span = (spec["max"] - spec["min"]) / step
    if not math.isfinite(span) or span > 1e15:     # -1e308 to 1e308: no one could list it; just too many
        return 10**15
    return int(math.floor(span + 1e-9)) + 1


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
