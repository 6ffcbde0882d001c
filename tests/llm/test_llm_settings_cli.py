"""LLM settings (environment, secrets, the settings page's stored values), concurrent pipeline runs into the
review queue, and the command line, against a local fake OpenAI-compatible server."""
from __future__ import annotations

import json
import threading
import time

import pytest

from core.cli import main
from core.llm import (OFF_MESSAGE, LLMClient, LLMConfigError, LLMSettings, clear_settings, llm_status,
                      save_settings, settings_fingerprint)
from core.llm.pipeline import AGENTS, PipelineConfig, run_pipeline, store_accepted
from core.store import Store, repo
from tests.llm.fake_openai import completion
from tests.llm.test_pipeline import plan, question, style, verdict

AGENT_MODELS = {agent: f"m-{agent}" for agent in AGENTS}


def pipeline_router(delay_s: float = 0.0, active: list | None = None):
    """Every agent passes; each call takes ``delay_s``; ``active`` records the most calls in flight at once."""
    lock = threading.Lock()
    state = {"now": 0}
    replies = {"m-designer": plan(), "m-implementer": None, "m-verifier": verdict(), "m-style_judge": style()}

    def reply(body):
        with lock:
            state["now"] += 1
            if active is not None:
                active.append(state["now"])
        time.sleep(delay_s)
        with lock:
            state["now"] -= 1
        if body["model"] == "m-implementer":
            # a distinct stem per call, so each accepted item is its own question
            return completion(question(stem=f"Question {time.perf_counter_ns()}: a cube's edge is doubled; "
                                            f"by what factor does its volume grow?"))
        return completion(replies[body["model"]])
    return reply


# --------------------------------------------------------------------------
# Settings


def test_off_by_default_with_one_sentence_on_how_to_turn_it_on(store):
    status = llm_status({}, {}, store)
    assert not status.on and status.origin == "off" and status.message() == OFF_MESSAGE


def test_the_settings_page_values_turn_it_on_and_off(store):
    save_settings(store, {"base_url": "http://127.0.0.1:9/v1", "model": "llama3.1", "models": {"tutor": "small"},
                          "api_key": ""}, "Teacher")
    status = llm_status({}, {}, store)
    assert status.on and status.origin == "settings page"
    assert status.settings.api_key == "unused" and status.settings.model_for("tutor") == "small"
    assert "llama3.1" in status.message() and "settings page" in status.message()
    assert clear_settings(store) and not llm_status({}, {}, store).on


def test_environment_and_secrets_take_precedence_over_the_page(store):
    save_settings(store, {"base_url": "http://page/v1", "model": "page-model"})
    env = {"WORKBENCH_LLM_BASE_URL": "http://env/v1", "WORKBENCH_LLM_MODEL": "env-model"}
    status = llm_status({}, env, store)
    assert status.origin == "environment" and status.settings.model == "env-model"
    secrets = {"llm": {"api_key": "sk-secret", "model": "secret-model"}}
    assert llm_status(secrets, {}, store).settings.model == "secret-model"


@pytest.mark.parametrize("values, message", [
    ({"model": "m"}, "an API key or a base URL"),
    ({"base_url": "http://x/v1"}, "name the model"),
    ({"base_url": "http://x/v1", "model": "m", "timeout_s": -1}, "timeout_s"),
    ({"base_url": "http://x/v1", "model": "m", "models": {"poet": "m2"}}, "unknown role"),
])
def test_wrong_settings_are_refused_with_the_field_and_nothing_is_stored(store, values, message):
    with pytest.raises(LLMConfigError, match=message):
        save_settings(store, values)
    assert not llm_status({}, {}, store).on


def test_a_broken_environment_setting_turns_features_off_and_says_why(store):
    status = llm_status({}, {"WORKBENCH_LLM_BASE_URL": "http://x/v1"}, store)
    assert not status.on and "no LLM model is named" in status.message()


