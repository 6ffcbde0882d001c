"""A sitting's answer boxes kept in step with the server, whose saved answers are the truth.

Each question's boxes remember the version of the saved answer they last showed
(how many times it was saved). A save sends that version; the server refuses a
save from a page that missed a newer, different answer (another tab or window),
and the student is shown the newer answer and chooses which to keep. When the
server holds a newer version than a box shows (a reload, another tab saved),
the box is filled from the server before it is drawn.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

import streamlit as st

from core.flows.base import FlowError
from core.flows.sitting import AnswerConflict
from core.marking import option_letters, right_options
from ui import flash, shared


def version_key(key: str) -> str:
    return f"{key}__v"


def conflict_key(key: str) -> str:
    return f"{key}__conflict"


def sync(key: str, server_version: int, fill: Callable[[], None], boxes: Iterable[str] = ()) -> None:
    """Before the boxes are drawn: fill them from the server when it holds a newer answer than they show
    (their first drawing, a reload, a save from another tab) or when they were not drawn in the last run
    (another screen of the paper, another page: Streamlit forgets a box it does not draw); never while a
    conflict waits for the student. ``boxes``: the widgets' keys (default: ``key`` itself)."""
    if st.session_state.get(conflict_key(key)):
        return
    forgotten = any(box not in st.session_state for box in (list(boxes) or [key]))
    if version_key(key) not in st.session_state or forgotten or server_version > st.session_state[version_key(key)]:
        fill()
        st.session_state[version_key(key)] = server_version


def behind(versions: dict[str, int], key_of: Callable[[str], str]) -> bool:
    """Whether the server holds an answer newer than this page shows (saved from another tab)."""
    return any(v > st.session_state.get(version_key(key_of(item_id)), v) and not st.session_state.get(
        conflict_key(key_of(item_id))) for item_id, v in versions.items())


def save(sid: str, item_id: str, key: str, answer: Any, flash_key: str, base_version: int | None = None) -> None:
    """Save an answer against the version this page showed; a conflict is kept for the student to settle."""
    base = st.session_state.get(version_key(key), 0) if base_version is None else base_version
    try:
        view = shared.runner().command(sid, "save", item_id=item_id, answer=answer, base_version=base)
    except AnswerConflict as exc:
        st.session_state[conflict_key(key)] = exc.conflict
        return
    except FlowError as exc:
        refused(sid, exc, flash_key)
        return
    st.session_state[version_key(key)] = (view.get("versions") or {}).get(item_id, base)


def refused(sid: str, exc: FlowError, flash_key: str) -> None:
    """A refused save or hand-in: said on the next run, unless the paper's own screen says it (time is up)."""
    try:
        view = shared.runner().view(sid)
    except FlowError:
        view = {}
    if view.get("time_up") or (view.get("held") or {}).get("time_up"):
        return   # the handed-in screen leads with "Time is up: your answers saved by ... were marked."
    flash.later(flash_key, str(exc), "error")


def conflict_prompt(sid: str, item_id: str, key: str, flash_key: str, fill: Callable[[Any], None],
                    describe: Callable[[Any], str]) -> None:
    """Under a question whose save met a newer answer from another tab: show both and ask which to keep."""
    conflict = st.session_state.get(conflict_key(key))
    if not conflict:
        return
    st.warning(f"This answer was changed in another tab or window after this page showed it. "
               f"The newer answer is {describe(conflict['saved_answer'])}; here you typed "
               f"{describe(conflict['your_answer'])}. Which do you want to keep?")
    cols = st.columns(2)
    cols[0].button("Keep the newer answer", key=f"{key}__keep_newer", on_click=_keep_newer, args=(key, fill))
    cols[1].button("Use what I typed here", key=f"{key}__keep_mine", on_click=_keep_mine,
                   args=(sid, item_id, key, flash_key))


def _keep_newer(key: str, fill: Callable[[Any], None]) -> None:
    conflict = st.session_state.pop(conflict_key(key), None)
    if conflict:
        fill(conflict["saved_answer"])
        st.session_state[version_key(key)] = conflict["saved_version"]


def _keep_mine(sid: str, item_id: str, key: str, flash_key: str) -> None:
    conflict = st.session_state.pop(conflict_key(key), None)
    if conflict:
        save(sid, item_id, key, conflict["your_answer"], flash_key, base_version=conflict["saved_version"])


def describe(answer: Any, question: Optional[dict] = None) -> str:
    """An answer in a sentence: quoted text, each step of an answer given step by step, or (with the
    question, when it is choose-several) the options ticked: “A, C” (3; 5)."""
    options = (question or {}).get("options") or []
    if (question or {}).get("choose_several") and options and not isinstance(answer, dict):
        picked = right_options("" if answer is None else answer, len(options))
        if not picked:
            return "(no option ticked)"
        return f"“{option_letters(picked)}” (" + "; ".join(shared.plain(options[k]) for k in picked) + ")"
    if isinstance(answer, dict):
        parts = [f"“{shared.plain(v)}”" for v in answer.values() if str(v or "").strip()]
        return "(steps: " + " / ".join(parts) + ")" if parts else "(blank)"
    text = "" if answer is None else str(answer)
    return f"“{shared.plain(text)}”" if text.strip() else "(blank)"
