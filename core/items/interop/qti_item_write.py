"""One question as a QTI 3.0 ``qti-assessment-item``: valid against the 1EdTech schema, read back as written.

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

``qti_write`` puts the items in a package.
"""
from __future__ import annotations

import html
import math
import re
from typing import Optional
from xml.etree.ElementTree import Element, SubElement, tostring

from core.items.interop import safety, text
from core.items.interop.model import (ALGEBRAIC, CHOICE, ESSAY, KINDS, MULTI, NUMERIC, SHORT, InteropError,
                                      Question)
from core.items.interop.qti import (HINT_REQUEST, ILLEGAL_XML,
                                    MARKING_POINTS_CLASS, MATHML_NS, NS, RESPONSE,
                                    SCHEMA_LOCATION, UNITS_CLASS, XSI_NS, local, shortest, snap)
from core.items.mathml import latex_to_text

_DOUBLE = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")     # a number as XML Schema writes one


class CannotWrite(Exception):
    """This question cannot be written; the message says why, for the teacher."""


def element(tag: str, attrs: Optional[dict] = None, *children: Element, text_: Optional[str] = None) -> Element:
    """An element with a plain name (namespaces are written as xmlns attributes)."""
    e = Element(tag, {k: v for k, v in (attrs or {}).items() if v is not None})
    if text_ is not None:
        e.text = text_
    e.extend(children)
    return e


def _var(ident: str) -> Element:
    return element("qti-variable", {"identifier": ident})


def _base(base_type: str, value: str) -> Element:
    return element("qti-base-value", {"base-type": base_type}, text_=value)


def _set(ident: str, expr: Element) -> Element:
    return element("qti-set-outcome-value", {"identifier": ident}, expr)


def _add_feedback(*values: Element) -> Element:
    """FEEDBACK gains these identifiers (it keeps what it already holds)."""
    return _set("FEEDBACK", element("qti-multiple", None, _var("FEEDBACK"), *values))


def _condition(branches: list[tuple[Element, list[Element]]], otherwise: Optional[list[Element]] = None) -> Element:
    cond = element("qti-response-condition")
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


def identifier(raw: str, fallback: str) -> str:
    """A valid QTI identifier (an XML NCName in plain ASCII) made from ``raw``."""
    ident = re.sub(r"[^A-Za-z0-9_.-]+", "-", raw or "").strip("-.")[:80] or fallback
    if not re.match(r"[A-Za-z_]", ident):
        ident = "q-" + ident
    return ident


def serialize(root: Element) -> bytes:
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
        raise CannotWrite(f"{what} cannot be written as XHTML; simplify its formatting.") from None
    _plain_names(root, None)
    return root


def _plain_names(el: Element, parent_ns: Optional[str]) -> None:
    ns = el.tag[1:].split("}", 1)[0] if el.tag.startswith("{") else None
    el.tag = local(el.tag)
    if ns == MATHML_NS and parent_ns != MATHML_NS:
        el.set("xmlns", MATHML_NS)
    elif ns not in (NS, MATHML_NS):
        raise CannotWrite("its text holds markup from an unknown namespace.")
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


