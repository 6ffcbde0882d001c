"""Analytics: class overview, mastery, one student, items and blueprints (IRT-lite), exam and evaluation results.

Every figure is explained where it stands and says when it rests on too few answers. Reports are cached until
the data change (``ui.analytics_views.load``); only the open tab is drawn, and choosing a student, a blueprint
or curves reruns only that part of the page. A calibration runs as a background job in a worker process, so
other users' pages stay quick.
"""
import streamlit as st

from core.analytics import explain
from core.analytics.calibration import CalibrationError, icc_frame
from core.analytics.reports import blueprint_fixes, readable
from core.jobs import tasks
from ui import analytics_views as view
from ui import activity, jobs, shared

shared.require("teacher")
shared.teacher_banner()
wb = shared.workbench()
lib = wb.library
CALIBRATION = "an_cal_job"
jobs.runner()   # starts the worker server now, so the first job does not wait for it

st.title("Analytics")
head = st.columns([6, 1])
refresh = head[1].button("Refresh", key="an_refresh", icon=":material/refresh:",
                         help="Read the newest answers now (otherwise they show at the first click "
                              f"{view.REFRESH_S} s after the last look, and whenever you come back to this page).")
job = st.session_state.get(CALIBRATION)
arriving = "an_class" not in st.session_state   # the page's widgets are forgotten while another page is open
version = view.data_version(wb, force=refresh or arriving or (job is not None and job.done()))
head[0].caption(f"Figures from the data as of {view.data_as_of()}.")
classes = view.load(wb, version, "classes")
if not classes:
    st.info("No classes yet: create one on the Class page; its students' answers appear here.")
    st.stop()
codes = [c["code"] for c in classes]
code = st.selectbox("Class", codes, key="an_class",
                    format_func=lambda c: next(f"{k['code']} · {k['name']}" for k in classes if k["code"] == c))
overview, students_tab, items_tab, exams_tab = st.tabs(["Class", "Student", "Items and blueprints", "Exams"],
                                                       key="an_tab", on_change="rerun")


def class_tab() -> None:
    o = view.load(wb, version, "overview", code)
    cols = st.columns(4)
    words = explain.METRIC_HELP
    cols[0].metric("Students", o["students"], help=words["students"])
    cols[1].metric("Active in the last 7 days", o["active_7d"], help=words["active_7d"])
    cols[2].metric("Answers", f"{o['responses']:,}", help=words["responses"])
    cols[3].metric("Accuracy", f"{o['accuracy']:.0%}" if o["accuracy"] is not None else "–", help=words["accuracy"])
    class_charts(o["activity"])
    st.subheader("Weakest skills in the class")
    st.caption("Skills with the lowest mean mastery; share_below is the share of the class that needs work on it.")
    view.reading(readable.weakest(view.load(wb, version, "weakest", code)), f"{code}_weakest_skills", "an_weak")
    view.show_heatmap(view.load(wb, version, "matrix", code), view.load(wb, version, "matrix_answers", code))
    st.subheader("Students")
    st.caption("Accuracy with its 95% interval: from few answers it could be far from the student's real level.")
    view.reading(readable.students(o["per_student"]), f"{code}_students", "an_students")


# The charts are drawn once their section is opened (they were nearly half of what the browser built to open the
# page, and most of a student's section); opening or closing it reruns only that section, not the tables around it.
@activity.fragment
def class_charts(daily) -> None:
    charts = st.expander("Answers per day and the spread of abilities", key="an_charts", on_change="rerun")
    if charts.open:
        with charts:
            view.show_activity(daily)
            view.show_abilities(view.load(wb, version, "abilities", code))


@activity.fragment
def student_charts(report: dict) -> None:
    charts = st.expander("Running accuracy and mastery over time", key="an_student_charts", on_change="rerun")
    if charts.open:
        with charts:
            view.show_student_charts(report)


