"""The pipeline's retries against the local fake OpenAI-compatible server: malformed replies, failed calls and
errors in checking an answer are fixable, retried with the problem fed back, and counted; only when retries run
out is the question rejected, with the stage and the reason."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from core.llm import LLMClient, LLMSettings
from core.llm.pipeline import PipelineConfig, PipelineError, StyleScores, run_pipeline
from tests.llm.fake_openai import completion, error, slow
from tests.llm.test_pipeline import MODELS, calls, passing_item, plan, question, style, verdict

NOT_JSON = completion("Here is my idea: scale a length and read off the volume factor.")


def missing(answer: dict, field: str) -> dict:
    return {k: v for k, v in answer.items() if k != field}


MALFORMED_PLANS = {
    "not JSON": (NOT_JSON, "is not valid JSON"),
    "a field missing": (completion(missing(plan(), "what_is_asked")), "what_is_asked"),
    "a wrong type": (completion({**plan(), "constraints_used": "similarity"}), "constraints_used"),
}


@pytest.fixture
def client(fake):
    c = LLMClient(LLMSettings(api_key="test-key", base_url=fake.base_url, model="fake-model", models=MODELS,
                              timeout_s=5, max_retries=0, backoff_s=0.01, concurrency=1))
    yield c
    c.close()


def prompts_of(fake, model: str) -> list[str]:
    return [text for m, text in calls(fake) if m == model]


@pytest.mark.parametrize("case", list(MALFORMED_PLANS))
def test_a_malformed_designer_reply_is_retried_with_the_problem_and_the_question_accepted(fake, client, case):
    bad, problem = MALFORMED_PLANS[case]
    fake.push(bad, *passing_item())
    result = run_pipeline(client, PipelineConfig(n=1, seed=4, max_retries=2))
    item = result.items[0]
    assert item.accepted and item.attempts == 1 and item.idea_plan["schema_id"] == "M1"
    first, again = prompts_of(fake, "m-designer")
    assert "could not be used" not in first
    assert "Your previous answer could not be used:" in again and problem in again
    assert [(e.agent, e.attempt, e.verdict, e.retried) for e in result.logs][:2] == [
        ("designer", 0, "malformed", True), ("designer", 1, "ok", False)]
    stats = result.stats()
    assert stats["stages"]["designer"]["retries"] == 1 and stats["stages"]["designer"]["malformed"] == 1
    assert stats["retry_reasons"] == {"designer": {"malformed": 1}}


def test_a_designer_malformed_every_time_is_rejected_at_the_designer_after_its_retries(fake, client):
    fake.push(NOT_JSON, NOT_JSON, *passing_item())
    result = run_pipeline(client, PipelineConfig(n=2, seed=4, max_retries=1))
    first, second = result.items
    assert not first.accepted and first.stage == "designer" and first.attempts == 0
    assert first.reason.startswith("designer reply could not be used: the model's answer is not valid JSON")
    assert first.reason.endswith("(no attempts left after 2)")
    assert second.accepted                                    # the run goes on with the next question
    assert [(e.verdict, e.retried) for e in result.logs if e.item == 0] == [("malformed", True), ("malformed", False)]
    assert result.stats()["rejected_by_stage"] == {"designer": 1}


def test_an_implementer_malformed_once_writes_again_from_the_retry_prompt(fake, client):
    wrong_key = {**question(), "correct_option": "Z"}          # fails the question's own checks
    fake.push(completion(plan()), completion(wrong_key), completion(question()), completion(verdict()),
              completion(style()))
    result = run_pipeline(client, PipelineConfig(n=1, seed=4, max_retries=2))
    item = result.items[0]
    assert item.accepted and item.attempts == 2
    retry = prompts_of(fake, "m-implementer")[1]
    assert "Retry instructions" in retry and "scale one input" in retry           # the retry prompt, the plan
    assert "Your previous answer could not be used:" in retry and "correct option 'Z'" in retry
    assert "the previous answer could not be used, see the failure reports" in retry
    assert result.stats()["retry_reasons"] == {"implementer": {"malformed": 1}}


def test_a_malformed_rewrite_keeps_the_judges_report_in_the_next_retry_prompt(fake, client):
    fake.push(completion(plan()), completion(question(stem="ORIGINAL STEM")),
              completion(verdict("fixable_with_regeneration", reasons=["options C and D coincide"])),
              completion("{\"stem\": "), completion(question()), completion(verdict()), completion(style()))
    result = run_pipeline(client, PipelineConfig(n=1, seed=4, max_retries=2))
    assert result.items[0].accepted and result.items[0].attempts == 3
    third = prompts_of(fake, "m-implementer")[2]
    assert "ORIGINAL STEM" in third                                      # the last question it wrote
    assert "options C and D coincide" in third and "is not valid JSON" in third
    assert result.stats()["retry_reasons"] == {"verifier": {"fixable_with_regeneration": 1},
                                               "implementer": {"malformed": 1}}


def test_an_implementer_malformed_every_time_is_rejected_with_stage_and_reason_after_max_retries(fake, client):
    bad = [completion({**question(), "options": "A) 2 B) 4"}), completion(missing(question(), "stem")),
           completion("not json at all")]
    fake.push(completion(plan()), *bad, *passing_item())
    result = run_pipeline(client, PipelineConfig(n=2, seed=4, max_retries=2))
    first, second = result.items
    assert not first.accepted and first.stage == "implementer" and first.attempts == 3
    assert first.reason.startswith("implementer reply could not be used: the model's answer is not valid JSON")
    assert first.reason.endswith("(no attempts left after 3)")
    retries = prompts_of(fake, "m-implementer")[1:3]
    assert "options" in retries[0] and "stem" in retries[1]   # each retry names the last reply's problem
    assert second.accepted
    mine = [e for e in result.logs if e.item == 0 and e.agent == "implementer"]
    assert [(e.attempt, e.verdict, e.retried) for e in mine] == [(0, "malformed", True), (1, "malformed", True),
                                                                (2, "malformed", False)]
    stats = result.stats()
    assert stats["stages"]["implementer"]["malformed"] == 3 and stats["stages"]["implementer"]["retries"] == 2
    assert stats["rejected_by_stage"] == {"implementer": 1}


def test_a_failed_verifier_call_asks_the_verifier_again_about_the_same_question(fake, client):
    fake.push(completion(plan()), completion(question()), error(503, "overloaded"), completion(verdict()),
              completion(style()))
    result = run_pipeline(client, PipelineConfig(n=1, seed=4, max_retries=1))
    item = result.items[0]
    assert item.accepted and item.attempts == 1                  # the question was not written again
    assert [m for m, _ in calls(fake)] == ["m-designer", "m-implementer", "m-verifier", "m-verifier", "m-style_judge"]
    again = prompts_of(fake, "m-verifier")[1]
    assert "A cube's edge is doubled" in again and "Your previous answer could not be used:" in again
    assert "HTTP 503" in again
    assert [(e.agent, e.verdict, e.retried) for e in result.logs if e.verdict != "ok"] == [("verifier", "error", True)]
    assert result.stats()["retry_reasons"] == {"verifier": {"error": 1}}


def test_a_timed_out_implementer_call_is_retried(fake):
    c = LLMClient(LLMSettings(api_key="k", base_url=fake.base_url, model="fake-model", models=MODELS,
                              timeout_s=0.3, max_retries=0, backoff_s=0.01, concurrency=1))
    try:
        fake.push(completion(plan()), slow(2.0, completion(question())), *passing_item()[1:])
        result = run_pipeline(c, PipelineConfig(n=1, seed=4, max_retries=1))
    finally:
        c.close()
    item = result.items[0]
    assert item.accepted and item.attempts == 2
    timed_out = [e for e in result.logs if e.verdict == "error"]
    assert len(timed_out) == 1 and timed_out[0].agent == "implementer" and "timed out" in timed_out[0].reason


def test_an_error_in_checking_an_answer_is_retried_and_recorded(fake, client, monkeypatch):
    real = StyleScores.failures
    raised = []

    def failing_once(self):
        if not raised:
            raised.append(True)
            raise ZeroDivisionError("division by zero")
        return real(self)

    monkeypatch.setattr(StyleScores, "failures", failing_once)
    fake.push(completion(plan()), completion(question()), completion(verdict()), completion(style()),
              completion(style()))
    result = run_pipeline(client, PipelineConfig(n=1, seed=4, max_retries=1))
    item = result.items[0]
    assert item.accepted and item.attempts == 1
    [failed] = [e for e in result.logs if e.verdict == "error"]
    assert failed.agent == "style_judge" and failed.retried
    assert failed.reason == "checking the answer failed (ZeroDivisionError: division by zero)"
    assert [m for m, _ in calls(fake)][-2:] == ["m-style_judge", "m-style_judge"]


def test_an_error_in_checking_with_no_retries_left_rejects_with_stage_and_reason(fake, client, monkeypatch):
    def broken(self):
        raise KeyError("elegance")

    monkeypatch.setattr(StyleScores, "failures", broken)
    fake.push(*passing_item())
    result = run_pipeline(client, PipelineConfig(n=1, seed=4, max_retries=0))
    item = result.items[0]
    assert not item.accepted and item.stage == "style_judge"
    assert item.reason == "style_judge call failed: checking the answer failed (KeyError: 'elegance') (no attempts left after 1)"


def test_an_accepted_question_carries_when_it_was_accepted_and_the_runs_outcome(fake, client):
    before = datetime.now(timezone.utc).replace(microsecond=0)
    fake.push(*passing_item())
    config = PipelineConfig.checked(n=1, seed=4, schema_prefixes=["M", "P"], subject="Mathematics", level="Higher",
                                    outcome_id="MTH-H-02")
    assert config.schema_prefixes == ["M"]                      # only the schemas that write its subject
    result = run_pipeline(client, config)
    item = result.items[0]
    assert item.accepted and (item.subject, item.level, item.outcome_id) == ("Mathematics", "Higher", "MTH-H-02")
    assert before <= datetime.fromisoformat(item.accepted_at) <= datetime.now(timezone.utc)
    record = item.record(result.models)
    assert record["accepted_at"] == item.accepted_at and record["outcome_id"] == "MTH-H-02"


def test_a_course_the_chosen_schemas_cannot_write_for_is_refused():
    with pytest.raises(PipelineError, match="none of the chosen reasoning schemas writes Physics questions"):
        PipelineConfig.checked(schema_prefixes=["M"], subject="Physics", level="Higher", outcome_id="PHY-H-01")
    with pytest.raises(PipelineError, match="an outcome needs its course"):
        PipelineConfig.checked(outcome_id="MTH-H-02")


def test_an_approved_pipeline_question_is_drawn_for_any_class_of_its_course(fake, client, tmp_path):
    """Stored as a draft with its outcome, approved, then among the questions practice and exams draw for a
    class that takes the centre's own questions, as well as for a class that takes approved questions only."""
    from core.blueprints.library import Library
    from core.items import review
    from core.items.sources import QuestionSource
    from core.llm.pipeline import store_accepted
    from core.store import Store
    fake.push(*passing_item())
    config = PipelineConfig.checked(n=1, seed=4, schema_prefixes=["M"], subject="Mathematics", level="Higher",
                                    outcome_id="MTH-H-02")
    result = run_pipeline(client, config)
    store = Store(tmp_path / "drawn.duckdb")
    try:
        assert store_accepted(store, result) == 1
        [iid] = [r[0] for r in store.query("SELECT id FROM items WHERE source = 'pipeline'")]
        source = QuestionSource(Library.load(exercise=False), store)
        assert iid not in [it.id for it in source.bank_candidates("Mathematics", "Higher", "MTH-H-02", ("local",))]
        review.approve(store, [iid])
        source = QuestionSource(Library.load(exercise=False), store)
        drawn = source.bank_candidates("Mathematics", "Higher", "MTH-H-02", ("local",), limit=500)
        assert iid in [it.id for it in drawn]
        assert iid in [it.id for it in source.approved_candidates("Mathematics", "Higher", "MTH-H-02", limit=500)]
        assert iid not in [it.id for it in source.bank_candidates("Mathematics", "Higher", "MTH-H-02", ("past",))]
    finally:
        store.close()
