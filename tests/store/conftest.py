"""Every store test runs on both backends: a DuckDB file and a PostgreSQL database (tests of the file
itself are marked ``duckdb_only``)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import BACKENDS, backend_target


@pytest.fixture(params=BACKENDS)
def db_path(request, tmp_path: Path):
    return backend_target(request, tmp_path)
