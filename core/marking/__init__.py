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
- ``methods``: one marking rule per evaluation method, and the dispatch by method
- ``criteria``: marks and gap tags from the question's criteria
- ``diagnosis``: what a gap tag or a misconception means, in words a student reads
- ``limits``: every bound on the size of an answer and the work it may cause
"""
from __future__ import annotations

from typing import Any

from core.marking.criteria import _finish
from core.marking.methods import _MARKERS
from core.marking.reading import _answer_text
from core.marking.spec import (METHODS, CriterionVerdict, MarkingSpec, MarkingSpecError, MarkResult, _Outcome,
                               gap_tags_from_blueprint)

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

__all__ = ["METHODS", "MarkingSpec", "MarkingSpecError", "CriterionVerdict", "MarkResult", "mark_answer",
           "gap_tags_from_blueprint"]

NO_ANSWER = "No answer given."
INTERNAL_ERROR = "The answer could not be marked; please tell your teacher."


def mark_answer(spec: MarkingSpec, answer: Any) -> MarkResult:
    """Mark one answer. Never raises for any student input and always returns promptly."""
    try:
        text, refusal = _answer_text(answer)
        if refusal is not None:
            out = _Outcome(False, refusal, refused=refusal)
        elif not text.strip():
            out = _Outcome(False, NO_ANSWER)
        else:
            out = _MARKERS[spec.method](spec, text, answer)
        return _finish(spec, out)
    except Exception:   # deliberately broad: a marking fault must not end a student's session
        try:
            return _finish(spec, _Outcome(False, INTERNAL_ERROR, refused=INTERNAL_ERROR))
        except Exception:
            return MarkResult(False, 0.0, 0.0, str(getattr(spec, "method", "")), INTERNAL_ERROR, None, [], [],
                              None, INTERNAL_ERROR)
