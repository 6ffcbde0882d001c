"""One rule per evaluation method.

Each ``_mark_*`` reads the answer its own way and says whether it is right,
why not in one sentence, and which misconception explains a wrong answer.
``_MARKERS`` maps each of ``METHODS`` to its rule.
"""
from __future__ import annotations

import ipaddress
import math
import re
from fractions import Fraction
from typing import Any, Callable, Optional

from core.marking.algebra import _answer_shape, _compare, _show_answer
from core.marking.expressions import _parse_answer, _Refused, _Unreadable
from core.marking.forms import _form_problem, _fraction_form_problem
from core.marking.network import _read_cidr, _read_ipv4
from core.marking.numeric import (_distance, _exact_number, _Number, _read_number, _show_number, _sig_figs_ok,
                                  _spec_units, _tolerance_text, _unit_key, _within)
from core.marking.reading import _norm_text
from core.marking.spec import MarkingSpec, MarkingSpecError, _Outcome
from core.marking.text import _compact, _keyword_pattern

DEFAULT_RELATIVE_TOLERANCE = 0.02   # the design's "numeric tolerance ±2%"


def _same_exact(answer_norm: str, answer_num: Optional[_Number], other: str) -> bool:
    if answer_norm == _norm_text(other):
        return True
    other_num = _exact_number(other) if answer_num is not None else None
    return (other_num is not None and answer_num.percent == other_num.percent
            and answer_num.value == other_num.value)


