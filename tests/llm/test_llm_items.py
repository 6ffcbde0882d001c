"""LLM settings, the client's retries and audit rows, and core's verification of LLM items.

The real openai client talks to a local fake OpenAI-compatible server end to end.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from core.blueprints.compiler import compile_skill
from core.blueprints.loader import load_file
from core.items.generator import SkillGenerator
from core.items.llm_items import (LLM_DISTRACTOR, LLMItem, generate_llm_batch, generate_llm_item,
                                  generation_prompt, store_llm_items)
from core.items.sampler import GenerationError
from core.llm import OFF_MESSAGE, LLMClient, LLMConfigError, LLMError, LLMSettings, settings_from
from core.store.db import Store
from core.store.llm_runs import list_runs
from core.store.repo import get_item
from tests.llm.fake_openai import completion, error, slow

ROOT = Path(__file__).resolve().parents[2]
ADD = ROOT / "blueprints" / "skills" / "math" / "arithmetic" / "add_1digit.yaml"
NUMERIC = ROOT / "blueprints" / "skills" / "sqa" / "mathematics" / "higher" / "definite_integral.yaml"


def generator_for(path: Path) -> SkillGenerator:
    loaded = load_file(path)
    return SkillGenerator(compile_skill(loaded.model, loaded))


@pytest.fixture(scope="module")
def add() -> SkillGenerator:
    return generator_for(ADD)


@pytest.fixture
def make_client(fake, store):
    clients = []

    def make(with_store: bool = True, **overrides) -> LLMClient:
        values = {"api_key": "test-key", "base_url": fake.base_url, "model": "fake-model",
                  "timeout_s": 5, "max_retries": 2, "backoff_s": 0.01, **overrides}
        client = LLMClient(LLMSettings(**values), store if with_store else None)
        clients.append(client)
        return client

    yield make
    for c in clients:
        c.close()


def good(op1=7, op2=5, stem=None, key=None, options=None, index=None, **extra) -> dict:
    total = op1 + op2
    options = options or [str(total - 1), str(total), str(total + 1), str(op1 * op2)]
    key = str(total) if key is None else key
    return {"stem": stem or f"What is {op1} + {op2}?", "options": options, "correct_answer": key,
            "correct_index": options.index(key) if index is None else index,
            "explanation": f"{op1} + {op2} = {total}: make ten first.",
            "parameters": {"operand_1": op1, "operand_2": op2}, **extra}


# --------------------------------------------------------------------------
# Settings


def test_settings_from_environment_with_role_models():
    env = {"WORKBENCH_LLM_API_KEY": "k", "WORKBENCH_LLM_BASE_URL": "http://localhost:8000/v1",
           "WORKBENCH_LLM_MODEL": "small", "WORKBENCH_LLM_MODEL_VERIFIER": "big", "WORKBENCH_LLM_TIMEOUT_S": "12"}
    s = settings_from(None, env)
    assert s is not None
    assert (s.api_key, s.base_url, s.timeout_s, s.max_retries, s.concurrency) == ("k", "http://localhost:8000/v1", 12, 2, 4)
    assert s.model_for("verifier") == "big"
    assert s.model_for("item_generator") == s.model_for("tutor") == "small"


def test_settings_from_secrets_win_over_environment():
    secrets = {"llm": {"api_key": "secret-key", "base_url": "https://example.test/v1", "model": "m1",
                       "models": {"tutor": "m-tutor"}, "concurrency": 2}}
    s = settings_from(secrets, {"WORKBENCH_LLM_API_KEY": "env-key", "WORKBENCH_LLM_MODEL_DESIGNER": "m-design"})
    assert (s.api_key, s.model, s.concurrency) == ("secret-key", "m1", 2)
    assert s.model_for("tutor") == "m-tutor" and s.model_for("designer") == "m-design"
    assert s.model_for("style_judge") == "m1"


def test_settings_none_when_unset_and_one_sentence_errors():
    assert settings_from(None, {}) is None
    assert settings_from({}, {"HOME": "/root"}) is None
    assert "WORKBENCH_LLM_API_KEY" in OFF_MESSAGE and "[llm]" in OFF_MESSAGE and OFF_MESSAGE.count(". ") == 0
    with pytest.raises(LLMConfigError, match="WORKBENCH_LLM_MODEL"):
        settings_from(None, {"WORKBENCH_LLM_API_KEY": "k"})
    with pytest.raises(LLMConfigError, match="timeout_s"):
        settings_from(None, {"WORKBENCH_LLM_API_KEY": "k", "WORKBENCH_LLM_MODEL": "m", "WORKBENCH_LLM_TIMEOUT_S": "soon"})
    local = settings_from(None, {"WORKBENCH_LLM_BASE_URL": "http://127.0.0.1:1/v1", "WORKBENCH_LLM_MODEL": "m"})
    assert local.api_key  # a keyless local server still gets a placeholder key


# --------------------------------------------------------------------------
# One item


def test_verified_item_lands_as_draft_with_its_report(fake, make_client, add, store):
    fake.push(completion(good()))
    item, report = generate_llm_item(make_client(), add, "medium", "s1")
    assert report["verdict"] == "verified", report
    assert item.source == "llm" and item.status == "draft"
    assert item.correct_answer == "12" and item.options[item.correct_index] == "12"
    assert item.option_strategies == [LLM_DISTRACTOR, None, LLM_DISTRACTOR, LLM_DISTRACTOR]
    assert item.stem == "What is 7 + 5?" and item.explanation.startswith("7 + 5 = 12")
    assert item.generation_params == {"operand_1": 7, "operand_2": 5}
    formula_item = add.generate("medium", "x", params={"operand_1": 7, "operand_2": 5})
    assert item.content_key == formula_item.content_key
    assert {c["name"] for c in report["checks"]} >= {"key_recomputed", "level_constraints", "parameters_in_range"}
    assert all(c["ok"] for c in report["checks"])

    assert store_llm_items(store, [item], [report]) == 1
    row = get_item(store, item.id)
    assert row["status"] == "draft" and row["source"] == "llm" and row["answer_key"] == "12"
    assert row["verification"]["verdict"] == "verified" and row["verification"]["core_key"] == "12"

    runs = list_runs(store)
    assert len(runs) == 1
    run = runs[0]
    assert (run["role"], run["stage"], run["model"], run["verdict"]) == ("item_generator", "item_generation", "fake-model", "ok")
    assert (run["prompt_tokens"], run["completion_tokens"]) == (120, 60) and run["latency_ms"] >= 0
    sent = fake.requests[0]["body"]["messages"]
    assert run["prompt_hash"] == hashlib.sha256(json.dumps(sent, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def test_prompt_holds_the_blueprint_and_asks_for_the_schema(fake, make_client, add):
    fake.push(completion(good()))
    generate_llm_item(make_client(), add, "medium", "s1")
    body = fake.requests[0]["body"]
    assert fake.requests[0]["headers"]["authorization"] == "Bearer test-key"
    assert body["model"] == "fake-model"
    user = body["messages"][1]["content"]
    assert body["messages"][0]["role"] == "system" and "ACCURACY" in body["messages"][0]["content"]
    for text in ("Accurately add two 1-digit positive integers", "DIFFICULTY: medium",
                 "operand_1 + operand_2 >= 10", "operand_1 + operand_2 <= 13", "Sums from 10 to 13",
                 "Multiplication instead of addition", "What is {operand_1} + {operand_2}?",
                 "3 plausible but incorrect distractors", "exactly 4 distinct options", "min: 1", "max: 9"):
        assert text in user, text
    assert "answer_formula" not in user and "operand_1 + operand_2\n" not in user  # the model works the key out itself
    schema = body["response_format"]["json_schema"]
    assert body["response_format"]["type"] == "json_schema" and schema["name"] == "LLMItem"
    assert set(schema["schema"]["required"]) == set(LLMItem.model_fields)


def test_wrong_key_is_rejected_with_the_reason(fake, make_client, add):
    fake.push(completion(good(key="13")))
    item, report = generate_llm_item(make_client(), add, "medium", "s1")
    assert item is None and report["verdict"] == "rejected"
    assert report["reason"] == ("the model's key '13' does not match '12', which core computes from the "
                                "declared parameters")
    assert report["model_key"] == "13" and report["core_key"] == "12"


def test_right_key_but_parameters_say_otherwise_is_rejected(fake, make_client, add):
    # The stem asks 7 + 5 and the key 12 is right for it, but the declared parameters give 6 + 5 = 11:
    # core recomputes from the parameters and never takes the model's key.
    answer = good()
    answer["parameters"] = {"operand_1": 6, "operand_2": 5}
    fake.push(completion(answer))
    item, report = generate_llm_item(make_client(), add, "medium", "s1")
    assert item is None
    assert [c["name"] for c in report["checks"] if not c["ok"]] == ["key_recomputed"]
    assert "'11'" in report["reason"]


def test_stem_that_does_not_show_the_parameters_is_rejected(fake, make_client, add):
    fake.push(completion(good(stem="What is 8 + 4?")))
    item, report = generate_llm_item(make_client(), add, "medium", "s1")
    assert item is None
    assert report["checks"][-1]["name"] == "stem_shows_parameters"
    assert "operand_1=7" in report["reason"]


def test_an_item_whose_key_the_marker_would_not_accept_is_rejected(fake, make_client, add, monkeypatch):
    from core.items.llm_items import verification
    monkeypatch.setattr(verification, "item_key_problem",
                        lambda item: "the marker does not accept the answer key '12' as right (a test)")
    fake.push(completion(good()))
    item, report = generate_llm_item(make_client(), add, "medium", "s1")
    assert item is None
    assert report["checks"][-1] == {"name": "key_marks_right", "ok": False, "detail": report["reason"]}
    assert report["reason"].startswith("the item cannot be approved: the marker does not accept")


def test_a_stored_llm_item_is_approved_only_while_its_key_is_the_blueprints(fake, make_client, add, store):
    import dataclasses

    from core.items import review
    from core.store import repo
    fake.push(completion(good()))
    item, report = generate_llm_item(make_client(), add, "medium", "s1")
    assert report["checks"][-1] == {"name": "key_marks_right", "ok": True,
                                    "detail": "the marker reads core's key and marks it right"}
    store_llm_items(store, [item], [report])
    repo.save_blueprint(store, load_file(ADD))
    other = next(i for i, o in enumerate(item.options) if i != item.correct_index)
    swapped = dataclasses.replace(item, id="llm_swapped", correct_index=other, correct_answer=item.options[other])
    repo.insert_items(store, [swapped], status="draft")
    with pytest.raises(review.ReviewError, match="is not what the blueprint computes for these parameters \\(12\\)"):
        review.approve(store, [item.id, swapped.id])
    assert get_item(store, item.id)["status"] == "draft"
    assert review.approve(store, [item.id]) == 1 and get_item(store, item.id)["status"] == "approved"


@pytest.mark.parametrize("answer, check, words", [
    (good(2, 4), "level_constraints", "constraints of level 'medium'"),
    (dict(good(), parameters={"operand_1": 12, "operand_2": 5}), "parameters_in_range", "operand_1=12"),
    (dict(good(), parameters={"operand_1": 7}), "parameters_declared", "missing: operand_2"),
    (good(options=["12", "12", "13", "35"], index=0), "options_distinct", "two options are the same"),
    (good(options=["11", "12", "13"]), "option_count", "3 options given"),
    (good(index=0), "index_matches_answer", "not at the model's answer '12'"),
])
def test_shape_and_domain_checks(fake, make_client, add, answer, check, words):
    fake.push(completion(answer))
    item, report = generate_llm_item(make_client(), add, "medium", "s1")
    assert item is None
    assert report["checks"][-1]["name"] == check and not report["checks"][-1]["ok"]
    assert words in report["reason"]


def test_float_spelling_of_an_integer_parameter_is_the_same_item(fake, make_client, add):
    answer = good()
    answer["parameters"] = {"operand_1": 7.0, "operand_2": 5}
    fake.push(completion(answer))
    item, _ = generate_llm_item(make_client(), add, "medium", "s1")
    assert item.generation_params == {"operand_1": 7, "operand_2": 5}
    assert item.content_key == add.generate("medium", "x", params={"operand_1": 7, "operand_2": 5}).content_key


# --------------------------------------------------------------------------
# Failures of the call


@pytest.mark.parametrize("reply, words", [
    (completion('{"stem": "What is 7 + 5?", "options": ['), "not valid JSON"),
    (completion(refusal="I can't help with that."), "the model refused: I can't help with that."),
    (completion({"stem": "What is 7 + 5?", "options": "12"}), "does not match the schema"),
])
def test_unusable_answers_reject_without_retrying(fake, make_client, add, store, reply, words):
    fake.push(reply)
    item, report = generate_llm_item(make_client(), add, "medium", "s1")
    assert item is None and words in report["reason"]
    assert report["checks"] == [{"name": "llm_call", "ok": False, "detail": report["reason"]}]
    assert len(fake.requests) == 1
    runs = list_runs(store)
    assert [r["verdict"] for r in runs] == ["error"] and words in runs[0]["error"]


def test_timeout_retries_then_rejects(fake, make_client, add, store):
    fake.push(slow(2.0), slow(2.0))
    item, report = generate_llm_item(make_client(timeout_s=0.3, max_retries=1), add, "medium", "s1")
    assert item is None and report["reason"] == "the model server timed out on all 2 attempts"
    runs = list_runs(store)
    assert len(runs) == 2 and all(r["verdict"] == "error" and "timed out" in r["error"] for r in runs)


def test_500_exhausted_retries_then_rejects(fake, make_client, add, store):
    fake.push(error(500), error(502), error(503))
    item, report = generate_llm_item(make_client(max_retries=2), add, "medium", "s1")
    assert item is None and report["reason"] == "the model server failed (HTTP 503) on all 3 attempts"
    assert len(fake.requests) == 3
    assert sorted(r["error"] for r in list_runs(store)) == [
        "the model server failed (HTTP 500) (attempt 1 of 3)", "the model server failed (HTTP 502) (attempt 2 of 3)",
        "the model server failed (HTTP 503) (attempt 3 of 3)"]


def test_429_then_success_retries_and_succeeds(fake, make_client, add, store):
    fake.push(error(429, "slow down", "rate_limit"), completion(good()))
    item, report = generate_llm_item(make_client(), add, "medium", "s1")
    assert report["verdict"] == "verified" and item.correct_answer == "12"
    assert len(fake.requests) == 2
    assert sorted(r["verdict"] for r in list_runs(store)) == ["error", "ok"]


def test_4xx_other_than_429_is_not_retried(fake, make_client, add):
    fake.push(error(400, "bad model name", "invalid_request_error"))
    client = make_client(with_store=False)
    with pytest.raises(LLMError, match=r"refused the request \(HTTP 400\): bad model name"):
        client.structured("item_generator", [{"role": "user", "content": "hi"}], LLMItem)
    assert len(fake.requests) == 1


# --------------------------------------------------------------------------
# Batches


def test_batch_goes_on_past_each_kind_of_failure(fake, make_client, add, store):
    fake.push(completion(good(7, 5)), completion(good(key="13")), completion("{not json"),
              completion(refusal="no"), error(500), slow(2.0), completion(good(8, 4)))
    calls = []
    verified: list[dict] = []
    client = make_client(max_retries=0, timeout_s=0.5, concurrency=3)
    items, rejected = generate_llm_batch(client, add, "medium", 7, "b", progress=lambda d, n: calls.append((d, n)),
                                         verified=verified)
    assert len(items) == 2 and len(rejected) == 5
    assert {tuple(sorted(i.generation_params.values())) for i in items} == {(5, 7), (4, 8)}
    reasons = " | ".join(r["reason"] for r in rejected)
    for words in ("does not match '12'", "not valid JSON", "the model refused: no", "HTTP 500", "timed out"):
        assert words in reasons, words
    assert all(r["verdict"] == "rejected" and r["reason"] for r in rejected)
    assert sorted(calls) == [(d, 7) for d in range(1, 8)]
    assert [i.seed for i in items] == sorted(i.seed for i in items)
    assert len(list_runs(store)) == 7
    assert store_llm_items(store, items, verified) == 2
    assert all(get_item(store, i.id)["verification"]["verdict"] == "verified" for i in items)


def test_batch_rejects_repeated_parameters(fake, make_client, add):
    fake.push(completion(good(7, 5)), completion(good(7, 5, stem="Find the sum of 7 and 5.")))
    items, rejected = generate_llm_batch(make_client(concurrency=1), add, "medium", 2, "b")
    assert len(items) == 1 and "repeats the parameters" in rejected[0]["reason"]


def test_only_multiple_choice_skills_and_known_levels(make_client, add):
    with pytest.raises(GenerationError, match="only for multiple-choice skills"):
        generate_llm_item(make_client(), generator_for(NUMERIC), "easy", "s")
    with pytest.raises(GenerationError, match="no difficulty level 'expert'"):
        generation_prompt(add, "expert")


def test_a_lost_audit_row_does_not_lose_the_answer(fake, add, tmp_path):
    broken = Store(tmp_path / "closed.duckdb")
    broken.close()
    fake.push(completion(good()))
    client = LLMClient(LLMSettings(api_key="k", base_url=fake.base_url, model="fake-model"), broken)
    try:
        item, report = generate_llm_item(client, add, "medium", "s1")
    finally:
        client.close()
    assert report["verdict"] == "verified" and client.record_failures == 1
