"""Item generation over every shipped blueprint and level.

Keys are checked against oracles written independently in plain Python
(tests/oracles), constraints are re-evaluated from the YAML text, options are
checked for distinctness, and reproducibility is checked by seed.
"""
from __future__ import annotations

import importlib
import math
import pkgutil
import re
import textwrap

import pytest

import tests.oracles as oracle_pkg
from core.blueprints.formula import compile_formula
from core.blueprints.library import check_skill
from core.blueprints.loader import parse_text
from core.items.sampler import GenerationError
from tests.oracles.base import Expr

ITEMS_PER_LEVEL = 30


def _oracles() -> dict:
    found = {}
    for mod in pkgutil.iter_modules(oracle_pkg.__path__):
        if mod.name == "base":
            continue
        module = importlib.import_module(f"tests.oracles.{mod.name}")
        found.update(getattr(module, "ORACLES", {}))
    return found


ORACLES = _oracles()


def _sympy_equal(key: str, expected: str) -> bool:
    import sympy
    from sympy.parsing.sympy_parser import (convert_xor, implicit_multiplication_application, parse_expr,
                                            standard_transformations)
    transformations = standard_transformations + (implicit_multiplication_application, convert_xor)
    # Keys come from our own generator (trusted text), so sympy may parse them here.
    left = parse_expr(key.replace("√", "sqrt"), transformations=transformations)
    right = parse_expr(expected, transformations=transformations)
    return sympy.simplify(left - right) == 0


def key_matches(item, expected) -> bool:
    if isinstance(expected, Expr):
        return _sympy_equal(item.correct_answer, expected.text)
    if isinstance(expected, bool):
        return str(expected).lower() == item.correct_answer.lower()
    if isinstance(expected, (int, float)):
        value = item.answer_value
        if isinstance(value, str):
            value = float(value)
        return math.isclose(float(value), float(expected), rel_tol=1e-9, abs_tol=1e-12)
    norm = lambda s: re.sub(r"\s+", "", str(s)).lower()  # noqa: E731
    return norm(item.correct_answer) == norm(expected)


def skill_levels(library):
    return [(sid, level) for sid, gen in sorted(library.generators.items()) for level in gen.cs.levels]


def test_every_shipped_skill_has_an_oracle(library):
    missing = sorted(set(library.generators) - set(ORACLES))
    assert not missing, f"skills without an independent answer oracle: {missing}"


def test_every_level_of_every_blueprint(library):
    failures = []
    for sid, level in skill_levels(library):
        gen = library.generator(sid)
        bp = gen.bp
        constraints = [compile_formula(c) for c in bp.generation.difficulty_levels[level].constraints]
        batch = gen.batch(level, ITEMS_PER_LEVEL, seed="suite")
        for it in batch.items:
            env = gen.environment(it.generation_params)
            for c in constraints:
                if not c.evaluate(env):
                    failures.append(f"{sid}/{level} {it.generation_params}: constraint '{c.source}' fails")
            for name, value in it.generation_params.items():
                if value not in gen.cs.domains[name]:
                    failures.append(f"{sid}/{level}: {name}={value} outside its range")
            if bp.generation.item_type == "multiple_choice":
                if len(it.options) != bp.presentation.option_count:
                    failures.append(f"{sid}/{level}: {len(it.options)} options")
                if len(set(it.options)) != len(it.options):
                    failures.append(f"{sid}/{level}: repeated options {it.options}")
                if it.options[it.correct_index] != it.correct_answer:
                    failures.append(f"{sid}/{level}: correct_index does not point at the key")
                if sorted(s for s in it.option_strategies if s) != sorted(
                        s for s in it.option_strategies if s is not None) or it.option_strategies.count(None) != 1:
                    failures.append(f"{sid}/{level}: option strategies {it.option_strategies}")
            else:
                assert it.options == [] and it.correct_index is None
            names = set(gen.cs.domains) | {n for n, _ in gen.cs.computed}
            leftover = [n for n in names if "{" + n + "}" in it.stem]
            if leftover:
                failures.append(f"{sid}/{level}: unfilled template field(s) {leftover} in stem {it.stem!r}")
            if it.correct_answer in ("", "None"):
                failures.append(f"{sid}/{level}: empty key")
            oracle = ORACLES.get(sid)
            if oracle is not None:
                expected = oracle(dict(it.generation_params))
                if not key_matches(it, expected):
                    failures.append(f"{sid}/{level} {it.generation_params}: key {it.correct_answer!r} "
                                    f"but the oracle says {expected!r}")
            if not 0 <= it.difficulty_value <= 1:
                failures.append(f"{sid}/{level}: difficulty {it.difficulty_value}")
    assert not failures, "\n".join(failures[:30])


