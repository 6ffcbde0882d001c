"""The teacher's Analytics page through AppTest, on a simulated class."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.app.pages import open_page

from tests.app.test_teacher_authoring import ROOT, TEACHER, values

CLASS = "AN-1"


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    from core.blueprints.library import Library
    from core.school.classes import create_class
    from core.demo.simulate import Simulation
    from core.store import Store, school
    from ui import shared
    db = tmp_path_factory.mktemp("analytics_page") / "app.duckdb"
    store = Store(db)
    create_class(store, CLASS, "Analytics class", "Mathematics", "Nat 5")
    names = [f"{CLASS}:s{i:02d}" for i in range(12)]
    school.add_students(store, CLASS, [(n, f"Pupil {i:02d}") for i, n in enumerate(names)])
    Simulation(store, Library.load(exercise=False), seed=11).run(12, practice_sessions=2, questions=8, exams=1,
                                                                  lessons=0, names=names)
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(db))
        mp.chdir(ROOT)
        shared._open.clear()
        shared._runner.clear()
        yield {"db": db, "students": names}
        shared._open(str(db)).store.close()
        shared._open.clear()
        shared._runner.clear()


def open_analytics(user=TEACHER) -> AppTest:
    return open_page(user, "pages/teacher_analytics.py", timeout=180)


def test_class_overview_student_items_and_exams(env):
    at = open_analytics()
    assert values(at.title) == ["Analytics"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Students"] == "12" and int(metrics["Answers"].replace(",", "")) > 100
    assert "No calibration yet" in " ".join(values(at.caption))
    downloads = [b.label for b in at.get("download_button")]
    assert downloads.count("CSV") == downloads.count("Parquet") >= 5          # every table has both
    # Run a calibration through the form, behind its progress bar
    at.selectbox(key="an_level").set_value("family")
    at.button[0].click().run()
    assert not at.exception, [e.value for e in at.exception]
    done = " ".join(values(at.success))
    assert "Calibrated" in done and "cal_000001" in done
    assert at.multiselect(key="an_icc").value                               # curves for the first units
    at.button(key="an_fixes_go").click().run()                               # fixes, on demand
    assert not at.exception, [e.value for e in at.exception]
    from core.analytics.reports import blueprint_fixes
    from ui import shared
    expected = blueprint_fixes(shared._open(str(env["db"])).store, CLASS)
    shown = [d.value for d in at.dataframe if "suggestion" in d.value.columns]
    assert (len(shown[0]) == len(expected)) if shown else expected.empty
    at.run()                                                                 # the next visit reads it
    assert any("calibration cal_000001" in c for c in values(at.caption))  # abilities now from the calibration
    assert "Newest calibration: cal_000001 (rasch, by family" in " ".join(values(at.caption))


def test_a_student_drill_down(env):
    at = open_analytics()
    at.selectbox(key="an_student").set_value(env["students"][4]).run()
    assert not at.exception, [e.value for e in at.exception]
    labels = [m.label for m in at.metric]
    assert "Ability (logits)" in labels
    assert any("95% interval" in c for c in values(at.caption))


def test_a_blueprint_distractors_and_parameters(env):
    at = open_analytics()
    at.selectbox(key="an_bp").set_value("SQA.MATH.N5.SURDS").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Misconceptions: which wrong option drew whom" in " ".join(values(at.markdown))


def test_an_empty_install_says_how_to_begin(tmp_path, monkeypatch):
    from core.store import Store
    from ui import shared
    db = tmp_path / "empty.duckdb"
    Store(db).close()
    monkeypatch.setenv("WORKBENCH_DB", str(db))
    shared._open.clear()
    shared._runner.clear()
    try:
        at = AppTest.from_file(str(ROOT / "pages" / "teacher_analytics.py"), default_timeout=60)
        at.session_state["user"] = TEACHER
        at.session_state["_demo_checked"] = True
        at.run()
        assert not at.exception, [e.value for e in at.exception]
        assert "No classes yet" in " ".join(values(at.info))
    finally:
        shared._open(str(db)).store.close()
        shared._open.clear()
        shared._runner.clear()


def test_a_student_cannot_open_analytics(env):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["user"] = {"role": "student", "user": env["students"][0], "name": "Pupil 00", "class_code": CLASS}
    at.run()
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page("pages/teacher_analytics.py")
