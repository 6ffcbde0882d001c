"""LLM help in practice and lessons (question fallback, variants, short-text judge, remediation, tutor)
against a local fake OpenAI-compatible server, through the real client, flows and database."""
from __future__ import annotations

import json

import pytest

from core.llm.assist import JUDGE_CONFIDENCE, Assistant
from core.blueprints.loader import parse_text
from core.flows.remediation import diagnose
from core.flows.base import FlowError
from core.flows.registry import make_runner
from core.items.generator import Item
from core.llm import OFF_MESSAGE, LLMClient, LLMSettings
from core.marking import MarkingSpec, mark_answer
from core.items.sources import NoQuestions, QuestionSource
from core.store import repo
from tests.llm.fake_openai import completion, error

MODELS = {"item_generator": "m-writer", "verifier": "m-verifier", "tutor": "m-tutor"}

GEO_SPEC = """spec_id: GEO-N5
subject: Geography
level: Nat 5
outcomes: [{id: GEO-5-01, label: Reading grid references, weight: 1}]
assessment_structure: [{section: Paper, outcome_ids: [GEO-5-01], marks: 10, time_allowed_minutes: 20}]
"""

WRITTEN = {"text": "A map has a scale of 1:50 000. Two villages are 4 cm apart on the map. How many kilometres "
                   "apart are they?", "item_type": "numeric", "answer": "2", "options": [], "units": "km",
           "keywords": [], "explanation": "4 cm x 50 000 = 200 000 cm = 2 km.", "hints": ["Convert cm to km."]}


def router(answers: dict):
    """Reply by the model the request names (one model per role), so concurrent calls need no order."""
    def reply(body: dict):
        value = answers[body["model"]]
        value = value(body) if callable(value) else value
        return value if not isinstance(value, dict) else completion(value)
    return reply


@pytest.fixture
def client(fake, store):
    c = LLMClient(LLMSettings(api_key="k", base_url=fake.base_url, model="m-default", models=MODELS, timeout_s=5,
                              max_retries=0, backoff_s=0.01), store)
    yield c
    c.close()


@pytest.fixture
def geo(library):
    spec = parse_text(GEO_SPEC, "geo.yaml")
    library.specs[spec.id] = spec
    yield library
    del library.specs[spec.id]


def test_generate_question_is_verified_by_an_independent_solve_and_lands_in_review(fake, client, store, geo):
    fake.default = router({"m-writer": WRITTEN, "m-verifier": {"answer": "2 km", "working": "4 x 0.5 km"}})
    item = Assistant(client, geo, store).generate_question("Geography", "Nat 5", "GEO-5-01", marks=2, seed="s1")
    assert item.source == "llm" and item.correct_answer == "2" and item.units == "km" and item.marks == 2
    writer, verifier = fake.requests
    assert "GEO-5-01: Reading grid references" in writer["body"]["messages"][-1]["content"]
    assert '"2"' not in verifier["body"]["messages"][-1]["content"]          # the verifier never sees the key
    stored = repo.get_item(store, item.id)
    assert stored["status"] == "draft" and stored["source"] == "llm"
    assert stored["verification"]["verdict"] == "verified" and stored["verification"]["verifier_answer"] == "2 km"
    runs = store.query("SELECT role, verdict FROM llm_runs ORDER BY created_at")
    assert sorted(runs) == [("item_generator", "ok"), ("verifier", "ok")]


@pytest.mark.parametrize("verifier, reason", [
    ({"answer": "20"}, "does not match the key"),
    ({"answer": "", "problem": "the scale is not stated clearly"}, "the scale is not stated clearly"),
])
def test_a_question_the_verifier_disputes_is_rejected_and_not_stored(fake, client, store, geo, verifier, reason):
    fake.default = router({"m-writer": WRITTEN, "m-verifier": verifier})
    with pytest.raises(NoQuestions, match=reason):
        Assistant(client, geo, store).generate_question("Geography", "Nat 5", "GEO-5-01")
    assert store.query("SELECT count(*) FROM items")[0][0] == 0


@pytest.mark.parametrize("reply, reason", [
    (completion("{not json"), "not valid JSON"),
    (completion(refusal="I can't help with that"), "refused"),
    (error(500, "boom"), "HTTP 500"),
    (completion({**WRITTEN, "item_type": "essay"}), "does not match the schema"),
    (completion({**WRITTEN, "item_type": "numeric", "answer": "two"}), "needs a number"),
])
def test_a_failed_or_malformed_question_names_the_reason(fake, client, store, geo, reply, reason):
    fake.default = reply
    with pytest.raises(NoQuestions, match=reason):
        Assistant(client, geo, store).generate_question("Geography", "Nat 5", "GEO-5-01")
    assert store.query("SELECT count(*) FROM items")[0][0] == 0


