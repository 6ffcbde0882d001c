"""Blueprints: the library as a tree; open one (or a template), edit it in a YAML editor, validate, preview and save.

Validating, previewing and saving exercise every difficulty level, which can take a while for a blueprint with
demanding constraints: they run as background jobs in worker processes, so other users' pages stay quick. The
editor and the preview beside it are one fragment: typing and pressing the editor's buttons rerun only them.
"""
import hashlib

import pandas as pd
import plotly.express as px
import streamlit as st
from streamlit.errors import StreamlitInvalidLayoutContextError

from core.blueprints.loader import BlueprintError
from core.items import authoring
from core.items.authoring import reference
from core.jobs import JobError, tasks
from ui import blueprint_editor as ed
from ui import activity, jobs, shared

shared.require("teacher")
shared.teacher_banner()
wb = shared.workbench()
lib = wb.library
CHECK, SAVE, PREVIEW = "bp_job", "bp_save_job", "bp_preview_job"
jobs.runner()   # starts the worker server now, so the first job does not wait for it
SLOW = ("Its constraints are probably too hard to meet: widen the parameter ranges or loosen the constraints, "
        "then validate again.")


def _fingerprint(library) -> str:
    # A short digest: Streamlit hashes a cache key's every element on each run, and the library's list is long.
    return hashlib.sha1(repr((id(library), [(lb.kind, lb.id, lb.version, lb.file) for lb in library.all_loaded()],
                              sorted(library.report.files))).encode()).hexdigest()


@st.cache_resource(max_entries=8, show_spinner=False)   # read only: no copy per run, as cache_data would make
def _tree(fingerprint: str, _library) -> tuple[pd.DataFrame, list[dict], dict]:
    """The library tree, its broken files and the "Open" list's labels (worked out again only when it changes)."""
    tree = pd.DataFrame(authoring.library_tree(_library), columns=["kind", "domain", "subdomain", "topic", "id",
                                                                  "title", "version", "course", "file", "key"])
    broken = authoring.broken_files(_library)
    labels = {f"template:{name}": f"New from template: {name}" for name in authoring.TEMPLATES}
    labels |= {r.key: f"{authoring.KIND_LABELS[r.kind]}: {r.id} · {r.title}" for r in tree.itertuples()}
    labels |= {b["key"]: f"Fix a file with problems: {b['file']}" for b in broken}
    return tree, broken, labels


@st.cache_data(show_spinner=False)
def _reference() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    return (pd.DataFrame(reference.function_rows()), pd.DataFrame(reference.parameter_rows()),
            pd.DataFrame(reference.syntax_rows()))


def show_issues(rows: list[dict]) -> None:
    for row in rows:
        (st.error if row["severity"] == "error" else st.warning)(row["markdown"])
        if row["source"].strip():
            st.code(f"{row['line']:>4} | {row['source']}", language="yaml")


def start(action: str, text: str) -> None:
    """A press of the editor's Validate or Save button: the job on exactly the text sent with it."""
    if action == "validate":
        st.session_state["bp_sample"] = 0
        jobs.start(CHECK, tasks.check_blueprint, text, tasks.library_context(lib), st.session_state.get("bp_seed", 1),
                   label="Validating the blueprint", limit=tasks.TIME_LIMITS["validate"], advice=SLOW,
                   running="Validating: every difficulty level is exercised…")
        return
    opened = st.session_state.get("bp_file")
    jobs.start(SAVE, tasks.validate, text, tasks.library_context(lib), label="Validating and saving the blueprint",
               limit=tasks.TIME_LIMITS["validate"], advice=SLOW, tag=text, running="Validating and saving…",
               finish=lambda checked, text=text, opened=opened: (checked, authoring.save_new_version(
                   text, lib, wb.store, opened=opened, checked=checked)))


