"""Whether the LLM server answers, against the local fake server and a port where nothing listens: an answer is
remembered for a while, a check can be forced, and settings whose server does not answer are a warning."""
from __future__ import annotations

import socket

import pytest

from core.llm import LLMSettings, LLMStatus
from core.llm.reach import advice, forget, notice, probe, reachability
from tests.llm.fake_openai import error


def dead_url() -> str:
    """A local address where nothing listens (a port just freed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


@pytest.fixture(autouse=True)
def nothing_remembered():
    forget()
    yield
    forget()


def settings(url: str, key: str = "test-key") -> LLMSettings:
    return LLMSettings(api_key=key, base_url=url, model="fake-model")


def test_a_server_that_answers_is_on_and_a_second_look_does_not_ask_it_again(fake):
    on = LLMStatus(settings(fake.base_url), "settings page")
    said = notice(on)
    assert said.kind == "success" and said.text.startswith("LLM features are on: model fake-model")
    assert notice(on).kind == "success" and fake.model_lists == 1     # remembered
    assert reachability(on.settings, fresh=True).answers and fake.model_lists == 2


def test_nothing_listening_is_a_warning_that_says_what_to_do():
    url = dead_url()
    status = LLMStatus(settings(url), "environment")
    said = notice(status)
    assert said.kind == "warning"
    assert f"the server at {url} could not be reached" in said.text and advice("environment") in said.text
    assert "WORKBENCH_LLM_*" in said.text
    assert "LLM features are on" not in said.text


def test_a_refused_key_is_a_warning_and_a_server_without_a_model_list_still_answers(fake):
    fake.models_reply = error(401, "bad key", "invalid_api_key")
    assert probe(settings(fake.base_url)) == f"the server at {fake.base_url} refused the API key (HTTP 401)"
    fake.models_reply = error(404, "no such route", "not_found")
    assert probe(settings(fake.base_url)) is None


def test_a_server_that_does_not_answer_in_time_is_a_warning(fake):
    from tests.llm.fake_openai import slow
    fake.models_reply = slow(1.0, fake.models_reply)
    assert probe(settings(fake.base_url), timeout_s=0.2) == f"the server at {fake.base_url} did not answer within 0.2 s"


def test_llm_features_off_is_plain_information():
    said = notice(LLMStatus(None, "off"))
    assert said.kind == "info" and said.text.startswith("LLM features are off")


def test_a_peek_never_waits_and_finds_the_answer_asked_in_the_background(fake):
    import time

    from core.llm.reach import peek
    dead, alive = settings(dead_url()), settings(fake.base_url)
    assert peek(dead) is None and peek(alive) is None          # nothing known yet: asked in the background
    end = time.monotonic() + 10
    while (peek(dead) is None or peek(alive) is None) and time.monotonic() < end:
        time.sleep(0.05)
    assert not peek(dead).answers and "could not be reached" in peek(dead).problem
    assert peek(alive).answers and fake.model_lists == 1        # asked once, then remembered
