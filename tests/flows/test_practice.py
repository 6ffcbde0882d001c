"""Rapid-fire and adaptive practice through the real flow on a real database."""
from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
import yaml

from core.blueprints.library import Library
from core.blueprints.loader import parse_text
from core.flows import practice
from core.flows.base import FlowError
from core.flows.registry import make_runner
from core.items.skills import skill_for
from core.marking import MarkingSpec, mark_answer
from core.school import progress
from core.store import Store, outcome_ability, repo, sessions

ROOT = Path(__file__).resolve().parents[2]


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


def test_mastery_follows_the_seed_rule(runner, library):
    sid = runner.start("practice", "kit", {"subject": "Mathematics", "level": "Nat 5", "outcome": "MNU-5-01", "seed": 10})
    view = answer_current(runner, sid, right=True)
    item = repo.load_item(runner.ctx.store, view["feedback"]["item_id"])
    score = runner.ctx.store.query("SELECT score FROM mastery WHERE student = 'kit' AND skill = ?",
                                   [skill_for(item, library)])[0][0]
    assert score == pytest.approx(0.5 + 0.1 * 0.5)


def test_adaptive_practice_serves_the_weakest_domain_most_with_a_rationale(runner):
    sid = runner.start("practice", "lee", {"subject": "Mathematics", "level": "Nat 5", "mode": "adaptive", "seed": 11})
    first = runner.view(sid)
    weak = first["rationale"]["domain"]
    served = []
    # Wrong on this outcome, right everywhere else: it should keep coming back, but never three times running.
    for _ in range(16):
        view = runner.view(sid)
        domain = view["rationale"]["domain"]
        served.append(domain)
        answer_current(runner, sid, right=(domain != weak))
        runner.command(sid, "next")
    view = runner.view(sid)
    abilities = view["abilities"]
    assert abilities[weak]["theta"] == min(a["theta"] for a in abilities.values())
    assert Counter(served).most_common(1)[0][0] == weak
    assert view["rationale"]["target_difficulty"] < view["rationale"]["estimated_ability"]
    assert "a little below the level you are working at" in view["rationale"]["reason"]
    assert not re.search(r"[+−-]\d\.\d\d", view["rationale"]["reason"]), "no logits in a student's words"


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


# ---------------------------------------------------------------------------
# Mastery by skill, ability by outcome


def test_mastery_is_keyed_by_skill_only_on_bank_and_blueprint_questions_with_names(runner, library):
    from core.workbench import import_shipped_banks
    store = runner.ctx.store
    import_shipped_banks(store)
    sid = runner.start("practice", "nia", {"subject": "Mathematics", "level": "Higher", "outcome": "MTH-H-01",
                                           "seed": 21})
    served = []
    for n in range(5):
        item = repo.load_item(store, runner.view(sid)["question"]["id"])
        served.append(item)
        feedback = answer_current(runner, sid, right=n % 2 == 0)["feedback"]
        skill = skill_for(item, library)
        assert feedback["skill_name"] == progress.skill_label(library, skill)
        runner.command(sid, "next")
    # Bank questions (one naming its skill, one no skill fits) came first, then the outcome's blueprints.
    assert any(it.blueprint_id is None for it in served) and any(it.blueprint_id for it in served)
    assert any(skill_for(it, library) is None for it in served)
    mastery = sessions.get_mastery(store, "nia")
    assert set(mastery) == {skill_for(it, library) for it in served} - {None}
    assert set(mastery) <= set(library.skills) and "MTH-H-01" not in mastery
    # Every answer moved the outcome's ability, the question without a skill too.
    ability = outcome_ability.get_ability(store, "nia", "MTH-H-01")
    assert (ability["n"], ability["correct"]) == (5, 3)
    # Names, never codes, wherever a person reads them.
    label = next(o.label for s in library.specs.values() for o in s.model.outcomes if o.id == "MTH-H-01")
    rows = progress.student_mastery(store, library, "nia")
    assert rows and all(r["name"] not in library.skills and r["outcome"] == label for r in rows)
    assert progress.skill_names(library, ["MTH-H-01", "MATH.ARITH.ADD.2DIGIT", "MATH.ARITH.ADD.3DIGIT"]) == [
        label, "Accurately add two 2-digit positive integers", "Accurately add two 3-digit positive integers"]
    outcomes = progress.student_outcomes(store, library, "nia")
    assert [o["outcome_id"] for o in outcomes] == ["MTH-H-01"] and outcomes[0]["label"] == label
    assert outcomes[0]["words"]["answers"] == 5 and outcomes[0]["words"]["few"]
    assert {r["skill"] for r in outcomes[0]["skills"]} == set(mastery)


