"""Mock exams: build a paper from a course spec or an assessment blueprint, preview it, print it, assign it."""
import datetime as dt
import re

import pandas as pd
import streamlit as st

from core.exams import papers, printing
from core.school import classes
from core.school.classes import ClassError
from core.exams.papers import PaperError
from core.store import school
from ui import flash, shared

shared.require("teacher")
shared.teacher_banner()
wb = shared.workbench()
store, library = wb.store, wb.library

st.title("Mock exams")
flash.show("exam_flash")


def to_utc(local: dt.datetime) -> dt.datetime:
    """A date-time picked on the page (the server's wall clock) as the naive UTC the database keeps."""
    return local.astimezone(dt.timezone.utc).replace(tzinfo=None)


def to_local(utc: dt.datetime) -> dt.datetime:
    return utc.replace(tzinfo=dt.timezone.utc).astimezone().replace(tzinfo=None)


# ---------------------------------------------------------------- build
SPEC, ASSESSMENT = "Course spec (SQA-style paper)", "Assessment blueprint"
courses = sorted({(s.model.subject, s.model.level) for s in library.specs.values()})
assessments = sorted(library.assessments)
kind = st.radio("Build from", [SPEC, ASSESSMENT], horizontal=True, key="exam_from")
with st.form("exam_build"):
    if kind == SPEC:
        course = st.selectbox("Course", courses, key="exam_course", format_func=lambda c: f"{c[0]} {c[1]}",
                              index=courses.index(("Mathematics", "Nat 5")) if ("Mathematics", "Nat 5") in courses else 0)
        approved_only = st.checkbox("Approved items only", key="exam_approved",
                                    help="Only questions approved on the Review page, as a class with that setting gets.")
    else:
        assessment = st.selectbox("Assessment", assessments, key="exam_assessment",
                                  format_func=lambda a: f"{library.assessments[a].model.metadata.title} ({a})")
    seed = st.text_input("Seed", "1", key="exam_seed",
                         help="Any word or number: the same seed always gives the same paper.")
    build = st.form_submit_button("Build paper", type="primary", key="exam_build_go")
if build:
    bar = st.progress(0.0, text="Choosing the questions…")
    step = lambda n, total: bar.progress(n / total, text=f"Question {n} of {total}…")  # noqa: E731
    try:
        if kind == SPEC:
            if not courses:
                raise PaperError("The library has no course spec; add one under blueprints/specs.")
            paper = papers.build_paper(shared.runner().ctx.source, course[0], course[1], seed, progress=step,
                                       approved_only=approved_only)
        else:
            if not assessments:
                raise PaperError("The library has no assessment blueprint; add one under blueprints/assessments.")
            paper = papers.build_evaluation_paper(library, assessment, seed, progress=step)
        st.session_state["exam_paper"] = paper
    except PaperError as exc:
        shared.error(exc)
    bar.empty()

paper = st.session_state.get("exam_paper")
if paper is None:
    st.info("Choose a course or an assessment and a seed, then build a paper to preview, print or assign it.")
    st.stop()

# ---------------------------------------------------------------- preview
st.header(paper["title"])
m = st.columns(4)
m[0].metric("Total marks", paper["total_marks"])
m[1].metric("Questions", paper["question_count"])
m[2].metric("Time allowed", f"{paper['time_allowed_minutes']:g} min" if paper["time_allowed_minutes"] else "no limit")
m[3].metric("Seed", paper["seed"])
with_keys = st.toggle("Show answers and explanations", key="exam_keys")

slug = re.sub(r"[^a-z0-9]+", "-", paper["title"].lower()).strip("-") + f"-{re.sub(r'[^A-Za-z0-9]+', '-', paper['seed'])}"
d = st.columns(4)
d[0].download_button("Paper (Markdown)", printing.paper_markdown(paper, False), f"{slug}.md", "text/markdown",
                     key="exam_dl_md")
d[1].download_button("With answers (Markdown)", printing.paper_markdown(paper, True), f"{slug}-answers.md",
                     "text/markdown", key="exam_dl_md_keys")
