"""The Tutor page through AppTest, with a local fake OpenAI-compatible server as the model: talking, resuming a
past conversation, answering a practice question the tutor asked for, a reply that failed, and the page without
a tutor (no LLM, or one that does not answer), which offers practice instead."""
from __future__ import annotations

import itertools
import json
import os
import socket

import pytest
from streamlit.testing.v1 import AppTest

from core.llm import chat
from tests.app.pages import ROOT, open_page
from tests.llm.fake_openai import FakeOpenAI, completion, error
from ui.blocks import readable

CLASS = "T-CHAT"
PAGE = "pages/student_chat.py"
SKILL = "SQA.MATH.N5.FRACTIONS_MIXED_NUMBERS"
_names = itertools.count(1)


def model(body: dict):
    """The tutor: echoes a question, sets a practice question when asked, and says how an answer went."""
    messages = body["messages"]
    if messages[0]["content"].startswith("You keep the notes"):
        return completion({"summary": "They talked about fractions."})
    last = messages[-1]["content"]
    if "practice question please" in last:
        return completion({"reply": "Here is one on mixed numbers.", "practice": True, "outcome_id": "MNU-5-01",
                           "skill_id": SKILL})
    if last.startswith("[My answer to practice question"):
        return completion({"reply": "Well done, that is right." if "marked it right" in last
                           else "Let us look at that one again."})
    return completion({"reply": f"The tutor on: {last}"})


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    from core.school.classes import create_class
    from core.store import Store
    from ui import shared
    server = FakeOpenAI(default=model)
    db = tmp_path_factory.mktemp("chat_page") / "app.duckdb"
    store = Store(db)   # a class already there: the app skips the slow first-run demo
    create_class(store, CLASS, "Chat class", "Mathematics", "Nat 5")
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(db))
        for name in ("API_KEY", "BASE_URL", "MODEL", "MAX_RETRIES"):
            mp.delenv(f"WORKBENCH_LLM_{name}", raising=False)
        mp.chdir(ROOT)
        for cached in (shared._open, shared._runner, shared._client):
            cached.clear()
        yield {"db": db, "server": server}
        shared._open(str(db)).store.close()
        for cached in (shared._open, shared._runner, shared._client):
            cached.clear()
    server.close()


@pytest.fixture
def student(env) -> dict:
    from core.school.classes import add_student
    name = f"Chat Student {next(_names)} {os.getpid()}"
    sid = add_student(store(), CLASS, name)
    return {"role": "student", "user": sid, "name": name, "class_code": CLASS}


@pytest.fixture
def online(env, monkeypatch):
    """The LLM set in the environment, pointing at the fake server (no retries: a failure shows at once)."""
    monkeypatch.setenv("WORKBENCH_LLM_BASE_URL", env["server"].base_url)
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", "m-tutor")
    monkeypatch.setenv("WORKBENCH_LLM_MAX_RETRIES", "0")
    return env["server"]


def store():
    from ui import shared
    return shared._open(os.environ["WORKBENCH_DB"]).store


def runner():
    from ui import shared
    return shared.runner()


def values(elements) -> list[str]:
    return [str(e.value) for e in elements]


def text(at: AppTest) -> str:
    return "\n".join(values(at.markdown) + values(at.caption) + values(at.success) + values(at.warning)
                     + values(at.info) + values(at.error))


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [e.value for e in at.exception]
    return at


def say(at: AppTest, message: str) -> AppTest:
    at.chat_input(key="chat_input").set_value(message).run()
    return ok(at)


def button(at: AppTest, label: str):
    found = [b for b in at.button if b.label == label]
    assert found, f"no button {label!r}; buttons: {[b.label for b in at.button]}"
    return found[0]


# ---------------------------------------------------------------------------


def test_a_chat_turn_through_the_page(online, student):
    at = open_page(student, PAGE)
    assert at.title[0].value == "Tutor"
    assert at.selectbox(key="chat_course").value == ("Mathematics", "Nat 5")     # the class's course
    assert not at.chat_input(key="chat_input").proto.disabled
    say(at, "What is a mixed number?")
    shown = text(at)
    assert "What is a mixed number?" in shown and "The tutor on: What is a mixed number?" in shown
    sid = at.session_state["chat_sid"]
    from core.flows.chat import conversations
    listed = conversations(store(), student["user"])
    assert [(c["id"], c["title"]) for c in listed] == [(sid, "What is a mixed number?")]
    assert button(at, "What is a mixed number?")                 # listed beside the conversation
    said = store().query("SELECT type FROM events WHERE session_id = ? ORDER BY seq", [sid])
    assert [t for (t,) in said] == ["opened", "said", "replied"]


