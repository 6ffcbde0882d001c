"""The teacher's Analytics page through AppTest: a simulated class with few answers per figure, and a class with
many; the explanations beside the figures, the small-number warnings, and the mastery heatmap's labels."""
from __future__ import annotations

import json

import pytest
from streamlit.testing.v1 import AppTest

from tests.analytics.classes import many_answers_class
from tests.app.pages import open_page

from tests.app.test_teacher_authoring import ROOT, TEACHER, values

CLASS = "AN-1"
MANY = "AN-MANY"
SMALL_NUMBERS = ("rest on fewer than", "rests on fewer than")


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
    library = Library.load(exercise=False)
    Simulation(store, library, seed=11).run(12, practice_sessions=2, questions=8, exams=1, lessons=0, names=names)
    many = many_answers_class(store, library, MANY)
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(db))
        mp.chdir(ROOT)
        shared._open.clear()
        shared._runner.clear()
        yield {"db": db, "students": names, "many": many}
        shared._open(str(db)).store.close()
        shared._open.clear()
        shared._runner.clear()


def open_analytics(user=TEACHER) -> AppTest:
    return open_page(user, "pages/teacher_analytics.py", timeout=180)


def open_tab(at: AppTest, label: str) -> AppTest:
    """Switch tab as a click on it does (only the open tab is drawn)."""
    at.session_state["an_tab"] = label
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def column_help(at: AppTest) -> dict[str, str]:
    """Every column tooltip of the tables on the page, by column name."""
    found: dict[str, str] = {}
    for d in at.dataframe:
        for col, config in json.loads(d.proto.columns or "{}").items():
            if config.get("help"):
                found[col] = config["help"]
    return found


def small_number_warnings(at: AppTest) -> list[str]:
    return [w.value for w in at.warning if any(s in w.value for s in SMALL_NUMBERS)]


def shown_few_answers(at: AppTest) -> int:
    return sum(int(d.value["few_answers"].sum()) for d in at.dataframe if "few_answers" in d.value.columns)


