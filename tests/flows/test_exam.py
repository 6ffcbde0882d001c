"""Mock exams through the real flow: assembly, secrecy, marking, time limit, resume."""
from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from core.flows.base import FlowError
from core.flows.registry import make_runner
from core.store import Store, repo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def runner(db_path, library, clock):
    store = Store(db_path)
    yield make_runner(store, library, clock=clock)
    store.close()


def questions(view: dict) -> list[dict]:
    return [q for s in view["exam"]["sections"] for q in s["questions"]]


def right_answer(runner, item_id: str) -> str:
    item = repo.load_item(runner.ctx.store, item_id)
    return item.typed_answer


def test_nat5_exam_is_the_sqa_paper_50_plus_60_marks(runner):
    sid = runner.start("exam", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": 1})
    exam = runner.view(sid)["exam"]
    assert exam["total_marks"] == 110 and exam["question_count"] >= 30 and exam["format"] == "full"
    papers = {s["section"]: s for s in exam["sections"]}
    assert sum(q["marks"] for q in papers["Paper 1 (Non-calculator)"]["questions"]) == 50
    assert sum(q["marks"] for q in papers["Paper 2 (Calculator)"]["questions"]) == 60
    for q in papers["Paper 1 (Non-calculator)"]["questions"]:
        assert repo.load_item(runner.ctx.store, q["id"]).calculator != "required"
    for paper in papers.values():   # numerical, algebraic, geometric, trigonometric and statistical skills in each
        assert {q["outcome_id"] for q in paper["questions"]} == {"MNU-5-01", "MNU-5-02", "MNU-5-03", "MNU-5-04"}
    stems = [q["stem"] for q in questions(runner.view(sid))]
    assert len(set(stems)) == len(stems)
    assert exam["time_allowed_minutes"] == 185   # 1 h 15 min + 1 h 50 min
    assert exam["instructions"][:2] == ["Paper 1 (Non-calculator): 50 marks, 1 hour 15 minutes; you may NOT use a calculator.",
                                        "Paper 2 (Calculator): 60 marks, 1 hour 50 minutes; you may use a calculator."]
    assert {f["name"] for f in exam["formulae"]} >= {"Sine rule", "Cosine rule", "Standard deviation"}


def test_the_short_mock_is_the_90_mark_paper_with_30_questions_or_more(runner):
    sid = runner.start("exam", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": 1, "format": "short"})
    exam = runner.view(sid)["exam"]
    assert exam["total_marks"] == 90 and exam["question_count"] >= 30 and exam["format"] == "short"
    assert [sum(q["marks"] for q in s["questions"]) for s in exam["sections"]] == [40, 50]
    assert exam["time_allowed_minutes"] == 175


def test_an_unknown_format_is_refused_with_the_formats_there_are(runner):
    with pytest.raises(FlowError, match="no exam format 'long'; formats: full, short"):
        runner.start("exam", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": 1, "format": "long"})


def test_questions_on_one_skill_are_parts_of_one_numbered_question(runner):
    sid = runner.start("exam", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": 2})
    qs = questions(runner.view(sid))
    assert [q["number"] for q in qs] == list(range(1, len(qs) + 1))   # answer slots: marking keys on them
    by_question: dict[int, list[dict]] = {}
    for q in qs:
        by_question.setdefault(q["question"], []).append(q)
    assert list(by_question) == list(range(1, len(by_question) + 1))
    with_parts = [g for g in by_question.values() if len(g) > 1]
    assert with_parts, "a 110-mark paper at two questions a skill has some skill twice"
    for number, group in by_question.items():
        if len(group) == 1:
            assert group[0]["part"] is None and group[0]["label"] == str(number)
            continue
        assert len(group) <= 3      # (a), (b), (c) at most: a skill asked more often is another question
        assert [q["part"] for q in group] == ["a", "b", "c"][:len(group)]
        assert [q["label"] for q in group] == [f"{number}({q['part']})" for q in group]
        items = [repo.load_item(runner.ctx.store, q["id"]) for q in group]
        assert len({it.blueprint_id or it.skill_ids[0] for it in items}) == 1      # one skill
        assert [it.difficulty_value for it in items] == sorted(it.difficulty_value for it in items)   # easier first
        assert len({q["section"] for q in group}) == 1


def test_each_exam_has_an_id_of_its_own(runner):
    first = runner.start("exam", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": 1})
    second = runner.start("exam", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": 1, "exam_count": 2})
    ids = {runner.view(sid)["exam"]["exam_id"] for sid in (first, second)}
    assert len(ids) == 2 and all(first in i or second in i for i in ids)


def test_exam_package_carries_no_keys_or_explanations(runner):
    sid = runner.start("exam", "ben", {"subject": "Mathematics", "level": "Nat 5", "seed": 2})
    view = runner.view(sid)
    text = json.dumps(view)
    assert "correct_answer" not in text and "correct_index" not in text and "explanation" not in text
    for q in questions(view):
        item = repo.load_item(runner.ctx.store, q["id"])
        assert item.explanation not in text


def test_all_correct_and_all_wrong(runner):
    sid = runner.start("exam", "cal", {"subject": "Mathematics", "level": "Nat 5", "seed": 3})
    answers = {q["id"]: right_answer(runner, q["id"]) for q in questions(runner.view(sid))}
    results = runner.command(sid, "submit", answers=answers)["results"]
    assert results["percent"] == 100.0 and results["grade"] == "A" and results["gap_outcomes"] == []
    assert all(q["correct"] for q in results["questions"].values())

    sid = runner.start("exam", "cal", {"subject": "Mathematics", "level": "Nat 5", "seed": 4})
    view = runner.command(sid, "submit", answers={})
    results = view["results"]
    assert results["marks_awarded"] == 0 and results["grade"] == "No award"
    assert sorted(results["gap_outcomes"]) == ["MNU-5-01", "MNU-5-02", "MNU-5-03", "MNU-5-04"]
    blocks = view["remediation"]
    assert [b["outcome_id"] for b in blocks] == results["gap_outcomes"]
    assert all(b["explanation"] and b["practice_question"]["stem"] for b in blocks)
    assert all("correct_answer" not in json.dumps(b["practice_question"]) for b in blocks)


def test_answers_saved_as_typed_survive_a_new_process(runner, library, clock):
    sid = runner.start("exam", "dee", {"subject": "Mathematics", "level": "Nat 5", "seed": 5})
    qs = questions(runner.view(sid))
    runner.command(sid, "save", item_id=qs[0]["id"], answer=right_answer(runner, qs[0]["id"]))
    runner.command(sid, "save", item_id=qs[1]["id"], answer="wrong")
    runner.command(sid, "save", item_id=qs[1]["id"], answer="wrong")  # unchanged: nothing new stored
    other = make_runner(runner.ctx.store, library, clock=clock)
    assert other.view(sid)["answers"] == {qs[0]["id"]: right_answer(runner, qs[0]["id"]), qs[1]["id"]: "wrong"}
    results = other.command(sid, "submit")["results"]
    assert results["questions"][qs[0]["id"]]["correct"] and not results["questions"][qs[1]["id"]]["correct"]
    assert runner.ctx.store.query("SELECT count(*) FROM events WHERE session_id = ? AND type = 'saved'", [sid])[0][0] == 2


def test_no_feedback_before_submission_and_marking_once(runner):
    sid = runner.start("exam", "eve", {"subject": "Mathematics", "level": "Nat 5", "seed": 6})
    q = questions(runner.view(sid))[0]
    view = runner.command(sid, "save", item_id=q["id"], answer="1")
    assert "results" not in view and view["stage"] == "sitting"
    runner.command(sid, "submit")
    runner.command(sid, "submit")
    assert runner.ctx.store.query("SELECT count(DISTINCT item_id), count(*) FROM responses WHERE session_id = ?", [sid])[0][0] \
        == runner.ctx.store.query("SELECT count(*) FROM responses WHERE session_id = ?", [sid])[0][0]
    with pytest.raises(FlowError, match="submitted"):
        runner.command(sid, "save", item_id=q["id"], answer="2")


def test_time_limit_is_enforced_by_the_server(runner, clock):
    sid = runner.start("exam", "fay", {"subject": "Mathematics", "level": "Nat 5", "seed": 7, "time_limit_minutes": 10})
    q, q2 = questions(runner.view(sid))[:2]
    runner.command(sid, "save", item_id=q["id"], answer=right_answer(runner, q["id"]))
    assert runner.view(sid)["time_remaining_seconds"] == 600
    clock.t += 603   # within the grace for answers in flight: still accepted
    runner.command(sid, "save", item_id=q2["id"], answer="in flight")
    clock.t += 60
    with pytest.raises(FlowError, match="^Time is up: your answers saved by .* were marked"):
        runner.command(sid, "save", item_id=q2["id"], answer="too late")
    view = runner.view(sid)
    assert view["stage"] in ("marked", "reviewed") and view["results"]["expired"] is True
    assert view["results"]["questions"][q["id"]]["correct"] is True
    assert view["results"]["questions"][q2["id"]]["answer"] == "in flight"
    assert runner.ctx.store.query("SELECT status FROM sessions WHERE id = ?", [sid])[0][0] == "completed"


def test_next_exam_avoids_the_first(runner):
    first = runner.start("exam", "gus", {"subject": "Mathematics", "level": "Nat 5", "seed": 8, "exam_count": 1})
    second = runner.start("exam", "gus", {"subject": "Mathematics", "level": "Nat 5", "seed": 8, "exam_count": 2})
    a = {q["stem"] for q in questions(runner.view(first))}
    b = {q["stem"] for q in questions(runner.view(second))}
    assert not a & b


@pytest.mark.parametrize("level", ["Nat 3", "Nat 4", "Nat 5", "Higher", "Advanced Higher"])
def test_every_level_gives_a_valid_exam(runner, library, level):
    spec = library.spec("Mathematics", level)
    sid = runner.start("exam", f"lvl-{level}", {"subject": "Mathematics", "level": level, "seed": 9})
    exam = runner.view(sid)["exam"]
    assert exam["total_marks"] == spec.total_marks
    for section, declared in zip(exam["sections"], spec.assessment_structure):
        assert sum(q["marks"] for q in section["questions"]) == declared.marks
        assert {q["outcome_id"] for q in section["questions"]} <= set(declared.outcome_ids)
    stems = [q["stem"] for q in questions(runner.view(sid))]
    assert len(stems) == len(set(stems))


def test_physics_higher_exam(runner):
    sid = runner.start("exam", "phy", {"subject": "Physics", "level": "Higher", "seed": 1})
    assert runner.view(sid)["exam"]["total_marks"] == 155


KILLED = r"""
import sys
sys.path.insert(0, {root!r})
from core.blueprints.library import Library
from core.flows.registry import make_runner
from core.store import Store, repo
store = Store({db!r})
runner = make_runner(store, Library.load(exercise=False))
sid = runner.start("practice", "kim", {{"subject": "Mathematics", "level": "Nat 5", "seed": 1}})
print(sid, flush=True)
n = 0
while True:
    q = runner.view(sid)["question"]
    item = repo.load_item(store, q["id"])   # an answer the question can read, so each one is recorded
    runner.command(sid, "answer", item_id=q["id"], answer=item.options[n % len(item.options)] if item.options else str(n))
    runner.command(sid, "next")
    n += 1
    print(q["id"], flush=True)
"""


def test_session_killed_mid_way_resumes_with_every_recorded_answer(db_path, library):
    proc = subprocess.Popen([sys.executable, "-c", KILLED.format(root=str(ROOT), db=str(db_path))],
                            stdout=subprocess.PIPE, text=True)
    try:
        sid = proc.stdout.readline().strip()
        answered = [proc.stdout.readline().strip() for _ in range(6)]
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    store = Store(db_path)
    runner = make_runner(store, library)
    recorded = {r[0] for r in store.query("SELECT item_id FROM responses WHERE session_id = ?", [sid])}
    assert set(answered) <= recorded
    view = runner.view(sid)
    assert view["stats"]["total"] == len(recorded)
    assert view["stage"] in ("question", "feedback")
    if view["stage"] == "feedback":
        view = runner.command(sid, "next")
    item = repo.load_item(store, view["question"]["id"])
    assert runner.command(sid, "answer", item_id=item.id, answer=item.correct_answer
                          if not item.options else item.options[item.correct_index])["feedback"]["correct"]
    store.close()


def test_exam_with_the_shipped_banks_adds_up_sitting_after_sitting(runner):
    """One-off bank questions count only while the student has not seen them: the second and third mocks
    used to add up to 91 (Paper 1 = 41 of 40) once the banks' questions had been given."""
    from core.workbench import import_shipped_banks
    import_shipped_banks(runner.ctx.store)
    for level, marks in (("Nat 5", [50, 60]), ("Higher", [70, 80])):
        for n in range(1, 4):
            sid = runner.start("exam", f"bank-{level}", {"subject": "Mathematics", "level": level, "seed": 1,
                                                         "exam_count": n})
            sections = runner.view(sid)["exam"]["sections"]
            assert [sum(q["marks"] for q in s["questions"]) for s in sections] == marks, (level, n)


def test_a_skill_asked_often_is_split_into_questions_of_at_most_three_parts(runner):
    # Higher Physics allows a skill six times in Paper 2 (the library is small), so some skill repeats.
    sid = runner.start("exam", "amy", {"subject": "Physics", "level": "Higher", "seed": 4})
    qs = questions(runner.view(sid))
    sizes: dict[int, int] = {}
    for q in qs:
        sizes[q["question"]] = sizes.get(q["question"], 0) + 1
    assert max(sizes.values()) <= 3
    per_skill: dict[tuple, int] = {}
    for q in qs:
        skill = repo.load_item(runner.ctx.store, q["id"]).blueprint_id
        per_skill[(q["section"], skill)] = per_skill.get((q["section"], skill), 0) + 1
    assert max(per_skill.values()) > 3, "the paper should repeat some skill more than three times for this check"


def test_a_paper_drawn_ahead_is_the_paper_the_start_gives_and_stores_nothing(runner, library, clock, tmp_path):
    from core.items import generator
    generator._made.clear()   # well below what it keeps, so a question made at the start would add to it
    config = {"subject": "Mathematics", "level": "Nat 5", "seed": "ahead"}
    store = runner.ctx.store
    counts = lambda: (store.query("SELECT count(*) FROM sessions")[0][0],   # noqa: E731
                      store.query("SELECT count(*) FROM items")[0][0], store.query("SELECT count(*) FROM seen")[0][0])
    before = counts()
    runner.prepare("exam", "amy", config)
    assert counts() == before   # no session, no item, nothing marked as seen
    made = len(generator._made)
    sid = runner.start("exam", "amy", config)
    assert len(generator._made) == made   # every question was drawn ahead: none made again
    ahead = [(q["label"], q["id"]) for q in questions(runner.view(sid))]
    # The same paper as the same start in another database with nothing drawn ahead.
    generator._made.clear()
    other = Store(tmp_path / "other.duckdb")
    try:
        fresh = make_runner(other, library, clock=clock)
        assert [(q["label"], q["id"]) for q in questions(fresh.view(fresh.start("exam", "amy", config)))] == ahead
    finally:
        other.close()
    # Without a seed the paper is seeded by its new session's id: nothing can be drawn ahead.
    made = len(generator._made)
    runner.prepare("exam", "amy", {"subject": "Mathematics", "level": "Nat 5"})
    assert len(generator._made) == made and counts()[0] == before[0] + 1
    # A refusal is left for the start to say.
    runner.prepare("exam", "amy", {"subject": "Alchemy", "level": "Nat 5", "seed": "x"})
    with pytest.raises(FlowError, match="Alchemy"):
        runner.start("exam", "amy", {"subject": "Alchemy", "level": "Nat 5", "seed": "x"})


def test_answer_keys_checked_while_the_paper_is_sat_are_not_checked_again_at_hand_in(runner, monkeypatch):
    from core.marking import keys
    sid = runner.start("exam", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": "keys"})
    keys._ACCEPTED.clear()
    assert runner.prepare_marking(sid) == len(questions(runner.view(sid)))
    checked = []
    monkeypatch.setattr(keys, "key_problem", lambda spec: checked.append(spec) or None)
    result = runner.command(sid, "submit")["results"]   # every answer blank, so every one is wrong
    assert result["marks_awarded"] == 0 and not result["notes"]
    assert checked == []   # every key was accepted ahead
    assert runner.prepare_marking(sid) == 0   # handed in: nothing left to check


def test_checking_keys_ahead_stops_once_the_paper_is_handed_in(runner):
    """Work waiting behind it (the next paper, drawn ahead) is not held up by checks no hand-in will use."""
    sid = runner.start("exam", "amy", {"subject": "Mathematics", "level": "Nat 5", "seed": "stop"})
    pauses = []

    def pause():
        pauses.append(1)
        if len(pauses) == 4:
            runner.command(sid, "submit")   # handed in between two checks
    assert runner.prepare_marking(sid, pause) == 3 < len(questions(runner.view(sid)))
