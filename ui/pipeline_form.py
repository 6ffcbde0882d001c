"""The question pipeline's settings, run and results (a component of the Generate page).

The run is a background job in a thread (its calls wait on the LLM), with a time limit; the page follows it.
"""
from __future__ import annotations

import pandas as pd
import streamlit as st

from core.jobs import tasks
from core.llm.pipeline import DIFFICULTIES, PipelineConfig, PipelineError, families, outcome_choices, store_accepted
from ui import jobs, shared

JOB = "pl_job"


def show(wb, client) -> None:
    st.caption("Each question gets a reasoning schema and a difficulty; the designer plans it, the implementer "
               "writes it, the verifier solves it again and the style judge scores it. Failed questions are "
               "rewritten while retries remain (so are replies that cannot be read and calls that fail); accepted "
               "ones go to the review queue as drafts.")
    places = outcome_choices(wb.library)
    with st.form("pipeline"):
        cols = st.columns(3)
        n = cols[0].number_input("Questions", min_value=1, max_value=200, value=5, key="pl_n")
        seed = cols[1].number_input("Seed", min_value=0, value=0, key="pl_seed")
        retries = cols[2].number_input("Retries per question", min_value=0, max_value=10, value=2, key="pl_retries")
        place = st.selectbox("Course outcome the questions assess", [None, *range(len(places))], key="pl_outcome",
                             format_func=lambda i: "(none yet: choose one for each on the Review page)" if i is None
                             else f"{places[i][0]} {places[i][1]} · {places[i][2]} · {places[i][3]}",
                             help="Students get an approved question only once it has a course outcome. With an "
                                  "outcome chosen, only the schemas of its subject are used.")
        labels = dict(families())
        prefixes = st.multiselect("Reasoning schemas", list(labels), default=list(labels), key="pl_prefixes",
                                  format_func=labels.get,
                                  help="With a course outcome chosen, only the schemas of its subject are used.")
        wcols = st.columns(len(DIFFICULTIES))
        weights = {d: wcols[k].number_input(f"{d.capitalize()} weight", min_value=0.0, max_value=1.0, step=0.1,
                                            value={"easy": 0.3, "medium": 0.5, "hard": 0.2}[d], key=f"pl_w_{d}")
                   for k, d in enumerate(DIFFICULTIES)}
        go = st.form_submit_button("Run the pipeline", type="primary")
    if go:
        subject, level, outcome = places[place][:3] if place is not None else (None, None, None)
        try:
            config = PipelineConfig.checked(n=int(n), seed=int(seed), max_retries=int(retries),
                                            schema_prefixes=prefixes, difficulty_weights=weights,
                                            subject=subject, level=level, outcome_id=outcome)
        except PipelineError as exc:
            shared.error(exc)
            return
        jobs.start(JOB, tasks.pipeline, client, config, thread=True, running="Running the pipeline…",
                   label=f"The question pipeline ({int(n)} questions)", limit=tasks.TIME_LIMITS["llm"],
                   advice="Nothing of this run was stored; ask for fewer questions at a time.",
                   finish=lambda result: (result, store_accepted(wb.store, result)))
    ran = jobs.follow(JOB, "Running the pipeline…")
    if ran is None:
        return
    ok, found = jobs.result(ran, PipelineError)
    if not ok:
        return
    result, stored = found
    stats = result.stats()
    st.success(f"{stats['accepted']} of {stats['items']} question(s) accepted; {stored} new draft(s) went to the "
               f"review queue.")
    stages = pd.DataFrame([{"stage": k, **v} for k, v in stats["stages"].items()])
    st.dataframe(stages, hide_index=True)
    if stats["retries"]:
        st.caption(f"{stats['retries']} retr{'y' if stats['retries'] == 1 else 'ies'}: " + "; ".join(
            f"{stage.replace('_', ' ')} " + ", ".join(f"{n} {kind.replace('_', ' ')}" for kind, n in kinds.items())
            for stage, kinds in stats["retry_reasons"].items()) + ".")
    if result.accepted:
        st.dataframe(pd.DataFrame([{"item": o.item, "schema": o.schema_id, "difficulty": o.difficulty,
                                    "attempts": o.attempts, "accepted at (UTC)": o.accepted_at,
                                    "outcome": o.outcome_id or "(choose on the Review page)"}
                                   for o in result.accepted]), hide_index=True)
        if not result.config.outcome_id:
            st.info("These drafts have no course outcome yet: choose one for each on the Review page, or students "
                    "will not get them once approved.")
    if result.rejected:
        st.warning(f"{len(result.rejected)} question(s) were rejected:")
        st.dataframe(pd.DataFrame([{"item": o.item, "schema": o.schema_id, "difficulty": o.difficulty,
                                    "stage": o.stage, "reason": o.reason} for o in result.rejected]), hide_index=True)
    cols = st.columns(4)
    for k, (name, text) in enumerate(result.files().items()):
        cols[k].download_button(name, text, file_name=name, key=f"pl_dl_{name}",
                                mime="application/json" if name.endswith(".json") else "application/x-ndjson")
    st.page_link("pages/teacher_review.py", label="Open the Review page to approve the drafts", icon="✅")
