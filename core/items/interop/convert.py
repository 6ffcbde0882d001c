"""Our items as exchange questions, and exchange questions as draft items: the one place the two meet.

Going out, an item becomes the question the formats can hold: a choice with
its keyed option, a number with its tolerance, short answers with every form
we accept, an essay where our marking (key points) has no equivalent. What no
format can hold faithfully is skipped with the reason. Every question carries
its provenance (item, blueprint, version, level, seed, and how we mark it), so
an exported question can be traced back and reads back whole.

Coming in, a question becomes a draft item awaiting review. Its key is checked
by our marker before it is stored: a question whose key the marker cannot use
is skipped with the reason, never stored. What reading changed (a part-mark
option, a case-sensitive answer) is kept with the item for the reviewer.
"""
from __future__ import annotations

import datetime as _dt
import hashlib
import itertools
import json
import math
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any, Callable, Optional, Union

from core.items.generator import Item, normalise_text
from core.items.interop.model import (ALGEBRAIC, CHOICE, ESSAY, MULTI, NUMERIC, SHORT, Choice, Media,
                                      NumericAnswer, Question, Skipped)
from core.marking import DEFAULT_RELATIVE_TOLERANCE, item_key_problem

# Provenance keys written with every exported question (all text).
PROVENANCE = ("item", "blueprint", "version", "level", "seed", "source", "subject", "course_level", "outcomes",
              "skills", "calculator", "item_type", "answer_type", "method", "key", "accepted", "tolerance_relative",
              "tolerance_absolute", "significant_figures", "decimal_places", "required_form", "keywords",
              "min_keywords", "difficulty_value", "criteria")
MAX_SPELLINGS = 24
_LEVELS = {"nat3": "Nat 3", "national3": "Nat 3", "nat4": "Nat 4", "national4": "Nat 4", "nat5": "Nat 5",
           "national5": "Nat 5", "n5": "Nat 5", "higher": "Higher", "advancedhigher": "Advanced Higher",
           "ah": "Advanced Higher"}


# --------------------------------------------------------------------------
# Out


def item_to_question(item: Item, option_feedback: Optional[dict[str, str]] = None,
                     draw: Optional[Callable[[dict], Optional[bytes]]] = None) -> Union[Question, Skipped]:
    """The exchange question for an item, or why it cannot be exported.

    ``option_feedback`` maps a distractor strategy to what choosing it shows
    ("squared the diameter instead of the radius"); ``draw`` gives an item's
    diagram as an SVG picture (so the figure travels with the question).
    """
    ev = item.evaluation or {}
    method = ev.get("method") or "exact_match"
    tol = ev.get("tolerance") or {}
    provenance = _provenance(item, method, tol)
    stem, media = item.stem, [Media.from_json(m) for m in item.media or []]
    if item.diagram and draw is not None:
        svg = draw(item.diagram)
        if svg:
            name = f"{_safe_name(item.id)}-figure.svg"
            media.append(Media(name, "image/svg+xml", svg))
            stem = f"{stem}\n\n![Figure for the question, not drawn to scale]({name})"
    q = Question(kind=CHOICE, name=item.id, stem=stem, shuffle=bool(item.options_shuffled) or not item.options,
                 units=item.units or None, general_feedback=item.explanation or "", hints=list(item.hints or []),
                 marks=float(item.marks or 1), category=[c for c in (item.subject, item.level, _skill(item)) if c],
                 provenance=provenance, media=media)
    key = str(item.correct_answer)
    if item.item_type == "multiple_response" and item.options:
        fractions = list(ev.get("fractions") or [])
        if len(fractions) != len(item.options):
            return Skipped(item.id, "its options have no marks of their own, so the file could not say which "
                                    "are right.")
        q.kind = MULTI
        q.choices = [Choice(opt, float(f)) for opt, f in zip(item.options, fractions)]
        q.shuffle = bool(item.options_shuffled)
        return q
    if item.options and item.correct_index is not None:
        feedback = option_feedback or {}
        strategies = list(item.option_strategies or [])
        q.choices = [Choice(opt, 1.0 if i == item.correct_index else 0.0,
                            feedback.get(strategies[i], "") if i < len(strategies) and strategies[i] else "")
                     for i, opt in enumerate(item.options)]
        q.shuffle = bool(item.options_shuffled)
        return q
    if method == "short_text" and ev.get("keywords"):
        q.kind = ESSAY
        points = list(ev["keywords"])
        need = min(int(ev.get("min_keywords") or len(points)), len(points))
        q.keywords = points
        q.grader_info = (f"A right answer makes {need} of these {len(points)} points: " + "; ".join(points) +
                         f". Model answer: {key}")
        return q
    if method == "numeric_tolerance":
        value = _decimal_text(key, approximate=True)
        if value is None:
            return Skipped(item.id, f"its answer {key!r} is not a plain number, which these formats need for a "
                                    f"numeric question.")
        rel, ab = tol.get("relative"), tol.get("absolute")
        if isinstance(ab, str):
            return Skipped(item.id, f"its tolerance is given with units ({ab}), which these formats cannot hold.")
        if rel is None and ab is None:
            rel = DEFAULT_RELATIVE_TOLERANCE     # what the marker uses when the item sets none
        width = max(float(ab or 0), abs(float(value)) * float(rel or 0))
        q.kind = NUMERIC
        q.relative_tolerance = float(rel) if rel is not None and ab is None else None
        q.numbers = [NumericAnswer(value, _round_tolerance(width), 1.0)]
        return q
    if item.item_type == "numeric" or (item.answer_type in ("integer", "decimal") and method == "exact_match"):
        value = _decimal_text(key)
        if value is not None:
            q.kind = NUMERIC
            q.numbers = [NumericAnswer(value, 0.0, 1.0)]
            return q
    forms = [key] + [a for a in item.accepted_answers or [] if a != key]
    if method == "algebraic_equivalence":
        spellings = expression_spellings(forms)
        if spellings is None:
            return Skipped(item.id, "it accepts any expression equal to its answer, and there are too many ways to "
                                    "write that one for a list of short answers to mark fairly.")
        q.kind = ALGEBRAIC
        q.answers = [Choice(s, 1.0) for s in spellings]
        return q
    q.kind = SHORT
    q.answers = [Choice(a, 1.0) for a in forms if a.strip()]
    return q


