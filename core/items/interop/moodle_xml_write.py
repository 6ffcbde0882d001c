"""Moodle XML out: multichoice, numerical, shortanswer and essay questions, with their files and provenance.

Text fields are HTML in CDATA (maths in Moodle's ``\\( \\)`` delimiters); each
field carries, as base64 ``<file>`` elements, the files it shows. Marks are
written as the percentages Moodle accepts, and a question whose marks Moodle
would refuse is skipped with the reason. The provenance of a question goes
into Moodle tags, which hold at most 50 characters: ``workbench:KEY=VALUE``
when it fits as it is, else the pair percent-encoded and cut into numbered
tags ``workbench*N.I/T:piece`` that reading joins again.
"""
from __future__ import annotations

import base64
import html
import json
import math
import posixpath
import re
import urllib.parse
from typing import Optional

from core.items.interop.model import (ALGEBRAIC, CHOICE, ESSAY, MULTI, NUMERIC, SHORT, Media, Question, Skipped,
                                      WriteResult)
from core.items.interop.text import math_as_tex, to_html

FORMAT = "moodle-xml"
FILENAME = "questions.xml"

PLUGINFILE = "@@PLUGINFILE@@"
TAG_PREFIX = "workbench"                 # provenance: workbench:KEY=VALUE, or workbench*N.I/T:piece
KEYWORDS_PREFIX = "workbench-keywords"   # the points a marker looks for, outside an essay (a JSON list)
TAG_MAX = 50                             # Moodle cuts tag names to 50 characters (TAG_MAX_LENGTH)

# The marks Moodle accepts for an answer (question_bank::fraction_options_full): an import with any other
# is refused. Kept as exact values so that 1/3, written 33.33333%, reads back as 1/3.
GRADES = (1.0, 0.9, 5 / 6, 0.8, 0.75, 0.7, 2 / 3, 0.6, 0.5, 0.4, 1 / 3, 0.3, 0.25, 0.2, 1 / 6, 1 / 7, 0.125,
           1 / 9, 0.1, 0.05, 0.0)
ALL_GRADES = GRADES + tuple(-g for g in GRADES if g)
GRADE_SLACK = 0.00001                   # Moodle's own test (match_grade_options)

MOODLE_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")          # a picture in our text form (as text.py writes it)
_XML_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_TAG_SAFE = re.compile(r"^[A-Za-z0-9_.\-]+$")
_ENCODE_SAFE = "-_.~!$'()*+;:@/?[]{}|^#"  # kept as they are in an encoded tag: no space, %, comma, <, >, `, =, "


class _Unwritable(Exception):
    """A question Moodle XML cannot hold: the message is the reason a teacher sees."""



def write(questions: list[Question], title: str = "Workbench questions") -> WriteResult:
    """A Moodle XML file of the questions Moodle can hold, and the ones it cannot with why."""
    comment = _clean(title).replace("--", "- -").strip() or "Workbench questions"
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<quiz>", f"<!-- {comment} -->"]
    written: list[str] = []
    skipped: list[Skipped] = []
    current: Optional[list[str]] = None
    for number, q in enumerate(questions, 1):
        label = q.name or f"question {number}"
        try:
            body = _question_xml(q)
        except _Unwritable as exc:
            skipped.append(Skipped(label, str(exc)))
            continue
        category = [c.strip() for c in q.category if c and c.strip()]
        if category != current and not (current is None and not category):
            out.append(_category_xml(category))
        current = category
        out.append(body)
        written.append(label)
    out.append("</quiz>\n")
    return WriteResult(data="\n".join(out).encode("utf-8"), written=written, skipped=skipped, format=FORMAT,
                       filename=FILENAME)


def _category_xml(category: list[str]) -> str:
    return ("  <question type=\"category\">\n"
            f"    <category>\n      <text>{_plain(category_path(category))}</text>\n    </category>\n"
            "    <info format=\"html\">\n      <text></text>\n    </info>\n"
            "    <idnumber></idnumber>\n"
            "  </question>")


