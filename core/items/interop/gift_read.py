"""Reading a GIFT file as Moodle's importer does (see ``gift``)."""
from __future__ import annotations

import dataclasses
import json
import math
import re
import urllib.parse
from decimal import Decimal, InvalidOperation
from typing import Optional

from core.items.interop import data_uri, safety
from core.items.interop.gift_syntax import (
    _BLANK,
    _FORMATS,
    _NUMBER,
    _PHP_SPACE,
    _PROVENANCE,
    _SETTING,
    _TRUE_FALSE,
    _WEIGHT,
    FORMAT,
    _decode,
    _hide,
    _plain_decimal,
    _show,
)
from core.items.interop.model import (
    CHOICE,
    ESSAY,
    MULTI,
    NUMERIC,
    SHORT,
    Choice,
    Media,
    NumericAnswer,
    Question,
    ReadResult,
    Skipped,
)
from core.items.interop.moodle_xml_media import outside_media
from core.items.interop.text import from_html, tex_to_dollars, tidy_text


def sniff(data: bytes) -> bool:
    """Whether ``data`` looks like a GIFT file: a ``$CATEGORY:`` line, a ``::title::`` or an answer block."""
    head = data[:65536]
    if head.startswith(b"PK\x03\x04"):
        return False
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = head.decode("utf-16", errors="ignore")
    elif b"\x00" in head:
        return False
    else:
        text = head.decode("utf-8", errors="ignore")
    text = text.lstrip("\ufeff \t\r\n")
    if not text or text[0] in "<{":
        return False
    if re.search(r"(?m)^[ \t]*(?:\$CATEGORY:|// workbench)", text):
        return True
    if re.search(r"(?m)^[ \t]*::[^\n]*?::", text):
        return True
    # Question text, then an answer block that opens the way GIFT answers do.
    for i, m in enumerate(_OPENING.finditer(text)):
        before = text[max(0, m.start() - 200):m.start()].rstrip()
        # an empty {} after "key:" or "," is more likely JSON or code than an essay question
        if before and before[-1] not in ("{[(,:" if m[0].endswith("}") else "{[("):
            return True
        if i > 50:
            break
    return False


_OPENING = re.compile(r"(?m)(?<!\\)\{[ \t]*\n?[ \t]*(?:[=~]|#\s*[-+.\d=]|\}[ \t]*$|(?:T|F|TRUE|FALSE)[ \t]*[#}])")


@dataclasses.dataclass
class _Context:
    """What one question gathers while it is read: notes for the reviewer, pictures found in its text."""
    notes: list[str]
    media: list[Media] = dataclasses.field(default_factory=list)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def image(self, src: str) -> Optional[str]:
        """A picture in the text: kept when the file holds it (a data: address), else left out with a note."""
        if src.startswith("data:"):
            decoded = data_uri.decode(src)
            if decoded is None:
                self.note("a picture written into the text could not be decoded and was left out")
                return None
            mime, body, name = decoded
            name = name or f"picture{len(self.media) + 1}{data_uri.extension(mime)}"
            self.media.append(Media(name, mime, body))
            return name
        shown = urllib.parse.unquote(src.split("?")[0].rstrip("/").rsplit("/", 1)[-1]) or src
        self.note(f"the picture '{shown}' is not in the file (a GIFT file carries no pictures) and was left out; "
                  f"add it before approving the question")
        return None


class _Skip(Exception):
    """A question that cannot be read: the message is the reason."""


def read(data: bytes, name: str) -> ReadResult:
    """The questions of a GIFT file; what cannot be read is skipped with a reason and reading goes on."""
    text, encoding_note = safety.decode_text(data, f"the GIFT file '{name}'" if name else "the GIFT file")
    questions: list[Question] = []
    skipped: list[Skipped] = []
    category: list[str] = []
    number = 0
    for block in _blocks(text):
        comments = [line for line in block if line.startswith("//")]
        body = "\n".join("" if line.startswith("//") else line for line in block).strip(_PHP_SPACE)
        if not body:
            continue                                   # only comments
        hidden = _hide(body)
        lead_note = None
        if re.match(r"\$CATEGORY:", hidden, re.I):
            first, _, rest = hidden.partition("\n")
            category = _read_category(_show(first[len("$CATEGORY:"):]))
            hidden = rest.strip(_PHP_SPACE)
            if not hidden:
                continue
            lead_note = "the question followed its $CATEGORY: line without a blank line between them"
        number += 1
        ctx = _Context([encoding_note] if encoding_note else [])
        if lead_note:
            ctx.note(lead_note)
        try:
            question = _read_question(hidden, number, ctx)
        except _Skip as exc:
            skipped.append(Skipped(_title_of(hidden) or f"question {number}", str(exc)))
            continue
        _apply_comments(question, comments, ctx)
        question.category = list(category)
        question.notes = ctx.notes
        question.media = ctx.media
        questions.append(question)
    return ReadResult(questions, skipped, FORMAT)


