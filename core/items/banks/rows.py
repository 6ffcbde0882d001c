"""One row as an Item: every field checked on its own and against the others, the item built only when all is well."""
from __future__ import annotations

import hashlib
import re
from typing import Any, Optional

from core.blueprints.compiler import compile_template
from core.blueprints.models.base import SKILL_ID_PATTERN
from core.items.banks.cells import _BAD, _Row
from core.items.banks.fields import (ANSWER_TYPES, CALCULATOR, DEFAULT_METHOD, DIFFICULTY_VALUES, FIELDS, MAX_TEACHING,
                                     FORMULA_FIELDS, ITEM_TYPES, METADATA_SHORTCUTS, METHODS, SOURCES)
from core.items.banks.numbers import _answer_format, _numeric_answer_type, parse_number
from core.items.banks.reports import BankQuestionError, RowError
from core.items.banks.row_formula import _formula
from core.items.generator import Item, jsonable, normalise_text
from core.marking import item_key_problem

_LEVELS = {
    "nat3": "Nat 3", "n3": "Nat 3", "national3": "Nat 3",
    "nat4": "Nat 4", "n4": "Nat 4", "national4": "Nat 4",
    "nat5": "Nat 5", "n5": "Nat 5", "national5": "Nat 5",
    "higher": "Higher", "h": "Higher",
    "advancedhigher": "Advanced Higher", "ah": "Advanced Higher",
}
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\-]{0,119}$")


def _content_key(text: str) -> str:
    return hashlib.sha256(("bank|" + normalise_text(text)).encode()).hexdigest()[:20]


def _level(text: str) -> str:
    return _LEVELS.get(re.sub(r"[\s_.-]+", "", text.lower()), text)


def _marking_scheme(row: _Row, marks: Any) -> Any:
    raw = row.structured("marking_scheme")
    if raw is None or raw is _BAD:
        return raw
    if isinstance(raw, str):
        # CSV shorthand "Identify equation:1;Substitute:1" (optionally "step:marks:gap_tag")
        criteria = []
        for part in (p.strip() for p in raw.split(";")):
            if not part:
                continue
            head, _, tail = part.rpartition(":")
            step, _, mid = head.rpartition(":")
            if head.strip() and tail.strip().isdigit():
                criteria.append({"step": head, "marks": int(tail)})
            elif step.strip() and mid.strip().isdigit() and tail.strip():
                criteria.append({"step": step, "marks": int(mid), "gap_tag": tail})
            else:
                return row.error("marking_scheme", f"marking step {part!r} should be written 'step:marks' "
                                                   f"(or 'step:marks:gap_tag').")
        raw = {"criteria": criteria}
    if isinstance(raw, list):
        raw = {"criteria": raw}
    if not isinstance(raw, dict):
        return row.error("marking_scheme", "marking_scheme must be an object with 'criteria' and 'total_marks'.")
    extra = set(raw) - {"criteria", "total_marks"}
    if extra:
        return row.error("marking_scheme", f"marking_scheme has unknown keys {sorted(extra)}; "
                                           f"use 'criteria' and 'total_marks'.")
    criteria = raw.get("criteria", [])
    if not isinstance(criteria, list):
        return row.error("marking_scheme", "marking_scheme.criteria must be a list of {step, marks}.")
    clean = []
    for i, c in enumerate(criteria, 1):
        if not isinstance(c, dict) or set(c) - {"step", "marks", "gap_tag", "description"}:
            return row.error("marking_scheme", f"criterion {i} must be an object with step, marks and "
                                               f"optionally gap_tag and description.")
        step, m = c.get("step"), c.get("marks")
        if not isinstance(step, str) or not step.strip():
            return row.error("marking_scheme", f"criterion {i} needs a step description.")
        if isinstance(m, bool) or not isinstance(m, int) or m < 1:
            return row.error("marking_scheme", f"criterion {i} ('{step.strip()}') needs marks as a whole number "
                                               f"of at least 1.")
        for opt in ("gap_tag", "description"):
            if c.get(opt) is not None and not isinstance(c[opt], str):
                return row.error("marking_scheme", f"criterion {i} {opt} must be text.")
        entry = {"step": step.strip(), "marks": m}
        entry.update({k: c[k].strip() for k in ("gap_tag", "description") if isinstance(c.get(k), str) and c[k].strip()})
        clean.append(entry)
    if isinstance(marks, int):
        total = raw.get("total_marks")
        if total is not None and total != marks:
            return row.error("marking_scheme", f"marking_scheme.total_marks is {total!r} but the question is "
                                               f"worth {marks} marks.")
        if clean and sum(c["marks"] for c in clean) != marks:
            return row.error("marking_scheme", f"the marking criteria add up to {sum(c['marks'] for c in clean)} "
                                               f"but the question is worth {marks} marks.")
    return {"criteria": clean, "total_marks": marks}


