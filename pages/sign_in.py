"""Sign in: students with their class code, name and (where the class uses them) PIN; teachers with the passcode."""
import streamlit as st

from core.school.auth import sign_in_student, sign_in_teacher
from ui import shared

wb = shared.workbench()
shared.styles()
st.title("Teacher Workbench")
# Stateful tabs: the chosen one is kept on the server, so a rerun (a sign-in that failed, or the first run of a
# server still opening its database) never flips back to the student's tab and hides the error under it.
student_tab, teacher_tab = st.tabs(["I'm a student", "I'm a teacher"], key="sign_in_as", on_change="rerun")
with student_tab:
    with st.form("student_sign_in"):
        code = st.text_input("Class code", placeholder="e.g. DEMO-N5", key="student_code")
        name = st.text_input("Your name", placeholder="as on your teacher's class list", key="student_name")
        pin = st.text_input("PIN", type="password", key="student_pin", max_chars=20,
                            placeholder="only if your teacher gave you a PIN slip")
        go = st.form_submit_button("Sign in", type="primary", key="student_go")
    if go:
        with st.spinner("Signing in…"):
            result = sign_in_student(wb.store, code, name, pin, client=shared.client())
        if result.ok:
            st.session_state["user"] = {"role": "student", "user": result.user, "name": result.display_name,
                                        "class_code": result.class_code}
            st.rerun()
        st.error(result.message)
    st.caption("Trying it out? The demo class code is **DEMO-N5**; sign in as **Ava Brown**.")
with teacher_tab:
    with st.form("teacher_sign_in"):
        passcode = st.text_input("Passcode", type="password", key="teacher_passcode")
        go = st.form_submit_button("Sign in", type="primary", key="teacher_go")
    if go:
        with st.spinner("Signing in…"):
            result = sign_in_teacher(wb.store, passcode, client=shared.client(), secrets=shared.secrets())
        if result.ok:
            st.session_state["user"] = {"role": "teacher", "user": "teacher", "name": "Teacher"}
            st.rerun()
        st.error(result.message)