def _provenance(item: Item, method: str, tol: dict) -> dict:
    ev = item.evaluation or {}
    criteria = (item.marking_scheme or {}).get("criteria") or []
    values: dict[str, Any] = {
        "item": item.id, "blueprint": item.blueprint_id, "version": item.blueprint_version,
        "level": item.difficulty_level, "seed": item.seed, "source": item.source, "subject": item.subject,
        "course_level": item.level, "outcomes": ",".join(item.outcome_ids or []) or None,
        "skills": ",".join(item.skill_ids or []) or None, "calculator": item.calculator,
        "item_type": item.item_type, "answer_type": item.answer_type, "method": method,
        "key": item.correct_answer, "accepted": json.dumps(item.accepted_answers) if item.accepted_answers else None,
        "tolerance_relative": tol.get("relative"), "tolerance_absolute": tol.get("absolute"),
        "significant_figures": ev.get("significant_figures"), "decimal_places": ev.get("decimal_places"),
        "required_form": None if (ev.get("required_form") or "any") == "any" else ev.get("required_form"),
        "keywords": json.dumps(ev.get("keywords")) if ev.get("keywords") else None,
        "min_keywords": ev.get("min_keywords"), "difficulty_value": item.difficulty_value,
        # The marking criteria (a mark per step, with their own keys where the steps have boxes): the formats
        # mark the final answer only, and our own import gives the steps back.
        "criteria": json.dumps(criteria) if criteria else None,
    }
    return {k: str(v) for k, v in values.items() if v not in (None, "")}


def _skill(item: Item) -> Optional[str]:
    return (item.skill_ids or [None])[0] or item.blueprint_id


def _safe_name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", text)[:80] or "item"


_STANDARD_FORM = re.compile(r"^([-+]?\d+(?:\.\d+)?)\s*(?:×|x|\*|\\times)\s*10\s*\^\s*\{?\s*([-+−]?\d+)\s*\}?$")


def _decimal_text(key: str, approximate: bool = False) -> Optional[str]:
    """The key as a plain number ("0.75" for "3/4", "12600" for "1.26 × 10^4"), or None when it is not one.

    A fraction that never ends (11/6) is a number only ``approximate``ly: to ten
    significant figures, for a question marked within a tolerance anyway.
    """
    text = key.strip().replace("\u2212", "-").replace(",", "").replace("$", "")
    standard = _STANDARD_FORM.match(text)
    if standard:
        text = f"{standard[1]}e{standard[2].replace('−', '-')}"
    try:
        value = Decimal(text)
    except InvalidOperation:
        try:
            frac = Fraction(text)
        except (ValueError, ZeroDivisionError):
            return None
        value = Decimal(frac.numerator) / Decimal(frac.denominator)
        if Fraction(str(value)) != frac:
            if not approximate:
                return None              # 1/3 never ends: not a plain number
            value = Decimal(f"{float(frac):.10g}")
    if not value.is_finite():
        return None
    if value and not Decimal("1e-6") <= abs(value) < Decimal("1e15"):
        return format(value.normalize(), "E")        # 3.98E-19, as every format reads it
    out = format(value, "f")
    return out.rstrip("0").rstrip(".") if "." in out else out


