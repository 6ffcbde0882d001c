"""Printable versions of a paper: Markdown and a self-contained HTML page, with or without the answers."""
from __future__ import annotations

import html
from typing import Any


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
                if q.get("explanation"):
                    out.append(f"<p>{_html_lines(q['explanation'])}</p>")
                out.append("</div>")
        out.append("</div>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
