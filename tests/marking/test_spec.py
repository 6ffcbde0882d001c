"""Marking specs: refused when a question cannot be marked, and built from generated items."""
from __future__ import annotations

import json

import pytest

from core.marking import key_as_typed, MarkingSpec, MarkingSpecError, gap_tags_from_blueprint, mark_answer
from tests.marking.helpers import ok


@pytest.mark.parametrize("kwargs, message", [
    (dict(method="essay", key="x"), "unknown marking method 'essay'"),
    (dict(method="mcq", key="a", options=["a", "b"], correct_index=2), "correct_index 2"),
    (dict(method="mcq", key="a"), "an mcq question needs its options"),
    (dict(method="numeric_tolerance", key="about ten"), "is not a number"),
    (dict(method="algebraic_equivalence", key="x +* 2"), "is not a readable expression"),
    (dict(method="ip_address", key="300.1.1.1"), "is not an IPv4 address"),
    (dict(method="cidr", key="10.0.0.0/40"), "is not an IPv4 network"),
    (dict(method="numeric_tolerance", key="1", tolerance_relative=-0.1), "tolerance_relative"),
    (dict(method="exact_match", key="1", required_form="tidy"), "unknown required_form"),
    (dict(method="exact_match", key="1", criteria=[{"step": "a", "marks": "two"}]), "criterion 'a'"),
])
def test_invalid_specs_are_refused_at_construction(kwargs, message):
    with pytest.raises(MarkingSpecError, match=message):
        MarkingSpec(**kwargs)


@pytest.fixture(scope="module")
def library():
    from core.blueprints.library import Library
    return Library.load(exercise=False)


def test_from_generated_mcq_item(library):
    gen = library.generator("MATH.ARITH.ADD.2DIGIT")
    item = gen.generate("hard", 1)
    spec = MarkingSpec.from_item(item, blueprint=gen.bp)
    assert spec.method == "mcq" and spec.options == item.options and spec.correct_index == item.correct_index
    assert spec.key == item.correct_answer and spec.marks == item.marks
    assert spec.misconceptions == item.misconceptions
    assert spec.misconception_tags == gap_tags_from_blueprint(gen.bp)
    assert ok(spec, item.correct_index) and ok(spec, item.correct_answer)
    assert ok(spec, "ABCD"[item.correct_index])
    for i, strategy in enumerate(item.option_strategies):
        if strategy is None:
            continue
        r = mark_answer(spec, i)
        assert not r.correct and r.misconception == strategy
        tag = spec.misconception_tags.get(strategy)
        assert r.gap_tags == ([tag] if tag else [])


def test_from_item_dict_and_json_round_trip(library):
    gen = library.generator("MATH.ARITH.ADD.2DIGIT")
    item = gen.generate("hard", 1)
    from_obj = MarkingSpec.from_item(item)
    assert MarkingSpec.from_item(item.to_dict()) == from_obj
    assert MarkingSpec.from_item(json.loads(json.dumps(item.to_dict()))) == from_obj
    tagged = MarkingSpec.from_item({**item.to_dict(), "misconception_tags": {"off_by_1": "counting"}})
    assert tagged.misconception_tags == {"off_by_1": "counting"}



def test_a_spec_shares_nothing_it_could_change_with_its_item(library):
    """from_item reads the item's fields without copying them: the spec's lists and mappings are its own."""
    item = library.generator("SQA.PHYS.H.PHOTON_ENERGY").generate("hard", 3)
    before = item.to_dict()
    spec = MarkingSpec.from_item(item)
    spec.options.append("x")
    spec.accepted_answers.append("y")
    spec.misconceptions["z"] = "1"
    spec.criteria[0]["marks"] = 99
    assert item.to_dict() == before


def test_a_key_checked_without_the_distractors_tags_is_not_checked_again_with_them(library, monkeypatch):
    """The check made ahead of marking (on the item) counts for the spec marking builds (with its gap tags)."""
    from core.flows.remediation import marking_spec
    from core.marking import keys
    item = library.generator("SQA.PHYS.H.PHOTON_ENERGY").generate("hard", 3)
    keys._ACCEPTED.clear()
    assert keys.item_key_problem(item) is None
    spec = marking_spec(item)
    assert spec != MarkingSpec.from_item(item) or not item.misconceptions
    checked = []
    monkeypatch.setattr(keys, "key_problem", lambda s: checked.append(s) or "refused")
    assert keys.spec_key_problem(spec) is None and checked == []
    assert keys.spec_key_problem(MarkingSpec.from_item(item, misconception_tags={"x": "y"})) is None
    other = MarkingSpec.from_item({**item.to_dict(), "correct_answer": "1"})
    assert keys.spec_key_problem(other) == "refused" and checked == [other]   # another key is checked

def test_from_item_dict_upgrades_ip_keys():
    base = {"correct_answer": "192.168.1.0", "options": [], "correct_index": None, "marks": 1,
            "evaluation": {"method": "exact_match"}, "marking_scheme": {"criteria": [], "total_marks": 1}}
    assert MarkingSpec.from_item(base).method == "ip_address"
    assert MarkingSpec.from_item({**base, "correct_answer": "10.0.0.0/8"}).method == "cidr"
    assert MarkingSpec.from_item({**base, "correct_answer": "85"}).method == "exact_match"


def test_from_numeric_item_with_criteria(library):
    gen = library.generator("SQA.PHYS.H.PHOTON_ENERGY")
    item = gen.generate("hard", 3)
    spec = MarkingSpec.from_item(item, blueprint=gen.bp)
    assert spec.method == "numeric_tolerance" and spec.tolerance_relative == 0.02
    assert spec.significant_figures == 3 and spec.partial_credit and spec.max_score == 3
    r = mark_answer(spec, item.correct_answer)
    assert r.correct and r.score == 3.0
    for strategy, wrong in item.misconceptions.items():
        r = mark_answer(spec, wrong)
        if r.correct:       # a distractor within 2% of the key cannot be told apart
            continue
        assert r.misconception is not None and r.score == 2.0
        tag = spec.misconception_tags.get(r.misconception)
        assert tag in r.gap_tags


def test_every_shipped_skill_marks_its_own_key_correct(library):
    from core.items.sampler import GenerationError
    checked = 0
    for skill_id, gen in sorted(library.generators.items()):
        for level in gen.bp.generation.difficulty_levels:
            for seed in range(1):
                try:
                    item = gen.generate(level, seed)
                except GenerationError:
                    continue
                spec = MarkingSpec.from_item(item, blueprint=gen.bp)
                typed = key_as_typed(spec)
                for answer in [typed] + [a for a in item.accepted_answers if a != item.correct_answer]:
                    r = mark_answer(spec, answer)
                    assert r.correct, (skill_id, level, answer, r.feedback)
                checked += 1
    assert checked >= 20
