"""Lessons through the real flow on a real database: cards, retries with hints, reveals, mastery, analysis."""
from __future__ import annotations

import json

import pytest

from core.flows.base import Context, FlowError, Runner
from core.flows.lesson import LessonFlow
from core.flows.survey import SurveyFlow
from core.store import repo, sessions

ADD, SUB, MUL = "MATH.ARITH.ADD.2DIGIT", "MATH.ARITH.SUB.2DIGIT", "MATH.ARITH.MUL.SINGLE"
# Written-answer skills: their keys are not among the options, so a leak of the key is visible in the view.
WRITTEN = ("SQA.MATH.N5.EXPAND_BRACKETS", "SQA.MATH.H.DIFFERENTIATE", "SQA.MATH.N5.FACTORISE")


def make_runner(store, library, clock=None) -> Runner:
    ctx = Context.create(store, library) if clock is None else Context.create(store, library, clock=clock)
    return Runner(ctx, {"lesson": LessonFlow, "survey": SurveyFlow})


@pytest.fixture
def runner(store, library, clock):
    return make_runner(store, library, clock)


def current_item(runner, sid):
    return repo.load_item(runner.ctx.store, runner.view(sid)["card"]["question"]["id"])


def wrong(item, k: int = 0) -> str:
    """The k-th wrong answer for an item (different each time, so no attempt looks like a double click)."""
    if item.options:
        return [o for i, o in enumerate(item.options) if i != item.correct_index][k]
    return str(90001 + k)


def answer(runner, sid, right: bool, k: int = 0, **kw) -> dict:
    view = runner.view(sid)
    item = repo.load_item(runner.ctx.store, view["card"]["question"]["id"])
    text = item.typed_answer if right else wrong(item, k)
    return runner.command(sid, "answer", card_index=view["card"]["index"], answer=text, **kw)


def events(store, sid, type_=None) -> list[dict]:
    return [e for e in sessions.load_events(store, sid) if type_ is None or e["type"] == type_]


def response_rows(store, sid) -> list[tuple]:
    """The session's responses in the order the lesson showed their questions, each question's attempts in turn."""
    rows = store.query("SELECT item_id, attempt, correct FROM responses WHERE session_id = ?", [sid])
    shown: dict[str, int] = {}
    for e in events(store, sid):
        text = json.dumps(e["payload"])
        for item_id, _, _ in rows:
            if item_id not in shown and item_id in text:
                shown[item_id] = len(shown)
    return sorted(rows, key=lambda r: (shown.get(r[0], len(shown)), r[1]))


def written_skill(library) -> str:
    for skill in WRITTEN:
        if skill in library.generators and library.generator(skill).bp.generation.item_type != "multiple_choice":
            return skill
    pytest.skip("no written-answer skill blueprint in the library")


# --------------------------------------------------------------------------


def test_cards_are_built_at_start_with_teaching_and_an_unseen_question(runner, store, library):
    sid = runner.start("lesson", "amy", {"skills": [ADD, SUB], "cards": 3, "seed": 1})
    state = runner.state(sid)
    cards = state["cards"]
    assert len(cards) == 3 and [c["skill_ids"] for c in cards] == [[ADD], [SUB], [ADD]]
    assert len({c["item_id"] for c in cards}) == 3
    for card in cards:
        item = repo.load_item(store, card["item_id"])
        assert item is not None  # stored with the events, so every process can mark it
        teaching = library.generator(card["skill_ids"][0]).bp.teaching
        assert card["teaching"]["text"] == teaching.text.strip() and card["title"]
        assert card["teaching"]["source"] == "skill" and card["key_concept"] == teaching.concept
        example = card["teaching"]["example"]
        assert example["stem"] and example["explanation"] and example["stem"] != item.stem
    seen = {r[0] for r in store.query("SELECT item_id FROM seen WHERE student = 'amy'")}
    assert {c["item_id"] for c in cards} <= seen
    view = runner.view(sid)
    assert view["stage"] == "question" and view["card"]["number"] == 1
    assert view["card"]["attempts_used"] == 0 and view["card"]["attempts_remaining"] == 3
    assert view["progress"] == {"card": 1, "total": 3, "completed": 0, "correct": 0}


