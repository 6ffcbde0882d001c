"""Rapid-fire and adaptive practice through the real flow on a real database."""
from __future__ import annotations

import json

import pytest

from core.flows.base import FlowError
from core.flows.registry import make_runner
from core.marking import MarkingSpec, mark_answer
from core.store import Store, repo


@pytest.fixture
def runner(db_path, library):
    store = Store(db_path)
    yield make_runner(store, library)
    store.close()


def key_of(runner, item_id: str) -> str:
    return repo.load_item(runner.ctx.store, item_id).correct_answer


def answer_current(runner, sid, right: bool) -> dict:
    q = runner.view(sid)["question"]
    item = repo.load_item(runner.ctx.store, q["id"])
    if right:
        answer = item.typed_answer
    else:
        answer = readable_wrong(item)
    return runner.command(sid, "answer", item_id=q["id"], answer=answer)


def readable_wrong(item) -> str:
    """A wrong answer the question can read: an unreadable one is not an attempt at all."""
    if item.options:
        return next(o for k, o in enumerate(item.options) if k != item.correct_index)
    spec = MarkingSpec.from_item(item)
    for guess in ("123456", "x + 123456", "definitely not the answer 123456", "10.12.34.56", "10.12.34.0/24"):
        result = mark_answer(spec, guess)
        if result.valid and not result.correct:
            return guess
    raise AssertionError(f"no readable wrong answer for {item.id}")


