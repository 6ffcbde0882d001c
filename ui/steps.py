"""Questions answered step by step: one answer box per step (the last is the final answer), and the marks per step.

A question lists its ``steps`` (from core: ``Item.student_view``) when its
marking criteria have their own answers. The student pages show one box per
step; the answer sent to core is {criterion index (as text): what was typed},
which core marks step by step with follow-through.
"""
from __future__ import annotations

from typing import Any, Optional

import streamlit as st

from ui import shared


def has_steps(question: dict) -> bool:
    return bool(question.get("steps")) and not question.get("options")


def box_label(question: dict, step: dict) -> str:
    marks = f"{step['marks']} mark{'s' if step['marks'] != 1 else ''}"
    if step.get("final"):
        units = f", in {question['units']}" if question.get("units") else ""
        return f"Step {step['number']} (final answer{units}): {step['step']} · {marks}"
    return f"Step {step['number']}: {step['step']} · {marks}"


def _key(key: str, step: dict) -> str:
    """The widget key of a step's box: the final answer's box has the question's own answer key."""
    return key if step.get("final") else f"{key}__step{step['index']}"


def _given(answer: Any, step: dict) -> str:
    """What an earlier answer holds for a step's box (a plain answer is the final answer)."""
    if isinstance(answer, dict):
        return str(answer.get(str(step["index"])) or "")
    return str(answer) if step.get("final") else ""


def is_blank(answer: Any) -> bool:
    """Nothing typed: no answer, blank text, or every step blank."""
    if isinstance(answer, dict):
        return not any(v is not None and str(v).strip() for v in answer.values())
    return answer is None or not str(answer).strip()


def current(question: dict, key: str) -> dict[str, str]:
    """What is in the question's step boxes now, as core takes it."""
    return {str(s["index"]): st.session_state.get(_key(key, s)) or "" for s in question["steps"]}


def answer_box(question: dict, key: str, button: str, default: Any = None) -> tuple[bool, Any]:
    """The answer widget and its button; returns (submitted, answer).

    A question with steps gets one box per step (the last is the final answer) and, as for a single
    answer, the preview of how the final answer is read, or which step cannot be read; the answer
    counts only once the student has seen that. Any other question gets the usual answer box.
    """
    from ui.answer import answer_box as single_box, reading_for, show_reading
    if not has_steps(question):
        return single_box(question, key, button, default=default)
    st.caption("Answer each step in its own box: every step earns its own marks, and a later step worked out "
               "correctly from an earlier mistake still earns its marks.")
    for step in question["steps"]:
        box = _key(key, step)
        if default is not None and box not in st.session_state:
            st.session_state[box] = _given(default, step)
        st.text_input(box_label(question, step), key=box)   # how to see it read: the caption under the boxes
    answer = current(question, key)
    shown_key = f"{key}__shown"
    shown_before = st.session_state.get(shown_key)
    reading = reading_for(question["id"], answer)
    show_reading(reading)
    st.session_state[shown_key] = answer
    blank = is_blank(answer)
    clicked = st.button(button, type="primary", key=f"{key}__go",
                        disabled=blank or not (reading["valid"] or reading["empty"]))
    if not clicked or blank:
        return False, answer
    if answer != shown_before:
        st.info(f"Check how your answer was read, then press {button} again.")
        return False, answer
    return True, answer


def exam_boxes(sid: str, question: dict, key: str, saved: Any, flash_key: str, version: int = 0) -> None:
    """Step boxes in a mock exam: the question's steps are saved together whenever a box changes.

    ``version`` is the server's version of the saved answer: the boxes are filled from it when it is newer
    than what they show, and a save from boxes that missed a newer answer asks the student which to keep.
    """
    from ui import exam_answers

    def fill(answer: Any = saved) -> None:
        for step in question["steps"]:
            st.session_state[_key(key, step)] = _given(answer, step) if answer is not None else ""

    exam_answers.sync(key, version, fill, [_key(key, step) for step in question["steps"]])
    for step in question["steps"]:
        box = _key(key, step)
        st.text_input(box_label(question, step), key=box, on_change=_save, args=(sid, question, key, flash_key),
                      placeholder="Type your answer; it is saved when you press Enter or click away")
    exam_answers.conflict_prompt(sid, question["id"], key, flash_key, fill, exam_answers.describe)


def _save(sid: str, question: dict, key: str, flash_key: str) -> None:
    from ui import exam_answers
    exam_answers.save(sid, question["id"], key, current(question, key), flash_key)


def show_steps(steps: Optional[list[dict]]) -> None:
    """After marking: each step's answer and the marks it earned, with the marker's words."""
    if not steps:
        return
    for s in steps:
        mark = "✅" if s["met"] else "❌"
        answer = shared.plain(s["answer"]) if s.get("answer") else "(no answer)"
        st.markdown(f"{mark} **Step {s['number']}** ({s['awarded']:g} / {s['marks']:g}): {answer}")
        if s.get("feedback"):
            st.caption(s["feedback"])