def category_path(category: list[str]) -> str:
    """Moodle's path for a category: ``$course$/top/A/B``, a "/" inside a name doubled as Moodle escapes it."""
    parts = []
    for name in category:
        escaped = name.replace("/", "//")
        if escaped.startswith("/"):
            escaped = " " + escaped
        if escaped.endswith("/"):
            escaped += " "
        parts.append(escaped)
    return "/".join(["$course$", "top"] + parts)


def _question_xml(q: Question) -> str:
    if q.kind in (CHOICE, MULTI):
        qtype, body = "multichoice", _choice_body(q)
    elif q.kind == NUMERIC:
        qtype, body = "numerical", _numeric_body(q)
    elif q.kind in (SHORT, ALGEBRAIC):
        qtype, body = "shortanswer", _short_body(q)
    elif q.kind == ESSAY:
        qtype, body = "essay", _essay_body(q)
    else:
        raise _Unwritable(f"its kind ({q.kind}) has no Moodle question type.")
    if not (q.stem or "").strip():
        raise _Unwritable("it has no question text.")
    if q.marks is None or not math.isfinite(q.marks) or q.marks < 0:
        raise _Unwritable(f"its mark ({q.marks}) is not one Moodle can hold.")
    idnumber = str(q.provenance.get("item", "")) if q.provenance else ""
    if len(idnumber) > 100:          # Moodle's ID number field holds 100 characters; the tags keep it anyway
        idnumber = ""
    head = [
        f"  <question type=\"{qtype}\">",
        f"    <name>\n      <text>{_plain(q.name)}</text>\n    </name>",
        _html_field("questiontext", q.stem, q, every_file=True),
        _html_field("generalfeedback", q.general_feedback, q),
        f"    <defaultgrade>{_number(q.marks)}</defaultgrade>",
        f"    <penalty>{'0' if q.kind == ESSAY else '0.3333333'}</penalty>",
        "    <hidden>0</hidden>",
        f"    <idnumber>{_plain(idnumber)}</idnumber>",
    ]
    tail = [_html_field("hint", h, q) for h in q.hints]
    tags = _tags(q)
    if tags:
        tail.append("    <tags>\n" + "\n".join(f"      <tag><text>{_plain(t)}</text></tag>" for t in tags) +
                    "\n    </tags>")
    return "\n".join(head + body + tail + ["  </question>"])


def _choice_body(q: Question) -> list[str]:
    if len(q.choices) < 2:
        raise _Unwritable(f"it has {len(q.choices)} option(s); a Moodle multiple-choice question needs at least two.")
    for i, c in enumerate(q.choices):
        if not c.text.strip():
            raise _Unwritable(f"option {_letter(i)} is empty.")
    percents = [_grade_percent(c.fraction, f"option {_letter(i)}") for i, c in enumerate(q.choices)]
    if q.kind == CHOICE:
        if max(c.fraction for c in q.choices) < 1 - GRADE_SLACK:
            raise _Unwritable("no option earns full marks; Moodle needs one option worth 100%.")
    else:
        total = sum(c.fraction for c in q.choices if c.fraction > 0)
        if round(total, 2) != 1:
            raise _Unwritable(f"the options that earn marks add up to {total * 100:.0f}%; Moodle needs them to add "
                              f"up to 100% in a question with several right options.")
    lines = [
        f"    <single>{'true' if q.kind == CHOICE else 'false'}</single>",
        f"    <shuffleanswers>{'true' if q.shuffle else 'false'}</shuffleanswers>",
        "    <answernumbering>abc</answernumbering>",
        "    <showstandardinstruction>1</showstandardinstruction>",
        _html_field("correctfeedback", q.correct_feedback, q),
        _html_field("partiallycorrectfeedback", "", q),
        _html_field("incorrectfeedback", q.incorrect_feedback, q),
    ]
    for c, percent in zip(q.choices, percents):
        lines.append(f"    <answer fraction=\"{percent}\" format=\"html\">\n"
                     f"{_html_text(c.text, q, indent=6)}\n"
                     f"{_html_field('feedback', c.feedback, q, indent=6)}\n"
                     "    </answer>")
    return lines


