"""A message that survives one rerun: left by a callback or just before ``st.rerun()``, shown once at the top of the next run."""
from __future__ import annotations

import streamlit as st

_SHOW = {"success": st.success, "error": st.error, "info": st.info}


def later(key: str, message: str, kind: str = "success") -> None:
    """Leave ``message`` for the next run of the page that shows ``key``."""
    st.session_state[key] = (kind, message)


def show(key: str) -> None:
    """The message left under ``key``, if any, once."""
    left = st.session_state.pop(key, None)
    if left:
        kind, message = left
        _SHOW[kind](message)