def test_stored_ability_carries_across_sessions_and_runners(runner, library):
    store = runner.ctx.store
    config = {"subject": "Mathematics", "level": "Nat 5", "outcome": "MNU-5-02"}
    first = runner.start("practice", "ola", {**config, "seed": 30})
    for n in range(4):
        answer_current(runner, first, right=n != 1)
        runner.command(first, "next")
    runner.command(first, "stop")
    after_first = outcome_ability.get_ability(store, "ola", "MNU-5-02")
    assert (after_first["n"], after_first["correct"]) == (4, 3) and after_first["se"] < progress.PRIOR_SE

    # Adaptive practice starts from the stored estimate and its uncertainty, not from 0.
    second = runner.start("practice", "ola", {"subject": "Mathematics", "level": "Nat 5", "mode": "adaptive",
                                              "seed": 31})
    view = runner.view(second)
    assert view["abilities"]["MNU-5-02"]["theta"] == after_first["theta"]
    assert view["abilities"]["MNU-5-02"]["se"] == after_first["se"]
    assert view["rationale"]["weights"]["MNU-5-02"] < max(view["rationale"]["weights"].values())   # stronger now
    runner.command(second, "stop")

    # Two runners (two processes) on the same database take turns: each answer builds on the last stored one.
    other = make_runner(store, library)
    a = runner.start("practice", "ola", {**config, "seed": 32})
    b = other.start("practice", "ola", {**config, "seed": 33})
    expected_n = after_first["n"]
    for turn in range(4):
        who, sid = (runner, a) if turn % 2 == 0 else (other, b)
        before = outcome_ability.get_ability(store, "ola", "MNU-5-02")
        answer_current(who, sid, right=turn % 3 == 0)
        event = [e for e in sessions.load_events(store, sid) if e["type"] == "answered"][-1]["payload"]
        assert event["ability_before"] == {k: before[k] for k in ("theta", "se", "n", "correct")}
        expected_n += 1
        assert outcome_ability.get_ability(store, "ola", "MNU-5-02")["n"] == expected_n
        who.command(sid, "next")


def test_adaptive_choice_spreads_over_outcomes_and_skills_and_repeats_for_a_seed(runner, library):
    def session(student: str) -> list[tuple[str, str]]:
        sid = runner.start("practice", student, {"subject": "Mathematics", "level": "Nat 5", "mode": "adaptive",
                                                 "seed": 44})
        picks = []
        for _ in range(18):
            rationale = runner.view(sid)["rationale"]
            picks.append((rationale["domain"], rationale["chosen"]["skill"]))
            answer_current(runner, sid, right=rationale["domain"] != picks[0][0])   # one outcome stays weak
            runner.command(sid, "next")
        return picks

    picks = session("pia")
    assert session("quin") == picks            # the same seed and answers: the same choices, with their reasons
    outcomes = [o for o, _ in picks]
    assert all(not outcomes[i] == outcomes[i + 1] == outcomes[i + 2] for i in range(len(outcomes) - 2)), outcomes
    assert len(set(outcomes)) == 4             # every outcome of the course comes up
    assert Counter(outcomes).most_common(1)[0][0] == outcomes[0]   # the weak one most
    skills = [s for _, s in picks]
    for i, skill in enumerate(skills):         # no skill again within the last few items
        assert skill not in skills[max(0, i - practice.RECENT_SKILLS):i], (i, skills)


