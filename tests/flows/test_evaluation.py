"""Evaluations through the real flow and a real DuckDB store: plan, secrecy, scoring, time, skip/review, resume."""
from __future__ import annotations

import json
from collections import Counter

import pytest

from core.blueprints.library import Library
from core.blueprints.loader import parse_text
from core.flows.base import Context, FlowError, Runner
from core.flows.evaluation import EvaluationFlow
from core.store import repo, sessions

MATH = "MATH-FUNDAMENTALS-L1"
NET = "NETWORKING-BASICS-L1"

# Shipped skills, so the small assessments below need no blueprints of their own.
OPEN_ASSESSMENT = """
assessment_id: "TEST-OPEN"
version: "1.0"
metadata:
  title: "Skip and review allowed"
configuration:
  total_items: 4
  passing_score_percent: 60
  shuffle_items: false
  show_progress: true
  allow_review: true
  allow_skip: true
sections:
  - section_id: "add"
    title: "Adding"
    item_count: 2
    skill_blueprints:
      - skill_id: "MATH.ARITH.ADD.2DIGIT"
    difficulty_distribution: {easy: 1, medium: 1}
  - section_id: "sub"
    title: "Taking away"
    item_count: 2
    skill_blueprints:
      - skill_id: "MATH.ARITH.SUB.2DIGIT"
    difficulty_distribution: {easy: 1, hard: 1}
scoring:
  method: "weighted_sections"
  section_weights: {add: 3, sub: 1}
  grade_bands:
    - {label: "Pass", min_percent: 60}
    - {label: "Fail", min_percent: 0}
"""

SKIP_ONLY_ASSESSMENT = OPEN_ASSESSMENT.replace('"TEST-OPEN"', '"TEST-SKIP"').replace(
    "allow_review: true", "allow_review: false")

# Options in one fixed, natural order: numbers ascending (sums), addresses alphabetically with their numbers
# read as numbers (subnets).
FIXED_ORDER_ASSESSMENT = """
assessment_id: "TEST-FIXED-ORDER"
version: "1.0"
metadata:
  title: "Options in a fixed order"
configuration:
  total_items: 6
  shuffle_items: false
  shuffle_options: false
scoring:
  grade_bands:
    - {label: "Pass", min_percent: 50}
    - {label: "Fail", min_percent: 0}
sections:
  - section_id: "add"
    title: "Adding"
    item_count: 3
    skill_blueprints:
      - skill_id: "MATH.ARITH.ADD.2DIGIT"
    difficulty_distribution: {easy: 1, medium: 1, hard: 1}
  - section_id: "net"
    title: "Subnets"
    item_count: 3
    skill_blueprints:
      - skill_id: "NET.IP.SUBNET.NETWORK"
    difficulty_distribution: {easy: 2, medium: 1}
"""

# A skill whose items must each be answered within 30 seconds, and an evaluation of it.
TIMED_ASSESSMENT = """
assessment_id: "TEST-TIMED"
version: "1.0"
metadata:
  title: "Quick sums"
configuration:
  total_items: 3
  shuffle_items: false
  allow_review: true
scoring:
  grade_bands:
    - {label: "Pass", min_percent: 50}
    - {label: "Fail", min_percent: 0}
sections:
  - section_id: "quick"
    title: "Quick sums"
    item_count: 3
    skill_blueprints:
      - skill_id: "TEST.TIMED.ADD"
    difficulty_distribution: {easy: 1, medium: 1, hard: 1}
"""


def timed_skill() -> str:
    import yaml
    from pathlib import Path
    path = Path(__file__).resolve().parents[2] / "blueprints/skills/math/arithmetic/add_2digit.yaml"
    data = yaml.safe_load(path.read_text())
    data["skill_id"] = "TEST.TIMED.ADD"
    data["presentation"]["time_limit_seconds"] = 30
    return yaml.safe_dump(data, sort_keys=False)


