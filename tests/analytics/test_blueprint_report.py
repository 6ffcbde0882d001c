"""A blueprint's report from the store: which blueprints a class answered, and one read giving what the
distractor and parameter reports give separately (the Analytics page shows the one read)."""
from __future__ import annotations

import pandas as pd
import pytest

from core.analytics import reports
from core.store import Store
from core.store import analytics as data
from tests.analytics.classes import BLUEPRINTS, many_answers_class

CODE = "BR-1"


@pytest.fixture(scope="module")
def taught(tmp_path_factory, library):
    """A class with plenty of answers to two blueprints, in a DuckDB file."""
    st = Store(tmp_path_factory.mktemp("blueprint_report") / "w.duckdb")
    many_answers_class(st, library, CODE, students=16, answers=30)
    yield st
    st.close()


def test_the_blueprints_a_class_answered_come_most_answered_first(taught):
    answered = reports.answered_blueprints(taught, CODE)
    counts = data.responses(taught, CODE)["blueprint_id"].value_counts()
    assert sorted(answered) == sorted(BLUEPRINTS)
    assert [counts[bp] for bp in answered] == sorted(counts, reverse=True)
    assert reports.answered_blueprints(taught, "NO-SUCH-CLASS") == []


def test_both_engines_order_the_answered_blueprints_alike(store, library):
    many_answers_class(store, library, CODE, students=4, answers=12)
    counts = data.responses(store, CODE)["blueprint_id"].value_counts()
    assert reports.answered_blueprints(store, CODE) == sorted(counts.index, key=lambda bp: (-counts[bp], bp))
    assert reports.answered_blueprints(store, None) == reports.answered_blueprints(store, CODE)


def test_one_read_gives_what_the_separate_reports_give(taught):
    theta = reports.abilities(taught, CODE).set_index("student")["theta"]
    for bp in BLUEPRINTS:
        found = reports.blueprint_report(taught, CODE, bp, ability=theta)
        distractors, strategies = reports.distractor_report(taught, CODE, bp, ability=theta)
        effects, by_value = reports.parameter_report(taught, CODE, bp)
        for name, alone in (("distractors", distractors), ("strategies", strategies), ("effects", effects),
                            ("by_value", by_value)):
            pd.testing.assert_frame_equal(found[name], alone, obj=f"{bp} {name}")
        assert not found["effects"].empty and not found["by_value"].empty, bp


def test_the_tables_count_every_first_answer_once(taught):
    theta = reports.abilities(taught, CODE).set_index("student")["theta"]
    answers = data.responses(taught, CODE)
    assert (answers["item_type"] == "multiple_choice").any() and (answers["item_type"] != "multiple_choice").any()
    for bp in BLUEPRINTS:
        found = reports.blueprint_report(taught, CODE, bp, ability=theta)
        mine = answers[answers["blueprint_id"] == bp]
        mcq = mine[mine["item_type"] == "multiple_choice"]
        if not mcq.empty:
            per_item = found["distractors"].groupby("item_id")["count"].sum()
            assert per_item.to_dict() == mcq.groupby("item_id").size().to_dict()
            assert found["distractors"].groupby("item_id")["share"].sum().round(9).eq(1).all()
            assert found["distractors"].groupby("item_id")["is_key"].sum().eq(1).all()
        for parameter, rows in found["by_value"].groupby("parameter"):   # every answer under one value of each
            assert rows["n"].sum() == len(mine), (bp, parameter)
        assert found["effects"]["n"].eq(len(mine)).all()


def test_a_blueprint_nobody_answered_gives_empty_tables(taught, library):
    other = next(bp for bp in sorted(library.generators) if bp not in BLUEPRINTS)
    found = reports.blueprint_report(taught, CODE, other)
    assert set(found) == {"distractors", "strategies", "effects", "by_value"}
    assert all(table.empty for table in found.values())
