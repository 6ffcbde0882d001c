"""Class: create classes, keep the roster (one by one or from a CSV), settings, students' PINs, and their results."""
import pandas as pd
import streamlit as st

from core.school import classes, pins
from core.school.classes import ClassError
from core.school.roster_csv import decode_roster
from core.demo.classroom import DEMO_CODE, reset_demo
from core.store import school
from ui import flash, shared

shared.require("teacher")
shared.teacher_banner()
wb = shared.workbench()
store, library = wb.store, wb.library

st.title("Class")
flash.show("class_flash")


def done(message: str, code: str | None = None) -> None:
    flash.later("class_flash", message)
    if code:
        st.session_state["cls_code"] = code
    st.rerun()


def keep_pins(code: str, issued: list[pins.IssuedPin]) -> str:
    """Keep PINs just issued for this teacher's sheet (they cannot be shown again); a sentence saying so."""
    if not issued:
        return ""
    sheet = st.session_state.setdefault("cls_pin_sheet", {}).setdefault(code, {})
    for p in issued:
        sheet[p.student] = {"name": p.name, "pin": p.pin}
    return f" New PINs for {len(issued)} student(s) are on the PIN sheet below: print or download it now."


# ---------------------------------------------------------------- pick or create a class
all_classes = {c["code"]: c for c in school.list_classes(store)}
courses = sorted({(s.model.subject, s.model.level) for s in library.specs.values()})
NO_COURSE = ("", "")

with st.expander("Create a class", expanded=not all_classes):
    with st.form("cls_create"):
        c1, c2 = st.columns(2)
        new_code = c1.text_input("Class code", placeholder="e.g. S4-MATHS", key="cls_new_code",
                                 help="Students type this to sign in: 3 to 16 letters, digits or dashes.")
        new_name = c2.text_input("Class name", placeholder="e.g. S4 Maths, Mr Smith", key="cls_new_name")
        course = st.selectbox("Course (subject and level)", [NO_COURSE, *courses], key="cls_new_course",
                              format_func=lambda c: f"{c[0]} {c[1]}" if c[0] else "No course")
        create = st.form_submit_button("Create class", type="primary", key="cls_create_go")
    if create:
        try:
            code = classes.create_class(store, new_code, new_name, course[0] or None, course[1] or None)
            done(f"Class {code} created. Add its students below.", code)
        except ClassError as exc:
            shared.error(exc)

if not all_classes:
    st.info("No classes yet. Create one above: give it a code your students will type to sign in.")
    st.stop()

if st.session_state.get("cls_code") not in all_classes:
    st.session_state["cls_code"] = next(iter(all_classes))
code = st.selectbox("Class", list(all_classes), key="cls_code",
                    format_func=lambda c: f"{c} · {all_classes[c]['name']} ({all_classes[c]['students']} students)")
klass = all_classes[code]
course_text = f"{klass['subject']} {klass['level']}" if klass["subject"] else "no course set"
uses_pins = bool(klass.get("require_pin"))
st.caption(f"{klass['name']} · {course_text}. Students sign in with the class code **{code}** and their name"
           + (", and the PIN on their slip." if uses_pins else "."))

# ---------------------------------------------------------------- roster
st.subheader("Students")
roster = school.roster(store, code)
if roster:
    table = pd.DataFrame([{"name": r["display_name"], "student id": r["student"], "added": r["created_at"]}
                          for r in roster])
    if uses_pins:
        table["PIN issued"] = [r["pin_issued_at"] for r in roster]
    st.dataframe(table, width="stretch", hide_index=True)
else:
    st.info("No students on the list yet: add them one by one or import a CSV of names below.")

left, right = st.columns(2)
with left:
    with st.form("cls_add", clear_on_submit=True):
        name = st.text_input("Add a student", placeholder="First and last name", key="cls_add_name")
        add = st.form_submit_button("Add", key="cls_add_go")
    if add:
        try:
            classes.add_student(store, code, name)
            done(f"{' '.join(name.split())} added to {code}." + keep_pins(code, pins.issue_missing(store, code)))
        except ClassError as exc:
            shared.error(exc)
