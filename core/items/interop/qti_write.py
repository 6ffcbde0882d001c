"""Questions as a QTI 3.0 content package: ``imsmanifest.xml`` and one ``qti-assessment-item`` per question.

Each item is written so that it validates against the 1EdTech QTI 3.0 schema
and reads back as the same question:

- a choice question is a ``qti-choice-interaction`` keyed by its correct
  response; part marks (and several right options) are a ``qti-mapping``;
- a number is a ``qti-text-entry-interaction`` whose response processing
  compares the answer with ``qti-equal`` (absolute, relative or exact
  tolerance), one branch per accepted number so part marks survive;
- a short answer is a text entry with every accepted answer in a mapping;
- an essay is a ``qti-extended-text-interaction`` scored by a person, with
  what the marker looks for in a rubric only scorers see;
- feedback on options, on accepted answers, for right and wrong answers, and
  the explanation are ``qti-modal-feedback`` shown after answering; hints sit
  behind a "Show a hint" button (``qti-end-attempt-interaction``), as the
  specification's own example does.

Items cannot carry arbitrary elements, so a question's provenance, category,
name and tags go into the manifest entry's LOM metadata.
"""
from __future__ import annotations

import hashlib
import html
import io
import math
import re
import urllib.parse
import zipfile
from typing import Optional
from xml.etree.ElementTree import Element, SubElement, tostring

from core.items.interop import safety, text
from core.items.interop.model import (ALGEBRAIC, CHOICE, ESSAY, KINDS, MULTI, NUMERIC, SHORT, InteropError,
                                      Question, Skipped, WriteResult)
from core.items.interop.qti import (CP_NS, CP_SCHEMA_LOCATION, FILENAME, FORMAT, HINT_REQUEST, ILLEGAL_XML,
                                    ITEM_TYPE, LOM_NS, MARKING_POINTS_CLASS, MATHML_NS, NS, QMD_NS, RESPONSE,
                                    SCHEMA_LOCATION, UNITS_CLASS, XSI_NS, local, lom_metadata, shortest, snap)
from core.items.mathml import latex_to_text

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_DOUBLE = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")     # a number as XML Schema writes one
_ZIP_TIME = (2000, 1, 1, 0, 0, 0)


class _Cannot(Exception):
    """This question cannot be written; the message says why, for the teacher."""


def write_qti(questions: list[Question], title: str = "Workbench questions") -> WriteResult:
    package = _Package(title or "Workbench questions")
    written: list[str] = []
    skipped: list[Skipped] = []
    for number, q in enumerate(questions, 1):
        label = q.name or f"question {number}"
        try:
            package.add(q, number)
        except _Cannot as exc:
            skipped.append(Skipped(label, str(exc)))
            continue
        written.append(label)
    return WriteResult(package.zip(), written, skipped, FORMAT, FILENAME)


def _el(tag: str, attrs: Optional[dict] = None, *children: Element, text_: Optional[str] = None) -> Element:
    """An element with a plain name (namespaces are written as xmlns attributes)."""
    e = Element(tag, {k: v for k, v in (attrs or {}).items() if v is not None})
    if text_ is not None:
        e.text = text_
    e.extend(children)
    return e


def _var(ident: str) -> Element:
    return _el("qti-variable", {"identifier": ident})


def _base(base_type: str, value: str) -> Element:
    return _el("qti-base-value", {"base-type": base_type}, text_=value)


def _set(ident: str, expr: Element) -> Element:
    return _el("qti-set-outcome-value", {"identifier": ident}, expr)


def _add_feedback(*values: Element) -> Element:
    """FEEDBACK gains these identifiers (it keeps what it already holds)."""
    return _set("FEEDBACK", _el("qti-multiple", None, _var("FEEDBACK"), *values))