def test_outcome_weights_rest_an_outcome_served_twice_running():
    abilities = {"A": {"theta": -2.0, "se": 0.5}, "B": {"theta": 1.0, "se": 0.5}, "C": None}
    w = practice.outcome_weights(["A", "B", "C"], abilities, [])
    assert w["A"] > w["C"] > w["B"] and sum(w.values()) == pytest.approx(1.0)
    assert practice.outcome_weights(["A", "B", "C"], abilities, ["B", "A"])["A"] < w["A"]     # spacing
    assert practice.outcome_weights(["A", "B", "C"], abilities, ["A", "A"])["A"] == 0.0       # never a third
    assert practice.outcome_weights(["A"], abilities, ["A", "A"]) == {"A": 1.0}               # unless alone


def test_a_very_quick_wrong_answer_moves_ability_less_and_says_so(runner, library):
    store = runner.ctx.store
    notes = {}
    for student, ms in (("rua", 400), ("sam", 90_000)):
        sid = runner.start("practice", student, {"subject": "Mathematics", "level": "Nat 5", "outcome": "MNU-5-01",
                                                 "seed": 50})
        item = repo.load_item(store, runner.view(sid)["question"]["id"])
        view = runner.command(sid, "answer", item_id=item.id, answer=readable_wrong(item), time_ms=ms)
        notes[student] = view["feedback"]["note"]
        moved = outcome_ability.get_ability(store, student, "MNU-5-01")
        b, a, _ = practice.item_parameters(store, item)
        # The same answer on the same question given slowly, and given quickly.
        slow = progress.ability_update(item, "MNU-5-01", False, 90_000, None, library, (b, a))
        quick = progress.ability_update(item, "MNU-5-01", False, 400, None, library, (b, a))
        assert quick["quick"] and not slow["quick"]
        assert slow["theta"] < quick["theta"] < 0 and abs(quick["theta"]) < 0.5 * abs(slow["theta"])
        assert moved["theta"] == (quick if ms == 400 else slow)["theta"]
        assert store.query("SELECT time_taken_ms FROM responses WHERE session_id = ?", [sid])[0][0] == ms
    assert notes == {"rua": "That was very quick: take your time to work it out.", "sam": None}
    # Quick and right is simply right.
    sid = runner.start("practice", "tam", {"subject": "Mathematics", "level": "Nat 5", "outcome": "MNU-5-01",
                                           "seed": 51})
    item = repo.load_item(store, runner.view(sid)["question"]["id"])
    assert runner.command(sid, "answer", item_id=item.id, answer=item.typed_answer, time_ms=300)["feedback"]["note"] is None


# ---------------------------------------------------------------------------
# A time limit per item

TIMED_SPEC = """spec_id: TIMED-SPEC
subject: Testing
level: Timed
outcomes: [{id: TT-01, label: Quick sums, weight: 1}]
assessment_structure: [{section: Paper, outcome_ids: [TT-01], marks: 4, calculator_allowed: false,
                        time_allowed_minutes: 10}]
"""


def timed_library() -> Library:
    """A course of one skill whose items must be answered within 20 seconds."""
    data = yaml.safe_load((ROOT / "blueprints/skills/math/arithmetic/add_2digit.yaml").read_text())
    data["skill_id"] = "TEST.TIMED.ADD"
    data["metadata"].update(subject="Testing", level="Timed", outcome_ids=["TT-01"])
    data["presentation"]["time_limit_seconds"] = 20
    lib = Library(exercise=False)
    lib.add_loaded(parse_text(TIMED_SPEC, "timed-spec.yaml"))
    lib.add_loaded(parse_text(yaml.safe_dump(data, sort_keys=False), "timed-add.yaml"))
    assert "TEST.TIMED.ADD" in lib.generators
    return lib


