"""Writing a GIFT file Moodle imports as meant (see ``gift``)."""
from __future__ import annotations

import base64
import dataclasses
import json
import re
import urllib.parse
from decimal import Decimal
from typing import Optional

from core.items.interop.gift_syntax import (
    _IMAGE,
    _MOODLE_FRACTIONS,
    _NUMBER,
    _PROVENANCE,
    _SETTING,
    FILENAME,
    FORMAT,
    _encode,
    _escape,
    _plain_decimal,
)
from core.items.interop.model import (
    ALGEBRAIC,
    CHOICE,
    ESSAY,
    MULTI,
    NUMERIC,
    SHORT,
    Choice,
    Question,
    Skipped,
    WriteResult,
)
from core.items.interop.text import math_as_tex, to_html


class _CannotWrite(Exception):
    """A question GIFT cannot express: the message is the reason."""


def write(questions: list[Question], title: str = "Workbench questions") -> WriteResult:
    """A GIFT file Moodle imports (Question bank > Import > GIFT format), with what it cannot hold skipped."""
    out = [f"// {_one_line(title)}",
           "// GIFT format: in Moodle, Question bank > Import > GIFT format.", ""]
    written: list[str] = []
    skipped: list[Skipped] = []
    category: list[str] = []
    for number, question in enumerate(questions, 1):
        label = question.name or f"question {number}"
        try:
            lines = _write_question(question, label)
        except _CannotWrite as exc:
            skipped.append(Skipped(label, str(exc)))
            continue
        if list(question.category) != category:
            category = list(question.category)
            out += [_category_line(category), ""]
        out += lines + [""]
        written.append(label)
    return WriteResult(("\n".join(out)).encode("utf-8"), written, skipped, FORMAT, FILENAME)


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


def _category_line(names: list[str]) -> str:
    """``$CATEGORY: $course$/top/A/B``: a ``/`` in a name doubled, a backslash doubled (as Moodle reads them)."""
    parts = []
    for name in names:
        part = _one_line(name).replace("\\", "\\\\").replace("/", "//")
        if part.startswith("/"):
            part = " " + part
        if part.endswith("/"):
            part += " "
        if part.strip():
            parts.append(part)
    return "$CATEGORY: " + "/".join(["$course$", "top"] + parts)


MAX_PICTURE_BYTES = 1024 * 1024
_IMAGE_REF = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")


def _with_pictures_inside(q: Question) -> Question:
    """The question with each picture written into its text as a data: address (GIFT carries no files).

    The address keeps the file's name (``data:image/png;name=graph.png;base64,...``) so that it reads back
    under the same name. Sounds and films, and pictures over 1 MB, cannot travel this way.
    """
    files = {m.name: m for m in q.media}
    for m in q.media:
        if not m.mime.startswith("image/"):
            raise _CannotWrite(f"it plays '{m.name}', and a GIFT file cannot carry sounds or films; export it as "
                               f"Moodle XML or QTI to keep them")
        if len(m.data) > MAX_PICTURE_BYTES:
            raise _CannotWrite(f"its picture '{m.name}' is over 1 MB, too large to write into a GIFT file; export "
                               f"it as Moodle XML or QTI")

    def embed(text: str) -> str:
        def one(match: re.Match) -> str:
            name = urllib.parse.unquote(match[2])
            if name.startswith("data:"):
                return match[0]
            if name not in files:
                raise _CannotWrite(f"it shows the picture '{name}', which is not attached to it")
            m = files[name]
            data = base64.b64encode(m.data).decode("ascii")
            # quoted twice: writing the text as HTML unquotes a picture's address once
            quoted = urllib.parse.quote(urllib.parse.quote(name, safe=""), safe="")
            return f"![{match[1]}](data:{m.mime};name={quoted};base64,{data})"
        return _IMAGE_REF.sub(one, text or "")
    texts = [q.stem, q.general_feedback] + [c.text for c in q.choices] + [c.feedback for c in q.choices]
    shown = {urllib.parse.unquote(m[2]) for t in texts for m in _IMAGE_REF.finditer(t or "")}
    for name in files:
        if name not in shown:
            raise _CannotWrite(f"it has a file '{name}' that its text does not show, and a GIFT file can carry "
                               f"a picture only where the text shows it; export it as Moodle XML or QTI")
    return dataclasses.replace(
        q, stem=embed(q.stem), general_feedback=embed(q.general_feedback),
        choices=[dataclasses.replace(c, text=embed(c.text), feedback=embed(c.feedback)) for c in q.choices])


def _html(text: str) -> str:
    """A stem or a general feedback as escaped GIFT HTML."""
    return _escape(to_html(text, math=math_as_tex))


def _inline(text: str) -> str:
    """An option or a feedback as escaped GIFT HTML, without a paragraph around a single line."""
    made = to_html(text, math=math_as_tex)
    if made.startswith("<p>") and made.endswith("</p>") and made.count("<p>") == 1:
        made = made[3:-4]
    if made.startswith("["):                           # would be taken for a [format] mark
        made = "[html]" + made
    return _escape(made)


