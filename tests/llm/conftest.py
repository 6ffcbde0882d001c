"""Fixtures the LLM tests share: a local fake OpenAI-compatible server and a store in a temp dir."""
from __future__ import annotations

import pytest

from core.store import Store
from tests.llm.fake_openai import FakeOpenAI


@pytest.fixture
def fake():
    server = FakeOpenAI()
    yield server
    server.close()


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "workbench.duckdb")
    yield s
    s.close()
