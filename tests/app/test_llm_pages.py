"""The pages' LLM options through AppTest, with a local fake OpenAI-compatible server as the model.

The settings are saved through the Settings page itself, so every later page
finds the LLM on as a teacher would leave it.
"""
from __future__ import annotations

import itertools
import threading
from typing import Optional

import pytest
from streamlit.testing.v1 import AppTest

from core.llm.pipeline import AGENTS
from core.store import repo
from tests.llm.fake_openai import FakeOpenAI, completion
from tests.llm.test_llm_items import good
from tests.llm.test_pipeline import plan, question, style, verdict

from tests.app.test_teacher_authoring import ROOT, TEACHER, values

CLASS = "T-LLM"
APPROVED_CLASS = "T-LLM-H"      # Mathematics Higher, approved questions only
OUTCOME = "MTH-H-03"
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
    offline_student = add_student(store, CLASS, "Clara Oswald")
    create_class(store, APPROVED_CLASS, "LLM class, approved questions", "Mathematics", "Higher",
                 approved_items_only=True)
    approved_student = add_student(store, APPROVED_CLASS, "Amy Pond")
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(db))
        for name in ("API_KEY", "BASE_URL", "MODEL"):
            mp.delenv(f"WORKBENCH_LLM_{name}", raising=False)
        mp.chdir(ROOT)
        for cached in (shared._open, shared._runner, shared._client):
            cached.clear()
        yield {"db": db, "server": server, "student": {"role": "student", "user": student, "name": "Rory Williams",
                                                       "class_code": CLASS},
               "offline_student": {"role": "student", "user": offline_student, "name": "Clara Oswald",
                                   "class_code": CLASS},
               "approved_student": {"role": "student", "user": approved_student, "name": "Amy Pond",
                                    "class_code": APPROVED_CLASS}}
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


def answer_wrong_in_practice(student: dict) -> AppTest:
    """A student's practice page with a wrong answer checked."""
    at = open_page("pages/student_practice.py", student)
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
    return at


def test_without_an_llm_ask_the_tutor_says_so_in_a_students_words(env):
    at = answer_wrong_in_practice(env["offline_student"])       # before any test here sets the LLM up
    said = " ".join(values(at.caption))
    assert "The tutor needs an LLM, and none is set up yet" in said and "Your practice goes on without it." in said
    assert "WORKBENCH_" not in said and "secrets" not in said, "no setup details for a student"


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


def run_the_pipeline(n: int, seed: int, outcome: Optional[str] = None) -> AppTest:
    """The Generate page's pipeline run for ``n`` questions, filed under ``outcome`` (a Mathematics Higher one)."""
    at = open_page("pages/teacher_generate.py")
    at.radio(key="gen_source").set_value("LLM question pipeline").run()
    at.number_input(key="pl_n").set_value(n)          # form widgets: sent with the submit
    at.number_input(key="pl_seed").set_value(seed)
    if outcome is not None:
        choice = at.selectbox(key="pl_outcome")
        choice.select_index(next(k for k, label in enumerate(choice.options)
                                 if label.startswith(f"Mathematics Higher · {outcome} ·")))
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_pipeline_from_the_generate_page(env, configured):
    env["server"].push(completion("I would scale a length."))   # the first call (a designer's) is not JSON
    at = run_the_pipeline(3, seed=0)
    schemas = at.multiselect(key="pl_prefixes")
    assert schemas.options == ["Mathematics (M1–M7)", "Physics (P1–P7)", "Chemistry (C1–C6)", "Biology (B1–B6)"]
    assert schemas.value == ["M", "P", "C", "B"]
    filed_under = at.selectbox(key="pl_outcome").options
    assert any(o.startswith("Chemistry Higher ·") for o in filed_under)
    assert any(o.startswith("Biology National 5 ·") or o.startswith("Biology Nat 5 ·") for o in filed_under)
    assert values(at.success) == ["3 of 3 question(s) accepted; 3 new draft(s) went to the review queue."]
    stages = at.dataframe[0].value.set_index("stage")
    assert list(stages.index) == list(AGENTS) and set(stages["acceptance_rate"].iloc[1:]) == {1.0}
    assert (stages.loc["designer", "calls"], stages.loc["designer", "malformed"]) == (4, 1)
    assert list(stages["retries"]) == [1, 0, 0, 0]
    assert "1 retry: designer 1 malformed." in values(at.caption)
    accepted = at.dataframe[1].value
    assert len(accepted) == 3 and set(accepted["outcome"]) == {"(choose on the Review page)"}
    assert any("have no course outcome yet" in v for v in values(at.info))
    assert sorted(b.label for b in at.get("download_button")) == sorted(
        ["accepted.jsonl", "rejected.jsonl", "logs.jsonl", "stats.json"])
    rows = repo.list_items(store(), source="pipeline", status="draft")
    assert len(rows) == 3 and all(r["outcome_ids"] == [] and r["params"]["accepted_at"] for r in rows)


