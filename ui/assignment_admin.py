"""A class's assigned papers on the Mock exams page: the list, and per assignment Edit, Close now, Release
results and Delete (with a confirmation). Times are picked and shown in the server's local time; the
database keeps naive UTC."""
from __future__ import annotations

import datetime as dt
from typing import Optional

import pandas as pd
import streamlit as st

from core.exams.typeset import minutes_text
from core.school import assignments
from core.school.classes import ClassError
from core.store import Store, school
from ui import flash, shared

FLASH = "exam_flash"
RELEASES = list(assignments.RELEASE_POLICIES)
RELEASE_CHOICES = {"on_submit": "As each student hands in", "on_close": "When the assignment closes",
                   "manual": "When I release them"}
RELEASE_STATES = {"on_submit": "shown as each student hands in", "on_close": "released when it closes",
                  "manual": "released when you release them"}
STATUS = {"upcoming": "not open yet", "open": "open", "closed": "closed", "deleted": "deleted"}


def to_utc(local: dt.datetime) -> dt.datetime:
    """A date-time picked on the page (the server's wall clock) as the naive UTC the database keeps."""
    return local.astimezone(dt.timezone.utc).replace(tzinfo=None)


def to_local(utc: Optional[dt.datetime]) -> Optional[dt.datetime]:
    return None if utc is None else utc.replace(tzinfo=dt.timezone.utc).astimezone().replace(tzinfo=None)


def when(utc: Optional[dt.datetime]) -> str:
    local = to_local(utc)
    return "" if local is None else f"{local:%d %b %Y %H:%M}"


def pick_class(store: Store) -> Optional[dict]:
    """The class selector shared by assigning and managing (None, with a hint, when there is no class)."""
    all_classes = {c["code"]: c for c in school.list_classes(store)}
    if not all_classes:
        st.info("No classes yet: create one on the Class page, then assign a paper to it.")
        return None
    code = st.selectbox("Class", list(all_classes), key="exam_class",
                        format_func=lambda c: f"{c} · {all_classes[c]['name']} "
                                              f"({all_classes[c]['students']} students)")
    return all_classes[code]


def roster_names(store: Store, code: str) -> dict[str, str]:
    return {r["student"]: r["display_name"] for r in school.roster(store, code)}


def release_choice(label: str, key: str, value: str = assignments.DEFAULT_RELEASE) -> str:
    return st.selectbox(label, RELEASES, index=RELEASES.index(value), key=key, format_func=RELEASE_CHOICES.get,
                        help="Until then a student who hands in sees only that the paper was submitted: "
                             "no marks, answers or explanations.")


def manage(store: Store) -> None:
    """With no paper built: the class's assignments, to edit, close, release or delete."""
    st.header("Assigned exams")
    klass = pick_class(store)
    if klass is not None:
        show(store, klass["code"])


def show(store: Store, code: str) -> None:
    """The class's assignments: a table, then each with its actions."""
    st.subheader(f"Exams assigned to {code}")
    show_deleted = st.toggle("Show deleted assignments", key="asg_show_deleted")
    rows = school.assignments_for_class(store, code, include_deleted=show_deleted)
    if not rows:
        st.info(f"No exams assigned to {code} yet: build a paper above and assign it.")
        return
    now = assignments.utc()
    summaries = {a["id"]: assignments.summary(store, a, now) for a in rows}
    st.dataframe(pd.DataFrame([{
        "title": a["title"], "kind": a["kind"], "status": STATUS[summaries[a["id"]]["status"]],
        "opens": to_local(a["opens_at"]), "closes": to_local(a["closes_at"]),
        "time limit (min)": a["time_limit_minutes"], "attempts": a["attempts_allowed"],
        "results": "released" if summaries[a["id"]]["released"] else RELEASE_STATES[a["release_policy"]],
        "handed in": f"{summaries[a['id']]['handed_in']} / {summaries[a['id']]['started']} started",
        "paper": (a["config"].get("assessment_id") or f"{a['config'].get('subject')} {a['config'].get('level')}")
        + f" · seed {a['config'].get('seed')}",
        "id": a["id"]} for a in rows]), width="stretch", hide_index=True)
    names = roster_names(store, code)
    for a in rows:
        one(store, a, summaries[a["id"]], names)