def _percent(fraction: float) -> str:
    """A mark as GIFT's percentage, in decimal: the shortest text that reads back as exactly this fraction."""
    return _plain_decimal(Decimal(repr(float(fraction))) * 100)


def _number(value: float) -> str:
    text = repr(float(value))
    if "e" in text or "E" in text:
        text = format(Decimal(text), "f")
    return text[:-2] if text.endswith(".0") else text


def _check_fraction(fraction: float, what: str) -> None:
    if not any(abs(abs(fraction) - allowed) < 0.00001 for allowed in _MOODLE_FRACTIONS):
        raise _CannotWrite(f"{what} earns {_percent(fraction)}% of the marks, and Moodle accepts only its own "
                           f"list of part marks (100, 90, 83.33333, 80, 75, 70, 66.66667, 60, 50, 40, 33.33333, 30, "
                           f"25, 20, 16.66667, 14.28571, 12.5, 11.11111, 10 and 5%, or as much taken away)")


_REFERS_WORDS = re.compile(r"\b(?:all|none|both|neither|any)\s+(?:of\s+)?(?:the\s+)?(?:above|below|these|those|"
                           r"them|options|answers|others|other\s+answers)\b|^\s*(?:both|neither|all|none)"
                           r"(?:\s+of\s+them)?\s*[.!]?\s*$", re.I)
_REFERS_LETTERS = re.compile(r"\b[A-F]\s*(?:,|and|or|&)\s*[A-F]\b|\(\s*[a-f]\s*\)\s*(?:,|and|or|&)")


def _refers_to_others(choices: list[Choice]) -> Optional[str]:
    for c in choices:
        if _REFERS_WORDS.search(c.text) or _REFERS_LETTERS.search(c.text):
            return c.text
    return None


def _write_question(q: Question, label: str) -> list[str]:
    kind = q.kind
    if kind not in (CHOICE, MULTI, NUMERIC, SHORT, ALGEBRAIC, ESSAY):
        raise _CannotWrite(f"a question of the kind '{q.kind}' has no GIFT form")
    texts = [q.stem, q.general_feedback] + [c.text for c in q.choices] + [c.feedback for c in q.choices] \
        + [n.feedback for n in q.numbers] + [a.feedback for a in q.answers]
    if q.media or any(_IMAGE.search(t or "") for t in texts):
        q = _with_pictures_inside(q)

    settings: dict = {}
    if q.marks != 1.0:
        settings["marks"] = q.marks
    if q.case_sensitive:
        # Moodle marks GIFT short answers without regard to case; the setting keeps it for the workbench.
        settings["case_sensitive"] = True
    if q.relative_tolerance is not None:
        settings["relative_tolerance"] = q.relative_tolerance
    if q.correct_feedback:
        settings["correct_feedback"] = q.correct_feedback
    if q.incorrect_feedback and kind in (CHOICE, MULTI, ESSAY):
        settings["incorrect_feedback"] = q.incorrect_feedback
    if q.hints:
        settings["hints"] = list(q.hints)
    if q.grader_info:
        settings["grader_info"] = q.grader_info
    if q.keywords:
        settings["keywords"] = list(q.keywords)
    if q.units:
        settings["units"] = q.units

    stem = q.stem or ""
    if kind == NUMERIC and q.units and not re.search(rf"(?<!\w){re.escape(q.units)}(?!\w)", stem):
        # GIFT has no units: the question says which unit the number is in, so Moodle asks for the number.
        note = f"Give your answer in {q.units}."
        stem = f"{stem}\n\n{note}" if stem.strip() else note
        settings["units_note"] = note
    if not stem.strip():
        raise _CannotWrite("it has no question text")

    head = f"::{_escape(label.strip())}::[html]{_html(stem)}"
    general = f"####{_html(q.general_feedback)}" if q.general_feedback.strip() else ""

    if kind in (CHOICE, MULTI):
        body, fixed_order = _write_choice(q, kind, head, general)
        if q.shuffle == fixed_order:
            settings["shuffle"] = q.shuffle
    elif kind == NUMERIC:
        body = _write_numeric(q, head, general)
    elif kind in (SHORT, ALGEBRAIC):
        body = _write_short(q, head, general)
    else:
        body = [head + "{" + general + "}"]

    comments = [f"{_PROVENANCE} {_encode(str(k))}={_encode(str(v))}" for k, v in q.provenance.items()]
    comments += [f"{_SETTING} {_encode(k)}={_encode(json.dumps(v, ensure_ascii=False))}"
                 for k, v in settings.items()]
    tags = [_one_line(t).replace("]", "\\]") for t in q.tags if _one_line(t)]
    if tags:
        comments.append("// " + " ".join(f"[tag:{t}]" for t in tags))
    return comments + body


