"""Teacher workbench: entry point (page config and navigation only)."""
import streamlit as st

from pages import shared

st.set_page_config(page_title="Teacher Workbench", page_icon="📐", layout="wide")
shared.workbench()  # opens the database, filling it with the shipped blueprints on first run
page = st.navigation([st.Page("pages/home.py", title="Home", icon="🏠", default=True)])
page.run()
