"""Printed papers: the question paper and its marking scheme, each one self-contained HTML file.

Both open offline in any browser and print to A4 (or to PDF from the print
dialog): the maths is MathML made here (``core.exams.typeset``), diagrams
are inline SVG (``core.exams.diagrams``), the styles are inline, and nothing
is fetched. Each printed question's element carries ``data-question`` (its
printed number) and ``data-marks`` (its marks, parts included), so the marks
in either file add up to the paper's total.

The question paper follows an SQA paper: for each paper a cover (course,
paper, calculator or not, time allowed, total marks, instructions, the
candidate's boxes), the course's formulae list on its own page, questions
with their parts, marks in the right-hand margin and working space sized by
marks, "[END OF QUESTION PAPER]". The marking scheme gives, per question,
the answer and a generic and an illustrative scheme mark by mark (•1, •2,
...), follow-through notes and the worked solution.
"""
from __future__ import annotations

import html
from pathlib import Path
from typing import Any, Optional

from core.exams.diagrams import diagram_svg
from core.items.mathml import latex_to_mathml
from core.exams.print_style import PAPER_CSS, PRINT_ADVICE, document
from core.exams.scheme import marking_scheme_html
from core.exams.structure import (CHOOSE_SEVERAL, answer_text, course_title, printed_question_count, question_groups,
                                  scheme_lines, section_marks)
from core.exams.typeset import duration, typeset_html

PAPER_FILE, SCHEME_FILE = "paper.html", "marking-scheme.html"

__all__ = ["PAPER_FILE", "PRINT_ADVICE", "SCHEME_FILE", "PrintError", "answer_text", "course_title",
           "marking_scheme_html", "paper_html", "printed_question_count", "question_groups", "scheme_lines",
           "working_space_mm", "write_paper"]


class PrintError(ValueError):
    """A paper that cannot be written out; the message says why and what to do."""


def _calculator_line(section: dict) -> Optional[str]:
    allowed = section.get("calculator_allowed")
    if allowed is None:
        return None
    return "You may use a calculator." if allowed else "You may NOT use a calculator."


def _formulae(paper: dict) -> list[dict]:
    return [f for f in paper.get("formulae") or [] if isinstance(f, dict) and f.get("latex")]


def formula_html(latex: str) -> str:
    """A formula of the formulae list as display MathML (readable text where the converter cannot read it)."""
    return latex_to_mathml(latex, block=True) or typeset_html(f"${latex}$")