def _numeric_body(q: Question) -> list[str]:
    if not q.numbers:
        raise _Unwritable("it has no numeric answer.")
    lines = []
    for n in q.numbers:
        value = (n.value or "").strip()
        if value != "*" and not MOODLE_NUMBER.match(value):
            raise _Unwritable(f"its answer {value!r} is not a number Moodle can read.")
        if not math.isfinite(float(n.tolerance or 0)):
            raise _Unwritable(f"the tolerance of its answer {value} ({n.tolerance}) is not a number.")
        percent = _grade_percent(n.fraction, f"the answer {value}")
        feedback = n.feedback
        if n.fraction >= 1 - GRADE_SLACK and q.correct_feedback:
            feedback = "\n\n".join(t for t in (feedback, q.correct_feedback) if t)
        lines.append(f"    <answer fraction=\"{percent}\" format=\"moodle_auto_format\">\n"
                     f"      <text>{_plain(value)}</text>\n"
                     f"{_html_field('feedback', feedback, q, indent=6)}\n"
                     f"      <tolerance>{_number(abs(float(n.tolerance or 0)))}</tolerance>\n"
                     "    </answer>")
    if q.incorrect_feedback:
        lines.append(_catch_all(q, numeric=True))
    if q.units:
        lines.append("    <units>\n      <unit>\n        <multiplier>1</multiplier>\n"
                     f"        <unit_name>{_plain(q.units.strip())}</unit_name>\n      </unit>\n    </units>")
    # Units optional (Moodle's "unit role" 0): the student types the number, a unit after it if they like.
    lines += ["    <unitgradingtype>0</unitgradingtype>", "    <unitpenalty>0.1000000</unitpenalty>",
              f"    <showunits>{0 if q.units else 3}</showunits>", "    <unitsleft>0</unitsleft>"]
    return lines


def _short_body(q: Question) -> list[str]:
    if not q.answers:
        raise _Unwritable("it has no accepted answer.")
    lines = [f"    <usecase>{1 if q.case_sensitive else 0}</usecase>"]
    for a in q.answers:
        text = a.text.strip()
        if not text:
            raise _Unwritable("one of its accepted answers is empty.")
        percent = _grade_percent(a.fraction, f"the answer {text!r}")
        feedback = a.feedback
        if a.fraction >= 1 - GRADE_SLACK and q.correct_feedback:
            feedback = "\n\n".join(t for t in (feedback, q.correct_feedback) if t)
        # A * in a Moodle short answer matches anything; \* is a real asterisk.
        lines.append(f"    <answer fraction=\"{percent}\" format=\"moodle_auto_format\">\n"
                     f"      <text>{_plain(text.replace('*', chr(92) + '*'))}</text>\n"
                     f"{_html_field('feedback', feedback, q, indent=6)}\n"
                     "    </answer>")
    if q.incorrect_feedback:
        lines.append(_catch_all(q, numeric=False))
    return lines


def _catch_all(q: Question, numeric: bool) -> str:
    """Moodle's "any other answer": a * answer worth nothing, whose feedback is the feedback for a wrong answer."""
    extra = "\n      <tolerance>0</tolerance>" if numeric else ""
    return (f"    <answer fraction=\"0\" format=\"moodle_auto_format\">\n      <text>*</text>\n"
            f"{_html_field('feedback', q.incorrect_feedback, q, indent=6)}{extra}\n    </answer>")