d[2].download_button("Paper (HTML)", printing.paper_html(paper, False), f"{slug}.html", "text/html", key="exam_dl_html")
d[3].download_button("With answers (HTML)", printing.paper_html(paper, True), f"{slug}-answers.html", "text/html",
                     key="exam_dl_html_keys")
st.caption("Open the HTML in a browser to print it; the maths is typeset there.")

with st.expander("Instructions", expanded=False):
    for line in paper["instructions"]:
        st.markdown(f"- {line}")
for section in paper["sections"]:
    bits = [f"{section['marks']} marks"]
    if section.get("time_allowed_minutes"):
        bits.append(f"{section['time_allowed_minutes']:g} minutes")
    if section.get("calculator_allowed") is not None:
        bits.append("calculator allowed" if section["calculator_allowed"] else "no calculator")
    st.subheader(section["section"])
    st.caption(", ".join(bits))
    if section.get("outcomes_without_questions"):
        st.warning(f"No questions cover {', '.join(section['outcomes_without_questions'])}; "
                   "add bank questions or skill blueprints for them.")
    for q in section["questions"]:
        with st.container(border=True):
            st.markdown(f"**{q['number']}.** *({q['marks']} mark{'s' if q['marks'] != 1 else ''})*")
            shared.item_card(q, with_keys)
            if with_keys:
                st.caption(f"{q['blueprint_id'] or q['source']} · {q['difficulty_level']} · outcome {q['outcome_id']}")

# ---------------------------------------------------------------- assign
st.header("Assign to a class")
all_classes = {c["code"]: c for c in school.list_classes(store)}
if not all_classes:
    st.info("No classes yet: create one on the Class page, then assign this paper to it.")
    st.stop()
code = st.selectbox("Class", list(all_classes), key="exam_class",
                    format_func=lambda c: f"{c} · {all_classes[c]['name']} ({all_classes[c]['students']} students)")
now = dt.datetime.now().replace(second=0, microsecond=0)
with st.form("exam_assign"):
    title = st.text_input("Title students see", paper["title"], key="exam_title")
    c1, c2, c3 = st.columns(3)
    opens = c1.datetime_input("Opens", now, key="exam_opens", step=dt.timedelta(minutes=5))
    closes = c2.datetime_input("Closes", now + dt.timedelta(days=7), key="exam_closes", step=dt.timedelta(minutes=5))
    default_minutes = paper["time_allowed_minutes"]
    limit = c3.number_input("Time limit (minutes)", min_value=1, max_value=600,
                            value=int(default_minutes) if default_minutes else None, step=5, key="exam_limit",
                            placeholder="no limit")
    assign = st.form_submit_button("Assign", type="primary", key="exam_assign_go")
if assign:
    klass = all_classes[code]
    if paper["kind"] == "exam" and klass["approved_items_only"] and not paper.get("approved_only"):
        st.error(f"{code} gets approved items only: tick 'Approved items only', build the paper again, then assign it.")
    elif opens is None or closes is None:
        st.error("Set when the exam opens and when it closes.")
    else:
        try:
            aid = classes.assign_exam(store, code, title.strip(), dict(paper["config"]), to_utc(opens), to_utc(closes),
                                      limit)
            flash.later("exam_flash", f"Assigned '{title.strip() or 'Mock exam'}' to {code} ({aid}).")
            st.rerun()
        except ClassError as exc:
            shared.error(exc)

st.subheader(f"Exams assigned to {code}")
assigned = school.assignments_for_class(store, code)
if assigned:
    st.dataframe(pd.DataFrame([{
        "title": a["title"], "kind": a["kind"], "opens": to_local(a["opens_at"]), "closes": to_local(a["closes_at"]),
        "time limit (min)": a["time_limit_minutes"],
        "paper": (a["config"].get("assessment_id") or f"{a['config'].get('subject')} {a['config'].get('level')}")
        + f" · seed {a['config'].get('seed')}",
        "id": a["id"]} for a in assigned]), width="stretch", hide_index=True)
else:
    st.info(f"No exams assigned to {code} yet: build a paper above and assign it.")