def _condition(branches: list[tuple[Element, list[Element]]], otherwise: Optional[list[Element]] = None) -> Element:
    cond = _el("qti-response-condition")
    for n, (test, rules) in enumerate(branches):
        SubElement(cond, "qti-response-if" if n == 0 else "qti-response-else-if").extend([test, *rules])
    if otherwise:
        SubElement(cond, "qti-response-else").extend(otherwise)
    return cond


def _num(x: float) -> str:
    """A number exactly as it is, in as few digits as that takes ("2", "0.05")."""
    return shortest(x, lambda read: read == float(x))


def _share(fraction: float, scale: float) -> str:
    """``fraction`` of ``scale`` marks, in as few digits as read back (score / scale) still gives ``fraction``."""
    return shortest(fraction * scale, lambda read: snap(read / scale) == fraction)


def _identifier(raw: str, fallback: str) -> str:
    """A valid QTI identifier (an XML NCName in plain ASCII) made from ``raw``."""
    ident = re.sub(r"[^A-Za-z0-9_.-]+", "-", raw or "").strip("-.")[:80] or fallback
    if not re.match(r"[A-Za-z_]", ident):
        ident = "q-" + ident
    return ident


def _serialize(root: Element) -> bytes:
    body = tostring(root, encoding="unicode").replace("\r", "&#13;")
    return ('<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n").encode("utf-8")


def _math(latex: str, display: bool = False) -> str:
    """MathML with its TeX kept; where the converter's MathML is not well-formed, the maths as readable text."""
    made = text.math_as_mathml(latex, display)
    try:
        safety.parse_xml(made.encode("utf-8"), "the maths")
        return made
    except InteropError:
        return (f'<math xmlns="{MATHML_NS}" display="{"block" if display else "inline"}"><semantics><mrow>'
                f'<mtext>{html.escape(latex_to_text(latex), quote=False)}</mtext></mrow>'
                f'<annotation encoding="application/x-tex">{html.escape(latex.strip(), quote=False)}</annotation>'
                f'</semantics></math>')


def _xhtml(source: str, media_url, what: str) -> Element:
    """``source`` (our text) as XHTML inside a <div> whose children go into the item (maths as MathML)."""
    html_text = text.to_html(source, math=_math, media_url=media_url)
    try:
        root = safety.parse_xml(f'<div xmlns="{NS}">{html_text}</div>'.encode("utf-8"), what)
    except InteropError:
        raise _Cannot(f"{what} cannot be written as XHTML; simplify its formatting.") from None
    _plain_names(root, None)
    return root


def _plain_names(el: Element, parent_ns: Optional[str]) -> None:
    ns = el.tag[1:].split("}", 1)[0] if el.tag.startswith("{") else None
    el.tag = local(el.tag)
    if ns == MATHML_NS and parent_ns != MATHML_NS:
        el.set("xmlns", MATHML_NS)
    elif ns not in (NS, MATHML_NS):
        raise _Cannot("its text holds markup from an unknown namespace.")
    for key in [k for k in el.attrib if k.startswith("{") or k.startswith("data-")]:
        del el.attrib[key]                      # the schema profile admits no data-* and no foreign attributes
    for child in el:
        _plain_names(child, ns)


def _move_into(parent: Element, fragment: Element, inline: bool = False) -> None:
    """The content of ``fragment`` appended to ``parent``; ``inline`` unwraps a lone paragraph."""
    if inline and len(fragment) == 1 and fragment[0].tag == "p" and not (fragment.text or "").strip() \
            and not (fragment[0].tail or "").strip():
        fragment = fragment[0]
    if fragment.text:
        if len(parent):
            parent[-1].tail = (parent[-1].tail or "") + fragment.text
        else:
            parent.text = (parent.text or "") + fragment.text
    for child in list(fragment):
        parent.append(child)


# --------------------------------------------------------------------------
# One question


def _check(q: Question) -> None:
    if q.kind not in KINDS:
        raise _Cannot(f"its kind '{q.kind}' has no QTI equivalent.")
    strings = [q.name, q.stem, q.general_feedback, q.correct_feedback, q.incorrect_feedback, q.grader_info,
               q.units or "", *q.hints, *q.keywords, *q.category, *q.tags]
    strings += [s for c in q.choices + q.answers for s in (c.text, c.feedback)]
    strings += [s for n in q.numbers for s in (n.value, n.feedback)]
    if any(ILLEGAL_XML.search(s or "") for s in strings):
        raise _Cannot("its text holds control characters that XML cannot carry; remove them and export again.")
    if not (isinstance(q.marks, (int, float)) and math.isfinite(q.marks) and q.marks >= 0):
        raise _Cannot(f"its mark ({q.marks}) is not a number of marks of 0 or more.")
    if q.kind in (CHOICE, MULTI) and not any(c.fraction > 0 for c in q.choices):
        raise _Cannot("none of its options is marked right." if q.choices else "it has no options.")
    if q.kind == NUMERIC:
        if not any(n.fraction > 0 for n in q.numbers):
            raise _Cannot("none of its accepted numbers earns marks." if q.numbers else "it has no accepted number.")
        for n in q.numbers:
            if not _DOUBLE.fullmatch(str(n.value).strip()):
                raise _Cannot(f"its answer '{n.value}' is not a number QTI can compare.")
            if not math.isfinite(float(n.value)) or not math.isfinite(n.tolerance) or n.tolerance < 0:
                raise _Cannot(f"its answer '{n.value}' (give or take {n.tolerance}) is not a finite number.")
        if q.relative_tolerance is not None and not (math.isfinite(q.relative_tolerance)
                                                     and q.relative_tolerance >= 0):
            raise _Cannot(f"its relative tolerance ({q.relative_tolerance}) is not a share of 0 or more.")
    if q.kind in (SHORT, ALGEBRAIC):
        if not any(a.fraction > 0 for a in q.answers):
            raise _Cannot("none of its accepted answers earns marks." if q.answers else "it has no accepted answer.")
        for a in q.answers:
            if not a.text.strip():
                raise _Cannot("one of its accepted answers is empty.")
            if re.search(r"[\t\r\n]", a.text):
                raise _Cannot(f"its accepted answer '{a.text.strip()[:40]}' runs over several lines.")


class _Item:
    """The ``qti-assessment-item`` for one question."""

    def __init__(self, q: Question, ident: str, media_url):
        self.q = q
        self.ident = ident
        self.media_url = media_url
        self.scale = float(q.marks) if q.marks > 0 else 1.0
        self.modal: list[tuple[str, str]] = []          # (identifier, text) shown after answering
        self.interaction = ""

    def html(self, source: str, what: str) -> Element:
        return _xhtml(source, self.media_url, what)

    def build(self) -> Element:
        q = self.q
        item = _el("qti-assessment-item", {
            "xmlns": NS, "xmlns:xsi": XSI_NS, "xsi:schemaLocation": f"{NS} {SCHEMA_LOCATION}",
            "identifier": self.ident, "title": re.sub(r"\s+", " ", q.name or self.ident).strip() or self.ident,
            "adaptive": "false", "time-dependent": "false"})
        item.extend(self.declarations())
        body = SubElement(item, "qti-item-body")
        _move_into(body, self.html(q.stem, "its question text"))
        body.append(self.interaction_element())
        if q.units and q.kind == NUMERIC:
            SubElement(body[-1], "span", {"class": UNITS_CLASS}).text = q.units
            body[-1][0].tail = " "
        for n, hint in enumerate(q.hints, 1):
            if n == 1:
                SubElement(SubElement(body, "p"), "qti-end-attempt-interaction",
                           {"response-identifier": HINT_REQUEST, "title": "Show a hint"})
            block = SubElement(body, "qti-feedback-block", {"outcome-identifier": "FEEDBACK",
                                                            "identifier": f"HINT{n}", "show-hide": "show",
                                                            "class": "hint"})
            _move_into(SubElement(block, "qti-content-body"), self.html(hint, f"its hint {n}"))
        if q.grader_info.strip() or q.keywords:
            rubric = SubElement(body, "qti-rubric-block", {"use": "scoring", "view": "scorer"})
            content = SubElement(rubric, "qti-content-body")
            _move_into(content, self.html(q.grader_info, "its marking notes"))
            if q.keywords:
                points = SubElement(content, "ul", {"class": MARKING_POINTS_CLASS})
                for keyword in q.keywords:
                    SubElement(points, "li").text = keyword
        processing = self.processing()
        if processing is not None:
            item.append(processing)
        for ident, feedback in self.modal:
            modal = SubElement(item, "qti-modal-feedback", {"outcome-identifier": "FEEDBACK", "show-hide": "show",
                                                           "identifier": ident})
            _move_into(SubElement(modal, "qti-content-body"), self.html(feedback, "its feedback"))
        return item

    # ---- declarations

    def choice_ids(self) -> list[str]:
        n = len(self.q.choices)
        return [chr(65 + i) if n <= 26 else f"CHOICE{i + 1}" for i in range(n)]

    def declarations(self) -> list[Element]:
        q = self.q
        out = []
        if q.kind in (CHOICE, MULTI):
            ids = self.choice_ids()
            multiple = q.kind == MULTI
            decl = _el("qti-response-declaration", {"identifier": RESPONSE,
                                                    "cardinality": "multiple" if multiple else "single",
                                                    "base-type": "identifier"})
            best = max(c.fraction for c in q.choices)
            keyed = [ids[i] for i, c in enumerate(q.choices) if (c.fraction > 0 if multiple else c.fraction == best)]
            correct = SubElement(decl, "qti-correct-response")
            for ident in keyed if multiple else keyed[:1]:
                SubElement(correct, "qti-value").text = ident
            if self.choice_mapping():
                mapping = SubElement(decl, "qti-mapping", {"default-value": "0"})
                if multiple:
                    mapping.set("lower-bound", "0")
                    mapping.set("upper-bound", _num(q.marks))
                for ident, c in zip(ids, q.choices):
                    if c.fraction:
                        SubElement(mapping, "qti-map-entry", {"map-key": ident,
                                                              "mapped-value": _share(c.fraction, self.scale)})
            out.append(decl)
        elif q.kind == NUMERIC:
            decl = _el("qti-response-declaration", {"identifier": RESPONSE, "cardinality": "single",
                                                    "base-type": "float"})
            SubElement(SubElement(decl, "qti-correct-response"), "qti-value").text = self.best_number().value.strip()
            out.append(decl)
        elif q.kind in (SHORT, ALGEBRAIC):
            decl = _el("qti-response-declaration", {"identifier": RESPONSE, "cardinality": "single",
                                                    "base-type": "string"})
            best = max(q.answers, key=lambda a: a.fraction)
            SubElement(SubElement(decl, "qti-correct-response"), "qti-value").text = best.text
            mapping = SubElement(decl, "qti-mapping", {"default-value": "0"})
            for a in q.answers:
                SubElement(mapping, "qti-map-entry", {"map-key": a.text, "mapped-value": _share(a.fraction, self.scale),
                                                      "case-sensitive": "true" if q.case_sensitive else "false"})
            out.append(decl)
        else:
            out.append(_el("qti-response-declaration", {"identifier": RESPONSE, "cardinality": "single",
                                                        "base-type": "string"}))
        if q.hints:
            out.append(_el("qti-response-declaration", {"identifier": HINT_REQUEST, "cardinality": "single",
                                                        "base-type": "boolean"}))
        score = _el("qti-outcome-declaration", {"identifier": "SCORE", "cardinality": "single", "base-type": "float",
                                                "normal-maximum": _num(q.marks)})
        if q.kind == ESSAY:
            score.set("external-scored", "human")
        SubElement(SubElement(score, "qti-default-value"), "qti-value").text = "0"
        maxscore = _el("qti-outcome-declaration", {"identifier": "MAXSCORE", "cardinality": "single",
                                                   "base-type": "float"})
        SubElement(SubElement(maxscore, "qti-default-value"), "qti-value").text = _num(q.marks)
        out += [score, maxscore]
        if self.has_feedback():
            out.append(_el("qti-outcome-declaration", {"identifier": "FEEDBACK", "cardinality": "multiple",
                                                       "base-type": "identifier"}))
        return out

    def choice_mapping(self) -> bool:
        """Whether the options need a mapping: part marks, penalties, several right options."""
        fractions = [c.fraction for c in self.q.choices]
        if self.q.kind == MULTI:
            return True
        return any(f not in (0.0, 1.0) for f in fractions) or fractions.count(1.0) != 1

    def best_number(self):
        return max(self.q.numbers, key=lambda n: n.fraction)

    def has_feedback(self) -> bool:
        q = self.q
        return bool(q.general_feedback.strip() or q.hints or (q.kind != ESSAY and (
            q.correct_feedback.strip() or q.incorrect_feedback.strip()
            or any(c.feedback.strip() for c in q.choices + q.answers)
            or any(n.feedback.strip() for n in q.numbers))))

    # ---- the answer box

    def interaction_element(self) -> Element:
        q = self.q
        if q.kind in (CHOICE, MULTI):
            self.interaction = "choiceInteraction"
            box = _el("qti-choice-interaction", {"response-identifier": RESPONSE,
                                                 "shuffle": "true" if q.shuffle else "false",
                                                 "max-choices": "1" if q.kind == CHOICE else "0"})
            for n, (ident, c) in enumerate(zip(self.choice_ids(), q.choices), 1):
                choice = SubElement(box, "qti-simple-choice", {"identifier": ident})
                _move_into(choice, self.html(c.text, f"its option {n}"), inline=True)
            return box
        if q.kind == ESSAY:
            self.interaction = "extendedTextInteraction"
            return _el("qti-extended-text-interaction", {"response-identifier": RESPONSE})
        self.interaction = "textEntryInteraction"
        return _el("p", None, _el("qti-text-entry-interaction", {"response-identifier": RESPONSE}))

    # ---- response processing

    def processing(self) -> Optional[Element]:
        q = self.q
        rules: list[Element] = []
        if q.kind in (CHOICE, MULTI):
            ids = self.choice_ids()
            if self.choice_mapping():
                rules.append(_condition([(_el("qti-not", None, _el("qti-is-null", None, _var(RESPONSE))),
                                          [_set("SCORE", _el("qti-map-response", {"identifier": RESPONSE}))])]))
            else:
                rules.append(_condition([(_el("qti-match", None, _var(RESPONSE), _el("qti-correct",
                                                                                       {"identifier": RESPONSE})),
                                          [_set("SCORE", _var("MAXSCORE"))])]))
            if any(c.feedback.strip() for c in q.choices):
                rules.append(_set("FEEDBACK", _el("qti-multiple", None, _var("FEEDBACK"), _var(RESPONSE))))
                self.modal += [(ident, c.feedback) for ident, c in zip(ids, q.choices) if c.feedback.strip()]
        elif q.kind == NUMERIC:
            rules.append(self.number_rules())
        elif q.kind in (SHORT, ALGEBRAIC):
            rules.append(_condition([(_el("qti-not", None, _el("qti-is-null", None, _var(RESPONSE))),
                                      [_set("SCORE", _el("qti-map-response", {"identifier": RESPONSE}))])]))
            branches = []
            for n, a in enumerate(q.answers, 1):
                if a.feedback.strip():
                    test = _el("qti-string-match", {"case-sensitive": "true" if q.case_sensitive else "false"},
                               _var(RESPONSE), _base("string", a.text))
                    branches.append((test, [_add_feedback(_base("identifier", f"ANSWER{n}"))]))
                    self.modal.append((f"ANSWER{n}", a.feedback))
            if branches:
                rules.append(_condition(branches))
        if q.kind != ESSAY and (q.correct_feedback.strip() or q.incorrect_feedback.strip()):
            right = [_add_feedback(_base("identifier", "CORRECT"))] if q.correct_feedback.strip() else []
            wrong = [_add_feedback(_base("identifier", "INCORRECT"))] if q.incorrect_feedback.strip() else []
            rules.append(_condition([(_el("qti-gte", None, _var("SCORE"), _var("MAXSCORE")), right)], wrong)
                         if right else _condition([(_el("qti-lt", None, _var("SCORE"), _var("MAXSCORE")), wrong)]))
            if q.correct_feedback.strip():
                self.modal.append(("CORRECT", q.correct_feedback))
            if q.incorrect_feedback.strip():
                self.modal.append(("INCORRECT", q.incorrect_feedback))
        if q.general_feedback.strip():
            rules.append(_add_feedback(_base("identifier", "GENERAL")))
            self.modal.append(("GENERAL", q.general_feedback))
        if q.hints:
            hints = [_set("FEEDBACK", _el("qti-multiple", None, *[_base("identifier", f"HINT{n}")
                                                                  for n in range(1, len(q.hints) + 1)]))]
            rules = [_condition([(_var(HINT_REQUEST), hints)], rules)]
        if not rules:
            return None
        return _el("qti-response-processing", None, *rules)

    def number_rules(self) -> Element:
        q = self.q
        correct = self.best_number().value.strip()
        branches = []
        used_correct = False
        for n, answer in enumerate(q.numbers, 1):
            value = answer.value.strip()
            if value == correct and not used_correct:
                other = _el("qti-correct", {"identifier": RESPONSE})
                used_correct = True
            else:
                other = _base("float", value)
            if q.relative_tolerance is not None and q.relative_tolerance > 0:
                percent = _share(q.relative_tolerance, 100.0)
                test = _el("qti-equal", {"tolerance-mode": "relative", "tolerance": f"{percent} {percent}"},
                           _var(RESPONSE), other)
            elif answer.tolerance > 0:
                tol = _num(answer.tolerance)
                test = _el("qti-equal", {"tolerance-mode": "absolute", "tolerance": f"{tol} {tol}"},
                           _var(RESPONSE), other)
            else:
                test = _el("qti-equal", {"tolerance-mode": "exact"}, _var(RESPONSE), other)
            actions = [_set("SCORE", _base("float", _share(answer.fraction, self.scale)))]
            if answer.feedback.strip():
                actions.append(_add_feedback(_base("identifier", f"NUMBER{n}")))
                self.modal.append((f"NUMBER{n}", answer.feedback))
            branches.append((test, actions))
        return _condition(branches)


# --------------------------------------------------------------------------
# The package


def _href(path: str) -> str:
    return urllib.parse.quote(path, safe="/")


class _Package:
    def __init__(self, title: str):
        self.title = title
        self.files: dict[str, bytes] = {}
        self.media_ids: dict[str, str] = {}              # package path -> resource identifier
        self.used: set[str] = set()
        self.items: list[Element] = []
        self.media_resources: list[Element] = []

    def add(self, q: Question, number: int) -> None:
        _check(q)
        base = _identifier((q.provenance or {}).get("item") or q.name, f"question-{number}")
        ident, n = base, 1
        while ident.lower() in self.used:
            n += 1
            ident = f"{base}-{n}"
        places = self.place_media(q, ident)
        missing: list[str] = []

        def media_url(name: str) -> str:
            if name in places:
                return _href(places[name][len("items/"):])
            if _SCHEME.match(name):
                return name
            missing.append(name)
            return _href("media/" + name)
        item = _Item(q, ident, media_url)
        root = item.build()
        if missing:
            raise _Cannot(f"the picture '{missing[0]}' it shows is not attached to it.")
        body = _serialize(root)
        # committed only now that the item is whole
        self.used.add(ident.lower())
        path = f"items/{ident}.xml"
        self.files[path] = body
        deps = []
        for m in q.media:
            place = places[m.name]
            if place not in self.media_ids:
                rid = f"MEDIA-{len(self.media_ids) + 1}"
                while rid.lower() in self.used:
                    rid += "-file"
                self.used.add(rid.lower())
                self.media_ids[place] = rid
                self.files[place] = m.data
                resource = _el("resource", {"identifier": rid, "type": "webcontent", "href": _href(place)})
                SubElement(resource, "file", {"href": _href(place)})
                self.media_resources.append(resource)
            if self.media_ids[place] not in deps:
                deps.append(self.media_ids[place])
        resource = _el("resource", {"identifier": ident, "type": ITEM_TYPE, "href": _href(path)})
        metadata = SubElement(resource, "metadata")
        qmd = SubElement(metadata, "qtiMetadata", {"xmlns": QMD_NS})
        SubElement(qmd, "timeDependent").text = "false"
        SubElement(qmd, "interactionType").text = item.interaction
        if q.hints:
            SubElement(qmd, "interactionType").text = "endAttemptInteraction"
        SubElement(qmd, "feedbackType").text = "nonadaptive" if item.modal or q.hints else "none"
        SubElement(qmd, "solutionAvailable").text = "true" if q.kind != ESSAY else "false"
        SubElement(qmd, "scoringMode").text = "human" if q.kind == ESSAY else "responseprocessing"
        metadata.append(lom_metadata(q))
        SubElement(resource, "file", {"href": _href(path)})
        for rid in deps:
            SubElement(resource, "dependency", {"identifierref": rid})
        self.items.append(resource)

    def place_media(self, q: Question, ident: str) -> dict[str, str]:
        """Where each of the question's files goes in the package (name -> path)."""
        places: dict[str, str] = {}
        for m in q.media:
            name = m.name or ""
            if (not name.strip() or "/" in name or "\\" in name or name in (".", "..") or ILLEGAL_XML.search(name)
                    or len(name) > 200):
                raise _Cannot(f"its file name '{name}' cannot be stored in a package; rename the file.")
            if name in places:
                raise _Cannot(f"it has two files named '{name}'; rename one.")
            path = f"items/media/{name}"
            if path in self.files and self.files[path] != m.data:
                path = f"items/media/{ident}/{name}"
            places[name] = path
        return places

    def manifest(self) -> bytes:
        digest = hashlib.sha1("\n".join(sorted(self.files)).encode("utf-8")).hexdigest()[:12]
        root = _el("manifest", {"xmlns": CP_NS, "xmlns:xsi": XSI_NS,
                                "xsi:schemaLocation": f"{CP_NS} {CP_SCHEMA_LOCATION}",
                                "identifier": f"MANIFEST-{digest}"})
        metadata = SubElement(root, "metadata")
        SubElement(metadata, "schema").text = "QTI Package"
        SubElement(metadata, "schemaversion").text = "3.0.0"
        lom = SubElement(metadata, "lom", {"xmlns": LOM_NS})
        SubElement(SubElement(SubElement(lom, "general"), "title"), "string").text = ILLEGAL_XML.sub("", self.title)
        SubElement(root, "organizations")
        resources = SubElement(root, "resources")
        resources.extend(self.items + self.media_resources)
        return _serialize(root)

    def zip(self) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for path, data in [("imsmanifest.xml", self.manifest()), *self.files.items()]:
                info = zipfile.ZipInfo(path, date_time=_ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, data)
        return out.getvalue()
