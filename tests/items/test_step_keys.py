"""Generated items carry their steps' keys, so marking step by step needs no blueprint."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from core.marking import MarkingSpec, evaluate, mark_steps
from core.store import Store, repo

RECURRENCE = "SQA.MATH.H.RECURRENCE_LIMIT"


@pytest.fixture
def gen(library):
    return library.generator(RECURRENCE)


def test_generation_stores_each_steps_key_name_and_follow_through(gen):
    item = gen.generate("hard", "keys/1")
    params, computed = item.generation_params, item.computed_values
    criteria = item.marking_scheme["criteria"]
    assert [("answer_key" in c) for c in criteria] == [False, True, True]
    assert criteria[0] == {"step": criteria[0]["step"], "marks": 1, "gap_tag": "communication", "description": None}
    multiplier, limit = criteria[1], criteria[2]
    assert float(multiplier["answer_key"]) == pytest.approx((100 - computed["pct"]) / 100)
    assert multiplier["name"] == "multiplier" and multiplier["tolerance"] == {"absolute": 0.001}
    assert limit["answer_key"] == item.correct_answer
    # Parameters are filled in: only the earlier step's name is left.
    assert set(re.findall(r"[A-Za-z_]+", limit["follow_through"])) == {"multiplier"}
    assert str(params["b"]) in limit["follow_through"]
    recomputed = evaluate(limit["follow_through"], {"multiplier": float(multiplier["answer_key"])})
    assert recomputed == pytest.approx(float(item.correct_answer), abs=0.01)


def test_the_same_seed_gives_the_same_step_keys(gen):
    assert gen.generate("medium", "same").marking_scheme == gen.generate("medium", "same").marking_scheme


def test_blueprints_without_step_answers_keep_their_criteria_as_before(library):
    item = library.generator("SQA.MATH.N5.COSINE_RULE").generate("easy", "plain")
    assert item.marking_scheme["criteria"]
    for c in item.marking_scheme["criteria"]:
        assert set(c) == {"step", "marks", "gap_tag", "description"}
    assert "steps" not in item.student_view()


def test_the_student_view_lists_the_boxes_without_keys(gen):
    item = gen.generate("easy", "view")
    view = item.student_view()
    assert [s["index"] for s in view["steps"]] == [1, 2]
    assert view["steps"][-1]["final"] and not view["steps"][0]["final"]
    text = json.dumps(view)
    assert item.correct_answer not in re.findall(r"[-\d.]+", json.dumps(view["steps"]))
    assert "answer_key" not in text and "follow_through" not in text


def test_a_stored_item_is_marked_step_by_step_without_the_blueprint(gen, tmp_path: Path):
    store = Store(tmp_path / "steps.duckdb")
    try:
        item = gen.generate("hard", "stored")
        repo.insert_items(store, [item])
        loaded = repo.load_item(store, item.id)
    finally:
        store.close()
    assert loaded.marking_scheme == item.marking_scheme
    spec = MarkingSpec.from_item(loaded)
    a = float(item.marking_scheme["criteria"][1]["answer_key"])
    b = item.generation_params["b"]
    wrong_multiplier = round(1 - a, 2)            # the percentage removed, taken as the multiplier
    followed = f"{b / (1 - wrong_multiplier):.2f}"
    result = mark_steps(spec, {"1": str(wrong_multiplier), "2": followed})
    assert not result.correct
    assert [v.awarded for v in result.criteria] == [0, 0, 1]
    assert result.criteria[2].follow_through
    assert mark_steps(spec, {"2": item.correct_answer}).score == 3.0