def check_question(q: Question) -> None:
    if q.kind not in KINDS:
        raise CannotWrite(f"its kind '{q.kind}' has no QTI equivalent.")
    strings = [q.name, q.stem, q.general_feedback, q.correct_feedback, q.incorrect_feedback, q.grader_info,
               q.units or "", *q.hints, *q.keywords, *q.category, *q.tags]
    strings += [s for c in q.choices + q.answers for s in (c.text, c.feedback)]
    strings += [s for n in q.numbers for s in (n.value, n.feedback)]
    if any(ILLEGAL_XML.search(s or "") for s in strings):
        raise CannotWrite("its text holds control characters that XML cannot carry; remove them and export again.")
    if not (isinstance(q.marks, (int, float)) and math.isfinite(q.marks) and q.marks >= 0):
        raise CannotWrite(f"its mark ({q.marks}) is not a number of marks of 0 or more.")
    if q.kind in (CHOICE, MULTI) and not any(c.fraction > 0 for c in q.choices):
        raise CannotWrite("none of its options is marked right." if q.choices else "it has no options.")
    if q.kind == NUMERIC:
        if not any(n.fraction > 0 for n in q.numbers):
            raise CannotWrite("none of its accepted numbers earns marks." if q.numbers
                              else "it has no accepted number.")
        for n in q.numbers:
            if not _DOUBLE.fullmatch(str(n.value).strip()):
                raise CannotWrite(f"its answer '{n.value}' is not a number QTI can compare.")
            if not math.isfinite(float(n.value)) or not math.isfinite(n.tolerance) or n.tolerance < 0:
                raise CannotWrite(f"its answer '{n.value}' (give or take {n.tolerance}) is not a finite number.")
        if q.relative_tolerance is not None and not (math.isfinite(q.relative_tolerance)
                                                     and q.relative_tolerance >= 0):
            raise CannotWrite(f"its relative tolerance ({q.relative_tolerance}) is not a share of 0 or more.")
    if q.kind in (SHORT, ALGEBRAIC):
        if not any(a.fraction > 0 for a in q.answers):
            raise CannotWrite("none of its accepted answers earns marks." if q.answers
                              else "it has no accepted answer.")
        for a in q.answers:
            if not a.text.strip():
                raise CannotWrite("one of its accepted answers is empty.")
            if re.search(r"[\t\r\n]", a.text):
                raise CannotWrite(f"its accepted answer '{a.text.strip()[:40]}' runs over several lines.")


