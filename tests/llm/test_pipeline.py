"""The Designer -> Implementer -> Verifier -> Style Judge pipeline against a local fake OpenAI-compatible server."""
from __future__ import annotations

import json

import pytest

from core.llm import LLMClient, LLMSettings
from core.llm.pipeline import (AGENTS, PipelineConfig, PipelineError, StyleScores, families, load_prompt,
                               load_schemas, run_pipeline)
from tests.llm.fake_openai import completion, error

MODELS = {agent: f"m-{agent}" for agent in AGENTS}


@pytest.fixture
def client(fake):
    # One call at a time, so the scripted replies meet the calls in order (concurrency has its own test).
    c = LLMClient(LLMSettings(api_key="test-key", base_url=fake.base_url, model="fake-model", models=MODELS,
                              timeout_s=5, max_retries=0, backoff_s=0.01, concurrency=1))
    yield c
    c.close()


def plan(schema_id="M1") -> dict:
    return {"schema_id": schema_id, "idea_summary": "scale one input and read off the factor",
            "function_or_object_type": "similar solids", "constraints_used": ["similarity"],
            "what_is_asked": "the factor by which a volume changes",
            "intended_wrong_paths": ["squares the length factor", "uses the length factor itself", "adds factors"],
            "difficulty_rationale": "one move once seen", "mcq_viability": "each wrong path gives a clean option"}


def question(stem="A cube's edge is doubled. By what factor does its volume grow?", values=("2", "4", "8", "6")) -> dict:
    return {"stem": stem, "options": [{"label": l, "text": t} for l, t in zip("ABCD", values)],
            "correct_option": "C", "reasoning": "Volume scales with the cube of length: 2^3 = 8.",
            "key_insight": "volume goes as length cubed",
            "distractor_map": [{"label": "A", "reasoning_path": "uses the length factor"},
                               {"label": "B", "reasoning_path": "squares instead of cubes"},
                               {"label": "C", "reasoning_path": "correct"},
                               {"label": "D", "reasoning_path": "adds instead of multiplying"}]}


def verdict(severity="ok", **extra) -> dict:
    base = {"verdict": "PASS" if severity == "ok" else "FAIL", "severity": severity,
            "confidence": "high" if severity == "ok" else None, "failure_type": None, "reasons": [],
            "regen_instructions": []}
    return {**base, **extra}


def style(score=9, severity=None, **extra) -> dict:
    scores = {k: 9 for k in StyleScores.model_fields}
    scores["elegance"] = score
    severity = severity or ("ok" if score >= 7 else "fixable_with_regeneration")
    return {"verdict": "PASS" if severity == "ok" else "FAIL", "scores": scores, "severity": severity,
            "failure_type": None, **extra}


def passing_item() -> list:
    return [completion(plan()), completion(question()), completion(verdict()), completion(style())]


def calls(fake) -> list[tuple[str, str]]:
    """(model, user message) for every request the server saw."""
    return [(r["body"]["model"], r["body"]["messages"][-1]["content"]) for r in fake.requests]