@activity.fragment
def student_tab() -> None:
    roster = view.load(wb, version, "overview", code)["per_student"]
    if roster.empty:
        st.caption("The class has no students yet.")
        return
    who = st.selectbox("Student", list(roster["student"]), key="an_student",
                       format_func=dict(zip(roster["student"], roster["name"])).get)
    report = view.load(wb, version, "student", who)
    ability = view.load(wb, version, "abilities", code)
    view.show_student(report, ability[ability["student"] == who])
    student_charts(report)
    st.subheader("Weak skills and what to practise next")
    view.reading(readable.student_mastery(report["recommendations"]), f"{who}_next", "an_next")
    st.subheader("Mastery by skill")
    view.reading(readable.student_mastery(report["current"]), f"{who}_mastery", "an_mastery")
    st.subheader("Sessions")
    view.table(report["sessions"], f"{who}_sessions", "an_sessions")


def calibration_form() -> bool:
    """The calibration form and the job it starts; True once a new calibration has been stored."""
    with st.form("calibrate"):
        cols = st.columns(3)
        model = cols[0].selectbox("Model", ["rasch", "2pl"], key="an_model",
                                  format_func={"rasch": "Rasch (1PL)", "2pl": "2PL"}.get,
                                  help=explain.tooltip("rasch", "2pl"))
        unit_level = cols[1].selectbox("Calibrate by", ["auto", "family", "item", "skill"], key="an_level",
                                       format_func={"auto": "auto (items with enough answers, else blueprint level)",
                                                    "family": "blueprint level", "item": "item",
                                                    "skill": "skill"}.get,
                                       help="What gets its own difficulty: generated items are mostly answered a "
                                            "few times each, so a blueprint level (family) gathers the evidence.")
        whose = cols[2].selectbox("Answers of", ["this class", "everyone"], key="an_whose")
        go = st.form_submit_button("Run calibration", type="primary")
    if go:
        with st.spinner("Loading the answers…"):
            frame = tasks.calibration_responses(wb.store, code if whose == "this class" else None)
        jobs.start(CALIBRATION, tasks.calibrate, frame, model, unit_level, label="Calibrating",
                   limit=tasks.TIME_LIMITS["calibrate"], running=f"Calibrating {len(frame):,} answers…",
                   advice="Calibrate one class, or by blueprint level rather than by item.",
                   finish=lambda result: tasks.store_calibration(wb.store, result))
    calibrated = jobs.follow(CALIBRATION, "Calibrating…")
    if calibrated is not None:
        ok, found = jobs.result(calibrated, CalibrationError)
        if ok:
            result, run_id = found
            st.success(f"Calibrated {result.n_responses:,} answers into {len(result.parameters)} units in "
                       f"{result.seconds:.2f} s ({run_id}).")
            return True
    return False


@activity.fragment
def curves(params) -> None:
    picks = st.multiselect("Characteristic curves for", list(params["unit"]), key="an_icc",
                           default=list(params["unit"][:3]))
    if picks:
        view.show_icc(icc_frame(params, picks))


@activity.fragment
def fixes() -> None:
    st.subheader("Blueprint fixes to consider")
    if st.button("Look for blueprint fixes", key="an_fixes_go",
                 help="Reads the newest calibration and every multiple-choice answer of the class."):
        with st.spinner("Checking levels, fit and distractors…"):
            theta = view.load(wb, version, "abilities", code).set_index("student")["theta"]
            st.session_state["an_fixes"] = (code, blueprint_fixes(wb.store, code, ability=theta))
    found = st.session_state.get("an_fixes")
    if found and found[0] == code:
        view.table(found[1], f"{code}_blueprint_fixes", "an_fixes")


def blueprint_choices() -> dict[str, str]:
    """The blueprints to choose from, labelled: those the class answered first (most answered first), then the
    rest, marked as having no answers from it."""
    answered = [bp for bp in view.load(wb, version, "answered", code) if bp in lib.generators]
    rest = sorted(set(lib.generators) - set(answered))
    return {**{bp: bp for bp in answered}, **{bp: f"{bp} · no answers from this class" for bp in rest}}


