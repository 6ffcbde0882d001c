"""Fixtures the LLM tests share: a local fake OpenAI-compatible server and a store in a temp dir."""
from __future__ import annotations

import pytest

from core.store import Store
from tests.llm.fake_openai import FakeOpenAI
from tests.conftest import BACKENDS, backend_target


@pytest.fixture
def fake():
    server = FakeOpenAI()
    yield server
    server.close()


