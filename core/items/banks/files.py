"""Reading a bank: a path, its text or its bytes, as JSON or CSV, into rows and then items, repeats set aside."""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any, Optional, Union

from core.blueprints.formula import time_budget
from core.items.banks.cells import _Row
from core.items.banks.fields import FIELDS, SOURCES
from core.items.banks.reports import BankImport, RowError
from core.items.banks.rows import _build
from core.items.generator import Item

MAX_BYTES = 5 * 1024 * 1024
MAX_ROWS = 10_000
FORMULA_BUDGET_S = 30.0     # the formula evaluations of all a file's rows; rows checked after it runs out are refused


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
    with time_budget(FORMULA_BUDGET_S):
        _rows_to_items(raw_rows, fmt, source, good, errors, duplicates, by_key, by_id)
    errors.sort(key=lambda e: e.row)
    return good, errors, duplicates


def _rows_to_items(raw_rows: list, fmt: str, source: Optional[str], good: list, errors: list, duplicates: list,
                   by_key: dict, by_id: dict) -> None:
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


def parse_bank(path_or_text: Any, fmt: Optional[str] = None, source: Optional[str] = None) -> BankImport:
    """Read a bank (a path, its text or its bytes): the good questions, the bad rows, the repeats.

    ``fmt`` is "json" or "csv" (default: from the file's suffix, else from the
    first character). ``source`` forces local / past / us for every row.
    """
    good, errors, duplicates = _parse(path_or_text, fmt, source)
    return BankImport([item for _, item in good], errors, duplicates)