def test_a_pipeline_question_gets_an_outcome_is_approved_on_the_review_page_and_reaches_practice(env, configured):
    """One question filed under an outcome on the Generate page, one without whose outcome the reviewer sets;
    both approved on the Review page, then drawn in practice by a student of a class that gets approved
    questions only."""
    from core.items import review
    at = run_the_pipeline(1, seed=21, outcome=OUTCOME)
    assert values(at.success) == ["1 of 1 question(s) accepted; 1 new draft(s) went to the review queue."]
    assert list(at.dataframe[1].value["outcome"]) == [OUTCOME]
    [filed] = [r for r in repo.list_items(store(), source="pipeline", status="draft") if r["outcome_ids"]]
    assert (filed["subject"], filed["level"], filed["outcome_ids"]) == ("Mathematics", "Higher", [OUTCOME])
    assert filed["params"]["accepted_at"] and filed["created_at"]
    bare = next(r["id"] for r in repo.list_items(store(), source="pipeline", status="draft") if not r["outcome_ids"])

    at = open_page("pages/teacher_review.py")
    at.selectbox(key="rv_source").select("pipeline").run()
    when = filed["params"]["accepted_at"][:16].replace("T", " ")          # "2026-11-25 17:01"
    assert any(f"Written by the question pipeline; accepted {when} UTC" in m.value for m in at.markdown)
    at.button(key=f"rv_approve_{bare}").click().run()            # no outcome yet: refused, saying what to do
    assert any(f"Item {bare} cannot be approved: it has no course outcome" in e.value for e in at.error)
    assert repo.get_item(store(), bare)["status"] == "draft"
    choice = at.selectbox(key=f"rv_place_outcome_{bare}")
    choice.select_index(next(k for k, label in enumerate(choice.options)
                             if label.startswith(f"Mathematics Higher · {OUTCOME} ·")))
    at.button(key=f"rv_place_save_{bare}").click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert f"{bare} is now in Mathematics Higher, {OUTCOME}." in values(at.success)
    for iid in (bare, filed["id"]):
        at.button(key=f"rv_approve_{iid}").click().run()
        assert not at.exception and not at.error, values(at.error)
        assert repo.get_item(store(), iid)["status"] == "approved"

    # The course's other approved questions on the outcome set aside, so practice can only draw ours.
    others = [it.id for it in repo.approved_items(store(), "Mathematics", "Higher")
              if OUTCOME in it.outcome_ids and it.source != "pipeline"]
    if others:
        review.reject(store(), others, "set aside: the class practises the new questions first")
    at = open_page("pages/student_practice.py", env["approved_student"])
    at.selectbox(key="pr_outcome_Mathematics_Higher").set_value(OUTCOME).run()
    [b for b in at.button if b.label == "Start"][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    from tests.app.test_student_pages import runner
    shown = runner().view(at.session_state["practice_sid"])["question"]
    assert shown["id"] in {bare, filed["id"]}


def test_an_unreachable_server_is_a_warning_on_settings_and_generate(env, configured, monkeypatch):
    import socket
    with socket.socket() as s:                       # a port where nothing listens
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    monkeypatch.setenv("WORKBENCH_LLM_BASE_URL", dead)    # the environment comes before the Settings page
    monkeypatch.setenv("WORKBENCH_LLM_MODEL", "m-default")
    at = open_page("pages/teacher_settings.py")
    warned = " ".join(values(at.warning))
    assert f"the server at {dead} could not be reached" in warned and "Check the connection" in warned
    assert not any("LLM features are on" in v for v in values(at.success))
    [b for b in at.button if b.label == "Check the connection"][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert any(v.startswith("The connection check failed: the server at") for v in values(at.warning))
    assert not values(at.success)

    at = open_page("pages/teacher_generate.py")
    at.radio(key="gen_source").set_value("LLM question pipeline").run()
    assert any(f"the server at {dead} could not be reached" in v for v in values(at.warning))
    assert not values(at.success)


def test_practice_shows_the_tutor_and_answers_a_question(env, configured):
    at = answer_wrong_in_practice(env["student"])
    text = " ".join(values(at.markdown))
    assert "From the tutor" in text and TUTOR_REMEDIATION["key_concept"] in text
    at.text_input(key=f"tq_{at.session_state['practice_sid']}").input("Why is it wrong?")
    [b for b in at.button if b.label == "Ask"][0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Compare the operation in the question with the one you used." in " ".join(values(at.markdown))