def _blocks(text: str) -> list[list[str]]:
    """The file cut into questions: runs of lines between blank lines, each line trimmed (as Moodle does)."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        line = line.strip(_PHP_SPACE)
        if line:
            current.append(line)
        elif current:
            blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    return blocks


def _read_category(path: str) -> list[str]:
    """``$course$/top/A/B`` as ["A", "B"]: a ``/`` inside a name is written ``//`` (as Moodle writes it)."""
    names = [part.replace("//", "/").strip() for part in re.split(r"(?<!/)/(?!/)", path.strip())]
    if names and re.fullmatch(r"\$\w+\$", names[0]):
        names = names[1:]
    if names and names[0] == "top":
        names = names[1:]
    return [n for n in names if n]


def _title_of(hidden: str) -> Optional[str]:
    if hidden.startswith("::"):
        end = hidden.find("::", 2)
        if end > 2:
            return _show(hidden[2:end]).strip() or None
    return None


def _read_question(hidden: str, number: int, ctx: _Context) -> Question:
    """One question from its text (comments removed, escapes hidden)."""
    name = None
    if hidden.startswith("::"):
        hidden = hidden[2:]
        end = hidden.find("::")
        if end >= 0:
            name = _show(hidden[:end]).strip() or None
            hidden = hidden[end + 2:].strip(_PHP_SPACE)
    name = name or f"question {number}"

    start, finish = hidden.find("{"), hidden.find("}")
    if start < 0 and finish < 0:
        raise _Skip("a description has no question to answer")
    if start < 0 or finish < 0 or finish < start:
        raise _Skip("its braces do not match: an answer block needs both { and }, and a brace in the text is "
                    "written \\{ or \\}")
    block = hidden[start + 1:finish]
    outside = hidden[:start] + hidden[finish + 1:]
    if "{" in block or "{" in outside or "}" in outside:
        raise _Skip("it has more than one answer block, or braces in its text that are not escaped "
                    "(a brace in the text is written \\{ or \\}); only one answer block per question is read")
    answer = block.strip(_PHP_SPACE)
    if hidden.endswith("}"):
        question_text = hidden[:start]
    else:                                              # a missing word: the blank stays in the text
        question_text = hidden[:start] + _BLANK + hidden[finish + 1:]

    general = ""
    cut = answer.rfind("####")
    if cut >= 0:
        general = answer[cut + 4:]
        answer = answer[:cut].strip(_PHP_SPACE)

    fmt, raw_stem = _with_format(question_text, "moodle")
    stem = _ours(raw_stem, fmt, ctx)
    if not stem:
        raise _Skip("it has no question text")
    question = Question(kind=ESSAY, name=name, stem=stem)
    question.general_feedback = _text_of(general, fmt, ctx) if general.strip() else ""

    if answer == "":
        return question
    if answer.startswith("#"):
        _read_numeric(question, answer[1:], fmt, ctx)
    elif "~" in answer:
        _read_choice(question, answer, fmt, ctx)
    elif "=" in answer and "->" in answer:
        raise _Skip("a matching question, which the workbench cannot hold")
    else:
        check = answer
        if answer.find("#") > 0:
            check = answer[:answer.find("#")].strip(_PHP_SPACE)
        if check in _TRUE_FALSE:
            _read_true_false(question, answer, fmt, ctx)
        else:
            _read_short(question, answer, fmt, ctx)
    return question


def _with_format(text: str, default: str) -> tuple[str, str]:
    """(format, text) for a text that may start with ``[html]`` and the like; the escapes put back, trimmed."""
    text = text.strip(_PHP_SPACE)
    if text.startswith("["):
        end = text.find("]")
        if end > 0 and text[1:end].lower() in _FORMATS:
            return text[1:end].lower(), _show(text[end + 1:]).strip(_PHP_SPACE)
    return default, _show(text).strip(_PHP_SPACE)


_LOOKS_HTML = re.compile(r"</?(?:p|br|b|i|u|em|strong|span|div|sub|sup|img|a|ul|ol|li|table|tr|td|th|pre|code|"
                         r"h[1-6]|font|hr|blockquote|math)\b[^>]*>|&(?:[a-zA-Z]+|#\d+|#x[0-9a-fA-F]+);", re.I)


