"""One rule per evaluation method.

Each ``_mark_*`` reads the answer its own way and says whether it is right,
why not in one sentence, and which misconception explains a wrong answer.
``_MARKERS`` maps each of ``METHODS`` to its rule.
"""
from __future__ import annotations

import ipaddress
import re
from fractions import Fraction
from typing import Any, Callable, Optional

from core.marking import choices
from core.marking.algebra import _answer_shape, _compare
from core.marking.answers import _answer_notes, _answer_variables, _parse_answer
from core.marking.expressions import _Refused, _Unreadable
from core.marking.showing import latex_answer as _latex_answer, show_answer as _show_answer
from core.marking.forms import _form_problem, _fraction_form_problem
from core.marking.network import _read_cidr, _read_ipv4
from core.marking.numeric import (_exact_number, _Number, _show_number)
from core.marking.quantities import DEFAULT_RELATIVE_TOLERANCE, mark_numeric  # noqa: F401
from core.marking.precision import as_decimal, round_sig, written_sig_figs
from core.marking.reading import _norm_text
from core.marking.spec import MarkingSpec, _Outcome
from core.marking.text import _compact, _keyword_pattern, list_parts



def _same_exact(answer_norm: str, answer_num: Optional[_Number], other: str) -> bool:
    if _same_text(answer_norm, other):
        return True
    other_num = _exact_number(other) if answer_num is not None else None
    return (other_num is not None and answer_num.percent == other_num.percent
            and answer_num.value == other_num.value)


def _rounded_decimal_of(number: _Number, key: _Number) -> bool:
    """A decimal written to at least 3 s.f. that is the key (a fraction such as -32/9) correctly rounded."""
    if number.kind != "decimal" or key.kind not in ("fraction", "mixed") or number.mantissa is None:
        return False
    figures = written_sig_figs(number.mantissa)[1]
    value, target = as_decimal(number.value), as_decimal(key.value)
    return figures >= 3 and value is not None and target is not None and round_sig(target, figures) == value


def _same_text(answer: str, key: str) -> bool:
    """A one-word key is matched with its capitals (Na is not NA, kJ is not KJ); a key of several
    words ignoring them ("carbon dioxide" for "Carbon dioxide")."""
    if len(_norm_text(key).split()) > 1:
        return _norm_text(answer) == _norm_text(key)
    return _norm_text(answer, keep_case=True) == _norm_text(key, keep_case=True)


