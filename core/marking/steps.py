"""Method marks: an answer given step by step, with an error carried forward.

A question's marking criteria may carry their own answer keys (``answer_key``
in the criterion): the student then answers each such step in its own box, the
last being the final answer. ``mark_steps`` awards each step's mark on its
own: a right step earns it; a wrong step with a ``follow_through`` formula
(written over the names of earlier steps, everything else already a number)
earns it when it is what that formula gives from the student's *own* earlier
values ("follows correctly from your step 1"), as an SQA marker gives it.
Criteria without a key of their own (a strategy mark, a communication mark)
are marked from the final answer exactly as ``mark_answer`` marks them, so a
right final answer alone still earns every mark.

Answers are a mapping from the criterion's index in ``spec.criteria`` (an
int, or its digits as text, as JSON keys come back), the step's ``name``, or
``"final"`` for the last box, to the text the student wrote. A plain answer
(not a mapping) is the final answer alone and is marked by ``mark_answer``.
"""
from __future__ import annotations

import dataclasses
import math
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any, Mapping, Optional

from core.marking.spec import CriterionVerdict, MarkingSpec, MarkingSpecError, MarkResult

STEP_METHODS = ("numeric_tolerance", "exact_match", "algebraic_equivalence")
FINAL = "final"
NO_STEP_ANSWER = "No answer given for this step."
# Words the marker reads as functions or constants, never as a step's name.
_MARKER_WORDS = frozenset({"sqrt", "sin", "cos", "tan", "exp", "log", "ln", "pi", "e"})
_WORD = re.compile(r"(?<![A-Za-z0-9_.])[A-Za-z_][A-Za-z0-9_]*")


@dataclasses.dataclass
class StepVerdict(CriterionVerdict):
    """A criterion's verdict with what the student wrote for it and what the marker says about it."""

    number: Optional[int] = None          # the answer box (1, 2, ...); None for a criterion without a box
    answer: Optional[str] = None          # the student's text for the step, when they gave one
    feedback: str = ""
    follow_through: bool = False          # earned by following correctly from the student's own earlier values
    final: bool = False                   # the box is the final answer


# --------------------------------------------------------------------------
# What a stepped question asks for


def step_indexes(criteria: list[dict]) -> list[int]:
    """Indexes of the criteria with their own answer key: the answer boxes, the last being the final answer."""
    return [i for i, c in enumerate(criteria or []) if isinstance(c, dict) and c.get("answer_key") is not None]


def is_stepped(spec_or_criteria: Any) -> bool:
    criteria = getattr(spec_or_criteria, "criteria", spec_or_criteria)
    return bool(step_indexes(criteria or []))


def step_boxes(criteria: list[dict]) -> list[dict]:
    """The answer boxes a student sees, in order: no keys, just what each step asks for and its marks."""
    indexes = step_indexes(criteria)
    return [{"index": i, "number": n, "step": criteria[i].get("step") or f"Step {n}", "marks": criteria[i]["marks"],
             "final": i == indexes[-1]} for n, i in enumerate(indexes, 1)]


def step_spec(spec: MarkingSpec, index: int, key: Optional[str] = None) -> MarkingSpec:
    """How one step's own answer is marked: its method and tolerance (the question's unless it sets them)."""
    c = spec.criteria[index]
    method = c.get("method") or (spec.method if spec.method in STEP_METHODS else "exact_match")
    tol = c.get("tolerance") or {}
    rel, ab = tol.get("relative"), tol.get("absolute")
    if method == "numeric_tolerance" and not tol and spec.method == "numeric_tolerance":
        rel, ab = spec.tolerance_relative, spec.tolerance_absolute
    # How the class writes and which letters are variables carry over to every box.
    extra = {name: getattr(spec, name) for name in ("decimal_comma", "variables", "assume_positive")
             if getattr(spec, name, None)}
    return MarkingSpec(method=method, key=c["answer_key"] if key is None else key,
                       answer_type="expression" if method == "algebraic_equivalence" else spec.answer_type,
                       tolerance_relative=rel, tolerance_absolute=ab, marks=c["marks"], **extra)