@pytest.fixture(scope="module")
def lib():
    library = Library.load(exercise=False)
    library.add_loaded(parse_text(timed_skill(), "timed-add.yaml"))
    for text, name in ((OPEN_ASSESSMENT, "test-open.yaml"), (SKIP_ONLY_ASSESSMENT, "test-skip.yaml"),
                       (FIXED_ORDER_ASSESSMENT, "test-fixed.yaml"), (TIMED_ASSESSMENT, "test-timed.yaml")):
        library.add_loaded(parse_text(text, name))
    return library


def make(store, lib, clock) -> Runner:
    return Runner(Context.create(store, lib, clock=clock), {"evaluation": EvaluationFlow})


@pytest.fixture
def runner(store, lib, clock):
    return make(store, lib, clock)


def key(runner, item_id: str) -> str:
    return repo.load_item(runner.ctx.store, item_id).correct_answer


def wrong(runner, item_id: str) -> str:
    item = repo.load_item(runner.ctx.store, item_id)
    return next(o for o in item.options if o != item.correct_answer)


def current(runner, sid: str) -> dict:
    return runner.view(sid)["question"]


def answer_current(runner, sid: str, right: bool, **kw) -> dict:
    q = current(runner, sid)
    return runner.command(sid, "answer", item_id=q["id"], answer=key(runner, q["id"]) if right else wrong(runner, q["id"]), **kw)


def keys_in(value) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys_in(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys_in(v)}
    return set()


# --------------------------------------------------------------------------
# The plan


@pytest.mark.parametrize("assessment_id", [MATH, NET])
def test_plan_follows_the_blueprint(runner, lib, assessment_id):
    bp = lib.assessment(assessment_id)
    sid = runner.start("evaluation", "amy", {"assessment_id": assessment_id, "seed": 7})
    state = runner.state(sid)
    plan = state["plan"]
    assert len(plan) == bp.configuration.total_items == runner.view(sid)["total_items"]
    assert [e["sequence_number"] for e in plan] == list(range(1, len(plan) + 1))
    # Sections stay in blueprint order, each in one block, with its exact difficulty mix.
    assert list(dict.fromkeys(e["section_id"] for e in plan)) == [s.section_id for s in bp.sections]
    for section in bp.sections:
        entries = [e for e in plan if e["section_id"] == section.section_id]
        assert len(entries) == section.item_count
        assert Counter(e["difficulty_level"] for e in entries) == Counter(
            {lvl: n for lvl, n in section.difficulty_distribution.items() if n})
        named = {ws.skill_id for ws in section.skill_blueprints}
        for e in entries:
            assert e["blueprint_id"] in named
            item = repo.load_item(runner.ctx.store, e["item_id"])
            assert item.blueprint_id == e["blueprint_id"] and item.difficulty_level == e["difficulty_level"]


def test_plan_is_reproducible_from_the_seed_and_shuffled_within_sections(runner):
    a = runner.start("evaluation", "amy", {"assessment_id": MATH, "seed": 11})
    b = runner.start("evaluation", "bob", {"assessment_id": MATH, "seed": 11})
    slots = lambda sid: [(e["section_id"], e["difficulty_level"], e["blueprint_id"]) for e in runner.state(sid)["plan"]]
    assert slots(a) == slots(b)
    # shuffle_items is on: within sections the levels are not simply in blueprint order every time.
    orders = {tuple(e["difficulty_level"] for e in runner.state(runner.start(
        "evaluation", "cy", {"assessment_id": MATH, "seed": s}))["plan"][:5]) for s in range(6)}
    assert len(orders) > 1


def test_no_question_appears_twice_and_unseen_questions_are_preferred(runner):
    store = runner.ctx.store
    first = runner.start("evaluation", "dan", {"assessment_id": MATH, "seed": 1})
    second = runner.start("evaluation", "dan", {"assessment_id": MATH, "seed": 2})
    keys = {}
    for sid in (first, second):
        items = [repo.load_item(store, e["item_id"]) for e in runner.state(sid)["plan"]]
        assert len({i.id for i in items}) == len({i.content_key for i in items}) == len({i.stem for i in items}) == 20
        keys[sid] = {i.content_key for i in items}
    assert not keys[first] & keys[second]
    seen_content, _ = sessions.seen_keys(store, "dan")
    assert keys[first] | keys[second] <= seen_content