def test_a_lesson_right_first_time_completes(runner, store):
    sid = runner.start("lesson", "amy", {"skills": [ADD, SUB, MUL], "cards": 3, "seed": 2})
    for n in range(3):
        view = answer(runner, sid, right=True)
        assert view["feedback"]["correct"] is True and view["revealed"]["correct_answer"]
        if n < 2:
            assert view["stage"] == "feedback"
            view = runner.command(sid, "next")
            assert view["card"]["number"] == n + 2
    assert view["stage"] == "ended"
    summary = view["summary"]
    assert summary["overall_accuracy"] == 1.0 and summary["total_attempts"] == 3
    assert summary["cards_completed"] == 3 and summary["retry_recommended"] is False
    assert summary["strong_skills"] == sorted([ADD, SUB, MUL]) and summary["weak_skills"] == []
    assert store.query("SELECT status FROM sessions WHERE id = ?", [sid])[0][0] == "completed"
    assert runner.command(sid, "next")["stage"] == "ended"  # a "finish" click after the end changes nothing


def test_wrong_wrong_right_escalates_hints_then_completes(runner, store):
    sid = runner.start("lesson", "ben", {"skills": [ADD], "cards": 2, "seed": 3})
    item = current_item(runner, sid)
    assert len(item.hints) >= 2
    first = answer(runner, sid, right=False, k=0)
    assert first["stage"] == "retry" and first["feedback"]["correct"] is False
    assert first["feedback"]["hint"] == item.hints[0]
    assert first["card"]["attempts_used"] == 1 and first["card"]["attempts_remaining"] == 2
    assert "revealed" not in first and first["card"]["question"]["id"] == item.id  # the same card again
    second = answer(runner, sid, right=False, k=1)
    assert second["stage"] == "retry" and second["feedback"]["hint"] == item.hints[1]
    assert second["card"]["attempts_remaining"] == 1
    third = answer(runner, sid, right=True)
    assert third["stage"] == "feedback" and third["feedback"]["correct"] is True
    assert third["feedback"]["hint"] is None
    assert third["revealed"]["correct_answer"] == item.correct_answer
    assert third["revealed"]["explanation"] == item.explanation
    assert third["progress"]["correct"] == 1
    assert response_rows(store, sid) == [(item.id, 1, False), (item.id, 2, False), (item.id, 3, True)]


def test_hints_run_out_into_the_key_concept(store, library):
    runner = make_runner(store, library)
    sid = runner.start("lesson", "bea", {"skills": [ADD], "cards": 1, "max_attempts": 4, "seed": 4})
    item = current_item(runner, sid)
    hints = [answer(runner, sid, right=False, k=k)["feedback"]["hint"] for k in range(3)]
    assert hints[:2] == item.hints[:2]
    assert hints[2] and hints[2] not in item.hints  # then the method, the worked example, the key concept
    assert len(set(hints)) == 3


def test_three_wrong_reveals_the_explanation_and_moves_on(runner, store):
    sid = runner.start("lesson", "cat", {"skills": [ADD, SUB], "cards": 2, "seed": 5})
    item = current_item(runner, sid)
    for k in range(2):
        assert "revealed" not in answer(runner, sid, right=False, k=k)
    view = answer(runner, sid, right=False, k=2)
    assert view["stage"] == "feedback" and view["card"]["complete"] is True
    assert view["card"]["attempts_remaining"] == 0 and view["feedback"]["hint"] is None
    revealed = view["revealed"]
    assert revealed["correct_answer"] == item.correct_answer and revealed["explanation"] == item.explanation
    assert revealed["remediation"]["key_concept"]
    with pytest.raises(FlowError, match="already finished"):
        runner.command(sid, "answer", card_index=0, answer=item.correct_answer)
    nxt = runner.command(sid, "next")
    assert nxt["stage"] == "question" and nxt["card"]["number"] == 2
    assert nxt["card"]["attempts_used"] == 0 and "feedback" not in nxt and "revealed" not in nxt
    completed = events(store, sid, "card_completed")
    assert completed[0]["payload"]["result"] == "incorrect" and completed[0]["payload"]["attempts"] == 3


