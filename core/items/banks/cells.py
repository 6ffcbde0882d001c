"""One row's cells read as text, whole numbers, lists or JSON, with every problem collected against its field."""
from __future__ import annotations

import json
import re
from typing import Any, Optional

from core.blueprints import helpers
from core.items.banks.numbers import _PLAIN_NUMBER, parse_number
from core.items.banks.reports import RowError

_BAD = object()  # a field that was present but wrong (already reported)


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