def follow_save() -> None:
    saving = jobs.follow(SAVE, "Validating and saving…")
    if saving is None:
        return
    try:
        checked, path = saving.result()
    except BlueprintError as exc:
        st.error("Not saved: fix these problems first.")
        show_issues(authoring.issue_rows(exc.issues, saving.tag))
    except (authoring.AuthoringError, JobError) as exc:
        shared.error(exc)
    else:
        loaded = checked[0]
        ed.saved(saving.tag, loaded.kind, loaded.id, str(path))
        st.success(f"Saved {loaded.id} version {loaded.version} in {path}; the workbench uses it from now on.")


def follow_check() -> None:
    checking = jobs.follow(CHECK, "Validating: every difficulty level is exercised…")
    if checking is not None:
        ok, found = jobs.result(checking)
        if ok:
            found["samples"] = {found["seed"]: found["samples"]}
            found["rows"] = authoring.issue_rows(found["issues"], found["text"])
            st.session_state["bp_checked"] = found
            try:                            # the editor above marks the lines named
                st.rerun(scope="fragment")
            except StreamlitInvalidLayoutContextError:     # the whole page is running: rerun it
                st.rerun()


def samples_for(checked: dict, text: str, seed: int):
    """The sample items of a seed: from the validation or an earlier preview job, else a new job (None meanwhile)."""
    for _ in range(2):
        drawn = jobs.follow(PREVIEW, "Drawing sample items…")
        if drawn is not None and drawn.tag[0] == text:
            try:
                checked["samples"][drawn.tag[1]] = drawn.result()
            except (authoring.AuthoringError, JobError) as exc:   # kept, so it is not tried again on every rerun
                checked["samples"][drawn.tag[1]] = str(exc)
        samples = checked["samples"].get(seed)
        if samples is not None or jobs.running(PREVIEW):
            return samples
        if jobs.start(PREVIEW, tasks.sample_items, checked["loaded"], seed, label="Drawing sample items",
                      tag=(text, seed), limit=tasks.TIME_LIMITS["preview"], advice=SLOW) is None:
            return None
    return None


def _another() -> None:
    k = st.session_state.get("bp_sample", 0) + 1
    if k >= tasks.SAMPLES_PER_LEVEL:
        st.session_state["bp_seed"] = st.session_state.get("bp_seed", 1) + 1
        k = 0
    st.session_state["bp_sample"] = k


def preview(checked: dict) -> None:
    """One item per level as the student sees it, with its key and the mistakes it diagnoses."""
    loaded = checked["loaded"]
    text = checked["text"]
    if loaded.kind == "assessment":
        st.dataframe(pd.DataFrame(authoring.assessment_summary(loaded.model)), hide_index=True)
        mix = pd.DataFrame(authoring.difficulty_mix_rows(loaded.model))
        st.plotly_chart(px.bar(mix, x="section", y="items", color="level", title="Difficulty mix per section"))
        return
    if loaded.kind != "skill":
        st.dataframe(pd.DataFrame([o.model_dump() for o in loaded.model.outcomes]), hide_index=True)
        return
    if checked["preview_error"]:
        st.error(checked["preview_error"])
        return
    samples = samples_for(checked, text, st.session_state.get("bp_seed", checked["seed"]))
    if isinstance(samples, str):
        st.error(samples)
    if not isinstance(samples, dict):
        return
    k = st.session_state.get("bp_sample", 0)
    strategies = {s.type: s.description or s.type for s in loaded.model.presentation.distractor_strategies}
    for level, items in samples.items():
        if not items:
            continue
        item = items[min(k, len(items) - 1)]
        with st.container(border=True):
            st.markdown(f"**{level.capitalize()}** · difficulty {item.get('difficulty_value', '')}")
            shared.item_card(item, with_key=True)
            mistakes = item.get("misconceptions") or {}
            if mistakes and not item.get("options"):
                st.caption("Wrong answers it recognises: " + "; ".join(
                    f"{shared.plain(v)} ({shared.plain(strategies.get(t, t))})" for t, v in mistakes.items()))
    st.button("Show another sample", key="bp_another", on_click=_another)
    if checked["sizes"] is not None:
        with st.expander("How many different questions each level can make"):
            st.dataframe(pd.DataFrame(checked["sizes"])[["level", "difficulty", "shown", "stem_wordings"]]
                         .rename(columns={"shown": "distinct items", "stem_wordings": "stem wordings"}),
                         hide_index=True)