def _mark_exact(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    answer = _norm_text(text, keep_case=True)
    number = _exact_number(text)
    shown = _show_number(number.value) if number is not None else answer
    keys = [k for k in [spec.key] + spec.accepted_answers if k.strip()]
    if any(_same_text(text, k) for k in keys):
        return _Outcome(True, "That's right.", shown)
    problem = None
    if number is not None:
        for k in keys:
            k_num = _exact_number(k)
            if (k_num is not None and k_num.percent == number.percent and k_num.value != number.value
                    and _rounded_decimal_of(number, k_num)):
                if spec.required_form in ("fraction", "simplified"):
                    problem = problem or "Your value is right, but give your answer as a fraction."
                    continue
                return _Outcome(True, "That's right.", shown)
            if k_num is None or k_num.percent != number.percent or k_num.value != number.value:
                continue
            if spec.required_form != "simplified" or _fraction_form_problem(k_num, None) is not None:
                return _Outcome(True, "That's right.", shown)
            found = _fraction_form_problem(number, k_num)
            if found is None:
                return _Outcome(True, "That's right.", shown)
            problem = problem or found
    if problem:
        return _Outcome(False, problem, shown, form_failure=True)
    for stype, wrong in spec.misconceptions.items():
        if _same_exact(answer, number, wrong):
            return _Outcome(False, "That's not the right answer.", shown, misconception=stype)
    if any(_norm_text(text) == _norm_text(k) for k in keys):
        return _Outcome(False, "Check your capital letters: this answer must match exactly.", shown)
    return _Outcome(False, "That's not the right answer.", shown)


def _declared(spec: MarkingSpec) -> frozenset[str]:
    """The variables a question uses: those it declares, and those in its key and accepted answers."""
    names = set(spec.variables)
    for text in [spec.key] + spec.accepted_answers:
        try:
            names |= _answer_variables(_parse_answer(text, None, spec.decimal_comma))
        except (_Refused, _Unreadable):
            continue
    return frozenset(names)


def _read_algebraic(spec: MarkingSpec, text: str) -> tuple[Optional[tuple], Optional[_Outcome], frozenset[str]]:
    known = _declared(spec)
    try:
        student = _parse_answer(text, known, spec.decimal_comma)
    except _Refused as exc:
        return None, _Outcome(False, str(exc), refused=str(exc)), known
    except _Unreadable as exc:
        return None, _Outcome(False, str(exc), invalid=True), known
    return student, None, known


def _mark_algebraic(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    student, failed, known = _read_algebraic(spec, text)
    if failed is not None:
        return failed
    notes = list(_answer_notes(text, known, spec.decimal_comma))
    shown = _show_answer(student)
    read = dict(latex=_latex_answer(student), notes=notes)
    keys = [_parse_answer(spec.key, None, spec.decimal_comma)]
    for accepted in spec.accepted_answers:
        try:
            keys.append(_parse_answer(accepted, None, spec.decimal_comma))
        except (_Refused, _Unreadable):
            continue
    names = set(known) | _answer_variables(student)
    positive = spec.assume_positive
    problem = shape_message = None
    undecided = False
    for key in keys:
        same = _compare(student, key, names, positive)
        if isinstance(same, str):
            shape_message = shape_message or same
        elif same is None:
            undecided = True
        elif same:
            found = None
            if student[0] in ("expr", "def") and key[0] in ("expr", "def"):
                found = _form_problem(spec.required_form, student[-1], key[-1])
            if found is None:
                return _Outcome(True, "That's right.", shown, **read)
            problem = problem or found
    shape = _answer_shape(student)
    wrongs = []
    for stype, wrong in spec.misconceptions.items():
        try:
            wrongs.append((stype, _parse_answer(wrong, None, spec.decimal_comma)))
        except (_Refused, _Unreadable):
            continue
    if problem:
        # Right value, wrong form: only a misconception of the same written shape explains it.
        stype = next((t for t, m in wrongs if _answer_shape(m) == shape), None)
        return _Outcome(False, problem, shown, form_failure=True, misconception=stype, **read)
    for stype, m in wrongs:
        # A misconception equivalent to the key is about form and is matched by shape only.
        if _answer_shape(m) == shape or (_compare(m, keys[0], names, positive) is not True
                                         and _compare(student, m, names, positive) is True):
            return _Outcome(False, shape_message or "That's not equal to the right answer.", shown,
                            misconception=stype, **read)
    case = next((n for n in notes if "capital and small letters differ" in n), None)
    if shape_message:
        return _Outcome(False, shape_message, shown, **read)
    if case:
        return _Outcome(False, f"That's not equal to the right answer: {case}", shown, **read)
    if undecided:
        return _Outcome(False, "This expression could not be checked against the answer.", shown, **read)
    return _Outcome(False, "That's not equal to the right answer.", shown, **read)


def _mark_short_text(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    answer = _norm_text(text)
    keys = [k for k in [spec.key] + spec.accepted_answers if k.strip()]
    if any(answer == _norm_text(k) or _compact(answer) == _compact(_norm_text(k)) for k in keys):
        return _Outcome(True, "That's right.", answer)
    listed = list_parts(answer)
    if listed is not None and any(listed == list_parts(_norm_text(k)) for k in keys):
        return _Outcome(True, "That's right.", answer)   # the same things listed in another order or way
    for stype, wrong in spec.misconceptions.items():
        if answer == _norm_text(wrong) or _compact(answer) == _compact(_norm_text(wrong)):
            return _Outcome(False, "That's not the right answer.", answer, misconception=stype)
    if not spec.keywords:
        return _Outcome(False, "That's not the right answer.", answer)
    need = min(spec.min_keywords or len(spec.keywords), len(spec.keywords))
    found = sum(1 for k in spec.keywords if _keyword_pattern(k).search(answer))
    if found >= need:
        return _Outcome(True, "That's right.", answer)
    return _Outcome(False, f"Your answer makes {found} of the {need} key points needed.", answer,
                    earned=Fraction(found, need))


def _mark_ip(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    address = _read_ipv4(text)
    if address is None:
        return _Outcome(False, "That is not a valid IPv4 address.", invalid=True)
    if address == _read_ipv4(spec.key) or any(address == _read_ipv4(k) for k in spec.accepted_answers):
        return _Outcome(True, "That's right.", str(address))
    for stype, wrong in spec.misconceptions.items():
        if address == _read_ipv4(wrong):
            return _Outcome(False, "That's not the right address.", str(address), misconception=stype)
    return _Outcome(False, "That's not the right address.", str(address))


def _mark_cidr(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    network = _read_cidr(text)
    if isinstance(network, str):
        return _Outcome(False, network, invalid=True)
    key = _read_cidr(spec.key)
    if network == key or any(network == _read_cidr(k) for k in spec.accepted_answers):
        return _Outcome(True, "That's right.", str(network))
    for stype, wrong in spec.misconceptions.items():
        if network == _read_cidr(wrong):
            return _Outcome(False, "That's not the right network.", str(network), misconception=stype)
    if isinstance(key, ipaddress.IPv4Interface) and network.ip == key.ip:
        return _Outcome(False, "The address is right but the prefix length is not.", str(network))
    return _Outcome(False, "That's not the right network.", str(network))


def _mcq_choice(spec: MarkingSpec, text: str, raw: Any) -> Optional[int]:
    n = len(spec.options)
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw if 0 <= raw < n else None
    answer = _norm_text(text)
    # Option text first: with options "a".."d" or "0".."3" the student typed an option.
    for i, option in enumerate(spec.options):
        if answer == _norm_text(option):
            return i
    m = re.fullmatch(r"\(?\s*([a-z])\s*[).:]?", answer)
    if m and ord(m.group(1)) - 97 < n:
        return ord(m.group(1)) - 97
    if re.fullmatch(r"[0-9]{1,3}", answer):
        index = int(answer)
        return index if index < n else None
    number = _exact_number(text)
    if number is not None:
        for i, option in enumerate(spec.options):
            o = _exact_number(option)
            if o is not None and o.value == number.value and o.percent == number.percent:
                return i
    return None


def _mark_mcq(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    choice = _mcq_choice(spec, text, raw)
    if choice is None:
        return _Outcome(False, "That is not one of the options.", invalid=True)
    picked = spec.options[choice]
    if choice == spec.correct_index:
        return _Outcome(True, "That's right.", picked)
    misconception = next((s for s, wrong in spec.misconceptions.items()
                          if _norm_text(wrong) == _norm_text(picked)), None)
    return _Outcome(False, "That's not the right option.", picked, misconception=misconception)


def _mark_multiple_response(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    """Choose several: the ticked options' fractions added up, never below 0 or above 1; right at 1."""
    picked, problem = choices.read_letters(text, len(spec.options))
    if problem is not None or picked is None:
        return _Outcome(False, problem or choices.ASK_FOR_LETTERS, invalid=True)
    shares = [choices.share(f) for f in spec.fractions or []]
    right = {i for i, s in enumerate(shares) if s > 0}
    earned = min(max(sum((shares[i] for i in picked), Fraction(0)), Fraction(0)), Fraction(1))
    shown = choices.letters(picked)
    if abs(earned - 1) <= Fraction(1, 10 ** 9):
        return _Outcome(True, "That's right.", shown)
    said = choices.feedback(len(picked), len(right.intersection(picked)), len(right))
    return _Outcome(False, said, shown, earned=earned)


_MARKERS: dict[str, Callable[[MarkingSpec, str, Any], _Outcome]] = {
    "mcq": _mark_mcq, "exact_match": _mark_exact, "numeric_tolerance": mark_numeric,
    "algebraic_equivalence": _mark_algebraic, "short_text": _mark_short_text,
    "ip_address": _mark_ip, "cidr": _mark_cidr, "multiple_response": _mark_multiple_response,
}