def test_class_overview_student_items_and_exams(env):
    at = open_analytics()
    assert values(at.title) == ["Analytics"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Students"] == "12" and int(metrics["Answers"].replace(",", "")) > 100
    downloads = [b.label for b in at.get("download_button")]
    assert downloads.count("CSV") == downloads.count("Parquet") >= 2          # every table has both
    # Run a calibration through the form, behind its progress bar
    open_tab(at, "Items and blueprints")
    assert "No calibration yet" in " ".join(values(at.caption))
    at.selectbox(key="an_level").set_value("family")
    next(b for b in at.button if b.label == "Run calibration").click().run()
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
    at.run()
    assert "Newest calibration: cal_000001 (rasch, by family" in " ".join(values(at.caption))
    at.session_state["an_charts"] = True
    open_tab(at, "Class")
    assert any("calibration cal_000001" in c for c in values(at.caption))  # abilities now from the calibration


def test_a_student_drill_down(env):
    at = open_tab(open_analytics(), "Student")
    at.selectbox(key="an_student").set_value(env["students"][4]).run()
    assert not at.exception, [e.value for e in at.exception]
    labels = [m.label for m in at.metric]
    assert "Ability (logits)" in labels
    assert any("95% interval" in c for c in values(at.caption))


def test_a_blueprint_distractors_and_parameters(env):
    at = open_tab(open_analytics(), "Items and blueprints")
    at.selectbox(key="an_bp").set_value("SQA.MATH.N5.SURDS").run()
    assert not at.exception, [e.value for e in at.exception]
    assert "Misconceptions: which wrong option drew whom" in " ".join(values(at.markdown))


def test_the_items_tab_opens_on_the_most_answered_blueprint_and_lists_the_answered_first(env):
    from core.analytics import reports
    from ui import shared
    wb = shared._open(str(env["db"]))
    answered = reports.answered_blueprints(wb.store, CLASS)
    assert len(answered) > 3, answered
    at = open_tab(open_analytics(), "Items and blueprints")
    box = at.selectbox(key="an_bp")
    assert box.value == answered[0]                                    # opens on what the class answered most
    assert box.options[:len(answered)] == answered
    rest = box.options[len(answered):]
    assert rest and all(label.endswith(" · no answers from this class") for label in rest)
    assert len(box.options) == len(wb.library.generators)
    assert "Misconceptions: which wrong option drew whom" in " ".join(values(at.markdown))
    box.set_value(sorted(set(wb.library.generators) - set(answered))[0]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "No multiple-choice answers on this blueprint from the class yet." in values(at.caption)


def charts(at: AppTest) -> list[str]:
    return [json.loads(c.proto.spec)["layout"]["title"]["text"] for c in at.get("plotly_chart")]


def test_the_class_charts_are_drawn_once_opened(env):
    at = open_analytics()
    assert charts(at) == ["Mastery by student and skill"]                    # the heatmap, at once
    at.session_state["an_charts"] = True                                      # as a click on the expander does
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert charts(at) == ["Answers per day and accuracy",
                          "Ability distribution (logits: 0 = an even chance on an average item)",
                          "Mastery by student and skill"]


def test_a_student_s_charts_are_drawn_once_opened_and_follow_the_student_chosen(env):
    at = open_tab(open_analytics(), "Student")
    assert charts(at) == [] and "Running accuracy and mastery over time" in [e.label for e in at.expander]
    assert "Ability (logits)" in [m.label for m in at.metric]                 # the figures and tables, at once
    at.session_state["an_student_charts"] = True                              # as a click on the expander does
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert charts(at) == ["Running accuracy", "Mastery over time"]
    first = json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["y"]
    at.selectbox(key="an_student").set_value(env["students"][6]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert charts(at) == ["Running accuracy", "Mastery over time"]             # still open, for the new student
    assert json.loads(at.get("plotly_chart")[0].proto.spec)["data"][0]["y"] != first


def test_figures_are_explained_where_they_stand(env):
    at = open_analytics()
    assert all(m.proto.help for m in at.metric), [m.label for m in at.metric if not m.proto.help]
    helped = column_help(at)
    for col in ("mean_mastery", "share_below", "accuracy", "accuracy_low", "few_answers"):
        assert col in helped, col
    at.session_state["an_charts"] = True
    at.run()
    assert "0 is an item of average difficulty" in " ".join(values(at.caption))      # logits beside the histogram
    labels = [e.label for e in at.expander]
    assert {"What are logits, abilities and intervals?", "What is mastery?"} <= set(labels)
    words = " ".join(values(at.markdown))
    assert "73%" in words and "What to do:" in words and "Bayesian Knowledge Tracing" in words

    open_tab(at, "Items and blueprints")
    helped = column_help(at)
    for col in ("facility", "facility_low", "point_biserial", "upper_lower", "advice"):
        assert col in helped, col
    assert "below 0.2 look at the item" in helped["upper_lower"]
    assert "What are facility, discrimination and point-biserial?" in [e.label for e in at.expander]
    assert "Rasch (1PL)" in at.selectbox(key="an_model").options and at.selectbox(key="an_model").help

    open_tab(at, "Exams")
    assert "What is reliability?" in [e.label for e in at.expander]
    assert {"alpha", "few_answers", "advice"} <= set(column_help(at))


def test_a_class_with_few_answers_says_so_beside_each_figure(env):
    at = open_analytics()
    assert at.selectbox(key="an_class").value == CLASS
    class_tab = small_number_warnings(at)
    assert any("skills rest on fewer than 20 practice answers" in w for w in class_tab), class_tab
    assert shown_few_answers(at) > 0
    open_tab(at, "Items and blueprints")
    assert any("rows rest on fewer than 30 answers" in w for w in small_number_warnings(at))
    items = next(d.value for d in at.dataframe if "facility_low" in d.value.columns)
    assert (items[items["n"] < 30]["few_answers"]).all() and not items[items["n"] >= 30]["few_answers"].any()
    open_tab(at, "Student")
    assert any("fewer than 5 answers" in w for w in small_number_warnings(at))
    open_tab(at, "Exams")   # 12 students sat the mock exam: too few for its reliability
    assert any("papers rests on fewer than 20 students" in w for w in small_number_warnings(at))


def test_a_class_with_many_answers_shows_no_small_number_warning(env):
    from core.analytics import reports
    from ui import shared
    reports.run_calibration(shared._open(str(env["db"])).store, "rasch", "family", MANY)
    at = open_analytics()
    at.selectbox(key="an_class").set_value(MANY).run()
    for tab in ("Class", "Student", "Items and blueprints", "Exams"):
        open_tab(at, tab)
        assert small_number_warnings(at) == [], (tab, small_number_warnings(at))
        assert shown_few_answers(at) == 0, tab
        if tab == "Items and blueprints":   # the tables are there, with nothing to mark
            items = next(d.value for d in at.dataframe if "facility_low" in d.value.columns)
            assert len(items) == 6 and items["n"].min() >= 30


def test_the_mastery_heatmap_names_every_skill_in_full_on_hover(env):
    import pandas as pd
    from core.analytics import reports
    from ui import analytics_views as view
    from ui import shared
    wb = shared._open(str(env["db"]))
    matrix = reports.mastery_matrix(wb.store, wb.library, CLASS)
    answers = reports.mastery_answers(wb.store, wb.library, CLASS)
    fig = view.heatmap_figure(matrix, answers)
    heat = fig.data[0]
    assert list(heat.x) == list(matrix.columns) and "%{x}" in heat.hovertemplate   # the full names, on hover
    assert "from %{customdata[0]} practice answers" in heat.hovertemplate
    counts = answers.reindex(index=matrix.index, columns=matrix.columns).fillna(0).astype(int).to_numpy()
    assert [[int(cell[0]) for cell in row] for row in heat.customdata] == counts.tolist()
    assert heat.text is None and heat.texttemplate is None                          # nothing written in the cells
    ticks = dict(zip(fig.layout.xaxis.tickvals, fig.layout.xaxis.ticktext))
    longest = max(matrix.columns, key=len)
    assert len(ticks[longest].replace("<br>", "")) < len(longest)                    # shortened on the axis
    assert all(len(line) <= 24 for t in ticks.values() for line in t.split("<br>"))
    # as tall as its rows need
    tall = pd.DataFrame(0.5, index=[f"Student {i:02d}" for i in range(40)], columns=matrix.columns)
    assert view.heatmap_figure(tall).layout.height > fig.layout.height >= 26 * len(matrix)


def test_a_keen_student_s_running_accuracy_is_drawn_from_at_most_a_page_s_width_of_points():
    import numpy as np
    import pandas as pd
    from ui import analytics_views as view
    right = np.random.default_rng(1).random(2679) < 0.7
    history = pd.DataFrame({"answer_number": np.arange(1, 2680), "running_accuracy": right.cumsum() / np.arange(1, 2680)})
    line = view.running_accuracy_figure(history).data[0]
    assert len(line.x) <= view.LINE_POINTS + 1
    assert (line.x[0], line.x[-1]) == (1, 2679)                          # from the first answer to the last
    assert list(line.y) == list(history.set_index("answer_number").loc[list(line.x), "running_accuracy"])
    few = history.head(120)
    assert list(view.running_accuracy_figure(few).data[0].x) == list(few["answer_number"])   # every answer


def test_new_data_shows_on_refresh_and_on_coming_back(env, monkeypatch):
    from core.school.classes import create_class
    from ui import analytics_views, shared
    monkeypatch.setattr(analytics_views, "REFRESH_S", 3600)   # no look for new data on its own during the test
    store = shared._open(str(env["db"])).store
    at = open_analytics()
    create_class(store, "AN-NEW", "New class", "Mathematics", "Nat 5")
    at.run()                                              # a click soon after: figures from the cache
    assert "AN-NEW · New class" not in at.selectbox(key="an_class").options
    at.button(key="an_refresh").click().run()
    assert "AN-NEW · New class" in at.selectbox(key="an_class").options
    create_class(store, "AN-NEWER", "Newer class", "Mathematics", "Nat 5")
    at.switch_page("pages/teacher_class.py")
    at.run()
    at.switch_page("pages/teacher_analytics.py")
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert "AN-NEWER · Newer class" in at.selectbox(key="an_class").options


def test_while_a_class_is_open_in_analytics_new_answers_are_read_in_the_background(env, monkeypatch):
    import time
    from core.flows.registry import make_runner
    from ui import analytics_views, shared
    monkeypatch.setattr(analytics_views, "WATCH_S", 0.2)
    wb = shared._open(str(env["db"]))
    at = open_analytics()
    assert at.selectbox(key="an_class").value == CLASS
    before = analytics_views.current_version(wb)
    runner = make_runner(wb.store, wb.library)   # a student answers while the teacher is on another page
    sid = runner.start("practice", env["students"][0], {"subject": "Mathematics", "level": "Nat 5"})
    question = runner.view(sid)["question"]
    runner.command(sid, "answer", item_id=question["id"], answer="7")
    after = analytics_views.current_version(wb)
    assert after != before
    end = time.monotonic() + 60
    while analytics_views.fresh.get(CLASS) != after and time.monotonic() < end:
        time.sleep(0.1)
    assert analytics_views.fresh.get(CLASS) == after, "the class was not read again after the new answer"
    # Coming back: the page shows the new answer, from what was read ahead.
    at.switch_page("pages/teacher_class.py").run()
    at.switch_page("pages/teacher_analytics.py").run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.session_state["an_version"][0] == after


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
