"""The pages' LLM options through AppTest, with a local fake OpenAI-compatible server as the model.

The settings are saved through the Settings page itself, so every later page
finds the LLM on as a teacher would leave it.
"""
from __future__ import annotations

import itertools
import threading

import pytest
from streamlit.testing.v1 import AppTest

from core.llm.pipeline import AGENTS
from core.store import repo
from tests.llm.fake_openai import FakeOpenAI, completion
from tests.llm.test_llm_items import good
from tests.llm.test_pipeline import plan, question, style, verdict

from tests.app.test_teacher_authoring import ROOT, TEACHER, values

CLASS = "T-LLM"
TUTOR_REMEDIATION = {"what_went_wrong": "You added where the question asked for the difference.",
                     "key_concept": "Read which operation the question asks for.",
                     "try_this": "Say the question in your own words before you start."}


class Model:
    """Replies by the model each role is given on the Settings page (so concurrent calls need no order)."""

    def __init__(self):
        self.sums = itertools.cycle([(7, 5), (6, 5), (8, 5), (9, 3), (4, 7), (9, 4)])
        self.lock = threading.Lock()

    def __call__(self, body):
        model, text = body["model"], str(body["messages"])
        if model == "m-item_generator":
            with self.lock:
                a, b = next(self.sums)
            return completion(good(a, b, key=str(a * b)) if (a, b) == (9, 3) else good(a, b))   # one wrong key
        if model == "m-designer":
            return completion(plan())
        if model == "m-implementer":
            return completion(question(stem=f"Question {abs(hash(text)) % 10**8}: a cube's edge is doubled; "
                                            f"by what factor does its volume grow?"))
        if model == "m-verifier":
            return completion(verdict())
        if model == "m-style_judge":
            return completion(style())
        if "friendly tutor" in text:
            return completion({"reply": "Compare the operation in the question with the one you used."})
        if "Reply with the word ready" in text:
            return completion({"reply": "ready"})
        return completion(TUTOR_REMEDIATION)


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    from core.school.classes import add_student, create_class
    from core.store import Store
    from ui import shared
    server = FakeOpenAI(default=Model())
    db = tmp_path_factory.mktemp("llm_pages") / "app.duckdb"
    store = Store(db)
    create_class(store, CLASS, "LLM class", "Mathematics", "Nat 5")
    student = add_student(store, CLASS, "Rory Williams")
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(db))
        for name in ("API_KEY", "BASE_URL", "MODEL"):
            mp.delenv(f"WORKBENCH_LLM_{name}", raising=False)
        mp.chdir(ROOT)
        for cached in (shared._open, shared._runner, shared._client):
            cached.clear()
        yield {"db": db, "server": server, "student": {"role": "student", "user": student, "name": "Rory Williams",
                                                       "class_code": CLASS}}
        shared._open(str(db)).store.close()
        for cached in (shared._open, shared._runner, shared._client):
            cached.clear()
    server.close()


def open_page(path: str, user: dict = TEACHER) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["user"] = user
    at.run()
    at.switch_page(path)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def store():
    import os

    from ui import shared
    return shared._open(os.environ["WORKBENCH_DB"]).store


@pytest.fixture(scope="module")
def configured(env):
    """The Settings page, used as a teacher would: off at first, then saved with the fake server."""
    from core.llm import OFF_MESSAGE
    at = open_page("pages/teacher_settings.py")
    assert OFF_MESSAGE in values(at.info)
    assert [b for b in at.button if b.label == "Check the connection"][0].disabled
    at.text_input[0].input("")                      # server URL left empty and no key: refused
    at.text_input[2].input("m-default")
    at.button[0].click().run()
    assert "an API key or a base URL is needed" in " ".join(values(at.error))
    assert not store().query("SELECT count(*) FROM app_settings")[0][0]
    at.text_input[0].input(env["server"].base_url)
    for role in ("item_generator", "designer", "implementer", "verifier", "style_judge"):
        at.text_input(key=f"llm_model_{role}").input(f"m-{role}")
    at.button[0].click().run()
    assert not at.exception and not at.error, values(at.error)
    assert any("LLM features are on: model m-default" in v for v in values(at.success))
    return at


