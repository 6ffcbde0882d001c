"""Shared by the reports: readable skill names, a class's roster, and tables as CSV and Parquet downloads."""
from __future__ import annotations

import io
import json
from typing import Callable, Optional

import pandas as pd

from core.blueprints.library import Library
from core.school.progress import skill_names
from core.store import Store, school
from core.store import analytics as data
from core.store.export import csv_bytes

Z95 = 1.96
Progress = Optional[Callable[[float, str], None]]


def _named(library: Library, skills: pd.Series) -> list[str]:
    """Readable names for a column of skill ids."""
    return skill_names(library, list(skills))


def _roster(store: Store, class_code: Optional[str]) -> pd.DataFrame:
    """student, name: a class's roster, or everyone who answered anything."""
    if class_code is None:
        return data.student_summary(store)[["student", "name"]]
    return pd.DataFrame([{"student": r["student"], "name": r["display_name"]} for r in school.roster(store, class_code)],
                        columns=["student", "name"])


def downloads(frame: pd.DataFrame) -> dict[str, bytes]:
    """A table as CSV (safe in a spreadsheet: ``core.store.export``) and Parquet bytes, for the download buttons
    under every table."""
    flat = frame.copy()
    for col in flat.columns:   # lists and dicts (JSON columns) go out as JSON text
        if flat[col].dtype == object and flat[col].map(lambda v: isinstance(v, (list, dict))).any():
            flat[col] = flat[col].map(lambda v: None if v is None else json.dumps(v, default=str))
    buffer = io.BytesIO()
    flat.to_parquet(buffer, index=False)
    return {"csv": csv_bytes(flat), "parquet": buffer.getvalue()}