def test_skip_completes_the_card_without_mastery_and_after_a_wrong_try_counts_as_wrong(runner, store):
    sid = runner.start("lesson", "dan", {"skills": [ADD, SUB, MUL], "cards": 3, "seed": 6})
    view = runner.command(sid, "skip")
    assert view["stage"] == "question" and view["card"]["number"] == 2
    assert view["progress"]["completed"] == 1 and view["progress"]["correct"] == 0
    assert runner.command(sid, "skip", card_index=0)["card"]["number"] == 2  # a repeated skip click
    assert sessions.get_mastery(store, "dan") == {}  # a skip before any attempt says nothing about the student
    answer(runner, sid, right=False)
    view = runner.command(sid, "skip")
    assert view["card"]["number"] == 3
    assert sessions.get_mastery(store, "dan") == {SUB: pytest.approx(0.4)}  # skipped after a wrong try
    answer(runner, sid, right=True)
    summary = runner.view(sid)["summary"]
    assert summary["cards_completed"] == 3 and summary["cards_skipped"] == 2 and summary["total_attempts"] == 2
    assert [e["payload"]["result"] for e in events(store, sid, "card_completed")] == ["skipped", "skipped", "correct"]


def test_every_attempt_is_evidence_and_a_responses_row(runner, store):
    sid = runner.start("lesson", "eve", {"skills": [ADD, SUB], "cards": 2, "seed": 7})
    first = current_item(runner, sid)
    answer(runner, sid, right=False, k=0)
    answer(runner, sid, right=True)
    runner.command(sid, "next")
    second = current_item(runner, sid)
    for k in range(3):
        answer(runner, sid, right=False, k=k)
    evidence = [e["payload"]["evidence"] for e in events(store, sid, "attempted")]
    assert [(e["card_id"], e["attempts"], e["is_correct"], e["should_progress"]) for e in evidence] == [
        ("card_1", 1, False, False), ("card_1", 2, True, True),
        ("card_2", 1, False, False), ("card_2", 2, False, False), ("card_2", 3, False, True)]
    for e in evidence:
        assert set(e) >= {"card_id", "question", "student_response", "is_correct", "attempts", "should_progress",
                          "feedback", "timestamp", "skill_ids"}
        assert e["feedback"] and e["timestamp"].endswith("Z")
    assert evidence[0]["question"] == first.stem and evidence[0]["skill_ids"] == [ADD]
    assert evidence[1]["student_response"] == first.correct_answer
    assert evidence[2]["skill_ids"] == [SUB] and evidence[2]["question"] == second.stem
    assert runner.state(sid)["evidence"] == evidence
    assert response_rows(store, sid) == [(first.id, 1, False), (first.id, 2, True),
                                         (second.id, 1, False), (second.id, 2, False), (second.id, 3, False)]


