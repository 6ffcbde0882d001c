"""Teacher workbench: entry point (page config, sign-in and the navigation each role may see)."""
import streamlit as st

from ui import shared

st.set_page_config(page_title="Teacher Workbench", page_icon="📐", layout="wide")
wb = shared.workbench()  # opens the database, filling it with the shipped blueprints on first run
shared.demo_ready(wb)

who = shared.user()
sign_out = st.Page("pages/sign_out.py", title="Sign out", icon="🚪")
if who is None:
    pages = [st.Page("pages/sign_in.py", title="Sign in", icon="🔑", default=True)]
elif who["role"] == "teacher":
    pages = {
        "Teach": [st.Page("pages/home.py", title="Home", icon="🏠", default=True),
                  st.Page("pages/teacher_blueprints.py", title="Blueprints", icon="📐"),
                  st.Page("pages/teacher_generate.py", title="Generate", icon="⚙️"),
                  st.Page("pages/teacher_review.py", title="Review", icon="✅"),
                  st.Page("pages/teacher_exams.py", title="Exams", icon="📝"),
                  st.Page("pages/teacher_class.py", title="Class", icon="👥"),
                  st.Page("pages/teacher_analytics.py", title="Analytics", icon="📊")],
        "Account": [st.Page("pages/teacher_settings.py", title="Settings", icon="🔧"), sign_out],
    }
else:
    pages = {
        "Learn": [st.Page("pages/student_practice.py", title="Practice", icon="🎯", default=True),
                  st.Page("pages/student_exam.py", title="Mock exam", icon="📝"),
                  st.Page("pages/student_progress.py", title="My progress", icon="📈")],
        "Account": [sign_out],
    }
st.navigation(pages).run()
