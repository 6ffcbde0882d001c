"""The printed marking scheme: each step with its answer and marks, and where a step follows through."""
from __future__ import annotations

from pathlib import Path

import pytest

from core.exams import papers, printing
from core.items.sources import QuestionSource
from core.store import Store


@pytest.fixture
def paper(library, tmp_path: Path) -> dict:
    store = Store(tmp_path / "scheme.duckdb")
    try:
        yield papers.build_paper(QuestionSource(library, store), "Mathematics", "Higher", 3)
    finally:
        store.close()


def stepped(paper: dict) -> list[dict]:
    return [q for s in paper["sections"] for q in s["questions"]
            if any("answer_key" in c for c in (q.get("marking_scheme") or {}).get("criteria") or [])]


def test_the_scheme_lists_every_criterion_with_each_steps_answer(paper):
    questions = stepped(paper)
    assert questions, "the Higher paper should hold a question answered step by step"
    q = questions[0]
    lines = printing.scheme_lines(q)
    criteria = q["marking_scheme"]["criteria"]
    assert [line["marks"] for line in lines] == [c["marks"] for c in criteria]
    keyed = [line for line in lines if line["number"] is not None]
    assert [line["answer"] for line in keyed] == [c["answer_key"] for c in criteria if "answer_key" in c]
    assert keyed[-1]["answer"] == q["answer_key"]
    assert keyed[-1]["follow_through"].startswith("follow-through: award the mark if it follows correctly from "
                                                  "the candidate's own step 1")
    assert "[step 1]" in keyed[-1]["follow_through"] and "multiplier" not in keyed[-1]["follow_through"]
    assert keyed[0]["follow_through"] is None


def test_markdown_and_html_print_the_steps_only_in_the_teacher_copy(paper):
    q = stepped(paper)[0]
    keyed, plain = printing.paper_markdown(paper, True), printing.paper_markdown(paper, False)
    answers = keyed.split("## Answers and explanations")[1]
    block = answers.split(f"**{q['number']}.** ")[1].split("\n\n**")[0]
    criteria = q["marking_scheme"]["criteria"]
    first_step = next(c for c in criteria if "answer_key" in c)
    assert f"- Step 1. {first_step['step']}: {first_step['answer_key']} *(1 mark)*" in block
    assert f"Step 2. {criteria[-1]['step']}: {q['answer_key']} *(1 mark)* — follow-through:" in block
    assert f"- {criteria[0]['step']} *(1 mark)*" in block
    assert "follow-through" not in plain and "Step 1." not in plain
    html_keyed, html_plain = printing.paper_html(paper, True), printing.paper_html(paper, False)
    assert "<ul class=\"scheme\">" in html_keyed and "follow-through" in html_keyed
    assert "scheme" not in html_plain.split("</style>")[1] and "follow-through" not in html_plain
