"""Mock exams: the class's assigned papers or one the student chooses; answers saved as typed; results after."""
from __future__ import annotations


import streamlit as st

from core.school import courses, sittings
from core.flows.base import FlowError
from ui import flash, shared
from ui.answer import SAVED_AS_TYPED, answer_box, answer_label, read_as_line, show_reading
from ui import steps as stepped

who = shared.require("student")
wb = shared.workbench()
runner = shared.runner()
student = who["user"]

SID = "exam_sid"            # the exam (or assigned evaluation) on screen
CONFIRM = "exam_confirm"    # the submit button was pressed once: ask before handing in
FLASH = "exam_flash"        # a message from a callback, shown on the next run
PRACTICE_PAGE = "pages/student_practice.py"


plain = shared.plain


run = shared.command


def start(kind: str, config: dict) -> None:
    try:
        sid = runner.start(kind, student, config)
    except FlowError as exc:
        shared.error(exc)
        return
    st.session_state[SID] = sid
    st.session_state.pop(CONFIRM, None)
    st.rerun()


def close_exam() -> None:
    for key in (SID, CONFIRM):
        st.session_state.pop(key, None)


def countdown(seconds: int | None) -> None:
    """A clock that ticks in the browser; the server enforces the limit whatever it shows.

    st.iframe with an HTML string is Streamlit's replacement for st.components.v1.html (deprecated in 1.67).
    """
    if seconds is None:
        return
    st.iframe(f"""
<div id="clock" role="timer" aria-live="off"
     style="font-family: 'Source Sans Pro', sans-serif; font-size: 1.3rem; font-weight: 600; color: #31333f;"></div>
<script>
  const end = Date.now() + {int(seconds)} * 1000;
  const el = document.getElementById("clock");
  function pad(n) {{ return String(n).padStart(2, "0"); }}
  function tick() {{
    const s = Math.max(0, Math.round((end - Date.now()) / 1000));
    if (s <= 0) {{
      el.textContent = "⏰ Time is up: your saved answers are being marked.";
      el.style.color = "#d33";
      clearInterval(timer);
      return;
    }}
    el.textContent = "⏱ Time left: " + Math.floor(s / 3600) + ":" + pad(Math.floor(s % 3600 / 60)) + ":" + pad(s % 60);
    if (s < 300) el.style.color = "#d33";
  }}
  const timer = setInterval(tick, 1000);
  tick();
</script>""", height=40, alt="Time left in the exam")


@st.fragment(run_every=15)
def watch_clock(sid: str) -> None:
    """Every few seconds ask the server; once the time limit has passed it marks the exam, so show the results."""
    try:
        stage = runner.view(sid)["stage"]
    except FlowError:
        return
    if stage not in ("sitting", "active"):
        st.rerun()


def save(sid: str, item_id: str, key: str) -> None:
    """on_change: keep the answer the moment it changes, so a reload loses nothing."""
    value = st.session_state.get(key)
    try:
        runner.command(sid, "save", item_id=item_id, answer="" if value is None else value)
    except FlowError as exc:
        flash.later(FLASH, str(exc), "error")


# ---------------------------------------------------------------------------
# Choosing an exam