def _text_of(text: str, default: str, ctx: _Context) -> str:
    """A text of the file (an option, a feedback) in our form, in its own format or the question's."""
    return _ours(*reversed(_with_format(text, default)), ctx)


def _ours(text: str, fmt: str, ctx: _Context) -> str:
    """A text of the file in our form: HTML read as HTML, the other formats kept as written (maths as $...$)."""
    if not text:
        return ""
    if fmt == "html" or (fmt == "moodle" and _LOOKS_HTML.search(text)):
        for url in outside_media(text):
            ctx.note(f"the text links to {url}, which is not in the file; the link was left out: add the picture "
                     f"or sound before approving the question")
    if fmt == "html":
        return from_html(text, image_name=ctx.image)[0]
    if fmt == "moodle" and _LOOKS_HTML.search(text):
        # Moodle's own format allows HTML, and a line break in it is a line break.
        return from_html(text.replace("\n", "<br/>"), image_name=ctx.image)[0]
    return tidy_text(tex_to_dollars(text))


def _split_weight(text: str, default: float) -> tuple[float, str]:
    """A leading ``%50%`` as 0.5 (worked out in decimal, so that what ``_percent`` wrote comes back exactly)."""
    m = _WEIGHT.match(text)
    if m:
        return float(Decimal(m[1]) / 100), text[m.end():]
    return default, text


def _read_choice(question: Question, answer: str, fmt: str, ctx: _Context) -> None:
    single = "=" in answer
    parts = answer.replace("=", "~=").split("~")
    parts[0] = parts[0].strip(_PHP_SPACE)
    if not parts[0]:
        parts.pop(0)
    choices = []
    for part in parts:
        part = part.strip(_PHP_SPACE)
        if part.startswith("="):
            fraction, part = 1.0, part[1:]
        else:
            fraction, part = _split_weight(part, 0.0)
        text, _, feedback = part.partition("#")
        option = _text_of(text, fmt, ctx)
        if not option:
            continue                                   # Moodle drops options with no text
        choices.append(Choice(option, fraction, _text_of(feedback, fmt, ctx)))
    if len(choices) < 2:
        raise _Skip("a multiple-choice question needs at least two options")
    question.kind = CHOICE if single else MULTI
    question.choices = choices


def _read_true_false(question: Question, answer: str, fmt: str, ctx: _Context) -> None:
    bits = answer.split("#", 2)
    key = bits[0].strip(_PHP_SPACE)
    wrong = _text_of(bits[1], fmt, ctx) if len(bits) > 1 else ""
    right = _text_of(bits[2], fmt, ctx) if len(bits) > 2 else ""
    is_true = key in ("T", "TRUE")
    question.kind = CHOICE
    question.choices = [Choice("True", 1.0 if is_true else 0.0, right if is_true else wrong),
                        Choice("False", 0.0 if is_true else 1.0, wrong if is_true else right)]
    question.shuffle = False                           # Moodle always shows True, then False


def _read_short(question: Question, answer: str, fmt: str, ctx: _Context) -> None:
    parts = answer.split("=")
    parts[0] = parts[0].strip(_PHP_SPACE)
    if not parts[0]:
        parts.pop(0)
    answers = []
    for part in parts:
        fraction, part = _split_weight(part.strip(_PHP_SPACE), 1.0)
        text, _, feedback = part.partition("#")
        accepted = _with_format(text, fmt)[1]           # a short answer is compared as written, not as HTML
        feedback_text = _text_of(feedback, fmt, ctx)
        if accepted == "*":
            if fraction > 0:
                raise _Skip("its answer '*' gives marks for any answer at all")
            question.incorrect_feedback = feedback_text
            continue
        if not accepted:
            continue
        if re.search(r"(?<!\\)\*", accepted):
            ctx.note(f"the answer '{accepted}' uses Moodle's * wildcard (any characters); it is kept as a "
                     f"literal *: check the accepted answers")
        answers.append(Choice(accepted.replace("\\*", "*"), fraction, feedback_text))
    if not answers:
        raise _Skip("a short-answer question needs at least one accepted answer")
    question.kind = SHORT
    question.answers = answers


