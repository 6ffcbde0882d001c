"""The conversation with the tutor as the student sees it: the list of conversations, each message, a practice
question set in the conversation (with its answer box while it is open) and its marked answer."""
from __future__ import annotations

import datetime as dt
from typing import Any, Callable, Optional

import streamlit as st

from core.school import courses
from ui import shared, tutor
from ui.answer import read_as_line
from ui.steps import answer_box, is_blank, show_steps


def when(value: Any) -> str:
    return value.strftime("%d %b %H:%M") if isinstance(value, dt.datetime) else str(value or "")


def conversation_list(past: list[dict], current: Optional[str], open_: Callable[[Optional[str]], None],
                      can_start: bool) -> None:
    """"New conversation", then the student's conversations, the most recently active first, to resume."""
    st.button("New conversation", key="chat_new", type="primary" if current else "secondary",
              on_click=open_, args=(None,), disabled=not can_start, width="stretch")
    if not past:
        st.caption("Your conversations with the tutor will be listed here.")
        return
    st.caption("Your conversations")
    for c in past:
        st.button(c["title"], key=f"chat_open_{c['id']}", on_click=open_, args=(c["id"],), width="stretch",
                  type="tertiary" if c["id"] != current else "secondary",
                  help=f"{c['subject'] or ''} {c['level'] or ''} · {when(c['last_at'])} UTC".strip())


def show(view: dict, sid: str, library: Any, answer: Callable[[dict, Any], None], skip: Callable[[], None],
         again: Optional[Callable[[], None]]) -> None:
    """Every message of the conversation; the open question's answer box; "Send again" while the tutor owes a
    reply (``again`` None: the tutor cannot be asked now)."""
    for entry in view["messages"]:
        role = entry["role"]
        if role == "student":
            with st.chat_message("user"):
                st.markdown(shared.plain(entry["text"]))
        elif role == "tutor":
            with st.chat_message("assistant"):
                shared.stem(entry["text"])
        elif role == "question":
            question(entry, view, sid, library, answer, skip)
        elif role == "result":
            result(entry)
        elif role == "skipped":
            with st.chat_message("assistant", avatar="⏭️"):
                st.caption(f"You skipped practice question {entry['number']}.")
        else:
            with st.chat_message("assistant", avatar="ℹ️"):
                st.caption(f"No practice question could be set: {entry['text']}")
    if view["waiting"]:
        st.caption("The tutor has not answered this yet.")
        if again is not None and st.button("Send again", key=f"chat_again_{sid}"):
            again()


def question(entry: dict, view: dict, sid: str, library: Any, answer: Callable[[dict, Any], None],
             skip: Callable[[], None]) -> None:
    """A practice question set in the conversation: the question as the student may see it, and while it is
    open, its answer box."""
    q = {**entry["question"], "number": entry["number"]}
    with st.chat_message("assistant", avatar="📝"):
        with st.container(border=True):
            marks = f"{q['marks']} mark{'s' if q['marks'] != 1 else ''}"
            outcome = courses.outcome_label(library, view["subject"], view["level"], entry.get("outcome_id"))
            st.markdown(f"**Practice question {q['number']}** · {marks}")
            st.caption(outcome)
            shared.stem(q["stem"], shared.media_of(q))
            shared.figure(q)
            if not entry.get("open"):
                return
            submitted, given = answer_box(q, f"ca_{sid}_{q['id']}", "Check answer")
            if submitted:
                if is_blank(given):
                    st.warning("Type an answer or choose an option first.")
                else:
                    answer(q, given)
            if st.button("Skip this question", key=f"chat_skip_{sid}_{q['id']}"):
                skip()


def result(entry: dict) -> None:
    """A marked answer: right or not, what was given and how it was read, the correct answer and explanation."""
    with st.chat_message("assistant", avatar="✅" if entry["correct"] else "❌"):
        said = entry.get("feedback") or ""
        rem = entry.get("remediation") or {}
        marks = f"{entry['score']:g} / {entry['max_score']:g}"
        if entry["correct"]:
            st.success(f"Practice question {entry['number']}: right! ({marks}) {said}".strip())
        else:
            st.warning(f"Practice question {entry['number']}: not quite ({marks}). "
                       f"{said if said != rem.get('what_went_wrong') else ''}".strip())
        st.markdown(f"**Your answer:** {shared.plain(entry['answer'])}")
        read_as_line(entry.get("reading"))
        show_steps(entry.get("steps"))
        shared.stem(f"**Correct answer:** {entry['correct_answer']}")
        if entry.get("explanation"):
            shared.stem(f"**Explanation:** {entry['explanation']}")
        tutor.judged(entry)
        if not entry["correct"] and rem:
            tutor.remediation(rem, try_this=False)