def follow_through_names(text: str) -> list[str]:
    """The step names a follow-through formula uses, in order of first use."""
    return list(dict.fromkeys(w for w in _WORD.findall(text) if w not in _MARKER_WORDS))


def number_text(value: float) -> str:
    """A number the marker reads back exactly as meant: no exponent notation, negatives bracketed."""
    if isinstance(value, Fraction):
        text = f"({value.numerator}/{value.denominator})" if value.denominator != 1 else str(value.numerator)
    else:
        value = float(value)
        if not math.isfinite(value):
            raise MarkingSpecError(f"{value!r} is not a finite number")
        if value.is_integer() and abs(value) < 1e15:
            text = str(int(value))
        else:
            text = format(Decimal(repr(value)), "f")
            if "." in text:
                text = text.rstrip("0").rstrip(".")
    return f"({text})" if text.startswith("-") or text.startswith("(-") else text


def recompute(text: str, values: Mapping[str, float]) -> float:
    """A follow-through formula's value with the given step values put in for its names."""
    from core.marking import evaluate

    def put(m: re.Match) -> str:
        name = m.group(0)
        if name in values:
            return f"({number_text(values[name])})"
        return name

    return evaluate(_WORD.sub(put, text))


def check_steps(spec: MarkingSpec) -> None:
    """Refuse step keys that could not be marked: raises MarkingSpecError saying which step and why.

    Each step's key must be readable by its method; names must be unique
    identifiers; a follow-through formula may only use earlier steps' names,
    must give the step's own key from the earlier steps' keys, and needs the
    numeric method; the last step's key must be right by the question's own key.
    """
    from core.marking import mark_answer
    indexes = step_indexes(spec.criteria)
    if not indexes:
        return
    if spec.method not in STEP_METHODS:
        raise MarkingSpecError(f"a question marked by '{spec.method}' cannot ask for its steps")
    names: dict[str, int] = {}
    keys: dict[str, float] = {}
    for number, i in enumerate(indexes, 1):
        c = spec.criteria[i]
        try:
            sub = step_spec(spec, i)
        except MarkingSpecError as exc:
            raise MarkingSpecError(f"step {number} ('{c['step']}'): {exc}") from None
        follow = c.get("follow_through")
        if follow is not None:
            if sub.method != "numeric_tolerance":
                raise MarkingSpecError(f"step {number} ('{c['step']}') has a follow-through formula but is not "
                                       f"marked numerically")
            used = follow_through_names(follow)
            unknown = [n for n in used if n not in names]
            if unknown:
                raise MarkingSpecError(f"step {number}'s follow-through uses {', '.join(unknown)}, which is not "
                                       f"the name of an earlier step")
            if not used:
                raise MarkingSpecError(f"step {number}'s follow-through '{follow}' uses no earlier step")
            missing = [n for n in used if n not in keys]
            if missing:
                raise MarkingSpecError(f"step {number}'s follow-through uses {', '.join(missing)}, whose key is "
                                       f"not a number")
            try:
                value = recompute(follow, keys)
                agrees = mark_answer(step_spec(spec, i), number_text(value)).correct
            except MarkingSpecError as exc:
                raise MarkingSpecError(f"step {number}'s follow-through '{follow}' cannot be worked out from the "
                                       f"earlier steps' keys: {exc}") from None
            if not agrees:
                raise MarkingSpecError(f"step {number}'s follow-through '{follow}' gives {number_text(value)} from "
                                       f"the earlier steps' keys, not the step's key {c['answer_key']}")
        name = c.get("name")
        if name is not None:
            if name in names:
                raise MarkingSpecError(f"step name '{name}' is used by steps {names[name]} and {number}")
            names[name] = number
            value = _value(c["answer_key"])
            if value is not None:
                keys[name] = value
    last = spec.criteria[indexes[-1]]
    final = dataclasses.replace(spec, criteria=[], significant_figures=None, decimal_places=None, required_form="any",
                                units=None)
    if not mark_answer(final, last["answer_key"]).correct:
        raise MarkingSpecError(f"the last step's key '{last['answer_key']}' does not agree with the question's "
                               f"answer key '{spec.key}'")


