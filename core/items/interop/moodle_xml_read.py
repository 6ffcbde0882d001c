"""Moodle XML in: what Moodle itself writes and reads, from 1.9 to 4.x.

HTML, auto-format, plain and markdown text; multiple choice with one or
several right options, true/false, numerical (tolerances, units), short answer
and essay questions; files as base64 ``<file>`` elements in any field, kept
once each as the question's media; categories from the category
pseudo-questions. Types the workbench cannot hold (Cloze, matching, drag and
drop, calculated, ...) are skipped with the reason, never an error.
"""
from __future__ import annotations

import base64
import binascii
import codecs
import html
import json
import posixpath
import re
import urllib.parse
from typing import Optional
from xml.etree.ElementTree import Element, tostring

from core.items.interop import data_uri, safety
from core.items.interop.model import (CHOICE, ESSAY, MULTI, NUMERIC, SHORT, Choice, InteropError, Media,
                                      NumericAnswer, Question, ReadResult, Skipped)
from core.items.interop.moodle_xml_media import mime_of, outside_media, players_as_pictures
from core.items.interop.moodle_xml_write import (ALL_GRADES, FORMAT, GRADE_SLACK, KEYWORDS_PREFIX, MOODLE_NUMBER,
                                                 PLUGINFILE, TAG_PREFIX)
from core.items.interop.text import from_html, tex_to_dollars, tidy_text

# Question types we cannot hold, in the words a teacher sees in Moodle.
_UNSUPPORTED = {
    "cloze": "a Cloze (embedded answers) question",
    "multianswer": "a Cloze (embedded answers) question",
    "matching": "a Matching question",
    "match": "a Matching question",
    "ddwtos": "a Drag and drop into text question",
    "gapselect": "a Select missing words question",
    "calculated": "a Calculated question (its numbers come from wildcards)",
    "calculatedsimple": "a Simple calculated question (its numbers come from wildcards)",
    "calculatedmulti": "a Calculated multichoice question (its options come from wildcards)",
    "randomsamatch": "a Random short-answer matching question",
    "random": "a Random question (it draws another question from a category)",
    "ordering": "an Ordering question",
    "ddimageortext": "a Drag and drop onto image question",
    "ddmarker": "a Drag and drop markers question",
    "ddmatch": "a Drag and drop matching question",
    "gapfill": "a Gapfill question",
    "multichoiceset": "an All-or-nothing multiple choice question",
    "oumultiresponse": "an OU multiple response question",
    "stack": "a STACK question",
    "coderunner": "a CodeRunner question",
    "formulas": "a Formulas question",
    "pmatch": "a Pattern match question",
    "regexp": "a Regular expression short answer question",
    "wordselect": "a Word select question",
    "geogebra": "a GeoGebra question",
    "recordrtc": "a Record audio and video question",
}
# workbench:KEY=VALUE (group 2), or workbench*N.I/T:piece (groups 3 to 6); likewise for the keywords
_OUR_TAG = re.compile(rf"^({re.escape(KEYWORDS_PREFIX)}|{re.escape(TAG_PREFIX)})(?::(.*)|\*(\d+)\.(\d+)/(\d+):(.*))$",
                      re.S)


class _Unreadable(Exception):
    """A question that cannot be read: the message is the reason a teacher sees."""



def read(data: bytes, name: str = "") -> ReadResult:
    """The questions in a Moodle XML file, and the ones left out with why.

    InteropError (one line) only when the file cannot be read at all: not XML,
    hostile XML, or not a <quiz>.
    """
    what = f"the file '{name}'" if name else "the file"
    root = safety.parse_xml(data, what)
    tag = _local(root.tag)
    if tag != "quiz":
        raise InteropError(f"{what} is not a Moodle XML file (it starts with <{tag}>, not <quiz>); export "
                           f"the questions from Moodle again in Moodle XML format.")
    file_note = _encoding_note(data)
    questions: list[Question] = []
    skipped: list[Skipped] = []
    category: list[str] = []
    number = 0
    for el in root:
        if _local(el.tag) != "question":
            continue
        qtype = (el.get("type") or "").strip().lower()
        if qtype == "category":
            category = _read_category(el)
            continue
        number += 1
        label = _question_name(el) or f"question {number}"
        try:
            q = _QuestionReader(el, qtype, label, category).read()
        except _Unreadable as exc:
            skipped.append(Skipped(label, str(exc)))
            continue
        if file_note:
            q.notes.insert(0, file_note)
        questions.append(q)
    return ReadResult(questions=questions, skipped=skipped, format=FORMAT)