def test_the_fingerprint_changes_with_the_settings():
    a = LLMSettings(api_key="k", model="m1")
    assert settings_fingerprint(a) == settings_fingerprint(LLMSettings(api_key="k", model="m1"))
    assert settings_fingerprint(a) != settings_fingerprint(LLMSettings(api_key="k", model="m2"))
    assert settings_fingerprint(None) == "off"


def test_the_connection_check_calls_the_model_once(fake, store):
    fake.default = completion({"reply": "ready"})
    client = LLMClient(LLMSettings(api_key="k", base_url=fake.base_url, model="m", max_retries=0), store)
    try:
        assert client.check() == "ready"
    finally:
        client.close()
    assert len(fake.requests) == 1
    assert store.query("SELECT stage, verdict FROM llm_runs") == [("connection_check", "ok")]


# --------------------------------------------------------------------------
# Pipeline: concurrency and the review queue


def test_pipeline_items_run_concurrently_within_the_bound_and_keep_their_order(fake, store):
    active: list[int] = []
    fake.default = pipeline_router(delay_s=0.05, active=active)
    client = LLMClient(LLMSettings(api_key="k", base_url=fake.base_url, model="m", models=AGENT_MODELS,
                                   max_retries=0, concurrency=3), store)
    done: list[int] = []
    try:
        result = run_pipeline(client, PipelineConfig(n=6, seed=2), progress=lambda d, t, o: done.append(d))
    finally:
        client.close()
    assert [o.item for o in result.items] == list(range(6)) and all(o.accepted for o in result.items)
    assert max(active) == 3                                   # calls overlapped, never beyond the bound
    assert done == [1, 2, 3, 4, 5, 6]
    items = [e.item for e in result.logs]
    assert items == sorted(items) and len(result.logs) == 6 * 4
    same_plan = run_pipeline(LLMClient(LLMSettings(api_key="k", base_url=fake.base_url, model="m",
                                                   models=AGENT_MODELS, concurrency=1)), PipelineConfig(n=6, seed=2))
    assert [(o.schema_id, o.difficulty) for o in same_plan.items] == [(o.schema_id, o.difficulty) for o in result.items]


def test_accepted_pipeline_items_go_to_the_review_queue_with_their_reports(fake, store):
    fake.default = pipeline_router()
    client = LLMClient(LLMSettings(api_key="k", base_url=fake.base_url, model="m", models=AGENT_MODELS), store)
    try:
        result = run_pipeline(client, PipelineConfig(n=2, seed=1, schema_prefixes=["M"]))
    finally:
        client.close()
    assert store_accepted(store, result, "Higher") == 2
    assert store_accepted(store, result, "Higher") == 0       # a second store adds nothing
    rows = repo.list_items(store, source="pipeline")
    assert len(rows) == 2 and {r["status"] for r in rows} == {"draft"}
    row = rows[0]
    assert row["subject"] == "Mathematics" and row["level"] == "Higher" and row["item_type"] == "multiple_choice"
    assert row["options"][row["correct_index"]] == "8" and row["answer_key"] == "8"
    assert row["verification"]["method"] == "four_agent_pipeline" and row["verification"]["style"]["verdict"] == "PASS"
    item = repo.load_item(store, row["id"])
    assert item.misconceptions == {"2": "uses the length factor", "4": "squares instead of cubes",
                                   "6": "adds instead of multiplying"}


# --------------------------------------------------------------------------
# Command line


