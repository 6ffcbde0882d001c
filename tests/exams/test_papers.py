"""Mock-exam papers for teachers: built as the flows build them, without writing, and printable."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.exams import papers, printing
from core.exams.typeset import typeset_html
from core.blueprints.library import Library
from core.flows.registry import make_runner
from core.items.sources import QuestionSource
from core.store import Store, repo


@pytest.fixture(scope="module")
def lib() -> Library:
    return Library.load(exercise=False)


@pytest.fixture
def store(tmp_path: Path):
    s = Store(tmp_path / "papers.duckdb")
    yield s
    s.close()


def all_questions(paper: dict) -> list[dict]:
    return [q for s in paper["sections"] for q in s["questions"]]


def table_counts(store: Store) -> dict[str, int]:
    return {t: store.query(f"SELECT count(*) FROM {t}")[0][0] for t in ("items", "sessions", "events", "seen")}


def test_nat5_paper_is_the_sqa_paper_and_writes_nothing(lib, store):
    before = table_counts(store)
    paper = papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 5", 11)
    assert paper["total_marks"] == 110 and paper["format"] == "full"
    assert [s["section"] for s in paper["sections"]] == ["Paper 1 (Non-calculator)", "Paper 2 (Calculator)"]
    assert [sum(q["marks"] for q in s["questions"]) for s in paper["sections"]] == [50, 60]
    assert [s["time_allowed_minutes"] for s in paper["sections"]] == [75, 110]
    assert [q["number"] for q in all_questions(paper)] == list(range(1, paper["question_count"] + 1))
    for q in paper["sections"][0]["questions"]:
        assert q["calculator"] != "required"
    for q in all_questions(paper):
        assert q["answer_key"] and "explanation" in q   # teacher copy: keys included
        assert q["label"] == (f"{q['question']}({q['part']})" if q["part"] else str(q["question"]))
    assert paper["config"] == {"subject": "Mathematics", "level": "Nat 5", "seed": "11", "paper_key": "paper:11"}
    assert paper["course_title"] == "SQA National 5 Mathematics"
    names = [f["name"] for f in paper["formulae"]]
    assert names == ["The roots of ax² + bx + c = 0", "Sine rule", "Cosine rule", "Area of a triangle",
                     "Volume of a sphere", "Volume of a cone", "Volume of a pyramid", "Standard deviation"]
    assert all(f["latex"] for f in paper["formulae"])
    assert table_counts(store) == before


def test_the_short_mock_is_a_format_the_class_paper_keeps(lib, store):
    paper = papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 5", 12, exam_format="short")
    assert paper["total_marks"] == 90 and paper["question_count"] >= 30 and paper["format"] == "short"
    assert [sum(q["marks"] for q in s["questions"]) for s in paper["sections"]] == [40, 50]
    assert paper["config"]["format"] == "short" and paper["time_allowed_minutes"] == 175
    runner = make_runner(store, lib)
    sid = runner.start("exam", "amy", dict(paper["config"]))
    sat = [q for s in runner.view(sid)["exam"]["sections"] for q in s["questions"]]
    assert [(q["id"], q["label"]) for q in sat] == [(q["id"], q["label"]) for q in all_questions(paper)]
    with pytest.raises(papers.PaperError, match="no exam format 'long'; formats: full, short"):
        papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 5", 12, exam_format="long")


def test_higher_paper_has_its_formulae_list(lib, store):
    paper = papers.build_paper(QuestionSource(lib, store), "Mathematics", "Higher", 1)
    assert [sum(q["marks"] for q in s["questions"]) for s in paper["sections"]] == [70, 80]
    names = {f["name"] for f in paper["formulae"]}
    assert {"Circle", "Scalar product", "Addition formulae", "Double-angle formulae", "Standard derivatives",
            "Standard integrals"} <= names


def test_same_seed_same_paper_other_seed_other_paper(lib, store):
    source = QuestionSource(lib, store)
    first = papers.build_paper(source, "Mathematics", "Nat 5", "s1")
    again = papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 5", "s1")
    other = papers.build_paper(source, "Mathematics", "Nat 5", "s2")
    assert [(q["id"], q["stem"]) for q in all_questions(first)] == [(q["id"], q["stem"]) for q in all_questions(again)]
    assert [q["stem"] for q in all_questions(first)] != [q["stem"] for q in all_questions(other)]


def test_the_paper_is_what_every_student_of_the_class_sits(lib, store):
    paper = papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 5", 5)
    runner = make_runner(store, lib)
    for student in ("amy", "ben"):
        sid = runner.start("exam", student, dict(paper["config"]))
        sat = [q for s in runner.view(sid)["exam"]["sections"] for q in s["questions"]]
        shape = [(q["id"], q["marks"], q["number"], q["question"], q["part"], q["label"]) for q in sat]
        assert shape == [(q["id"], q["marks"], q["number"], q["question"], q["part"], q["label"])
                         for q in all_questions(paper)]


def test_evaluation_paper_follows_the_blueprint_and_the_flow(lib, store):
    bp = lib.assessment("MATH-FUNDAMENTALS-L1")
    paper = papers.build_evaluation_paper(lib, "MATH-FUNDAMENTALS-L1", 3)
    assert paper["question_count"] == bp.configuration.total_items
    assert [len(s["questions"]) for s in paper["sections"]] == [s.item_count for s in bp.sections]
    assert paper["config"] == {"assessment_id": "MATH-FUNDAMENTALS-L1", "seed": "3"}
    for section, spec in zip(paper["sections"], bp.sections):
        skills = {ws.skill_id for ws in spec.skill_blueprints}
        assert {q["blueprint_id"] for q in section["questions"]} <= skills
        levels = [q["difficulty_level"] for q in section["questions"]]
        assert {lvl: levels.count(lvl) for lvl in set(levels)} == {k: v for k, v in spec.difficulty_distribution.items() if v}
    assert repo.count_items(store) == 0
    runner = make_runner(store, lib)
    state = runner.state(runner.start("evaluation", "cy", dict(paper["config"])))
    assert [e["item_id"] for e in state["plan"]] == [q["id"] for q in all_questions(paper)]


def test_printed_paper_has_no_answers_and_the_scheme_has_them(lib, store):
    paper = papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 5", 8)
    plain, scheme = printing.paper_html(paper), printing.marking_scheme_html(paper)
    assert plain.startswith("<!DOCTYPE html>") and scheme.startswith("<!DOCTYPE html>")
    for section in paper["sections"]:
        assert section["section"] in plain and section["section"] in scheme
    for q in all_questions(paper):
        assert q["explanation"] and typeset_html(q["explanation"]) not in plain
        assert typeset_html(q["explanation"]) in scheme
    assert "Illustrative scheme" in scheme and "Illustrative scheme" not in plain
    assert "Answer:" not in plain and "Commentary" not in plain


def test_evaluation_paper_prints_without_anything_fetched(lib):
    paper = papers.build_evaluation_paper(lib, "MATH-FUNDAMENTALS-L1", 4)
    for page in (printing.paper_html(paper), printing.marking_scheme_html(paper)):
        assert "<script" not in page and "http://" not in page.replace('xmlns="http://', "")
        assert "https://" not in page
    for q in all_questions(paper):
        assert typeset_html(q["explanation"]) not in printing.paper_html(paper)


def test_unknown_course_or_assessment_is_one_sentence(lib, store):
    with pytest.raises(papers.PaperError, match="no course spec for Mathematics Nat 9"):
        papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 9", 1)
    with pytest.raises(papers.PaperError, match="no assessment blueprint 'NOPE'"):
        papers.build_evaluation_paper(lib, "NOPE", 1)
    with pytest.raises(papers.PaperError, match="seed"):
        papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 5", "  ")


def test_approved_only_paper_uses_approved_items_or_says_what_to_do(lib, store):
    source = QuestionSource(lib, store)
    with pytest.raises(papers.PaperError, match="Review page"):
        papers.build_paper(source, "Mathematics", "Nat 5", 1, approved_only=True)


def test_nat5_paper_with_the_shipped_banks_still_adds_up(lib, store):
    from core.workbench import import_shipped_banks
    import_shipped_banks(store)
    paper = papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 5", 1)
    assert [sum(q["marks"] for q in s["questions"]) for s in paper["sections"]] == [50, 60]
