"""A paper as a student sits it on screen: a few questions at a time, a printed question's parts together."""
from __future__ import annotations

from core.exams.structure import QUESTIONS_PER_SCREEN, screens


def slot(number: int, question: int, part: str = "") -> dict:
    return {"id": f"q{number}", "number": number, "question": question, "part": part,
            "label": f"{question}{f'({part})' if part else ''}", "marks": 1}


def paper(*sections: list[dict]) -> dict:
    return {"sections": [{"section": f"Paper {k + 1} (Calculator)", "questions": qs} for k, qs in enumerate(sections)]}


def test_a_section_is_shared_into_screens_of_about_equal_size_none_over_the_limit():
    out = screens(paper([slot(n, n) for n in range(1, 20)]))
    sizes = [len(s["questions"]) for s in out]
    assert sizes == [7, 7, 5] and max(sizes) <= QUESTIONS_PER_SCREEN
    assert [s["title"] for s in out] == ["Questions 1–7", "Questions 8–14", "Questions 15–19"]
    assert [q["number"] for s in out for q in s["questions"]] == list(range(1, 20))   # every slot, in order


def test_screens_never_cross_sections_and_a_short_section_is_one_screen():
    out = screens(paper([slot(n, n) for n in range(1, 4)], [slot(n, n) for n in range(4, 6)]))
    assert [(s["section"]["section"], s["title"]) for s in out] == [
        ("Paper 1 (Calculator)", "Questions 1–3"), ("Paper 2 (Calculator)", "Questions 4–5")]


def test_a_printed_questions_parts_stay_on_one_screen():
    slots = [slot(n, n) for n in range(1, 7)] + [slot(7, 7, "a"), slot(8, 7, "b"), slot(9, 7, "c")] + \
            [slot(n, n - 2) for n in range(10, 13)]
    out = screens(paper(slots), per_screen=8)
    for s in out:
        printed = {q["question"] for q in s["questions"]}
        assert all(other is s or not printed & {q["question"] for q in other["questions"]} for other in out)
    assert [s["title"] for s in out] == ["Questions 1–6", "Questions 7(a)–10"]
    assert screens(paper([slot(1, 1)]))[0]["title"] == "Question 1"


def test_an_empty_section_gives_no_screen():
    assert screens(paper([], [slot(1, 1)]))[0]["title"] == "Question 1"
    assert screens({"sections": []}) == []
