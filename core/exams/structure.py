"""What a printed paper is made of: its questions grouped with their parts, the answers as a teacher writes
them, and each question's marking scheme criterion by criterion (shared by the question paper and the scheme)."""
from __future__ import annotations

import math
import re
from typing import Optional

from core.exams.typeset import with_units
from core.marking import right_options

CHOOSE_SEVERAL = "Choose all the right answers."


def question_groups(section: dict) -> list[dict]:
    """The section's printed questions: slots that share a printed number (its parts) grouped together.

    Each group: ``question`` (the printed number), ``marks`` (all its parts) and ``parts`` (the slots).
    """
    groups: list[dict] = []
    for q in section.get("questions") or []:
        number = q.get("question", q.get("number"))
        if groups and groups[-1]["question"] == number and q.get("part"):
            groups[-1]["parts"].append(q)
        else:
            groups.append({"question": number, "parts": [q]})
    for g in groups:
        g["marks"] = sum(p["marks"] for p in g["parts"])
    return groups


QUESTIONS_PER_SCREEN = 8   # answer boxes on one screen of a sitting: a screen draws at once, a whole paper does not


def screens(paper: dict, per_screen: int = QUESTIONS_PER_SCREEN) -> list[dict]:
    """The paper as a student sits it on screen: each section in screens of at most ``per_screen`` answer
    slots (as many as it needs, filled about equally), a printed question's parts never split across two.

    Each screen: ``section`` (the section's dict), ``questions`` (its slots, in order) and ``title``
    ("Questions 1–7", "Question 8", "Questions 9(a)–12").
    """
    out: list[dict] = []
    for section in paper.get("sections") or []:
        groups = question_groups(section)
        slots = sum(len(g["parts"]) for g in groups)
        if not slots:
            continue
        cap = math.ceil(slots / math.ceil(slots / per_screen))
        current: list[dict] = []
        for g in groups:
            if current and len(current) + len(g["parts"]) > cap:
                out.append(_screen(section, current))
                current = []
            current += g["parts"]
        out.append(_screen(section, current))
    return out


def _screen(section: dict, questions: list[dict]) -> dict:
    first, last = (str(q.get("label") or q.get("number")) for q in (questions[0], questions[-1]))
    title = f"Question {first}" if first == last else f"Questions {first}–{last}"
    return {"section": section, "questions": questions, "title": title}


def section_marks(section: dict) -> int:
    """The marks the section's questions add up to (what its cover states)."""
    return sum(g["marks"] for g in question_groups(section))


def printed_question_count(paper: dict) -> int:
    """How many questions the paper prints (parts of one question counted once)."""
    return sum(len(question_groups(s)) for s in paper.get("sections") or [])


def course_title(paper: dict) -> str:
    if paper.get("course_title"):
        return str(paper["course_title"])
    title = str(paper.get("title") or "")
    return re.sub(r":\s*mock exam$", "", title) or " ".join(str(paper.get(k) or "") for k in ("subject", "level"))


def answer_text(q: dict) -> str:
    """The answer as a teacher writes it (not yet typeset): the option's letter and text, or the key with
    its units (£ before the amount, ° after it)."""
    key = str(q.get("answer_key") if q.get("answer_key") is not None else "")
    if q.get("options") and q.get("choose_several"):
        # Every right option, each with its letter: "B: 3; D: 5".
        right = right_options(key, len(q["options"]))
        if right:
            return "; ".join(f"{chr(65 + k)}: {q['options'][k]}" for k in right)
        return key
    if q.get("options") and q.get("correct_index") is not None:
        return f"{chr(65 + q['correct_index'])}: {q['options'][q['correct_index']]}"
    return with_units(key, q.get("units"))


def choice_marks_note(q: dict) -> Optional[str]:
    """For a choose-several question, how its marks are shared among the options ticked; else None."""
    fractions = q.get("fractions")
    options = q.get("options") or []
    if not q.get("choose_several") or not isinstance(fractions, list) or len(fractions) != len(options):
        return None
    try:
        shares = [float(f) for f in fractions]
    except (TypeError, ValueError):
        return None
    parts = [f"{chr(65 + k)} {'+' if f > 0 else '−' if f < 0 else ''}{abs(f) * 100:.4g}%" for k, f in enumerate(shares)]
    return ("Each option ticked adds its share of the marks (" + ", ".join(parts) + "); the total is never "
            "below 0 or above the marks for the question.")


def _plain_formula(text: str) -> str:
    """A follow-through formula without the brackets round the whole of it."""
    text = text.strip()
    while text.startswith("(") and text.endswith(")"):
        depth = 0
        for k, ch in enumerate(text):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and k < len(text) - 1:
                return text
        text = text[1:-1].strip()
    return text


def scheme_lines(q: dict) -> list[dict]:
    """The question's marking scheme, criterion by criterion: what earns each mark, the step's own answer
    (for a step the student answers in its own box, numbered as the student's boxes are) and, where a step
    follows through, how it follows from the candidate's own earlier values."""
    criteria = (q.get("marking_scheme") or {}).get("criteria") or []
    boxes = [i for i, c in enumerate(criteria) if c.get("answer_key") is not None]
    numbers = {i: n for n, i in enumerate(boxes, 1)}
    named = {c["name"]: numbers[i] for i, c in enumerate(criteria) if i in numbers and c.get("name")}
    lines = []
    for i, c in enumerate(criteria):
        follow: Optional[str] = None
        if c.get("follow_through") and i in numbers:
            used = [n for n in named if re.search(rf"(?<![A-Za-z0-9_]){re.escape(n)}(?![A-Za-z0-9_])",
                                                  c["follow_through"])]
            formula = _plain_formula(c["follow_through"])
            for name in sorted(used, key=len, reverse=True):
                formula = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", f"[step {named[name]}]",
                                 formula)
            steps = " and ".join(f"step {named[n]}" for n in sorted(used, key=lambda n: named[n]))
            follow = (f"follow-through: award the mark if it follows correctly from the candidate's own "
                      f"{steps}, that is {formula}")
        lines.append({"step": c.get("step") or "", "marks": c.get("marks", 0), "number": numbers.get(i),
                      "answer": c.get("answer_key") if i in numbers else None, "follow_through": follow,
                      "description": c.get("description")})
    return lines