def one(store: Store, a: dict, summary: dict, names: dict[str, str]) -> None:
    aid = a["id"]
    with st.container(border=True):
        st.markdown(f"**{a['title']}** · {STATUS[summary['status']]}")
        limit = (f"time limit {minutes_text(a['time_limit_minutes'])}" if a["time_limit_minutes"]
                 else "the paper's own time limit")
        extra = ", ".join(f"{names.get(s, s)} +{m:g} min" for s, m in sorted(a["extra_time"].items()))
        closed_early = " (closed early)" if a.get("closed_early_at") else ""
        st.caption(f"{when(a['opens_at'])} to {when(a['closes_at'])}{closed_early} · {limit} · "
                   f"{a['attempts_allowed']} attempt{'s' if a['attempts_allowed'] != 1 else ''} · results "
                   f"{'released' if summary['released'] else RELEASE_STATES[a['release_policy']]}"
                   + (f" · extra time: {extra}" if extra else "")
                   + f" · {summary['handed_in']} handed in, {summary['in_progress']} sitting now")
        if summary["status"] == "deleted":
            st.caption(f"Deleted {when(a['deleted_at'])}. The answers students handed in are kept and still "
                       "reported; no one can start it.")
            return
        cols = st.columns(4)
        if cols[0].button("Edit", key=f"asg_edit_{aid}"):
            st.session_state[f"asg_editing_{aid}"] = not st.session_state.get(f"asg_editing_{aid}", False)
        if cols[1].button("Close now", key=f"asg_close_{aid}", disabled=summary["status"] != "open",
                          help="Nobody can start it any more, and sittings in progress end now."):
            act(lambda: assignments.close_now(store, aid), f"Closed '{a['title']}'.")
        if cols[2].button("Release results", key=f"asg_release_{aid}", disabled=summary["released"],
                          help="Students see their marks, the answers and the explanations."):
            act(lambda: assignments.release_results(store, aid, by=teacher()),
                f"Released the results of '{a['title']}'.")
        if cols[3].button("Delete", key=f"asg_delete_{aid}"):
            st.session_state[f"asg_confirm_{aid}"] = True
        if st.session_state.get(f"asg_confirm_{aid}"):
            st.warning(f"Delete '{a['title']}'? Students can no longer start it. The answers already handed in "
                       f"({summary['handed_in']} so far) are kept and still reported.")
            yes, no = st.columns(2)
            if yes.button("Yes, delete it", key=f"asg_delete_yes_{aid}", type="primary"):
                st.session_state.pop(f"asg_confirm_{aid}", None)
                act(lambda: assignments.delete(store, aid, by=teacher()), f"Deleted '{a['title']}'.")
            if no.button("Cancel", key=f"asg_delete_no_{aid}"):
                st.session_state.pop(f"asg_confirm_{aid}", None)
                st.rerun()
        if st.session_state.get(f"asg_editing_{aid}"):
            edit_form(store, a, names)


def edit_form(store: Store, a: dict, names: dict[str, str]) -> None:
    aid = a["id"]
    st.markdown("**Change this assignment**")
    c1, c2, c3 = st.columns(3)
    opens = c1.datetime_input("Opens", to_local(a["opens_at"]), key=f"asg_opens_{aid}", step=dt.timedelta(minutes=5))
    closes = c2.datetime_input("Closes", to_local(a["closes_at"]), key=f"asg_closes_{aid}",
                               step=dt.timedelta(minutes=5))
    limit = c3.number_input("Time limit (minutes)", min_value=0.0, max_value=600.0, step=5.0,
                            value=float(a["time_limit_minutes"]) if a["time_limit_minutes"] else None,
                            key=f"asg_limit_{aid}", placeholder="the paper's own time")
    c4, c5 = st.columns(2)
    attempts = c4.number_input("Attempts allowed", min_value=1, max_value=assignments.MAX_ATTEMPTS,
                               value=int(a["attempts_allowed"]), step=1, key=f"asg_attempts_{aid}")
    with c5:
        release = release_choice("Results shown to students", f"asg_policy_{aid}", a["release_policy"])
    chosen = st.multiselect("Extra time for", list(names), default=[s for s in a["extra_time"] if s in names],
                            format_func=names.get, key=f"asg_extra_who_{aid}",
                            help="For example for additional support needs; added to the time limit.")
    extra = {}
    for student in chosen:
        extra[student] = st.number_input(f"Extra minutes for {names[student]}", min_value=0.0, max_value=600.0,
                                         step=5.0, value=float(a["extra_time"].get(student, 0.0)) or 15.0,
                                         key=f"asg_extra_{aid}_{student}")
    if st.button("Save changes", key=f"asg_save_{aid}", type="primary"):
        if opens is None or closes is None:
            st.error("Set when the assignment opens and when it closes.")
            return
        def save() -> None:
            assignments.edit(store, aid, opens_at=to_utc(opens), closes_at=to_utc(closes), time_limit_minutes=limit,
                             attempts_allowed=int(attempts), release=release, extra_time=extra)
            st.session_state.pop(f"asg_editing_{aid}", None)
        act(save, f"Saved the changes to '{a['title']}'.")


def act(do, done: str) -> None:
    """Run a teacher's action; its refusal is shown as its sentence, success on the next run."""
    try:
        do()
    except ClassError as exc:
        shared.error(exc)
        return
    flash.later(FLASH, done)
    st.rerun()


def teacher() -> Optional[str]:
    who = shared.user() or {}
    return who.get("user") or who.get("name")
