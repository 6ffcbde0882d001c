"""Calibration by item, family and skill with declared priors, stored calibrations that adaptive practice
reads, the command line, and the reports behind the Analytics page, on real DuckDB files."""
from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

from core.cli import main
from core.analytics import reports
from core.analytics import calibration
from core.analytics.calibration import CalibrationError, calibrate, icc_frame, level_order
from core.flows import practice
from core.flows.practice import difficulty_logit
from core.store import Store
from core.store import analytics as data
from tests.conftest import BACKENDS

LEVELS = {"easy": 0.3, "medium": 0.5, "hard": 0.7}


def family_responses(n_students=600, per_family=12, seed=3, truth=None, rng_items=2) -> tuple[pd.DataFrame, dict]:
    """Unique generated items in 4 blueprints x 3 levels; each family has one true Rasch difficulty."""
    rng = np.random.default_rng(seed)
    truth = truth or {f"BP{k}|{lvl}": b for k in range(4)
                      for lvl, b in zip(LEVELS, (-1.0 + 0.2 * k, 0.0 + 0.2 * k, 1.0 + 0.2 * k))}
    theta = rng.normal(0, 1, n_students)
    rows, item_no = [], 0
    for s in range(n_students):
        for fam in rng.choice(list(truth), size=per_family, replace=False):
            bp, lvl = fam.split("|")
            item_no += 1
            p = 1 / (1 + np.exp(-(theta[s] - truth[fam])))
            rows.append({"student": f"s{s:04d}", "item_id": f"it{item_no:06d}", "family": fam, "skill": bp,
                         "blueprint_id": bp, "difficulty_level": lvl, "difficulty_value": LEVELS[lvl],
                         "correct": int(rng.random() < p)})
    return pd.DataFrame(rows), truth


def test_family_level_recovers_shared_difficulties_of_unique_items():
    frame, truth = family_responses()
    result = calibrate(frame, "rasch", "family", use_declared=False)
    got = result.parameters.set_index("unit")["difficulty"]
    assert set(got.index) == set(truth) and (result.parameters["kind"] == "family").all()
    est = np.array([got[f] for f in truth])
    true = np.array(list(truth.values()))
    est, true = est - est.mean(), true - true.mean()          # same centring on both scales
    assert np.sqrt(np.mean((est - true) ** 2)) < 0.12          # 7,200 answers, 12 families
    assert len(result.abilities) == 600 and result.abilities["se"].gt(0).all()
    assert {"infit", "outfit"} <= set(result.parameters.columns)


def test_item_level_gives_every_unique_item_its_own_unit_and_auto_pools_the_rare_ones():
    frame, _ = family_responses(n_students=200, per_family=6)
    frame.loc[frame.index[:40], "item_id"] = "popular"          # one item answered 40 times
    by_item = calibrate(frame, "rasch", "item")
    assert len(by_item.parameters) == frame["item_id"].nunique()
    auto = calibrate(frame, "rasch", "auto", min_responses=30)
    kinds = auto.parameters.set_index("unit")["kind"]
    assert kinds["popular"] == "item" and (kinds.drop("popular") == "family").all()
    by_skill = calibrate(frame, "rasch", "skill")
    assert sorted(by_skill.parameters["unit"]) == ["BP0", "BP1", "BP2", "BP3"]


def test_the_declared_difficulty_is_the_prior_of_a_sparse_family():
    frame, _ = family_responses(n_students=300, per_family=6)
    sparse = frame[frame["family"] == "BP0|hard"].index[:3]
    frame = frame.drop(frame[(frame["family"] == "BP0|hard")].index.difference(sparse))
    frame.loc[sparse, "correct"] = 1                            # three right answers only
    with_prior = calibrate(frame, "rasch", "family").parameters.set_index("unit")
    without = calibrate(frame, "rasch", "family", use_declared=False).parameters.set_index("unit")
    declared = difficulty_logit(0.7)
    assert with_prior.loc["BP0|hard", "declared"] == pytest.approx(declared)
    assert abs(with_prior.loc["BP0|hard", "difficulty"] - declared) < abs(without.loc["BP0|hard", "difficulty"] - declared)
    assert np.isfinite(with_prior["difficulty"]).all()