def show_choice() -> None:
    lib = wb.library
    st.subheader("Set by your teacher")
    assignments = sittings.open_assignments(wb.store, student)
    if not assignments:
        st.info("Your teacher has not set an exam that is open now. Sit a mock exam of your own below.")
    for a in assignments:
        with st.container(border=True):
            st.markdown(f"**{a['title']}**")
            limit = f" · time limit {a['time_limit_minutes']:g} minutes" if a.get("time_limit_minutes") else ""
            st.caption(f"Open until {a['closes_at']:%d %b %Y %H:%M} (UTC){limit}")
            taken = a["session"]
            if taken and taken["status"] == "active":
                if st.button("Continue", key=f"go_{a['id']}", type="primary"):
                    st.session_state[SID] = taken["id"]
                    st.rerun()
            elif taken:
                st.caption("You have handed this one in.")
                if st.button("See my results", key=f"see_{a['id']}"):
                    st.session_state[SID] = taken["id"]
                    st.rerun()
            elif st.button("Start", key=f"go_{a['id']}", type="primary"):
                start(*sittings.assignment_start(a))

    st.subheader("A mock exam of your own")
    home_subject, home_level = courses.home_course(wb.store, lib, student)
    subjects = courses.subjects(lib)
    if st.session_state.get("ex_subject") not in subjects:
        st.session_state["ex_subject"] = home_subject
    cols = st.columns(2)
    subject = cols[0].selectbox("Subject", subjects, key="ex_subject")
    levels = courses.levels(lib, subject)
    level_key = f"ex_level_{subject}"
    if st.session_state.get(level_key) not in levels:
        st.session_state[level_key] = home_level if home_level in levels else levels[0]
    level = cols[1].selectbox("Level", levels, key=level_key)
    st.caption("A full paper in the course's exam format, with the exam's time allowed. "
               "Answers are saved as you go; you see your marks when you hand it in.")
    if st.button("Start mock exam", type="primary"):
        start(*sittings.exam_start(subject, level))

    past = sittings.past_exams(wb.store, student)
    if past:
        st.subheader("Your past exams")
        for p in past:
            cols = st.columns([3, 2, 1])
            cols[0].markdown(f"{p['course']} {'(assigned)' if p['assigned'] else ''} · {p['when']} UTC")
            cols[1].markdown(p["score"])
            if cols[2].button("Results", key=f"past_{p['id']}"):
                st.session_state[SID] = p["id"]
                st.rerun()


# ---------------------------------------------------------------------------
# Sitting a mock exam


def answer_widget(sid: str, q: dict, saved: dict, readings: dict) -> None:
    key = f"ex_{sid}_{q['id']}"
    if stepped.has_steps(q):   # one box per step, the last the final answer; saved together
        stepped.exam_boxes(sid, q, key, saved.get(q["id"]), FLASH)
        show_reading(readings.get(q["id"]), SAVED_AS_TYPED, hint=False)
        return
    if key not in st.session_state and q["id"] in saved:
        st.session_state[key] = saved[q["id"]]
    label = answer_label(f"Your answer to question {q['number']}", q)
    if q["options"]:
        if st.session_state.get(key) is not None and st.session_state[key] not in q["options"]:
            st.session_state.pop(key, None)   # a saved answer that is not an option (typed elsewhere): start blank
        st.radio(label, q["options"], index=None, key=key, on_change=save, args=(sid, q["id"], key))
    else:
        st.text_input(label, key=key, on_change=save, args=(sid, q["id"], key),
                      placeholder="Type your answer; it is saved when you press Enter or click away")
        show_reading(readings.get(q["id"]), SAVED_AS_TYPED, hint=False)


