"""Reading the tables item analysis is given: column checks, JSON columns, abilities.

Tables are shaped like the store's, but every column name is a parameter, so
a missing column is reported by the role it plays ("student column 'pupil'")
rather than as a KeyError. JSON columns may hold JSON text or values already
parsed, because the store returns text and notebooks often pass lists.
"""
from __future__ import annotations

import json
import math
from typing import Any, Mapping, Optional, Union

import numpy as np
import pandas as pd

from core.analytics.columns import require_columns

Ability = Union[pd.Series, pd.DataFrame, Mapping[str, float]]


def _frame(df: Any, what: str, columns: Mapping[str, Optional[str]]) -> pd.DataFrame:
    require_columns(df, columns, what)
    return df


def _json(value: Any) -> Any:
    """A JSON column's value parsed (text is parsed; None / NaN become None)."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8")
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise ValueError(f"a JSON column holds text that is not JSON: {text[:60]!r}") from None
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _item_column(items: pd.DataFrame, item: str) -> str:
    if item in items.columns:
        return item
    if "id" in items.columns:
        return "id"
    raise ValueError(f"items: no '{item}' or 'id' column among {list(items.columns)}; pass item=... naming it")


def _ability_series(ability: Ability, student: str) -> pd.Series:
    if isinstance(ability, pd.DataFrame):
        col = next((c for c in ("ability", "theta") if c in ability.columns), None)
        if col is None:
            raise ValueError("ability table needs an 'ability' or 'theta' column (and a student column or index)")
        table = ability.set_index(student) if student in ability.columns else ability
        series = table[col]
    elif isinstance(ability, pd.Series):
        series = ability
    elif isinstance(ability, Mapping):
        series = pd.Series(dict(ability), dtype=float)
    else:
        raise ValueError("ability must be a Series or mapping {student: ability} or a table with student and ability")
    series = pd.to_numeric(series, errors="coerce").astype(float)
    if series.index.has_duplicates:
        raise ValueError("ability has more than one value for some students; give one per student")
    return series.dropna()
