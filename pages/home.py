"""Teacher home: what the workbench holds."""
import streamlit as st

from ui import shared

shared.require("teacher")
shared.teacher_banner()
wb = shared.workbench()
summary = wb.summary()
st.title("Teacher Workbench")
st.caption(f"Database: {summary['database']}")
cols = st.columns(4)
cols[0].metric("Skill blueprints", summary["skills"])
cols[1].metric("Assessments", summary["assessments"])
cols[2].metric("Course specs", summary["course_specs"])
cols[3].metric("Stored items", summary["items"])
if summary["library_errors"]:
    st.warning(f"{summary['library_errors']} blueprint problem(s) found; open Blueprints to see them.")
    for issue in wb.library.report.errors()[:20]:
        st.text(str(issue))
