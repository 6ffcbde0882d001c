"""The answer preview in the flows: an answer that cannot be read costs no mark and no attempt.

Practice and lessons refuse it without recording anything and say why; an
evaluation does the same; a mock exam keeps it as typed, names it before
hand-in and marks it as it stands.
"""
from __future__ import annotations

import pytest

from core.flows.base import Context, Runner
from core.flows.evaluation import EvaluationFlow
from core.flows.lesson import LessonFlow
from core.flows.preview import preview, preview_item
from core.flows.registry import make_runner
from core.marking import MarkingSpec, mark_answer
from core.store import repo, sessions

UNREADABLE = "2*(x+"            # an expression that ends too early; no number either
WRITTEN = ("SQA.MATH.N5.EXPAND_BRACKETS", "SQA.MATH.N5.FACTORISE", "SQA.MATH.H.DIFFERENTIATE")


def item_of(runner, item_id: str):
    return repo.load_item(runner.ctx.store, item_id)


def can_read(item, text: str) -> bool:
    return preview(item, text)["valid"]


def readable_wrong(item) -> str:
    spec = MarkingSpec.from_item(item)
    for guess in ("123456", "x + 123456", "10.12.34.56", "10.12.34.0/24", "not the answer"):
        result = mark_answer(spec, guess)
        if result.valid and not result.correct:
            return guess
    raise AssertionError(f"no readable wrong answer for {item.id}")


def counts(store, sid: str) -> tuple[int, int]:
    events = len(sessions.load_events(store, sid))
    responses = store.query("SELECT count(*) FROM responses WHERE session_id = ?", [sid])[0][0]
    return events, responses


def written_skill(library) -> str:
    for skill in WRITTEN:
        if skill in library.generators and library.generator(skill).bp.generation.item_type != "multiple_choice":
            return skill
    pytest.skip("no written-answer skill blueprint in the library")


# ---------------------------------------------------------------------------
# The preview itself


def test_the_preview_says_how_an_answer_is_read_and_never_whether_it_is_right(library):
    gen = library.generator(written_skill(library))
    item = gen.generate(gen.cs.levels[0], "preview")
    right = preview(item, item.correct_answer)
    assert right["valid"] and right["read_as"] and right["problem"] is None and not right["empty"]
    assert "correct" not in right and "score" not in right
    assert right.keys() == preview(item, "x + 123456").keys()       # a wrong answer looks the same
    bad = preview(item, UNREADABLE)
    assert not bad["valid"] and bad["problem"] and bad["read_as"] is None
    empty = preview(item, "   ")
    assert empty["empty"] and not empty["valid"]


def test_each_step_typed_so_far_is_shown_as_read_before_the_last_is_written(library):
    """A question answered step by step: the preview reads every box typed in so far (the first step before the
    final answer is written), names a box it cannot read, and says nothing of right or wrong."""
    from core.marking import step_boxes
    gen = library.generator("SQA.MATH.H.COMPLETE_SQUARE")
    item = gen.generate(gen.cs.levels[0], "steps")
    boxes = step_boxes(MarkingSpec.from_item(item).criteria)
    first, final = str(boxes[0]["index"]), str(boxes[-1]["index"])
    shown = preview(item, {first: "1 1/3"})
    assert shown["empty"] and [(s["number"], s["final"], s["valid"], s["latex"]) for s in shown["steps"]] == [
        (1, False, True, r"1\frac{1}{3}")]
    mixed = preview(item, {first: UNREADABLE, final: "7"})
    assert not mixed["valid"] and "Step 1 could not be read" in mixed["problem"]
    assert [(s["number"], s["valid"], bool(s["problem"])) for s in mixed["steps"]] == [(1, False, True),
                                                                                      (len(boxes), True, False)]
    right = preview(item, {b: "7" for b in (first, final)})
    assert all("correct" not in s and "score" not in s for s in right["steps"])
    assert preview(item, {})["steps"] == [] and "steps" not in preview(item, "7")


def test_the_preview_of_a_question_by_id(store, library):
    gen = library.generator(written_skill(library))
    item = gen.generate(gen.cs.levels[0], "by-id")
    repo.insert_items(store, [item], "session")
    assert preview_item(store, item.id, UNREADABLE)["valid"] is False
    assert preview_item(store, item.id, item.correct_answer)["read_as"]


# ---------------------------------------------------------------------------
# Practice


