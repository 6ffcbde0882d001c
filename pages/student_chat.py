"""Tutor: a conversation with the tutor about a course, with practice questions that core sets and marks."""
from __future__ import annotations

from typing import Any, Optional

import streamlit as st

from core.flows import chat as conversation
from core.flows.base import FlowError
from core.llm import chat, reach
from core.school import courses, sittings
from ui import chat as chat_ui
from ui import flash, shared

who = shared.require("student")
wb = shared.workbench()
runner = shared.runner()
student = who["user"]

SID = "chat_sid"            # the conversation on screen; None: a new one, begun by its first message
FLASH = "chat_flash"        # what the tutor could not do, shown once after the rerun
PRACTICE_PAGE = "pages/student_practice.py"
ANY = "any"


def tutor_problem() -> Optional[str]:
    """Why the tutor cannot answer now (no LLM set up, or its server known not to answer); None when it can."""
    status = shared.llm()
    if not status.on:
        return chat.NEEDS_LLM
    known = reach.peek(status.settings)      # never waits: a student is waiting on this page
    if known is not None and not known.answers:
        return chat.UNREACHABLE
    return None


def open_conversation(sid: Optional[str]) -> None:
    st.session_state[SID] = sid


def ask_tutor(sid: str) -> None:
    """The tutor's reply to what waits for it; its failure is kept for the next run (nothing else is lost)."""
    with st.spinner("The tutor is thinking…"):
        try:
            runner.command(sid, "reply")
        except FlowError as exc:
            flash.later(FLASH, str(exc), "error")


def send(text: str, course: Optional[tuple[str, str]]) -> None:
    """The student's message, stored first; then the tutor's reply. A new conversation begins with it."""
    sid = st.session_state.get(SID)
    try:
        if sid is None:
            subject, level = course or courses.home_course(wb.store, wb.library, student)
            sid = runner.start("chat", student, {"subject": subject, "level": level})
            st.session_state[SID] = sid
        runner.command(sid, "say", text=text)
    except FlowError as exc:
        flash.later(FLASH, str(exc), "error")
        return
    ask_tutor(sid)


def answer(sid: str, question: dict, given: Any, online: bool) -> None:
    if shared.command(sid, "answer", item_id=question["id"], answer=given):
        if online:
            ask_tutor(sid)      # the tutor sees how it went and carries on
        st.rerun()


def skip(sid: str) -> None:
    if shared.command(sid, "skip"):
        st.rerun()


def again(sid: str) -> None:
    ask_tutor(sid)
    st.rerun()


def practice_row(sid: str, view: dict) -> None:
    """Ask for a practice question: the course's, or one outcome's."""
    outcomes = [ANY] + [o["id"] for o in courses.outcomes(wb.library, view["subject"], view["level"])]
    left, right = st.columns([3, 1], vertical_alignment="bottom")
    chosen = left.selectbox("Practice question on", outcomes, key=f"chat_outcome_{sid}",
                            format_func=lambda o: "any part of the course" if o == ANY else
                            courses.outcome_label(wb.library, view["subject"], view["level"], o))
    if right.button("Give me a question", key=f"chat_practice_{sid}", width="stretch"):
        if shared.command(sid, "practice", outcome=None if chosen == ANY else chosen):
            st.rerun()


def course_choice(problem: Optional[str]) -> tuple[str, str]:
    """The course of a new conversation: the class's to start with."""
    home = courses.home_course(wb.store, wb.library, student)
    options = [(c["subject"], c["level"]) for c in courses.courses(wb.library)]
    st.session_state.setdefault("chat_course", home if home in options else options[0])
    chosen = st.selectbox("Course", options, key="chat_course", format_func=lambda c: f"{c[0]} {c[1]}",
                          disabled=problem is not None)
    if problem is None:
        st.caption(f"Ask the tutor anything about {chosen[0]} {chosen[1]}: an idea you are stuck on, a worked "
                   f"example, or a practice question to check yourself.")
    return chosen


st.title("Tutor")
problem = tutor_problem()
past = conversation.conversations(wb.store, student)
if SID not in st.session_state:
    # A reload loses the browser session: carry on with the most recent conversation.
    st.session_state[SID] = past[0]["id"] if past else None

if problem:
    st.info(f"{problem} Meanwhile, practise your course's questions on the Practice page.", icon="💡")
    if st.button("Practise instead", type="primary"):
        subject, level = courses.home_course(wb.store, wb.library, student)
        st.session_state["practice_preset"] = sittings.practice_preset(subject, level, None)
        st.switch_page(PRACTICE_PAGE)

side, main = st.columns([1, 3])
with side:
    chat_ui.conversation_list(past, st.session_state[SID], open_conversation, can_start=problem is None)
with main:
    sid = st.session_state[SID]
    course = None
    if sid is None:
        course = course_choice(problem)
    else:
        try:
            view = runner.view(sid)
        except FlowError as exc:
            # The conversation is gone (a reset database, say): start afresh.
            st.session_state[SID] = None
            shared.error(exc)
            st.stop()
        st.caption(f"{view['subject']} {view['level']}")
        chat_ui.show(view, sid, wb.library, answer=lambda q, given: answer(sid, q, given, problem is None),
                     skip=lambda: skip(sid), again=None if problem else (lambda: again(sid)))
    flash.show(FLASH)       # under the conversation, where the student is looking
    if sid is not None and "question" not in view and problem is None:
        practice_row(sid, view)

typed = st.chat_input("Ask the tutor…", key="chat_input", max_chars=chat.MAX_MESSAGE, disabled=problem is not None)
if typed:
    send(typed, course)
    st.rerun()
