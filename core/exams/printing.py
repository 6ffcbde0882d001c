"""Printable versions of a paper: Markdown and a self-contained HTML page, with or without the answers."""
from __future__ import annotations

import html
import re
from typing import Any, Optional


def _marks(n: Any) -> str:
    return f"{n:g} mark{'' if n == 1 else 's'}" if isinstance(n, (int, float)) else f"{n} marks"


def _subtitle(paper: dict) -> str:
    parts = [p for p in (paper.get("subject"), paper.get("level")) if p]
    parts.append(f"Total: {_marks(paper['total_marks'])}")
    if paper.get("time_allowed_minutes"):
        parts.append(f"Time allowed: {paper['time_allowed_minutes']:g} minutes")
    parts.append(f"Paper {paper['seed']}")
    return " · ".join(str(p) for p in parts)


def _section_line(section: dict) -> str:
    bits = [_marks(section["marks"])]
    if section.get("time_allowed_minutes"):
        bits.append(f"{section['time_allowed_minutes']:g} minutes")
    if section.get("calculator_allowed") is not None:
        bits.append("calculator allowed" if section["calculator_allowed"] else "no calculator")
    return ", ".join(bits)


def _answer(q: dict) -> str:
    key = str(q["answer_key"])
    if q.get("options") and q.get("correct_index") is not None:
        key = f"{chr(65 + q['correct_index'])}. {key}"
    if q.get("units") and not q.get("options"):
        key = f"{key} {q['units']}"
    return key


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
                      "answer": c.get("answer_key") if i in numbers else None, "follow_through": follow})
    return lines


def _scheme_text(line: dict) -> str:
    text = line["step"]
    if line["number"] is not None:
        text = f"Step {line['number']}. {text}: {line['answer']}"
    return text


def paper_markdown(paper: dict, with_keys: bool) -> str:
    """A printable Markdown paper; answers and explanations (at the end) only ``with_keys``."""
    title = paper["title"] + (" (teacher copy with answers)" if with_keys else "")
    out = [f"# {title}", "", f"*{_subtitle(paper)}*", "", "## Instructions", ""]
    out += [f"- {line}" for line in paper["instructions"]]
    out.append("")
    for section in paper["sections"]:
        out += [f"## {section['section']}", "", f"*{_section_line(section)}*", ""]
        for q in section["questions"]:
            out += [f"**{q['number']}.** {q['stem']} *({_marks(q['marks'])})*", ""]
            for k, option in enumerate(q.get("options") or []):
                out.append(f"- **{chr(65 + k)}.** {option}")
            if q.get("options"):
                out.append("")
    if with_keys:
        out += ["---", "", "## Answers and explanations", ""]
        for section in paper["sections"]:
            for q in section["questions"]:
                out += [f"**{q['number']}.** {_answer(q)} *({_marks(q['marks'])})*", ""]
                scheme = scheme_lines(q)
                if scheme:
                    for line in scheme:
                        follow = f" — {line['follow_through']}" if line["follow_through"] else ""
                        out.append(f"- {_scheme_text(line)} *({_marks(line['marks'])})*{follow}")
                    out.append("")
                if q.get("explanation"):
                    out += [q["explanation"], ""]
    return "\n".join(out).rstrip() + "\n"


MATHJAX = ("<script>window.MathJax = {tex: {inlineMath: [['$', '$'], ['\\\\(', '\\\\)']]}};</script>\n"
           "<script async src=\"https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-chtml.js\"></script>")
STYLE = ("body{font-family:Georgia,serif;max-width:48rem;margin:2rem auto;padding:0 1rem;line-height:1.5}"
         ".q{margin:1rem 0}.marks{color:#555;font-style:italic}ol.opts{list-style:upper-alpha}"
         "h2{border-bottom:1px solid #ccc}@media print{.answers{page-break-before:always}}")


def _html_lines(text: str) -> str:
    return html.escape(text).replace("\n", "<br>")


def paper_html(paper: dict, with_keys: bool) -> str:
    """The same paper as a standalone HTML page; MathJax renders the $...$ maths when opened in a browser."""
    e = html.escape
    title = paper["title"] + (" (teacher copy with answers)" if with_keys else "")
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">", f"<title>{e(title)}</title>",
           f"<style>{STYLE}</style>", MATHJAX, "</head><body>", f"<h1>{e(title)}</h1>",
           f"<p class=\"marks\">{e(_subtitle(paper))}</p>", "<h2>Instructions</h2>", "<ul>"]
    out += [f"<li>{e(line)}</li>" for line in paper["instructions"]]
    out.append("</ul>")
    for section in paper["sections"]:
        out += [f"<h2>{e(section['section'])}</h2>", f"<p class=\"marks\">{e(_section_line(section))}</p>"]
        for q in section["questions"]:
            out.append(f"<div class=\"q\"><p><strong>{q['number']}.</strong> {_html_lines(q['stem'])} "
                       f"<span class=\"marks\">({e(_marks(q['marks']))})</span></p>")
            if q.get("options"):
                out.append("<ol class=\"opts\">" + "".join(f"<li>{e(str(o))}</li>" for o in q["options"]) + "</ol>")
            out.append("</div>")
    if with_keys:
        out += ["<div class=\"answers\">", "<h2>Answers and explanations</h2>"]
        for section in paper["sections"]:
            for q in section["questions"]:
                out.append(f"<div class=\"q\"><p><strong>{q['number']}.</strong> {e(_answer(q))} "
                           f"<span class=\"marks\">({e(_marks(q['marks']))})</span></p>")
                scheme = scheme_lines(q)
                if scheme:
                    out.append("<ul class=\"scheme\">" + "".join(
                        f"<li>{e(_scheme_text(line))} <span class=\"marks\">({e(_marks(line['marks']))})</span>"
                        + (f"<br><em>{e(line['follow_through'])}</em>" if line["follow_through"] else "") + "</li>"
                        for line in scheme) + "</ul>")
                if q.get("explanation"):
                    out.append(f"<p>{_html_lines(q['explanation'])}</p>")
                out.append("</div>")
        out.append("</div>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