@activity.fragment
def blueprint_detail() -> None:
    choices = blueprint_choices()
    bp = st.selectbox("Blueprint for distractors and parameters", list(choices), key="an_bp",
                      format_func=choices.get, help="The blueprints this class answered come first, most answered "
                                                    "first.")
    found = view.load(wb, version, "blueprint", code, bp)
    distractors, strategies, effects, by_value = (found[k] for k in ("distractors", "strategies", "effects",
                                                                       "by_value"))
    st.markdown("**Misconceptions: which wrong option drew whom**")
    st.caption(explain.term("distractor").short + " " + explain.term("distractor").todo)
    if strategies.empty:
        st.caption("No multiple-choice answers on this blueprint from the class yet.")
    else:
        view.reading(readable.strategies(strategies), f"{bp}_strategies", "an_strategies")
        with st.expander("Every option of every item"):
            view.table(distractors, f"{bp}_distractors", "an_distractors")
    st.markdown("**Which parameter values make it harder**")
    st.caption(explain.term("parameter effect").short)
    view.reading(readable.by_count(effects, "parameters"), f"{bp}_parameter_effects", "an_effects")
    with st.expander("Facility by parameter value"):
        view.reading(readable.by_count(by_value, "parameter values"), f"{bp}_parameter_facility", "an_by_value")


def items_tab_body() -> None:
    global version
    if calibration_form():   # what follows shows the new calibration
        version = view.data_version(wb, force=True)
    run, params = view.load(wb, version, "parameters")
    st.caption(f"Newest calibration: {run['id']} ({run['model']}, by {run['unit_level']}, {run['n_responses']:,} "
               f"answers, {run['created_at']:%d %b %Y %H:%M})." if run else
               "No calibration yet: run one to measure difficulty and compare it with what the blueprints declare.")
    if not params.empty:
        order = readable.levels(view.load(wb, version, "levels"))
        view.show_declared_vs_measured(order.frame)
        flagged = order.frame[order.frame["flag"] != ""] if not order.frame.empty else order.frame
        if not flagged.empty:
            st.warning(f"{flagged['blueprint_id'].nunique()} blueprint(s) have levels to look at:")
        view.table(flagged if not flagged.empty else order.frame, "blueprint_levels", "an_levels", order.note)
        view.show_wright(*view.load(wb, version, "wright"))
        curves(params)
        st.subheader("Calibrated units")
        view.reading(readable.units(params), "unit_parameters", "an_params")
        view.explained("infit and outfit", "rasch", "2pl", label="What are infit, outfit, Rasch and 2PL?")
    fixes()
    st.subheader("Facility and discrimination by blueprint level")
    st.caption(f"{explain.term('facility').short} {explain.term('discrimination').short}")
    view.reading(readable.item_table(view.load(wb, version, "items", code)), f"{code}_item_analysis", "an_items")
    view.explained("facility", "discrimination", "point-biserial",
                  label="What are facility, discrimination and point-biserial?")
    blueprint_detail()


def exams_tab_body() -> None:
    ex = view.load(wb, version, "exams", code)
    if ex["results"].empty:
        st.caption("No marked mock exams in this class yet.")
    else:
        view.show_grades(ex["grades"], ex["sections"])
        st.subheader("Reliability")
        st.caption(explain.term("reliability").short)
        view.reading(readable.reliability(ex["reliability"]), f"{code}_reliability", "an_reliability")
        view.explained("reliability", label="What is reliability?")
        st.subheader("Results")
        view.table(ex["results"], f"{code}_exam_results", "an_results")
    st.subheader("Evaluations")
    ev = view.load(wb, version, "evaluations", code)
    if ev["results"].empty:
        st.caption("No handed-in evaluations (from assessment blueprints) in this class yet.")
    else:
        st.markdown("**By assessment**")
        view.table(ev["summary"], f"{code}_evaluation_summary", "an_ev_summary")
        st.markdown("**Every sitting**")
        view.table(ev["results"], f"{code}_evaluation_results", "an_ev_results")


# Only the open tab is drawn: switching tabs reruns the page, from the cache, which reads ahead what the other
# tabs show while the teacher reads this one.
for tab, body in ((overview, class_tab), (students_tab, student_tab), (items_tab, items_tab_body),
                  (exams_tab, exams_tab_body)):
    if tab.open:
        with tab:
            body()
view.keep_fresh(wb, code)
roster = view.load(wb, version, "overview", code)["per_student"]
view.warm(wb, version, code, st.session_state.get("an_student") or next(iter(roster["student"]), None),
          st.session_state.get("an_bp") or next(iter(blueprint_choices()), None))
