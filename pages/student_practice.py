"""Practice: rapid-fire questions (adaptive or on one outcome) or a lesson; the exit ticket after rapid fire."""
from __future__ import annotations


import streamlit as st

from core.school import courses, sittings, written_answers
from core.flows.base import FlowError
from ui import countdown, flash, lesson, shared, tutor
from ui.answer import read_as_line
from ui.steps import answer_box, is_blank, show_steps

who = shared.require("student")
wb = shared.workbench()
runner = shared.runner()
student = who["user"]

SID = "practice_sid"          # the rapid-fire or lesson session on screen
SURVEY = "exit_ticket_sid"    # the exit ticket after a rapid-fire session
FLASH = "practice_flash"      # a message that must survive one rerun
PRESET = "practice_preset"    # {subject, level, outcome} handed over by the exam or progress page


plain = shared.plain


run = shared.command


def forget(*keys: str) -> None:
    for key in keys:
        st.session_state.pop(key, None)


# ---------------------------------------------------------------------------
# Setup


def show_setup() -> None:
    lib = wb.library
    home_subject, home_level = courses.home_course(wb.store, lib, student)
    preset = st.session_state.pop(PRESET, None)
    if preset:
        st.session_state["pr_subject"] = preset["subject"]
        st.session_state[f"pr_level_{preset['subject']}"] = preset["level"]
        st.session_state[f"pr_outcome_{preset['subject']}_{preset['level']}"] = preset["outcome"]
        st.session_state["pr_mode"] = "Rapid fire"
    st.caption("Choose what to practise. Your class's course is selected to start with.")
    subjects = courses.subjects(lib)
    if st.session_state.get("pr_subject") not in subjects:
        st.session_state["pr_subject"] = home_subject
    subject = st.selectbox("Subject", subjects, key="pr_subject")
    levels = courses.levels(lib, subject)
    level_key = f"pr_level_{subject}"
    if st.session_state.get(level_key) not in levels:
        st.session_state[level_key] = home_level if home_level in levels else levels[0]
    level = st.selectbox("Level", levels, key=level_key)
    outcome_ids = [sittings.ADAPTIVE] + [o["id"] for o in courses.outcomes(lib, subject, level)]
    outcome_key = f"pr_outcome_{subject}_{level}"
    if st.session_state.get(outcome_key) not in outcome_ids:
        st.session_state[outcome_key] = sittings.ADAPTIVE
    outcome = st.selectbox("Outcome", outcome_ids, key=outcome_key,
                           format_func=lambda o: courses.outcome_label(lib, subject, level, o))
    st.session_state.setdefault("pr_mode", "Rapid fire")
    mode = st.radio("Mode", ["Rapid fire", "Lesson"], key="pr_mode", horizontal=True,
                    captions=["One question after another, with feedback on each.",
                              "Short teaching cards, each with a question and a few attempts."])
    cards = sittings.DEFAULT_LESSON_CARDS
    if mode == "Lesson":
        cards = st.slider("Cards in the lesson", 3, 10, sittings.DEFAULT_LESSON_CARDS, key="pr_cards")
    if st.button("Start", type="primary"):
        kind, config = sittings.practice_start(subject, level, outcome, mode == "Lesson", cards)
        try:
            sid = runner.start(kind, student, config)
        except FlowError as exc:
            shared.error(exc)
            return
        st.session_state[SID] = sid
        st.rerun()


# ---------------------------------------------------------------------------
# Rapid fire


def show_stats(stats: dict) -> None:
    cols = st.columns(4)
    cols[0].metric("Answered", stats["total"])
    cols[1].metric("Right", stats["correct"])
    cols[2].metric("Streak", stats["streak"])
    cols[3].metric("Best streak", stats["best_streak"])


def finish_practice(view: dict) -> None:
    if not run(view["session_id"], "stop"):
        return
    forget(SID)
    if view["stats"]["total"]:
        try:
            st.session_state[SURVEY] = runner.start("survey", student, sittings.exit_ticket_config(view))
        except FlowError as exc:
            flash.later(FLASH, f"The exit ticket could not start: {exc}", "error")
    else:
        flash.later(FLASH, "Practice finished before any answer, so there is nothing to record.", "info")
    st.rerun()