def show_sitting(view: dict) -> None:
    sid = view["session_id"]
    exam = view["exam"]
    saved = view["answers"]
    st.title(f"{exam['subject']} {exam['level']}: mock exam")
    countdown(view.get("time_remaining_seconds"))
    watch_clock(sid)
    st.caption(f"{exam['question_count']} questions · {exam['total_marks']} marks · "
               f"{exam['time_allowed_minutes']:g} minutes. The clock keeps running if you leave this page.")
    with st.expander("Instructions"):
        for line in exam["instructions"]:
            st.markdown(f"- {line}")
    questions = []
    for section in exam["sections"]:
        st.header(section["section"])
        calc = "Calculator allowed" if section.get("calculator_allowed") else "No calculator"
        st.caption(f"{calc} · {section['marks']} marks")
        for q in section["questions"]:
            questions.append(q)
            with st.container(border=True):
                st.markdown(f"**Question {q['number']}** · {q['marks']} mark{'s' if q['marks'] != 1 else ''}")
                shared.stem(q["stem"])
                answer_widget(sid, q, saved, view.get("readings") or {})
    answered = sum(1 for q in questions if not stepped.is_blank(saved.get(q["id"])))
    st.divider()
    st.caption(f"{answered} of {len(questions)} questions answered. Your answers are saved as you go.")
    if not st.session_state.get(CONFIRM):
        if st.button("Submit exam", type="primary"):
            st.session_state[CONFIRM] = True
            st.rerun()
        return
    st.warning(f"Hand in your exam now? You have answered {answered} of {len(questions)} questions, "
               f"and you cannot change your answers afterwards.")
    unreadable = view.get("unreadable") or []
    if unreadable:
        st.warning(f"Could not be read: question{'s' if len(unreadable) > 1 else ''} " + ", ".join(str(n) for n in unreadable) + ". As they stand "
                   "these answers will be marked wrong; choose Keep working to correct them first.")
    cols = st.columns(2)
    if cols[0].button("Yes, submit my exam", type="primary"):
        final = {}
        for q in questions:
            value = (stepped.current(q, f"ex_{sid}_{q['id']}") if stepped.has_steps(q)
                     else st.session_state.get(f"ex_{sid}_{q['id']}"))
            if value is not None and (not stepped.is_blank(value) or q["id"] in saved):
                final[q["id"]] = value
        if run(sid, "submit", answers=final):
            st.session_state.pop(CONFIRM, None)
            st.rerun()
    if cols[1].button("Keep working"):
        st.session_state.pop(CONFIRM, None)
        st.rerun()


def show_results(view: dict) -> None:
    exam, res = view["exam"], view["results"]
    st.title(f"{exam['subject']} {exam['level']}: your results")
    if res.get("expired"):
        st.info("Time ran out, so the answers saved by then were marked.")
    cols = st.columns(3)
    cols[0].metric("Marks", f"{res['marks_awarded']:g} / {res['total_marks']:g}")
    cols[1].metric("Percent", f"{res['percent']:g}%")
    cols[2].metric("Grade", res["grade"])
    st.dataframe([{"Section": s["section"], "Marks": f"{s['marks_awarded']:g} / {s['marks']:g}",
                   "Percent": f"{s['percent']:g}%"} for s in res["sections"]], hide_index=True)

    st.subheader("Question by question")
    per_question = sorted(res["questions"].values(), key=lambda q: q["number"])
    st.dataframe([{"Question": q["number"], "Your answer": str(q["answer"] or "—"),
                   "Correct answer": str(q["correct_answer"]), "Marks": f"{q['marks_awarded']:g} / {q['marks']:g}",
                   "Right": "✅" if q["correct"] else "❌"} for q in per_question], hide_index=True)
    stems = {q["id"]: q for s in exam["sections"] for q in s["questions"]}
    by_number = {q["number"]: q for q in stems.values()}
    for q in per_question:
        mark = "✅" if q["correct"] else "❌"
        with st.expander(f"{mark} Question {q['number']}: {q['marks_awarded']:g} / {q['marks']:g}"):
            if q["number"] in by_number:
                shared.stem(by_number[q["number"]]["stem"])
            st.markdown(f"**Your answer:** {plain(q['answer']) if str(q['answer'] or '').strip() else '(no answer)'}")
            if q.get("unreadable"):
                st.caption("This answer could not be read, so it was marked as it stands.")
            else:
                read_as_line({"valid": True, "read_as": q.get("read_as"), "latex": q.get("read_as_latex")})
            stepped.show_steps(q.get("steps"))
            shared.stem(f"**Correct answer:** {q['correct_answer']}")
            if q.get("feedback"):
                shared.stem(f"**Feedback:** {q['feedback']}")
            if q.get("explanation"):
                shared.stem(f"**Explanation:** {q['explanation']}")

    st.subheader("What to work on")
    blocks = view.get("remediation") or []
    if not blocks:
        st.success("Every question was right: no gaps to work on. Try a harder course or another mock exam.")
    for block in blocks:
        with st.container(border=True):
            st.markdown(f"**{block['label']}** ({block['outcome_id']})")
            shared.stem(block["explanation"])
            if block.get("questions"):
                st.caption("Questions you missed: " + ", ".join(str(n) for n in block["questions"]))
            pq = block.get("practice_question")
            if pq:
                st.markdown("**Practice question:**")
                shared.stem(pq["stem"])
                for k, option in enumerate(pq.get("options") or []):
                    shared.stem(f"**{chr(65 + k)}.** {option}")
            if st.button("Practise this outcome", key=f"practise_{block['outcome_id']}"):
                st.session_state["practice_preset"] = sittings.practice_preset(exam["subject"], exam["level"],
                                                                               block["outcome_id"])
                st.switch_page(PRACTICE_PAGE)
    st.divider()
    if st.button("Back to my exams"):
        close_exam()
        st.rerun()


