"""The one check every analytics function makes on its input: a DataFrame with the columns it needs."""
from __future__ import annotations

from typing import Any, Mapping, Optional

import pandas as pd


def require_columns(df: Any, columns: Mapping[str, Optional[str]], what: str) -> None:
    """Raise ValueError naming each missing column by its role (``{"skill": "skill_id"}``: skill column 'skill_id')."""
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{what} needs a pandas DataFrame of answers, got {type(df).__name__}")
    missing = [f"{role} column '{name}'" for role, name in columns.items() if name is not None and name not in df.columns]
    if missing:
        raise ValueError(f"{what}: the answers have no {', '.join(missing)}; columns are {list(df.columns)} "
                         f"(pass the right column names, e.g. skill=..., student=..., correct=...)")
