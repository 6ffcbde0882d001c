"""Every course the library ships can be practised and sat: for each course spec, a rapid-fire practice session
answered right and wrong, a lesson, and a mock exam handed in and marked out of the paper's marks."""
from __future__ import annotations

import functools

import pytest

from core.blueprints.library import Library
from core.flows.registry import make_runner
from core.store import Store, repo

SUBJECTS_THE_DESIGN_NAMES = {("Physics", "Nat 5"), ("Chemistry", "Nat 5"), ("Biology", "Nat 5"),
                             ("Chemistry", "Higher"), ("Biology", "Higher"), ("Physics", "Higher"),
                             ("Mathematics", "Nat 3"), ("Mathematics", "Nat 4"), ("Mathematics", "Nat 5"),
                             ("Mathematics", "Higher"), ("Mathematics", "Advanced Higher")}


@functools.lru_cache(maxsize=1)
def courses() -> list[tuple[str, str]]:
    library = Library.load(exercise=False)
    return [(c["subject"], c["level"]) for c in library.courses()]


def test_every_subject_the_design_names_has_a_course():
    assert SUBJECTS_THE_DESIGN_NAMES <= set(courses())


@pytest.fixture(scope="module")
def runner(tmp_path_factory, library):
    store = Store(tmp_path_factory.mktemp("courses") / "workbench.duckdb")
    yield make_runner(store, library)
    store.close()


@pytest.mark.parametrize("subject, level", courses())
def test_a_practice_session_and_a_lesson_on_the_course(runner, library, subject, level):
    store = runner.ctx.store
    student = f"p:{subject}:{level}"
    sid = runner.start("practice", student, {"subject": subject, "level": level, "seed": 3})
    outcomes = set()
    for n in range(4):
        q = runner.view(sid)["question"]
        item = repo.load_item(store, q["id"])
        assert item.subject == subject and item.level == level
        outcomes.update(item.outcome_ids)
        answer = item.typed_answer if n % 2 == 0 else (
            next(o for i, o in enumerate(item.options) if i != item.correct_index) if item.options else "0")
        view = runner.command(sid, "answer", item_id=q["id"], answer=answer)
        assert view["feedback"]["correct"] is (n % 2 == 0), (item.id, item.stem, answer)
        runner.command(sid, "next")
    assert store.query("SELECT count(*) FROM responses WHERE session_id = ?", [sid])[0][0] == 4
    spec = library.spec(subject, level)
    assert outcomes <= {o.id for o in spec.outcomes}

    lesson = runner.start("lesson", student, {"subject": subject, "level": level, "cards": 2, "seed": 4})
    card = runner.view(lesson)["card"]
    assert card["teaching"]["text"] and card["teaching"]["source"] in ("skill", "bank")


@pytest.mark.parametrize("subject, level", courses())
def test_a_mock_exam_of_the_course_is_handed_in_and_marked(runner, library, subject, level):
    spec = library.spec(subject, level)
    sid = runner.start("exam", f"e:{subject}:{level}", {"subject": subject, "level": level, "seed": 5})
    exam = runner.view(sid)["exam"]
    assert exam["total_marks"] == spec.total_marks
    questions = [q for s in exam["sections"] for q in s["questions"]]
    for section, declared in zip(exam["sections"], spec.assessment_structure):
        assert sum(q["marks"] for q in section["questions"]) == declared.marks
    answers = {}
    for q in questions[:5]:
        item = repo.load_item(runner.ctx.store, q["id"])
        answers[q["id"]] = item.typed_answer
    view = runner.command(sid, "submit", answers=answers)
    marking = view["results"] if "results" in view else runner.state(sid)["marking"]
    assert marking["total_marks"] == spec.total_marks
    assert marking["marks_awarded"] >= 1
