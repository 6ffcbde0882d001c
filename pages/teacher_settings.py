"""Settings: the LLM server and models (any OpenAI-compatible server), a connection check, recent LLM calls,
and snapshots of the database for notebooks."""
import pandas as pd
import streamlit as st

from core.analytics import snapshots
from core.llm import ROLES, LLMConfigError, LLMError, clear_settings, save_settings
from core.llm.reach import advice, notice, reachability
from core.llm.settings import saved_key
from core.store import StoreError
from core.store.llm_runs import list_runs
from ui import flash, shared

who = shared.require("teacher")
shared.teacher_banner()
wb = shared.workbench()
status = shared.llm()

st.title("Settings")
st.subheader("LLM")
st.caption("An LLM adds features (LLM items and the question pipeline on Generate; in practice, questions for "
           "outcomes nothing else covers, a judge for short written answers, richer remediation and a tutor). "
           "Everything else works without one. Exams and evaluations never use it.")
# Asked afresh when "Check the connection" was pressed or settings were just saved, else remembered for a while.
said = notice(status, fresh=bool(st.session_state.get("llm_check")) or "llm_saved" in st.session_state)
flash.show("llm_saved")
getattr(st, said.kind)(said.text)

locked = status.origin == "environment"
if locked:
    st.caption("These settings come from the environment (WORKBENCH_LLM_*) or `.streamlit/secrets.toml`, "
               "which take precedence over this page; change them there.")
current = status.settings
with st.form("llm_settings"):
    base_url = st.text_input("Server URL", value=(current.base_url or "") if current else "", disabled=locked,
                             placeholder="https://api.openai.com/v1 or http://localhost:11434/v1 (Ollama)",
                             help="Any OpenAI-compatible server: OpenAI, Ollama, vLLM, LM Studio. Empty means OpenAI.")
    has_key = status.origin == "settings page" and saved_key(wb.store)
    api_key = st.text_input("API key", type="password", disabled=locked,
                            placeholder="a key is saved (it is never shown)" if has_key else "",
                            help="Kept in a secrets file beside the database, never in the database, its "
                                 "snapshots or exports, and never shown again. Leave empty to keep the saved key; "
                                 "a local server may need none.")
    model = st.text_input("Model", value=current.model if current else "", disabled=locked,
                          placeholder="gpt-4o-mini")
    with st.expander("A different model for a role (optional)"):
        models = {role: st.text_input(role.replace("_", " ").capitalize(), disabled=locked, key=f"llm_model_{role}",
                                      value=(current.models.get(role, "") if current else ""))
                  for role in ROLES}
    cols = st.columns(3)
    timeout_s = cols[0].number_input("Timeout (s)", min_value=1.0, max_value=600.0, disabled=locked,
                                     value=float(current.timeout_s) if current else 30.0)
    retries = cols[1].number_input("Retries", min_value=0, max_value=10, disabled=locked,
                                   value=int(current.max_retries) if current else 2)
    concurrency = cols[2].number_input("Calls at once", min_value=1, max_value=64, disabled=locked,
                                       value=int(current.concurrency) if current else 4)
    saved = st.form_submit_button("Save", type="primary", disabled=locked)
if saved:
    key = api_key or (current.api_key if current and status.origin == "settings page" else "")
    try:
        save_settings(wb.store, {"base_url": base_url.strip() or None, "api_key": key, "model": model.strip(),
                                 "models": {r: m.strip() for r, m in models.items()}, "timeout_s": timeout_s,
                                 "max_retries": int(retries), "concurrency": int(concurrency)}, who["name"])
    except LLMConfigError as exc:
        shared.error(exc)
    else:
        flash.later("llm_saved", "Saved. The server is asked at once whether it answers:")
        st.rerun()

cols = st.columns(2)
if cols[0].button("Check the connection", disabled=not status.on, key="llm_check"):
    reach = reachability(status.settings)   # just asked above
    if not reach.answers:
        st.warning(f"The connection check failed: {reach.problem}. {advice(status.origin)}")
    else:
        with st.spinner("Asking the model for a one-word reply…"):
            try:
                reply = shared.llm_client().check()
            except LLMError as exc:
                st.warning(f"The connection check failed: {exc}. {advice(status.origin)}")
            else:
                st.success(f"The model answered: {reply!r}")
if status.origin == "settings page" and cols[1].button("Turn LLM features off", key="llm_clear"):
    clear_settings(wb.store)
    st.rerun()

st.subheader("Recent LLM calls")
runs = list_runs(wb.store, limit=200)
if not runs:
    st.caption("No LLM calls yet.")
else:
    frame = pd.DataFrame(runs)
    failed = int((frame["verdict"] != "ok").sum())
    st.caption(f"{len(frame)} most recent call(s), {failed} failed; tokens in {int(frame['prompt_tokens'].fillna(0).sum())}, "
               f"out {int(frame['completion_tokens'].fillna(0).sum())}.")
    st.dataframe(frame[["created_at", "stage", "role", "model", "latency_ms", "prompt_tokens", "completion_tokens",
                        "verdict", "error"]], hide_index=True)

st.subheader("Snapshots for notebooks")
if not snapshots.publishes_snapshots(wb.store):
    st.info(snapshots.POSTGRES_NOTE)
else:
    st.caption("While the app runs, notebooks and commands read the newest snapshot of the database. The app "
               "publishes one when it starts and then periodically after changes; publish one now to give "
               "them the latest answers.")
    if st.button("Publish a snapshot now", key="snapshot_publish"):
        with st.spinner("Publishing a snapshot…"):
            try:
                published = snapshots.publish_now(wb.store)
            except StoreError as exc:
                st.error(f"No snapshot was published: {exc.public}")
            else:
                st.success(f"Published {published.name}.")
    last = snapshots.last_snapshot(wb.store)
    if last.start_error:
        st.warning(f"The snapshot when the app started failed: {last.start_error}")
    st.caption(last.sentence())
