"""A QTI item's rubric and feedback, matched to what they are for.

Feedback can sit anywhere (modal, block or inline) and is shown when the
response processing sets its identifier. The processing says what each one is
for: the branch that sets it tests the key (right or wrong answer), a
particular option (``qti-member`` / ``qti-match`` against an option), a
number or text answer, a hint button, or some state of the attempt (a
solution seen, a try counted), which a question here cannot have. Where the
processing says nothing, the usual identifiers (CORRECT, INCORRECT, HINT,
SOLUTION) decide, and anything else is kept as the explanation.
"""
from __future__ import annotations

import re
from typing import Optional
from xml.etree.ElementTree import Element

from core.items.interop.model import Question
from core.items.interop.qti import MARKING_POINTS_CLASS, child, children, text_of


class FeedbackReader:
    """The rubric and feedback part of ``qti_read.ItemReader`` (which provides the processing and text helpers)."""

    def read_rubric(self, q: Question, body: Element) -> None:
        notes = []
        for rubric in body.iter("qti-rubric-block"):
            views = (rubric.get("view") or "").split()
            if "scorer" not in views and "tutor" not in views:
                continue
            content = child(rubric, "qti-content-body")
            content = content if content is not None else rubric
            for points in [e for e in content.iter("ul") if MARKING_POINTS_CLASS in (e.get("class") or "").split()]:
                q.keywords += [text_of(li).strip() for li in points.iter("li") if text_of(li).strip()]
                points.clear()
                points.tag = "span"
            part = self.our_text(self.html(content))
            if part:
                notes.append(part)
        q.grader_info = "\n\n".join(notes)

    def feedback_roles(self, hint_ids: set) -> dict[str, tuple]:
        """What each feedback identifier is for, from the branches of the response processing that set it."""
        roles: dict[str, tuple] = dict(self.answer_feedback)
        right_tests = []
        for branch in self.branches:
            test = branch.test
            option = self.option_test(test)
            if test is not None and test.tag == "qti-variable" and test.get("identifier") in hint_ids:
                role: Optional[tuple] = ("hint",)
            elif test is not None and test.tag == "qti-variable" and test.get("identifier") in self.outcomes:
                role = ("state",)                        # shown after something happened in the attempt
            elif option is not None:
                role = ("option", option)
            elif test is not None and self.is_right_test(test):
                right_tests.append(test)
                role = ("correct",)
            elif test is not None and (self.numeric_test(test) or self.string_test(test)):
                right_tests.append(test)                 # its else is for answers that earn nothing
                role = None
            elif test is None and any(t in right_tests for t in branch.prior):
                role = ("incorrect",)
            else:
                role = None
            if role is not None:
                for ident in self.feedback_ids(branch):
                    roles.setdefault(ident, role)
        return roles

    def option_test(self, test: Optional[Element]) -> Optional[str]:
        """The option a test asks about ("is B among the answers", "is the answer B"), or None."""
        if test is None or test.tag not in ("qti-member", "qti-match", "qti-contains") or len(test) != 2:
            return None
        values = [(o.text or "").strip() for o in test if o.tag == "qti-base-value"
                  and (o.get("base-type") or "identifier") == "identifier"]
        if len(values) == 1 and values[0] in self.choice_ids and any(self.is_response(o) for o in test):
            return values[0]
        return None

    def read_feedback(self, q: Question, body: Element, hint_ids: set) -> None:
        roles = self.feedback_roles(hint_ids)
        choice_ids = set(self.choice_ids)
        general, hints, right, wrong = [], [], [], []
        choice_feedback: dict[str, list[str]] = {}
        in_choice = {id(f) for o in body.iter("qti-simple-choice") for f in o.iter("qti-feedback-inline")}
        elements = [e for e in body.iter() if e.tag in ("qti-feedback-block", "qti-feedback-inline")]
        elements += children(self.root, "qti-modal-feedback")
        for element in elements:
            if id(element) in in_choice:
                continue
            content = self.content_text(element)
            if not content:
                continue
            if (element.get("show-hide") or "show").lower() == "hide":
                self.notes.append("feedback shown only when a condition does not hold was left out")
                continue
            ident = element.get("identifier") or ""
            plain = re.sub(r"[^A-Z]", "", ident.upper())
            role = roles.get(ident)
            if ident in choice_ids or (role and role[0] == "option"):
                choice_feedback.setdefault(ident if ident in choice_ids else role[1], []).append(content)
            elif role == ("state",):
                self.notes.append(f"the feedback shown only at some point of an attempt was left out "
                                  f"({content[:80]})")
            elif "SOLUTION" in plain:                   # a worked solution, even behind a button: the explanation
                general.append(content)
            elif plain.startswith("HINT") or (role and role[0] == "hint"):
                hints.append(content)
            elif plain in ("CORRECT", "RIGHT", "FEEDBACKCORRECT", "CORRECTFEEDBACK") or role == ("correct",):
                right.append(content)
            elif plain in ("INCORRECT", "WRONG", "FEEDBACKINCORRECT", "INCORRECTFEEDBACK") or role == ("incorrect",):
                wrong.append(content)
            elif role and role[0] in ("number", "answer"):
                answer = (q.numbers if role[0] == "number" else q.answers)[role[1]]
                answer.feedback = "\n\n".join(p for p in (answer.feedback, content) if p)
            else:
                general.append(content)
        for ident, parts in choice_feedback.items():
            index = self.choice_ids.index(ident)
            choice = q.choices[index]
            choice.feedback = "\n\n".join(p for p in (choice.feedback, *parts) if p)
        q.general_feedback = "\n\n".join(general)
        q.correct_feedback = "\n\n".join(right)
        q.incorrect_feedback = "\n\n".join(wrong)
        q.hints = hints

    def is_right_test(self, test: Element) -> bool:
        """A test that holds when the answer is right: the key matches, or the score reaches the maximum."""
        operands = list(test)
        if test.tag == "qti-match" and len(operands) == 2:
            return any(self.is_response(o) for o in operands) and any(o.tag == "qti-correct" for o in operands)
        if test.tag in ("qti-gte", "qti-equal") and len(operands) == 2:
            names = [o.get("identifier") for o in operands if o.tag == "qti-variable"]
            return names == ["SCORE", "MAXSCORE"]
        return False