def test_mastery_follows_the_seed_rule_when_cards_complete(runner, store):
    store.write(lambda cur: sessions.set_mastery(cur, "fay", ADD, 0.6))
    sid = runner.start("lesson", "fay", {"skills": [ADD, SUB, ADD], "cards": 3, "seed": 8})
    answer(runner, sid, right=False, k=0)
    assert sessions.get_mastery(store, "fay") == {ADD: 0.6}  # nothing moves until the card completes
    answer(runner, sid, right=True)
    assert sessions.get_mastery(store, "fay")[ADD] == pytest.approx(0.64)   # 0.6 + 0.1 * (1 - 0.6)
    runner.command(sid, "next")
    for k in range(3):
        answer(runner, sid, right=False, k=k)
    assert sessions.get_mastery(store, "fay")[SUB] == pytest.approx(0.4)    # 0.5 - 0.2 * 0.5
    runner.command(sid, "next")
    answer(runner, sid, right=True)
    assert sessions.get_mastery(store, "fay") == {ADD: pytest.approx(0.676), SUB: pytest.approx(0.4)}  # 0.64 + 0.036
    updates = runner.view(sid)["summary"]["mastery_updates"]
    assert [(u["skill_id"], u["previous_score"], u["new_score"], u["delta"], u["card_id"], u["is_correct"])
            for u in updates] == [(ADD, 0.6, 0.64, 0.04, "card_1", True), (SUB, 0.5, 0.4, -0.1, "card_2", False),
                                  (ADD, 0.64, 0.676, 0.036, "card_3", True)]


def test_performance_analysis_on_a_scripted_run(runner, store, clock):
    sid = runner.start("lesson", "gus", {"skills": [ADD, SUB, MUL, ADD], "cards": 4, "seed": 9})
    clock.t += 30
    answer(runner, sid, right=True)                      # card 1 (ADD): right first time
    runner.command(sid, "next")
    clock.t += 40
    answer(runner, sid, right=False, k=0)                # card 2 (SUB): wrong, wrong, right
    clock.t += 20
    answer(runner, sid, right=False, k=1)
    clock.t += 20
    answer(runner, sid, right=True)
    runner.command(sid, "next")
    for k in range(3):                                   # card 3 (MUL): three wrong
        clock.t += 10
        answer(runner, sid, right=False, k=k)
    runner.command(sid, "next")
    clock.t += 15
    view = answer(runner, sid, right=False, k=0, time_ms=4321)   # card 4 (ADD): wrong, then right
    assert view["stage"] == "retry"
    clock.t += 5
    view = answer(runner, sid, right=True)
    assert view["stage"] == "ended"
    summary = view["summary"]
    assert summary["overall_accuracy"] == 0.75                 # 3 of 4 cards right within the attempts
    assert summary["total_attempts"] == 9                       # 1 + 3 + 3 + 2
    assert summary["cards_completed"] == 4 and summary["cards_correct"] == 3
    assert summary["average_attempts_per_card"] == 2.25
    assert summary["retry_recommended"] is False
    assert summary["strong_skills"] == []                       # ADD needed a second try on card 4
    assert summary["weak_skills"] == [MUL]
    assert summary["skills"][ADD] == {"cards": 2, "correct": 2, "first_try": 1}
    assert summary["time_spent_seconds"] == 160.0               # 30+40+20+20+3*10+15+5, first event to last
    times = store.query("SELECT time_taken_ms FROM responses WHERE session_id = ? ORDER BY created_at, item_id, attempt",
                        [sid])
    assert (4321,) in times and (40000,) in times               # given, or measured from the card being shown


def test_low_accuracy_recommends_a_retry(runner):
    sid = runner.start("lesson", "hal", {"skills": [ADD, SUB], "cards": 2, "max_attempts": 1, "seed": 10})
    answer(runner, sid, right=True)
    runner.command(sid, "next")
    summary = answer(runner, sid, right=False)["summary"]
    assert summary["overall_accuracy"] == 0.5 and summary["retry_recommended"] is True
    assert summary["strong_skills"] == [ADD] and summary["weak_skills"] == [SUB]


