"""Fixtures the flow tests share: a controllable clock and a store in a temp dir."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.store import Store


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


@pytest.fixture
def store(tmp_path: Path):
    s = Store(tmp_path / "workbench.duckdb")
    yield s
    s.close()
