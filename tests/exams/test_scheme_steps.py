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


def test_the_marking_scheme_prints_the_steps_and_the_paper_does_not(paper):
    from core.exams.typeset import typeset_html
    q = stepped(paper)[0]
    scheme, plain = printing.marking_scheme_html(paper), printing.paper_html(paper)
    block = scheme.split(f'data-question="{q.get("question", q["number"])}"')[1].split('<div class="question"')[0]
    criteria = q["marking_scheme"]["criteria"]
    first_step = next(c for c in criteria if "answer_key" in c)
    assert typeset_html(first_step["step"]) in block and typeset_html(first_step["answer_key"]) in block
    assert typeset_html(criteria[0]["step"]) in block
    assert "Follow-through: award the mark if it follows correctly from the candidate&#x27;s own step 1" in block \
        or "Follow-through: award the mark if it follows correctly from the candidate's own step 1" in block
    assert "ollow-through" not in plain and typeset_html(first_step["step"]) not in plain
