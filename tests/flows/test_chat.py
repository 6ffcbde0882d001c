"""Talking to the tutor: a conversation stored event by event, its summary and window, practice questions drawn
and marked by core, and failures that lose nothing, against a local fake OpenAI-compatible server through the
real client, flows and database (a DuckDB file, and a PostgreSQL database)."""
from __future__ import annotations

import json
import re

import pytest

from core.flows.base import FlowError
from core.flows.chat import conversations
from core.flows.registry import make_runner
from core.llm import LLMClient, LLMSettings, chat
from core.llm.assist import Assistant
from core.marking import MarkingSpec, mark_answer
from core.store import repo
from tests.llm.conftest import fake  # noqa: F401 - the fake server fixture
from tests.llm.fake_openai import completion, error

COURSE = {"subject": "Mathematics", "level": "Nat 5"}
SKILL = "SQA.MATH.N5.FRACTIONS_MIXED_NUMBERS"
SUMMARY = "They revised fractions and asked about the quadratic formula."


class Tutor:
    """The model: scripted chat replies in order (then a default), summaries on request; every call kept."""

    def __init__(self, replies=(), default=None):
        self.replies = list(replies)
        self.default = default or {"reply": "Good question: what do you think the first step is?"}
        self.summaries = []
        self.chats = []

    def __call__(self, body):
        system = body["messages"][0]["content"]
        if system.startswith("You keep the notes"):
            self.summaries.append(body["messages"])
            return completion({"summary": SUMMARY})
        self.chats.append(body["messages"])
        reply = self.replies.pop(0) if self.replies else self.default
        return reply if not isinstance(reply, dict) else completion(reply)


@pytest.fixture
def client(fake, store):  # noqa: F811 - the fake server fixture
    c = LLMClient(LLMSettings(api_key="k", base_url=fake.base_url, model="m-tutor", timeout_s=5, max_retries=0,
                              backoff_s=0.01), store)
    yield c
    c.close()


@pytest.fixture
def runner(store, library, client, clock):
    return make_runner(store, library, llm=Assistant(client, library, store), clock=clock)


def talk(runner, sid, text, clock=None):
    runner.command(sid, "say", text=text)
    if clock is not None:
        clock.advance(5)
    return runner.command(sid, "reply")


def said_texts(view):
    return [(m["role"], m.get("text")) for m in view["messages"] if m["role"] in ("student", "tutor")]


# ---------------------------------------------------------------------------
# A conversation


def test_a_conversation_is_stored_and_resumed_by_a_second_runner(fake, store, library, client, runner, clock):
    tutor = Tutor([{"reply": "A fraction is part of a whole: $\\frac{3}{4}$ is three quarters."},
                   {"reply": "Multiply the top and the bottom by the same number."},
                   {"reply": "Yes: $\\frac{6}{8} = \\frac{3}{4}$."}])
    fake.default = tutor
    sid = runner.start("chat", "amy", COURSE)
    view = talk(runner, sid, "What is a fraction?", clock)
    view = talk(runner, sid, "How do I find an equivalent fraction?", clock)
    assert said_texts(view) == [("student", "What is a fraction?"),
                                ("tutor", "A fraction is part of a whole: $\\frac{3}{4}$ is three quarters."),
                                ("student", "How do I find an equivalent fraction?"),
                                ("tutor", "Multiply the top and the bottom by the same number.")]
    assert view["title"] == "What is a fraction?" and view["waiting"] is False

    system = tutor.chats[0][0]["content"]
    assert "SQA National 5 Mathematics" in system and "Mathematics, Nat 5" in system
    for outcome in library.spec("Mathematics", "Nat 5").outcomes:
        assert f"{outcome.id}: {outcome.label}" in system
    assert "British English" in system and "$x^2 - 5x + 6 = 0$" in system
    assert [m["content"] for m in tutor.chats[1][1:]] == ["What is a fraction?", view["messages"][1]["text"],
                                                          "How do I find an equivalent fraction?"]

    # Another process (a restart, a second tab) rebuilds the same conversation from the stored events and goes on.
    second = make_runner(store, library, llm=Assistant(client, library, store), clock=clock)
    assert said_texts(second.view(sid)) == said_texts(view)
    view = talk(second, sid, "So 6/8 is the same as 3/4?", clock)
    assert [m["content"] for m in tutor.chats[2][1:]][:2] == ["What is a fraction?", view["messages"][1]["text"]]
    assert said_texts(view)[-1] == ("tutor", "Yes: $\\frac{6}{8} = \\frac{3}{4}$.")
    types = [t for (t,) in store.query("SELECT type FROM events WHERE session_id = ? ORDER BY seq", [sid])]
    assert types == ["opened", "said", "replied", "said", "replied", "said", "replied"]
    runs = store.query("SELECT role, stage, verdict FROM llm_runs")
    assert runs == [("tutor", "chat", "ok")] * 3