with right:
    names = {r["student"]: r["display_name"] for r in roster}
    with st.form("cls_remove"):
        gone = st.selectbox("Remove a student", list(names), format_func=lambda s: names[s], key="cls_remove_who",
                            index=None, placeholder="Choose a student")
        remove = st.form_submit_button("Remove", key="cls_remove_go", disabled=not names)
    st.caption("Removing takes a student off the list; their past sessions stay in the results.")
    if remove:
        if gone is None:
            st.error("Choose the student to remove first.")
        elif school.remove_student(store, code, gone):
            done(f"{names[gone]} removed from {code}.")
        else:
            st.error(f"{names[gone]} is no longer on the list; reload the page.")

st.markdown("**Import names from a CSV file**")
st.caption("As your school's records or spreadsheet export it: a `Name` column, or first and last names "
           "(`Forename`/`Surname`, `First name`/`Last name`), or a single column of names. "
           "Names already on the list are skipped.")
upload = st.file_uploader("CSV file", type=["csv", "txt"], key="cls_csv")
if st.button("Import", key="cls_import_go", disabled=upload is None):
    text, note = decode_roster(upload.getvalue())
    try:
        result = classes.import_roster_csv(store, code, text)
    except ClassError as exc:
        shared.error(exc)
    else:
        st.session_state["cls_import"] = {"added": result.added, "already": result.already_there,
                                          "already_names": result.already_names, "errors": result.errors,
                                          "read_from": result.read_from, "note": note,
                                          "pins": keep_pins(code, pins.issue_missing(store, code))}
        st.rerun()
report = st.session_state.pop("cls_import", None)
if report:
    st.success(f"Added {report['added']} student(s)"
               + (f"; {report['already']} already on the list." if report["already"] else ".") + report["pins"])
    st.caption(f"Names read from {report['read_from']}.")
    if report["note"]:
        st.warning(report["note"])
    if report["already_names"]:
        st.info("Already on the list, so not added again: " + ", ".join(report["already_names"])
                + ". If one of them is a different student, add them with a name that tells them apart.")
    if report["errors"]:
        st.error(f"{len(report['errors'])} row(s) could not be added: fix them in the file and import it again "
                 f"(the other rows are on the list already).")
        st.dataframe(pd.DataFrame([{"row": n, "problem": why} for n, why in report["errors"]]),
                     width="stretch", hide_index=True)

# ---------------------------------------------------------------- settings
st.subheader("Settings")
with st.form("cls_settings"):
    unknown = st.checkbox("Unknown names may join with the class code", value=bool(klass["allow_unknown_names"]),
                          key=f"cls_unknown_{code}",
                          help="Anyone who knows the code can sign in with a new name and is added to the list "
                               "(not while the class uses PINs: add new students yourself then).")
    pin_on = st.checkbox("Students sign in with a PIN", value=uses_pins, key=f"cls_pin_{code}",
                         help="Each student gets a PIN on a slip you print; the class code and a name are then "
                              "not enough to sign in as someone. PINs are stored only as hashes, so a sheet can "
                              "be printed only when PINs are issued.")
    approved = st.checkbox("Students get approved items only", value=bool(klass["approved_items_only"]),
                           key=f"cls_approved_{code}",
                           help="Practice and exams use only questions you approved on the Review page.")
    comma = st.checkbox("Decimals are written with a comma (3,5)", value=bool(klass.get("decimal_comma")),
                        key=f"cls_comma_{code}",
                        help="Answers such as 3,5 are read as three and a half; lists are then separated by ;.")
    save = st.form_submit_button("Save settings", key="cls_settings_go")
if save:
    school.update_class(store, code, allow_unknown_names=unknown, approved_items_only=approved, decimal_comma=comma)
    done("Settings saved." + keep_pins(code, pins.require(store, code, pin_on)))

