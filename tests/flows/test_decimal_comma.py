"""A class that writes decimals with a comma: 3,5 is read as three and a half in every flow."""
from __future__ import annotations

import pytest

from core.flows.preview import preview_item
from core.flows.registry import make_runner
from core.school import classes
from core.store import Store, repo, school


@pytest.fixture
def runner(db_path, library):
    store = Store(db_path)
    yield make_runner(store, library)
    store.close()


def numeric_question(runner, sid: str) -> dict:
    for _ in range(40):
        q = runner.view(sid)["question"]
        item = repo.load_item(runner.ctx.store, q["id"])
        if not item.options and item.evaluation.get("method") == "numeric_tolerance" and not q.get("units_required") \
                and "." in item.correct_answer and "/" not in item.correct_answer:
            return q
        runner.command(sid, "skip")
    raise AssertionError("no decimal question came up")


def test_a_comma_class_reads_3_5_as_three_and_a_half(runner):
    store = runner.ctx.store
    classes.create_class(store, "COMMA-1", "Klasse 4b", "Mathematics", "Nat 5")
    student = classes.add_student(store, "COMMA-1", "Lena")
    assert not school.decimal_comma_for(store, student)
    school.update_class(store, "COMMA-1", decimal_comma=True)
    assert school.decimal_comma_for(store, student)

    sid = runner.start("practice", student, {"subject": "Mathematics", "level": "Nat 5", "seed": 3})
    q = numeric_question(runner, sid)
    key = repo.load_item(store, q["id"]).correct_answer
    typed = key.replace(".", ",")
    reading = preview_item(store, q["id"], typed, student)
    assert reading["valid"], reading
    assert not preview_item(store, q["id"], typed)["valid"] or typed == key   # without the class: not read as meant
    view = runner.command(sid, "answer", item_id=q["id"], answer=typed)
    assert view["feedback"]["correct"], view["feedback"]
