"""Storage: the database (a DuckDB file or a PostgreSQL server), its migrations and the repositories.

The names below load the engine on first use, so a command that only writes a
CSV file (``core.store.export``) does not load DuckDB.
"""
from __future__ import annotations

import importlib
from typing import Any

__all__ = ["AnalysisHandle", "DatabaseBusy", "DatabaseDamaged", "DiskFull", "Store", "StoreError", "default_db_path",
           "newest_snapshot", "open_for_analysis"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(importlib.import_module("core.store.db"), name)
    raise AttributeError(f"module 'core.store' has no attribute {name!r}")
