"""Analytics: class overview, mastery, one student, items and blueprints (IRT-lite), exam and evaluation results.

A calibration runs as a background job in a worker process, so other users' pages stay quick.
"""
import streamlit as st

from core.analytics import reports
from core.analytics.calibration import CalibrationError, icc_frame, level_order
from core.jobs import tasks
from core.store import school
from ui import analytics_views as view
from ui import jobs, shared

shared.require("teacher")
shared.teacher_banner()
wb = shared.workbench()
lib = wb.library
CALIBRATION = "an_cal_job"
jobs.runner()   # starts the worker server now, so the first job does not wait for it

st.title("Analytics")
classes = school.list_classes(wb.store)
if not classes:
    st.info("No classes yet: create one on the Class page; its students' answers appear here.")
    st.stop()
codes = [c["code"] for c in classes]
code = st.selectbox("Class", codes, key="an_class",
                    format_func=lambda c: next(f"{k['code']} · {k['name']}" for k in classes if k["code"] == c))
overview, students_tab, items_tab, exams_tab = st.tabs(["Class", "Student", "Items and blueprints", "Exams"])
ability = reports.abilities(wb.store, code)      # read once; the tabs below share it
theta = ability.set_index("student")["theta"]

with overview:
    o = reports.class_overview(wb.store, code)
    cols = st.columns(4)
    cols[0].metric("Students", o["students"])
    cols[1].metric("Active in the last 7 days", o["active_7d"])
    cols[2].metric("Answers", f"{o['responses']:,}")
    cols[3].metric("Accuracy", f"{o['accuracy']:.0%}" if o["accuracy"] is not None else "–")
    view.show_activity(o["activity"])
    view.show_abilities(ability)
    st.subheader("Weakest skills in the class")
    view.table(reports.class_weakest(wb.store, lib, code), f"{code}_weakest_skills", "an_weak")
    view.show_heatmap(reports.mastery_matrix(wb.store, lib, code))
    st.subheader("Students")
    view.table(o["per_student"], f"{code}_students", "an_students")

with students_tab:
    roster = o["per_student"]
    if roster.empty:
        st.caption("The class has no students yet.")
    else:
        who = st.selectbox("Student", list(roster["student"]), key="an_student",
                           format_func=dict(zip(roster["student"], roster["name"])).get)
        report = reports.student_report(wb.store, lib, who)
        view.show_student(report, ability[ability["student"] == who])
        st.subheader("Weak skills and what to practise next")
        view.table(report["recommendations"], f"{who}_next", "an_next")
        st.subheader("Mastery by skill")
        view.table(report["current"], f"{who}_mastery", "an_mastery")
        st.subheader("Sessions")
        view.table(report["sessions"], f"{who}_sessions", "an_sessions")

with items_tab:
    with st.form("calibrate"):
        cols = st.columns(3)
        model = cols[0].selectbox("Model", ["rasch", "2pl"], key="an_model",
                                  format_func={"rasch": "Rasch (1PL)", "2pl": "2PL"}.get)
        unit_level = cols[1].selectbox("Calibrate by", ["auto", "family", "item", "skill"], key="an_level",
                                       format_func={"auto": "auto (items with enough answers, else blueprint level)",
                                                    "family": "blueprint level", "item": "item",
                                                    "skill": "skill"}.get)
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
    run, params = reports.latest_parameters(wb.store)
    st.caption(f"Newest calibration: {run['id']} ({run['model']}, by {run['unit_level']}, {run['n_responses']:,} "
               f"answers, {run['created_at']:%d %b %Y %H:%M})." if run else
               "No calibration yet: run one to measure difficulty and compare it with what the blueprints declare.")
    if not params.empty:
        order = level_order(params)
        view.show_declared_vs_measured(order)
        flagged = order[order["flag"] != ""] if not order.empty else order
        if not flagged.empty:
            st.warning(f"{flagged['blueprint_id'].nunique()} blueprint(s) have levels to look at:")
        view.table(flagged if not flagged.empty else order, "blueprint_levels", "an_levels")
        abilities, units = reports.wright_map(wb.store)
        view.show_wright(abilities, units)
        picks = st.multiselect("Characteristic curves for", list(params["unit"]), key="an_icc",
                               default=list(params["unit"][:3]))
        if picks:
            view.show_icc(icc_frame(params, picks))
        st.subheader("Calibrated units")
        view.table(params, "unit_parameters", "an_params")
    st.subheader("Blueprint fixes to consider")
    if st.button("Look for blueprint fixes", key="an_fixes_go",
                 help="Reads the newest calibration and every multiple-choice answer of the class."):
        with st.spinner("Checking levels, fit and distractors…"):
            st.session_state["an_fixes"] = (code, reports.blueprint_fixes(wb.store, code, ability=theta))
    found = st.session_state.get("an_fixes")
    if found and found[0] == code:
        view.table(found[1], f"{code}_blueprint_fixes", "an_fixes")
    st.subheader("Facility and discrimination by blueprint level")
    view.table(reports.item_table(wb.store, code), f"{code}_item_analysis", "an_items")
    blueprints = sorted(lib.generators)
    bp = st.selectbox("Blueprint for distractors and parameters", blueprints, key="an_bp")
    distractors, strategies = reports.distractor_report(wb.store, code, bp, ability=theta)
    st.markdown("**Misconceptions: which wrong option drew whom**")
    view.table(strategies, f"{bp}_strategies", "an_strategies")
    with st.expander("Every option of every item"):
        view.table(distractors, f"{bp}_distractors", "an_distractors")
    effects, by_value = reports.parameter_report(wb.store, code, bp)
    st.markdown("**Which parameter values make it harder**")
    view.table(effects, f"{bp}_parameter_effects", "an_effects")
    with st.expander("Facility by parameter value"):
        view.table(by_value, f"{bp}_parameter_facility", "an_by_value")

with exams_tab:
    ex = reports.exam_report(wb.store, code)
    if ex["results"].empty:
        st.caption("No marked mock exams in this class yet.")
    else:
        view.show_grades(ex["grades"], ex["sections"])
        st.subheader("Reliability")
        view.table(ex["reliability"], f"{code}_reliability", "an_reliability")
        st.subheader("Results")
        view.table(ex["results"], f"{code}_exam_results", "an_results")
    st.subheader("Evaluations")
    ev = reports.evaluation_report(wb.store, code)
    if ev["results"].empty:
        st.caption("No handed-in evaluations (from assessment blueprints) in this class yet.")
    else:
        st.markdown("**By assessment**")
        view.table(ev["summary"], f"{code}_evaluation_summary", "an_ev_summary")
        st.markdown("**Every sitting**")
        view.table(ev["results"], f"{code}_evaluation_results", "an_ev_results")
