"""Generation and bank questions under time budgets and size bounds: slow or hostile formulas end in a message, fast."""
from __future__ import annotations

import json
import random
import time

import pytest

from core.blueprints.formula import time_budget
from core.blueprints.library import check_skill
from core.blueprints.loader import parse_text
from core.items import generator as generator_module
from core.items.banks import files as bank_files
from core.items.banks import parse_bank, row_formula, variants
from core.items.generator import GenerationError, format_value
from core.items.sampler import GenerationTimeout, LevelSampler
from tests.blueprints.test_blueprints import SKILL
from tests.items.test_banks import formula_q

SLOW = "surd_simplify(999999936 + a // a) != ''"     # true, milliseconds each, and reads a name


def generator_for(text: str):
    gen, found = check_skill(parse_text(text, "t.yaml"), exercise=False)
    assert gen is not None, found
    return gen


def rare_skill() -> str:
    return SKILL.replace("a: {type: integer, min: 1, max: 9}", "a: {type: integer, min: 1, max: 99999}") \
                .replace("b: {type: integer, min: 1, max: 9}", "b: {type: integer, min: 1, max: 99999}") \
                .replace('"a + b < 10"', f'"{SLOW} and a == b + 99998"')


# --------------------------------------------------------------------------
# Sampling and generating


def test_sampling_stops_when_the_budget_runs_out_and_says_why():
    gen = generator_for(rare_skill())
    start = time.perf_counter()
    with time_budget(0.3):
        with pytest.raises(GenerationTimeout, match="level easy: constraints are met by too few parameter draws "
                                                    "within the time allowed"):
            gen.sampler("easy").sample(random.Random(1))
    assert time.perf_counter() - start < 3


def test_a_budget_running_out_half_way_leaves_no_half_built_sampler():
    gen = generator_for(SKILL.replace("max: 9}", "max: 600}"))
    sampler = gen.sampler("easy")
    with time_budget(0.0):
        with pytest.raises(GenerationTimeout):
            sampler.sample(random.Random(1))
    assert all(c.mode is None and c.valid is None for c in sampler.components)
    fresh = LevelSampler(gen.cs, "easy")
    assert sampler.sample(random.Random(5)) == fresh.sample(random.Random(5))


def test_each_item_has_a_time_budget(monkeypatch):
    monkeypatch.setattr(generator_module, "ITEM_BUDGET_S", 0.05)
    slow_values = "\n  computed_values:\n" + "".join(f'    c{i}: "{SLOW} or {i}"\n' for i in range(40))
    gen = generator_for(SKILL.replace("  answer_formula:", slow_values.rstrip("\n") + "\n  answer_formula:"))
    start = time.perf_counter()
    with pytest.raises(GenerationTimeout, match="took longer than the time allowed"):
        gen.generate("easy", 1)
    with pytest.raises(GenerationTimeout):
        gen.batch("hard", 3, 1)
    with pytest.raises(GenerationTimeout):
        gen.key_for({"a": 5, "b": 4})
    assert time.perf_counter() - start < 5


def test_counting_variants_has_a_time_budget(monkeypatch):
    monkeypatch.setattr(generator_module, "ITEM_BUDGET_S", 0.3)
    gen = generator_for(rare_skill())
    with pytest.raises(GenerationTimeout, match="constraints are met by too few"):
        gen.variants("easy")


def test_keys_too_large_for_their_answer_type_are_generation_errors():
    huge = (2 ** 1023 - 1) * 2 + 1
    with pytest.raises(GenerationError, match="cannot be written as a decimal"):
        format_value(huge, "decimal", None, True, "answer_formula")
    with pytest.raises(GenerationError, match="cannot be written as a decimal"):
        format_value(huge, "decimal", 2, True, "answer_formula")
    assert format_value(huge, "integer", None, True, "answer_formula") == str(huge)


def test_a_validated_blueprint_still_generates_as_before():
    gen = generator_for(SKILL)
    first = [it.stem for it in gen.batch("easy", 5, "s").items]
    assert first == [it.stem for it in generator_for(SKILL).batch("easy", 5, "s").items]


# --------------------------------------------------------------------------
# Bank rows with formulas


def errors_of(tmp_path, rows) -> list:
    path = tmp_path / "bank.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    start = time.perf_counter()
    result = parse_bank(path)
    assert time.perf_counter() - start < 10
    return [(e.row, e.field, e.message) for e in result.errors]


@pytest.mark.parametrize("over, field, words", [
    ({"answer_formula": "numerator('1e99999999')"}, "answer_formula", "not text"),
    ({"variables": {"l": {"values": ["1e99999999", "2"]}, "w": {"values": [2, 4]}}, "values": {"l": "1e99999999", "w": 4},
      "answer_formula": "numerator(l) * w"}, "answer_formula", "not text"),
    ({"answer_formula": "len('%0999999999d' % l)"}, "answer_formula", "width too large"),
    ({"answer_formula": "l ** 10 ** 10"}, "answer_formula", "exponent too large"),
    ({"constraints": ["l > 0"] * 60}, "constraints", "at most 50"),
    ({"values": {"l": "x" * 500, "w": 4}}, "values", "at most 200"),
    ({"variables": {"l": {"min": -1e308, "max": 1e308, "step": 1e-300}, "w": {"values": [2, 4]}}}, "variables",
     "more than 1,000,000"),
])
def test_hostile_bank_rows_are_refused_quickly(tmp_path, over, field, words):
    found = errors_of(tmp_path, [formula_q(**over)])
    assert any(f == field and words in m for _, f, m in found), found


def test_a_slow_row_has_a_time_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(row_formula, "ROW_BUDGET_S", 0.01)
    slow = " and ".join([SLOW.replace("a // a", "l // l")] * 20)
    found = errors_of(tmp_path, [formula_q(constraints=[slow])])
    assert any(f == "answer_formula" and "took longer than the time allowed" in m for _, f, m in found), found


def test_a_file_of_slow_rows_has_a_time_budget(tmp_path, monkeypatch):
    monkeypatch.setattr(bank_files, "FORMULA_BUDGET_S", 0.2)
    slow = " and ".join([SLOW.replace("a // a", "l // l")] * 20)
    rows = [formula_q(id=f"r{i}", constraints=[slow], values={"l": 6 + i % 9, "w": 4}, answer=str(4 * (6 + i % 9)))
            for i in range(40)]
    found = errors_of(tmp_path, rows)
    assert any("time allowed for the formulas of this file" in m for _, _, m in found), found


def test_finding_a_variant_has_a_time_budget(monkeypatch):
    slow = " and ".join([SLOW.replace("a // a", "l // l")] * 20)
    item = parse_bank(json.dumps([formula_q(constraints=[slow])]), "json").questions[0]
    monkeypatch.setattr(variants, "VARIANT_BUDGET_S", 0.0)
    start = time.perf_counter()
    assert variants.mutate_bank_question(item, 1, seed=1) is None
    assert time.perf_counter() - start < 2
