"""Review: approve, reject (with a reason) or edit then approve the generated drafts."""
import pandas as pd
import streamlit as st

from core.items import review
from core.items.review import KeyDiffersError, ReviewError
from ui import activity, flash, item_exchange, shared

shared.require("teacher")
shared.teacher_banner()
wb = shared.workbench()
store, library = wb.store, wb.library

ANY = "(any)"
STATUSES = {"Drafts": "draft", "Approved": "approved", "Rejected": "rejected", "Withdrawn": "withdrawn", "All": None}
SOURCES = [ANY, "formula", "local", "past", "us", "variant", "llm", "pipeline", "import"]
VERDICTS = ["all", "has verification report", "none"]
PAGE_SIZE = 6      # cards a page: each is drawn in the browser with its maths, so a page opens quickly

st.title("Review")
st.caption("Every generated item waits here as a draft until you approve it. Rejected items keep your reason.")
flash.show("review_flash")


@st.cache_data(max_entries=32, show_spinner=False)
def read_queue(_store, where: str, version: str, status: str | None, skill: str | None, outcome: str | None,
               source: str | None) -> list[dict]:
    """The queue for these filters, kept until the data change (``version``); ``where`` names the database."""
    return review.queue(_store, status=status, blueprint_id=skill, outcome_id=outcome, source=source, limit=500)


@st.cache_data(max_entries=4, show_spinner=False)
def read_withdrawn(_store, where: str, version: str) -> int:
    return review.count(_store, "withdrawn")


version = review.queue_version(store)   # one small query: the cached reads below stand until it changes
withdrawn = read_withdrawn(store, store.label, version)
if withdrawn:
    st.warning(f"{withdrawn} approved item(s) were withdrawn because the marker cannot use their answer key; "
               f"students no longer get them. Choose Status: Withdrawn to correct their keys or reject them.")


def done(message: str) -> None:
    """The queue changed: say what was done and draw the whole page again (also from inside a card)."""
    flash.later("review_flash", message)
    st.rerun(scope="app")


def first_page() -> None:
    st.session_state["rv_page"] = 1


# ---------------------------------------------------------------- filters
outcomes = sorted({o.id: f"{o.id} · {o.label}" for s in library.specs.values() for o in s.model.outcomes}.items())
outcome_labels = dict(outcomes)
cols = st.columns(5)
status_label = cols[0].selectbox("Status", list(STATUSES), key="rv_status", on_change=first_page)
skill = cols[1].selectbox("Skill", [ANY, *sorted(library.generators)], key="rv_skill", on_change=first_page)
outcome = cols[2].selectbox("Outcome", [ANY, *outcome_labels], key="rv_outcome", on_change=first_page,
                            format_func=lambda o: outcome_labels.get(o, o))
source = cols[3].selectbox("Source", SOURCES, key="rv_source", on_change=first_page)
verdict = cols[4].selectbox("Verification", VERDICTS, key="rv_verdict", on_change=first_page)

items = read_queue(store, store.label, version, STATUSES[status_label], None if skill == ANY else skill,
                   None if outcome == ANY else outcome, None if source == ANY else source)
if verdict != "all":
    items = [it for it in items if bool(it.get("verification")) == (verdict == "has verification report")]
item_exchange.show(store, library, items, "review_flash")

if not items:
    filtered = skill != ANY or outcome != ANY or source != ANY or verdict != "all"
    if STATUSES[status_label] == "draft" and not filtered:
        st.info("No drafts waiting. Generate some on the Generate page.")
    else:
        st.info("No items match these filters; set a filter back to (any) or All to see more.")
    st.stop()

st.caption(f"{len(items)} item(s){' (the newest 500)' if len(items) == 500 else ''}.")
table = st.expander("The list as a table", key="rv_table", on_change="rerun")
if table.open:   # drawn only while open
    table.dataframe(pd.DataFrame([{"id": it["id"], "skill": it["blueprint_id"], "level": it["difficulty_level"],
                                   "source": it["source"], "status": it["status"], "marks": it["marks"],
                                   "question": it["stem"], "created": it["created_at"]} for it in items]),
                    width="stretch", hide_index=True)

