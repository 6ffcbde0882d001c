"""Practice: rapid-fire questions (adaptive or on one outcome) or a lesson; the exit ticket after rapid fire."""
from __future__ import annotations


import streamlit as st

from core.school import courses, progress, sittings
from core.flows.base import FlowError
from ui import flash, shared, tutor
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
            st.success(f"Right! {said}".strip())
        else:   # the marker's words, unless "What went wrong" below says the same
            st.warning(f"Not quite. {said if said != rem.get('what_went_wrong') else ''}".strip())
        with st.container(border=True):
            shared.stem(fb["question"])
            st.markdown(f"**Your answer:** {plain(fb['answer'])}")
            read_as_line(fb.get("reading"))
            show_steps(fb.get("steps"))
            shared.stem(f"**Correct answer:** {fb['correct_answer']}")
            if fb.get("explanation"):
                shared.stem(f"**Explanation:** {fb['explanation']}")
        tutor.judged(fb)
        if not fb["correct"] and rem:
            tutor.remediation(rem)
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


def show_summary(summary: dict) -> None:
    st.subheader("How the lesson went")
    cols = st.columns(4)
    cols[0].metric("Accuracy", f"{round(100 * summary['overall_accuracy'])}%")
    cols[1].metric("Cards right", f"{summary['cards_correct']} / {summary['cards_total']}")
    cols[2].metric("Attempts per card", summary["average_attempts_per_card"])
    cols[3].metric("Time", f"{round(summary['time_spent_seconds'] / 60, 1)} min")
    if summary["cards_skipped"]:
        st.caption(f"{summary['cards_skipped']} card(s) skipped.")
    if summary["strong_skills"]:
        st.markdown("**Strong:** " + ", ".join(progress.skill_names(wb.library, summary["strong_skills"])))
    if summary["weak_skills"]:
        st.markdown("**To work on:** " + ", ".join(progress.skill_names(wb.library, summary["weak_skills"])))
    if summary["retry_recommended"]:
        st.info("Try this lesson again: fewer than 7 cards in 10 were right.")
    else:
        st.success("Well done: you can move on to something new.")
    updates = summary.get("mastery_updates") or []
    if updates:
        st.dataframe([{"Skill": u["skill_name"], "Before": f"{round(100 * u['previous_score'])}%",
                       "After": f"{round(100 * u['new_score'])}%"} for u in updates], hide_index=True)


def show_lesson(view: dict) -> None:
    sid = view["session_id"]
    prog = view["progress"]
    outcome = courses.outcome_label(wb.library, view["subject"], view["level"], view["outcome"]) \
        if view["subject"] else "chosen skills"
    st.caption(f"{view['subject'] or ''} {view['level'] or ''} · {outcome} · lesson")
    st.progress(prog["completed"] / prog["total"] if prog["total"] else 0.0,
                text=f"Card {prog['card']} of {prog['total']} · {prog['correct']} right so far")
    card = view.get("card")
    stage = view["stage"]
    if card:
        st.subheader(card["title"])
        st.markdown(card["teaching"]["text"])
        example = card["teaching"].get("example")
        if example:
            with st.expander("Worked example", expanded=stage == "question" and card["attempts_used"] == 0):
                shared.stem(example["stem"])
                units = f" {example['units']}" if example.get("units") else ""
                shared.stem(f"**Answer:** {example['answer']}{units}")
                if example.get("explanation"):
                    shared.stem(example["explanation"])
        st.markdown("**Check your understanding**")
        shared.stem(card["question"]["stem"], shared.media_of(card["question"]))
        fb = view.get("feedback")
        if stage in ("question", "retry"):
            if fb:
                st.warning(f"Not quite. {fb.get('feedback') or ''}".strip())
                read_as_line(fb.get("reading"))
                show_steps(fb.get("steps"))
                if fb.get("hint"):
                    st.info(f"**Hint:** {fb['hint']}")
            st.caption(f"Attempts left: {card['attempts_remaining']} of {card['max_attempts']}")
            submitted, answer = answer_box(card["question"], f"la_{sid}_{card['index']}_{card['attempts_used']}",
                                           "Check answer")
            if submitted:
                if is_blank(answer):
                    st.warning("Type an answer or choose an option first.")
                elif run(sid, "answer", answer=answer, card_index=card["index"]):
                    st.rerun()
            left, right = st.columns(2)
            if left.button("Skip this card"):
                if run(sid, "skip", card_index=card["index"]):
                    st.rerun()
            if right.button("Stop the lesson"):
                if run(sid, "stop"):
                    st.rerun()
        elif card["complete"]:
            if fb:
                if fb["correct"]:
                    st.success(f"Right! {fb.get('feedback') or ''}".strip())
                else:
                    st.warning(f"Not this time. {fb.get('feedback') or ''}".strip())
                read_as_line(fb.get("reading"))
                show_steps(fb.get("steps"))
            revealed = view.get("revealed")
            if revealed:
                with st.container(border=True):
                    units = f" {revealed['units']}" if revealed.get("units") else ""
                    shared.stem(f"**Answer:** {revealed['correct_answer']}{units}")
                    if revealed.get("explanation"):
                        shared.stem(f"**Explanation:** {revealed['explanation']}")
                if revealed.get("remediation"):
                    tutor.remediation(revealed["remediation"], try_this=False)
            if stage != "ended" and st.button("Next card", type="primary"):
                if run(sid, "next"):
                    st.rerun()
    if stage == "ended":
        show_summary(view["summary"])
        if st.button("Start something new", type="primary"):
            forget(SID)
            st.rerun()


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
    st.caption(f"Question {view['progress'].get('position', 1)} of {view['progress']['total']}")
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
