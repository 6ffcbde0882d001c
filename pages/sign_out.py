"""Sign out: forget everything about this browser session."""
import streamlit as st

if st.session_state.get("user"):
    st.session_state.clear()
    st.rerun()
st.info("You are signed out. Sign in again from the Sign in page.")