# --------------------------------------------------------------------------
# Marking


def step_answers(spec: MarkingSpec, answers: Any) -> dict[int, str]:
    """{criterion index: text} from answers keyed by index, digits, step name or "final"; others are ignored."""
    indexes = step_indexes(spec.criteria)
    if not isinstance(answers, Mapping):
        return {indexes[-1]: _text(answers)} if indexes and answers is not None else {}
    by_name = {spec.criteria[i]["name"]: i for i in indexes if spec.criteria[i].get("name")}
    out: dict[int, str] = {}
    for key, text in answers.items():
        if text is None:
            continue
        index: Optional[int] = None
        if isinstance(key, int) and not isinstance(key, bool):
            index = key
        elif isinstance(key, str):
            k = key.strip()
            if k.isdigit():
                index = int(k)
            elif k == FINAL and indexes:
                index = indexes[-1]
            else:
                index = by_name.get(k)
        if index in indexes:
            out[index] = _text(text)
    return out


def final_text(spec: MarkingSpec, answers: Any) -> str:
    """The final answer in a set of step answers (the answer itself when it is not a mapping)."""
    if not isinstance(answers, Mapping):
        return "" if answers is None else _text(answers)
    indexes = step_indexes(spec.criteria)
    if not indexes:
        value = answers.get(FINAL)
        return "" if value is None else _text(value)
    return step_answers(spec, answers).get(indexes[-1], "")


