"""The answer box the student pages share: a typed answer is previewed as it will be read before it counts.

A typed answer sits in a plain text input (no form), so pressing Enter or
clicking away reruns the page and the preview appears under it: "Your answer
was read as: ..." (as maths when there is LaTeX), with notes, or what could
not be read. The check button stays disabled while the answer cannot be read,
and an answer counts only once the student has seen how it was read. Options
are chosen in a form, as before: there is nothing to read. A choose-several
question has a tick box per option; its answer is the ticked options' letters
("A, C").
"""
from __future__ import annotations

from typing import Any, Optional

import streamlit as st

from core.flows.preview import preview_item
from core.marking import option_letters, right_options
from ui import shared

HINT = "Type your answer and press Enter to see how it is read."
NOT_COUNTED = "It has not been counted: correct it and check again."
SAVED_AS_TYPED = "It is saved as you typed it; if you hand it in like this, it is marked as it stands."
CHOOSE_SEVERAL = "Choose all the right answers."


def reading_for(item_id: str, text: Any) -> dict:
    """How a typed answer to a question on screen is read (core's answer preview)."""
    who = shared.user() or {}
    return preview_item(shared.runner().ctx.store, item_id, "" if text is None else text, who.get("user"))


def _as_maths(reading: dict) -> str:
    latex = (reading.get("latex") or "").strip()
    if latex and "$" not in latex and "\n" not in latex:
        return f"${latex}$"
    return f"**{shared.plain(reading.get('read_as') or reading.get('answer') or '')}**"


def show_reading(reading: Optional[dict], unreadable: str = NOT_COUNTED, hint: bool = True) -> None:
    """The preview: how the answer was read and notes on it, or why it could not be read."""
    if reading and reading.get("steps"):   # answered step by step: each box typed in so far, as read
        _show_steps(reading["steps"], unreadable)
        return
    if not reading or reading.get("empty"):
        if hint:
            st.caption(HINT)
        return
    _show_one(reading, "Your answer", unreadable)


def _show_steps(steps: list[dict], unreadable: str) -> None:
    for s in steps:
        _show_one(s, f"Step {s['number']}" + (" (final answer)" if s.get("final") else ""), unreadable)


def _show_one(reading: dict, what: str, unreadable: str) -> None:
    """One answer box's reading: '<what> was read as: ...' with its notes, or why it could not be read."""
    if reading.get("valid"):
        st.markdown(f"{what} was read as: {_as_maths(reading)}")
        for note in reading.get("notes") or []:
            st.caption(shared.plain(note))   # notes may quote what was typed: shown as written
    else:
        problem = shared.plain(reading.get("problem") or "").strip()
        st.warning(" ".join(part for part in (f"{what} could not be read.", problem, unreadable) if part))


def read_as_line(reading: Optional[dict]) -> None:
    """After marking: one line saying how the answer was read (nothing when there was nothing to read)."""
    text = read_as_text(reading)
    if text is not None:
        st.markdown(text)


def read_as_text(reading: Optional[dict]) -> Optional[str]:
    """The line ``read_as_line`` draws, or None when there was nothing to read."""
    if reading and reading.get("valid") and reading.get("read_as") is not None:
        return f"Read as: {_as_maths(reading)}"
    return None


def answer_label(prefix: str, question: dict) -> str:
    """'Your answer, with its units (cm)' where units must be typed; 'Your answer (in £)' where not."""
    units = question.get("units")
    if question.get("units_required"):
        return f"{prefix}, with its units ({units})"
    return prefix + (f" (in {units})" if units else "")


def tick_key(key: str, index: int) -> str:
    """The widget key of one option's tick box in a choose-several question."""
    return f"{key}__tick{index}"


def ticked(question: dict, key: str) -> str:
    """The letters of the options ticked now ("A, C"); "" when none is."""
    return option_letters([k for k in range(len(question["options"])) if st.session_state.get(tick_key(key, k))])


def fill_ticks(question: dict, key: str, answer: Any) -> None:
    """Tick the options an answer names ("A, C"), and clear the rest; nothing or no letters: none ticked."""
    chosen = set(right_options("" if answer is None else answer, len(question["options"])))
    for k in range(len(question["options"])):
        st.session_state[tick_key(key, k)] = k in chosen


def tick_boxes(question: dict, key: str, label: str = "Your answer", **on_change: Any) -> str:
    """One tick box per option, lettered as on paper; returns the letters ticked. ``on_change`` (with
    ``args``) is given to every box, for a page that saves as the student goes."""
    st.markdown(f"{label}: {CHOOSE_SEVERAL}")
    for k, option in enumerate(question["options"]):
        st.checkbox(f"**{chr(65 + k)}.** {option}", key=tick_key(key, k), **on_change)
    return ticked(question, key)


def answer_box(question: dict, key: str, button: str, default: Any = None) -> tuple[bool, Any]:
    """The answer widget and its button; returns (submitted, answer).

    Typed answers return submitted only when the answer can be read and the
    student has already seen that reading (a changed answer is shown first).
    """
    if question["options"] and question.get("choose_several"):
        if default is not None and tick_key(key, 0) not in st.session_state:
            fill_ticks(question, key, default)
        with st.form(f"{key}_form"):
            answer = tick_boxes(question, key)
            submitted = st.form_submit_button(button, type="primary")
        return submitted, answer
    if question["options"]:
        with st.form(f"{key}_form"):
            index = question["options"].index(default) if default in question["options"] else None
            answer = st.radio("Your answer", question["options"], index=index, key=key)
            submitted = st.form_submit_button(button, type="primary")
        return submitted, answer
    if default is not None and key not in st.session_state:
        st.session_state[key] = default
    label = answer_label("Your answer", question)
    text = st.text_input(label, key=key)   # the hint is the caption under it (read aloud, unlike a placeholder)
    shown_key = f"{key}__shown"
    shown_before = st.session_state.get(shown_key)
    reading = reading_for(question["id"], text)
    show_reading(reading)
    st.session_state[shown_key] = text
    clicked = st.button(button, type="primary", key=f"{key}__go", disabled=not reading["valid"])
    if not clicked:
        return False, text
    if reading["empty"]:
        st.warning("Type an answer first.")
        return False, text
    if not reading["valid"]:
        return False, text
    if text != shown_before:
        st.info(f"Check how your answer was read, then press {button} again.")
        return False, text
    return True, text
