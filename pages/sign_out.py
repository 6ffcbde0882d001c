"""Sign out: end the sign-in everywhere (the token in the address stops working) and forget this browser session."""
import streamlit as st

from ui import shared, signed_in

if st.session_state.get("user"):
    signed_in.sign_out(shared.workbench().store, shared.secrets())
    st.rerun()
st.info("You are signed out.")
st.page_link("pages/sign_in.py", label="Sign in again", icon="🔑")