def _cover(paper: dict, section: dict, index: int) -> list[str]:
    e = html.escape
    marks = section_marks(section)
    minutes = section.get("time_allowed_minutes")
    if minutes is None and len(paper.get("sections") or []) == 1:
        minutes = paper.get("time_allowed_minutes")
    facts = []
    if minutes:
        facts.append(("Duration", duration(minutes)))
    facts.append(("Total marks", str(marks)))
    out = [f'<section class="cover{" page-break" if index else ""}" data-paper="{index + 1}">',
           f'<p class="course">{e(course_title(paper))}</p>', f"<h1>{e(str(section.get('section') or 'Paper'))}</h1>"]
    calculator = _calculator_line(section)
    if calculator:
        out.append(f'<p class="kind calculator">{e(calculator)}</p>')
    if index == 0:
        out.append(f'<p class="screen-note">{e(PRINT_ADVICE)}</p>')
    out.append('<table class="facts">' + "".join(f"<tr><th>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in facts)
               + "</table>")
    out += ['<p class="fill">Fill in these boxes.</p>', '<table class="candidate">',
            "<tr><td>Full name of centre</td><td>Town</td><td>Class</td></tr>",
            "<tr><td>Forename(s)</td><td>Surname</td><td>Number of seat</td></tr>",
            "<tr><td>Date of birth</td><td colspan=\"2\">Candidate number</td></tr>", "</table>",
            "<h2>Instructions</h2>", '<ul class="instructions">']
    lines = list(paper.get("instructions") or [])
    lines += ["Write your answers clearly in the spaces provided in this booklet.",
              "Full credit will be given only to solutions which contain appropriate working.",
              "State the units for your answer where appropriate."]
    out += [f"<li>{typeset_html(line)}</li>" for line in dict.fromkeys(lines)]
    out.append("</ul>")
    seed = paper.get("seed")
    out.append(f'<p class="foot">{e(str(paper.get("title") or ""))}'
               + (f" · seed {e(str(seed))}" if seed not in (None, "") else "") + "</p>")
    out.append("</section>")
    return out


def _formulae_page(paper: dict) -> list[str]:
    formulae = _formulae(paper)
    if not formulae:
        return []
    out = ['<section class="formulae page-break">', "<h2>FORMULAE LIST</h2>", "<dl>"]
    for f in formulae:
        out.append(f"<dt>{typeset_html(str(f.get('name') or ''))}</dt><dd>{formula_html(str(f['latex']))}</dd>")
    out += ["</dl>", "</section>"]
    return out


def working_space_mm(q: dict) -> int:
    """Room to write in, by marks: a line or two for a multiple-choice question, more for each mark."""
    marks = max(int(q.get("marks") or 1), 1)
    if q.get("options"):
        return 8 + 4 * marks
    return min(14 + 16 * marks, 170)


def _question_body(q: dict) -> list[str]:
    out = [f'<div class="row"><div class="text">{typeset_html(q.get("stem") or "")}</div>'
           f'<div class="mark">{int(q["marks"]) if float(q["marks"]).is_integer() else q["marks"]}</div></div>']
    svg = diagram_svg(q.get("diagram"))
    if svg:
        out.append(svg)
    if q.get("options"):
        if q.get("choose_several"):
            out.append(f'<p class="choose-several"><em>{CHOOSE_SEVERAL}</em></p>')
        out.append('<ol class="options">' + "".join(
            f'<li><span class="letter">{chr(65 + k)}</span>{typeset_html(str(o))}</li>'
            for k, o in enumerate(q["options"])) + "</ol>")
    out.append(f'<div class="working" style="height:{working_space_mm(q)}mm"></div>')
    return out


def _question(group: dict) -> list[str]:
    parts = " has-parts" if any(q.get("part") for q in group["parts"]) else ""
    out = [f'<div class="question{parts}" data-question="{html.escape(str(group["question"]))}" '
           f'data-marks="{group["marks"]:g}">', f'<div class="qnum">{html.escape(str(group["question"]))}.</div>',
           '<div class="qbody">']
    for q in group["parts"]:
        if q.get("part"):
            out += [f'<div class="part" data-part="{html.escape(str(q["part"]))}">',
                    f'<div class="plabel">({html.escape(str(q["part"]))})</div><div>', *_question_body(q),
                    "</div></div>"]
        else:
            out += _question_body(q)
    out += ["</div>", "</div>"]
    return out


def paper_html(paper: dict) -> str:
    """The question paper: one self-contained HTML page, with no answers."""
    body: list[str] = []
    for index, section in enumerate(paper.get("sections") or []):
        body += _cover(paper, section, index)
        body += _formulae_page(paper)
        body += ['<section class="questions page-break">',
                 '<div class="questions-head"><span>MARKS</span></div>']
        for group in question_groups(section):
            body += _question(group)
        body += ['<p class="end">[END OF QUESTION PAPER]</p>', "</section>"]
    return document(f"{course_title(paper)}: question paper", PAPER_CSS, body)


# --------------------------------------------------------------------------
# Files


def write_paper(paper: dict, out_dir: Any) -> dict[str, Path]:
    """Write paper.html and marking-scheme.html into ``out_dir`` (made if missing); their paths."""
    folder = Path(out_dir)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        paths = {"paper": folder / PAPER_FILE, "marking_scheme": folder / SCHEME_FILE}
        paths["paper"].write_text(paper_html(paper), encoding="utf-8")
        paths["marking_scheme"].write_text(marking_scheme_html(paper), encoding="utf-8")
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise PrintError(f"cannot write the paper into {folder}: {reason}; choose a folder you can write to") from None
    return paths