def typed_question(runner, sid: str) -> dict:
    """Skip to a typed question that cannot read UNREADABLE."""
    for _ in range(40):
        q = runner.view(sid)["question"]
        if not q["options"] and not can_read(item_of(runner, q["id"]), UNREADABLE):
            return q
        runner.command(sid, "skip")
    pytest.skip("no typed question came up")


def test_practice_an_unreadable_answer_is_not_an_attempt(db_path, library):
    from core.store import Store
    store = Store(db_path)
    try:
        runner = make_runner(store, library)
        sid = runner.start("practice", "pia", {"subject": "Mathematics", "level": "Nat 5", "seed": 7})
        q = typed_question(runner, sid)
        before = counts(store, sid)
        mastery = sessions.get_mastery(store, "pia")
        view = runner.command(sid, "answer", item_id=q["id"], answer=UNREADABLE)
        assert view["stage"] == "question" and view["question"]["id"] == q["id"]
        assert view["reading"]["valid"] is False and view["reading"]["problem"]
        assert view["reading"]["item_id"] == q["id"] and view["reading"]["answer"] == UNREADABLE
        assert view["stats"]["total"] == 0 and view["stats"]["streak"] == 0
        assert counts(store, sid) == before                       # nothing stored at all
        assert sessions.get_mastery(store, "pia") == mastery
        assert "reading" not in runner.view(sid)                  # a reply, not state

        # Corrected, it counts once, and the feedback says how it was read.
        item = item_of(runner, q["id"])
        view = runner.command(sid, "answer", item_id=q["id"], answer=item.correct_answer)
        assert view["stage"] == "feedback" and view["feedback"]["correct"] is True
        assert view["stats"] == {"total": 1, "correct": 1, "streak": 1, "best_streak": 1}
        assert view["feedback"]["reading"]["valid"] and view["feedback"]["reading"]["read_as"]
        assert counts(store, sid)[1] == before[1] + 1
    finally:
        store.close()


def test_practice_an_empty_answer_is_not_an_attempt_either(db_path, library):
    from core.store import Store
    store = Store(db_path)
    try:
        runner = make_runner(store, library)
        sid = runner.start("practice", "pat", {"subject": "Mathematics", "level": "Nat 5", "seed": 8})
        q = runner.view(sid)["question"]
        before = counts(store, sid)
        view = runner.command(sid, "answer", item_id=q["id"], answer="  ")
        assert view["stage"] == "question" and view["reading"]["empty"] and not view["reading"]["valid"]
        assert counts(store, sid) == before
    finally:
        store.close()


# ---------------------------------------------------------------------------
# Lessons


def test_lesson_an_unreadable_answer_uses_no_attempt_first_try_or_retry(store, library, clock):
    runner = Runner(Context.create(store, library, clock=clock), {"lesson": LessonFlow})
    skill = written_skill(library)
    sid = runner.start("lesson", "lea", {"skills": [skill], "cards": 2, "max_attempts": 2, "seed": 3})
    item = item_of(runner, runner.view(sid)["card"]["question"]["id"])
    assert not can_read(item, UNREADABLE)
    before = counts(store, sid)

    view = runner.command(sid, "answer", card_index=0, answer=UNREADABLE)
    assert view["stage"] == "question" and view["card"]["attempts_used"] == 0
    assert view["card"]["attempts_remaining"] == 2 and "feedback" not in view
    assert view["reading"]["valid"] is False and view["reading"]["problem"] and view["reading"]["card_index"] == 0
    assert counts(store, sid) == before

    wrong = readable_wrong(item)
    view = runner.command(sid, "answer", card_index=0, answer=wrong)
    assert view["stage"] == "retry" and view["card"]["attempts_used"] == 1
    assert view["feedback"]["reading"]["valid"] and view["feedback"]["reading"]["answer"] == wrong
    after_wrong = counts(store, sid)

    # On the last attempt, a syntax error still costs nothing: the answer is not revealed, the card waits.
    view = runner.command(sid, "answer", card_index=0, answer=UNREADABLE)
    assert view["stage"] == "retry" and view["card"]["attempts_used"] == 1 and view["card"]["attempts_remaining"] == 1
    assert "revealed" not in view and view["reading"]["valid"] is False
    assert counts(store, sid) == after_wrong
    assert sessions.get_mastery(store, "lea") == {}

    view = runner.command(sid, "answer", card_index=0, answer=item.correct_answer)
    assert view["stage"] == "feedback" and view["feedback"]["correct"] and view["card"]["attempts_used"] == 2
    rows = store.query("SELECT attempt, correct FROM responses WHERE session_id = ? ORDER BY attempt", [sid])
    assert rows == [(1, False), (2, True)]