def _round_tolerance(width: float) -> float:
    return float(f"{width:.6g}") if width else 0.0


def expression_spellings(forms: list[str]) -> Optional[list[str]]:
    """The ways a student may write these expressions that a list of exact short answers must hold.

    Spaces, ``*`` for a product written side by side, ``**`` for ``^``, and the
    order of the terms of a sum of up to three terms. None when a form has more
    than three terms (too many orders to list fairly).
    """
    out: list[str] = []

    def add(s: str) -> None:
        s = s.strip()
        if s and s not in out:
            out.append(s)
    for form in forms:
        compact = re.sub(r"\s+", "", form).replace("**", "^")
        terms = _top_level_terms(compact)
        if terms is None or len(terms) > 3:
            return None
        orders = [terms] if len(terms) == 1 else list(itertools.permutations(terms))
        for order in orders:
            text = "".join(order).lstrip("+")
            for variant in (text, re.sub(r"(?<=[\w)])([+\-=])", r" \1 ", text)):
                add(variant)
                add(re.sub(r"(?<=\d)(?=[A-Za-z(])", "*", variant))
        add(form)
    return out[:MAX_SPELLINGS] if len(out) <= MAX_SPELLINGS else None


def _top_level_terms(text: str) -> Optional[list[str]]:
    """``2x+3-y`` as ["+2x", "+3", "-y"]; None for an equation or unbalanced brackets."""
    if "=" in text or "<" in text or ">" in text:
        return [text]
    terms, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif ch in "+-" and depth == 0 and i > 0 and text[i - 1] not in "^*/(eE":
            terms.append(text[start:i])
            start = i
    terms.append(text[start:])
    if depth:
        return None
    return [t if t[:1] in "+-" else "+" + t for t in terms if t]


# --------------------------------------------------------------------------
# In