# ---------------------------------------------------------------- PINs
if uses_pins:
    st.subheader("PINs")
    missing = [r for r in roster if r["pin_issued_at"] is None]
    st.caption(f"{len(roster) - len(missing)} of {len(roster)} students have a PIN. PINs are kept only as hashes: "
               "each one is shown once, on the sheet below, when it is issued. If a slip is lost, give that "
               "student a new PIN; if the sheet is lost, issue new PINs for the class.")
    sheet = st.session_state.get("cls_pin_sheet", {}).get(code)
    if sheet:
        issued = [pins.IssuedPin(student, row["name"], row["pin"]) for student, row in sheet.items()]
        st.markdown("**PIN sheet** (new PINs only; print or download it before you hide it)")
        st.dataframe(pd.DataFrame([{"name": p.name, "PIN": pins.shown(p.pin)}
                                   for p in sorted(issued, key=lambda p: p.name.casefold())]),
                     width="stretch", hide_index=True)
        c1, c2, c3 = st.columns(3)
        c1.download_button("Download printable slips (HTML)", pins.sheet_html(issued, code, klass["name"]),
                           file_name=f"{code}-pins.html", mime="text/html", key="cls_pin_html")
        c2.download_button("Download as CSV", pins.sheet_csv(issued, code), file_name=f"{code}-pins.csv",
                           mime="text/csv", key="cls_pin_csv")
        if c3.button("Hide these PINs", key="cls_pin_hide"):
            st.session_state["cls_pin_sheet"].pop(code, None)
            st.rerun()
    if missing and st.button(f"Give PINs to the {len(missing)} student(s) without one", key="cls_pin_missing_go"):
        done("PINs issued." + keep_pins(code, pins.issue(store, code)))
    left, right = st.columns(2)
    with left:
        with st.form("cls_pin_reset"):
            who = st.selectbox("New PIN for one student", list(names), format_func=lambda s: names[s],
                               key="cls_pin_reset_who", index=None, placeholder="Choose a student")
            reset = st.form_submit_button("Give a new PIN", key="cls_pin_reset_go", disabled=not names)
        if reset:
            if who is None:
                st.error("Choose the student first.")
            else:
                try:
                    new = pins.reset(store, code, who)
                except pins.PinError as exc:
                    shared.error(exc)
                else:
                    done(f"{new.name} has a new PIN; the old one no longer works." + keep_pins(code, [new]))
    with right:
        with st.form("cls_pin_all"):
            sure = st.checkbox("Old PINs will stop working", key="cls_pin_all_sure")
            renew = st.form_submit_button("New PINs for the whole class", key="cls_pin_all_go", disabled=not names)
        if renew:
            if not sure:
                st.error("Tick the box first: every student will need their new slip.")
            else:
                done("Every student has a new PIN." + keep_pins(code, pins.issue(store, code, replace=True)))

# ---------------------------------------------------------------- results
st.subheader("Sessions and results")
results = school.class_results(store, code)
if results:
    frame = pd.DataFrame(results)
    frame["percent"] = [round(100 * s / m, 1) if m else None for s, m in zip(frame["score"], frame["max_score"])]
    st.dataframe(frame[["display_name", "kind", "status", "created_at", "completed_at", "answers", "correct",
                        "score", "max_score", "percent", "session_id"]],
                 width="stretch", hide_index=True)
else:
    st.info("No sessions yet: students' practice and exams appear here once they sign in and start.")

# ---------------------------------------------------------------- the demo class
if klass["demo"] or code == DEMO_CODE:
    st.subheader("Demo data")
    st.caption("The demo students' history is simulated. Resetting throws it away and simulates it afresh.")
    if st.button("Reset demo data", key="cls_reset_demo"):
        bar = st.progress(0.0, text="Resetting the demo class…")
        reset_demo(store, library, progress=lambda n, total: bar.progress(n / total,
                                                                        text=f"Simulating student {n} of {total}…"))
        bar.empty()
        shared.runner().forget()   # cached sessions of the demo students are gone
        done("Demo data reset.")
