"""The marking scheme as printed: a cover with the totals per paper, then per question the answer and a
generic and an illustrative scheme mark by mark (•1, •2, ...), follow-through notes and the worked solution,
in SQA's style. Each question's element carries data-question and data-marks, as on the question paper."""
from __future__ import annotations

import html

from core.exams.print_style import PRINT_ADVICE, SCHEME_CSS, document
from core.exams.structure import (answer_text, choice_marks_note, course_title, question_groups, scheme_lines,
                                  section_marks)
from core.exams.typeset import duration, marks_text, typeset_html, with_units


def _bullet(n: int) -> str:
    return f'<span class="bullet">•<sup>{n}</sup></span>'


def _scheme_rows(q: dict, label: str, first_bullet: int) -> tuple[list[str], list[str], int]:
    """Table rows for one slot, its notes, and the next bullet number."""
    lines = scheme_lines(q)
    answer = typeset_html(answer_text(q))
    rows: list[str] = []
    notes: list[str] = []
    if not lines:
        step = ("Correct answer" if not q.get("options") else "Choose all the right options"
                if q.get("choose_several") else "Choose the correct option")
        lines = [{"step": step,
                  "marks": q["marks"], "number": None, "answer": None, "follow_through": None, "description": None}]
    n = first_bullet
    last = len(lines) - 1
    for k, line in enumerate(lines):
        if line["answer"] is not None:
            evidence = typeset_html(with_units(line["answer"], q.get("units")) if k == last else str(line["answer"]))
        elif k == last:
            evidence = answer
        else:
            evidence = ""
        bullets = " ".join(_bullet(n + m) for m in range(max(int(line["marks"] or 0), 1)))
        cell = f'<th class="q" rowspan="{len(lines)}">{html.escape(label)}</th>' if k == 0 else ""
        rows.append(f"<tr>{cell}<td>{bullets} {typeset_html(line['step'])}</td>"
                    f'<td class="ill">{evidence}</td><td class="m">{line["marks"]:g}</td></tr>')
        if line.get("description"):
            notes.append(f"{_bullet(n)} {typeset_html(line['description'])}")
        if line["follow_through"]:
            notes.append(f"{_bullet(n)} {typeset_html(line['follow_through'][0].upper() + line['follow_through'][1:])}")
        n += max(int(line["marks"] or 0), 1)
    shared_out = choice_marks_note(q)
    if shared_out:
        notes.append(typeset_html(shared_out))
    accepted = [a for a in q.get("accepted_answers") or [] if a]
    if accepted:
        notes.append("Also accept: " + "; ".join(typeset_html(a) for a in accepted[:8]))
    return rows, notes, n


def _scheme_question(group: dict) -> list[str]:
    parts = " has-parts" if any(q.get("part") for q in group["parts"]) else ""
    out = [f'<div class="question{parts}" data-question="{html.escape(str(group["question"]))}" '
           f'data-marks="{group["marks"]:g}">']
    answers = []
    for q in group["parts"]:
        label = f"({q['part']})" if q.get("part") else ""
        answers.append(f"{label} {typeset_html(answer_text(q))}".strip())
    out.append(f'<p class="answer"><strong>{html.escape(str(group["question"]))}.</strong> '
               f'Answer: {"; ".join(answers)} <em>({marks_text(group["marks"])})</em></p>')
    out += ['<table class="scheme"><thead><tr><th class="q">Question</th><th>Generic scheme</th>'
            '<th>Illustrative scheme</th><th class="m">Marks</th></tr></thead><tbody>']
    notes: list[str] = []
    bullet = 1
    for q in group["parts"]:
        label = f"{group['question']}({q['part']})" if q.get("part") else str(group["question"])
        rows, part_notes, bullet = _scheme_rows(q, label, bullet)
        out += rows
        notes += [(f"({q['part']}) " if q.get("part") else "") + n for n in part_notes]
    out.append("</tbody></table>")
    if notes:
        out.append('<div class="notes"><strong>Notes:</strong><ol>' + "".join(f"<li>{n}</li>" for n in notes)
                   + "</ol></div>")
    for q in group["parts"]:
        if q.get("explanation"):
            label = f"({q['part']}) " if q.get("part") else ""
            out.append(f'<p class="commentary"><strong>Commentary {html.escape(label)}</strong>'
                       f"{typeset_html(q['explanation'])}</p>")
    out.append("</div>")
    return out


def _scheme_cover(paper: dict) -> list[str]:
    e = html.escape
    rows = []
    total_q = total_m = 0
    for section in paper.get("sections") or []:
        groups = question_groups(section)
        marks = sum(g["marks"] for g in groups)
        total_q += len(groups)
        total_m += marks
        minutes = section.get("time_allowed_minutes")
        rows.append(f"<tr><td>{e(str(section.get('section') or 'Paper'))}</td><td class=\"n\">{len(groups)}</td>"
                    f"<td class=\"n\">{marks:g}</td><td>{e(duration(minutes)) if minutes else ''}</td></tr>")
    seed = paper.get("seed")
    return ['<section class="cover">', f'<p class="course">{e(course_title(paper))}</p>',
            "<h1>Marking instructions</h1>",
            f'<p class="kind">{e(str(paper.get("title") or ""))}'
            + (f" · seed {e(str(seed))}" if seed not in (None, "") else "") + "</p>",
            f'<p class="screen-note">{e(PRINT_ADVICE)}</p>',
            '<table class="totals"><thead><tr><th>Paper</th><th class="n">Questions</th><th class="n">Marks</th>'
            "<th>Time allowed</th></tr></thead><tbody>", *rows,
            f'<tr><th>Total</th><th class="n">{total_q}</th><th class="n">{total_m:g}</th><th></th></tr>',
            "</tbody></table>", '<div class="principles"><h2>General marking principles</h2><ul>',
            "<li>Each mark is awarded for what it names (•<sup>1</sup>, •<sup>2</sup>, …); the generic scheme "
            "says what earns it and the illustrative scheme shows it for this question.</li>",
            "<li>Award marks for correct working even where the final answer is wrong; a follow-through mark "
            "is awarded when a step follows correctly from the candidate's own earlier value.</li>",
            "<li>Accept answers that are equivalent to those shown unless the question asks for a form.</li>",
            "</ul></div>", "</section>"]


def marking_scheme_html(paper: dict) -> str:
    """The marking scheme: a cover with the totals, then each paper's questions mark by mark."""
    body = _scheme_cover(paper)
    for section in paper.get("sections") or []:
        body += ['<section class="scheme-paper page-break">',
                 f'<h2 class="paper-title">{html.escape(str(section.get("section") or "Paper"))} '
                 f"({marks_text(section_marks(section))})</h2>"]
        for group in question_groups(section):
            body += _scheme_question(group)
        body.append("</section>")
    return document(f"{course_title(paper)}: marking instructions", SCHEME_CSS, body)