def question_to_item(q: Question, origin: dict) -> Union[Item, Skipped]:
    """A draft item for an imported question, its key checked by our marker; or why it was left out."""
    p = q.provenance or {}
    notes = list(q.notes)
    stem = q.stem.strip()
    if not stem:
        return Skipped(q.name, "it has no question text.")
    item_type, answer_type, method = "short_text", "string", "short_text"
    options: list[str] = []
    correct_index: Optional[int] = None
    accepted: list[str] = []
    tolerance: Optional[dict] = None
    keywords: list[str] = []
    min_keywords: Optional[int] = None
    fractions: Optional[list[float]] = None
    if q.kind == MULTI:
        made = _choose_several(q)
        if isinstance(made, Skipped):
            return made
        options, fractions, key = made
        item_type, method = "multiple_response", "multiple_response"
    elif q.kind == CHOICE:
        right = q.right_choices()
        if len(right) != 1:
            return Skipped(q.name, "no option earns full marks, so there is no key to check."
                           if not right else f"{len(right)} options earn full marks; a question here has one right "
                                             f"option.")
        options = [c.text.strip() for c in q.choices]
        if any(not o for o in options):
            return Skipped(q.name, "one of its options is empty.")
        if len({_same_text(o) for o in options}) != len(options):
            return Skipped(q.name, "two of its options read the same; students could not tell them apart.")
        correct_index = right[0]
        partial = [f"{chr(65 + i)} ({c.fraction:.0%})" for i, c in enumerate(q.choices) if 0 < c.fraction < 0.999]
        if partial:
            notes.append(f"option(s) {', '.join(partial)} earned part marks in the file; here only the right "
                         f"option earns marks")
        item_type, method = "multiple_choice", "mcq"
        key = options[correct_index]
        answer_type = "decimal" if _decimal_text(key) is not None and re.fullmatch(r"[-\d.,/ ]+", key) else "string"
    elif q.kind == NUMERIC:
        full = [n for n in q.numbers if n.fraction >= 0.999 and n.value.strip() not in ("*", "")]
        if not full:
            return Skipped(q.name, "no numeric answer earns full marks, so there is no key to check.")
        best = full[0]
        key = best.value.strip()
        if _decimal_text(key) is None:
            return Skipped(q.name, f"its answer {key!r} is not a number.")
        others = [n for n in q.numbers if n is not best and n.value.strip() not in ("*", "")]
        if others:
            notes.append("other answers in the file earned marks too (" +
                         ", ".join(f"{n.value} ± {n.tolerance:g} for {n.fraction:.0%}" for n in others) +
                         "); here only the first full-mark answer counts")
        item_type = "numeric"
        answer_type = "integer" if re.fullmatch(r"-?\d+", key) else "decimal"
        method = "numeric_tolerance"
        if q.relative_tolerance:
            tolerance = {"relative": float(q.relative_tolerance)}
        elif best.tolerance > 0:
            tolerance = {"absolute": float(best.tolerance)}
        else:
            method = "exact_match"
    elif q.kind in (SHORT, ALGEBRAIC):
        usable = []
        for a in q.answers:
            if a.fraction < 0.999 or not a.text.strip():
                continue
            if "*" in a.text and p.get("method") != "algebraic_equivalence":
                notes.append(f"the answer {a.text!r} uses the * wildcard, which the marker does not read; it was "
                             f"left out")
                continue
            usable.append(a.text.strip())
        partial = [a.text for a in q.answers if 0 < a.fraction < 0.999]
        if partial:
            notes.append("part-mark answers in the file (" + ", ".join(partial) + ") earn nothing here")
        if not usable:
            return Skipped(q.name, "no accepted answer earns full marks (or every one uses a * wildcard), so "
                                   "there is no key to check.")
        if q.case_sensitive:
            notes.append("the file marked capital letters as different; the marker here ignores case")
        key, accepted = usable[0], usable[1:]
    elif q.kind == ESSAY:
        if not p.get("keywords"):
            return Skipped(q.name, "it is an essay question: it has no key the marker can check, so it needs "
                                   "marking by hand.")
        keywords = _json_list(p.get("keywords"))
        min_keywords = _int(p.get("min_keywords"))
        key = p.get("key") or "; ".join(keywords)
    else:
        return Skipped(q.name, f"its kind ({q.kind}) is not one the workbench can hold.")

    # Our own export says exactly how the question was marked: restore it.
    if p.get("method") and q.kind != ESSAY:
        restored = _restore(p, item_type, answer_type, method, key, accepted, tolerance)
        item_type, answer_type, method, key, accepted, tolerance = restored
    ev = {"method": method, "tolerance": tolerance, **({"fractions": fractions} if fractions is not None else {}),
          "significant_figures": _int(p.get("significant_figures")), "decimal_places": _int(p.get("decimal_places")),
          "required_form": p.get("required_form") or "any", "keywords": keywords, "min_keywords": min_keywords,
          "partial_credit": method == "multiple_response"}
    subject, level = _course(q, p)
    marks = max(1, int(round(q.marks or 1)))
    content = content_key(stem, options, key)
    difficulty = p.get("level") if p.get("level") in ("easy", "medium", "hard") else "medium"
    item = Item(
        id="imp_" + content[:16], blueprint_id=None, blueprint_version=None, blueprint_hash="",  # type: ignore[arg-type]
        source="import", seed=p.get("seed", ""), difficulty_level=difficulty,
        difficulty_value=_float(p.get("difficulty_value")) or {"easy": 0.3, "medium": 0.5, "hard": 0.7}[difficulty],
        item_type=item_type, stem=stem, options=options,
        option_strategies=[None if i == correct_index or (fractions and fractions[i] > 0) else "imported_distractor"
                           for i in range(len(options))],
        options_shuffled=bool(q.shuffle) if options else False, correct_answer=key, correct_index=correct_index,
        answer_value=key, accepted_answers=accepted, misconceptions={},
        explanation=q.general_feedback.strip() or _default_explanation(key, q.units, fractions is not None),
        hints=list(q.hints), answer_type=answer_type, units=q.units or None, marks=marks,
        marking_scheme={"criteria": _criteria(p, marks), "total_marks": marks}, evaluation=ev, generation_params={},
        computed_values={}, subject=subject, level=level,
        outcome_ids=[o for o in (p.get("outcomes") or "").split(",") if o],
        skill_ids=[s for s in (p.get("skills") or "").split(",") if s], calculator=p.get("calculator") or "optional",
        content_key=content, status="draft", media=[m.as_json() for m in q.media],
        origin={**origin, "question": q.name, "provenance": p, "notes": notes, "category": q.category,
                "tags": q.tags, "option_feedback": [c.feedback for c in q.choices] if options else [],
                "imported_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")},
    )
    problem = item_key_problem(item)
    if problem is not None:
        return Skipped(q.name, f"the marker cannot use its key {key!r}: {problem.rstrip('.')}.")
    return item


def _same_text(text: str) -> str:
    """Options a student could not tell apart: the same but for spacing and capitals (brackets do count)."""
    return " ".join(text.split()).casefold()