def test_a_conversation_is_about_the_class_course_by_default(fake, store, library, runner):
    from core.school.classes import add_student, create_class
    create_class(store, "CHAT-H", "Higher class", "Mathematics", "Higher")
    student = add_student(store, "CHAT-H", "Clara Oswald")
    fake.default = Tutor()
    sid = runner.start("chat", student, {})
    view = talk(runner, sid, "Where do I start with differentiation?")
    assert (view["subject"], view["level"]) == ("Mathematics", "Higher")
    assert "SQA Higher Mathematics" in fake.requests[-1]["body"]["messages"][0]["content"]


def test_the_older_messages_are_summarised_past_the_threshold_and_the_window_sent(fake, store, runner, clock):
    tutor = Tutor(default=None)
    fake.default = tutor
    sid = runner.start("chat", "amy", COURSE)
    turns = 11    # 21 messages before the 11th reply: 9 of them outside the window of 12
    for n in range(1, turns + 1):
        view = talk(runner, sid, f"Question number {n} about fractions", clock)
    assert len(tutor.summaries) == 1
    summarised = tutor.summaries[0][1]["content"]
    assert "Student: Question number 1 about fractions" in summarised
    assert "Question number 5 about fractions" in summarised and "Question number 6 about" not in summarised
    state = runner.state(sid)
    assert state["summary"] == {"text": SUMMARY, "upto": 9}
    sent = tutor.chats[-1]
    assert sent[1] == {"role": "system", "content": f"A summary of the earlier part of this conversation:\n{SUMMARY}"}
    verbatim = [m["content"] for m in sent[2:]]
    assert len(verbatim) == 21 - 9 and verbatim[-1] == "Question number 11 about fractions"
    assert "Question number 1 about fractions" not in json.dumps(sent)
    assert verbatim[0] == state["messages"][9]["text"]
    assert len([m for m in view["messages"] if m["role"] == "student"]) == turns   # the page still shows them all
    runs = store.query("SELECT stage, count(*) FROM llm_runs GROUP BY stage ORDER BY stage")
    assert runs == [("chat", turns), ("chat_summary", 1)]

    talk(runner, sid, "And one more", clock)      # the summary stands until the next batch is due
    assert len(tutor.summaries) == 1 and tutor.chats[-1][1]["content"].endswith(SUMMARY)


# ---------------------------------------------------------------------------
# Practice questions


def wrong_answer(item) -> str:
    """A wrong answer the question can read (one it cannot read is no attempt, and is not recorded)."""
    if item.options:
        return next(o for k, o in enumerate(item.options) if k != item.correct_index)
    spec = MarkingSpec.from_item(item)
    return next(g for g in ("98765", "x + 98765", "definitely not 98765")
                if mark_answer(spec, g).valid and not mark_answer(spec, g).correct)


def _token(text: str, needle: str) -> bool:
    return re.search(r"(?<![\w.])" + re.escape(needle) + r"(?![\w])", text) is not None


def secrets_sent(store, item_id: str, texts: list[str]) -> list[str]:
    """The item's explanation, and its key where it can be told apart from the question, found in ``texts``."""
    item = repo.load_item(store, item_id)
    seen = "\n".join(texts)
    found = []
    if item.explanation and item.explanation.strip() in seen:
        found.append("explanation")
    key = str(item.correct_answer)
    if len(key) >= 3 and not _token(item.stem + " ".join(item.options), key) and _token(seen, key):
        found.append("key")
    return found