def show_practice(view: dict) -> None:
    sid = view["session_id"]
    st.caption(f"{view['subject']} {view['level']} · "
               f"{courses.outcome_label(wb.library, view['subject'], view['level'], view['outcome'])} · rapid fire")
    show_stats(view["stats"])
    if view["stage"] == "question":
        q = view["question"]
        st.subheader(f"Question {q['number']}")
        shared.stem(q["stem"], shared.media_of(q))
        shared.figure(q)
        st.caption(f"{q['marks']} mark{'s' if q['marks'] != 1 else ''}")
        if view.get("time_left_seconds") is not None:
            countdown.question(view["time_left_seconds"], q.get("time_limit_seconds"),
                               "⏰ Time's up for this one: you can still answer, but it will count as wrong.")
        if view.get("rationale"):
            with st.expander("Why this question?"):
                st.caption(view["rationale"].get("reason", ""))
        submitted, answer = answer_box(q, f"pa_{sid}_{q['id']}", "Check answer")
        if submitted:
            if is_blank(answer):
                st.warning("Type an answer or choose an option first.")
            elif run(sid, "answer", item_id=q["id"], answer=answer):
                st.rerun()
        left, right = st.columns(2)
        if left.button("Skip this question"):
            if run(sid, "skip"):
                st.rerun()
        if right.button("Finish"):
            finish_practice(view)
    elif view["stage"] == "feedback":
        fb = view["feedback"]
        rem = fb.get("remediation") or {}
        said = fb.get("feedback") or ""
        if fb["correct"]:
            st.success(said or "That's right.")
        else:
            st.warning(said or "That's not the right answer.")
        if fb.get("note"):   # a very quick wrong answer: take your time
            st.info(fb["note"], icon="⏳")
        with st.container(border=True):
            shared.stem(fb["question"])
            st.markdown(f"**Your answer:** {plain(fb['answer'])}")
            read_as_line(fb.get("reading"))
            show_steps(fb.get("steps"))
            shared.stem(f"**Correct answer:** {fb['correct_answer']}")
            if fb.get("explanation"):
                shared.stem(f"**Explanation:** {fb['explanation']}")
        tutor.judged(fb)
        teacher_said = written_answers.note_for(wb.store, sid, fb["item_id"])
        if teacher_said:
            st.info(plain(teacher_said), icon="✏️")
        if not fb["correct"] and rem:
            tutor.remediation(rem, shown=said)
        tutor.ask(sid, view, run)
        cols = st.columns(3)
        if cols[0].button("Next question", type="primary"):
            if run(sid, "next"):
                st.rerun()
        if view.get("can_try_similar") and cols[1].button("Try a similar one"):
            if run(sid, "next", similar=True):
                st.rerun()
        if cols[2].button("Finish"):
            finish_practice(view)
    elif view["stage"] != "ended":   # between questions (a skip whose next question has not come yet)
        if st.button("Next question", type="primary") and run(sid, "next"):
            st.rerun()
    else:  # ended, but its exit ticket could not start
        st.info(f"This practice session is over: {view['stats']['correct']} right out of {view['stats']['total']}.")
        if st.button("Practise again", type="primary"):
            forget(SID)
            st.rerun()


# ---------------------------------------------------------------------------
# Lesson


def end_lesson() -> None:
    forget(SID)
    st.rerun()


def show_lesson(view: dict) -> None:
    lesson.show(view, wb.library, run, end_lesson)


# ---------------------------------------------------------------------------
# Exit ticket


def show_survey(sid: str) -> None:
    view = runner.view(sid)
    st.subheader(view.get("title") or "Exit ticket")
    if view["stage"] == "ended":
        st.success(view.get("message") or "Thank you: your answers have been saved.")
        if st.button("Practise again", type="primary"):
            forget(SURVEY)
            st.rerun()
        return
    if view.get("description"):
        st.caption(view["description"])
    q = view["question"]
    st.caption(f"Question {view['progress'].get('step', 1)} of {view['progress'].get('steps', view['progress']['total'])}")
    with st.form(f"survey_{sid}_{q['question_id']}"):
        key = f"sv_{sid}_{q['question_id']}"
        if q["question_type"] == "rating":
            scale = q["scale"] or {"min": 1, "max": 5, "labels": {}}
            labels = {str(k): v for k, v in (scale.get("labels") or {}).items()}
            answer = st.radio(q["text"], list(range(scale["min"], scale["max"] + 1)), index=None, key=key,
                              horizontal=True,
                              format_func=lambda v: f"{v} · {labels[str(v)]}" if str(v) in labels else str(v))
        elif q["question_type"] == "choice":
            answer = st.radio(q["text"], q["options"], index=None, key=key)
        else:
            answer = st.text_area(q["text"], key=key, max_chars=q.get("max_length"))
        submitted = st.form_submit_button("Next", type="primary")
    if submitted and run(sid, "answer", question_id=q["question_id"], answer=answer):
        st.rerun()
    left, right = st.columns(2)
    if not q["required"] and left.button("Skip this question"):
        if run(sid, "skip", question_id=q["question_id"]):
            st.rerun()
    if right.button("Not now"):
        if run(sid, "stop"):
            forget(SURVEY)
            flash.later(FLASH, "Exit ticket skipped. Start another practice whenever you are ready.", "info")
            st.rerun()


# ---------------------------------------------------------------------------

st.title("Practice")
if SID not in st.session_state and SURVEY not in st.session_state:
    # A reload loses the browser session: carry on with the newest unfinished session instead.
    found = sittings.resume(wb.store, student, ("practice", "lesson", "survey"))
    if found:
        st.session_state[SURVEY if found["kind"] == "survey" else SID] = found["id"]

flash.show(FLASH)

try:
    if st.session_state.get(SURVEY):
        show_survey(st.session_state[SURVEY])
    elif st.session_state.get(SID):
        if st.session_state.get(PRESET):
            st.info("Finish this session first; what you chose to practise will then be selected for you.")
        current = runner.view(st.session_state[SID])
        (show_lesson if current["kind"] == "lesson" else show_practice)(current)
    else:
        show_setup()
except FlowError as exc:
    # The session is gone (a reset database, say): start afresh.
    forget(SID, SURVEY)
    shared.error(exc)
    if st.button("Start again"):
        st.rerun()