def _metadata(row: _Row) -> Any:
    meta = row.obj("metadata")
    if meta is _BAD:
        return meta
    meta = dict(meta or {})
    for key in METADATA_SHORTCUTS:
        if row.present(key) and key not in meta:
            v = row.data[key]
            meta[key] = int(v) if key == "year" and isinstance(v, str) and v.strip().isdigit() else v
    if "difficulty" in meta:
        d = meta["difficulty"]
        if not isinstance(d, str) or d.strip().lower() not in DIFFICULTY_VALUES:
            return row.error("metadata.difficulty", f"difficulty must be easy, medium or hard, not {d!r}.")
        meta["difficulty"] = d.strip().lower()
    if "calculator" in meta:
        c = meta["calculator"]
        if isinstance(c, bool):  # "calculator allowed?" in a spreadsheet
            c = "optional" if c else "none"
        if not isinstance(c, str) or c.strip().lower() not in CALCULATOR:
            return row.error("metadata.calculator", f"calculator must be none, optional or required, not {c!r}.")
        meta["calculator"] = c.strip().lower()
    if "skill" in meta:
        k = meta["skill"]
        if k in (None, ""):
            del meta["skill"]
        elif not isinstance(k, str) or not re.fullmatch(SKILL_ID_PATTERN, k.strip()):
            return row.error("metadata.skill", f"skill must be a skill blueprint id such as SQA.MATH.N5.SURDS, "
                                               f"not {k!r}.")
        else:
            meta["skill"] = k.strip()
    if "teaching" in meta:
        text = meta["teaching"]
        if text in (None, ""):
            del meta["teaching"]
        elif not isinstance(text, str) or len(text) > MAX_TEACHING:
            return row.error("metadata.teaching", f"teaching must be text of at most {MAX_TEACHING:,} characters: "
                                                  f"a few sentences a student reads before the question.")
        else:
            meta["teaching"] = text.strip()
    return meta