# ---------------------------------------------------------------- bulk actions
by_id = {it["id"]: it for it in items}
bulk_approve = bulk_reject = False
several = st.expander("Approve or reject several at once", key="rv_bulk_open", on_change="rerun")
if several.open:   # drawn only while open: the list of every item in the queue is the page's heaviest widget
    with several, st.form("rv_bulk", border=False):
        chosen = st.multiselect("Items", list(by_id), key="rv_bulk_items",
                                format_func=lambda i: f"{i} · {by_id[i]['stem'][:70]}")
        reason = st.text_input("Reason (needed to reject)", key="rv_bulk_reason")
        left, right = st.columns(2)
        bulk_approve = left.form_submit_button("Approve selected", type="primary", key="rv_bulk_approve")
        bulk_reject = right.form_submit_button("Reject selected", key="rv_bulk_reject")
if bulk_approve or bulk_reject:
    try:
        if bulk_approve:
            n = review.approve(store, chosen, library=library)
            done(f"Approved {n} item(s).")
        else:
            n = review.reject(store, chosen, reason)
            done(f"Rejected {n} item(s).")
    except ReviewError as exc:
        shared.error(exc)


# ---------------------------------------------------------------- one card per item
def history_table(rows: list[dict]) -> None:
    if rows:
        st.dataframe(pd.DataFrame([{**r, "changes": "" if not r["changes"] else
                                    "; ".join(f"{k}: {v['from']!r} → {v['to']!r}" for k, v in r["changes"].items())}
                                   for r in rows]), width="stretch", hide_index=True)
    else:
        st.caption("No review actions yet: the item is as it was generated.")


def editor(item: dict) -> None:
    """Edit then approve: the item's text, options, key and explanation, in one form."""
    iid = item["id"]
    differs = st.session_state.get(f"rv_keydiff_{iid}")   # why the last save was refused, if the key differs
    with st.form(f"rv_edit_{iid}"):
        stem = st.text_area("Question", item["stem"], key=f"rv_stem_{iid}")
        options = [st.text_input(f"Option {chr(65 + k)}", o, key=f"rv_opt_{iid}_{k}")
                   for k, o in enumerate(item.get("options") or [])]
        several = item.get("item_type") == "multiple_response" or \
            (item.get("evaluation") or {}).get("method") == "multiple_response"
        hint = (" (the letters of the right options, such as A, C)" if options and several
                else " (must be one of the options)" if options else "")
        key = st.text_input("Answer key" + hint, item["answer_key"], key=f"rv_key_{iid}")
        explanation = st.text_area("Explanation", item.get("explanation") or "", key=f"rv_expl_{iid}")
        keep, keep_reason = False, None
        if differs:
            st.warning(differs)
            keep = st.checkbox("Keep my key", key=f"rv_keep_{iid}")
            keep_reason = st.text_input("Why this key (kept in the item's history)", key=f"rv_keep_why_{iid}")
        save = st.form_submit_button("Save and approve", type="primary", key=f"rv_save_{iid}")
    if save:
        try:
            review.edit_and_approve(store, iid, stem, key, explanation, options or None,
                                    confirm_key_change=keep, reason=keep_reason, library=library)
            st.session_state.pop(f"rv_keydiff_{iid}", None)
            done(f"Edited and approved {iid}.")
        except KeyDiffersError as exc:
            st.session_state[f"rv_keydiff_{iid}"] = str(exc)
            st.rerun(scope="app")   # a fragment rerun is refused when the card was drawn by a whole-page run
        except ReviewError as exc:
            shared.error(exc)


def reject_form(iid: str) -> None:
    """The reason (kept in the item's history and shown to whoever reads it), then Reject or Cancel."""
    with st.form(f"rv_reject_form_{iid}", border=False):
        why = st.text_input("Reason for rejecting", key=f"rv_reason_{iid}",
                            placeholder="e.g. the distractors are too easy")
        x, y, _ = st.columns([1, 1, 4])
        confirm = x.form_submit_button("Reject", key=f"rv_reject_confirm_{iid}")
        y.form_submit_button("Cancel", key=f"rv_reject_cancel_{iid}",
                             on_click=st.session_state.pop, args=(f"rv_rejecting_{iid}", None))
    if confirm:
        try:
            review.reject(store, [iid], why)
            st.session_state.pop(f"rv_rejecting_{iid}", None)
            done(f"Rejected {iid}.")
        except ReviewError as exc:
            shared.error(exc)