def test_practice_falls_back_to_the_llm_for_an_outcome_nothing_else_covers(fake, client, store, geo):
    fake.default = router({"m-writer": WRITTEN, "m-verifier": {"answer": "2"}})
    runner = make_runner(store, geo, llm=Assistant(client, geo, store))
    sid = runner.start("practice", "amy", {"subject": "Geography", "level": "Nat 5", "outcome": "GEO-5-01"})
    view = runner.view(sid)
    assert view["question"]["stem"].startswith("A map has a scale")
    events = store.query("SELECT payload FROM events WHERE session_id = ? AND type = 'presented'", [sid])
    assert json.loads(events[0][0])["route"] == "llm"
    after = runner.command(sid, "answer", item_id=view["question"]["id"], answer="2 km")
    assert after["feedback"]["correct"] is True


def test_without_an_llm_the_uncovered_outcome_says_how_to_get_one(store, geo):
    runner = make_runner(store, geo)
    with pytest.raises(FlowError, match="configure an LLM"):
        runner.start("practice", "amy", {"subject": "Geography", "level": "Nat 5", "outcome": "GEO-5-01"})


def test_an_exam_never_calls_the_llm(fake, client, store, geo):
    library = geo
    fake.default = error(500, "the exam must not call the model")
    runner = make_runner(store, library, llm=Assistant(client, library, store))
    with pytest.raises(FlowError, match="GEO-5-01"):   # practice would ask the LLM; an exam reports the gap
        runner.start("exam", "amy", {"subject": "Geography", "level": "Nat 5", "seed": 3})
    assert fake.requests == []
    sid = runner.start("exam", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": 3})
    view = runner.view(sid)
    assert view["stage"] == "sitting" and view["exam"]
    assert fake.requests == []
    with pytest.raises(FlowError):
        runner.command(sid, "ask_tutor", question="what is the answer?")
    assert fake.requests == []


def bank_item() -> Item:
    from core.items.banks import bank_question_to_item
    return bank_question_to_item({"id": "geo_q1", "subject": "Geography", "level": "Nat 5", "outcome_id": "GEO-5-01",
                                  "marks": 1, "text": "Name the feature shown by contour lines close together.",
                                  "answer": "steep slope", "item_type": "short_text",
                                  "keywords": ["steep"]}, source="local")


def test_mutate_question_gives_a_verified_variant(fake, client, store, geo):
    variant = {**WRITTEN, "text": "On a 1:25 000 map two farms are 8 cm apart. How many km apart are they?"}
    fake.default = router({"m-writer": variant, "m-verifier": {"answer": "2"}})
    item = bank_question_to_numeric()
    out = QuestionSource(geo, store, Assistant(client, geo, store)).mutate_question(item, 1)
    assert out.source == "variant" and out.id == f"{item.id}_variant_1" and "1:25 000" in out.stem
    assert "50 000" in fake.requests[0]["body"]["messages"][-1]["content"]   # the original went to the writer


def bank_question_to_numeric() -> Item:
    from core.items.banks import bank_question_to_item
    return bank_question_to_item({"id": "geo_q2", "subject": "Geography", "level": "Nat 5", "outcome_id": "GEO-5-01",
                                  "marks": 2, "text": WRITTEN["text"], "answer": "2", "units": "km"}, source="local")


# --------------------------------------------------------------------------
# Short-text judge


def keyword_mark(item: Item, answer: str):
    return mark_answer(MarkingSpec.from_item(item), answer)


def test_a_confident_judge_accepts_a_paraphrase_the_keywords_miss(fake, client, store, geo):
    fake.default = completion({"equivalent": True, "confidence": 0.93, "reason": "a sharp rise means steep ground"})
    item = bank_item()
    assert keyword_mark(item, "the ground rises sharply").correct is False
    judged = Assistant(client, geo, store).judge_short_text(item, "the ground rises sharply",
                                                             keyword_mark(item, "the ground rises sharply"))
    assert judged.judged_by == "llm" and judged.mark.correct and judged.mark.score == judged.mark.max_score
    body = fake.requests[0]["body"]
    assert body["model"] == "m-verifier" and "the ground rises sharply" in body["messages"][-1]["content"]


@pytest.mark.parametrize("reply, by, error_text", [
    (completion({"equivalent": True, "confidence": JUDGE_CONFIDENCE - 0.2, "reason": "unsure"}), "keywords",
     "not confident"),
    (error(500), "keywords", "HTTP 500"),
    (completion("[]"), "keywords", "schema"),
])
def test_an_unsure_or_failed_judge_leaves_the_keyword_rubric_in_charge(fake, client, store, geo, reply, by, error_text):
    fake.default = reply
    item = bank_item()
    judged = Assistant(client, geo, store).judge_short_text(item, "rises sharply", keyword_mark(item, "rises sharply"))
    assert judged.judged_by == by and judged.mark.correct is False and error_text in judged.error


def test_a_confident_judge_can_also_refuse_what_the_keywords_accept(fake, client, store, geo):
    fake.default = completion({"equivalent": False, "confidence": 0.9, "reason": "says not steep"})
    item = bank_item()
    judged = Assistant(client, geo, store).judge_short_text(item, "it is not steep", keyword_mark(item, "it is not steep"))
    assert judged.mark.correct is False and judged.mark.score == 0 and "says not steep" in judged.mark.feedback


# --------------------------------------------------------------------------
# Remediation and the tutor in practice


TUTOR_REMEDIATION = {"what_went_wrong": "You multiplied instead of dividing.", "key_concept": "Inverse operations.",
                     "try_this": "Check by multiplying back."}


def wrong_answer_practice(fake, client, store, library, tutor_reply):
    fake.default = router({"m-tutor": tutor_reply, "m-verifier": {"equivalent": False, "confidence": 0.9,
                                                                  "reason": "no"}})
    runner = make_runner(store, library, llm=Assistant(client, library, store))
    sid = runner.start("practice", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": 4})
    q = runner.view(sid)["question"]
    return runner, sid, runner.command(sid, "answer", item_id=q["id"], answer=readable_wrong(store, q["id"]))


def readable_wrong(store, item_id: str) -> str:
    """A wrong answer the question can read (one it cannot read is not an answer, so gets no remediation)."""
    item = repo.load_item(store, item_id)
    if item.options:
        return next(o for k, o in enumerate(item.options) if k != item.correct_index)
    spec = MarkingSpec.from_item(item)
    return next(g for g in ("98765", "x + 98765", "definitely not 98765")
                if mark_answer(spec, g).valid and not mark_answer(spec, g).correct)


def test_a_wrong_answer_gets_the_tutor_remediation_next_to_cores(fake, client, store, library):
    runner, sid, view = wrong_answer_practice(fake, client, store, library, TUTOR_REMEDIATION)
    rem = view["feedback"]["remediation"]
    assert rem["tutor"] == TUTOR_REMEDIATION and rem["what_went_wrong"] and rem["key_concept"]


def test_a_failed_tutor_keeps_cores_remediation_and_says_why(fake, client, store, library):
    runner, sid, view = wrong_answer_practice(fake, client, store, library, lambda body: error(429, "slow down"))
    rem = view["feedback"]["remediation"]
    assert "tutor" not in rem and "unavailable" in rem["tutor_error"] and "429" in rem["tutor_error"]
    assert rem["what_went_wrong"] and rem["key_concept"]


def test_ask_the_tutor_after_feedback_keeps_the_conversation(fake, client, store, library):
    replies = iter(["Because 3 x 4 is 12, not 7.", "Yes: add the 4s three times."])
    runner, sid, view = wrong_answer_practice(
        fake, client, store, library,
        lambda body: completion({"reply": next(replies)} if "Reply with" not in json.dumps(body) and
                                any(m["role"] == "system" and "friendly tutor" in m["content"] for m in body["messages"])
                                else TUTOR_REMEDIATION))
    view = runner.command(sid, "ask_tutor", question="Why is my answer wrong?")
    view = runner.command(sid, "ask_tutor", question="Can I check it another way?")
    assert view["tutor"] == [{"question": "Why is my answer wrong?", "reply": "Because 3 x 4 is 12, not 7."},
                             {"question": "Can I check it another way?", "reply": "Yes: add the 4s three times."}]
    last = fake.requests[-1]["body"]["messages"]
    assert last[-1]["content"] == "Can I check it another way?"
    assert "Why is my answer wrong?" in [m["content"] for m in last]          # the earlier turn went as context
    given = runner.state(sid)["last"]["answer"]
    assert given in last[1]["content"]                                       # the student's answer is context
    runner.forget(sid)
    assert runner.view(sid)["tutor"] == view["tutor"]                        # rebuilt from the stored events
    runner.command(sid, "next")
    with pytest.raises(FlowError, match="answer a question first"):
        runner.command(sid, "ask_tutor", question="and now?")


def test_ask_the_tutor_without_an_llm_says_how_to_turn_it_on(store, library):
    runner = make_runner(store, library)
    sid = runner.start("practice", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": 4})
    q = runner.view(sid)["question"]
    runner.command(sid, "answer", item_id=q["id"], answer="0")
    with pytest.raises(FlowError, match="Settings page"):
        runner.command(sid, "ask_tutor", question="why?")
    assert "Settings page" in OFF_MESSAGE


def test_an_empty_tutor_question_is_refused_before_any_call(fake, client, store, library):
    runner, sid, _ = wrong_answer_practice(fake, client, store, library, TUTOR_REMEDIATION)
    calls = len(fake.requests)
    with pytest.raises(FlowError, match="type a question"):
        runner.command(sid, "ask_tutor", question="   ")
    assert len(fake.requests) == calls


def test_diagnose_without_a_source_never_asks_the_llm(fake, client, store, geo):
    item = bank_item()
    assert diagnose(item, "flat").remediation["what_went_wrong"]
    assert fake.requests == []