def test_unknown_assessment_is_refused(runner):
    with pytest.raises(FlowError, match="no assessment blueprint 'NOPE'"):
        runner.start("evaluation", "eve", {"assessment_id": "NOPE"})


# --------------------------------------------------------------------------
# Scoring


def test_all_correct_scores_100_and_the_top_band(runner):
    sid = runner.start("evaluation", "fay", {"assessment_id": MATH, "seed": 3})
    for i in range(20):
        view = answer_current(runner, sid, True)
        assert view["stage"] == ("completed" if i == 19 else "active")
    r = view["results"]
    assert (r["total_items"], r["items_correct"], r["score_percent"], r["grade"], r["passed"]) == (20, 20, 100.0, "Expert", True)
    assert all(s["accuracy_percent"] == 100.0 and s["items_attempted"] == 5 for s in r["section_results"])
    assert runner.ctx.store.query("SELECT status FROM sessions WHERE id = ?", [sid])[0][0] == "completed"


@pytest.mark.parametrize("assessment_id", [MATH, NET])
def test_all_wrong_scores_0_and_the_bottom_band(runner, assessment_id):
    sid = runner.start("evaluation", "gus", {"assessment_id": assessment_id, "seed": 4})
    while runner.view(sid)["stage"] == "active":
        view = answer_current(runner, sid, False)
    r = view["results"]
    assert (r["items_correct"], r["score_percent"], r["grade"], r["passed"]) == (0, 0.0, "Novice", False)
    assert all(not item["correct"] for item in r["review"])


def test_a_scripted_mix_gives_the_hand_computed_results(runner, clock):
    sid = runner.start("evaluation", "hal", {"assessment_id": MATH, "seed": 5})
    # Per section (in order): which answers are right, and how the time is given.
    script = {
        "addition": ([1, 1, 1, 1, 1], "clock", [2, 4, 6, 8, 10]),           # from event times: mean 6000 ms
        "subtraction": ([1, 1, 1, 1, 0], "given", [1000, 2000, 3000, 4000, 5000]),  # mean 3000
        "multiplication": ([1, 1, 1, 0, 0], "given", [500, 500, 500, 500, 1500]),  # mean 700
        "division": ([1, 0, 0, 0, 0], "given", [10, 20, 30, 40, 51]),              # mean 30.2
    }
    done = Counter()
    while runner.view(sid)["stage"] == "active":
        q = current(runner, sid)
        right, how, times = script[q["section_id"]]
        k = done[q["section_id"]]
        done[q["section_id"]] += 1
        if how == "clock":
            clock.advance(times[k])
            view = answer_current(runner, sid, bool(right[k]))
        else:
            clock.advance(1)
            view = answer_current(runner, sid, bool(right[k]), time_ms=times[k])
    r = view["results"]
    # 5 + 4 + 3 + 1 = 13 of 20 = 65%: "Developing" (60-70), below the 70% pass mark.
    assert (r["items_correct"], r["score_percent"], r["grade"], r["passed"]) == (13, 65.0, "Developing", False)
    got = {s["section_id"]: (s["items_attempted"], s["items_correct"], s["accuracy_percent"], s["mean_response_time_ms"])
           for s in r["section_results"]}
    assert got == {"addition": (5, 5, 100.0, 6000.0), "subtraction": (5, 4, 80.0, 3000.0),
                   "multiplication": (5, 3, 60.0, 700.0), "division": (5, 1, 20.0, 30.2)}
    assert [s["section_title"] for s in r["section_results"]] == ["Addition", "Subtraction", "Multiplication", "Division"]
    assert r["duration_seconds"] == 30 + 15
    rows = sessions.session_responses(runner.ctx.store, sid)
    assert len(rows) == 20 and sum(row["correct"] for row in rows) == 13
    assert [i["time_ms"] for i in r["review"] if i["section_id"] == "addition"] == [2000, 4000, 6000, 8000, 10000]
    by_item = {row["item_id"]: row for row in rows}
    for item in r["review"]:
        assert by_item[item["item_id"]]["correct"] == item["correct"]
        assert by_item[item["item_id"]]["time_taken_ms"] == item["time_ms"]
        assert item["correct_answer"] == key(runner, item["item_id"]) and item["explanation"]