def arrow_text(values, chunks: int = 4) -> pd.Series:
    """A text column as the store returns it: Arrow large strings in several chunks, nulls kept."""
    pieces = np.array_split(np.asarray(values, dtype=object), chunks)
    text = [pa.array(c, type=pa.large_string(), from_pandas=True) for c in pieces]
    return pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array(text)))


def test_a_calibration_is_the_same_from_the_store_s_arrow_text_in_any_row_order_and_with_unmarked_rows():
    frame, _ = family_responses(n_students=200, per_family=6)
    popular = frame.index[:40]                                       # one item answered 40 times
    frame.loc[popular, ["item_id", "family", "skill", "difficulty_value"]] = ["popular", "BP0|easy", "BP0", 0.3]
    bank = frame.index[40:60]
    frame.loc[bank, ["family", "difficulty_value"]] = None           # bank items: no family, nothing declared
    frame["family"] = frame["family"].astype(object)
    expected = calibrate(frame, "rasch", "auto", min_responses=30)
    unmarked = frame.iloc[:25].assign(correct=None, student="nobody")     # answers not marked yet
    mixed = pd.concat([frame.astype({"correct": object}), unmarked]).sample(frac=1.0, random_state=4)
    from_store = pd.DataFrame({c: arrow_text(mixed[c]) if c in ("student", "item_id", "family", "skill") else
                               mixed[c].to_numpy() for c in mixed.columns})
    got = calibrate(from_store, "rasch", "auto", min_responses=30)
    pd.testing.assert_frame_equal(got.parameters, expected.parameters, check_exact=False, rtol=1e-12)
    pd.testing.assert_frame_equal(got.abilities, expected.abilities, check_exact=False, rtol=1e-12)
    assert got.unit_of_item == expected.unit_of_item and got.n_responses == len(frame)
    kinds = got.parameters.set_index("unit")["kind"]
    assert kinds["popular"] == "item" and (kinds[frame.loc[bank, "item_id"]] == "item").all()
    assert (kinds.drop(["popular", *frame.loc[bank, "item_id"]]) == "family").all()
    assert list(got.parameters["unit"]) == sorted(got.parameters["unit"])     # units come out sorted


def test_declared_difficulties_are_read_on_the_practice_scale_and_averaged_over_the_responses():
    values = np.array([0.0, 0.01, 0.3, 0.5, 0.7, 0.99, 1.0])
    clipped = np.clip(values, 0.02, 0.98)
    assert calibration.difficulty_logit(values) == pytest.approx(1.6 * np.log(clipped / (1 - clipped)))
    assert difficulty_logit is calibration.difficulty_logit     # the practice flow reads the same scale
    assert calibration.difficulty_logit(0.5) == 0.0 and calibration.difficulty_logit(0.7) > 0
    assert np.isnan(calibration.difficulty_logit(np.nan))
    rng = np.random.default_rng(5)
    rows = [{"student": f"s{k}", "item_id": item, "skill": "SK", "difficulty_value": value,
             "correct": int(rng.random() < 0.5)}
            for item, value, times in (("easy", 0.3, 30), ("hard", 0.7, 10), ("bank", None, 5)) for k in range(times)]
    declared = calibrate(pd.DataFrame(rows), "rasch", "skill").parameters.set_index("unit").loc["SK", "declared"]
    assert declared == pytest.approx((30 * difficulty_logit(0.3) + 10 * difficulty_logit(0.7)) / 40)


