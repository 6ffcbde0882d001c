"""A lesson on the Practice page: the card on screen (teaching, worked example, question, hints, feedback) and
the end-of-lesson summary."""
from __future__ import annotations

from typing import Callable

import streamlit as st

from core.flows.lesson_words import plural
from core.school import courses, written_answers
from ui import countdown, shared, tutor
from ui.answer import read_as_line
from ui.steps import answer_box, is_blank, show_steps


def minutes(seconds: float) -> str:
    """"under a minute", "1 minute", "4 minutes" (rounded to the minute)."""
    whole = round(seconds / 60)
    return "under a minute" if whole < 1 else plural(whole, "minute")


def show_summary(summary: dict) -> None:
    st.subheader("How the lesson went" if not summary.get("stopped_early") else "Lesson stopped early")
    shared.stem(summary.get("summary") or "")
    if summary.get("summary_by") == "llm":
        st.caption("Summary written by the tutor from your lesson's figures.")
    cols = st.columns(4)
    cols[0].metric("Cards right", f"{summary['cards_correct']} of {summary['cards_total']}",
                   help="Cards answered right within the attempts allowed, out of the cards in the lesson.")
    if summary.get("stopped_early"):
        cols[1].metric("Cards reached", f"{summary.get('cards_shown', summary['cards_completed'])} "
                                        f"of {summary['cards_total']}")
    else:
        cols[1].metric("Accuracy", f"{round(100 * summary['overall_accuracy'])}%",
                       help="The share of cards you got right within the attempts allowed.")
    cols[2].metric("Attempts per card", summary["average_attempts_per_card"])
    cols[3].metric("Time", minutes(summary["time_spent_seconds"]))
    if summary.get("engagement_score") is not None:
        st.caption(f"Engagement {round(100 * summary['engagement_score'])}%: how fully you worked the cards you "
                   f"saw (a card answered counts fully; one skipped, rushed or left half-way counts less).")
    updates = summary.get("mastery_updates") or []
    if updates:
        st.dataframe([{"Skill": u["skill_name"], "Before": f"{round(100 * u['previous_score'])}%",
                       "After": f"{round(100 * u['new_score'])}%"} for u in updates], hide_index=True)


def _example(example: dict, open_: bool) -> None:
    with st.expander("Worked example", expanded=open_):
        shared.stem(example["stem"])
        units = f" {example['units']}" if example.get("units") else ""
        shared.stem(f"**Answer:** {example['answer']}{units}")
        if example.get("explanation"):
            shared.stem(example["explanation"])


def show(view: dict, library, run: Callable[..., bool], on_end: Callable[[], None]) -> None:
    """The lesson ``view`` on screen; ``run`` sends a command, ``on_end`` starts something new."""
    sid = view["session_id"]
    prog = view["progress"]
    outcome = courses.outcome_label(library, view["subject"], view["level"], view["outcome"]) \
        if view["subject"] else "chosen skills"
    st.caption(f"{view['subject'] or ''} {view['level'] or ''} · {outcome} · lesson")
    st.progress(prog["completed"] / prog["total"] if prog["total"] else 0.0,
                text=f"Card {prog['card']} of {prog['total']} · {prog['correct']} right so far")
    card = view.get("card")
    stage = view["stage"]
    if card and stage != "ended":
        if card.get("transition") and stage == "question" and card["attempts_used"] == 0:
            with st.chat_message("assistant"):
                shared.stem(card["transition"])
        st.subheader(card["title"])
        shared.stem(card["teaching"]["text"])
        example = card["teaching"].get("example")
        if example:
            _example(example, stage == "question" and card["attempts_used"] == 0)
        st.markdown("**Check your understanding**")
        shared.stem(card["question"]["stem"], shared.media_of(card["question"]))
        fb = view.get("feedback")
        if stage in ("question", "retry"):
            if fb:
                st.warning(shared.maths(fb.get("feedback") or "That's not the right answer."))
                read_as_line(fb.get("reading"))
                show_steps(fb.get("steps"))
                if fb.get("hint"):
                    level = card.get("hint_level")
                    st.info(shared.maths(f"**Hint {level}:** {fb['hint']}" if level else f"**Hint:** {fb['hint']}"))
            st.caption(f"Attempts left: {card['attempts_remaining']} of {card['max_attempts']}")
            countdown.question(card.get("time_left_seconds"), card.get("time_limit_seconds"),
                               "⏰ Time's up for this one: an answer now counts as a wrong attempt.")
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
            _finished_card(view, fb)
            if st.button("Next card", type="primary"):
                if run(sid, "next"):
                    st.rerun()
    if stage == "ended":
        if card and card["complete"] and view.get("feedback"):
            _finished_card(view, view["feedback"])   # the last card's answer, above the summary
        show_summary(view["summary"])
        if st.button("Start something new", type="primary"):
            on_end()


def _finished_card(view: dict, fb) -> None:
    if fb:
        if fb["correct"]:
            st.success(shared.maths(fb.get("feedback") or "That's right."))
        else:
            st.warning(shared.maths(fb.get("feedback") or "That's not the right answer."))
        read_as_line(fb.get("reading"))
        show_steps(fb.get("steps"))
        tutor.judged(fb)
        attempt = (view.get("card") or {}).get("attempts_used") or 1
        teacher_said = written_answers.note_for(shared.workbench().store, view["session_id"], fb.get("item_id"),
                                                attempt)
        if teacher_said:
            st.info(shared.plain(teacher_said), icon="✏️")
    revealed = view.get("revealed")
    if revealed:
        with st.container(border=True):
            units = f" {revealed['units']}" if revealed.get("units") else ""
            shared.stem(f"**Answer:** {revealed['correct_answer']}{units}")
            if revealed.get("explanation"):
                shared.stem(f"**Explanation:** {revealed['explanation']}")
        if revealed.get("remediation"):
            tutor.remediation(revealed["remediation"], try_this=False, shown=(fb or {}).get("feedback"))
