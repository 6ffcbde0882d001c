"""Mock exams: build a paper from a course spec or an assessment blueprint, preview it, print it, assign it."""
import datetime as dt
import re

import streamlit as st

from core.exams import papers, printing
from core.exams.diagrams import fill_diagrams
from core.school import classes
from core.school.classes import ClassError
from core.exams.papers import PaperError
from ui import assignment_admin, flash, shared

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
if kind == SPEC:
    # Outside the form, so the formats offered below are the chosen course's.
    course = st.selectbox("Course", courses, key="exam_course", format_func=lambda c: f"{c[0]} {c[1]}",
                          index=courses.index(("Mathematics", "Nat 5")) if ("Mathematics", "Nat 5") in courses else 0)
    spec = library.spec(*course) if courses else None
    formats = spec.format_names() if spec is not None and hasattr(spec, "format_names") else []
with st.form("exam_build"):
    if kind == SPEC:
        exam_format = (st.selectbox("Format", formats, key="exam_format",
                                    help="The full paper as the course spec sets it, or another shape it lists "
                                         "(a shorter mock, say).") if len(formats) > 1 else None)
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
            more = {"exam_format": exam_format} if exam_format else {}
            paper = papers.build_paper(shared.runner().ctx.source, course[0], course[1], seed, progress=step,
                                       approved_only=approved_only, **more)
        else:
            if not assessments:
                raise PaperError("The library has no assessment blueprint; add one under blueprints/assessments.")
            paper = papers.build_evaluation_paper(library, assessment, seed, progress=step)
        st.session_state["exam_paper"] = fill_diagrams(paper, library)
    except PaperError as exc:
        # No paper from an earlier build stays on the page (to be printed or assigned by mistake).
        st.session_state.pop("exam_paper", None)
        shared.error(exc)
    bar.empty()

paper = st.session_state.get("exam_paper")
if paper is None:
    st.info("Choose a course or an assessment and a seed, then build a paper to preview, print or assign it.")
    assignment_admin.manage(store)   # what is assigned already can be changed without building a paper
    st.stop()

# ---------------------------------------------------------------- preview
st.header(paper["title"])
m = st.columns(4)
m[0].metric("Total marks", paper["total_marks"])
m[1].metric("Questions", printing.printed_question_count(paper))
m[2].metric("Time allowed", f"{paper['time_allowed_minutes']:g} min" if paper["time_allowed_minutes"] else "no limit")
m[3].metric("Seed", paper["seed"])
with_keys = st.toggle("Show answers and explanations", key="exam_keys")

slug = re.sub(r"[^a-z0-9]+", "-", paper["title"].lower()).strip("-") + f"-{re.sub(r'[^A-Za-z0-9]+', '-', paper['seed'])}"
d = st.columns(2)
# Typeset when the button is pressed, not on every run of the page.
d[0].download_button("Question paper (HTML)", lambda p=paper: printing.paper_html(p), f"{slug}-paper.html",
                     "text/html", key="exam_dl_paper")
d[1].download_button("Marking scheme (HTML)", lambda p=paper: printing.marking_scheme_html(p),
                     f"{slug}-marking-scheme.html", "text/html", key="exam_dl_scheme")
st.caption(f"{printing.PRINT_ADVICE} Each paper has its cover, the formulae list where the course has one, "
           "and working space; the marking scheme gives every mark step by step.")

with st.expander("Instructions", expanded=False):
    for line in paper["instructions"]:
        st.markdown(f"- {line}")
for k, section in enumerate(paper["sections"]):
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
    # A section's questions are drawn only while open: a paper of forty questions (and their maths) is built and
    # shown at once, and each section is read when wanted.
    n = len(section["questions"])
    box = st.expander(f"The {n} question{'s' if n != 1 else ''} of {section['section']}", key=f"exam_section_{k}",
                      on_change="rerun")
    if not box.open:
        continue
    with box:
        for q in section["questions"]:
            with st.container(border=True):
                shared.item_card(q, with_keys, heading=f"**{q.get('label') or q['number']}.** "
                                 f"*({q['marks']} mark{'s' if q['marks'] != 1 else ''})*",
                                 about=f"{q['blueprint_id'] or q['source']} · {q['difficulty_level']} · "
                                       f"outcome {q['outcome_id']}" if with_keys else "")
                shared.figure(q)

# ---------------------------------------------------------------- assign
st.header("Assign to a class")
klass = assignment_admin.pick_class(store)
if klass is None:
    st.stop()
code = klass["code"]
names = assignment_admin.roster_names(store, code)
# Drawn only while open: the form's date, number and list inputs are many for the browser to build, and a
# teacher building papers to look at them need not pay for it on every click. One label for every class, so
# it stays open while the class is changed.
box = st.expander("Assign this paper", key="exam_assign_open", on_change="rerun",
                  icon=":material/assignment_add:")
if box.open:
    with box:
        now = dt.datetime.now().replace(second=0, microsecond=0)
        with st.form("exam_assign"):
            title = st.text_input("Title students see", paper["title"], key="exam_title")
            c1, c2, c3 = st.columns(3)
            opens = c1.datetime_input("Opens", now, key="exam_opens", step=dt.timedelta(minutes=5))
            closes = c2.datetime_input("Closes", now + dt.timedelta(days=7), key="exam_closes",
                                       step=dt.timedelta(minutes=5))
            default_minutes = paper["time_allowed_minutes"]
            limit = c3.number_input("Time limit (minutes)", min_value=1, max_value=600,
                                    value=int(default_minutes) if default_minutes else None, step=5,
                                    key="exam_limit", placeholder="no limit")
            c4, c5 = st.columns(2)
            attempts = c4.number_input("Attempts allowed", min_value=1, max_value=20, value=1, step=1,
                                       key="exam_attempts")
            with c5:
                release = assignment_admin.release_choice("Results shown to students", "exam_release")
            c6, c7 = st.columns([3, 1])
            extra_who = c6.multiselect("Extra time for", list(names), format_func=names.get, key="exam_extra_who",
                                       help="For example for additional support needs. Give different amounts later "
                                            "with Edit.")
            extra_minutes = c7.number_input("Extra minutes each", min_value=0, max_value=600, value=15, step=5,
                                            key="exam_extra_minutes")
            assign = st.form_submit_button("Assign", type="primary", key="exam_assign_go")
        if assign:
            if paper["kind"] == "exam" and klass["approved_items_only"] and not paper.get("approved_only"):
                st.error(f"{code} gets approved items only: tick 'Approved items only', build the paper again, "
                         f"then assign it.")
            elif opens is None or closes is None:
                st.error("Set when the exam opens and when it closes.")
            else:
                try:
                    aid = classes.assign_exam(store, code, title.strip(), dict(paper["config"]), to_utc(opens),
                                              to_utc(closes), limit,
                                              created_by=(shared.user() or {}).get("user") or "teacher",
                                              extra_time={s: extra_minutes for s in extra_who},
                                              attempts_allowed=int(attempts), release=release)
                    flash.later("exam_flash", f"Assigned '{title.strip() or 'Mock exam'}' to {code} ({aid}).")
                    st.rerun()
                except ClassError as exc:
                    shared.error(exc)

assignment_admin.show(store, code)