def _build(row: _Row, forced_source: Optional[str]) -> Optional[Item]:
    """The item for one row, or None with the problems in ``row.errors``."""
    for key in row.data:
        if key not in FIELDS and not row.csv:
            row.error(str(key), f"'{key}' is not a bank field; check the spelling.")
    if forced_source is not None:
        source = forced_source
    else:
        source = row.text("source", required=True)
        if isinstance(source, str) and source.lower() not in SOURCES:
            source = row.error("source", f"source must be local, past or us, not {source!r}.")
        elif isinstance(source, str):
            source = source.lower()
    subject = row.text("subject", required=True)
    level = row.text("level", required=True)
    outcome_id = row.text("outcome_id", required=True)
    marks = row.whole("marks", 1, required=True)
    answer = row.text("answer", required=True)
    qid = row.text("id")
    if isinstance(qid, str) and not _ID.match(qid):
        qid = row.error("id", f"id {qid!r} may use only letters, digits and _ . : - (at most 120 characters).")
    units, explanation = row.text("units"), row.text("explanation")
    options = row.text_list("options")
    keywords, hints, accepted = row.text_list("keywords"), row.text_list("hints"), row.text_list("accepted_answers")
    scheme = _marking_scheme(row, marks)
    meta = _metadata(row)
    tol_rel = row.positive("tolerance_relative", below_one=True)
    tol_abs = row.positive("tolerance_absolute")
    decimals = row.whole("answer_decimals", 0)
    sig_figs = row.whole("answer_sig_figs", 1)
    if isinstance(decimals, int) and isinstance(sig_figs, int):
        row.error("answer_sig_figs", "give answer_decimals or answer_sig_figs, not both.")

    item_type = row.text("item_type")
    if isinstance(item_type, str) and item_type not in ITEM_TYPES:
        item_type = row.error("item_type", f"item_type must be one of {', '.join(ITEM_TYPES)}, not {item_type!r}.")
    if item_type is None and options is not _BAD and isinstance(answer, str):
        item_type = ("multiple_choice" if options else
                     "numeric" if parse_number(answer) is not None else "short_text")

    answer_type = row.text("answer_type")
    if isinstance(answer_type, str) and answer_type not in ANSWER_TYPES:
        answer_type = row.error("answer_type", f"answer_type must be one of {', '.join(ANSWER_TYPES)}, "
                                               f"not {answer_type!r}.")
    numeric_kind = _numeric_answer_type(answer) if isinstance(answer, str) else None
    if answer_type in ("integer", "decimal", "fraction") and isinstance(answer, str) and numeric_kind is None:
        answer_type = row.error("answer", f"the answer {answer!r} is not a number, but answer_type is {answer_type}.")
    precision_given = isinstance(decimals, int) or isinstance(sig_figs, int)
    if answer_type is None and precision_given and numeric_kind in ("integer", "decimal"):
        answer_type = "decimal"  # "377 to 3 significant figures" is a rounded decimal, not a whole number
    if answer_type is None and isinstance(item_type, str) and isinstance(answer, str):
        answer_type = ("expression" if item_type == "algebraic" else numeric_kind or "string")
    if precision_given and isinstance(answer_type, str) and answer_type != "decimal":
        row.error("answer_decimals" if isinstance(decimals, int) else "answer_sig_figs",
                  f"a rounding instruction applies only to a decimal answer, but answer_type is {answer_type}.")
    if item_type == "numeric" and isinstance(answer, str) and numeric_kind is None:
        row.error("answer", f"a numeric question needs a number as its answer, not {answer!r} "
                            f"(put units in the units column).")

    method = row.text("method")
    if isinstance(method, str) and method not in METHODS:
        method = row.error("method", f"method must be one of {', '.join(METHODS)}, not {method!r}.")
    if method is None and isinstance(item_type, str):
        method = DEFAULT_METHOD[item_type]
    if isinstance(method, str) and isinstance(item_type, str):
        if (method == "mcq") != (item_type == "multiple_choice"):
            row.error("method", "the mcq method goes with multiple_choice questions and only with them.")
        elif (method == "numeric_tolerance" and item_type != "numeric" and isinstance(answer, str)
              and numeric_kind is None):
            row.error("method", "numeric_tolerance needs a number as the answer.")
    tolerance = {k: v for k, v in (("relative", tol_rel), ("absolute", tol_abs)) if isinstance(v, float)} or None
    if tolerance and isinstance(method, str) and method != "numeric_tolerance":
        row.error("tolerance_relative" if "relative" in tolerance else "tolerance_absolute",
                  "a tolerance applies only to the numeric_tolerance method.")

    correct_index: Any = None
    if row.present("correct_index"):
        raw_ci = row.data["correct_index"]
        if isinstance(raw_ci, str) and re.fullmatch(r"\s*[A-Za-z]\s*", raw_ci):
            correct_index = ord(raw_ci.strip().upper()) - ord("A")  # a spreadsheet's "B"
        else:
            correct_index = row.whole("correct_index", 0)
    if item_type == "multiple_choice" and isinstance(options, list):
        if len(options) < 2:
            row.error("options", "a multiple-choice question needs at least 2 options.")
        elif len({normalise_text(o) for o in options}) != len(options):
            row.error("options", "two options read the same; every option must be different.")
        elif isinstance(correct_index, int) and not 0 <= correct_index < len(options):
            correct_index = row.error("correct_index", f"correct_index {row.data['correct_index']!r} is out of "
                                                       f"range: there are {len(options)} options (0 to {len(options) - 1}).")
        elif isinstance(answer, str):
            matches = [i for i, o in enumerate(options) if o == answer] or \
                      [i for i, o in enumerate(options) if normalise_text(o) == normalise_text(answer)]
            if not matches:
                row.error("answer", f"the answer {answer!r} is not one of the options.")
            elif correct_index is None:
                correct_index = matches[0]
                answer = options[correct_index]
            elif correct_index not in matches:
                row.error("correct_index", f"option {correct_index} is {options[correct_index]!r}, "
                                           f"not the answer {answer!r}.")
            else:
                answer = options[correct_index]
    elif isinstance(item_type, str) and item_type != "multiple_choice":
        if options:
            row.error("options", f"options are given but the item_type is {item_type}; "
                                 f"use multiple_choice or remove them.")
        if correct_index is not None and correct_index is not _BAD:
            row.error("correct_index", "correct_index applies only to multiple-choice questions.")

    precision: dict = {}
    if isinstance(answer, str) and answer_type == "decimal":
        precision = _answer_format(answer, decimals if isinstance(decimals, int) else None,
                                   sig_figs if isinstance(sig_figs, int) else None)
    formula = None
    if item_type == "multiple_choice" and any(row.present(f) for f in FORMULA_FIELDS):
        row.error("template", "new numbers cannot be drawn for a multiple-choice question (its options would not "
                              "change); use numeric, algebraic or short_text.")
    else:
        formula = _formula(row, answer_type, answer, tolerance, precision)
    text = row.text("text", required=formula is None and not any(row.present(f) for f in FORMULA_FIELDS))
    if isinstance(formula, tuple) and isinstance(text, str) and normalise_text(text) != normalise_text(formula[0]):
        row.error("text", "text does not match the template filled in with the values.")
    if row.errors or formula is _BAD:
        return None

    if isinstance(formula, tuple):
        text = text or formula[0]
        explanation_t = formula[1].get("explanation_template")
        if not explanation and explanation_t:
            display = {**formula[2], "answer": answer}
            explanation = compile_template(explanation_t, set(display)).render(display)
    assert isinstance(text, str) and isinstance(answer, str) and isinstance(marks, int)
    criteria = scheme["criteria"] if isinstance(scheme, dict) else []
    difficulty = meta.get("difficulty", "medium")
    key = _content_key(text)
    computed = dict(formula[1]) if isinstance(formula, tuple) else {}
    if meta:
        computed["metadata"] = jsonable(meta)  # year, paper, author: nowhere else on an Item keeps them
    item = Item(
        id=qid or "bank_" + key, blueprint_id=None, blueprint_version=None, blueprint_hash="",  # type: ignore[arg-type]
        source=source, seed="", difficulty_level=difficulty, difficulty_value=DIFFICULTY_VALUES[difficulty],
        item_type=item_type, stem=text, options=list(options),
        option_strategies=[None if i == correct_index else "bank_distractor" for i in range(len(options))],
        options_shuffled=False, correct_answer=answer,
        correct_index=correct_index if item_type == "multiple_choice" else None,
        answer_value=_answer_value(answer, answer_type), accepted_answers=[a for a in accepted if a != answer],
        misconceptions={}, explanation=explanation or _default_explanation(answer, units), hints=list(hints),
        answer_type=answer_type, units=units, marks=marks,
        marking_scheme={"criteria": criteria, "total_marks": marks},
        evaluation={"method": method, "tolerance": tolerance, "significant_figures": None, "required_form": "any",
                    "keywords": list(keywords), "min_keywords": None, "partial_credit": bool(criteria)},
        generation_params=formula[2] if isinstance(formula, tuple) else {}, computed_values=computed,
        subject=subject, level=_level(level), outcome_ids=[outcome_id],
        skill_ids=[meta["skill"]] if meta.get("skill") else [],
        calculator=meta.get("calculator", "optional"), content_key=key, status="approved",
    )
    problem = item_key_problem(item)
    if problem is not None:
        # Stored approved, such a key would mark every student wrong: the row is left out, like any bad row.
        row.error("answer", f"{problem.rstrip('.')}; correct the answer (or the method) so the marker can use it, "
                            f"then import the row again.")
        return None
    return item


def _answer_value(answer: str, answer_type: str) -> Any:
    if answer_type in ("integer", "decimal", "fraction"):
        value = parse_number(answer)
        return jsonable(value) if value is not None else answer
    return answer


def _default_explanation(answer: str, units: Optional[str]) -> str:
    return f"The correct answer is {answer}{(' ' + units) if units else ''}."


def bank_question_to_item(question: dict, source: Optional[str] = None, row: int = 1) -> Item:
    """One bank question (a dict in the bank schema) as an approved Item; BankQuestionError if it is not valid."""
    if source is not None and source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, not {source!r}")
    if not isinstance(question, dict):
        raise BankQuestionError([RowError(row, None, "a question must be an object of fields.")])
    r = _Row(row, question, from_csv=False)
    item = _build(r, source)
    if item is None:
        raise BankQuestionError(r.errors)
    return item