def test_a_repeated_submission_is_recorded_once(runner, store):
    sid = runner.start("lesson", "ida", {"skills": [ADD, SUB], "cards": 2, "seed": 11})
    item = current_item(runner, sid)
    bad = wrong(item)
    runner.command(sid, "answer", card_index=0, answer=bad)
    before = (len(events(store, sid)), len(response_rows(store, sid)))
    view = runner.command(sid, "answer", card_index=0, answer=bad)        # double click on a wrong answer
    assert view["card"]["attempts_used"] == 1
    runner.command(sid, "answer", item_id=item.id, answer=item.correct_answer)
    after_right = (len(events(store, sid)), len(response_rows(store, sid)))
    assert after_right == (before[0] + 2, before[1] + 1)                 # the attempt and the card's completion
    view = runner.command(sid, "answer", card_index=0, answer=item.correct_answer)   # double click on the right one
    assert view["stage"] == "feedback" and view["card"]["attempts_used"] == 2
    assert (len(events(store, sid)), len(response_rows(store, sid))) == after_right
    runner.command(sid, "next")
    view = runner.command(sid, "answer", card_index=0, answer=item.correct_answer)   # a late copy from another tab
    assert view["card"]["number"] == 2 and view["card"]["attempts_used"] == 0
    assert (len(events(store, sid)), len(response_rows(store, sid))) == (after_right[0] + 1, after_right[1])
    assert sessions.get_mastery(store, "ida") == {ADD: pytest.approx(0.55)}


def test_the_view_never_shows_the_key_or_explanation_before_the_reveal(runner, library):
    skill = written_skill(library)
    sid = runner.start("lesson", "jo", {"skills": [skill], "cards": 2, "seed": 12})
    item = current_item(runner, sid)
    example = runner.view(sid)["card"]["teaching"]["example"]
    assert item.correct_answer not in item.stem and item.correct_answer != example["answer"]

    def text(view) -> str:
        return json.dumps(view, ensure_ascii=False)

    views = [runner.view(sid)]
    for k in range(2):
        views.append(answer(runner, sid, right=False, k=k))
        views.append(runner.view(sid))
    for view in views:
        assert item.correct_answer not in text(view)
        assert item.explanation not in text(view)
    assert views[-1]["feedback"]["hint"] == item.hints[1]
    revealed = answer(runner, sid, right=False, k=2)
    assert item.correct_answer in text(revealed) and item.explanation in text(revealed)


def test_a_new_runner_resumes_at_the_same_card_and_attempt(store, library):
    first = make_runner(store, library)
    sid = first.start("lesson", "kim", {"skills": [ADD, SUB, MUL], "cards": 3, "seed": 13})
    answer(first, sid, right=True)
    first.command(sid, "next")
    item = current_item(first, sid)
    answer(first, sid, right=False, k=0)
    before = first.view(sid)

    other = make_runner(store, library)   # as another process would: nothing cached
    view = other.view(sid)
    assert view == before
    assert view["stage"] == "retry" and view["card"]["number"] == 2
    assert view["card"]["question"]["id"] == item.id and view["card"]["attempts_used"] == 1
    assert view["feedback"]["hint"] == item.hints[0]
    view = answer(other, sid, right=False, k=1)
    assert view["card"]["attempts_used"] == 2 and view["feedback"]["hint"] == item.hints[1]
    assert response_rows(store, sid)[-1] == (item.id, 2, False)
    assert first.view(sid) == other.view(sid)   # the first runner reads the events it missed


def test_an_answer_for_another_card_is_refused(runner, store):
    sid = runner.start("lesson", "lou", {"skills": [ADD, SUB], "cards": 2, "seed": 14})
    cards = runner.state(sid)["cards"]
    second = repo.load_item(store, cards[1]["item_id"])
    with pytest.raises(FlowError, match="card 2, but card 1 is on screen"):
        runner.command(sid, "answer", card_index=1, answer=second.correct_answer)
    with pytest.raises(FlowError, match="card 2, but card 1 is on screen"):
        runner.command(sid, "answer", item_id=second.id, answer=second.correct_answer)
    with pytest.raises(FlowError, match="not the one on card 1"):
        runner.command(sid, "answer", card_index=0, item_id=second.id, answer="1")
    with pytest.raises(FlowError, match="no card 7"):
        runner.command(sid, "answer", card_index=7, answer="1")
    with pytest.raises(FlowError, match="not part of this lesson"):
        runner.command(sid, "answer", item_id="itm_unknown", answer="1")
    assert events(store, sid, "attempted") == [] and response_rows(store, sid) == []


