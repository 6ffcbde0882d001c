"""Fixtures the LLM tests share: a local fake OpenAI-compatible server (the store on both engines is the suite's own)."""
from __future__ import annotations

import pytest

from tests.llm.fake_openai import FakeOpenAI


@pytest.fixture
def fake():
    server = FakeOpenAI()
    yield server
    server.close()