def _local(tag) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _encoding_note(data: bytes) -> Optional[str]:
    """A note when the file was not UTF-8 and did not say what it was (so it was read as Windows-1252)."""
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        return None
    try:
        data.decode("utf-8")
        return None
    except UnicodeDecodeError:
        pass
    declared = re.match(rb"^(?:\xef\xbb\xbf)?\s*<\?xml[^>]*?encoding=['\"]([^'\"]+)['\"]", data)
    if declared and declared[1].decode("ascii", "replace").lower().replace("_", "-") not in ("utf-8", "utf8"):
        return None
    return "the file is not UTF-8; it was read as Windows-1252 (check accented letters)"


def _question_name(el: Element) -> str:
    name_el = el.find("name")
    if name_el is None:
        return ""
    text = re.sub(r"</?[A-Za-z][^<>]*>", "", _raw_text(name_el))        # Moodle keeps names as plain text
    return re.sub(r"\s+", " ", text).strip()


def _read_category(el: Element) -> list[str]:
    """``$course$/top/Maths/Surds`` as ["Maths", "Surds"]: no context, no "top"."""
    cat = el.find("category")
    path = _raw_text(cat) if cat is not None else ""
    names = [p.replace("//", "/").strip() for p in re.split(r"(?<!/)/(?!/)", path.strip())]
    if names and re.fullmatch(r"\$[a-z0-9_]+\$", names[0]):
        names = names[1:]
    if names and names[0] == "top":
        names = names[1:]
    return [n for n in names if n]


def _raw_text(el: Optional[Element]) -> str:
    """What a field holds: its <text> (CDATA, escaped HTML, or raw XHTML), or its own text in old files."""
    if el is None:
        return ""
    t = el.find("text")
    if t is None:
        return (el.text or "").strip()
    inner = (t.text or "") + "".join(tostring(child, encoding="unicode") for child in t)
    return inner.strip()


def _flag(el: Optional[Element], default: bool) -> bool:
    """Moodle's reading of yes/no settings: "false", "0" and nothing are no; anything else is yes."""
    if el is None:
        return default
    return (el.text or "").strip().lower() not in ("false", "0", "")


