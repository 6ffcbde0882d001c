"""Shared fixtures: the shipped library (loaded once) and temporary databases."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The app's periodic snapshot thread would outlive each AppTest; tests publish snapshots explicitly.
os.environ.setdefault("WORKBENCH_SNAPSHOT_INTERVAL", "0")
# AppTest never reruns a page on a timer, so a page waits for its background job (validating, generating,
# calibrating) until the job ends; tests of the page following a job set this to 0.
os.environ.setdefault("WORKBENCH_JOB_WAIT", "120")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def library():
    from core.blueprints.library import Library
    return Library.load()


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "workbench.duckdb"


def pytest_sessionfinish(session, exitstatus):
    """Close DuckDB connections still open (cached app resources) so the run ends cleanly."""
    import gc

    import duckdb
    gc.collect()
    for obj in gc.get_objects():
        if isinstance(obj, duckdb.DuckDBPyConnection):
            try:
                obj.close()
            except duckdb.Error:
                pass  # already closed
    gc.collect()