def test_a_reply_that_failed_keeps_the_message_and_can_be_sent_again(online, student):
    at = open_page(student, PAGE)
    online.push(error(500, "the model server is down"))
    say(at, "Why is 7/2 the same as 3 1/2?")
    assert any(v.startswith("The tutor could not answer just now: ") and v.endswith("Try again in a moment.")
               for v in values(at.error)), values(at.error)
    assert "Why is 7/2 the same as 3 1/2?" in text(at) and "The tutor has not answered this yet." in text(at)
    button(at, "Send again").click().run()
    ok(at)
    assert "The tutor on: Why is 7/2 the same as 3 1/2?" in text(at) and not at.error
    assert "The tutor has not answered this yet." not in text(at)


def test_resuming_a_past_conversation(online, student):
    at = open_page(student, PAGE)
    say(at, "Tell me about fractions")
    first = at.session_state["chat_sid"]
    button(at, "New conversation").click().run()
    ok(at)
    assert at.session_state["chat_sid"] is None and "Tell me about fractions" not in values(at.markdown)
    say(at, "Tell me about angles")
    second = at.session_state["chat_sid"]
    assert second != first

    at = open_page(student, PAGE)                                # a reload: the most recent conversation is back
    assert at.session_state["chat_sid"] == second and "The tutor on: Tell me about angles" in text(at)
    assert [b.label for b in at.button if b.key and b.key.startswith("chat_open_")] == ["Tell me about angles",
                                                                                        "Tell me about fractions"]
    button(at, "Tell me about fractions").click().run()
    ok(at)
    assert at.session_state["chat_sid"] == first
    assert "The tutor on: Tell me about fractions" in text(at) and "Tell me about angles" not in values(at.markdown)
    say(at, "And improper fractions?")
    said = store().query("SELECT payload FROM events WHERE session_id = ? AND type = 'said' ORDER BY seq", [first])
    assert [json.loads(p)["text"] for (p,) in said] == ["Tell me about fractions", "And improper fractions?"]
    assert [b.label for b in at.button if b.key and b.key.startswith("chat_open_")][0] == "Tell me about fractions"


@pytest.mark.parametrize("right", [True, False])
def test_answering_a_question_the_tutor_set(online, student, right):
    from core.store import repo
    at = open_page(student, PAGE)
    say(at, "A practice question please")
    sid = at.session_state["chat_sid"]
    question = runner().view(sid)["question"]
    item = repo.load_item(store(), question["id"])
    assert item.blueprint_id == SKILL and "Practice question 1" in text(at)
    assert item.explanation not in text(at)                      # nothing of the answer before it is given
    key = f"ca_{sid}_{question['id']}"
    given = item.typed_answer if right else "1/2"
    at.text_input(key=key).input(given).run()
    ok(at)
    at.button(key=f"{key}__go").click().run()
    ok(at)
    shown = text(at)
    assert ("Practice question 1: right!" in shown) is right
    assert readable(f"**Correct answer:** {item.correct_answer}") in values(at.markdown)
    assert ("Well done, that is right." if right else "Let us look at that one again.") in shown
    rows = store().query("SELECT item_id, answer, correct FROM responses WHERE session_id = ?", [sid])
    assert rows == [(item.id, given, right)]
    assert button(at, "Give me a question")                      # the student can ask for another


def test_offline_the_page_says_the_tutor_needs_an_llm_and_offers_practice(env, student):
    at = open_page(student, PAGE)
    assert any(chat.NEEDS_LLM in v for v in values(at.info)), values(at.info)
    assert "Settings page" in chat.NEEDS_LLM
    assert at.chat_input(key="chat_input").proto.disabled
    button(at, "Practise instead").click().run()
    ok(at)
    assert at.title[0].value == "Practice"
    assert at.selectbox(key="pr_subject").value == "Mathematics"
    assert at.selectbox(key="pr_level_Mathematics").value == "Nat 5"


def test_a_tutor_known_not_to_answer_is_offline_too(env, student, monkeypatch):
    from core.llm import reach, settings_from
    with socket.socket() as s:                       # a port where nothing listens
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    monkeypatch.setenv("WORKBENCH_LLM_BASE_URL", dead)
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", "m-tutor")
    assert not reach.reachability(settings_from(None, os.environ), fresh=True).answers
    at = open_page(student, PAGE)
    assert any(chat.UNREACHABLE in v for v in values(at.info)), values(at.info)
    assert at.chat_input(key="chat_input").proto.disabled and button(at, "Practise instead")