def test_a_timed_question_answered_late_is_recorded_as_wrong_with_a_kind_message(store, clock):
    runner = make_runner(store, timed_library(), clock=clock)
    sid = runner.start("practice", "uma", {"subject": "Testing", "level": "Timed", "outcome": "TT-01", "seed": 1})
    view = runner.view(sid)
    assert view["question"]["time_limit_seconds"] == 20 and view["time_left_seconds"] == 20
    clock.advance(8)
    assert runner.view(sid)["time_left_seconds"] == 12
    item = repo.load_item(store, view["question"]["id"])
    feedback = runner.command(sid, "answer", item_id=item.id, answer=item.typed_answer)["feedback"]
    assert feedback["correct"] is True and feedback["late"] is False

    runner.command(sid, "next")
    late = repo.load_item(store, runner.view(sid)["question"]["id"])
    clock.advance(30)
    assert runner.view(sid)["time_left_seconds"] == 0
    feedback = runner.command(sid, "answer", item_id=late.id, answer=late.typed_answer)["feedback"]
    assert feedback["correct"] is False and feedback["late"] is True and feedback["score"] == 0
    assert feedback["feedback"].startswith("Time's up for this one: your answer came after the 20 seconds allowed")
    assert feedback["correct_answer"] == late.shown_answer
    row = store.query("SELECT answer, correct, score, time_taken_ms FROM responses WHERE session_id = ? AND item_id = ?",
                      [sid, late.id])[0]
    assert row[0] == late.typed_answer and row[1] is False and row[2] == 0 and row[3] == 30_000
    # It counts as wrong everywhere: the skill's mastery and the outcome's ability went down.
    assert sessions.get_mastery(store, "uma")["TEST.TIMED.ADD"] == pytest.approx(0.55 * 0.8)
    assert outcome_ability.get_ability(store, "uma", "TT-01")["correct"] == 1


# ---------------------------------------------------------------------------
# Arithmetic and networking belong to courses


@pytest.mark.parametrize("subject, level, prefix, outcomes", [
    ("Mathematics", "Fundamentals", "MATH.ARITH.", {"MTH-F-01", "MTH-F-02", "MTH-F-03", "MTH-F-04"}),
    ("Computing", "Networking basics", "NET.IP.", {"NET-01", "NET-02"}),
])
def test_arithmetic_and_networking_can_be_practised_and_examined(runner, library, subject, level, prefix, outcomes):
    store = runner.ctx.store
    assert {"subject": subject, "level": level} in [{k: c[k] for k in ("subject", "level")} for c in library.courses()]
    for mode in ("practice", "adaptive"):
        sid = runner.start("practice", f"{prefix}{mode}", {"subject": subject, "level": level, "mode": mode, "seed": 60})
        served = set()
        for n in range(8):
            view = runner.view(sid)
            item = repo.load_item(store, view["question"]["id"])
            assert item.blueprint_id.startswith(prefix) and item.outcome_ids[0] in outcomes
            served.add(item.outcome_ids[0])
            answer_current(runner, sid, right=n % 3 != 0)
            runner.command(sid, "next")
        assert len(served) >= 2
        mastery = sessions.get_mastery(store, f"{prefix}{mode}")
        assert mastery and all(skill.startswith(prefix) for skill in mastery)
        assert set(outcome_ability.get_abilities(store, f"{prefix}{mode}")) <= outcomes

    spec = library.spec(subject, level)
    exam = runner.view(runner.start("exam", f"{prefix}exam", {"subject": subject, "level": level, "seed": 1}))["exam"]
    assert exam["total_marks"] == spec.total_marks
    ids = [q["id"] for section in exam["sections"] for q in section["questions"]]
    assert all(repo.load_item(store, i).blueprint_id.startswith(prefix) for i in ids)