class ItemWriter:
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
        item = element("qti-assessment-item", {
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
            decl = element("qti-response-declaration", {"identifier": RESPONSE,
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
            decl = element("qti-response-declaration", {"identifier": RESPONSE, "cardinality": "single",
                                                    "base-type": "float"})
            SubElement(SubElement(decl, "qti-correct-response"), "qti-value").text = self.best_number().value.strip()
            out.append(decl)
        elif q.kind in (SHORT, ALGEBRAIC):
            decl = element("qti-response-declaration", {"identifier": RESPONSE, "cardinality": "single",
                                                    "base-type": "string"})
            best = max(q.answers, key=lambda a: a.fraction)
            SubElement(SubElement(decl, "qti-correct-response"), "qti-value").text = best.text
            mapping = SubElement(decl, "qti-mapping", {"default-value": "0"})
            for a in q.answers:
                SubElement(mapping, "qti-map-entry", {"map-key": a.text, "mapped-value": _share(a.fraction, self.scale),
                                                      "case-sensitive": "true" if q.case_sensitive else "false"})
            out.append(decl)
        else:
            out.append(element("qti-response-declaration", {"identifier": RESPONSE, "cardinality": "single",
                                                        "base-type": "string"}))
        if q.hints:
            out.append(element("qti-response-declaration", {"identifier": HINT_REQUEST, "cardinality": "single",
                                                        "base-type": "boolean"}))
        score = element("qti-outcome-declaration", {"identifier": "SCORE", "cardinality": "single",
                                                    "base-type": "float", "normal-maximum": _num(q.marks)})
        if q.kind == ESSAY:
            score.set("external-scored", "human")
        SubElement(SubElement(score, "qti-default-value"), "qti-value").text = "0"
        maxscore = element("qti-outcome-declaration", {"identifier": "MAXSCORE", "cardinality": "single",
                                                   "base-type": "float"})
        SubElement(SubElement(maxscore, "qti-default-value"), "qti-value").text = _num(q.marks)
        out += [score, maxscore]
        if self.has_feedback():
            out.append(element("qti-outcome-declaration", {"identifier": "FEEDBACK", "cardinality": "multiple",
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
            box = element("qti-choice-interaction", {"response-identifier": RESPONSE,
                                                 "shuffle": "true" if q.shuffle else "false",
                                                 "max-choices": "1" if q.kind == CHOICE else "0"})
            for n, (ident, c) in enumerate(zip(self.choice_ids(), q.choices), 1):
                choice = SubElement(box, "qti-simple-choice", {"identifier": ident})
                _move_into(choice, self.html(c.text, f"its option {n}"), inline=True)
            return box
        if q.kind == ESSAY:
            self.interaction = "extendedTextInteraction"
            return element("qti-extended-text-interaction", {"response-identifier": RESPONSE})
        self.interaction = "textEntryInteraction"
        return element("p", None, element("qti-text-entry-interaction", {"response-identifier": RESPONSE}))

    # ---- response processing

    def processing(self) -> Optional[Element]:
        q = self.q
        rules: list[Element] = []
        if q.kind in (CHOICE, MULTI):
            ids = self.choice_ids()
            if self.choice_mapping():
                rules.append(_condition([(element("qti-not", None, element("qti-is-null", None, _var(RESPONSE))),
                                          [_set("SCORE", element("qti-map-response", {"identifier": RESPONSE}))])]))
            else:
                rules.append(_condition([(element("qti-match", None, _var(RESPONSE), element("qti-correct",
                                                                                       {"identifier": RESPONSE})),
                                          [_set("SCORE", _var("MAXSCORE"))])]))
            if any(c.feedback.strip() for c in q.choices):
                rules.append(_set("FEEDBACK", element("qti-multiple", None, _var("FEEDBACK"), _var(RESPONSE))))
                self.modal += [(ident, c.feedback) for ident, c in zip(ids, q.choices) if c.feedback.strip()]
        elif q.kind == NUMERIC:
            rules.append(self.number_rules())
        elif q.kind in (SHORT, ALGEBRAIC):
            rules.append(_condition([(element("qti-not", None, element("qti-is-null", None, _var(RESPONSE))),
                                      [_set("SCORE", element("qti-map-response", {"identifier": RESPONSE}))])]))
            branches = []
            for n, a in enumerate(q.answers, 1):
                if a.feedback.strip():
                    test = element("qti-string-match", {"case-sensitive": "true" if q.case_sensitive else "false"},
                               _var(RESPONSE), _base("string", a.text))
                    branches.append((test, [_add_feedback(_base("identifier", f"ANSWER{n}"))]))
                    self.modal.append((f"ANSWER{n}", a.feedback))
            if branches:
                rules.append(_condition(branches))
        if q.kind != ESSAY and (q.correct_feedback.strip() or q.incorrect_feedback.strip()):
            right = [_add_feedback(_base("identifier", "CORRECT"))] if q.correct_feedback.strip() else []
            wrong = [_add_feedback(_base("identifier", "INCORRECT"))] if q.incorrect_feedback.strip() else []
            rules.append(_condition([(element("qti-gte", None, _var("SCORE"), _var("MAXSCORE")), right)], wrong)
                         if right else _condition([(element("qti-lt", None, _var("SCORE"), _var("MAXSCORE")), wrong)]))
            if q.correct_feedback.strip():
                self.modal.append(("CORRECT", q.correct_feedback))
            if q.incorrect_feedback.strip():
                self.modal.append(("INCORRECT", q.incorrect_feedback))
        if q.general_feedback.strip():
            rules.append(_add_feedback(_base("identifier", "GENERAL")))
            self.modal.append(("GENERAL", q.general_feedback))
        if q.hints:
            hints = [_set("FEEDBACK", element("qti-multiple", None, *[_base("identifier", f"HINT{n}")
                                                                  for n in range(1, len(q.hints) + 1)]))]
            rules = [_condition([(_var(HINT_REQUEST), hints)], rules)]
        if not rules:
            return None
        return element("qti-response-processing", None, *rules)

    def number_rules(self) -> Element:
        q = self.q
        correct = self.best_number().value.strip()
        branches = []
        used_correct = False
        for n, answer in enumerate(q.numbers, 1):
            value = answer.value.strip()
            if value == correct and not used_correct:
                other = element("qti-correct", {"identifier": RESPONSE})
                used_correct = True
            else:
                other = _base("float", value)
            if q.relative_tolerance is not None and q.relative_tolerance > 0:
                percent = _share(q.relative_tolerance, 100.0)
                test = element("qti-equal", {"tolerance-mode": "relative", "tolerance": f"{percent} {percent}"},
                           _var(RESPONSE), other)
            elif answer.tolerance > 0:
                tol = _num(answer.tolerance)
                test = element("qti-equal", {"tolerance-mode": "absolute", "tolerance": f"{tol} {tol}"},
                           _var(RESPONSE), other)
            else:
                test = element("qti-equal", {"tolerance-mode": "exact"}, _var(RESPONSE), other)
            actions = [_set("SCORE", _base("float", _share(answer.fraction, self.scale)))]
            if answer.feedback.strip():
                actions.append(_add_feedback(_base("identifier", f"NUMBER{n}")))
                self.modal.append((f"NUMBER{n}", answer.feedback))
            branches.append((test, actions))
        return _condition(branches)


