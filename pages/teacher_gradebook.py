"""Gradebook: one assignment's marks question by question, a student's script, overriding a mark, re-marking,
checking written answers with the LLM; and the class's written answers in practice."""
import streamlit as st

from core.exams import gradebook
from core.exams.gradebook import GradebookError
from core.jobs.tasks import TIME_LIMITS
from core.store import school
from ui import activity, flash, jobs, shared
from ui import written_answers as written_in_practice
from ui.blocks import Paragraphs
from ui import steps as stepped

who = shared.require("teacher")
shared.teacher_banner()
wb = shared.workbench()
runner = shared.runner()
FLASH, CHANGES, JUDGE_JOB = "gb_flash", "gb_changes", "gb_judge_job"
ASSIGNMENTS, PRACTICE = "Assignments", "Written answers in practice"

st.title("Gradebook")
flash.show(FLASH)
classes = {c["code"]: c for c in school.list_classes(wb.store)}
if not classes:
    st.info("No classes yet: create one on the Class page, then assign it a paper on the Exams page.")
    st.stop()
code = st.selectbox("Class", list(classes), key="gb_class", format_func=lambda c: f"{c} · {classes[c]['name']}")
if st.radio("Show", [ASSIGNMENTS, PRACTICE], key="gb_view", horizontal=True) == PRACTICE:
    written_in_practice.show(runner, code, who["user"], FLASH)
    st.stop()
assigned = {a["id"]: a for a in gradebook.class_assignments(wb.store, code)}
if not assigned:
    st.info(f"No papers assigned to {code} yet: assign one on the Exams page; its marks appear here.")
    st.stop()
aid = st.selectbox("Assignment", list(assigned), key="gb_assignment",
                   format_func=lambda a: gradebook.assignment_label(assigned[a]))
try:
    gb = gradebook.build(runner, aid)
except GradebookError as exc:
    shared.error(exc)
    st.stop()

# ---------------------------------------------------------------- the summary, and a tab for each view
if gb.assignment.get("deleted_at") is not None:
    st.caption("This assignment was deleted: students can no longer start it; its results are kept here.")
m = st.columns(4)
m[0].metric("Students", len(gb.table))
m[1].metric("Handed in", gb.handed_in)
m[2].metric("Mean", f"{gb.table['Percent'].mean():.1f}%" if gb.handed_in else "–")
m[3].metric("Questions", len(gb.questions))


def marks_tab() -> None:
    st.dataframe(gb.table, hide_index=True, key="gb_table")
    st.caption(f"{gradebook.LATEST_COUNTS} Q1, Q2…: marks for each question; empty when not handed in or not "
               f"marked.")
    d = st.columns([1, 1, 6])
    # Written when the button is pressed, not on every run of the page.
    d[0].download_button("CSV", lambda g=gb: gradebook.to_csv(g), gradebook.filename(gb, "csv"), "text/csv",
                         key="gb_csv")
    d[1].download_button("Parquet", lambda g=gb: gradebook.to_parquet(g), gradebook.filename(gb, "parquet"),
                         "application/octet-stream", key="gb_parquet")
    if gb.notes:
        with st.expander(f"Notes ({len(gb.notes)})"):
            for note in gb.notes:
                st.markdown(f"- {shared.plain(note)}")


def distribution_tab() -> None:
    c = st.columns(2)
    with c[0]:
        shared.bar_chart(gb.grades, "Grade", "Students")
    with c[1]:
        shared.bar_chart(gb.histogram, "Percent", "Students", x_title="Percent of the marks")
    st.subheader("Section results")
    st.dataframe(gb.section_summary, hide_index=True, key="gb_sections")


def remark_tab() -> None:
    st.subheader("Re-mark")
    if gb.kind == "exam":
        st.caption("After correcting a question's key on the Review page, mark every handed-in paper again. "
                   "A mark you changed by hand stays as you set it.")
        if st.button("Re-mark with current keys", key="gb_remark"):
            try:
                st.session_state[CHANGES] = (aid, gradebook.remark(runner, aid, who["user"]))
                st.rerun()
            except GradebookError as exc:
                shared.error(exc)
        done = st.session_state.get(CHANGES)
        if done and done[0] == aid:
            if done[1]:
                st.success(f"Re-marked: {len(done[1])} mark(s) changed.")
                st.dataframe(gradebook.changes_frame(done[1]), hide_index=True, key="gb_changes_table")
            else:
                st.success("Re-marked: no mark changed; every paper already matches the current keys.")
    else:
        st.caption("Evaluation questions are generated for each sitting and keep their keys; change a mark by "
                   "hand on the Student scripts tab instead.")
    written_answers()


