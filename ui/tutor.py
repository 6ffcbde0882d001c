"""LLM help on the practice page: the tutor's remediation, the short-answer judge's note, "Ask the tutor"."""
from __future__ import annotations

from typing import Callable

import streamlit as st

from core.llm import chat, reach
from ui import shared


def remediation(rem: dict, try_this: bool = True, shown: str | None = None) -> None:
    """Core's what went wrong / key concept / try this, then the tutor's fuller version when there is one
    (what went wrong is left out when it only repeats the marker's words, ``shown``, already on screen)."""
    with st.container(border=True):
        if rem.get("what_went_wrong") and rem["what_went_wrong"] not in (shown or ""):
            shared.stem(f"**What went wrong:** {rem['what_went_wrong']}")
        if rem.get("key_concept"):
            shared.stem(f"**Key concept:** {rem['key_concept']}")
        if try_this and rem.get("try_this"):
            shared.stem(f"**Try this:** {rem['try_this']}")
    tutor = rem.get("tutor")
    if tutor:
        with st.container(border=True):
            st.markdown("**From the tutor**")
            shared.stem(f"**What went wrong:** {tutor['what_went_wrong']}")
            shared.stem(f"**Key concept:** {tutor['key_concept']}")
            shared.stem(f"**Try this:** {tutor['try_this']}")
    elif rem.get("tutor_error"):
        st.caption(rem["tutor_error"])


def judged(fb: dict) -> None:
    """How a short written answer was marked when the LLM judge was asked."""
    info = fb.get("judged")
    if not info:
        return
    if info["judged_by"] == "llm":
        st.caption(f"Marked by the LLM judge (confidence {info['confidence']:.2f}): {info.get('reason') or ''}")
    else:
        st.caption(f"Marked by the key points your teacher set ({info.get('error') or 'the LLM judge was not used'}).")


def ask(sid: str, view: dict, run: Callable[..., bool]) -> None:
    """The tutor chat under the feedback; off (with how to turn it on) when no LLM is configured."""
    with st.expander("Ask the tutor", expanded=bool(view.get("tutor"))):
        status = shared.llm()
        if not status.on:
            # Said as to a student: no settings, variables or file names (the teacher's pages give those).
            st.caption(f"{chat.NEEDS_LLM} Your practice goes on without it.")
            return
        known = reach.peek(status.settings)     # never waits: a student is waiting on this page
        if known is not None and not known.answers:
            st.caption("The tutor cannot be reached just now; ask your teacher to check the LLM on the Settings "
                       "page. Your practice goes on without it.")
            return
        for turn in view.get("tutor") or []:
            with st.chat_message("user"):
                st.markdown(shared.plain(turn["question"]))
            with st.chat_message("assistant"):
                shared.stem(turn["reply"])
        with st.form(f"tutor_{sid}_{view['feedback']['item_id']}", clear_on_submit=True):
            question = st.text_input("Your question about this answer", key=f"tq_{sid}",
                                     placeholder="Why is my answer wrong?")
            if st.form_submit_button("Ask"):
                if not question.strip():
                    st.warning("Type a question for the tutor first.")
                else:
                    with st.spinner("The tutor is thinking…"):
                        if run(sid, "ask_tutor", question=question):
                            st.rerun()