def test_level_order_flags_levels_out_of_order_and_levels_without_a_difference():
    params = pd.DataFrame([
        {"unit": "A|easy", "kind": "family", "difficulty": -1.0, "se_difficulty": 0.1, "n": 200, "declared": -1.4},
        {"unit": "A|medium", "kind": "family", "difficulty": 1.2, "se_difficulty": 0.1, "n": 200, "declared": 0.0},
        {"unit": "A|hard", "kind": "family", "difficulty": 0.3, "se_difficulty": 0.1, "n": 200, "declared": 1.4},
        {"unit": "B|easy", "kind": "family", "difficulty": 0.00, "se_difficulty": 0.1, "n": 200, "declared": -1.4},
        {"unit": "B|hard", "kind": "family", "difficulty": 0.10, "se_difficulty": 0.1, "n": 200, "declared": 1.4},
        {"unit": "C|easy", "kind": "family", "difficulty": -0.5, "se_difficulty": 0.6, "n": 8, "declared": -1.4},
        {"unit": "C|hard", "kind": "family", "difficulty": -0.9, "se_difficulty": 0.6, "n": 8, "declared": 1.4},
        {"unit": "item-9", "kind": "item", "difficulty": 0.0, "se_difficulty": 0.1, "n": 200, "declared": None},
    ])
    order = level_order(params).set_index(["blueprint_id", "level"])
    assert "measures easier than medium" in order.loc[("A", "hard"), "flag"]
    assert order.loc[("A", "easy"), "flag"] == "" and order.loc[("A", "medium"), "flag"] == ""
    assert "no real difference" in order.loc[("B", "hard"), "flag"]
    assert order.loc[("C", "hard"), "flag"] == ""                # easier, but within the noise of 8 answers each
    assert "item-9" not in set(order.reset_index()["blueprint_id"])


def test_wrong_requests_say_what_to_do():
    frame, _ = family_responses(n_students=20, per_family=3)
    with pytest.raises(CalibrationError, match="model must be one of"):
        calibrate(frame, "3pl")
    with pytest.raises(CalibrationError, match="level must be one of"):
        calibrate(frame, "rasch", "class")
    with pytest.raises(CalibrationError, match="need the column"):
        calibrate(frame.drop(columns=["correct"]))
    with pytest.raises(CalibrationError, match="no responses"):
        calibrate(frame.iloc[:0])


def test_icc_frame_gives_rising_curves():
    params = pd.DataFrame({"unit": ["a", "b"], "difficulty": [-1.0, 1.0], "discrimination": [1.0, 2.0]})
    curves = icc_frame(params, ["a", "b"])
    for _, c in curves.groupby("unit"):
        assert c["p"].is_monotonic_increasing
    mid = curves[(curves["unit"] == "b") & np.isclose(curves["theta"], 1.0)]["p"].iloc[0]
    assert mid == pytest.approx(0.5)


# --------------------------------------------------------------------------
# Stored calibrations and adaptive practice


def test_a_stored_calibration_round_trips_and_adaptive_practice_reads_it(store, library):
    frame, truth = family_responses(n_students=200, per_family=6)
    result = calibrate(frame, "rasch", "family")
    run_id = data.save_calibration(store, result.run_record(), result.parameters, result.abilities)
    run = data.latest_calibration(store)
    assert run["id"] == run_id and run["unit_level"] == "family" and run["n_units"] == 12
    stored = data.calibration_parameters(store, run_id).set_index("unit")
    assert stored.loc["BP1|hard", "difficulty"] == pytest.approx(result.parameters.set_index("unit").loc["BP1|hard", "difficulty"])
    assert len(data.calibration_abilities(store, run_id)) == 200
    # a real blueprint level, measured far harder than declared
    gen = library.generator("MATH.ARITH.ADD.2DIGIT")
    item = gen.generate("easy", "x")
    extra = pd.DataFrame([{"unit": "MATH.ARITH.ADD.2DIGIT|easy", "kind": "family", "difficulty": 2.5,
                           "discrimination": 1.0, "n": 500}])
    data.save_calibration(store, {**result.run_record(), "model": "rasch"}, extra)
    practice._calibrated.clear()
    b, a, where = practice.item_parameters(store, item)
    assert (b, a, where) == (2.5, 1.0, "calibrated")
    other = gen.generate("hard", "y")
    assert practice.item_parameters(store, other) == (difficulty_logit(other.difficulty_value), 1.0, "declared")
    up = practice.online_update({"theta": 0.0, "n": 0}, b, True, a)
    assert up["theta"] > 0 and up["se"] < practice.PRIOR_SE and up["n"] == 1