def written_answers() -> None:
    """Written answers, judged for meaning by the LLM when one is set up."""
    st.subheader("Written answers")
    written = gb.written
    st.caption(f"Written answers are marked by the key points you set when a paper is handed in; with an LLM set "
               f"up, the LLM judge then reads each for meaning (a mark you set by hand stays). In the papers handed "
               f"in: {written['answers']} written answer(s), {written['judged']} judged by the LLM, "
               f"{written['waiting']} marked by the key points only.")
    status = shared.llm()
    if not status.on:
        # A caption, not an alert: an alert here shifts the script's widgets below it in Streamlit's test harness.
        st.caption(f"💡 Checking written answers for their meaning needs an LLM. {status.message()}")
    elif st.button("Check written answers with the LLM", key="gb_judge", disabled=jobs.running(JUDGE_JOB)):
        jobs.start(JUDGE_JOB, gradebook.judge_written, runner, aid, who["user"], thread=True, tag=aid,
                   label="Checking written answers with the LLM", limit=TIME_LIMITS["llm"],
                   running="Asking the LLM…",
                   advice="The answers judged before then keep their verdicts; check again to judge the rest.")
    judged = jobs.follow(JUDGE_JOB, "Asking the LLM…")
    if judged is not None:
        ok, result = jobs.result(judged, GradebookError)
        if ok:
            flash.later(FLASH, gradebook.judge_summary(result), "success" if not result["kept"] else "info")
            if result["problems"]:
                st.session_state["gb_judge_problems"] = result["problems"]
            st.rerun()
    for problem in st.session_state.pop("gb_judge_problems", []):
        st.caption(f"⚠️ {shared.plain(problem)}")


def scripts_tab() -> None:
    if not gb.scripts:
        st.info("No one has handed this in yet; scripts appear here as students hand in.")
        return
    show_script(gb.scripts)


def question_detail(q: dict) -> None:
    """One question of a script as the student answered it, with the key, the marker's words and any change."""
    text = Paragraphs()   # the paragraphs between other elements drawn as one block each
    text.stem(q["stem"])
    for k, option in enumerate(q["options"]):
        text.stem(f"**{chr(65 + k)}.** {option}")
    text.add(f"**Answer:** {shared.plain(gradebook.answer_text(q))}")
    if q["unreadable"]:
        text.flush()
        st.caption("The marker could not read this answer, so it was marked as it stands.")
    elif q["read_as"]:
        text.add(f"**Read as:** ${q['read_as_latex']}$" if q["read_as_latex"] else
                 f"**Read as:** {shared.plain(q['read_as'])}")
    if q["steps"]:
        text.flush()
        stepped.show_steps(q["steps"])
    text.stem(f"**Key:** {q['correct_answer']}")
    if q["feedback"]:
        text.stem(f"**Marker's feedback:** {q['feedback']}")
    text.flush()
    if gradebook.marked_by_note(q, for_teacher=True):
        st.caption(shared.plain(gradebook.marked_by_note(q, for_teacher=True)))
    if q["unmarked"]:
        st.warning(f"The marker could not mark this question: {q['unmarked']}.")
    for line in gradebook.override_lines(q):
        st.caption(f"✏️ {shared.plain(line)}")


@activity.fragment
def show_script(scripts: list[dict]) -> None:
    """One student's script as a table, one question of it in full, and changing that question's mark: choosing
    another student or question redraws only this part."""
    labels = {s["session_id"]: s["label"] + ("" if s["counted"] else " (not counted)") for s in scripts}
    chosen = st.selectbox("Student", list(labels), key="gb_student", format_func=labels.get)
    sc = gradebook.script(runner, chosen)
    m = st.columns(3)
    m[0].metric("Marks", f"{sc['marks_awarded']:g} / {sc['total_marks']:g}")
    m[1].metric("Percent", f"{sc['percent']:g}%")
    m[2].metric("Grade", sc["grade"])
    if sc["late"]:
        st.caption("Time ran out before this was handed in: the answers saved by then were marked.")
    # One table for the whole paper, and one question drawn in full: a paper of forty questions opens at once.
    st.dataframe(gradebook.script_frame(sc), hide_index=True, key="gb_script_table")
    questions = {q["item_id"]: q for q in sc["questions"]}
    # One choice per script: a question chosen in one student's script is never carried to another's.
    item_id = st.selectbox("Question", list(questions), key=f"gb_q_{chosen}",
                           format_func=lambda i: gradebook.question_heading(questions[i]))
    q = questions[item_id]
    with st.container(border=True):
        question_detail(q)
        with st.form("gb_override"):
            st.markdown(f"**Change the mark of question {q['label']} of {shared.plain(sc['name'])}** "
                        f"(out of {q['marks']:g})")
            cols = st.columns([1, 4])
            marks = cols[0].number_input("New mark", min_value=0.0, value=None, step=0.5, key="gb_marks")
            reason = cols[1].text_input("Reason (kept in the history; the student sees it)", key="gb_reason")
            go = st.form_submit_button("Change the mark", type="primary", key="gb_override_go")
    if go:
        try:
            gradebook.override(runner, chosen, item_id, marks, reason, who["user"])
            flash.later(FLASH, f"Question {q['label']} of {sc['name']} now has {marks:g} mark(s).")
            st.rerun()
        except GradebookError as exc:
            shared.error(exc)


TABS = {"Marks": marks_tab, "Distribution": distribution_tab, "Student scripts": scripts_tab,
        "Re-mark and written answers": remark_tab}
# Only the open tab is drawn: each table and chart is something the browser builds, so the page opens quickly.
for tab, draw in zip(st.tabs(list(TABS), key="gb_tab", on_change="rerun"), TABS.values()):
    if tab.open:
        with tab:
            draw()