def test_ten_question_session_completes(runner):
    sid = runner.start("practice", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": 1})
    for n in range(10):
        view = answer_current(runner, sid, right=n % 2 == 0)
        assert view["stage"] == "feedback"
        if n < 9:
            runner.command(sid, "next")
    view = runner.command(sid, "stop")
    assert view["stage"] == "ended"
    assert view["stats"] == {"total": 10, "correct": 5, "streak": 0, "best_streak": 1}
    store = runner.ctx.store
    assert store.query("SELECT count(*), sum(CASE WHEN correct THEN 1 ELSE 0 END) FROM responses WHERE session_id = ?", [sid])[0] == (10, 5)
    assert store.query("SELECT status FROM sessions WHERE id = ?", [sid])[0][0] == "completed"


def test_feedback_has_result_key_remediation_and_streak(runner):
    sid = runner.start("practice", "ben", {"subject": "Mathematics", "level": "Nat 5", "seed": 2})
    right = answer_current(runner, sid, right=True)["feedback"]
    assert right["correct"] is True and right["remediation"] is None and right["gap_tags"] == []
    runner.command(sid, "next")
    view = answer_current(runner, sid, right=False)
    wrong = view["feedback"]
    assert wrong["correct"] is False and wrong["gap_tags"]
    assert wrong["correct_answer"] and wrong["explanation"]
    assert set(wrong["remediation"]) >= {"what_went_wrong", "key_concept", "try_this"}
    assert view["stats"]["streak"] == 0 and view["stats"]["total"] == 2
    assert view["can_try_similar"] is True
    similar = runner.command(sid, "next", similar=True)["question"]
    assert similar["stem"] == wrong["remediation"]["try_this"]


def test_question_view_never_carries_the_key(runner):
    sid = runner.start("practice", "cal", {"subject": "Mathematics", "level": "Nat 5", "seed": 3})
    for _ in range(15):
        view = runner.view(sid)
        item = repo.load_item(runner.ctx.store, view["question"]["id"])
        text = json.dumps(view)
        assert "correct_answer" not in text and "correct_index" not in text and "explanation" not in text
        assert item.explanation not in text
        key = json.dumps(item.correct_answer)[1:-1]
        if not item.options and len(key) >= 4 and key not in view["question"]["stem"]:
            assert key not in text
        answer_current(runner, sid, right=False)
        runner.command(sid, "next")


def test_same_answer_twice_is_recorded_once(runner):
    sid = runner.start("practice", "dee", {"subject": "Mathematics", "level": "Nat 5", "seed": 4})
    q = runner.view(sid)["question"]
    bad = readable_wrong(repo.load_item(runner.ctx.store, q["id"]))
    runner.command(sid, "answer", item_id=q["id"], answer=bad)
    runner.command(sid, "answer", item_id=q["id"], answer=bad)
    assert runner.ctx.store.query("SELECT count(*) FROM responses WHERE session_id = ?", [sid])[0][0] == 1
    with pytest.raises(FlowError, match="already been answered"):
        runner.command(sid, "answer", item_id=q["id"], answer=bad + "0")


def test_answer_for_a_stale_question_is_refused(runner):
    sid = runner.start("practice", "eve", {"subject": "Mathematics", "level": "Nat 5", "seed": 5})
    with pytest.raises(FlowError, match="no longer on screen"):
        runner.command(sid, "answer", item_id="itm_not_this_one", answer="1")


def test_fifty_in_a_row_without_duplicates(runner):
    sid = runner.start("practice", "fay", {"subject": "Mathematics", "level": "Nat 5", "seed": 6})
    seen_ids, seen_stems = set(), set()
    for _ in range(50):
        q = runner.view(sid)["question"]
        assert q["id"] not in seen_ids and q["stem"] not in seen_stems
        seen_ids.add(q["id"])
        seen_stems.add(q["stem"])
        answer_current(runner, sid, right=True)
        runner.command(sid, "next")


def test_novelty_holds_across_sessions(runner):
    stems = set()
    for session in range(4):
        sid = runner.start("practice", "gus", {"subject": "Mathematics", "level": "Nat 4", "seed": session})
        for _ in range(15):
            q = runner.view(sid)["question"]
            assert q["stem"] not in stems, f"repeat in session {session}"
            stems.add(q["stem"])
            runner.command(sid, "skip")


def test_second_process_resumes_at_the_same_point(runner, library):
    sid = runner.start("practice", "hal", {"subject": "Mathematics", "level": "Nat 5", "seed": 7})
    answer_current(runner, sid, right=True)
    runner.command(sid, "next")
    expected = runner.view(sid)
    other = make_runner(runner.ctx.store, library)   # a fresh process rebuilds from the events
    again = other.view(sid)
    assert again["question"] == expected["question"] and again["stats"] == expected["stats"]
    answer_current(other, sid, right=False)
    assert runner.view(sid)["stats"]["total"] == 2  # and the first runner sees what the second did


def test_targeted_outcome_and_unknown_outcome(runner):
    sid = runner.start("practice", "ivy", {"subject": "Mathematics", "level": "Nat 5", "outcome": "MNU-5-03", "seed": 8})
    for _ in range(5):
        assert runner.view(sid)["question"]["outcome_ids"] == ["MNU-5-03"]
        runner.command(sid, "skip")
    with pytest.raises(FlowError, match="MNU-5-99"):
        runner.start("practice", "ivy", {"subject": "Mathematics", "level": "Nat 5", "outcome": "MNU-5-99"})


def test_outcome_with_no_source_is_a_clear_error(runner, library, tmp_path):
    from core.blueprints.loader import parse_text
    spec = parse_text("""spec_id: EMPTY-SPEC
subject: Geography
level: Nat 5
outcomes: [{id: GEO-5-01, label: Maps, weight: 1}]
assessment_structure: [{section: Paper, outcome_ids: [GEO-5-01], marks: 10, time_allowed_minutes: 20}]
""", "geo.yaml")
    library.specs[spec.id] = spec
    try:
        with pytest.raises(FlowError, match="GEO-5-01"):
            runner.start("practice", "jo", {"subject": "Geography", "level": "Nat 5", "outcome": "GEO-5-01"})
    finally:
        del library.specs[spec.id]


@pytest.mark.parametrize("level", ["Nat 3", "Nat 4", "Nat 5", "Higher", "Advanced Higher"])
def test_every_level_gives_a_practice_session(runner, level):
    sid = runner.start("practice", f"lvl-{level}", {"subject": "Mathematics", "level": level, "seed": 9})
    for n in range(4):
        answer_current(runner, sid, right=n % 2 == 0)
        runner.command(sid, "next")
    assert runner.view(sid)["stats"]["total"] == 4


def test_mastery_follows_the_seed_rule(runner):
    sid = runner.start("practice", "kit", {"subject": "Mathematics", "level": "Nat 5", "outcome": "MNU-5-01", "seed": 10})
    view = answer_current(runner, sid, right=True)
    item = repo.load_item(runner.ctx.store, view["feedback"]["item_id"])
    score = runner.ctx.store.query("SELECT score FROM mastery WHERE student = 'kit' AND skill = ?",
                                   [item.blueprint_id or "MNU-5-01"])[0][0]
    assert score == pytest.approx(0.5 + 0.1 * 0.5)


def test_adaptive_practice_targets_the_weakest_domain_with_a_rationale(runner):
    sid = runner.start("practice", "lee", {"subject": "Mathematics", "level": "Nat 5", "mode": "adaptive", "seed": 11})
    first = runner.view(sid)
    weak = first["rationale"]["domain"]
    # Wrong on this outcome, right everywhere else: it should keep coming back.
    for _ in range(12):
        view = runner.view(sid)
        domain = view["rationale"]["domain"]
        answer_current(runner, sid, right=(domain != weak))
        runner.command(sid, "next")
    view = runner.view(sid)
    abilities = view["abilities"]
    assert abilities[weak]["theta"] == min(a["theta"] for a in abilities.values())
    assert view["rationale"]["domain"] == weak
    assert view["rationale"]["target_difficulty"] < view["rationale"]["estimated_ability"]
    assert "below the current estimate" in view["rationale"]["reason"]


def test_a_thousand_questions_for_one_student_across_sessions_without_a_repeat(runner):
    stems, keys = set(), set()
    for session in range(10):
        sid = runner.start("practice", "marathon", {"subject": "Mathematics", "level": "Nat 5", "seed": session})
        for _ in range(100):
            q = runner.view(sid)["question"]
            item = repo.load_item(runner.ctx.store, q["id"])
            assert q["stem"] not in stems and item.content_key not in keys, f"repeat in session {session}"
            stems.add(q["stem"])
            keys.add(item.content_key)
            runner.command(sid, "skip")
        runner.command(sid, "stop")
    assert len(stems) == 1000


def test_a_class_set_to_approved_items_only_gets_no_generated_items(runner):
    from core.school.classes import add_student, create_class
    from core.store import school
    from core.workbench import import_shipped_banks
    store = runner.ctx.store
    import_shipped_banks(store)
    create_class(store, "APPROVED", "Approved only", "Mathematics", "Nat 5")
    sid_student = add_student(store, "APPROVED", "Quinn")
    school.update_class(store, "APPROVED", approved_items_only=True)
    approved = {it.id for it in runner.ctx.source.approved_candidates("Mathematics", "Nat 5", "MNU-5-02", limit=100)}
    assert approved
    sid = runner.start("practice", sid_student, {"subject": "Mathematics", "level": "Nat 5", "outcome": "MNU-5-02"})
    served = set()
    with pytest.raises(FlowError, match="approve more"):
        for _ in range(len(approved) + 1):
            served.add(runner.view(sid)["question"]["id"])
            runner.command(sid, "skip")
    assert served == approved
