"""Generate: draft items for the review queue, by formula or LLM from skill blueprints, or by the LLM pipeline.

Generating runs as a background job (formula: a worker process; LLM: a thread), so other users' pages stay quick.
"""
import pandas as pd
import streamlit as st

from core.items import authoring
from core.jobs import tasks
from core.llm.reach import notice
from ui import jobs, pipeline_form, shared

shared.require("teacher")
shared.teacher_banner()
wb = shared.workbench()
lib = wb.library
DEFAULT_MIX = {"easy": 30, "medium": 50, "hard": 20}

FORMULA, LLM_ITEMS, PIPELINE = "Formula (blueprint)", "LLM (blueprint)", "LLM question pipeline"
FORMULA_JOB, LLM_JOB = "gen_job", "gen_llm_job"
SLOW = "Generate fewer items at a time, or widen the ranges of the blueprints that are slow to fill."
jobs.runner()   # starts the worker server now, so the first job does not wait for it

st.title("Generate items")
st.caption("Generated items go to the review queue as drafts; students see them only after you approve them.")
status = shared.llm()
source = st.radio("Source", [FORMULA, LLM_ITEMS, PIPELINE], key="gen_source", horizontal=True,
                  captions=["Computed from a skill blueprint, keyed and explained automatically.",
                            "The LLM writes multiple-choice items from a blueprint; core recomputes every key.",
                            "Designer, implementer, verifier and style judge write reasoning questions."])
if source != FORMULA and not status.on:
    shared.llm_off(f"“{source}”", status)
    st.stop()
if source != FORMULA:
    said = notice(status)        # remembered for a short while: reruns do not wait on the server
    if said.kind == "warning":
        st.warning(said.text, icon="⚠️")
if source == PIPELINE:
    pipeline_form.show(wb, shared.llm_client())
    st.stop()
by = st.radio("Choose by", ["Skills", "Course outcomes"], key="gen_by", horizontal=True)
if by == "Skills":
    skill_ids = st.multiselect("Skills", sorted(lib.generators), key="gen_skills",
                               placeholder="Choose one or more skill blueprints")
    chosen, subject, level, outcome_ids = skill_ids, None, None, []
else:
    courses = authoring.courses(lib)
    if not courses:
        st.info("The library has no course specs yet; write one on the Blueprints page, or choose by skills.")
        st.stop()
    pick = st.selectbox("Course", range(len(courses)), format_func=lambda i: courses[i]["title"], key="gen_course")
    subject, level = courses[pick]["subject"], courses[pick]["level"]
    outs = authoring.outcomes(lib, subject, level)
    names = {o["id"]: f"{o['id']} · {o['label']} ({o['skills']} skills)" for o in outs if o["skills"]}
    outcome_ids = st.multiselect("Outcomes", list(names), format_func=names.get, key="gen_outcomes")
    uncovered = [o["id"] for o in outs if not o["skills"]]
    if uncovered:
        st.caption(f"No skill blueprint covers {', '.join(uncovered)} yet; write one on the Blueprints page.")
    chosen = [s.skill_id for oid in outcome_ids for s in lib.skills_for_outcome(subject, level, oid)]
if not chosen:
    st.info("Choose one or more skills (or a course and its outcomes) to plan a batch of drafts.")
    st.stop()

levels = authoring.levels_for(lib, chosen)
cols = st.columns(len(levels) + 2)
mix = {lvl: cols[k].number_input(f"{lvl.capitalize()} (%)", min_value=0, max_value=100, step=5, key=f"gen_mix_{lvl}",
                                 value=DEFAULT_MIX.get(lvl, 100 // len(levels)))
       for k, lvl in enumerate(levels)}
count = int(cols[-2].number_input("Items in total", min_value=1, max_value=authoring.MAX_PLAN_ITEMS, value=10,
                                  key="gen_count"))
seed = int(cols[-1].number_input("Seed", min_value=0, value=1, step=1, key="gen_seed",
                                 help="The same seed gives the same items; change it for new ones."))
try:
    if by == "Skills":
        plan = authoring.plan_for_skills(lib, chosen, mix, count, seed)
    else:
        plan = authoring.plan_for_outcomes(lib, subject, level, outcome_ids, mix, count, seed)
except authoring.AuthoringError as exc:
    shared.error(exc)
    st.stop()
st.dataframe(pd.DataFrame(plan, columns=["skill", "level", "items"]), hide_index=True)

if source == LLM_ITEMS and st.button("Generate with the LLM", type="primary", key="gen_llm_go"):
    jobs.start(LLM_JOB, tasks.llm_drafts, lib, wb.store, shared.llm_client(), plan, seed, thread=True,
               label=f"Writing {count} item(s) with the LLM", limit=tasks.TIME_LIMITS["llm"],
               advice="Drafts of the skills finished before then were kept; ask for fewer items at a time.",
               running="Asking the LLM…")
if source == FORMULA and st.button("Generate", type="primary", key="gen_go"):
    skills = [lib.skills[sid] for sid in dict.fromkeys(sid for sid, _level, _n in plan) if sid in lib.skills]
    jobs.start(FORMULA_JOB, tasks.generate_items, skills, plan, seed, tag=seed,
               label=f"Generating {count} item(s)", limit=tasks.TIME_LIMITS["generate"], advice=SLOW,
               finish=lambda generated: authoring.store_batches(wb.store, generated), running="Generating…")

written = jobs.follow(LLM_JOB, "Asking the LLM…")
if written is not None:
    ok, result = jobs.result(written, authoring.AuthoringError)
    if ok:
        st.success(f"{result['verified']} of {result['requested']} item(s) passed core's checks; "
                   f"{result['stored']} new draft(s) went to the review queue.")
        for row in result["skipped"]:
            st.warning(f"{row['skill_id']} ({row['level']}) was skipped: {authoring.markdown_text(row['reason'])}")
        if result["rejected"]:
            st.warning(f"{len(result['rejected'])} item(s) were rejected and not stored:")
            st.dataframe(pd.DataFrame(result["rejected"])[["skill_id", "level", "seed", "reason"]], hide_index=True)
        st.page_link("pages/teacher_review.py", label="Open the Review page to approve the drafts", icon="✅")
generated = jobs.follow(FORMULA_JOB, "Generating…")
if generated is not None:
    ok, result = jobs.result(generated, authoring.AuthoringError)
    if ok:
        st.success(f"{result['stored']} new draft item(s) went to the review queue.")
        if result["already_stored"]:
            st.info(f"{result['already_stored']} item(s) were already stored by an earlier run with seed "
                    f"{generated.tag}; change the seed for new ones.")
        if result["repeats"]:
            st.warning(f"{result['repeats']} item(s) repeat another: a level ran out of distinct items; widen its "
                       f"ranges.")
        for row in result["skipped"] + result["failed"]:
            st.warning(f"{row['skill_id']} ({row['level']}, {row['count']} items) was not generated: "
                       f"{authoring.markdown_text(row['reason'])}")
        st.page_link("pages/teacher_review.py", label="Open the Review page to approve the drafts", icon="✅")