def reference_panel() -> None:
    box = st.expander("Reference: formula functions and parameter kinds", key="bp_reference", on_change="rerun")
    if not box.open:    # drawn only when opened: three grids the browser would build for nothing
        return
    functions, parameters, syntax = _reference()
    with box:
        st.markdown("**Parameter kinds** (under `generation: parameters:`)")
        st.dataframe(parameters, hide_index=True)
        st.markdown("**Writing formulas and templates**")
        st.dataframe(syntax, hide_index=True)
        st.markdown("**Functions a formula may call** (arithmetic: `+ - * / // % **`)")
        st.dataframe(functions, hide_index=True, height=300)


def library_tables(tree: pd.DataFrame, broken: list[dict]) -> None:
    """The library, a tab per kind of blueprint (only the open tab is drawn)."""
    tabs = st.tabs(["Skills", "Assessments", "Course specs"] + (["Problems"] if broken else []), key="bp_lib_tab",
                   on_change="rerun")
    if tabs[0].open:
        skills = tree[tree.kind == "skill"]
        if skills.empty:
            tabs[0].info("No skill blueprints yet: start one from a template below and save it.")
        else:
            counts = skills.groupby("domain", sort=False).size()
            tabs[0].markdown(f"**{len(skills)} skills** · " + " · ".join(f"{d} {n}" for d, n in counts.items()))
            tabs[0].dataframe(skills[["domain", "subdomain", "topic", "id", "title", "version", "course"]]
                              .rename(columns={"domain": "subject"}), hide_index=True)
    for tab, kind, what in ((tabs[1], "assessment", "assessments"), (tabs[2], "spec", "course specs")):
        if not tab.open:
            continue
        rows = tree[tree.kind == kind]
        if rows.empty:
            tab.info(f"No {what} yet: start one from a template below and save it.")
        else:
            tab.dataframe(rows[["domain", "topic", "id", "title", "version"]]
                          .rename(columns={"domain": "subject", "topic": "level"}), hide_index=True)
    if broken and tabs[3].open:
        tabs[3].dataframe(pd.DataFrame(broken)[["file", "errors", "first"]], hide_index=True)


@activity.fragment
def workspace() -> None:
    checked = st.session_state.get("bp_checked")
    rows = checked["rows"] if checked else []
    left, right = st.columns([3, 2], gap="medium")
    with left:
        ed.editor(rows, start)
        follow_save()
        follow_check()
        ed.status()
        checked = st.session_state.get("bp_checked")
        current = checked is not None and checked["text"] == ed.draft()
        if checked is not None:
            if not current and not jobs.running(CHECK):
                st.caption("The text changed since it was validated: press Validate & preview again.")
            show_issues(checked["rows"])
    with right:
        st.subheader("Preview")
        if checked is None:
            st.caption("Press Validate & preview (or Ctrl+Enter in the editor) to check the blueprint and see one "
                       "question per difficulty level, as students see it.")
        elif checked["loaded"] is None:
            st.caption("Fix the problems shown to see the preview.")
        else:
            loaded = checked["loaded"]
            st.success(f"{authoring.KIND_LABELS[loaded.kind]} {loaded.id} version {loaded.version} is valid.")
            preview(checked)
        reference_panel()


st.title("Blueprints")
tree, broken, labels = _tree(_fingerprint(lib), lib)
# Only what is open is drawn: each table is a grid the browser builds, so a closed Library (or a tab not shown)
# costs the page nothing.
shelf = st.expander("Library", expanded=not st.session_state.get("bp_opened"), on_change="rerun")
if shelf.open:
    with shelf:
        library_tables(tree, broken)

ed.chooser(lib, labels)
ed.returned_notice()
ed.discard_button(lib, labels)
workspace()