# ---------------------------------------------------------------------------
# An assigned evaluation (from an assessment blueprint): one question at a time


def show_evaluation(view: dict) -> None:
    sid = view["session_id"]
    st.title(view["title"] or "Evaluation")
    if view["stage"] == "completed":
        res = view["results"]
        if res.get("expired"):
            st.info("Time ran out, so the answers given by then were marked.")
        cols = st.columns(3)
        cols[0].metric("Score", f"{res['score_percent']:g}%")
        cols[1].metric("Grade", res["grade"])
        cols[2].metric("Result", "Passed" if res["passed"] else "Not yet passed")
        st.dataframe([{"Section": s["section_title"], "Right": f"{s['items_correct']} / {s['items_total']}",
                       "Accuracy": f"{s['accuracy_percent']:g}%"} for s in res["section_results"]], hide_index=True)
        for r in res["review"]:
            with st.expander(f"{'✅' if r['correct'] else '❌'} Question {r['number']}"):
                shared.stem(r["stem"])
                st.markdown(f"**Your answer:** {plain(r['answer']) if r['answer'] is not None else '(no answer)'}")
                shared.stem(f"**Correct answer:** {r['correct_answer']}")
                if r.get("explanation"):
                    shared.stem(f"**Explanation:** {r['explanation']}")
        if st.button("Back to my exams"):
            close_exam()
            st.rerun()
        return
    q = view["question"]
    countdown(view.get("time_remaining_seconds"))
    if view.get("time_remaining_seconds") is not None:
        watch_clock(sid)
    st.caption(f"{q['section_title']} · question {q['number']} of {q['total']}")
    shared.stem(q["stem"])
    go, answer = answer_box(q, f"ev_{sid}_{q['id']}", "Save and continue", default=view.get("your_answer"))
    if go:
        if answer is None or not str(answer).strip():
            st.warning("Type an answer or choose an option first.")
        elif run(sid, "answer", item_id=q["id"], answer=answer):
            st.rerun()
    cols = st.columns(3)
    if view.get("can_skip") and cols[0].button("Skip for now"):
        if run(sid, "skip", item_id=q["id"]):
            st.rerun()
    if view.get("can_go_back") and q["index"] > 0 and cols[1].button("Previous question"):
        if run(sid, "goto", index=q["index"] - 1):
            st.rerun()
    if view.get("all_answered") or view.get("can_go_back"):
        if cols[2].button("Finish and hand in", type="primary"):
            if run(sid, "finish"):
                st.rerun()


# ---------------------------------------------------------------------------

if SID not in st.session_state:
    # A reload loses the browser session: carry on with the newest exam still being sat.
    found = sittings.resume(wb.store, student, ("exam", "evaluation"))
    if found:
        st.session_state[SID] = found["id"]

flash.show(FLASH)

sid = st.session_state.get(SID)
if not sid:
    st.title("Mock exam")
    show_choice()
else:
    try:
        current = runner.view(sid)
    except FlowError as exc:
        close_exam()
        shared.error(exc)
        st.stop()
    if current["kind"] == "evaluation":
        show_evaluation(current)
    elif current["stage"] == "sitting":
        show_sitting(current)
    elif current.get("results"):
        show_results(current)
    else:
        close_exam()
        st.info("That exam could not be shown; choose an exam to start.")
        show_choice()