def mark_steps(spec: MarkingSpec, answers: Any) -> MarkResult:
    """Mark a stepped answer: each step's mark on its own, with follow-through from the student's own values.

    ``correct`` says whether the final answer is right; ``score`` adds up the
    marks earned; ``criteria`` holds a ``StepVerdict`` per criterion with the
    student's text and the marker's words for that step.
    """
    from core.marking import mark_answer
    if not isinstance(answers, Mapping):
        return mark_answer(spec, answers)
    indexes = step_indexes(spec.criteria)
    final_result = mark_answer(spec, final_text(spec, answers))
    if not indexes:
        return final_result
    given = step_answers(spec, answers)
    final_index = indexes[-1]
    numbers = {i: n for n, i in enumerate(indexes, 1)}
    baseline = list(final_result.criteria)
    values: dict[str, float] = {}       # the student's own value for each named step they answered
    right_by_name: dict[str, bool] = {}   # whether each named step was right against its own key
    verdicts: list[StepVerdict] = []
    any_follow = False
    unreadable: list[tuple[int, str]] = []   # boxes with text the marker could not read: (number, why)
    for i, c in enumerate(spec.criteria):
        base = baseline[i] if i < len(baseline) else CriterionVerdict(c["step"], c["marks"], 0, False, c["gap_tag"])
        fields = dict(step=c["step"], marks=c["marks"], gap_tag=c["gap_tag"])
        if i not in numbers:
            verdicts.append(StepVerdict(**fields, awarded=base.awarded, met=base.met))
            continue
        number, final = numbers[i], i == final_index
        text = given.get(i, "")
        if not text.strip():
            said = NO_STEP_ANSWER
            if base.met and base.awarded:
                said += " Its mark comes from your final answer."
            verdicts.append(StepVerdict(**fields, awarded=base.awarded, met=base.met, number=number, feedback=said,
                                        final=final))
            continue
        # Each box is marked on its value; the final answer's form, units and rounding are the question's
        # own criteria (as mark_answer marks them), so a right value in the wrong form still earns this step.
        result = mark_answer(step_spec(spec, i), text)
        if not result.valid:
            unreadable.append((number, result.feedback))
        value = _value(text, result)
        met, follow, said = result.correct, False, (final_result.feedback if final else result.feedback)
        if not met and final_result.correct:
            met, said = True, f"{said} Your final answer is right, so this step's mark is given."
        elif not met and c.get("follow_through") and result.refused is None:
            follow, said = _follow_through(spec, i, c["follow_through"], text, values, right_by_name, numbers, said)
            met = follow
        verdicts.append(StepVerdict(**fields, awarded=c["marks"] if met else 0, met=met, number=number, answer=text,
                                    feedback=said, follow_through=follow, final=final))
        any_follow = any_follow or follow
        if c.get("name"):
            right_by_name[c["name"]] = result.correct
            if value is not None:
                values[c["name"]] = value
    score = float(sum(v.awarded for v in verdicts))
    gap_tags: list[str] = []
    for v in verdicts:
        if not v.met and v.gap_tag and v.gap_tag not in gap_tags:
            gap_tags.append(v.gap_tag)
    tag = spec.misconception_tags.get(final_result.misconception) if final_result.misconception else None
    if tag and tag not in gap_tags:
        gap_tags.append(tag)
    feedback = final_result.feedback
    if not given.get(final_index, "").strip():
        feedback = "No final answer given."
    if not final_result.correct and score:
        feedback += f" Your steps earn {score:g} of {spec.max_score} marks."
        if any_follow:
            feedback += " Some steps follow correctly from your own earlier values."
    # Like a single answer, a set of steps is not read (so costs nothing) when nothing was written or a box
    # holds text the marker cannot read; the feedback then says which box.
    valid = any(text.strip() for text in given.values()) and not unreadable
    if unreadable:
        feedback = " ".join(f"Step {n} could not be read: {why}" for n, why in unreadable)
    return dataclasses.replace(final_result, score=score if not final_result.correct else float(spec.max_score),
                               criteria=verdicts, gap_tags=[] if final_result.correct else gap_tags,
                               feedback=feedback, valid=valid)


def _follow_through(spec: MarkingSpec, index: int, formula: str, text: str, values: dict[str, float],
                    right_by_name: dict[str, bool], numbers: dict[int, int], said: str) -> tuple[bool, str]:
    """(earned, feedback) for a wrong step re-marked against the value its formula gives from the student's values."""
    from core.marking import mark_answer
    used = follow_through_names(formula)
    if not used or any(n not in values for n in used) or all(right_by_name.get(n, True) for n in used):
        # Nothing to carry forward: an earlier step is unanswered or unreadable, or every one was right.
        return False, said
    try:
        expected = recompute(formula, values)
        earned = mark_answer(step_spec(spec, index, key=number_text(expected)), text).correct
    except MarkingSpecError:
        return False, said
    if not earned:
        return False, said
    by_name = {spec.criteria[i].get("name"): n for i, n in numbers.items()}
    steps = [by_name[n] for n in used if not right_by_name.get(n, True) and n in by_name]
    which = " and ".join(str(n) for n in steps)
    return True, f"This follows correctly from your step{'s' if len(steps) > 1 else ''} {which}."


def _value(text: str, result: Optional[MarkResult] = None) -> Optional[float]:
    """The number a student's step answer stands for, or None when it is not one."""
    from core.marking import evaluate
    from core.marking.numeric import _read_number
    for candidate in (text, getattr(result, "normalised_answer", None)):
        if not candidate or not str(candidate).strip():
            continue
        number = _read_number(str(candidate), latex=True, roots=True)   # 6.63e-34, 3/4, 12 m
        if not isinstance(number, str):
            return float(number.value)
        try:
            return evaluate(str(candidate))                              # 40/(1 - 0.15)
        except (MarkingSpecError, ValueError, TypeError, ArithmeticError):
            continue
    return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)