@pytest.mark.parametrize("right", [True, False])
def test_a_question_the_tutor_asks_for_is_drawn_and_marked_by_core(fake, store, library, runner, clock, right):
    tutor = Tutor([{"reply": "Let's check with a question on mixed numbers.", "practice": True,
                    "outcome_id": "MNU-5-01", "skill_id": SKILL}])
    fake.default = tutor
    sid = runner.start("chat", "amy", COURSE)
    view = talk(runner, sid, "Can you test me on mixed numbers?")
    q = view["question"]
    assert q["number"] == 1 and q["outcome_id"] == "MNU-5-01" and view["stage"] == "question"
    item = repo.load_item(store, q["id"])
    assert item.blueprint_id == SKILL          # the key comes from the item core drew, not from the model
    assert item.explanation and len(item.correct_answer) >= 3     # both can be looked for below
    assert [m["role"] for m in view["messages"]] == ["student", "tutor", "question"] and not view["waiting"]
    shown = json.dumps(view)
    assert "correct_answer" not in shown and "explanation" not in shown
    assert not secrets_sent(store, q["id"], [shown])

    # A message while the question is open: the model sees the question as the student does, without its key.
    view = talk(runner, sid, "Can I have a hint?")
    before = [json.dumps(r["body"]) for r in fake.requests]
    assert "[Practice question 1, set by the workbench for outcome MNU-5-01]" in tutor.chats[-1][-2]["content"]
    assert not secrets_sent(store, q["id"], before)

    clock.advance(40)
    answer = item.typed_answer if right else wrong_answer(item)
    view = runner.command(sid, "answer", item_id=q["id"], answer=answer)
    result = view["messages"][-1]
    assert result["role"] == "result" and result["correct"] is right and "question" not in view
    assert result["correct_answer"] == item.shown_answer and result["explanation"] == item.explanation
    assert view["waiting"] is True and view["stats"] == {"posed": 1, "answered": 1, "correct": int(right)}
    rows = store.query("SELECT item_id, student, answer, correct, score, max_score, time_taken_ms FROM responses "
                       "WHERE session_id = ?", [sid])
    assert rows == [(q["id"], "amy", answer, right, result["score"], float(item.marks), 40000)]
    assert (result["score"] == item.marks) is right
    if not right:
        assert result["remediation"]["what_went_wrong"]       # core's own, as practice gives it

    # Now the tutor is told how it went, with the answer, and carries on.
    view = runner.command(sid, "reply")
    told = tutor.chats[-1][-1]
    assert told["role"] == "user" and told["content"].startswith(f"[My answer to practice question 1] I answered: "
                                                                 f"{answer}.")
    assert ("marked it right" if right else "marked it not right") in told["content"]
    assert item.correct_answer in told["content"]
    assert view["messages"][-1]["role"] == "tutor" and not view["waiting"]
    runner.forget(sid)
    assert runner.view(sid)["messages"][-2]["correct"] is right       # rebuilt from the events
    assert runner.command(sid, "answer", item_id=q["id"], answer=answer)["stats"]["answered"] == 1   # twice: once


def test_the_student_asks_for_practice_skips_it_and_is_refused_an_unknown_outcome(fake, store, runner):
    fake.default = Tutor()
    sid = runner.start("chat", "amy", COURSE)
    view = runner.command(sid, "practice", outcome="MNU-5-02")
    q = view["question"]
    assert q["outcome_id"] == "MNU-5-02" and "MNU-5-02" in repo.load_item(store, q["id"]).outcome_ids
    assert not fake.requests                                  # drawn by core alone
    with pytest.raises(FlowError, match="answer or skip the practice question on screen first"):
        runner.command(sid, "practice")
    view = runner.command(sid, "skip")
    assert "question" not in view and view["messages"][-1] == {"role": "skipped", "item_id": q["id"], "number": 1}
    with pytest.raises(FlowError, match="outcome MNU-9-99 is not in the Mathematics Nat 5 course"):
        runner.command(sid, "practice", outcome="MNU-9-99")
    view = runner.command(sid, "practice", skill=SKILL)
    assert view["question"]["number"] == 2 and view["question"]["id"] != q["id"]
    assert store.query("SELECT count(*) FROM responses WHERE session_id = ?", [sid]) == [(0,)]


def test_a_practice_request_naming_nothing_known_draws_from_the_course(fake, store, runner):
    fake.default = Tutor([{"reply": "Here is a question.", "practice": True, "outcome_id": "NOT-AN-OUTCOME",
                           "skill_id": "NOT.A.SKILL"}])
    sid = runner.start("chat", "amy", COURSE)
    view = talk(runner, sid, "Give me a question")
    outcomes = {o.id for o in runner.ctx.library.spec("Mathematics", "Nat 5").outcomes}
    assert view["question"]["outcome_id"] in outcomes


# ---------------------------------------------------------------------------
# Failures lose nothing


