"""Review page: bring questions in from Moodle, an LMS or an item bank, and take the listed items out."""
from __future__ import annotations

from typing import Any

import streamlit as st

from core.exams.diagrams import diagram_file
from core.items.interop.exporting import distractor_feedback, export_items
from core.items.interop.importing import import_file
from core.items.interop.model import InteropError
from core.items import review
from core.items.review import ReviewError
from core.store import repo
from ui import flash

FORMATS = {"QTI 3.0 package (.zip)": "qti3", "Moodle XML (.xml)": "moodle-xml", "GIFT (.txt)": "gift"}
MIMES = {"qti3": "application/zip", "moodle-xml": "application/xml", "gift": "text/plain"}
UPLOAD_TYPES = ["xml", "zip", "txt", "gift"]


def show(store: Any, library: Any, items: list[dict], flash_key: str) -> None:
    """The import and export panel; ``items`` is the list the filters selected (what an export writes)."""
    box = st.expander("Import or export questions (Moodle XML, GIFT, QTI 3.0)", key="rv_exchange_open",
                      on_change="rerun")
    if not box.open:   # drawn only while open: an upload box and a list the browser would build on every click
        return
    with box:
        left, right = st.columns(2)
        with left:
            st.markdown("**Import**")
            st.caption("Questions become drafts here. Every key is checked by the marker first; what cannot be "
                       "held or checked is listed with the reason. Importing a file twice adds nothing new.")
            upload = st.file_uploader("A Moodle XML, GIFT or QTI 3.0 file", type=UPLOAD_TYPES, key="rv_import_file")
            if st.button("Import", key="rv_import", disabled=upload is None):
                _import(store, upload, flash_key)
            report = st.session_state.get("rv_import_report")
            if report:
                _skipped(report["skipped"], "question")
        with right:
            st.markdown("**Export**")
            st.caption(f"Writes the {len(items)} item(s) listed below (set the filters to choose), with their keys "
                       f"and where each came from.")
            label = st.selectbox("Format", list(FORMATS), key="rv_export_format")
            fmt = FORMATS[label]
            if st.button("Prepare the file", key="rv_export", disabled=not items):
                try:
                    made = export_items([repo.row_to_item(r) for r in items], fmt,   # the queue's rows are whole
                                        option_feedback=distractor_feedback(library), draw=diagram_file)
                except InteropError as exc:
                    st.error(str(exc))
                else:
                    st.session_state["rv_export_file"] = {"format": fmt, "data": made.data, "name": made.filename,
                                                          **made.summary()}
            ready = st.session_state.get("rv_export_file")
            if ready and ready["format"] == fmt:
                st.download_button(f"Download {ready['name']} ({ready['items']} question(s))", ready["data"],
                                   file_name=ready["name"], mime=MIMES[fmt], key="rv_export_download")
                _skipped(ready["skipped"], "item")


def _import(store: Any, upload: Any, flash_key: str) -> None:
    try:
        report = import_file(store, upload.getvalue(), upload.name)
    except InteropError as exc:
        st.session_state.pop("rv_import_report", None)
        st.error(f"Nothing was imported: {exc}")
        return
    summary = report.summary()
    st.session_state["rv_import_report"] = summary
    flash.later(flash_key, f"Imported {summary['imported']} question(s) from {upload.name} as drafts"
                           f"{f'; {len(report.skipped)} skipped (see Import)' if report.skipped else ''}.",
                "success" if report.imported or not report.skipped else "info")
    st.rerun()


def _skipped(skipped: list[dict], what: str) -> None:
    if not skipped:
        return
    st.warning(f"{len(skipped)} {what}(s) skipped:")
    st.dataframe([{what: s[what], "why": s["reason"]} for s in skipped], hide_index=True, width="stretch")


def origin_text(origin: dict) -> str:
    """Where an imported question came from, and what reading it changed."""
    text = f"Imported from {origin.get('file', 'a file')} ({origin.get('format', '?')}), question {origin.get('question')}"
    provenance = origin.get("provenance") or {}
    if provenance.get("item"):
        text += f"; exported from item {provenance['item']}" + (
            f" of {provenance['blueprint']} ({provenance.get('level', '')}, seed {provenance.get('seed', '')})"
            if provenance.get("blueprint") else "")
    notes = origin.get("notes") or []
    return text + (". Check: " + "; ".join(notes) + "." if notes else ".")


def placement(store: Any, library: Any, item: dict, flash_key: str) -> None:
    """For a question without a course (most imported ones): choose its course and outcome, so it can be used.

    The choice is drawn only while its expander is open (open at first when no student could get the question
    without it), so a page of cards costs one closed expander each.
    """
    needed = review.unplaced(item) is not None
    box = st.expander("Course and outcome" + (" (needed before students get it)" if needed else ""),
                      expanded=needed, key=f"rv_place_open_{item['id']}", on_change="rerun")
    if not box.open:
        return
    courses = [(spec.model.subject, spec.model.level, o.id, o.label)
               for spec in library.specs.values() for o in spec.model.outcomes]
    current = next((i for i, c in enumerate(courses) if (c[0], c[1]) == (item.get("subject"), item.get("level"))
                    and c[2] in (item.get("outcome_ids") or [])), None)
    with box:
        with st.form(f"rv_place_{item['id']}"):
            chosen = st.selectbox("The outcome it assesses", range(len(courses)), index=current,
                                  format_func=lambda i: f"{courses[i][0]} {courses[i][1]} · {courses[i][2]} · "
                                                        f"{courses[i][3]}",
                                  key=f"rv_place_outcome_{item['id']}", placeholder="Choose an outcome")
            if st.form_submit_button("Save the course", key=f"rv_place_save_{item['id']}"):
                if chosen is None:
                    st.error("Choose the outcome the question assesses first.")
                    return
                subject, level, outcome, _ = courses[chosen]
                try:
                    review.place(store, item["id"], subject, level, outcome, library=library)
                except ReviewError as exc:
                    st.error(str(exc))
                    return
                flash.later(flash_key, f"{item['id']} is now in {subject} {level}, {outcome}.")
                st.rerun(scope="app")