def _write_choice(q: Question, kind: str, head: str, general: str) -> tuple[list[str], bool]:
    """The lines of a choice question, and whether Moodle keeps its options in order (true/false only)."""
    choices = q.choices
    if len(choices) < 2:
        raise _CannotWrite("a multiple-choice question needs at least two options")
    for i, c in enumerate(choices, 1):
        if not c.text.strip():
            raise _CannotWrite(f"option {i} has no text, and Moodle drops options with no text")
    if kind == CHOICE and not q.right_choices():
        raise _CannotWrite("no option earns full marks")

    fractions = [c.fraction for c in choices]
    if kind == CHOICE and [c.text for c in choices] == ["True", "False"] and sorted(fractions) == [0.0, 1.0]:
        right, wrong = (choices[0], choices[1]) if fractions[0] == 1.0 else (choices[1], choices[0])
        line = head + "{" + ("TRUE" if right is choices[0] else "FALSE")
        if wrong.feedback.strip():
            line += "#" + _inline(wrong.feedback)
        elif right.feedback.strip():
            line += "#"
        if right.feedback.strip():
            line += "#" + _inline(right.feedback)
        return [line + general + "}"], True

    for c in choices:
        _check_fraction(c.fraction, f"the option '{c.text}'")
    if not q.shuffle:
        fixed = _refers_to_others(choices)
        if fixed is not None:
            raise _CannotWrite(f"its options must stay in order (the option '{fixed}' refers to the others), and "
                               f"Moodle shuffles the options of a GIFT question; export it as Moodle XML or QTI")
    marks = []
    for c in choices:
        if kind == CHOICE and c.fraction == 1.0:
            marks.append("=")
        elif c.fraction == 0.0 and not c.text.startswith("%"):
            marks.append("~")
        else:
            marks.append(f"~%{_percent(c.fraction)}%")
    if kind == CHOICE and not any(m.startswith("~") for m in marks):
        # Without a ~ Moodle would read a short answer: every right option after the first is written ~%100%.
        marks = [marks[0]] + ["~%100%"] * (len(marks) - 1)
    lines = [head + "{"]
    for mark, c in zip(marks, choices):
        line = "\t" + mark + _inline(c.text)
        if c.feedback.strip():
            line += "#" + _inline(c.feedback)
        lines.append(line)
    if general:
        lines.append("\t" + general)
    return lines + ["}"], False


def _write_short(q: Question, head: str, general: str) -> list[str]:
    if not q.answers:
        raise _CannotWrite("it has no accepted answer")
    lines = [head + "{"]
    for a in q.answers:
        answer = a.text.strip()
        if not answer:
            raise _CannotWrite("one of its accepted answers is empty")
        if "->" in answer:
            raise _CannotWrite(f"the answer '{answer}' contains '->', which Moodle's GIFT import takes for a "
                               f"matching question")
        _check_fraction(a.fraction, f"the answer '{answer}'")
        # Moodle reads * in a short answer as "any characters"; \* is a literal star.
        written = _escape(answer.replace("*", "\\*"))
        if written.startswith("["):
            written = "[plain]" + written
        mark = "=" if a.fraction == 1.0 and not written.startswith("%") else f"=%{_percent(a.fraction)}%"
        line = "\t" + mark + written
        if a.feedback.strip():
            line += "#" + _inline(a.feedback)
        lines.append(line)
    if q.incorrect_feedback.strip():
        lines.append("\t=%0%*#" + _inline(q.incorrect_feedback))
    if general:
        lines.append("\t" + general)
    return lines + ["}"]


def _write_numeric(q: Question, head: str, general: str) -> list[str]:
    if not q.numbers:
        raise _CannotWrite("it has no numerical answer")
    answers = []
    for n in q.numbers:
        value = str(n.value).strip()
        if not _NUMBER.fullmatch(value):
            raise _CannotWrite(f"its answer '{n.value}' is not a number GIFT can hold")
        _check_fraction(n.fraction, f"the answer {value}")
        answers.append((value, _number(abs(n.tolerance)), n))
    only = answers[0][2]
    if len(answers) == 1 and only.fraction == 1.0 and not only.feedback.strip() \
            and not q.incorrect_feedback.strip():
        value, tolerance, _ = answers[0]
        return [f"{head}{{#{value}:{tolerance}{general}}}"]
    lines = [head + "{#"]
    for value, tolerance, n in answers:
        mark = "=" if n.fraction == 1.0 else f"=%{_percent(n.fraction)}%"
        line = f"\t{mark}{value}:{tolerance}"
        if n.feedback.strip():
            line += "#" + _inline(n.feedback)
        lines.append(line)
    if q.incorrect_feedback.strip():
        lines.append("\t~#" + _inline(q.incorrect_feedback))
    if general:
        lines.append("\t" + general)
    return lines + ["}"]