class _QuestionReader:
    """One <question>: its text, its files (kept once each, as Media of the question), its answers."""

    def __init__(self, el: Element, qtype: str, label: str, category: list[str]):
        self.el = el
        self.qtype = qtype
        self.label = label
        self.category = list(category)
        self.media: list[Media] = []
        self.notes: list[str] = []
        self.text_format = "html"

    # -- the whole question

    def read(self) -> Question:
        if not self.qtype:
            raise _Unreadable("it has no type, so it cannot be read.")
        if self.qtype == "description":
            raise _Unreadable("a description has no question to answer.")
        if self.qtype in _UNSUPPORTED:
            raise _Unreadable(f"it is {_UNSUPPORTED[self.qtype]}, which the workbench cannot hold.")
        readers = {"multichoice": self._multichoice, "truefalse": self._truefalse, "numerical": self._numerical,
                   "shortanswer": self._shortanswer, "essay": self._essay}
        reader = readers.get(self.qtype)
        if reader is None:
            raise _Unreadable(f"it is a question of type '{self.qtype}', which the workbench cannot read.")
        q = Question(kind=CHOICE, name=self.label, stem="", category=self.category)
        self._header(q)
        reader(q)
        q.media = self.media
        q.notes = self.notes + q.notes
        return q

    def _header(self, q: Question) -> None:
        qt = self.el.find("questiontext")
        if qt is None:
            raise _Unreadable("it has no question text.")
        self.text_format = (qt.get("format") or "html").strip().lower()
        stem = self.field(qt, "html")
        old = self._old_image()
        if old:
            stem = f"{stem}\n\n{old}".strip()
        if not stem.strip():
            raise _Unreadable("its question text is empty.")
        q.stem = stem
        q.general_feedback = self.field(self.el.find("generalfeedback"), self.text_format)
        grade = self.el.find("defaultgrade")
        if grade is not None and (grade.text or "").strip():
            q.marks = self.number(grade.text, "its default mark")
        for hint in self.el.findall("hint"):
            inner = hint.find("hintcontent")        # Moodle 2.0 wrote hints this way
            text = self.field(inner if inner is not None else hint, self.text_format)
            if text:
                q.hints.append(text)
        self._tags(q)
        idnumber = (self.el.findtext("idnumber") or "").strip()
        if idnumber and idnumber != q.provenance.get("item"):
            q.provenance.setdefault("idnumber", idnumber)

    def _old_image(self) -> str:
        """Moodle 1.9's <image> (a course file) and <image_base64> (its content) beside the question text."""
        image = (self.el.findtext("image") or "").strip()
        encoded = "".join((self.el.findtext("image_base64") or "").split())
        if not image:
            return ""
        if not encoded:
            self.notes.append(f"the picture {image!r} was a course file not included in the file; it was left out")
            return ""
        try:
            data = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            self.notes.append(f"the picture {image!r} could not be decoded; it was left out")
            return ""
        name = self.add_media(image.replace("/", "_"), data)
        return f"![]({urllib.parse.quote(name)})"

    def _tags(self, q: Question) -> None:
        texts = []
        for holder in ("tags", "coursetags"):
            for tag in self.el.findall(f"{holder}/tag"):
                text = _raw_text(tag)
                if text:
                    texts.append(text)
        chunks: dict[tuple[str, str], dict[int, str]] = {}
        totals: dict[tuple[str, str], int] = {}
        for text in texts:
            m = _OUR_TAG.match(text)
            if not m:
                q.tags.append(text)
            elif m[2] is not None:
                self._record(q, m[1], m[2], encoded=False)
            else:
                chunks.setdefault((m[1], m[3]), {})[int(m[4])] = m[6]
                totals[(m[1], m[3])] = int(m[5])
        for key, pieces in chunks.items():
            if sorted(pieces) != list(range(1, totals[key] + 1)):
                self.notes.append("part of the provenance in the file's tags is missing; it was left out")
                continue
            self._record(q, key[0], "".join(pieces[i] for i in sorted(pieces)), encoded=True)

    def _record(self, q: Question, prefix: str, text: str, encoded: bool) -> None:
        if prefix == KEYWORDS_PREFIX:
            try:
                words = json.loads(urllib.parse.unquote(text) if encoded else text)
            except ValueError:
                self.notes.append("the list of points to look for in the file's tags cannot be read; it was left out")
                return
            if isinstance(words, list):
                q.keywords = [str(w) for w in words]
            return
        key, sep, value = text.partition("=")
        if not sep:
            q.tags.append(f"{prefix}:{text}")
            return
        if encoded:
            key, value = urllib.parse.unquote(key), urllib.parse.unquote(value)
        q.provenance[key] = value

    # -- question types

    def _multichoice(self, q: Question) -> None:
        single = _flag(self.el.find("single"), True)
        q.kind = CHOICE if single else MULTI
        q.shuffle = _flag(self.el.find("shuffleanswers"), False)
        answers = self.el.findall("answer")
        fractions = self.fractions(answers)
        for ans, fraction in zip(answers, fractions):
            text = self.field(ans, self.text_format)
            feedback = self.field(ans.find("feedback"), self.text_format)
            if not text and not fraction and not feedback:
                continue                             # Moodle leaves blank options out too
            q.choices.append(Choice(text, fraction, feedback))
        if not q.choices:
            raise _Unreadable("it is a multiple-choice question with no options.")
        self._combined_feedback(q)

    def _truefalse(self, q: Question) -> None:
        answers = self.el.findall("answer")
        if not answers:
            raise _Unreadable("it is a true/false question with no answers.")
        fractions = self.fractions(answers)
        found: dict[str, tuple[float, str]] = {}
        for position, (ans, fraction) in enumerate(zip(answers, fractions)):
            said = _raw_text(ans).strip().lower()
            if said not in ("true", "false"):      # old files wrote the words in the site's language
                if position == 0:
                    self.notes.append(f"the answers were written as {_raw_text(ans).strip()!r} and so on rather "
                                      f"than true/false; the first was read as True, as Moodle reads them")
                said = "true" if position == 0 else "false"
            found.setdefault(said, (fraction, self.field(ans.find("feedback"), self.text_format)))
        q.kind = CHOICE
        q.shuffle = False
        q.choices = [Choice("True", *found.get("true", (0.0, ""))), Choice("False", *found.get("false", (0.0, "")))]

    def _numerical(self, q: Question) -> None:
        q.kind = NUMERIC
        answers = self.el.findall("answer")
        if not answers:
            raise _Unreadable("it is a numerical question with no answer.")
        units = self._units()
        fractions = self.fractions(answers)
        for ans, fraction in zip(answers, fractions):
            value = _raw_text(ans).strip()
            if not value:
                continue                             # Moodle leaves blank answers out
            feedback = self.field(ans.find("feedback"), self.text_format)
            if units and value.endswith(units) and value != units:          # old files kept the unit in the answer
                value = value[:-len(units)].strip()
            tolerance_text = (ans.findtext("tolerance") or "").strip()
            tolerance = abs(self.number(tolerance_text, f"the tolerance of the answer {value}")) \
                if tolerance_text else 0.0
            if value == "*":
                if fraction == 0 and not q.incorrect_feedback:
                    q.incorrect_feedback = feedback
                    continue
                self.notes.append("an answer '*' accepts any number; check it")
            elif not MOODLE_NUMBER.match(value):
                raise _Unreadable(f"its answer {value!r} is not a number.")
            q.numbers.append(NumericAnswer(value, tolerance, fraction, feedback))
        if not q.numbers:
            raise _Unreadable("it is a numerical question with no answer but 'anything else'.")
        q.units = units or None
        if (self.el.findtext("unitgradingtype") or "0").strip() not in ("0", "") and units:
            self.notes.append(f"Moodle also marked the unit ({units}); here only the number is marked")
        if (self.el.findtext("unitsleft") or "0").strip() not in ("0", "") and units:
            self.notes.append(f"the unit ({units}) was written before the number")

    def _units(self) -> str:
        base = ""
        others = []
        for unit in self.el.findall("units/unit"):
            name = (unit.findtext("unit_name") or "").strip()
            if not name:
                continue
            multiplier_text = (unit.findtext("multiplier") or "1").strip()
            try:
                multiplier = float(multiplier_text)
            except ValueError:
                self.notes.append(f"the unit {name!r} has a multiplier that is not a number; it was left out")
                continue
            if abs(multiplier - 1) < 1e-9 and not base:
                base = name
            else:
                others.append((name, multiplier_text))
        if others:
            listed = ", ".join(f"{n} (1 {base or 'unit'} = {m} {n})" for n, m in others)
            self.notes.append(f"Moodle also accepted answers in {listed}; here only {base or 'the number'} is kept"
                              if base else f"the units {listed} have none worth 1; they were left out")
        return base

    def _shortanswer(self, q: Question) -> None:
        q.kind = SHORT
        q.case_sensitive = _flag(self.el.find("usecase"), False)
        answers = self.el.findall("answer")
        fractions = self.fractions(answers)
        for ans, fraction in zip(answers, fractions):
            text = _raw_text(ans).strip()
            feedback = self.field(ans.find("feedback"), self.text_format)
            if not text:
                continue
            if re.search(r"(?<!\\)\*", text):
                if text.strip("*") == "" and fraction == 0 and not q.incorrect_feedback:
                    q.incorrect_feedback = feedback          # Moodle's "any other answer"
                    continue
                self.notes.append(f"the answer {text!r} uses Moodle's * wildcard (any text); it is kept as written")
            else:
                text = text.replace("\\*", "*")
            q.answers.append(Choice(text, fraction, feedback))
        if not q.answers:
            raise _Unreadable("it is a short-answer question with no accepted answer.")

    def _essay(self, q: Question) -> None:
        q.kind = ESSAY
        info = self.el.find("graderinfo")
        if info is not None:
            raw = _raw_text(info)
            files = self.files(info)
            fmt = (info.get("format") or self.text_format).strip().lower()
            for key in ("keywords", "correct-feedback", "incorrect-feedback"):
                m = re.search(rf'<div class="workbench-{key}">(.*?)</div>', raw, re.S)
                if not m:
                    continue
                raw = raw[:m.start()] + raw[m.end():]
                inner = re.sub(r"^\s*<p><strong>[^<]*</strong></p>", "", m[1])
                if key == "keywords":
                    q.keywords = [self.convert(li, "html", files) for li in re.findall(r"<li>(.*?)</li>", inner, re.S)]
                elif key == "correct-feedback":
                    q.correct_feedback = self.convert(inner, "html", files)
                else:
                    q.incorrect_feedback = self.convert(inner, "html", files)
            q.grader_info = self.convert(raw, fmt, files)
        template = self.el.find("responsetemplate")
        if template is not None and _raw_text(template):
            self.notes.append("Moodle gave students a response template; it was left out")

    def _combined_feedback(self, q: Question) -> None:
        q.correct_feedback = self.field(self.el.find("correctfeedback"), self.text_format)
        q.incorrect_feedback = self.field(self.el.find("incorrectfeedback"), self.text_format)
        partly = self.field(self.el.find("partiallycorrectfeedback"), self.text_format)
        if partly and (q.kind == MULTI or any(0 < c.fraction < 1 - GRADE_SLACK for c in q.choices)):
            self.notes.append(f"the feedback for a partly right answer ({partly[:80]}) was left out")

    # -- marks and numbers

    def fractions(self, answers: list[Element]) -> list[float]:
        """Each answer's share of the marks (1.0 = full marks), from Moodle's percentages."""
        percents = []
        for ans in answers:
            child = ans.find("fraction")          # old files: the share itself, 0 to 1
            if child is not None and (child.text or "").strip():
                percents.append(self.number(child.text, "an answer's mark") * 100)
            else:
                percents.append(self.number(ans.get("fraction", "0"), "an answer's mark"))
        if percents and max(percents) == 1 and min(percents) >= -1:
            # Moodle itself never writes a best mark of 1%: this file gave marks from 0 to 1.
            self.notes.append("the file gave marks from 0 to 1 rather than in per cent; 1 was read as full marks")
            percents = [p * 100 for p in percents]
        return [_snap(p / 100) for p in percents]

    def number(self, text: Optional[str], what: str) -> float:
        try:
            value = float((text or "").strip())
        except ValueError:
            raise _Unreadable(f"{what} ({(text or '').strip()!r}) is not a number.") from None
        if value != value or value in (float("inf"), float("-inf")):
            raise _Unreadable(f"{what} ({(text or '').strip()!r}) is not a number.")
        return value

    # -- text and files

    def field(self, el: Optional[Element], default_format: str) -> str:
        """A text field of the question in our form, its files kept as Media of the question."""
        if el is None:
            return ""
        files = self.files(el)
        fmt = (el.get("format") or default_format or "html").strip().lower()
        return self.convert(_raw_text(el), fmt, files)

    def files(self, el: Element) -> dict[str, str]:
        """The <file> elements of a field: their path in the field -> the name of the question's Media."""
        local: dict[str, str] = {}
        for f in el.findall("file"):
            name = (f.get("name") or "").strip()
            folder = (f.get("path") or "/").strip().strip("/")
            if not name:
                self.notes.append("a file with no name was left out")
                continue
            rel = f"{folder}/{name}" if folder else name
            if (f.get("encoding") or "base64").strip().lower() != "base64":
                self.notes.append(f"the file {rel!r} is not in base64; it was left out")
                continue
            try:
                data = base64.b64decode("".join((f.text or "").split()), validate=True)
            except (binascii.Error, ValueError):
                self.notes.append(f"the file {rel!r} could not be decoded; it was left out")
                continue
            local[rel] = self.add_media(rel, data)
        return local

    def add_media(self, wanted: str, data: bytes) -> str:
        """Keep a file once; a different file under a name already taken gets a new name."""
        name, n = wanted, 1
        while True:
            existing = next((m for m in self.media if m.name == name), None)
            if existing is None:
                self.media.append(Media(name, mime_of(name, data), data))
                return name
            if existing.data == data:
                return name
            n += 1
            stem, ext = posixpath.splitext(wanted)
            name = f"{stem}-{n}{ext}"

    def convert(self, raw: str, fmt: str, files: dict[str, str]) -> str:
        """A field's text, in the format it says, as our text."""
        if not raw.strip():
            return ""
        if fmt == "markdown":
            text = re.sub(r"(!\[[^\]]*\]\()\s*@@PLUGINFILE@@/([^)\s]+)\s*\)",
                          lambda m: m[1] + urllib.parse.quote(self._resolve(PLUGINFILE + "/" + m[2], files) or m[2])
                          + ")", raw)
            self._dollar_note(text)
            return tidy_text(tex_to_dollars(text))
        if fmt == "plain_text":
            raw = html.escape(raw, quote=False)
        if fmt in ("plain_text", "moodle_auto_format", "wiki_like"):
            paragraphs = [p for p in re.split(r"\n\s*\n", raw.replace("\r\n", "\n").strip()) if p.strip()]
            raw = "".join(f"<p>{p.strip().replace(chr(10), '<br/>')}</p>" for p in paragraphs)
        for url in outside_media(raw, players=False):      # a player becomes a picture, noted when missing
            self.notes.append(f"the text links to {url}, which is not in the file; the link was left out")
        raw = players_as_pictures(raw)
        missing: list[str] = []

        def image_name(src: str) -> Optional[str]:
            found = self._resolve(src, files)
            if found is None and src:
                missing.append(src)
            return found
        text, _ = from_html(raw, image_name=image_name)
        for src in missing:
            shown = src if len(src) <= 80 else src[:77] + "..."
            self.notes.append(f"the picture or sound at {shown!r} is not in the file; it was left out")
        self._dollar_note(html.unescape(re.sub(r"\\\(.*?\\\)|\\\[.*?\\\]|\$\$.*?\$\$", "", raw, flags=re.S)))
        return text

    def _resolve(self, src: str, files: dict[str, str]) -> Optional[str]:
        src = src.strip()
        if src.startswith(PLUGINFILE):
            rel = urllib.parse.unquote(src[len(PLUGINFILE):].split("?")[0]).strip("/")
            if rel in files:
                return files[rel]
            if any(m.name == rel for m in self.media):
                return rel
            return None
        if src.startswith("data:"):
            decoded = data_uri.decode(src)
            if decoded is None:
                return None
            count = sum(1 for x in self.media if x.name.startswith("picture-")) + 1
            return self.add_media(decoded[2] or f"picture-{count}{data_uri.extension(decoded[0])}", decoded[1])
        bare = urllib.parse.unquote(src.split("?")[0])
        if any(m.name == bare for m in self.media):
            return bare
        return None

    def _dollar_note(self, text: str) -> None:
        if "$" in text and "dollar" not in " ".join(self.notes):
            self.notes.append("the text has dollar signs, which here mark maths; check that they read as meant")


def _snap(fraction: float) -> float:
    """A mark Moodle means as one of its own (0.3333333 is a third) as that exact value; others as they are."""
    for g in ALL_GRADES:
        if abs(fraction - g) < GRADE_SLACK:
            return g
    return fraction
