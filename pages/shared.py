"""Small reusable pieces for the pages; each renders with show()."""
from __future__ import annotations

import os

import streamlit as st

from core.store import DatabaseBusy, StoreError
from core.workbench import Workbench, open_workbench


@st.cache_resource(show_spinner="Opening the database…")
def _open(db_path: str | None) -> Workbench:
    return open_workbench(db_path, snapshot_interval_s=300)


def workbench() -> Workbench:
    """The process's workbench; stops the page with a clear message if the database is unavailable."""
    try:
        return _open(os.environ.get("WORKBENCH_DB"))
    except DatabaseBusy as exc:
        st.error(f"The database is in use by another program. {exc}")
        st.stop()
    except StoreError as exc:
        st.error(str(exc))
        st.stop()
    raise AssertionError("unreachable")