# --------------------------------------------------------------------------
# Command line


def test_cli_calibrates_a_csv(tmp_path, capsys):
    frame, _ = family_responses(n_students=150, per_family=5)
    path = tmp_path / "responses.csv"
    frame.rename(columns={"student": "student_id"})[["student_id", "item_id", "correct", "family"]].to_csv(path, index=False)
    out, abilities = tmp_path / "units.csv", tmp_path / "abilities.csv"
    assert main(["calibrate", "--responses", str(path), "--model", "2pl", "--level", "family", "--out", str(out),
                 "--abilities", str(abilities), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["n_responses"] == len(frame) and report["n_units"] == 12 and report["calibration_id"] is None
    units = pd.read_csv(out)
    assert {"family", "difficulty", "discrimination", "se_difficulty", "n"} <= set(units.columns) and len(units) == 12
    assert len(pd.read_csv(abilities)) == 150
    assert main(["calibrate", "--responses", str(path), "--json"]) == 0           # rasch by item, printed
    units = json.loads(capsys.readouterr().out)["units"]
    assert len(units) == frame["item_id"].nunique() and "discrimination" not in units[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_cli_calibrates_the_database_and_stores_the_result(backend, tmp_path, capsys, library, request):
    from core.demo.simulate import Simulation
    db = tmp_path / "w.duckdb" if backend == "duckdb" else request.getfixturevalue("pg_url")
    store = Store(db)
    Simulation(store, library, seed=2).run(6, practice_sessions=1, questions=8, exams=0, lessons=0)
    store.close()
    assert main(["calibrate", "--db", str(db), "--level", "auto", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["calibration_id"] == "cal_000001" and report["n_responses"] >= 40
    store = Store(db)
    try:
        assert data.latest_calibration(store)["unit_level"] == "auto"
    finally:
        store.close()


def test_cli_reads_answers_as_words_decimals_or_blanks_and_keeps_ids_as_written(tmp_path):
    frame, _ = family_responses(n_students=120, per_family=5)
    expected = calibrate(frame[["student", "item_id", "correct", "family"]], "rasch", "family").parameters
    plain = frame.rename(columns={"student": "student_id"})[["student_id", "item_id", "correct", "family"]]
    out = tmp_path / "units.csv"
    for name, correct in (("words", plain["correct"].map({1: "True", 0: "False"})),
                          ("decimals", plain["correct"].astype(float))):
        path = tmp_path / f"{name}.csv"
        plain.assign(correct=correct).to_csv(path, index=False)
        assert main(["calibrate", "--responses", str(path), "--level", "family", "--out", str(out)]) == 0, name
        units = pd.read_csv(out).set_index("family")
        assert units["difficulty"].to_dict() == pytest.approx(expected.set_index("unit")["difficulty"].to_dict()), name
    path, abilities = tmp_path / "ids.csv", tmp_path / "abilities.csv"
    path.write_text("student_id,item_id,correct\n007,1,1\n7,1,0\n007,2,\n7,2,1\n007,3,NA\n")
    assert main(["calibrate", "--responses", str(path), "--out", str(out), "--abilities", str(abilities)]) == 0
    students = pd.read_csv(abilities, dtype={"student": str}).set_index("student")["n"].to_dict()
    assert students == {"007": 1, "7": 2}                           # "007" is not "7"; blanks and NA are unmarked
    assert sorted(pd.read_csv(out, dtype={"item": str})["item"]) == ["1", "2"]


def test_the_calibrate_command_imports_only_what_it_uses(tmp_path):
    path = tmp_path / "complete.csv"
    path.write_text("student_id,item_id,correct\na,q1,1\na,q2,0\nb,q1,0\nb,q2,1\nc,q1,1\nc,q2,1\n")
    code = ("import sys; from core.cli import main; "
            f"code = main(['calibrate', '--responses', {str(path)!r}, '--out', {str(tmp_path / 'u.csv')!r}]); "
            "print(code, ' '.join(sorted(sys.modules)))")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=os.environ,
                         cwd=Path(__file__).resolve().parents[2], timeout=120)
    assert run.returncode == 0, run.stderr
    status, modules = run.stdout.strip().splitlines()[-1].split(" ", 1)
    loaded = set(modules.split())
    assert status == "0"
    unneeded = {m for m in loaded if m.split(".")[0] in {"streamlit", "plotly", "sympy", "openai"}
                or m.startswith(("core.flows", "core.llm", "core.blueprints", "core.items.generator", "scipy.special"))}
    assert not unneeded, sorted(unneeded)
    assert "scipy.sparse" not in loaded          # complete data (one fixed paper) never build a sparse matrix


@pytest.mark.parametrize("args, message", [
    ([], "one of them"),
    (["--responses", "nowhere.csv"], "no such file"),
    (["--responses", "{bad}", "--level", "family"], "needs a 'family' column"),
    (["--responses", "{short}"], "lacks correct"),
])
def test_cli_calibrate_errors_are_one_line(tmp_path, capsys, args, message):
    bad = tmp_path / "bad.csv"
    bad.write_text("student_id,item_id,correct\na,i1,1\nb,i1,0\n")
    short = tmp_path / "short.csv"
    short.write_text("student_id,item_id\na,i1\n")
    args = [a.replace("{bad}", str(bad)).replace("{short}", str(short)) for a in args]
    assert main(["calibrate", *args]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


# --------------------------------------------------------------------------
# Reports on a class


@pytest.fixture(scope="module")
def school_db(tmp_path_factory, library):
    from core.school.classes import create_class
    from core.demo.simulate import Simulation
    from core.store import school
    s = Store(tmp_path_factory.mktemp("reports") / "w.duckdb")
    create_class(s, "RPT-1", "Reports class", "Mathematics", "Nat 5")
    names = [f"RPT-1:s{i:02d}" for i in range(16)]
    school.add_students(s, "RPT-1", [(n, f"Student {i:02d}") for i, n in enumerate(names)])
    Simulation(s, library, seed=5).run(16, practice_sessions=2, questions=8, exams=1, lessons=0, names=names)
    yield s
    s.close()


def test_class_overview_agrees_with_the_responses_table(school_db):
    o = reports.class_overview(school_db, "RPT-1")
    total, right = school_db.query("SELECT count(*), sum(CAST(correct AS INTEGER)) FROM responses WHERE attempt = 1")[0]
    assert o["students"] == 16 and o["responses"] == total
    assert o["accuracy"] == pytest.approx(right / total)
    assert o["activity"]["responses"].sum() == total


def test_abilities_come_from_the_newest_calibration_once_there_is_one(school_db, library):
    before = reports.abilities(school_db, "RPT-1")
    assert len(before) == 16 and before["source"].iloc[0].startswith("estimated now")
    result, run_id = reports.run_calibration(school_db, "rasch", "auto", "RPT-1")
    after = reports.abilities(school_db, "RPT-1")
    assert after["source"].iloc[0].startswith(f"calibration {run_id}")
    assert (after["low"] < after["theta"]).all() and (after["theta"] < after["high"]).all()
    abilities, units = reports.wright_map(school_db)
    assert len(abilities) == 16 and len(units) == len(result.parameters)
    table = reports.item_table(school_db, "RPT-1")
    assert {"family", "facility", "point_biserial", "difficulty"} <= set(table.columns)


def test_a_class_the_newest_calibration_left_out_still_has_abilities_and_an_item_table(tmp_path, library):
    """Class A calibrated alone: class B's students are estimated now, and its item analysis falls back to
    overall accuracy as its criterion instead of coming out empty."""
    from core.demo.simulate import Simulation
    from core.school.classes import create_class
    from core.store import school
    s = Store(tmp_path / "two.duckdb")
    try:
        for code in ("CAL-A", "CAL-B"):
            create_class(s, code, f"Class {code}", "Mathematics", "Nat 5")
            names = [f"{code}:s{i:02d}" for i in range(6)]
            school.add_students(s, code, [(n, f"{code} student {i}") for i, n in enumerate(names)])
            Simulation(s, library, seed=len(code) + ord(code[-1])).run(6, practice_sessions=1, questions=8, exams=0,
                                                                        lessons=0, names=names)
        _result, run_id = reports.run_calibration(s, "rasch", "family", "CAL-A")
        a, b = reports.abilities(s, "CAL-A"), reports.abilities(s, "CAL-B")
        assert len(a) == 6 and set(a["source"]) == {a["source"].iloc[0]} and run_id in a["source"].iloc[0]
        assert len(b) == 6 and set(b["source"]) == {"estimated now from declared difficulties "
                                                    "(not in the newest calibration)"}
        table = reports.item_table(s, "CAL-B")
        assert not table.empty and table["facility"].notna().all()
        assert reports.item_table(s, "CAL-A").shape[0] > 0
    finally:
        s.close()


def test_exam_report_grades_sections_and_reliability(school_db):
    ex = reports.exam_report(school_db, "RPT-1")
    assert len(ex["results"]) == 16 and ex["grades"]["students"].sum() == 16
    assert set(ex["sections"]["section"]) == {"Paper 1 (Non-calculator)", "Paper 2 (Calculator)"}
    rel = ex["reliability"].iloc[0]
    assert rel["n_students"] == 16 and rel["n_items"] >= 30 and 0 < rel["alpha"] < 1


def test_student_report_and_heatmap(school_db, library):
    student = "RPT-1:s03"
    rep = reports.student_report(school_db, library, student)
    assert rep["responses"] == len(rep["history"]) > 0
    stored = dict(school_db.query("SELECT skill, score FROM mastery WHERE student = ?", [student]))
    replay = rep["current"].set_index("skill")["mastery"]
    practised = [s for s in replay.index if s in stored]
    assert practised and {s: replay[s] for s in practised} == pytest.approx({s: stored[s] for s in practised})
    assert rep["history"]["running_accuracy"].between(0, 1).all()
    matrix = reports.mastery_matrix(school_db, library, "RPT-1")
    assert len(matrix) == 16 and matrix.stack().dropna().between(0, 1).all()


def test_downloads_are_csv_and_parquet_of_the_same_table(school_db):
    frame = reports.exam_report(school_db, "RPT-1")["results"]
    files = reports.downloads(frame)
    assert len(pd.read_csv(io.BytesIO(files["csv"]))) == len(frame)
    back = pd.read_parquet(io.BytesIO(files["parquet"]))
    assert list(back.columns) == list(frame.columns) and len(back) == len(frame)


def test_blueprint_fixes_have_evidence_and_a_suggestion(school_db):
    fixes = reports.blueprint_fixes(school_db, "RPT-1", min_n=5)
    assert list(fixes.columns) == ["blueprint_id", "level", "issue", "evidence", "suggestion"]
    assert len(fixes) and fixes["evidence"].str.len().gt(0).all() and fixes["suggestion"].str.len().gt(0).all()
