"""Fixtures the flow tests share: a controllable clock and a store, on each backend (a DuckDB file in a temp
dir, and a PostgreSQL database)."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.store import Store
from tests.conftest import BACKENDS, backend_target


class Clock:
    """A clock the test moves by hand, for time limits and response times."""

    def __init__(self, t: float = 1_700_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture(params=BACKENDS)
def db_path(request, tmp_path: Path):
    return backend_target(request, tmp_path)


@pytest.fixture
def store(db_path):
    s = Store(db_path)
    yield s
    s.close()
