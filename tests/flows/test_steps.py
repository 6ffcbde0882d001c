"""Questions answered step by step in practice, lessons and mock exams: method marks and follow-through."""
from __future__ import annotations

import json

import pytest

from core.flows.registry import make_runner
from core.marking import evaluate
from core.store import Store, repo, sessions

RECURRENCE = "SQA.MATH.H.RECURRENCE_LIMIT"


@pytest.fixture
def runner(db_path, library, clock):
    store = Store(db_path)
    yield make_runner(store, library, clock=clock)
    store.close()


def exam_questions(view: dict) -> list[dict]:
    return [q for s in view["exam"]["sections"] for q in s["questions"]]


def followed_through(item) -> tuple[dict, float]:
    """Step answers with the first step wrong and every later step worked correctly from it; the final value."""
    criteria = item.marking_scheme["criteria"]
    boxes = [i for i, c in enumerate(criteria) if "answer_key" in c]
    values: dict[str, float] = {}
    answers: dict[str, str] = {}
    final = 0.0
    for n, i in enumerate(boxes):
        c = criteria[i]
        if n == 0:
            value = float(c["answer_key"]) * 2 + 0.3        # a wrong first step
        else:
            value = evaluate(c["follow_through"], values)   # worked correctly from the student's own values
        answers[str(i)] = f"{value:.4f}" if n < len(boxes) - 1 else f"{value:.2f}"
        if c.get("name"):
            values[c["name"]] = float(answers[str(i)])
        final = value
    return answers, final


def test_an_exam_question_with_steps_scores_its_method_marks(runner):
    sid = runner.start("exam", "amy", {"subject": "Physics", "level": "Higher", "seed": 0})
    view = runner.view(sid)
    stepped = [q for q in exam_questions(view) if q.get("steps")]
    assert len(stepped) >= 2, "the paper should hold questions answered step by step"
    first, second = stepped[0], stepped[1]
    assert [s["final"] for s in first["steps"]][-1] and "answer_key" not in json.dumps(first["steps"])
    item = repo.load_item(runner.ctx.store, first["id"])
    answers, _ = followed_through(item)
    runner.command(sid, "save", item_id=first["id"], answer=answers)
    assert runner.view(sid)["answers"][first["id"]] == answers
    right = repo.load_item(runner.ctx.store, second["id"])
    final = f"{right.correct_answer} {right.units or ''}".strip()
    results = runner.command(sid, "submit", answers={second["id"]: {"final": final}})["results"]

    q = results["questions"][first["id"]]
    # Today's marking gave 0 for any unexplained wrong final answer; the follow-through earns the calculation mark.
    assert not q["correct"] and q["marks_awarded"] == 1.0 and q["marks"] == 4.0
    assert [s["awarded"] for s in q["steps"]] == [0, 1]
    assert q["steps"][1]["follow_through"] and "follows correctly from your step 1" in q["steps"][1]["feedback"]
    assert q["answer"] == answers[str(max(int(k) for k in answers))]
    # The right final answer alone still earns every mark.
    assert results["questions"][second["id"]]["marks_awarded"] == 4.0
    assert results["marks_awarded"] == 5.0

    rows = {r["item_id"]: r for r in sessions.session_responses(runner.ctx.store, sid)}
    assert rows[first["id"]]["step_answers"] == answers
    assert rows[first["id"]]["answer"] == q["answer"] and rows[first["id"]]["score"] == 1.0
    assert rows[second["id"]]["step_answers"] == {str(second["steps"][-1]["index"]): final}
    assert all(r["step_answers"] is None for i, r in rows.items() if i not in (first["id"], second["id"]))


def test_practice_accepts_step_answers(runner):
    sid = runner.start("practice", "ben", {"subject": "Mathematics", "level": "Higher", "outcome": "MTH-H-01",
                                           "seed": 1})
    for _ in range(10):
        q = runner.view(sid)["question"]
        if q.get("steps"):
            break
        runner.command(sid, "skip")
    else:
        pytest.fail("no question with steps came up")
    item = repo.load_item(runner.ctx.store, q["id"])
    answers, _ = followed_through(item)
    view = runner.command(sid, "answer", item_id=q["id"], answer=answers)
    fb = view["feedback"]
    assert not fb["correct"] and fb["score"] == 1.0 and fb["max_score"] == 3.0
    assert fb["answer"] == answers[str(q["steps"][-1]["index"])]
    assert [s["awarded"] for s in fb["steps"]] == [0, 1] and fb["steps"][1]["follow_through"]
    assert runner.command(sid, "answer", item_id=q["id"], answer=dict(answers))["stage"] == "feedback"  # a repeat
    rows = sessions.session_responses(runner.ctx.store, sid)
    assert len(rows) == 1 and rows[0]["step_answers"] == answers and rows[0]["score"] == 1.0


def test_a_lesson_accepts_step_answers_and_retries(runner):
    sid = runner.start("lesson", "cy", {"skills": [RECURRENCE], "cards": 1, "max_attempts": 2, "seed": 2})
    card = runner.view(sid)["card"]
    assert card["question"]["steps"]
    item = repo.load_item(runner.ctx.store, card["question"]["id"])
    answers, _ = followed_through(item)
    view = runner.command(sid, "answer", card_index=0, answer=answers)
    assert view["stage"] == "retry" and view["feedback"]["steps"][1]["follow_through"]
    assert runner.command(sid, "answer", card_index=0, answer=dict(answers))["card"]["attempts_used"] == 1  # repeat
    final = str(card["question"]["steps"][-1]["index"])
    view = runner.command(sid, "answer", card_index=0, answer={final: item.correct_answer})
    assert view["feedback"]["correct"] and view["stage"] == "ended"
    rows = sessions.session_responses(runner.ctx.store, sid)
    assert [r["score"] for r in rows] == [1.0, 3.0]
    assert rows[0]["step_answers"] == answers and rows[1]["step_answers"] == {final: item.correct_answer}
    evidence = runner.state(sid)["evidence"]
    assert evidence[0]["step_answers"] == answers
