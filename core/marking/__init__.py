"""Marking one student answer against one question.

``mark_answer(spec, answer)`` reads what a student typed (or picked), decides
whether it is right under the question's evaluation method and says why in
one sentence. When it is wrong it tries to name the misconception that
produces exactly that wrong answer, and turns the question's marking criteria
into partial marks and gap tags (the SG_DiagnoseAndPatch step of the design).

Student text is hostile input and is never evaluated. Numbers are read with
anchored regular expressions; expressions go through a whitelist tokeniser
and a small parser written here, so sympy only ever sees trees this package
built. Every size that could make reading or algebra slow is bounded before
any work is done, which is what keeps ``mark_answer`` from hanging.

The modules, roughly in the order an answer meets them:

- ``spec``: the question (MarkingSpec) and the result (MarkResult, CriterionVerdict)
- ``reading``: the answer as clean text; what is not text, or too long, is refused
- ``numeric``: numbers as written, significant figures, tolerance, units
- ``expressions``: whitelist tokeniser, parser to trees, evaluation at sample points
- ``algebra``: equivalence of expressions and equations (sympy, imported on first use)
- ``forms``: simplest fractions; simplified, expanded and factorised expressions
- ``network``: IPv4 addresses and CIDR networks
- ``text``: key points in short written answers
- ``choices``: choose-several questions: the letters ticked, each option's share of the marks
- ``methods``: one marking rule per evaluation method, and the dispatch by method
- ``criteria``: marks and gap tags from the question's criteria
- ``steps``: answers given step by step (one box per step), each step's mark, and follow-through
- ``diagnosis``: what a gap tag or a misconception means, in words a student reads
- ``limits``: every bound on the size of an answer and the work it may cause
"""
from __future__ import annotations

import dataclasses
import re
from typing import Any, Optional

from core.marking.choices import letters as option_letters, options_in_words, read_letters, right_options
from core.marking.criteria import _finish
from core.marking.keys import item_key_problem, key_as_typed, key_problem, spec_key_problem
from core.marking.methods import _MARKERS
from core.marking.reading import _answer_text
from core.marking.spec import (METHODS, CriterionVerdict, MarkingSpec, MarkingSpecError, MarkResult, _Outcome,
                               gap_tags_from_blueprint)
from core.marking.steps import StepVerdict, final_text, is_stepped, mark_steps, step_answers, step_boxes

# Also importable from here, as they were when marking was one module.
from core.marking.criteria import FINAL_MARK_TAGS  # noqa: F401
from core.marking.expressions import Node  # noqa: F401
from core.marking.forms import LIKE_TERMS, NOT_EXPANDED, NOT_FACTORISED, NOT_FULLY_FACTORISED, NOT_SIMPLEST  # noqa: F401
from core.marking.limits import MAX_ANSWER_CHARS, MAX_DECIMAL_EXPONENT, MAX_NUMBER_CHARS, MAX_NUMBER_DIGITS  # noqa: F401
from core.marking.limits import MAX_DEGREE, MAX_EXPONENT, MAX_EXPRESSION_CHARS, MAX_LETTER_EXPONENT  # noqa: F401
from core.marking.limits import MAX_EXPAND_TERMS, MAX_FACTOR_DEGREE, MAX_NESTING, MAX_PARSE_DEPTH  # noqa: F401
from core.marking.methods import DEFAULT_RELATIVE_TOLERANCE  # noqa: F401
from core.marking.reading import NOT_TEXT, TOO_LONG  # noqa: F401
from core.marking.spec import FORMS  # noqa: F401

__all__ = ["METHODS", "evaluate", "MarkingSpec", "MarkingSpecError", "CriterionVerdict", "MarkResult", "mark_answer",
           "read_answer", "AnswerReading", "key_problem", "key_as_typed", "item_key_problem", "spec_key_problem",
           "gap_tags_from_blueprint",
           "mark_steps", "StepVerdict", "step_boxes", "step_answers", "final_text", "is_stepped",
           "option_letters", "options_in_words", "read_letters", "right_options"]

NO_ANSWER = "No answer given."
INTERNAL_ERROR = "The answer could not be marked; please tell your teacher."


def mark_answer(spec: MarkingSpec, answer: Any) -> MarkResult:
    """Mark one answer. Never raises for any student input and always returns promptly."""
    try:
        text, refusal = _answer_text(answer)
        if refusal is not None:
            out = _Outcome(False, refusal, refused=refusal)
        elif not text.strip():
            out = _Outcome(False, NO_ANSWER, invalid=True)
        else:
            out = _MARKERS[spec.method](spec, text, answer)
        return _finish(spec, out)
    except Exception:   # deliberately broad: a marking fault must not end a student's session
        try:
            return _finish(spec, _Outcome(False, INTERNAL_ERROR, refused=INTERNAL_ERROR))
        except Exception:
            return MarkResult(False, 0.0, 0.0, str(getattr(spec, "method", "")), INTERNAL_ERROR, None, [], [],
                              None, INTERNAL_ERROR)


@dataclasses.dataclass
class AnswerReading:
    """How an answer was read, for the preview a student sees before it counts.

    It never says whether the answer is right. When ``valid`` is False,
    ``problem`` says what could not be read and the answer costs nothing.
    """

    valid: bool
    read_as: Optional[str]
    latex: Optional[str]
    problem: Optional[str]
    notes: list[str]

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def read_answer(spec: MarkingSpec, answer: Any) -> AnswerReading:
    """The answer as the marker reads it, without the verdict: the answer preview."""
    result = mark_answer(spec, answer)
    return AnswerReading(result.valid, result.read_as, result.read_as_latex,
                         None if result.valid else result.feedback, list(result.notes))


def evaluate(expression: str, values: Optional[dict[str, float]] = None) -> float:
    """The value of an expression written as a student or key would write it, with named values
    substituted (names are words: letters, digits and _). Raises MarkingSpecError when it cannot be
    read or has no real value. Used to follow an error through: a later step's key recomputed from
    a student's own earlier answer."""
    from core.marking.evaluation import value as _value
    from core.marking.expressions import _parse_expression, _Refused, _Unreadable
    text = str(expression)
    for name in sorted(values or {}, key=len, reverse=True):
        text = re.sub(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", f"({float(values[name])!r})", text)
    try:
        value = _value(_parse_expression(text))
    except (_Refused, _Unreadable) as exc:
        raise MarkingSpecError(f"'{expression}' cannot be read: {exc}") from None
    except (ArithmeticError, ValueError, KeyError) as exc:
        raise MarkingSpecError(f"'{expression}' has no value here: {exc}") from None
    if abs(value.imag) > 1e-9 * max(1.0, abs(value.real)):
        raise MarkingSpecError(f"'{expression}' is not a real number here")
    return float(value.real)


def warm_up() -> None:
    """Load what marking loads on first use (the units registry, about a second; sympy, about half a
    second), so the first student to answer a question with units or algebra does not wait for it."""
    from core.marking.algebra import _sympy
    from core.marking.units import registry
    registry()
    _sympy()
