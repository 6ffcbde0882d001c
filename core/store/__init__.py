"""Storage: the DuckDB file, its migrations and the repositories."""
from core.store.db import (AnalysisHandle, DatabaseBusy, DatabaseDamaged, DiskFull, Store, StoreError,
                           default_db_path, newest_snapshot, open_for_analysis)

__all__ = ["AnalysisHandle", "DatabaseBusy", "DatabaseDamaged", "DiskFull", "Store", "StoreError", "default_db_path",
           "newest_snapshot", "open_for_analysis"]