def test_weighted_sections_scoring(runner):
    sid = runner.start("evaluation", "ida", {"assessment_id": "TEST-OPEN", "seed": 6})
    # add: right, wrong (50%, weight 3); sub: right, right (100%, weight 1) -> (150 + 100) / 4 = 62.5
    for right in (True, False, True, True):
        answer_current(runner, sid, right)
    r = runner.command(sid, "finish")["results"]
    assert (r["items_correct"], r["score_percent"], r["grade"], r["passed"]) == (3, 62.5, "Pass", True)
    assert r["scoring_method"] == "weighted_sections"


# --------------------------------------------------------------------------
# Time limit


def test_time_limit_refuses_late_answers_and_completes_with_unanswered_wrong(runner, clock):
    sid = runner.start("evaluation", "jo", {"assessment_id": MATH, "seed": 8})
    view = runner.view(sid)
    assert view["time_limit_minutes"] == 30 and view["time_remaining_seconds"] == 1800
    answer_current(runner, sid, True)
    answer_current(runner, sid, True)
    clock.advance(600)
    assert runner.view(sid)["time_remaining_seconds"] == 1200
    late = current(runner, sid)
    clock.advance(1200 + 60)
    with pytest.raises(FlowError, match="^Time is up: your answers saved by .* were marked"):
        runner.command(sid, "answer", item_id=late["id"], answer=key(runner, late["id"]))
    view = runner.view(sid)
    assert view["stage"] == "completed" and "question" not in view
    r = view["results"]
    assert r["expired"] and r["items_answered"] == 2 and r["items_correct"] == 2
    assert r["score_percent"] == 10.0 and r["grade"] == "Novice" and not r["passed"]
    assert r["duration_seconds"] == 1800
    unanswered = [i for i in r["review"] if i["answer"] is None]
    assert len(unanswered) == 18 and not any(i["correct"] for i in unanswered)
    rows = sessions.session_responses(runner.ctx.store, sid)
    assert len(rows) == 20 and sum(1 for row in rows if row["answer"] is None and row["correct"] is False) == 18


def test_time_limit_override_and_in_flight_answers(runner, clock):
    sid = runner.start("evaluation", "kim", {"assessment_id": MATH, "seed": 9, "time_limit_minutes": 1})
    assert runner.view(sid)["time_remaining_seconds"] == 60
    clock.advance(61)  # just past the deadline: an answer already in flight still counts
    assert runner.view(sid)["time_remaining_seconds"] == 0
    answer_current(runner, sid, True)
    clock.advance(10)
    r = runner.view(sid)["results"]
    assert r["expired"] and r["items_correct"] == 1 and r["duration_seconds"] == 60


def test_no_time_limit_means_no_deadline(runner, clock):
    sid = runner.start("evaluation", "lee", {"assessment_id": "TEST-OPEN", "seed": 1})
    clock.advance(10 * 3600)
    view = runner.view(sid)
    assert view["stage"] == "active" and view["time_remaining_seconds"] is None


# --------------------------------------------------------------------------
# Skip and review


def test_skip_and_going_back_are_refused_when_the_blueprint_says_so(runner):
    sid = runner.start("evaluation", "max", {"assessment_id": MATH, "seed": 10})
    answer_current(runner, sid, True)
    with pytest.raises(FlowError, match="does not allow skipping"):
        runner.command(sid, "skip")
    with pytest.raises(FlowError, match="does not allow going back"):
        runner.command(sid, "goto", index=0)
    view = runner.view(sid)
    assert view["question"]["number"] == 2 and not view["can_skip"] and not view["can_go_back"]


