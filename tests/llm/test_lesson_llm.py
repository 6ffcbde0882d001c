"""A lesson with an LLM, against a local fake OpenAI-compatible server through the real client and flow:
transitions between cards, the end-of-lesson summary, teaching for a question nothing else teaches, and what
happens when the server fails (the lesson goes on in its own words)."""
from __future__ import annotations

import json

import pytest

from core.flows.registry import make_runner
from core.items.banks.importing import import_bank
from core.llm import LLMClient, LLMSettings
from core.llm.assist import Assistant
from core.store import repo
from tests.llm.fake_openai import completion, error

ADD, SUB = "MATH.ARITH.ADD.2DIGIT", "MATH.ARITH.SUB.2DIGIT"
TRANSITION = "Nicely done on adding. Now let's take one away from the other."
SUMMARY = "You got both cards right, the second first time. Next, try a lesson on three-digit numbers."
TEACHING = {"text": "An echo is a sound reflected back. The sound travels there and back, so halve the total "
                    "distance before using $d = vt$.", "key_concept": "An echo's sound travels the distance twice."}


def by_stage(replies: dict):
    """Reply by what the request asks for (the lesson's calls name their task in the system prompt)."""
    def reply(body: dict):
        system = body["messages"][0]["content"]
        for marker, value in replies.items():
            if marker in system:
                return value if not isinstance(value, dict) else completion(value)
        return error(500, "unexpected call")
    return reply


@pytest.fixture
def client(fake, store):
    c = LLMClient(LLMSettings(api_key="k", base_url=fake.base_url, model="m-default", models={"tutor": "m-tutor"},
                              timeout_s=5, max_retries=0, backoff_s=0.01), store)
    yield c
    c.close()


def right(runner, sid):
    item = repo.load_item(runner.ctx.store, runner.view(sid)["card"]["question"]["id"])
    return runner.command(sid, "answer", answer=item.typed_answer)


def test_cards_lead_into_each_other_and_the_llm_writes_the_summary(fake, client, store, library):
    fake.default = by_stage({"react to how": {"text": TRANSITION}, "end-of-lesson summary": {"text": SUMMARY}})
    runner = make_runner(store, library, llm=Assistant(client, library, store))
    sid = runner.start("lesson", "amy", {"skills": [ADD, SUB], "cards": 2, "seed": 1})
    assert runner.view(sid)["card"]["transition"] is None            # the first card needs no lead-in
    right(runner, sid)
    view = runner.command(sid, "next")
    assert view["card"]["transition"] == TRANSITION
    brief = json.loads(fake.requests[-1]["body"]["messages"][-1]["content"])
    assert brief["finished_card"]["result"] == "correct" and brief["progress"] == {"card": 2, "of": 2,
                                                                                   "right_so_far": 1}
    item = repo.load_item(store, view["card"]["question"]["id"])
    assert item.correct_answer not in json.dumps(brief)                # nothing of the next card's key
    done = right(runner, sid)
    summary = done["summary"]
    assert summary["summary"] == SUMMARY and summary["summary_by"] == "llm"
    figures = json.loads(fake.requests[-1]["body"]["messages"][-1]["content"])
    assert figures["cards_correct"] == 2 and figures["stopped_early"] is False
    roles = store.query("SELECT stage, verdict FROM llm_runs ORDER BY created_at")
    assert [tuple(r) for r in roles] == [("lesson_transition", "ok"), ("lesson_summary", "ok")]


def test_when_the_server_fails_the_lesson_goes_on_in_its_own_words(fake, client, store, library):
    fake.default = error(500, "down")
    runner = make_runner(store, library, llm=Assistant(client, library, store))
    sid = runner.start("lesson", "ben", {"skills": [ADD, SUB], "cards": 2, "seed": 2})
    right(runner, sid)
    assert runner.command(sid, "next")["card"]["transition"] is None
    summary = right(runner, sid)["summary"]
    assert summary["summary_by"] == "lesson" and summary["summary"].startswith("You got 2 of 2 cards right")


def test_a_question_nothing_teaches_gets_teaching_written_for_it_without_its_key(fake, client, store, library):
    csv = ("id,source,subject,level,outcome_id,item_type,text,answer,units,marks,explanation\n"
           "echo1,local,Physics,Higher,PHY-H-02,numeric,A ship's sonar pulse returns from the sea bed after 0.40 s. "
           "Sound travels at 1500 m/s in sea water. How deep is the sea?,300,m,2,d = vt / 2 = 1500 × 0.40 / 2.\n")
    report = import_bank(store, csv)
    assert report.ok, report.errors
    item = repo.load_item(store, "echo1")
    fake.default = by_stage({"Before the student answers": TEACHING})
    runner = make_runner(store, library, llm=Assistant(client, library, store))
    from core.flows.base import Step
    from core.flows.lesson import LessonFlow
    flow = LessonFlow(runner.ctx)
    state = flow.new_state({"student": "cat", "config": {"subject": "Physics", "level": "Higher"}, "id": "s"})
    card = flow._card(state, 0, item, "PHY-H-02", "bank", "seed", set(), Step())
    assert card["teaching"]["source"] == "llm" and card["teaching"]["text"] == TEACHING["text"]
    assert card["key_concept"] == TEACHING["key_concept"] and card["hints"][-1] == TEACHING["key_concept"]
    sent = fake.requests[-1]["body"]["messages"][-1]["content"]
    assert "How deep is the sea?" in sent and "300" not in sent and "1500 × 0.40 / 2" not in sent
