"""New numbers for a bank question with a formula, with its key recomputed and written to the original's precision."""
from __future__ import annotations

import dataclasses
import math
import random
from itertools import product
from typing import Any, Optional

from core.blueprints.formula import FormulaError, TimeBudgetExceeded, compile_formula, time_budget
from core.items.banks.numbers import key_text
from core.items.banks.rows import _answer_value, _content_key, _default_explanation
from core.items.banks.variables import _compile_template, _domain_size, _domain_value, _is_plain_number, check_variables
from core.items.generator import Item, normalise_text
from core.items.sampler import GenerationError

ENUMERATE_LIMIT = 5_000
RANDOM_DRAWS = 300
VARIANT_BUDGET_S = 2.0      # all the formula evaluations of one variant: none found in that time is none found


def _same_values(a: dict, b: dict) -> bool:
    def norm(v: Any) -> Any:
        return float(v) if _is_plain_number(v) else v
    return a.keys() == b.keys() and all(norm(a[k]) == norm(b[k]) for k in a)


def mutate_bank_question(item: Item, n: int, seed: Any) -> Optional[Item]:
    """A variant of a formula question with new numbers and a recomputed key; None without a usable formula.

    Values are drawn from the question's variables with a ``random.Random``
    seeded from (id, n, seed), so a variant can be rebuilt exactly. Draws that
    repeat the original values, break a constraint, or give a key that does
    not fit the answer type (a fraction where a whole number is expected) are
    skipped. None also when the variables allow no other values, or when no
    variant is found within ``VARIANT_BUDGET_S`` of formula evaluation.
    """
    try:
        with time_budget(VARIANT_BUDGET_S):
            return _mutate(item, n, seed)
    except TimeBudgetExceeded:
        return None


def _mutate(item: Item, n: int, seed: Any) -> Optional[Item]:
    cv = item.computed_values or {}
    if item.item_type == "multiple_choice" or not all(k in cv for k in ("template", "variables", "answer_formula")):
        return None
    # Stored parts are re-checked: the row may have been edited since import.
    variables, _ = check_variables(cv["variables"])
    if variables is None or not isinstance(cv["template"], str):
        return None
    names = set(variables)
    try:
        template = _compile_template(cv["template"], names, "template")
        answer_f = compile_formula(cv["answer_formula"], names)
        constraints = [compile_formula(c, names) for c in cv.get("constraints") or []]
        explanation_t = (_compile_template(cv["explanation_template"], names | {"answer"}, "explanation_template")
                         if cv.get("explanation_template") else None)
    except (FormulaError, TypeError):
        return None
    answer_format = cv.get("answer_format") if isinstance(cv.get("answer_format"), dict) else {}
    order = sorted(variables)
    sizes = [_domain_size(variables[name]) for name in order]
    if math.prod(sizes) < 2:
        return None
    rng = random.Random(f"{item.id}|{n}|{seed}")
    original = item.generation_params or {}
    if math.prod(sizes) <= ENUMERATE_LIMIT:
        # Small spaces are dealt without replacement, so a valid variant is found whenever one exists.
        draws = list(product(*(range(s) for s in sizes)))
        rng.shuffle(draws)
    else:
        draws = [tuple(rng.randrange(s) for s in sizes) for _ in range(RANDOM_DRAWS)]
    for ks in draws:
        values = {name: _domain_value(variables[name], k) for name, k in zip(order, ks)}
        if _same_values(values, original):
            continue
        try:
            if not all(f.evaluate(values) for f in constraints):
                continue
            value = answer_f.evaluate(values)
            key = key_text(value, item.answer_type, answer_format)
            stem = template.render(values)
        except (FormulaError, GenerationError, ValueError, KeyError, IndexError):
            continue
        if normalise_text(stem) == normalise_text(item.stem):
            continue
        if explanation_t is not None:
            try:
                explanation = explanation_t.render({**values, "answer": key})
            except (FormulaError, ValueError, KeyError, IndexError):
                continue
        else:
            explanation = _default_explanation(key, item.units)
        params = {name: values[name] for name in variables}
        return dataclasses.replace(
            item, id=f"{item.id}_variant_{n}", source="variant", seed=str(seed), stem=stem,
            correct_answer=key, answer_value=_answer_value(key, item.answer_type),
            accepted_answers=[],  # they were written for the original numbers
            explanation=explanation, generation_params=params,
            computed_values={k: (dict(v) if isinstance(v, dict) else v) for k, v in cv.items()},
            marking_scheme=dict(item.marking_scheme), evaluation=dict(item.evaluation),
            options=[], option_strategies=[], correct_index=None, misconceptions={},
            hints=list(item.hints), outcome_ids=list(item.outcome_ids), skill_ids=list(item.skill_ids),
            content_key=_content_key(stem),
        )
    return None