def _essay_body(q: Question) -> list[str]:
    info = to_html(q.grader_info, math=math_as_tex, media_url=_media_url)
    if q.keywords:
        items = "".join(f"<li>{_unwrap(to_html(k, math=math_as_tex, media_url=_media_url))}</li>" for k in q.keywords)
        info += f'<div class="workbench-keywords"><p><strong>Points to look for:</strong></p><ul>{items}</ul></div>'
    for label, key, text in (("Feedback for a right answer:", "correct", q.correct_feedback),
                             ("Feedback for a wrong answer:", "incorrect", q.incorrect_feedback)):
        if text:
            info += (f'<div class="workbench-{key}-feedback"><p><strong>{label}</strong></p>'
                     f'{to_html(text, math=math_as_tex, media_url=_media_url)}</div>')
    info = _sounds(info, q)
    files = _referenced(" ".join([q.grader_info, q.correct_feedback, q.incorrect_feedback] + q.keywords), q)
    return [
        "    <responseformat>editor</responseformat>",
        "    <responserequired>1</responserequired>",
        "    <responsefieldlines>15</responsefieldlines>",
        "    <minwordlimit></minwordlimit>",
        "    <maxwordlimit></maxwordlimit>",
        "    <attachments>0</attachments>",
        "    <attachmentsrequired>0</attachmentsrequired>",
        "    <maxbytes>0</maxbytes>",
        "    <filetypeslist></filetypeslist>",
        "    <graderinfo format=\"html\">\n" + _cdata_text(info, 6) + _files_xml(files, 6) + "\n    </graderinfo>",
        "    <responsetemplate format=\"html\">\n      <text></text>\n    </responsetemplate>",
    ]


def _tags(q: Question) -> list[str]:
    tags = _encode_records(TAG_PREFIX, [(str(k), str(v)) for k, v in (q.provenance or {}).items()])
    if q.keywords and q.kind != ESSAY:
        tags += _encode_records(KEYWORDS_PREFIX, [(None, json.dumps(q.keywords, ensure_ascii=False))])
    return tags + [t for t in q.tags if t and t.strip()]


def _encode_records(prefix: str, records: list[tuple[Optional[str], str]]) -> list[str]:
    """Tags for ``(key, value)`` records (key None: the value alone), each one tag when it fits, else several.

    A record fits as ``prefix:KEY=VALUE`` when it is at most 50 characters and
    Moodle would keep it as it is (no <, >, `, commas, control characters,
    doubled or trailing spaces). Otherwise it is percent-encoded and cut into
    numbered pieces ``prefix*N.I/T:piece`` (record N, piece I of T).
    """
    tags: list[str] = []
    encoded = 0
    for key, value in records:
        plain = value if key is None else f"{key}={value}"
        tag = f"{prefix}:{plain}"
        if (key is None or _TAG_SAFE.match(key)) and len(tag) <= TAG_MAX and _tag_safe(plain):
            tags.append(tag)
            continue
        encoded += 1
        whole = urllib.parse.quote(value, safe=_ENCODE_SAFE) if key is None else \
            urllib.parse.quote(key, safe=_ENCODE_SAFE) + "=" + urllib.parse.quote(value, safe=_ENCODE_SAFE)
        units = re.findall(r"%[0-9A-F]{2}|.", whole, re.S)
        count = 1
        while True:                   # the piece size depends on how many digits the piece numbers take
            room = TAG_MAX - len(f"{prefix}*{encoded}.{count}/{count}:")
            pieces, piece = [], ""
            for unit in units:
                if len(piece) + len(unit) > room:
                    pieces.append(piece)
                    piece = ""
                piece += unit
            pieces.append(piece)
            if len(str(len(pieces))) <= len(str(count)):
                break
            count = len(pieces)
        total = len(pieces)
        tags += [f"{prefix}*{encoded}.{i}/{total}:{p}" for i, p in enumerate(pieces, 1)]
    return tags


def _tag_safe(text: str) -> bool:
    if re.search(r"[<>`,%]", text) or any(ord(ch) < 32 or 0x7f <= ord(ch) < 0xa0 for ch in text):
        return False
    if any(ch.isspace() and ch != " " for ch in text) or "  " in text:
        return False
    return text == text.rstrip() and text == text.lstrip()