def test_same_inputs_give_the_identical_item(library):
    from core.items import generator
    for sid, level in skill_levels(library):
        gen = library.generator(sid)
        a = gen.generate(level, 12345)
        generator._made.clear()   # made again, not copied from the items kept
        b = gen.generate(level, 12345)
        assert a == b
        assert gen.generate(level, 12345, params=a.generation_params) == a
        assert gen.generate(level, 54321) != a or gen.variants(level)["parameter_combinations"] < 3


def test_an_item_asked_for_again_is_a_copy_of_the_one_made(library):
    from core.items import generator
    gen = library.generator("MATH.ARITH.ADD.2DIGIT")
    first = gen.generate("hard", "again")
    second = gen.generate("hard", "again")
    assert second == first and second is not first
    second.options.append("changed")       # what one caller does to its item, no other sees
    second.marking_scheme["changed"] = True
    second.status = "approved"
    third = gen.generate("hard", "again")
    assert third == first and "changed" not in third.options and "changed" not in third.marking_scheme
    assert third.status == "draft"
    generator._made.clear()
    assert gen.generate("hard", "again") == first
    assert gen.generate("hard", "other") != first


def test_reproducible_across_processes(library):
    import json
    import subprocess
    import sys
    code = ("from core.blueprints.library import Library; import json; "
            "g = Library.load(exercise=False).generator('MATH.ARITH.ADD.2DIGIT'); "
            "print(json.dumps(g.generate('hard', 99).to_dict()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == json.loads(json.dumps(library.generator("MATH.ARITH.ADD.2DIGIT").generate("hard", 99).to_dict()))


def test_ten_thousand_items_without_duplicates(library):
    pairs = skill_levels(library)
    capacity = {}
    for sid, level in pairs:
        info = library.generator(sid).variants(level)
        capacity[(sid, level)] = info["parameter_combinations"]
    target = 10_000
    plan = {}
    remaining = target
    for pair in sorted(pairs, key=lambda p: capacity[p]):
        share = math.ceil(remaining / (len(pairs) - len(plan)))
        plan[pair] = min(share, capacity[pair])
        remaining -= plan[pair]
    assert sum(plan.values()) >= target, "the shipped library cannot produce 10,000 distinct items"
    keys: set[str] = set()
    stems_per_skill: dict[str, set] = {}
    total = 0
    for (sid, level), n in plan.items():
        batch = library.generator(sid).batch(level, n, seed="ten-thousand")
        assert batch.duplicates == 0 and not batch.exhausted, (sid, level, n)
        for it in batch.items:
            assert it.content_key not in keys, (sid, level, it.generation_params)
            keys.add(it.content_key)
            stems_per_skill.setdefault(sid, set()).add(it.stem)
        total += len(batch.items)
    assert total >= target


def test_exact_variant_count_matches_brute_force(library):
    gen = library.generator("MATH.ARITH.ADD.2DIGIT")
    brute = sum(1 for a in range(10, 100) for b in range(10, 100) if a % 10 + b % 10 < 10 and a // 10 + b // 10 < 10)
    info = gen.variants("easy")
    assert info["exact"] and info["parameter_combinations"] == brute
    batch = gen.batch("easy", brute + 5, seed=1)
    assert batch.exhausted and len({it.content_key for it in batch.items}) == brute


# --------------------------------------------------------------------------
# Sampling strategies on purpose-built blueprints

BASE = textwrap.dedent("""\
    skill_id: "TEST.SAMPLER"
    version: "1"
    metadata: {{domain: Test, skill_statement: Sampling}}
    generation:
      item_type: numeric
      parameters:
        a: {{type: integer, min: 1, max: {top}}}
        b: {{type: integer, min: 1, max: {top}}}
        c: {{type: integer, min: 1, max: 50}}
      answer_formula: "a + b + c"
      answer_type: integer
      difficulty_levels:
        only:
          value: 0.5
          constraints: [{constraint}]
    presentation:
      stem_templates: ["{{a}} + {{b}} + {{c}}"]
    evaluation: {{method: exact_match}}
    """)


def sampler_for(top: int, constraint: str):
    loaded = parse_text(BASE.format(top=top, constraint=constraint), "sampler.yaml")
    gen, issues = check_skill(loaded)
    return gen, issues


def test_tight_constraint_on_a_large_domain_is_solved_for_one_parameter():
    gen, issues = sampler_for(3000, '"a + b == 3001"')
    assert not [i for i in issues if i.severity == "error"]
    strategies = {s["strategy"] for s in gen.variants("only")["strategies"]}
    assert "pivot" in strategies and "free" in strategies
    for seed in range(50):
        it = gen.generate("only", seed)
        assert it.generation_params["a"] + it.generation_params["b"] == 3001


def test_low_acceptance_on_a_small_domain_is_enumerated():
    gen, _ = sampler_for(300, '"a * b == 360"')
    info = gen.variants("only")
    assert info["exact"] and {"parameters": ["a", "b"], "strategy": "enumerate", "combinations": 90_000} in info["strategies"]
    assert info["parameter_combinations"] == 50 * sum(1 for a in range(1, 301) if 360 % a == 0 and 360 // a <= 300)


def test_single_parameter_constraints_shrink_domains():
    gen, _ = sampler_for(2000, '"a % 997 == 0", "b % 991 == 0"')
    info = gen.variants("only")
    assert info["strategies"] == [{"parameters": ["a", "b", "c"], "strategy": "free", "combinations": 2 * 2 * 50}]
    assert info["parameter_combinations"] == 2 * 2 * 50 and info["exact"]
    assert {gen.generate("only", s).generation_params["a"] for s in range(40)} == {997, 1994}


def test_independent_constraints_form_separate_components():
    gen, _ = sampler_for(200, '"a + c > 100", "b * c < 300"')
    comps = gen.variants("only")["strategies"]
    assert [s["parameters"] for s in comps] == [["a", "b", "c"]]
    gen, _ = sampler_for(200, '"a + b > 100", "c % 7 == 0"')
    comps = gen.variants("only")["strategies"]
    assert sorted(tuple(s["parameters"]) for s in comps) == [("a", "b"), ("c",)]


def test_impossible_constraint_on_a_large_domain_fails_promptly():
    gen, issues = sampler_for(3000, '"a + b == 9000"')
    errors = [i for i in issues if i.severity == "error"]
    assert errors and "cannot be met" in errors[0].message
    with pytest.raises(GenerationError, match="cannot be met"):
        gen.generate("only", 1)


def test_parameters_outside_the_level_are_refused(library):
    gen = library.generator("MATH.ARITH.ADD.2DIGIT")
    with pytest.raises(GenerationError, match="do not meet the constraints"):
        gen.generate("easy", 1, params={"operand_1": 99, "operand_2": 99})
    with pytest.raises(GenerationError, match="outside"):
        gen.generate("easy", 1, params={"operand_1": 5, "operand_2": 11})
    with pytest.raises(GenerationError, match="missing"):
        gen.generate("easy", 1, params={"operand_1": 11})
    with pytest.raises(GenerationError, match="no difficulty level"):
        gen.generate("impossible", 1)


def test_student_view_carries_no_key(library):
    it = library.generator("MATH.ARITH.ADD.2DIGIT").generate("medium", 5)
    view = it.student_view()
    assert set(view) == {"id", "stem", "item_type", "options", "marks", "units", "units_required", "outcome_ids"}
    assert it.explanation not in str(view)