def _default_explanation(key: str, units: Optional[str], several: bool) -> str:
    if several:
        return f"The right options are {key}."
    return f"The correct answer is {key}{' ' + units if units else ''}."


def _choose_several(q: Question) -> Union[tuple[list[str], list[float], str], Skipped]:
    """A choose-several question's options, the share of the marks each tick earns, and its key ("A, C")."""
    options = [c.text.strip() for c in q.choices]
    if len(options) < 2 or any(not o for o in options):
        return Skipped(q.name, "it needs at least two options, none of them empty.")
    if len(options) > 26:
        return Skipped(q.name, f"it has {len(options)} options; at most 26 can be lettered A to Z.")
    if len({_same_text(o) for o in options}) != len(options):
        return Skipped(q.name, "two of its options read the same; students could not tell them apart.")
    fractions = [round(float(c.fraction), 7) for c in q.choices]
    positive = sum(f for f in fractions if f > 0)
    if positive <= 0:
        return Skipped(q.name, "no option earns marks, so there is no key to check.")
    if abs(positive - 1) > 0.01:
        return Skipped(q.name, f"its right options add up to {positive:.0%} of the marks, not 100%; correct the "
                               f"marks in the source and export it again.")
    key = ", ".join(chr(65 + i) for i, f in enumerate(fractions) if f > 0)
    return options, fractions, key


def _restore(p: dict, item_type: str, answer_type: str, method: str, key: str, accepted: list[str],
             tolerance: Optional[dict]) -> tuple:
    """How our own export says the question was marked, where that agrees with what the file holds."""
    was = p.get("method")
    if was == "algebraic_equivalence" and p.get("key"):
        return ("algebraic", "expression", was, p["key"], _json_list(p.get("accepted")), None)
    if item_type in ("short_text", "numeric") and was in ("exact_match", "short_text", "ip_address", "cidr") \
            and p.get("key"):
        return (p.get("item_type") or item_type, p.get("answer_type") or answer_type,
                "exact_match" if was in ("ip_address", "cidr") else was, p["key"], _json_list(p.get("accepted")), None)
    if item_type == "numeric" and was == "numeric_tolerance":
        rel, ab = _float(p.get("tolerance_relative")), _float(p.get("tolerance_absolute"))
        # None: the marker's default, from which the file's tolerance was worked out
        tol = {k: v for k, v in (("relative", rel), ("absolute", ab)) if v} or None
        return (item_type, p.get("answer_type") or answer_type, was, p.get("key") or key, accepted, tol)
    if item_type == "multiple_choice":
        # (a choice is marked by the option picked whatever the method says; kept as the blueprint wrote it)
        return (item_type, p.get("answer_type") or answer_type, was if was in ("mcq", "exact_match") else method,
                key, accepted, tolerance)
    return (item_type, answer_type, method, key, accepted, tolerance)


def _criteria(p: dict, marks: int) -> list[dict]:
    """The marking criteria our own export carried, when they still add up to the question's marks."""
    try:
        criteria = json.loads(p.get("criteria") or "[]")
    except ValueError:
        return []
    if not isinstance(criteria, list) or not all(isinstance(c, dict) for c in criteria):
        return []
    return criteria if sum(int(c.get("marks") or 0) for c in criteria) == marks else []


def _course(q: Question, p: dict) -> tuple[Optional[str], Optional[str]]:
    if p.get("subject") or p.get("course_level"):
        return p.get("subject"), p.get("course_level")
    cat = [c for c in q.category if c]
    if len(cat) >= 2 and re.sub(r"[\s_.-]+", "", cat[1].lower()) in _LEVELS:
        return cat[0], _LEVELS[re.sub(r"[\s_.-]+", "", cat[1].lower())]
    return None, None


def content_key(stem: str, options: list[str], key: str) -> str:
    """Same question, same key: the text a student reads, its options and its answer."""
    canonical = json.dumps([normalise_text(stem), [normalise_text(o) for o in options], normalise_text(key)])
    return hashlib.sha256(("import|" + canonical).encode()).hexdigest()[:20]


def _json_list(text: Optional[str]) -> list[str]:
    if not text:
        return []
    try:
        value = json.loads(text)
    except ValueError:
        return [t.strip() for t in text.split("|") if t.strip()]
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _int(text: Optional[str]) -> Optional[int]:
    try:
        return int(text) if text not in (None, "") else None
    except (TypeError, ValueError):
        return None


def _float(text: Optional[str]) -> Optional[float]:
    try:
        value = float(text) if text not in (None, "") else None
    except (TypeError, ValueError):
        return None
    return value if value is not None and math.isfinite(value) else None
