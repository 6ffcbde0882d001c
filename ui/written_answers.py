"""The Gradebook's "Written answers in practice": a class's recent written answers, and marking one again."""
from __future__ import annotations

import streamlit as st

from core.school import written_answers
from core.school.written_answers import WrittenAnswerError
from ui import flash, shared

RIGHT, WRONG = "Right", "Wrong"


def show(runner, class_code: str, teacher: str, flash_key: str) -> None:
    """The class's recent written answers from practice and lessons, and the form to mark one right or wrong."""
    st.subheader("Written answers in practice")
    st.caption("The newest written answers from practice and lessons: how each was marked (by the LLM judge, or by "
               "the key points you set) and why. Mark one right or wrong with a reason: the student sees your mark "
               "and reason with that answer, and their results count it.")
    rows = written_answers.recent(runner.ctx.store, class_code)
    if not rows:
        st.info("No written answers from practice or lessons in this class yet.")
        return
    st.dataframe(written_answers.frame(rows), hide_index=True, key="gbw_table")
    labels = {f"{r['session_id']}#{r['seq']}": r for r in rows}
    chosen = st.selectbox("Answer to mark", list(labels), key="gbw_answer",
                          format_func=lambda k: written_answers.label(labels[k]))
    row = labels[chosen]
    with st.container(border=True):
        shared.stem(row["question"] or "")
        st.markdown(f"**Answer:** {shared.plain(row['answer']) if row['answer'].strip() else '(no answer)'}")
        shared.stem(f"**Key:** {row['key']}")
        st.caption(shared.plain(row["how_marked"]))
        for m in row["teacher_marks"]:
            st.caption(f"✏️ {shared.plain(written_answers.teacher_mark_text(m))}")
    with st.form("gbw_mark"):
        cols = st.columns([1, 4])
        verdict = cols[0].radio("Mark it", [RIGHT, WRONG], key="gbw_verdict", horizontal=True, index=None)
        reason = cols[1].text_input("Reason (kept in the history; the student sees it)", key="gbw_reason")
        go = st.form_submit_button("Save the mark", type="primary", key="gbw_go")
    if go:
        try:
            written_answers.mark(runner, row["session_id"], row["seq"], None if verdict is None else verdict == RIGHT,
                                 reason, teacher)
        except WrittenAnswerError as exc:
            shared.error(exc)
            return
        flash.later(flash_key, f"{row['name']}'s answer is now marked {str(verdict).lower()}.")
        st.rerun()