def test_skipped_items_come_back_at_the_end_and_answers_can_be_changed(runner):
    store = runner.ctx.store
    sid = runner.start("evaluation", "ned", {"assessment_id": "TEST-OPEN", "seed": 12})
    plan = [e["item_id"] for e in runner.state(sid)["plan"]]
    view = runner.command(sid, "skip", item_id=plan[0])
    assert view["question"]["id"] == plan[1] and view["progress"]["skipped"] == 1
    assert runner.command(sid, "skip", item_id=plan[0])["question"]["id"] == plan[1]  # a repeated click skips once
    for n in (1, 2, 3):
        view = answer_current(runner, sid, n != 1)
    assert view["question"]["id"] == plan[0]  # back to the skipped one
    view = answer_current(runner, sid, False)
    # Review is allowed, so the evaluation waits for an explicit finish.
    assert view["stage"] == "active" and view["all_answered"] and view["progress"]["answered"] == 4
    with pytest.raises(FlowError, match="has not been reached|no question at index"):
        runner.command(sid, "goto", index=9)
    view = runner.command(sid, "goto", index=1)
    assert view["question"]["id"] == plan[1] and view["your_answer"] == wrong(runner, plan[1])
    runner.command(sid, "answer", item_id=plan[1], answer=key(runner, plan[1]))
    runner.command(sid, "goto", index=0)
    runner.command(sid, "answer", item_id=plan[0], answer=key(runner, plan[0]))
    r = runner.command(sid, "finish")["results"]
    assert r["items_correct"] == 4 and r["score_percent"] == 100.0
    assert {i["item_id"]: i["attempts"] for i in r["review"]} == {plan[0]: 2, plan[1]: 2, plan[2]: 1, plan[3]: 1}
    rows = sessions.session_responses(store, sid)
    assert sorted((row["item_id"], row["attempt"], row["correct"]) for row in rows if row["item_id"] == plan[1]) == [
        (plan[1], 1, False), (plan[1], 2, True)]
    assert runner.command(sid, "finish")["results"] == r  # finishing twice changes nothing


def test_skip_without_review_completes_when_the_skipped_item_is_answered(runner):
    sid = runner.start("evaluation", "ola", {"assessment_id": "TEST-SKIP", "seed": 13})
    runner.command(sid, "skip")
    for _ in range(3):
        answer_current(runner, sid, True)
    with pytest.raises(FlowError, match="no other question"):
        runner.command(sid, "skip")
    view = answer_current(runner, sid, True)
    assert view["stage"] == "completed" and view["results"]["items_correct"] == 4


# --------------------------------------------------------------------------
# Secrecy, resume, idempotence


def test_the_view_never_shows_keys_or_explanations_before_completion(runner, store):
    sid = runner.start("evaluation", "pia", {"assessment_id": NET, "seed": 14})
    items = [repo.load_item(store, e["item_id"]) for e in runner.state(sid)["plan"]]
    secret_fields = {"correct_answer", "correct_index", "explanation", "correct", "score", "feedback", "answer_key"}
    n = 0
    while True:
        view = runner.view(sid)
        if view["stage"] == "completed":
            break
        text = json.dumps(view)
        assert not keys_in(view) & secret_fields
        for item in items:
            assert item.explanation not in text
        answer_current(runner, sid, n % 3 == 0)
        n += 1
    assert n == len(items)
    review = view["results"]["review"]
    assert all(i["correct_answer"] and i["explanation"] for i in review)


def test_a_new_runner_on_the_same_store_resumes_at_the_same_item(runner, store, lib, clock):
    sid = runner.start("evaluation", "quinn", {"assessment_id": MATH, "seed": 15})
    for _ in range(3):
        answer_current(runner, sid, True)
    before = runner.view(sid)
    other = make(store, lib, clock)
    after = other.view(sid)
    assert after == before and after["question"]["number"] == 4
    answer_current(other, sid, False)
    assert other.view(sid)["question"]["number"] == 5
    runner.forget(sid)
    assert runner.view(sid)["question"]["number"] == 5


def test_the_same_answer_twice_is_recorded_once(runner, store):
    sid = runner.start("evaluation", "ria", {"assessment_id": MATH, "seed": 16})
    q = current(runner, sid)
    runner.command(sid, "answer", item_id=q["id"], answer=key(runner, q["id"]))
    events = len(sessions.load_events(store, sid))
    view = runner.command(sid, "answer", item_id=q["id"], answer=key(runner, q["id"]))
    assert view["question"]["number"] == 2
    assert len(sessions.load_events(store, sid)) == events
    assert len([r for r in sessions.session_responses(store, sid) if r["item_id"] == q["id"]]) == 1
    with pytest.raises(FlowError, match="no longer on screen"):
        runner.command(sid, "answer", item_id=q["id"], answer=wrong(runner, q["id"]))
    with pytest.raises(FlowError, match="not part of this evaluation"):
        runner.command(sid, "answer", item_id="itm_nope", answer="1")


