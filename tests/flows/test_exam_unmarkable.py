"""A mock exam holding a question that cannot be marked is still submitted and marked for everything else."""
from __future__ import annotations

import pytest

from core.flows import exam as exam_flow
from core.flows.registry import make_runner
from core.marking import MarkingSpec, mark_answer
from core.store import Store, repo
from core.store import analytics as data

SPEC = {"subject": "Mathematics", "level": "Nat 5"}


@pytest.fixture
def runner(db_path, library, clock):
    store = Store(db_path)
    yield make_runner(store, library, clock=clock)
    store.close()


def questions(view: dict) -> list[dict]:
    return [q for s in view["exam"]["sections"] for q in s["questions"]]


def right_answer(store, item_id: str) -> str:
    """An answer the marker accepts: the chosen option, or the key (with its units when they are asked for)."""
    item = repo.load_item(store, item_id)
    if item.options:
        return item.options[item.correct_index]
    spec = MarkingSpec.from_item(item)
    for answer in (item.correct_answer, f"{item.correct_answer} {item.units or ''}".strip()):
        if mark_answer(spec, answer).correct:
            return answer
    return item.correct_answer


def break_key(store, item_id: str) -> None:
    """Make the stored key one the marker cannot read (as an item approved before keys were checked could be)."""
    item = repo.load_item(store, item_id)
    if item.options:
        sql, params = "UPDATE items SET correct_index = 99 WHERE id = ?", [item_id]
    else:
        sql, params = ("UPDATE items SET answer_key = 'x +* 2', evaluation = ? WHERE id = ?",
                       ['{"method": "algebraic_equivalence"}', item_id])
    store.write(lambda cur: cur.execute(sql, params))


@pytest.mark.parametrize("typed", [True, False], ids=["typed answer", "multiple choice"])
def test_a_question_whose_key_cannot_be_read_is_left_out_and_noted(runner, typed):
    store = runner.ctx.store
    # A Mathematics paper has no multiple choice (as SQA's); National 5 Physics has a multiple-choice Paper 1.
    sid = runner.start("exam", "amy", {**(SPEC if typed else {"subject": "Physics", "level": "Nat 5"}), "seed": 11})
    qs = questions(runner.view(sid))
    answers = {q["id"]: right_answer(store, q["id"]) for q in qs}
    broken = next(q for q in qs if bool(q["options"]) != typed)   # a typed answer is read as it is saved
    saved = "42" if typed else broken["options"][0]
    break_key(store, broken["id"])
    runner.command(sid, "save", item_id=broken["id"], answer=saved)
    assert runner.view(sid)["answers"][broken["id"]] == saved

    view = runner.command(sid, "submit", answers=answers)
    res = view["results"]
    assert view["stage"] in ("marked", "reviewed")
    package_total = sum(q["marks"] for q in qs)
    assert res["total_marks"] == package_total - broken["marks"]
    assert res["marks_awarded"] == res["total_marks"] and res["percent"] == 100.0 and res["grade"] == "A"
    entry = res["questions"][broken["id"]]
    assert entry["correct"] is None and entry["marks_awarded"] == 0.0 and entry["marks"] == 0.0
    assert entry["marks_left_out"] == broken["marks"] and entry["unmarked"]
    assert entry["feedback"] == exam_flow.UNMARKED
    assert all(q["correct"] for i, q in res["questions"].items() if i != broken["id"])
    assert res["gap_outcomes"] == []
    [note] = res["notes"]
    assert note.startswith(f"Question {broken.get('label') or broken['number']} ({broken['id']}, {broken['marks']} mark(s)) could not be marked")
    assert "left out of the total" in note and "Review page" in note
    # No response is stored for it; the others are, and the teacher's results carry the note.
    answered = {r[0] for r in store.query("SELECT item_id FROM responses WHERE session_id = ?", [sid])}
    assert answered == {q["id"] for q in qs} - {broken["id"]}
    frame = data.exam_results(store)
    assert list(frame["notes"].iloc[0]) == [note]


def test_marking_that_fails_on_one_question_does_not_stop_the_exam(runner, monkeypatch):
    store = runner.ctx.store
    sid = runner.start("exam", "ben", {**SPEC, "seed": 12})
    qs = questions(runner.view(sid))
    broken = qs[0]["id"]
    real = exam_flow.diagnose

    def failing(item, *args, **kwargs):
        if item.id == broken:
            raise RuntimeError("sympy gave up")
        return real(item, *args, **kwargs)
    monkeypatch.setattr(exam_flow, "diagnose", failing)

    res = runner.command(sid, "submit", answers={q["id"]: right_answer(store, q["id"]) for q in qs})["results"]
    assert res["questions"][broken]["unmarked"] == "marking it failed (RuntimeError: sympy gave up)"
    assert res["total_marks"] == sum(q["marks"] for q in qs) - qs[0]["marks"] and res["percent"] == 100.0
    assert len(res["notes"]) == 1


def test_a_wrong_answer_to_a_sound_question_is_simply_wrong(runner):
    sid = runner.start("exam", "cal", {**SPEC, "seed": 13})
    qs = questions(runner.view(sid))
    res = runner.command(sid, "submit", answers={})["results"]
    assert res["notes"] == [] and res["total_marks"] == sum(q["marks"] for q in qs)
    assert all(q["correct"] is False for q in res["questions"].values())
