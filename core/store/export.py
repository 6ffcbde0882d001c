"""Tables as CSV files that are safe to open in a spreadsheet: every CSV download and export goes through here.

- **Formulas are not run.** A cell that starts with ``=``, ``+``, ``-``, ``@``,
  a tab or a carriage return (after any leading spaces) would be read by
  Excel, LibreOffice or Google Sheets as a formula, which can fetch data or
  run commands (CSV injection). Such text cells get a leading apostrophe,
  which spreadsheets show as text. Numbers are left alone, and so is text that
  is a plain number ("-3", "+2.5e-3"): a number cannot be a formula.
- **Accents survive.** The file is UTF-8 with a byte-order mark, which Excel
  needs to read it as UTF-8 (pandas, Python's csv module and LibreOffice skip
  the mark).
"""
from __future__ import annotations

import csv
import io
import os
import re
from pathlib import Path
from typing import Any, Iterable, Sequence, Union

import pandas as pd

BOM = "\ufeff"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def safe_cell(value: Any) -> Any:
    """``value`` as a spreadsheet will show it, never run it: text that could start a formula gets an apostrophe."""
    if not isinstance(value, str) or not value.lstrip(" ").startswith(FORMULA_START):
        return value
    if _PLAIN_NUMBER.fullmatch(value.strip()):
        return value
    return "'" + value


def safe_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A copy of ``frame`` with every text cell and column name made safe by ``safe_cell``."""
    out = frame.copy()
    out.columns = [safe_cell(str(c)) for c in out.columns]
    for col in out.columns:
        series = out[col]
        if not (pd.api.types.is_object_dtype(series) or pd.api.types.is_string_dtype(series)):
            continue  # numbers, booleans and dates cannot start a formula
        out[col] = series.astype(object).map(safe_cell)
    return out


def csv_text(frame: pd.DataFrame) -> str:
    """The CSV text of ``frame`` (made safe, no index), without the byte-order mark."""
    return safe_frame(frame).to_csv(index=False, lineterminator="\r\n")


def csv_bytes(frame: pd.DataFrame) -> bytes:
    """``frame`` as a CSV download: made safe, UTF-8 with a byte-order mark, no index."""
    return (BOM + csv_text(frame)).encode("utf-8")


def rows_csv_bytes(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> bytes:
    """Plain rows as ``csv_bytes`` writes a table (for code that has no DataFrame at hand)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([safe_cell(str(h)) for h in header])
    writer.writerows([safe_cell(v) for v in row] for row in rows)
    return (BOM + out.getvalue()).encode("utf-8")


def write_whole(data: bytes, path: Union[str, Path]) -> Path:
    """Write an exported file so that it appears whole or not at all (a reader never sees half of it)."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        tmp.unlink(missing_ok=True)
        raise
    return path


def write_csv(frame: pd.DataFrame, path: Union[str, Path]) -> Path:
    """Write ``frame`` to ``path`` as ``csv_bytes`` does; the file appears whole or not at all."""
    return write_whole(csv_bytes(frame), path)
