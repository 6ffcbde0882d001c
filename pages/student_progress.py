"""My progress: how each outcome is going (ability in words), mastery per skill, strongest and weakest, recent
sessions, and what to practise next."""
from __future__ import annotations

import plotly.express as px
import streamlit as st

from core.school import progress, sittings, written_answers
from core.analytics import reports
from core.store.analytics_version import analytics_version
from ui import shared

who = shared.require("student")
wb = shared.workbench()
student = who["user"]
PRACTICE_PAGE = "pages/student_practice.py"


@st.cache_data(max_entries=500, show_spinner=False)
def figures(student: str, version: str) -> tuple[list[dict], list[dict]]:
    """The student's mastery rows and outcomes, read again only when ``version`` (the store's fingerprint: any
    new answer, mastery score, ability or session changes it) does."""
    rows = progress.student_mastery(wb.store, wb.library, student)
    return rows, progress.student_outcomes(wb.store, wb.library, student, rows)


@st.cache_data(max_entries=500, show_spinner=False)
def mastery_history(student: str, version: str):
    """Mastery after each practice answer, of the skills the student has a mastery score on (read once the
    chart is opened)."""
    history = reports.mastery_over_time(wb.store, wb.library, student)
    rows = figures(student, version)[0]
    return history[history["skill_name"].isin({r["name"] for r in rows})] if not history.empty else history


def show_outcome(o: dict) -> None:
    """One outcome: the ability it is working at in words, what it rests on, and its skills rolled up."""
    with st.container(border=True):
        course = f" · {o['subject']} {o['level']}" if o["subject"] else ""
        st.markdown(f"**{o['label']}**{course}")
        words = o["words"]
        if words:
            st.markdown(f"Working at: **{words['working_at']}**: {words['range']}.",
                        help="How likely you are to get a typical question on this outcome right, from every "
                             f"answer so far (ability {words['theta']:+.2f} ± {words['se']:.2f} on the logit "
                             "scale the teacher's analytics use).")
            st.caption(words["evidence"] + (f" {words['few_note']}" if words["few"] else ""))
        if o["skills"]:
            names = ", ".join(f"{r['name']} ({r['percent']}%)" for r in o["skills"][:3])
            more = f" and {len(o['skills']) - 3} more" if len(o["skills"]) > 3 else ""
            st.caption(f"Skills: mastery {o['mastery_percent']}% on average; weakest first: {names}{more}.")


BANDS = {"Secure": "#2e7d32", "Developing": "#f9a825", "Needs work": "#c62828"}


def mastery_chart(rows: list[dict]) -> dict:
    """The bars of mastery by skill, weakest band in red, as a Vega-Lite spec with its data: a plotly figure took
    a tenth of a second to build each time the student's figures changed, and more to draw."""
    values = [{"Skill": r["name"], "Mastery (%)": r["percent"], "Level": r["band"]} for r in rows]
    return {
        "data": {"values": values},
        "mark": {"type": "bar", "tooltip": True},
        "height": {"step": 26},
        "encoding": {
            "y": {"field": "Skill", "type": "nominal", "sort": None, "title": None, "axis": {"labelLimit": 320}},
            "x": {"field": "Mastery (%)", "type": "quantitative", "scale": {"domain": [0, 100]}},
            "color": {"field": "Level", "type": "nominal", "title": None, "legend": {"orient": "bottom"},
                      "scale": {"domain": list(BANDS), "range": list(BANDS.values())}},
        },
    }


@st.cache_resource(max_entries=200, show_spinner=False)
def history_chart(student: str, version: str, skills: tuple[str, ...]):
    """The mastery-over-time lines of the chosen skills, built once per ``version`` and choice."""
    history = mastery_history(student, version)
    shown = history[history["skill_name"].isin(skills)]
    fig = px.line(shown, x="created_at", y="mastery", color="skill_name", markers=True, range_y=[0, 1],
                  labels={"created_at": "", "mastery": "Mastery", "skill_name": ""})
    fig.update_layout(height=320, margin={"l": 10, "r": 10, "t": 10, "b": 10})
    return fig