def test_settings_page_saves_checks_and_lists_calls(env, configured):
    at = open_page("pages/teacher_settings.py")
    check = [b for b in at.button if b.label == "Check the connection"][0]
    assert not check.disabled
    check.click().run()
    assert "The model answered: 'ready'" in values(at.success)
    at = open_page("pages/teacher_settings.py")
    table = at.dataframe[0].value
    assert "connection_check" in set(table["stage"])


def test_generate_with_the_llm_stores_verified_drafts_and_names_the_rejected(env, configured):
    at = open_page("pages/teacher_generate.py")
    at.radio(key="gen_source").set_value("LLM (blueprint)").run()
    at.multiselect(key="gen_skills").set_value(["MATH.ARITH.ADD.1DIGIT"]).run()
    for level, share in (("easy", 0), ("medium", 100), ("hard", 0)):
        at.number_input(key=f"gen_mix_{level}").set_value(share).run()
    at.number_input(key="gen_count").set_value(6).run()
    at.button(key="gen_llm_go").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert values(at.success) == ["5 of 6 item(s) passed core's checks; 5 new draft(s) went to the review queue."]
    rejected = at.dataframe[1].value
    assert len(rejected) == 1 and "key" in rejected["reason"].iloc[0]
    rows = repo.list_items(store(), source="llm", status="draft")
    assert len(rows) == 5 and all(r["verification"]["verdict"] == "verified" for r in rows)


def test_the_pipeline_from_the_generate_page(env, configured):
    at = open_page("pages/teacher_generate.py")
    at.radio(key="gen_source").set_value("LLM question pipeline").run()
    at.number_input(key="pl_n").set_value(3)          # form widgets: sent with the submit
    at.selectbox(key="pl_level").set_value("Higher")
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert values(at.success) == ["3 of 3 question(s) accepted; 3 new draft(s) went to the review queue."]
    stages = at.dataframe[0].value
    assert list(stages["stage"]) == list(AGENTS) and set(stages["acceptance_rate"]) == {1.0}
    assert sorted(b.label for b in at.get("download_button")) == sorted(
        ["accepted.jsonl", "rejected.jsonl", "logs.jsonl", "stats.json"])
    rows = repo.list_items(store(), source="pipeline", status="draft")
    assert len(rows) == 3 and {r["level"] for r in rows} == {"Higher"}


def test_practice_shows_the_tutor_and_answers_a_question(env, configured):
    at = open_page("pages/student_practice.py", env["student"])
    [b for b in at.button if b.label == "Start"][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    # The question's own answer box (a question answered step by step has more boxes, keyed from it).
    form_input = [w for w in list(at.text_input) + list(at.radio)
                  if str(w.key).startswith("pa_") and "__" not in str(w.key)][0]
    item = repo.load_item(store(), str(form_input.key).removeprefix(f"pa_{at.session_state['practice_sid']}_"))
    if item.options:
        form_input.set_value(next(o for k, o in enumerate(item.options) if k != item.correct_index))
    else:   # a wrong answer the question can read, entered first so that its reading is shown before it counts
        from core.flows.preview import preview
        guess = next(g for g in ("98765", "x + 98765", "definitely not 98765") if preview(item, g)["valid"])
        form_input.input(guess).run()
    [b for b in at.button if b.label == "Check answer"][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    text = " ".join(values(at.markdown))
    assert "From the tutor" in text and TUTOR_REMEDIATION["key_concept"] in text
    at.text_input(key=f"tq_{at.session_state['practice_sid']}").input("Why is it wrong?")
    [b for b in at.button if b.label == "Ask"][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Compare the operation in the question with the one you used." in " ".join(values(at.markdown))