@activity.fragment
def card(item: dict, rows: list[dict] | None) -> None:
    """One item: what it is, approve, reject, edit then approve, and its history.

    A card is a fragment: opening its editor or history, or an action that is refused, redraws only the card;
    an action that changes the queue redraws the page. The editor and the history are drawn only while open.
    """
    iid = item["id"]
    with st.container(border=True):
        about = (f"`{iid}` · {item['blueprint_id'] or 'bank question'} · {item['difficulty_level'] or ''} · "
                 f"{item['marks']} mark(s) · source {item['source']} · **{item['status']}**"
                 + (f" · outcomes {', '.join(item['outcome_ids'])}" if item.get("outcome_ids") else ""))
        notes = []      # whatever there is to say about the item, under it
        if item.get("review_notes"):
            notes.append(f"Review note: {item['review_notes']}")
        if item.get("origin"):
            notes.append(item_exchange.origin_text(item["origin"]))
        if item.get("source") == "pipeline":
            accepted_at = str((item.get("params") or {}).get("accepted_at") or "")[:16].replace("T", " ")
            notes.append(f"Written by the question pipeline; accepted {accepted_at or 'at a time not recorded'} UTC, "
                         f"in the queue since {str(item['created_at'])[:16]}.")
        shared.item_card(item, with_key=True, about=about, notes=notes)
        if item.get("source") in ("import", "pipeline") or not item.get("outcome_ids"):
            item_exchange.placement(store, library, item, "review_flash")
        if item.get("params") or item.get("verification"):
            details = st.expander("Generation parameters and checks", key=f"rv_details_{iid}", on_change="rerun")
            if details.open:      # drawn only while open, like the editor and the history
                with details:
                    if item.get("params"):
                        st.caption("Generation parameters")
                        st.json(item["params"], expanded=False)
                    if item.get("verification"):
                        st.caption("Verification report")
                        st.json(item["verification"], expanded=False)

        a, b, _ = st.columns([1, 1, 4], vertical_alignment="bottom")
        if a.button("Approve", key=f"rv_approve_{iid}", type="primary", disabled=item["status"] == "approved"):
            try:
                review.approve(store, [iid], library=library)
                done(f"Approved {iid}.")
            except ReviewError as exc:
                shared.error(exc)
        # Rejecting asks for the reason only once chosen: a page of cards is drawn without a text box in each.
        b.button("Reject…", key=f"rv_reject_{iid}", disabled=item["status"] == "rejected",
                 on_click=st.session_state.__setitem__, args=(f"rv_rejecting_{iid}", True))
        if st.session_state.get(f"rv_rejecting_{iid}"):
            reject_form(iid)

        edit = st.expander("Edit then approve", key=f"rv_editor_{iid}", on_change="rerun")
        if edit.open:
            with edit:
                editor(item)
        past = st.expander("History", key=f"rv_history_{iid}", on_change="rerun")
        if past.open:
            with past:
                history_table(rows if rows is not None else review.history(store, iid))


pages = (len(items) + PAGE_SIZE - 1) // PAGE_SIZE
page = min(max(int(st.session_state.get("rv_page", 1)), 1), pages)
st.session_state["rv_page"] = page


def turn(by: int) -> None:
    st.session_state["rv_page"] = page + by


if pages > 1:
    back, where, on = st.columns([1, 3, 1], vertical_alignment="center")
    back.button("← Previous", key="rv_page_back", on_click=turn, args=(-1,), disabled=page == 1)
    where.caption(f"Page {page} of {pages}: items {(page - 1) * PAGE_SIZE + 1}–{min(page * PAGE_SIZE, len(items))}.")
    on.button("Next →", key="rv_page_next", on_click=turn, args=(1,), disabled=page == pages)
shown = items[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
opened = [it["id"] for it in shown if st.session_state.get(f"rv_history_{it['id']}")]
read = review.histories(store, opened)   # the open histories, in one query
for item in shown:
    card(item, read.get(item["id"]))