def _read_numeric(question: Question, answer: str, fmt: str, ctx: _Context) -> None:
    wrong = ""
    tilde = answer.find("~")
    if tilde >= 0:
        answer, wrong = answer[:tilde], answer[tilde:]
    parts = answer.split("=")
    parts[0] = parts[0].strip(_PHP_SPACE)
    if not parts[0]:
        parts.pop(0)
    numbers = []
    for part in parts:
        fraction, part = _split_weight(part.strip(_PHP_SPACE), 1.0)
        text, _, feedback = part.partition("#")
        written = _with_format(text, fmt)[1]
        feedback_text = _text_of(feedback, fmt, ctx)
        if written == "*":
            if fraction > 0:
                raise _Skip("its answer '*' gives marks for any answer at all")
            question.incorrect_feedback = feedback_text
            continue
        value, tolerance = _number_and_tolerance(written)
        numbers.append(NumericAnswer(value, tolerance, fraction, feedback_text))
    if not numbers:
        raise _Skip("a numerical question needs at least one number")
    if wrong:
        question.incorrect_feedback = _text_of(wrong.partition("#")[2], fmt, ctx)
    question.kind = NUMERIC
    question.numbers = numbers


def _number_and_tolerance(written: str) -> tuple[str, float]:
    """``3.14:0.01``, ``3..4`` (the middle, give or take half the range) or ``1822`` as (value, tolerance)."""
    if written.find("..") > 0:
        low, _, high = written.partition("..")
        low, high = low.strip(), high.strip()
        if not (_NUMBER.fullmatch(low) and _NUMBER.fullmatch(high)):
            raise _Skip(f"the range '{written}' is not two numbers")
        try:
            lo, hi = Decimal(low), Decimal(high)
        except InvalidOperation:
            raise _Skip(f"the range '{written}' is not two numbers") from None
        if max(abs(lo.adjusted()), abs(hi.adjusted())) > 300:
            raise _Skip(f"the range '{written}' holds numbers too large to mark")
        middle = (lo + hi) / 2
        return _plain_decimal(middle), abs(float(hi - middle))
    if written.find(":") > 0:
        value, _, tolerance = written.partition(":")
        value, tolerance = value.strip(), tolerance.strip()
    else:
        value, tolerance = written.strip(), "0"
    if not _NUMBER.fullmatch(value):
        raise _Skip(f"its answer '{written}' is not a number")
    if not _NUMBER.fullmatch(tolerance):
        raise _Skip(f"the tolerance in '{written}' is not a number")
    if not (math.isfinite(float(value)) and math.isfinite(float(tolerance))):
        raise _Skip(f"the answer '{written}' holds numbers too large to mark")
    return value, abs(float(tolerance))


_SETTING_TYPES = {"marks": (int, float), "shuffle": bool, "case_sensitive": bool, "units": str, "units_note": str,
                  "relative_tolerance": (int, float), "correct_feedback": str, "incorrect_feedback": str,
                  "hints": list, "grader_info": str, "keywords": list}


def _apply_comments(question: Question, comments: list[str], ctx: _Context) -> None:
    """Provenance, settings and tags from the comment lines of the question."""
    settings: dict = {}
    for line in comments:
        for prefix, into in ((_PROVENANCE, question.provenance), (_SETTING, settings)):
            if line.startswith(prefix):
                key, sep, value = line[len(prefix):].strip().partition("=")
                try:
                    into[_decode(key)] = _decode(value) if sep else ""
                except UnicodeDecodeError:
                    ctx.note(f"the comment '{line[:60]}' is not readable and was ignored")
    joined = "\n".join(comments)
    for m in re.finditer(r"\[tag:((?:\\\]|[^\]\n])*)\]", joined):
        tag = m[1].replace("\\]", "]").strip()
        if tag and tag not in question.tags:
            question.tags.append(tag)
    idnumber = re.search(r"\[id:((?:\\\]|[^\]\n])*)\]", joined)
    if idnumber and idnumber[1].strip():
        question.provenance.setdefault("moodle_idnumber", idnumber[1].replace("\\]", "]").strip())

    for key, raw in settings.items():
        try:
            value = json.loads(raw)
        except ValueError:
            value = None
        kinds = _SETTING_TYPES.get(key)
        if kinds is None or (isinstance(value, bool) and kinds is not bool) or not isinstance(value, kinds):
            ctx.note(f"the workbench setting '{key}' could not be read and was ignored")
            continue
        if key == "units_note":
            ending = "\n\n" + value
            if question.stem.endswith(ending):
                question.stem = question.stem[:-len(ending)]
            continue
        if key in ("hints", "keywords"):
            value = [str(v) for v in value]
        elif key in ("marks", "relative_tolerance"):
            value = float(value)
        setattr(question, key, value)
