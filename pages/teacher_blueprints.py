"""Blueprints: the library as a tree; open one (or a template), validate, preview and save a new version.

Validating, previewing and saving exercise every difficulty level, which can take a while for a blueprint with
demanding constraints: they run as background jobs in worker processes, so other users' pages stay quick.
"""
import pandas as pd
import plotly.express as px
import streamlit as st

from core.blueprints.loader import BlueprintError
from core.items import authoring
from core.jobs import JobError, tasks
from ui import jobs, shared

shared.require("teacher")
shared.teacher_banner()
wb = shared.workbench()
lib = wb.library
CHECK, SAVE, PREVIEW = "bp_job", "bp_save_job", "bp_preview_job"
jobs.runner()   # starts the worker server now, so the first job does not wait for it
SLOW = ("Its constraints are probably too hard to meet: widen the parameter ranges or loosen the constraints, "
        "then validate again.")


def show_issues(issues, text: str) -> None:
    for row in authoring.issue_rows(issues, text):
        (st.error if row["severity"] == "error" else st.warning)(row["text"])
        if row["source"].strip():
            st.code(f"{row['line']:>4} | {row['source']}", language="yaml")


st.title("Blueprints")
tree = pd.DataFrame(authoring.library_tree(lib), columns=["kind", "domain", "subdomain", "topic", "id", "title",
                                                          "version", "course", "file", "key"])
broken = authoring.broken_files(lib)
tabs = st.tabs(["Skills", "Assessments", "Course specs"] + (["Problems"] if broken else []))
with tabs[0]:
    skills = tree[tree.kind == "skill"]
    if skills.empty:
        st.info("No skill blueprints yet: start one from a template below and save it.")
    for domain, rows in skills.groupby("domain", sort=False):
        with st.expander(f"{domain} · {len(rows)} skills"):
            st.dataframe(rows[["subdomain", "topic", "id", "title", "version", "course"]], hide_index=True)
for tab, kind, what in ((tabs[1], "assessment", "assessments"), (tabs[2], "spec", "course specs")):
    rows = tree[tree.kind == kind]
    if rows.empty:
        tab.info(f"No {what} yet: start one from a template below and save it.")
    else:
        tab.dataframe(rows[["domain", "topic", "id", "title", "version"]].rename(columns={"domain": "subject", "topic": "level"}),
                      hide_index=True)
if broken:
    tabs[3].dataframe(pd.DataFrame(broken)[["file", "errors", "first"]], hide_index=True)

labels = {f"template:{name}": f"New from template: {name}" for name in authoring.TEMPLATES}
labels |= {r.key: f"{authoring.KIND_LABELS[r.kind]}: {r.id} · {r.title}" for r in tree.itertuples()}
labels |= {b["key"]: f"Fix a file with problems: {b['file']}" for b in broken}
choice = st.selectbox("Open", list(labels), format_func=labels.get, index=None, key="bp_choice",
                      placeholder="Choose a blueprint to edit, or start from a template")
if choice and choice != st.session_state.get("bp_opened"):
    st.session_state["bp_opened"] = choice
    try:
        st.session_state["bp_text"], st.session_state["bp_file"] = authoring.open_source(lib, choice)
    except authoring.AuthoringError as exc:
        shared.error(exc)
text = st.text_area("Blueprint YAML", key="bp_text", height=460,
                    placeholder="Open a blueprint or a template above, or paste YAML here.")
left, right = st.columns(2)
if left.button("Validate", key="bp_validate"):
    jobs.start(CHECK, tasks.check_blueprint, text, tasks.library_context(lib), st.session_state.get("bp_seed", 1),
               label="Validating the blueprint", limit=tasks.TIME_LIMITS["validate"], advice=SLOW,
               running="Validating: every difficulty level is exercised…")
if right.button("Save as new version", type="primary", key="bp_save"):
    opened = st.session_state.get("bp_file")
    jobs.start(SAVE, tasks.validate, text, tasks.library_context(lib), label="Validating and saving the blueprint",
               limit=tasks.TIME_LIMITS["validate"], advice=SLOW, tag=text, running="Validating and saving…",
               finish=lambda checked, text=text, opened=opened: authoring.save_new_version(
                   text, lib, wb.store, opened=opened, checked=checked))

saving = jobs.follow(SAVE, "Validating and saving…")
if saving is not None:
    try:
        path = saving.result()
    except BlueprintError as exc:
        st.error("Not saved: fix these problems first.")
        show_issues(exc.issues, saving.tag)
    except (authoring.AuthoringError, JobError) as exc:
        shared.error(exc)
    else:
        st.session_state["bp_file"] = str(path)
        st.success(f"Saved as a new version in {path}; the workbench uses it from now on.")

checking = jobs.follow(CHECK, "Validating: every difficulty level is exercised…")
if checking is not None:
    ok, found = jobs.result(checking)
    if ok:
        found["samples"] = {found["seed"]: found["samples"]}
        st.session_state["bp_checked"] = found

checked = st.session_state.get("bp_checked")
if not checked or checked["text"] != text:
    if text.strip() and not jobs.running(CHECK):
        st.caption("Press Validate to check the blueprint and preview what it generates.")
    st.stop()
loaded = checked["loaded"]
show_issues(checked["issues"], text)
if loaded is None:
    st.stop()
st.success(f"{authoring.KIND_LABELS[loaded.kind]} {loaded.id} version {loaded.version} is valid.")
if loaded.kind == "skill":
    if checked["sizes"] is not None:
        st.subheader("Variant space")
        st.dataframe(pd.DataFrame(checked["sizes"])[["level", "difficulty", "shown", "stem_wordings"]]
                     .rename(columns={"shown": "distinct items", "stem_wordings": "stem wordings"}), hide_index=True)
    if checked["preview_error"]:
        st.error(checked["preview_error"])
        st.stop()
    st.subheader("Sample items")
    seed = st.number_input("Sample seed", min_value=0, value=1, step=1, key="bp_seed")
    for _ in range(2):   # what an earlier preview job gave, else a new one for this seed
        drawn = jobs.follow(PREVIEW, "Drawing sample items…")
        if drawn is not None and drawn.tag[0] == text:
            try:
                checked["samples"][drawn.tag[1]] = drawn.result()
            except (authoring.AuthoringError, JobError) as exc:   # kept, so it is not tried again on every rerun
                checked["samples"][drawn.tag[1]] = str(exc)
        samples = checked["samples"].get(seed)
        if samples is not None or jobs.running(PREVIEW):
            break
        if jobs.start(PREVIEW, tasks.sample_items, loaded, seed, label="Drawing sample items", tag=(text, seed),
                      limit=tasks.TIME_LIMITS["preview"], advice=SLOW) is None:
            break
    if isinstance(samples, str):
        st.error(samples)
    if isinstance(samples, dict):
        for level, items in samples.items():
            st.markdown(f"**{level.capitalize()}**")
            for col, item in zip(st.columns(len(items) or 1), items):
                with col.container(border=True):
                    shared.item_card(item, with_key=True)
elif loaded.kind == "assessment":
    st.subheader("Sections")
    st.dataframe(pd.DataFrame(authoring.assessment_summary(loaded.model)), hide_index=True)
    mix = pd.DataFrame(authoring.difficulty_mix_rows(loaded.model))
    st.plotly_chart(px.bar(mix, x="section", y="items", color="level", title="Difficulty mix per section"))
else:
    st.dataframe(pd.DataFrame([o.model_dump() for o in loaded.model.outcomes]), hide_index=True)