@pytest.mark.parametrize("failure, reason", [
    (completion("I think fractions are fun"), "the model's answer is not valid JSON"),
    (completion({"answer": "no reply field"}), "does not match the schema"),
    (completion({"reply": "   "}), "the reply is blank"),
    (error(500, "the GPU caught fire"), "the model server failed (HTTP 500)"),
])
def test_a_failed_reply_keeps_the_message_and_says_so_in_one_line(fake, store, runner, failure, reason):
    fake.default = Tutor()
    sid = runner.start("chat", "amy", COURSE)
    fake.push(failure)
    runner.command(sid, "say", text="Why do we flip the second fraction?")
    with pytest.raises(FlowError) as caught:
        runner.command(sid, "reply")
    message = str(caught.value)
    assert message.startswith("The tutor could not answer just now: ") and reason in message
    assert message.endswith("Try again in a moment.") and "\n" not in message
    runner.forget(sid)
    view = runner.view(sid)
    assert said_texts(view) == [("student", "Why do we flip the second fraction?")] and view["waiting"] is True
    runner.command(sid, "say", text="Why do we flip the second fraction?")      # sent again: kept once
    view = runner.command(sid, "reply")                                         # the tutor answers it now
    assert said_texts(view) == [("student", "Why do we flip the second fraction?"),
                                ("tutor", "Good question: what do you think the first step is?")]
    assert store.query("SELECT verdict FROM llm_runs ORDER BY created_at") == [("error",), ("ok",)]


def test_a_failed_summary_sends_the_older_messages_verbatim_until_one_succeeds(fake, store, runner, clock):
    tutor = Tutor()
    fake.default = tutor
    sid = runner.start("chat", "amy", COURSE)
    for n in range(1, 11):
        talk(runner, sid, f"Message {n}", clock)
    fake.push(completion("not a summary"), completion({"reply": "Still here."}))
    view = talk(runner, sid, "Message 11", clock)
    assert said_texts(view)[-1] == ("tutor", "Still here.") and runner.state(sid)["summary"] is None
    assert "Message 1" in [m["content"] for m in fake.requests[-1]["body"]["messages"]]
    talk(runner, sid, "Message 12", clock)
    assert runner.state(sid)["summary"]["upto"] == 11 and len(tutor.summaries) == 1


def test_an_empty_or_overlong_message_is_refused_before_anything_is_stored(fake, store, runner):
    fake.default = Tutor()
    sid = runner.start("chat", "amy", COURSE)
    with pytest.raises(FlowError, match="type a message"):
        runner.command(sid, "say", text="   ")
    with pytest.raises(FlowError, match=f"at most {chat.MAX_MESSAGE} characters"):
        runner.command(sid, "say", text="x" * (chat.MAX_MESSAGE + 1))
    assert runner.command(sid, "reply")["messages"] == [] and not fake.requests


def test_without_an_llm_a_conversation_cannot_start_and_says_why_plainly(store, library):
    runner = make_runner(store, library)
    with pytest.raises(FlowError) as caught:
        runner.start("chat", "amy", COURSE)
    assert str(caught.value) == chat.NEEDS_LLM
    assert "Settings page" in chat.NEEDS_LLM and "teacher" in chat.NEEDS_LLM
    assert store.query("SELECT count(*) FROM sessions") == [(0,)]


# ---------------------------------------------------------------------------
# The list of conversations


def test_conversations_are_listed_most_recent_first_titled_by_their_first_question(fake, store, runner, clock):
    fake.default = Tutor()
    first = runner.start("chat", "amy", COURSE)
    talk(runner, first, "How do I add mixed numbers?\nI keep getting it wrong.", clock)
    clock.advance(60)
    second = runner.start("chat", "amy", COURSE)
    talk(runner, second, "What does the gradient of a line tell me about it, in words a beginner can follow?", clock)
    clock.advance(60)
    runner.start("chat", "bob", COURSE)
    listed = conversations(store, "amy")
    assert [c["id"] for c in listed] == [second, first]
    assert listed[1]["title"] == "How do I add mixed numbers?"
    assert listed[0]["title"].endswith("…") and len(listed[0]["title"]) == chat.TITLE_CHARS
    assert listed[0]["messages"] == 1 and listed[0]["subject"] == "Mathematics"
    clock.advance(60)
    talk(runner, first, "Back to mixed numbers", clock)               # resumed: it moves to the top
    assert [c["id"] for c in conversations(store, "amy")] == [first, second]
    assert [c["title"] for c in conversations(store, "bob")] == ["(no messages yet)"]