def test_cli_says_llm_features_are_off(tmp_path, capsys, monkeypatch):
    for name in ("API_KEY", "BASE_URL", "MODEL"):
        monkeypatch.delenv(f"WORKBENCH_LLM_{name}", raising=False)
    db = str(tmp_path / "w.duckdb")
    assert main(["pipeline", "--n", "2", "--db", db]) == 2
    assert OFF_MESSAGE in capsys.readouterr().err
    assert main(["llm-status", "--db", db, "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["on"] is False
    assert main(["llm-items", "ADD_FRACTIONS", "--difficulty", "easy", "--db", db]) == 2
    assert OFF_MESSAGE in capsys.readouterr().err


def test_cli_pipeline_exports_and_fills_the_review_queue(fake, tmp_path, capsys, monkeypatch):
    fake.default = pipeline_router()
    monkeypatch.setenv("WORKBENCH_LLM_BASE_URL", fake.base_url)
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", "m")
    for agent in AGENTS:
        monkeypatch.setenv(f"WORKBENCH_LLM_MODEL_{agent.upper()}", f"m-{agent}")
    db, out = str(tmp_path / "w.duckdb"), tmp_path / "run"
    assert main(["pipeline", "--n", "3", "--seed", "4", "--json", "--db", db, "--out", str(out),
                 "--weights", "easy=1,medium=0,hard=0"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["stats"]["accepted"] == 3 and report["stored_drafts"] == 3 and report["rejected"] == []
    assert {p.name for p in out.iterdir()} == {"accepted.jsonl", "rejected.jsonl", "logs.jsonl", "stats.json"}
    assert {json.loads(line)["difficulty"] for line in (out / "accepted.jsonl").read_text().splitlines()} == {"easy"}
    assert main(["llm-status", "--db", db, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["models"]["style_judge"] == "m-style_judge"
    store = Store(db)
    try:
        assert len(repo.list_items(store, source="pipeline", status="draft")) == 3
        assert store.query("SELECT count(*) FROM llm_runs")[0][0] == 12
    finally:
        store.close()


def test_cli_pipeline_refuses_bad_weights(fake, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("WORKBENCH_LLM_BASE_URL", fake.base_url)
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", "m")
    assert main(["pipeline", "--weights", "easy=lots", "--db", str(tmp_path / "w.duckdb")]) == 2
    assert "name=number" in capsys.readouterr().err
    assert main(["pipeline", "--weights", "tricky=1", "--db", str(tmp_path / "w.duckdb")]) == 2
    assert "unknown difficulty tricky" in capsys.readouterr().err
    assert fake.requests == []


def test_cli_status_warns_when_the_server_set_up_does_not_answer(tmp_path, capsys, monkeypatch):
    from core.llm import reach
    from tests.browser.app_server import free_port
    reach.forget()
    monkeypatch.setenv("WORKBENCH_LLM_BASE_URL", f"http://127.0.0.1:{free_port()}/v1")   # nothing listens there
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", "m")
    assert main(["llm-status", "--db", str(tmp_path / "w.duckdb"), "--json"]) == 2
    said = json.loads(capsys.readouterr().out)
    assert said["on"] is True and said["answers"] is False
    assert "could not be reached" in said["message"] and "Check the connection" in said["message"]


def test_cli_pipeline_files_its_questions_under_a_course_outcome(fake, tmp_path, capsys, monkeypatch):
    fake.default = pipeline_router()
    monkeypatch.setenv("WORKBENCH_LLM_BASE_URL", fake.base_url)
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", "m")
    for agent in AGENTS:
        monkeypatch.setenv(f"WORKBENCH_LLM_MODEL_{agent.upper()}", f"m-{agent}")
    db = str(tmp_path / "w.duckdb")
    assert main(["pipeline", "--outcome", "nope-1", "--db", db]) == 2
    assert "no course outcome 'nope-1'" in capsys.readouterr().err and fake.requests == []
    assert main(["pipeline", "--n", "2", "--seed", "4", "--outcome", "mth-h-02", "--json", "--db", db,
                 "--out", str(tmp_path / "run")]) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["stored_drafts"] == 2, said
    store = Store(db)
    try:
        rows = repo.list_items(store, source="pipeline", status="draft")
        assert {(r["subject"], r["level"], tuple(r["outcome_ids"])) for r in rows} == {
            ("Mathematics", "Higher", ("MTH-H-02",))}
        assert all(r["params"]["accepted_at"] for r in rows)
    finally:
        store.close()