# ---------------------------------------------------------------------------
# Mock exams


def test_exam_keeps_an_unreadable_answer_as_typed_names_it_and_marks_it_as_it_stands(db_path, library, clock):
    from core.store import Store
    store = Store(db_path)
    try:
        runner = make_runner(store, library, clock=clock)
        sid = runner.start("exam", "eve", {"subject": "Mathematics", "level": "Nat 5", "seed": 4})
        view = runner.view(sid)
        qs = [q for s in view["exam"]["sections"] for q in s["questions"]]
        typed = [q for q in qs if not q["options"] and not can_read(item_of(runner, q["id"]), UNREADABLE)]
        assert len(typed) >= 2
        bad, good = typed[0], typed[1]
        assert view["unreadable"] == [] and view["readings"] == {}

        view = runner.command(sid, "save", item_id=bad["id"], answer=UNREADABLE)
        assert view["answers"][bad["id"]] == UNREADABLE                       # stored as typed
        assert view["readings"][bad["id"]]["valid"] is False and view["readings"][bad["id"]]["problem"]
        assert view["unreadable"] == [bad["number"]]
        key = item_of(runner, good["id"]).correct_answer
        view = runner.command(sid, "save", item_id=good["id"], answer=key)
        assert view["readings"][good["id"]]["valid"] and view["readings"][good["id"]]["read_as"]
        assert view["unreadable"] == [bad["number"]]
        assert "correct" not in view["readings"][good["id"]]                  # no verdict before hand-in

        # Another process sees the same readings (they are kept with the saved answer).
        other = make_runner(store, library, clock=clock)
        assert other.view(sid)["unreadable"] == [bad["number"]]

        view = runner.command(sid, "submit")
        res = view["results"]["questions"]
        assert res[bad["id"]]["correct"] is False and res[bad["id"]]["marks_awarded"] == 0
        assert res[bad["id"]]["unreadable"] is True and res[bad["id"]]["answer"] == UNREADABLE
        assert res[good["id"]]["correct"] is True and res[good["id"]]["unreadable"] is False
        assert res[good["id"]]["read_as"]
        row = store.query("SELECT answer, correct FROM responses WHERE session_id = ? AND item_id = ?",
                          [sid, bad["id"]])
        assert row == [(UNREADABLE, False)]                                   # marked as it stands
    finally:
        store.close()


def test_exam_a_cleared_answer_is_not_called_unreadable(db_path, library, clock):
    from core.store import Store
    store = Store(db_path)
    try:
        runner = make_runner(store, library, clock=clock)
        sid = runner.start("exam", "eli", {"subject": "Mathematics", "level": "Nat 5", "seed": 5})
        q = next(q for s in runner.view(sid)["exam"]["sections"] for q in s["questions"] if not q["options"])
        runner.command(sid, "save", item_id=q["id"], answer="12")
        view = runner.command(sid, "save", item_id=q["id"], answer="")
        assert view["readings"][q["id"]]["empty"] and view["unreadable"] == []
    finally:
        store.close()


# ---------------------------------------------------------------------------
# Evaluations


def test_evaluation_an_answer_that_is_not_an_option_is_not_recorded(store, library, clock):
    runner = Runner(Context.create(store, library, clock=clock), {"evaluation": EvaluationFlow})
    sid = runner.start("evaluation", "eva", {"assessment_id": "MATH-FUNDAMENTALS-L1", "seed": 2})
    q = runner.view(sid)["question"]
    item = item_of(runner, q["id"])
    before = counts(store, sid)
    view = runner.command(sid, "answer", item_id=q["id"], answer="none of these")
    assert view["question"]["id"] == q["id"] and view["your_answer"] is None
    assert view["reading"]["valid"] is False and view["reading"]["problem"]
    assert counts(store, sid) == before
    answer = item.options[item.correct_index] if item.options else item.correct_answer
    view = runner.command(sid, "answer", item_id=q["id"], answer=answer)
    assert view["question"]["id"] != q["id"] and view["reading"]["valid"]
    assert "correct" not in view["reading"]
    assert runner.state(sid)["answers"][q["id"]]["attempt"] == 1
