"""Teacher workbench: entry point (page config, sign-in and the navigation each role may see)."""
import time

import streamlit as st

from ui import activity, shared, signed_in

SIGN_OUT = ("pages/sign_out.py", "Sign out", "🚪")
SIGNED_OUT = {"": [("pages/sign_in.py", "Sign in", "🔑"), (*SIGN_OUT, "hidden")]}
TEACHER = {
    "Teach": [("pages/home.py", "Home", "🏠"),
              ("pages/teacher_blueprints.py", "Blueprints", "📐"),
              ("pages/teacher_generate.py", "Generate", "⚙️"),
              ("pages/teacher_review.py", "Review", "✅"),
              ("pages/teacher_exams.py", "Exams", "📝"),
              ("pages/teacher_gradebook.py", "Gradebook", "📒"),
              ("pages/teacher_class.py", "Class", "👥"),
              ("pages/teacher_analytics.py", "Analytics", "📊")],
    "Account": [("pages/teacher_settings.py", "Settings", "🔧"), SIGN_OUT],
}
# One list without section headings: Streamlit draws a sectioned menu with headings inside its list, which
# screen readers cannot follow (axe: list, listitem); a student's five pages need no sections.
STUDENT = {
    "": [("pages/student_practice.py", "Practice", "🎯"),
         ("pages/student_exam.py", "Mock exam", "📝"),
         ("pages/student_chat.py", "Tutor", "💬"),
         ("pages/student_progress.py", "My progress", "📈"),
         SIGN_OUT],
}

started = time.perf_counter()
activity.run_started()
st.set_page_config(page_title="Teacher Workbench", page_icon="📐", layout="wide")
try:
    wb = shared.workbench()  # opens the database, filling it with the shipped blueprints on first run
    shared.demo_ready(wb)
    # The signed-in user, brought back from the page's address after a reload or in another tab.
    who = signed_in.current_user(wb.store, shared.secrets())
    sections = SIGNED_OUT if who is None else TEACHER if who["role"] == "teacher" else STUDENT
    # Only the role's own pages exist in its navigation (the access control); every other address is a
    # hidden page that shows the sign-in form or the role's first page, never "Page not found".
    st.navigation(signed_in.navigation(sections, [SIGNED_OUT, TEACHER, STUDENT], who is not None)).run()
except shared.STORAGE_FAILURES as exc:  # a full disk, a damaged file, a file held by another program
    shared.storage_failed(exc)
finally:   # also after st.stop() or st.rerun() in a page
    shared.keep_long_lived()
    activity.run_ended()
    shared.log_run(started)