def read_jsonl(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


# --------------------------------------------------------------------------


def test_schema_library_and_prompts_load():
    ids = [s.id for s in load_schemas()]
    assert ids == ([f"M{i}" for i in range(1, 8)] + [f"P{i}" for i in range(1, 8)] + [f"C{i}" for i in range(1, 7)]
                   + [f"B{i}" for i in range(1, 7)])
    assert families() == [("M", "Mathematics (M1–M7)"), ("P", "Physics (P1–P7)"), ("C", "Chemistry (C1–C6)"),
                          ("B", "Biology (B1–B6)")]
    assert all(s.question_shapes for s in load_schemas())
    assert "retry" in load_prompt("implementer")
    for agent in AGENTS:
        assert {"system", "user"} <= set(load_prompt(agent))


def test_style_rule():
    good = StyleScores(**{k: 8 for k in StyleScores.model_fields})
    assert good.failures() == []
    one_low = good.model_copy(update={"elegance": 6})
    assert any("elegance scored 6" in f for f in one_low.failures())
    all_sevens = StyleScores(**{k: 7 for k in StyleScores.model_fields})
    assert all_sevens.failures() == ["mean score 7.00 is under 8"]


def test_item_accepted_first_time(fake, client, tmp_path):
    fake.push(*passing_item())
    seen = []
    result = run_pipeline(client, PipelineConfig(n=1, seed=3, schema_prefixes=["M"]),
                          progress=lambda done, total, item: seen.append((done, total, item.accepted)))
    assert seen == [(1, 1, True)]
    assert len(fake.requests) == 4
    assert [m for m, _ in calls(fake)] == ["m-designer", "m-implementer", "m-verifier", "m-style_judge"]
    item = result.items[0]
    assert item.accepted and item.attempts == 1 and item.schema_id.startswith("M")
    designer_prompt = calls(fake)[0][1]
    assert f"Schema: {item.schema_id}" in designer_prompt and f"Target difficulty: {item.difficulty}" in designer_prompt
    assert "scale one input" in calls(fake)[1][1]          # the idea plan reaches the Implementer
    assert "A cube's edge is doubled" in calls(fake)[2][1]  # the question reaches the Verifier
    assert [(e.agent, e.attempt, e.verdict) for e in result.logs] == [
        ("designer", 0, "ok"), ("implementer", 0, "ok"), ("verifier", 0, "ok"), ("style_judge", 0, "ok")]


def test_a_chemistry_outcome_gets_chemistry_schemas_and_prompts_that_speak_of_chemistry(fake, client):
    """Filed under a Chemistry outcome, a run draws only the C schemas; the Designer writes for a chemistry
    candidate and the Verifier checks the chemistry; a mathematics run's prompts are as they were."""
    fake.push(*passing_item())
    config = PipelineConfig.checked(n=1, seed=5, subject="Chemistry", level="Higher", outcome_id="CHE-H-01")
    assert config.schema_prefixes == ["C"]
    item = run_pipeline(client, config).items[0]
    assert item.accepted and item.schema_id.startswith("C") and item.subject == "Chemistry"
    systems = [r["body"]["messages"][0]["content"] for r in fake.requests]
    assert "strong A-level chemistry" in systems[0] and "A-level mathematics, knows" not in systems[0]
    assert "- the chemistry (and any arithmetic in it) is correct" in systems[2]
    assert "{" not in "".join(systems)   # every word the prompts ask for was filled

    fake.requests.clear()
    fake.push(*passing_item())
    run_pipeline(client, PipelineConfig(n=1, seed=3, schema_prefixes=["M"]))
    systems = [r["body"]["messages"][0]["content"] for r in fake.requests]
    assert ("The candidate has strong A-level mathematics, knows differentiation and simple integration\nonly, "
            "is fluent but short of time, and has no calculator.") in systems[0]
    assert "- the mathematics or physics is correct and the marked option is right;" in systems[2]


def test_fixable_then_accepted_on_retry(fake, client):
    fake.push(completion(plan()), completion(question(stem="ORIGINAL STEM with two readings")),
              completion(verdict("fixable_with_regeneration", failure_type="ambiguity",
                                 reasons=["the stem can be read two ways"],
                                 regen_instructions=["say which edge is doubled"])),
              completion(question()), completion(verdict()), completion(style()))
    result = run_pipeline(client, PipelineConfig(n=1, seed=1, max_retries=2))
    item = result.items[0]
    assert item.accepted and item.attempts == 2
    regen = fake.requests[3]["body"]
    assert regen["model"] == "m-implementer"
    user = regen["messages"][-1]["content"]
    assert "Retry instructions" in user
    assert "ORIGINAL STEM with two readings" in user            # the previous attempt
    assert "the stem can be read two ways" in user and "say which edge is doubled" in user  # the failure report
    assert "Verifier FAIL report" in user
    assert "scale one input" in user                            # the idea plan
    assert [(e.agent, e.attempt, e.verdict) for e in result.logs][2:] == [
        ("verifier", 0, "fixable_with_regeneration"), ("implementer", 1, "ok"), ("verifier", 1, "ok"),
        ("style_judge", 1, "ok")]


def test_structural_flaw_rejects_at_once(fake, client):
    fake.push(completion(plan()), completion(question()),
              completion(verdict("structural_flaw", failure_type="non_unique_answer",
                                 reasons=["two options are correct for any choice of numbers"])),
              *passing_item())
    result = run_pipeline(client, PipelineConfig(n=2, seed=5, max_retries=3))
    first, second = result.items
    assert not first.accepted and first.stage == "verifier" and first.attempts == 1
    assert "two options are correct" in first.reason and "non_unique_answer" in first.reason
    # no further calls for the first item: the next request is the second item's Designer
    assert [m for m, _ in calls(fake)][3] == "m-designer"
    assert len(fake.requests) == 7 and second.accepted


def test_low_style_score_rejected_after_retries(fake, client):
    fake.push(completion(plan()))
    for _ in range(2):  # max_retries=1: two attempts, both scored 6 on elegance
        fake.push(completion(question()), completion(verdict()), completion(style(score=6)))
    result = run_pipeline(client, PipelineConfig(n=1, seed=2, max_retries=1))
    item = result.items[0]
    assert not item.accepted and item.stage == "style_judge" and item.attempts == 2
    assert "elegance scored 6" in item.reason and "no attempts left" in item.reason
    assert len(fake.requests) == 7
    regen = calls(fake)[4]
    assert regen[0] == "m-implementer" and "Style Judge FAIL report" in regen[1] and "elegance scored 6" in regen[1]
    assert [e.verdict for e in result.logs if e.agent == "style_judge"] == ["fixable_with_regeneration"] * 2


def test_judge_pass_with_low_scores_still_fails_the_rule(fake, client):
    low_but_pass = style(score=9)
    low_but_pass["scores"] = {k: 7 for k in StyleScores.model_fields}  # no category under 7 but mean 7 < 8
    fake.push(completion(plan()), completion(question()), completion(verdict()), completion(low_but_pass))
    result = run_pipeline(client, PipelineConfig(n=1, max_retries=0))
    assert not result.items[0].accepted and "mean score 7.00 is under 8" in result.items[0].reason


def test_a_failed_call_with_no_retries_left_rejects_one_item_and_the_run_goes_on(fake, client):
    fake.push(completion(plan()), error(500, "the GPU caught fire"), *passing_item())
    result = run_pipeline(client, PipelineConfig(n=2, seed=9, max_retries=0))
    first, second = result.items
    assert not first.accepted and first.stage == "implementer"
    assert first.reason.startswith("implementer call failed:") and "HTTP 500" in first.reason
    assert second.accepted
    errors = [e for e in result.logs if e.verdict == "error"]
    assert len(errors) == 1 and errors[0].item == 0 and errors[0].agent == "implementer" and not errors[0].retried


def test_seeded_choices_respect_prefixes_and_weights(fake, client):
    fake.default = error(400, "nothing scripted", "invalid_request_error")
    a = run_pipeline(client, PipelineConfig(n=6, seed=42, schema_prefixes=["P"],
                                            difficulty_weights={"hard": 1.0}))
    b = run_pipeline(client, PipelineConfig(n=6, seed=42, schema_prefixes=["P"],
                                            difficulty_weights={"hard": 1.0}))
    assert [i.schema_id for i in a.items] == [i.schema_id for i in b.items]
    assert all(i.schema_id.startswith("P") and i.difficulty == "hard" for i in a.items)
    assert all(i.stage == "designer" and "HTTP 400" in i.reason for i in a.items)
    with pytest.raises(PipelineError, match="no reasoning schema starts with X"):
        run_pipeline(client, PipelineConfig(schema_prefixes=["X"]))


def test_export_files(fake, client, tmp_path):
    fake.push(*passing_item(),
              completion(plan()), completion(question()),
              completion(verdict("structural_flaw", failure_type="mathematical_error", reasons=["the key is wrong"])),
              completion(plan()), completion(question()),
              completion(verdict("fixable_with_regeneration", reasons=["options C and D coincide"])),
              completion(question()), completion(verdict()), completion(style()))
    result = run_pipeline(client, PipelineConfig(n=3, seed=7, max_retries=2))
    out = result.export(tmp_path / "run")
    assert sorted(p.name for p in out.iterdir()) == ["accepted.jsonl", "logs.jsonl", "rejected.jsonl", "stats.json"]

    accepted = read_jsonl(out / "accepted.jsonl")
    assert [a["item"] for a in accepted] == [0, 2]
    first = accepted[0]
    assert first["id"].startswith(f"{first['schema_id']}-{first['difficulty']}-")
    assert first["question"]["correct_option"] == "C" and first["idea_plan"]["schema_id"] == "M1"
    assert first["verifier_report"]["verdict"] == "PASS" and first["style_report"]["scores"]["elegance"] == 9
    assert first["models"] == MODELS and first["attempts"] == 1 and accepted[1]["attempts"] == 2

    rejected = read_jsonl(out / "rejected.jsonl")
    assert len(rejected) == 1
    assert rejected[0]["item"] == 1 and rejected[0]["stage"] == "verifier"
    assert "the key is wrong" in rejected[0]["reason"]

    logs = read_jsonl(out / "logs.jsonl")
    assert len(logs) == len(fake.requests) == 13
    assert all(set(line) == {"item", "agent", "attempt", "verdict", "reason", "retried"} for line in logs)
    assert {"item": 1, "agent": "verifier", "attempt": 0, "verdict": "structural_flaw",
            "reason": "verifier mathematical_error: the key is wrong", "retried": False} in logs
    assert {"item": 2, "agent": "verifier", "attempt": 0, "verdict": "fixable_with_regeneration",
            "reason": "verifier failure: options C and D coincide", "retried": True} in logs
    assert all(a["accepted_at"] and a["outcome_id"] is None for a in accepted)
    assert "accepted_at" not in rejected[0]

    stats = json.loads((out / "stats.json").read_text())
    assert (stats["items"], stats["accepted"], stats["rejected"]) == (3, 2, 1)
    assert stats["acceptance_rate"] == round(2 / 3, 4)
    assert stats["rejected_by_stage"] == {"verifier": 1}
    none = {"retries": 0, "malformed": 0, "errors": 0}
    assert stats["stages"]["designer"] == {"calls": 3, "passed": 3, "acceptance_rate": 1.0, **none}
    assert stats["stages"]["verifier"] == {"calls": 4, "passed": 2, "acceptance_rate": 0.5, **none, "retries": 1}
    assert stats["stages"]["style_judge"] == {"calls": 2, "passed": 2, "acceptance_rate": 1.0, **none}
    assert stats["mean_attempts"] == round((1 + 1 + 2) / 3, 4) and stats["mean_attempts_accepted"] == 1.5
    assert stats["retries"] == 1 and stats["retry_reasons"] == {"verifier": {"fixable_with_regeneration": 1}}
    assert stats["stages"]["verifier"]["retries"] == 1 and stats["stages"]["implementer"]["retries"] == 0