st.title("My progress")
version = f"{analytics_version(wb.store)}|{id(wb.library)}"
rows, outcomes = figures(student, version)
if not rows and not outcomes:
    st.info("Nothing to show yet: answer a few questions on the Practice page and your skills will appear here.")
    if st.button("Go to Practice", type="primary"):
        st.switch_page(PRACTICE_PAGE)
else:
    st.subheader("What to practise next")
    nxt = progress.next_to_practise(rows)
    if nxt:
        st.markdown(f"Your weakest skill is **{nxt['name']}** ({nxt['percent']}%). "
                    f"Practise its outcome, **{nxt['outcome_label']}** ({nxt['subject']} {nxt['level']}).")
        if st.button("Practise it now", type="primary"):
            st.session_state["practice_preset"] = sittings.practice_preset(nxt["subject"], nxt["level"], nxt["outcome"])
            st.switch_page(PRACTICE_PAGE)
    else:
        st.markdown("Keep going with adaptive practice: it serves your weakest areas first.")

    if outcomes:
        st.subheader("How each outcome is going")
        for o in outcomes:
            show_outcome(o)

    strongest, weakest = progress.strongest_and_weakest(rows)
    cols = st.columns(2)
    with cols[0]:
        st.markdown("**Strongest**")
        if strongest:   # one list, not a list per skill: a screen reader says how many there are
            st.markdown("\n".join(f"- {r['name']}: {r['percent']}% ({r['band']})" for r in strongest))
    with cols[1]:
        st.markdown("**Weakest**")
        if weakest:
            st.markdown("\n".join(f"- {r['name']}: {r['percent']}% ({r['band']})" for r in weakest))
        else:
            st.caption("Practise more skills to compare them.")

    st.subheader("Mastery by skill")
    if rows:
        st.vega_lite_chart(mastery_chart(rows), width="stretch", key="mastery_by_skill")
    else:
        st.caption("The questions so far belong to no skill blueprint, so they show in each outcome above.")
    if rows:
        # Read and drawn once opened: a second chart would make every opening of the page wait for it.
        over_time = st.expander("Mastery over time", key="pr_history_open", on_change="rerun")
        history = mastery_history(student, version) if over_time.open else None
        if history is not None and history.empty:
            over_time.caption("No practice answers on these skills yet, so no mastery over time to show.")
        elif history is not None:
            with over_time:
                names = sorted(history["skill_name"].unique())
                # The weakest skills with a history to draw (a skill's name may differ there, or it may have none).
                skills = st.multiselect("Skills", names, key="pr_skills",
                                        default=[r["name"] for r in weakest if r["name"] in names][:3] or names[:3])
                st.plotly_chart(history_chart(student, version, tuple(skills)), width="stretch",
                                key="mastery_over_time")
    if rows:   # plain tables (markdown): drawn far sooner than a data grid, and read as tables
        st.markdown(shared.markdown_table(
            ["Skill", "Course", "Outcome", "Mastery", "Level"],
            [[shared.plain(r["name"]), f"{r['subject'] or ''} {r['level'] or ''}".strip(),
              shared.plain(r["outcome"] or r["outcome_id"] or ""), f"{r['percent']}%", r["band"]] for r in rows]))

st.subheader("Recent sessions")
recent = sittings.recent_sessions(wb.store, student)   # not cached: results are released at a set time
if recent:
    st.markdown(shared.markdown_table(list(recent[0]), [[shared.plain(v) for v in r.values()] for r in recent]))
else:
    st.caption("No sessions yet. Start one on the Practice or Mock exam page.")

marked = written_answers.for_student(wb.store, student)   # not cached: a teacher may mark one at any time
if marked:
    st.subheader("Written answers your teacher marked")
    for m in marked:
        with st.container(border=True):
            shared.stem(m["question"])
            st.markdown(f"**Your answer** ({m['where'].lower()}): {shared.plain(m['answer'])}")
            st.caption(shared.plain(m["how_marked"]))
            st.info(shared.plain(m["note"]), icon="✏️")