def _mark_exact(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    answer = _norm_text(text)
    number = _exact_number(text)
    shown = _show_number(number.value) if number is not None else answer
    keys = [k for k in [spec.key] + spec.accepted_answers if k.strip()]
    if any(answer == _norm_text(k) for k in keys):
        return _Outcome(True, "Correct.", shown)
    problem = None
    if number is not None:
        for k in keys:
            k_num = _exact_number(k)
            if k_num is None or k_num.percent != number.percent or k_num.value != number.value:
                continue
            if spec.required_form != "simplified" or _fraction_form_problem(k_num, None) is not None:
                return _Outcome(True, "Correct.", shown)
            found = _fraction_form_problem(number, k_num)
            if found is None:
                return _Outcome(True, "Correct.", shown)
            problem = problem or found
    if problem:
        return _Outcome(False, problem, shown, form_failure=True)
    for stype, wrong in spec.misconceptions.items():
        if _same_exact(answer, number, wrong):
            return _Outcome(False, "Not the correct answer.", shown, misconception=stype)
    return _Outcome(False, "Not the correct answer.", shown)


def _tolerances(spec: MarkingSpec) -> tuple[Optional[Fraction], Optional[Fraction]]:
    rel, ab = spec.tolerance_relative, spec.tolerance_absolute
    if rel is None and ab is None:
        rel = DEFAULT_RELATIVE_TOLERANCE
    # str() first: Fraction(0.02) would be the binary float, a hair off 2/100.
    return (Fraction(str(rel)) if rel is not None else None, Fraction(str(ab)) if ab is not None else None)


def _mark_numeric(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    key = _read_number(spec.key, latex=True, roots=True)
    if isinstance(key, str):
        raise MarkingSpecError(f"the answer key '{spec.key}' is not a number")
    scale, unit = _spec_units(spec.units)
    percent_ok = key.percent or bool(unit and "%" in unit)
    a = _read_number(text, latex=True, roots=True)
    if isinstance(a, str):
        return _Outcome(False, a)
    if a.percent and not percent_ok:
        return _Outcome(False, "Give the answer as a number, not a percentage.", _show_number(a.value))
    rel, ab = _tolerances(spec)
    value = a.value
    ok = _within(value, key.value, rel, ab)
    if not ok and scale is not None and a.exponent is not None:
        # Asked for in units of 10^-19 J but written out in full as 2.45 × 10^-19 J.
        scaled = value / Fraction(10) ** scale if isinstance(value, Fraction) else value / 10.0 ** scale
        if _within(scaled, key.value, rel, ab):
            ok, value = True, scaled
    shown = _show_number(value)
    wrong_unit = bool(unit and a.unit and _unit_key(a.unit) != _unit_key(unit))
    if ok:
        wanted = spec.significant_figures
        # As with forms, a key that is not itself to that many s.f. does not hold students to it.
        if wanted and _sig_figs_ok(key, wanted) and not _sig_figs_ok(a, wanted):
            return _Outcome(False, f"Within tolerance, but not given to {wanted} significant figures.", shown,
                            form_failure=True)
        return _Outcome(True, f"Correct, but the unit should be {unit}." if wrong_unit else "Correct.", shown)
    best, best_distance = None, math.inf
    for stype, wrong in spec.misconceptions.items():
        m = _read_number(wrong, latex=True, roots=True)
        if isinstance(m, _Number) and _within(value, m.value, rel, ab):
            d = _distance(value, m.value)
            if d < best_distance:
                best, best_distance = stype, d
    feedback = f"Outside the allowed tolerance of {_tolerance_text(rel, ab, unit)}"
    feedback += f", and the unit should be {unit}." if wrong_unit else "."
    return _Outcome(False, feedback, shown, misconception=best)


def _mark_algebraic(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    try:
        student = _parse_answer(text)
    except _Refused as exc:
        return _Outcome(False, str(exc), refused=str(exc))
    except _Unreadable as exc:
        return _Outcome(False, str(exc))
    shown = _show_answer(student)
    keys = [_parse_answer(spec.key)]
    for accepted in spec.accepted_answers:
        try:
            keys.append(_parse_answer(accepted))
        except (_Refused, _Unreadable):
            continue
    problem = shape_message = None
    undecided = False
    for key in keys:
        same = _compare(student, key)
        if isinstance(same, str):
            shape_message = shape_message or same
        elif same is None:
            undecided = True
        elif same:
            found = None
            if student[0] != "eq" and key[0] != "eq":
                found = _form_problem(spec.required_form, student[-1], key[-1])
            if found is None:
                return _Outcome(True, "Correct.", shown)
            problem = problem or found
    shape = _answer_shape(student)
    wrongs = []
    for stype, wrong in spec.misconceptions.items():
        try:
            wrongs.append((stype, _parse_answer(wrong)))
        except (_Refused, _Unreadable):
            continue
    if problem:
        # Right value, wrong form: only a misconception of the same written shape explains it.
        stype = next((t for t, m in wrongs if _answer_shape(m) == shape), None)
        return _Outcome(False, problem, shown, form_failure=True, misconception=stype)
    for stype, m in wrongs:
        # A misconception equivalent to the key is about form and is matched by shape only.
        if _answer_shape(m) == shape or (_compare(m, keys[0]) is not True and _compare(student, m) is True):
            return _Outcome(False, shape_message or "Not equivalent to the correct answer.", shown, misconception=stype)
    if shape_message:
        return _Outcome(False, shape_message, shown)
    if undecided:
        return _Outcome(False, "This expression could not be checked against the answer.", shown)
    return _Outcome(False, "Not equivalent to the correct answer.", shown)


def _mark_short_text(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    answer = _norm_text(text)
    keys = [k for k in [spec.key] + spec.accepted_answers if k.strip()]
    if any(answer == _norm_text(k) or _compact(answer) == _compact(_norm_text(k)) for k in keys):
        return _Outcome(True, "Correct.", answer)
    for stype, wrong in spec.misconceptions.items():
        if answer == _norm_text(wrong) or _compact(answer) == _compact(_norm_text(wrong)):
            return _Outcome(False, "Not the correct answer.", answer, misconception=stype)
    if not spec.keywords:
        return _Outcome(False, "Not the correct answer.", answer)
    need = min(spec.min_keywords or len(spec.keywords), len(spec.keywords))
    found = sum(1 for k in spec.keywords if _keyword_pattern(k).search(answer))
    if found >= need:
        return _Outcome(True, "Correct.", answer)
    return _Outcome(False, f"Your answer makes {found} of the {need} key points needed.", answer,
                    earned=Fraction(found, need))


def _mark_ip(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    address = _read_ipv4(text)
    if address is None:
        return _Outcome(False, "That is not a valid IPv4 address.")
    if address == _read_ipv4(spec.key) or any(address == _read_ipv4(k) for k in spec.accepted_answers):
        return _Outcome(True, "Correct.", str(address))
    for stype, wrong in spec.misconceptions.items():
        if address == _read_ipv4(wrong):
            return _Outcome(False, "Not the correct address.", str(address), misconception=stype)
    return _Outcome(False, "Not the correct address.", str(address))


def _mark_cidr(spec: MarkingSpec, text: str, raw: Any) -> _Outcome:
    network = _read_cidr(text)
    if isinstance(network, str):
        return _Outcome(False, network)
    key = _read_cidr(spec.key)
    if network == key or any(network == _read_cidr(k) for k in spec.accepted_answers):
        return _Outcome(True, "Correct.", str(network))
    for stype, wrong in spec.misconceptions.items():
        if network == _read_cidr(wrong):
            return _Outcome(False, "Not the correct network.", str(network), misconception=stype)
    if isinstance(key, ipaddress.IPv4Interface) and network.ip == key.ip:
        return _Outcome(False, "The address is right but the prefix length is not.", str(network))
    return _Outcome(False, "Not the correct network.", str(network))


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
        return _Outcome(False, "That is not one of the options.")
    picked = spec.options[choice]
    if choice == spec.correct_index:
        return _Outcome(True, "Correct.", picked)
    misconception = next((s for s, wrong in spec.misconceptions.items()
                          if _norm_text(wrong) == _norm_text(picked)), None)
    return _Outcome(False, "That is not the correct option.", picked, misconception=misconception)


_MARKERS: dict[str, Callable[[MarkingSpec, str, Any], _Outcome]] = {
    "mcq": _mark_mcq, "exact_match": _mark_exact, "numeric_tolerance": _mark_numeric,
    "algebraic_equivalence": _mark_algebraic, "short_text": _mark_short_text,
    "ip_address": _mark_ip, "cidr": _mark_cidr,
}