# --------------------------------------------------------------------------
# Options in a fixed order, and a time limit per question


def test_shuffle_options_false_shows_every_student_the_options_in_natural_order(runner, store):
    from core.flows.evaluation import natural_order
    shown = {}
    for student in ("ola", "pat"):
        sid = runner.start("evaluation", student, {"assessment_id": "TEST-FIXED-ORDER", "seed": 5})
        views = runner.state(sid)["views"]
        shown[student] = [views[e["item_id"]]["options"] for e in runner.state(sid)["plan"]]
        answers = []
        for n in range(6):
            q = current(runner, sid)
            item = repo.load_item(store, q["id"])
            assert q["options"] == item.options and not item.options_shuffled
            assert natural_order(item.options) == list(range(len(item.options)))
            # The key moved with its option: the keyed option is still the right answer.
            assert item.options[item.correct_index] == item.correct_answer
            answers.append(item.correct_answer if n % 2 == 0 else wrong(runner, q["id"]))
            runner.command(sid, "answer", item_id=q["id"], answer=answers[-1])
        results = runner.view(sid)["results"]
        assert [r["correct"] for r in results["review"]] == [n % 2 == 0 for n in range(6)]
        assert results["items_correct"] == 3 and results["score_percent"] == 50.0
    adds = [o for o in shown["ola"][:3]]
    assert all([int(x) for x in options] == sorted(int(x) for x in options) for options in adds)
    assert shown["ola"] == shown["pat"]        # the same paper: the same order for everyone
    # The generator's own dealing is kept apart: the same question shuffled elsewhere keeps its own key.
    plain = runner.start("evaluation", "quin", {"assessment_id": MATH, "seed": 5})
    assert all(repo.load_item(store, e["item_id"]).options_shuffled for e in runner.state(plain)["plan"])


def test_a_timed_question_answered_late_is_recorded_as_wrong_with_a_message(runner, store, clock):
    sid = runner.start("evaluation", "raj", {"assessment_id": "TEST-TIMED", "seed": 3})
    view = runner.view(sid)
    assert view["question"]["time_limit_seconds"] == 30 and view["item_time_left_seconds"] == 30
    clock.advance(10)
    assert runner.view(sid)["item_time_left_seconds"] == 20
    answer_current(runner, sid, right=True)                      # in time: counts
    late_id = current(runner, sid)["id"]
    clock.advance(45)
    assert runner.view(sid)["item_time_left_seconds"] == 0
    view = runner.command(sid, "answer", item_id=late_id, answer=key(runner, late_id))
    assert view["time_up"].startswith("Time's up for this one: your answer came after the 30 seconds allowed")
    assert view["question"]["id"] != late_id                     # recorded, and on to the next question
    row = store.query("SELECT answer, correct, score FROM responses WHERE session_id = ? AND item_id = ?",
                      [sid, late_id])[0]
    assert row[0] == key(runner, late_id) and row[1] is False and row[2] == 0
    # Going back does not restart the clock, and a late change leaves the answer given in time alone.
    first_id = runner.state(sid)["plan"][0]["item_id"]
    runner.command(sid, "goto", index=0)
    assert runner.view(sid)["item_time_left_seconds"] == 0
    with pytest.raises(FlowError, match="the answer you gave in time stands"):
        runner.command(sid, "answer", item_id=first_id, answer=wrong(runner, first_id))
    assert runner.state(sid)["answers"][first_id]["correct"] is True
    runner.command(sid, "goto", index=2)
    answer_current(runner, sid, right=True)                      # the last one, just shown: in time
    results = runner.command(sid, "finish")["results"]
    assert [r["correct"] for r in results["review"]] == [True, False, True]
    assert [r["late"] for r in results["review"]] == [False, True, False]