def test_stop_ends_early_with_an_analysis(runner, store):
    sid = runner.start("lesson", "max", {"skills": [ADD, SUB, MUL], "cards": 3, "seed": 15})
    answer(runner, sid, right=True)
    view = runner.command(sid, "stop")
    summary = view["summary"]
    assert view["stage"] == "ended" and summary["cards_completed"] == 1
    assert summary["cards_total"] == 3 and summary["cards_shown"] == 1 and summary["stopped_early"] is True
    assert summary["retry_recommended"] is True and "Well done" not in summary["summary"]
    assert store.query("SELECT status FROM sessions WHERE id = ?", [sid])[0][0] == "abandoned"
    from core.school.sittings import recent_sessions
    listed = next(r for r in recent_sessions(store, "max") if r["What"] == "Lesson")
    assert listed["Score"] == "1 of 3 cards right", "My progress counts the cards, not the marks of those answered"
    with pytest.raises(FlowError, match="lesson has ended"):
        runner.command(sid, "answer", card_index=1, answer="1")
    assert runner.command(sid, "stop")["stage"] == "ended"


def test_a_lesson_on_an_outcome_draws_unseen_questions_for_it(runner, store, library):
    sid = runner.start("lesson", "ned", {"subject": "Mathematics", "level": "Nat 5", "outcome": "MNU-5-02",
                                         "cards": 3, "seed": 16})
    cards = runner.state(sid)["cards"]
    assert all(c["outcome_id"] == "MNU-5-02" for c in cards)
    items = [repo.load_item(store, c["item_id"]) for c in cards]
    assert len({it.content_key for it in items}) == 3
    for card, item in zip(cards, items):
        assert "MNU-5-02" in item.outcome_ids
        if card["teaching"]["example"]:
            assert card["teaching"]["example"]["stem"] != item.stem
    # A second lesson on the same outcome does not repeat the first one's questions.
    again = runner.start("lesson", "ned", {"subject": "Mathematics", "level": "Nat 5", "outcome": "MNU-5-02",
                                           "cards": 3, "seed": 16})
    keys = {repo.load_item(store, c["item_id"]).content_key for c in runner.state(again)["cards"]}
    assert not keys & {it.content_key for it in items}


@pytest.mark.parametrize("config, message", [
    ({}, "subject and level"),
    ({"skills": []}, "non-empty list"),
    ({"skills": ["NO.SUCH.SKILL"]}, "no skill blueprint 'NO.SUCH.SKILL'"),
    ({"skills": [ADD], "cards": 0}, "cards must be a whole number"),
    ({"skills": [ADD], "max_attempts": "3"}, "max_attempts must be a whole number"),
])
def test_bad_configuration_is_refused(runner, config, message):
    with pytest.raises(FlowError, match=message):
        runner.start("lesson", "ola", config)


def test_an_overlong_answer_is_refused_without_using_an_attempt_and_bad_times_are_measured(runner, store, clock):
    sid = runner.start("lesson", "pam", {"skills": [ADD], "cards": 1, "seed": 17})
    with pytest.raises(FlowError, match="too long"):
        runner.command(sid, "answer", card_index=0, answer="9" * 5000)
    assert runner.view(sid)["card"]["attempts_used"] == 0 and response_rows(store, sid) == []
    clock.t += 12
    runner.command(sid, "answer", card_index=0, answer=wrong(current_item(runner, sid)), time_ms=-5)
    assert store.query("SELECT time_taken_ms FROM responses WHERE session_id = ?", [sid]) == [(12000,)]
