"""Small numbers say so: intervals, the "few answers" marks and the one-line warnings, on real stores."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.analytics import evidence, reports
from core.analytics.reports import readable
from core.blueprints.library import Library
from core.demo.simulate import Simulation
from core.school.classes import create_class
from core.store import Store, school
from tests.analytics.classes import many_answers_class

FEW, MANY = "EV-FEW", "EV-MANY"


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    library = Library.load(exercise=False)
    s = Store(tmp_path_factory.mktemp("evidence") / "ev.duckdb")
    create_class(s, FEW, "Few answers", "Mathematics", "Nat 5")
    names = [f"{FEW}:s{i}" for i in range(3)]
    school.add_students(s, FEW, [(n, f"Pupil {i}") for i, n in enumerate(names)])
    Simulation(s, library, seed=5).run(3, practice_sessions=1, questions=6, exams=0, lessons=0, names=names)
    many_answers_class(s, library, MANY)
    yield s, library
    s.close()


def test_wilson_interval_matches_known_values():
    low, high = evidence.wilson([3, 50, 0], [3, 100, 10])
    assert np.allclose(low, [0.4385, 0.4038, 0.0], atol=1e-3)
    assert np.allclose(high, [1.0, 0.5962, 0.2775], atol=1e-3)
    low, high = evidence.wilson(0, 0)
    assert np.isnan(low) and np.isnan(high)


def test_interval_is_estimate_plus_minus_196_standard_errors():
    low, high = evidence.interval([1.0, 0.0], [0.5, np.nan])
    assert np.allclose(low[:1], [0.02]) and np.allclose(high[:1], [1.98]) and np.isnan(low[1])


def test_few_note_counts_the_marked_rows_and_names_the_threshold():
    flags = evidence.few([3, 40, None, 29], evidence.FEW_ANSWERS_ITEM)
    assert flags.tolist() == [True, False, True, True]
    note = evidence.few_note(flags, "blueprint levels", evidence.FEW_ANSWERS_ITEM)
    assert note.startswith("3 of 4 blueprint levels rest on fewer than 30 answers")
    assert evidence.few_note([False, False], "rows", 30) is None
    assert evidence.few_note([True], "papers", 20, unit="students").startswith("1 of 1 papers rests on fewer than 20 students")


def test_thresholds_have_their_reasons_in_order():
    assert evidence.FEW_ANSWERS_UNIT == evidence.FEW_ANSWERS_ITEM == 30
    assert evidence.FEW_ANSWERS_MASTERY < evidence.FEW_ANSWERS_STUDENT < evidence.FEW_STUDENTS_RELIABILITY


def test_an_item_table_of_few_answers_is_marked_and_says_how_many(store):
    s, _ = store
    read = readable.item_table(reports.item_table(s, FEW))
    few = read.frame[read.frame["few_answers"]]
    assert len(few) == (read.frame["n"] < evidence.FEW_ANSWERS_ITEM).sum() > 0
    assert read.note.startswith(f"{len(few)} of {len(read.frame)} rows rest on fewer than 30 answers")
    assert few["advice"].str.startswith("too few answers to judge yet").all()
    f = read.frame
    assert ((f["facility_low"] <= f["facility"] + 1e-12) & (f["facility"] <= f["facility_high"] + 1e-12)).all()


def test_a_class_with_many_answers_carries_no_warning(store):
    s, library = store
    assert readable.item_table(reports.item_table(s, MANY)).note is None
    assert readable.students(reports.class_overview(s, MANY)["per_student"]).note is None
    assert readable.weakest(reports.class_weakest(s, library, MANY)).note is None
    reports.run_calibration(s, "rasch", "family", MANY)
    run, params = reports.latest_parameters(s)
    read = readable.units(params)
    assert read.note is None and not read.frame["few_answers"].any()
    assert (read.frame["low"] < read.frame["difficulty"]).all() and (read.frame["difficulty"] < read.frame["high"]).all()
    assert readable.abilities(reports.abilities(s, MANY)).note is None


def test_a_student_with_few_answers_is_marked(store):
    s, _ = store
    ability = pd.DataFrame({"student": ["a", "b"], "theta": [0.1, 0.4], "n": [4, 60]})
    read = readable.abilities(ability)
    assert read.frame["few_answers"].tolist() == [True, False]
    assert read.note.startswith("1 of 2 students' abilities rests on fewer than 10 answers")


def test_reliability_from_few_students_is_marked_and_advised():
    table = pd.DataFrame({"form": ["Maths N5", "Maths N4"], "alpha": [0.82, 0.81], "n_students": [8, 40]})
    read = readable.reliability(table)
    assert read.frame["few_answers"].tolist() == [True, False]
    assert read.frame["advice"].tolist() == ["too few students to judge (8 of 20)",
                                             "good: the total ranks students consistently"]
    assert "1 of 2 papers rests on fewer than 20 students" in read.note


def test_mastery_answers_line_up_with_the_mastery_matrix(store):
    s, library = store
    matrix = reports.mastery_matrix(s, library, MANY)
    answers = reports.mastery_answers(s, library, MANY)
    assert list(answers.index) == list(matrix.index) and set(answers.columns) == set(matrix.columns)
    assert answers.to_numpy().sum() == len(reports.class_overview(s, MANY)["per_student"]) * 60


def test_axis_labels_are_shortened_with_the_cut_shown():
    long = "Changing the subject of a formula with fractions and roots"
    label = readable.axis_label(long, width=16, lines=2)
    assert label.count("<br>") == 1 and label.endswith("…") and all(len(p) <= 16 for p in label.split("<br>"))
    assert readable.axis_label("Surds") == "Surds"
