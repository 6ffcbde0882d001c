"""Mock-exam papers for teachers: built as the flows build them, without writing, and printable."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.exams import papers, printing
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


def test_nat5_paper_has_90_marks_in_two_sections_and_writes_nothing(lib, store):
    before = table_counts(store)
    paper = papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 5", 11)
    assert paper["total_marks"] == 90
    assert [s["section"] for s in paper["sections"]] == ["Paper 1 (Non-calculator)", "Paper 2 (Calculator)"]
    assert [sum(q["marks"] for q in s["questions"]) for s in paper["sections"]] == [40, 50]
    assert [q["number"] for q in all_questions(paper)] == list(range(1, paper["question_count"] + 1))
    for q in paper["sections"][0]["questions"]:
        assert q["calculator"] != "required"
    for q in all_questions(paper):
        assert q["answer_key"] and "explanation" in q   # teacher copy: keys included
    assert paper["config"] == {"subject": "Mathematics", "level": "Nat 5", "seed": "11", "paper_key": "paper:11"}
    assert table_counts(store) == before


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
        assert [(q["id"], q["marks"]) for q in sat] == [(q["id"], q["marks"]) for q in all_questions(paper)]


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


def test_markdown_without_keys_has_no_answers_with_keys_has_them(lib, store):
    paper = papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 5", 8)
    plain = printing.paper_markdown(paper, with_keys=False)
    keyed = printing.paper_markdown(paper, with_keys=True)
    assert plain.startswith(f"# {paper['title']}") and "## Instructions" in plain
    for section in paper["sections"]:
        assert f"## {section['section']}" in plain
    for q in all_questions(paper):
        assert f"**{q['number']}.** {q['stem']}" in plain
        for option in q["options"]:
            assert option in plain
        assert q["explanation"] and q["explanation"] not in plain
        assert q["explanation"] in keyed
        assert f"**{q['number']}.** " in keyed.split("## Answers and explanations")[1]
    assert "Answers" not in plain and "answer key" not in plain.lower()
    answers = keyed.split("## Answers and explanations")[1]
    for q in all_questions(paper):
        assert str(q["answer_key"]) in answers


def test_html_has_mathjax_and_keys_only_when_asked(lib):
    paper = papers.build_evaluation_paper(lib, "MATH-FUNDAMENTALS-L1", 4)
    plain = printing.paper_html(paper, with_keys=False)
    keyed = printing.paper_html(paper, with_keys=True)
    assert plain.startswith("<!DOCTYPE html>") and "MathJax" in plain and "tex-chtml" in plain
    assert "Answers and explanations" not in plain and "Answers and explanations" in keyed
    for q in all_questions(paper):
        assert q["explanation"] not in plain


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


def test_nat5_paper_with_the_shipped_banks_still_has_90_marks(lib, store):
    from core.workbench import import_shipped_banks
    import_shipped_banks(store)
    paper = papers.build_paper(QuestionSource(lib, store), "Mathematics", "Nat 5", 1)
    assert [sum(q["marks"] for q in s["questions"]) for s in paper["sections"]] == [40, 50]