def _html_field(tag: str, text: str, q: Question, indent: int = 4, every_file: bool = False) -> str:
    pad = " " * indent
    files = list(q.media) if every_file else _referenced(text or "", q)
    return (f"{pad}<{tag} format=\"html\">\n{_html_text(text, q, indent + 2)}{_files_xml(files, indent + 2)}\n"
            f"{pad}</{tag}>")


def _html_text(text: str, q: Question, indent: int) -> str:
    made = to_html(text or "", math=math_as_tex, media_url=_media_url)
    return _cdata_text(_sounds(made, q), indent)


def _cdata_text(made: str, indent: int) -> str:
    pad = " " * indent
    made = _clean(made)
    if not made:
        return f"{pad}<text></text>"
    return f"{pad}<text><![CDATA[{made.replace(']]>', ']]]]><![CDATA[>')}]]></text>"


def _media_url(name: str) -> str:
    return f"{PLUGINFILE}/{urllib.parse.quote(name)}"


def _sounds(made: str, q: Question) -> str:
    """A sound or a film shown with Moodle's player, any other file that is not a picture as a link to it."""
    kinds = {m.name: m.mime.split("/")[0] for m in q.media if not m.mime.startswith("image/")}
    if not kinds:
        return made

    def one(m: re.Match) -> str:
        name = urllib.parse.unquote(html.unescape(m[1])[len(PLUGINFILE) + 1:])
        kind = kinds.get(name)
        if kind is None:
            return m[0]
        if kind in ("audio", "video"):
            return f'<{kind} controls="controls" title="{m[2]}"><source src="{m[1]}"/>{m[2]}</{kind}>'
        return f'<a href="{m[1]}">{m[2] or html.escape(name)}</a>'
    return re.sub(r'<img src="(@@PLUGINFILE@@/[^"]*)" alt="([^"]*)"/>', one, made)


def _referenced(text: str, q: Question) -> list[Media]:
    names = {urllib.parse.unquote(m[2]) for m in _IMAGE.finditer(text or "")}
    return [m for m in q.media if m.name in names]


def _files_xml(files: list[Media], indent: int) -> str:
    out = []
    for m in files:
        folder, name = posixpath.split(m.name.strip("/"))
        path = f"/{folder}/" if folder else "/"
        out.append(f"\n{' ' * indent}<file name=\"{html.escape(_clean(name))}\" path=\"{html.escape(_clean(path))}\" "
                   f"encoding=\"base64\">{base64.b64encode(m.data).decode('ascii')}</file>")
    return "".join(out)


def _unwrap(made: str) -> str:
    return re.sub(r"^<p>|</p>$", "", made)


def _plain(text: str) -> str:
    """Plain text for an element: as it is, or in CDATA when it holds <, > or & (as Moodle writes it)."""
    text = _clean(str(text or ""))
    if html.escape(text, quote=False) == text:
        return text
    return f"<![CDATA[{text.replace(']]>', ']]]]><![CDATA[>')}]]>"


def _clean(text: str) -> str:
    return _XML_ILLEGAL.sub("", text or "")


def _number(x: float) -> str:
    x = float(x)
    return str(int(x)) if x == int(x) and abs(x) < 1e15 else repr(x)


def _grade_percent(fraction: float, what: str) -> str:
    """The fraction as Moodle writes it ("33.33333"), or _Unwritable when Moodle does not accept that mark."""
    for g in ALL_GRADES:
        if abs(fraction - g) < GRADE_SLACK:
            text = f"{g * 100:.5f}".rstrip("0").rstrip(".")
            return "0" if text in ("-0", "") else text
    allowed = ", ".join(f"{g * 100:.5f}".rstrip("0").rstrip(".") for g in GRADES)
    raise _Unwritable(f"{what} earns {fraction * 100:g}% of the marks, which Moodle does not accept "
                      f"(it takes {allowed} per cent, or minus those).")


def _letter(i: int) -> str:
    return chr(65 + i) if i < 26 else str(i + 1)
