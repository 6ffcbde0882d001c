"""Every command-line test gets its own default database, so none can reach data/workbench.duckdb."""
from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def default_db(tmp_path: Path, monkeypatch) -> Path:
    path = tmp_path / "default" / "workbench.duckdb"
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    return path
