"""Mock exams: the class's assigned papers or one the student chooses; answers saved as typed; results after."""
from __future__ import annotations

import secrets

import streamlit as st

from core.exams import gradebook, structure
from core.exams.typeset import minutes_text
from core.school import assignments, courses, sittings
from core.flows.base import FlowError
from ui import activity, countdown, exam_answers, flash, shared
from ui.answer import (SAVED_AS_TYPED, answer_box, answer_label, fill_ticks, read_as_text, show_reading, tick_boxes,
                       tick_key, ticked)
from ui.blocks import Paragraphs, readable
from ui import steps as stepped

who = shared.require("student")
wb = shared.workbench()
runner = shared.runner()
student = who["user"]

SID = "exam_sid"            # the exam (or assigned evaluation) on screen
CONFIRM = "exam_confirm"    # the submit button was pressed once: ask before handing in
HANDED_IN = "exam_handed_in"  # Yes, submit my exam was pressed: the exam handed in, the results to draw
_DRAWN = "exam_drawn"       # the whole page was just drawn (the hand-in part can use its view)
OWN_SEED = "exam_own_seed"  # the seed of the next mock exam of the student's own (its paper drawn ahead)
FLASH = "exam_flash"        # a message from a callback, shown on the next run
PRACTICE_PAGE = "pages/student_practice.py"


plain = shared.plain


def start(kind: str, config: dict) -> None:
    """on_click: start the exam, so the run that follows draws the paper (a refusal is said at the top)."""
    try:
        sid = runner.start(kind, student, config)
    except FlowError as exc:
        flash.later(FLASH, str(exc), "error")
        return
    st.session_state.pop(OWN_SEED, None)   # the next mock exam of one's own is a fresh paper
    open_exam(sid)


def own_course() -> tuple[str, str]:
    """The subject the list offers for a mock exam of one's own (the one last chosen, else the class's course)
    and the key of its level's choice, both set in the session state before the choices are drawn."""
    lib = wb.library
    home_subject, home_level = courses.home_course(wb.store, lib, student)
    subjects = courses.subjects(lib)
    if st.session_state.get("ex_subject") not in subjects:
        st.session_state["ex_subject"] = home_subject
    subject = st.session_state["ex_subject"]
    levels = courses.levels(lib, subject)
    level_key = f"ex_level_{subject}"
    if st.session_state.get(level_key) not in levels:
        st.session_state[level_key] = home_level if home_level in levels else levels[0]
    return subject, level_key


def own_exam(subject: str, level: str) -> tuple[str, dict]:
    """The start of the next mock exam of one's own in that course: its paper's seed is kept until it starts."""
    return sittings.exam_start(subject, level, seed=st.session_state.setdefault(OWN_SEED, secrets.token_hex(8)))


def draw_next_ahead() -> None:
    """From the results of a mock exam of one's own: the next paper the list will offer, drawn while the student
    reads them (another is likely to follow)."""
    subject, level_key = own_course()
    draw_ahead(*own_exam(subject, st.session_state[level_key]))


def draw_ahead(kind: str, config: dict) -> None:
    """While the student reads the page, the paper a Start would give is drawn in the background: the click then
    finds its questions made (a paper of forty is a tenth of a second or more of work)."""
    if kind == "exam" and config.get("seed"):
        key = "|".join(f"{k}={config[k]}" for k in sorted(config))
        activity.when_quiet(f"paper|{student}|{key}", runner.prepare, kind, student, config, activity.pausing(0.25),
                            idle_s=0.25)


def open_exam(sid: str) -> None:
    """on_click: show an exam (sat or handed in); the next run draws it, not this list first."""
    st.session_state[SID] = sid
    st.session_state.pop(CONFIRM, None)


def close_exam() -> None:
    for key in (SID, CONFIRM, HANDED_IN):
        st.session_state.pop(key, None)


def box_key(sid: str, item_id: str) -> str:
    return f"ex_{sid}_{item_id}"


@activity.fragment(run_every=15)
def watch_clock(sid: str, shown: tuple[str, ...] = ()) -> None:
    """Every few seconds ask the server: once the time limit has passed it marks the exam, so show what follows;
    when another tab saved a newer answer to a question on screen (``shown``), draw the page again so its box
    shows it."""
    try:
        view = runner.view(sid)
    except FlowError:
        return
    versions = {item_id: v for item_id, v in (view.get("versions") or {}).items() if item_id in shown}
    if view["stage"] not in ("sitting", "active") or \
            exam_answers.behind(versions, lambda item_id: box_key(sid, item_id)):
        st.rerun()


def sitting_command(sid: str, name: str, **kwargs) -> None:
    """A student's action in a sitting, then the page again; a refusal is said at the top of it (time up: by the
    handed-in screen, which leads with it)."""
    try:
        runner.command(sid, name, **kwargs)
    except FlowError as exc:
        exam_answers.refused(sid, exc, FLASH)
    st.rerun()


def save(sid: str, item_id: str, key: str) -> None:
    """on_change (leaving the box, or Enter): keep the answer the moment it changes, so a reload loses nothing."""
    value = st.session_state.get(key)
    exam_answers.save(sid, item_id, key, "" if value is None else value, FLASH)


def save_ticks(sid: str, q: dict, key: str) -> None:
    """on_change of a choose-several question's tick box: keep the letters ticked ("A, C"; "" for none)."""
    exam_answers.save(sid, q["id"], key, ticked(q, key), FLASH)


# ---------------------------------------------------------------------------
# Choosing an exam


def show_choice() -> None:
    lib = wb.library
    st.subheader("Set by your teacher")
    open_now = sittings.open_assignments(wb.store, student)
    if not open_now:
        st.info("Your teacher has not set an exam that is open now. Sit a mock exam of your own below.")
    for a in open_now:
        with st.container(border=True):
            st.markdown(f"**{a['title']}**")
            limit = f" · time limit {minutes_text(a['time_limit_minutes'])}" if a.get("time_limit_minutes") else ""
            extra = f" (+{minutes_text(a['extra_minutes'])} extra time for you)" if a.get("extra_minutes") else ""
            allowed = a["attempts_allowed"]
            attempts = (f" · {a['attempts_left']} of {allowed} attempts left" if allowed > 1
                        else " · one attempt")
            st.caption(f"Open until {a['closes_at']:%d %b %Y %H:%M} (UTC){limit}{extra}{attempts}")
            st.caption(a["release_note"])
            taken = a["session"]
            if taken and taken["status"] == "active":
                st.button("Continue", key=f"go_{a['id']}", type="primary", on_click=open_exam, args=(taken["id"],))
                continue
            if taken:
                st.caption("You have handed this one in.")
                label = "See my results" if a["results_released"] else "See my hand-in"
                st.button(label, key=f"see_{a['id']}", on_click=open_exam, args=(taken["id"],))
            if a["start_problem"] is None:
                label = "Start" if not taken else f"Start attempt {a['attempts_used'] + 1} of {allowed}"
                kind, config = sittings.assignment_start(a)
                st.button(label, key=f"go_{a['id']}", type="primary", on_click=start, args=(kind, config))
                draw_ahead(kind, config)
            elif not taken:
                st.caption(a["start_problem"])

    st.subheader("A mock exam of your own")
    subject, level_key = own_course()
    cols = st.columns(2)
    cols[0].selectbox("Subject", courses.subjects(lib), key="ex_subject")
    level = cols[1].selectbox("Level", courses.levels(lib, subject), key=level_key)
    st.caption("A full paper in the course's exam format, with the exam's time allowed. "
               "Answers are saved as you go; you see your marks when you hand it in.")
    kind, config = own_exam(subject, level)
    st.button("Start mock exam", type="primary", on_click=start, args=(kind, config))
    draw_ahead(kind, config)

    past = sittings.past_exams(wb.store, student)
    if past:
        st.subheader("Your past exams")
        for p in past:
            cols = st.columns([3, 2, 1])
            cols[0].markdown(f"{p['course']} {'(assigned)' if p['assigned'] else ''} · {p['when']} UTC")
            cols[1].markdown(p["score"])
            cols[2].button("Results", key=f"past_{p['id']}", on_click=open_exam, args=(p["id"],))


# ---------------------------------------------------------------------------
# Sitting a mock exam


def question_label(q: dict) -> str:
    return str(q.get("label") or q["number"])


def answer_widget(sid: str, q: dict, saved: dict, readings: dict, versions: dict) -> None:
    key = box_key(sid, q["id"])
    version = versions.get(q["id"], 0)
    if stepped.has_steps(q):   # one box per step, the last the final answer; saved together
        stepped.exam_boxes(sid, q, key, saved.get(q["id"]), FLASH, version)
        show_reading(readings.get(q["id"]), SAVED_AS_TYPED, hint=False)
        return

    def fill(answer=saved.get(q["id"])) -> None:
        if q["options"] and q.get("choose_several"):
            fill_ticks(q, key, answer)   # the letters saved ("A, C") ticked; nothing saved: none
        elif answer is None or (q["options"] and answer not in q["options"]):
            st.session_state.pop(key, None)   # nothing saved, or not an option (typed elsewhere): start blank
        else:
            st.session_state[key] = answer

    # The server's saved answer is the truth: shown when it is newer than this box (a reload, another tab).
    several = bool(q["options"] and q.get("choose_several"))
    exam_answers.sync(key, version, fill, [tick_key(key, k) for k in range(len(q["options"]))] if several else [key])
    label = answer_label(f"Your answer to question {question_label(q)}", q)
    if q["options"] and q.get("choose_several"):
        tick_boxes(q, key, label, on_change=save_ticks, args=(sid, q, key))
    elif q["options"]:
        st.radio(label, q["options"], index=None, key=key, on_change=save, args=(sid, q["id"], key))
    else:
        st.text_input(label, key=key, on_change=save, args=(sid, q["id"], key),
                      placeholder="Type your answer; it is saved when you press Enter or click away")
        show_reading(readings.get(q["id"]), SAVED_AS_TYPED, hint=False)
    exam_answers.conflict_prompt(sid, q["id"], key, FLASH, fill, lambda answer: exam_answers.describe(answer, q))


def screen_key(sid: str) -> str:
    return f"exam_screen_{sid}"


def go_to_screen(sid: str, index: int) -> None:
    st.session_state[screen_key(sid)] = index


def short_section(name: str) -> str:
    """"Paper 1 (Non-calculator)" as "Paper 1": the navigator's label, the header says the rest."""
    return name.split(" (")[0]


def navigator(exam: dict, screens: list[dict], key: str, **kwargs) -> int:
    """Which screen of the paper to show ("Paper 1 · 1–7", "Paper 1 · 8–13", ...); 0 when it has one."""
    if len(screens) < 2:
        return 0
    several_sections = len(exam["sections"]) > 1
    here = st.segmented_control(
        "Questions", list(range(len(screens))), default=0, required=True, key=key,
        format_func=lambda k: (f"{short_section(screens[k]['section']['section'])} · " if several_sections else "")
        + screens[k]["title"].split(" ", 1)[1], **kwargs)
    return here if here in range(len(screens)) else 0


def show_sitting(view: dict) -> None:
    sid = view["session_id"]
    exam = view["exam"]
    saved = view["answers"]
    st.title(f"{exam['subject']} {exam['level']}: mock exam")
    countdown.exam(view.get("time_remaining_seconds"))
    extra = f" + {minutes_text(view['extra_minutes'])} extra time" if view.get("extra_minutes") else ""
    st.caption(f"{exam['question_count']} questions · {exam['total_marks']} marks · "
               f"{minutes_text(exam['time_allowed_minutes'])}{extra}. The clock keeps running if you leave this page.")
    with st.expander("Instructions"):
        st.markdown("\n".join(f"- {line}" for line in exam["instructions"]))   # one list, not one per line
    # A few questions on each screen (a screen draws at once; a paper of forty does not), a printed question's
    # parts together; the navigator goes to any screen, and the answers are saved as typed whichever is shown.
    # The screen shown is kept in the page's address: a reload comes back to it.
    screens = structure.screens(exam)
    here = navigator(exam, screens, screen_key(sid), bind="query-params")
    screen = screens[here]
    section = screen["section"]
    st.header(section["section"])
    calc = "Calculator allowed" if section.get("calculator_allowed") else "No calculator"
    st.caption(f"{calc} · {section['marks']} marks · {screen['title']}")
    for q in screen["questions"]:
        with st.container(border=True):
            heading = f"**Question {question_label(q)}** · {q['marks']} mark{'s' if q['marks'] != 1 else ''}"
            media = shared.media_of(q)
            if media:
                st.markdown(heading)
                shared.stem(q["stem"], media)
            else:   # one block: the page draws sooner
                text = Paragraphs()
                text.add(heading)
                text.stem(q["stem"])
                text.flush()
            shared.figure(q)
            answer_widget(sid, q, saved, view.get("readings") or {}, view.get("versions") or {})
    if len(screens) > 1:
        cols = st.columns(2)
        if here > 0:
            cols[0].button(f"← {screens[here - 1]['title']}", key="exam_previous", on_click=go_to_screen,
                           args=(sid, here - 1))
        if here < len(screens) - 1:
            cols[1].button(f"{screens[here + 1]['title']} →", key="exam_next", on_click=go_to_screen,
                           args=(sid, here + 1))
    watch_clock(sid, tuple(q["id"] for q in screen["questions"]))   # after the boxes: they have caught up
    st.divider()
    st.session_state[_DRAWN] = sid   # this run's view is fresh: the part below need not ask again
    # Handing in checks the answer key of every question answered wrong: checked now, while the paper is sat, a
    # key at a time whenever the page has been still for a quarter of a second (work queued behind it, the next
    # paper drawn ahead, waits for it).
    activity.when_quiet(f"keys|{sid}", runner.prepare_marking, sid, activity.pausing(0.25), idle_s=0.25)
    hand_in(sid, [q for s in exam["sections"] for q in s["questions"]], view)


def submit(sid: str) -> None:
    """on_click of Yes, submit my exam: hand in, before this part runs (it then goes straight to the results,
    drawing nothing of its own again). What the server saved is marked: every box is saved as it changes, so the
    page sends no copy."""
    try:
        runner.command(sid, "submit")
    except FlowError as exc:   # time ran out first: kept as late, and the next screen says so
        exam_answers.refused(sid, exc, FLASH)
    st.session_state.pop(CONFIRM, None)
    st.session_state[HANDED_IN] = sid


@activity.fragment
def hand_in(sid: str, questions: list[dict], drawn: dict) -> None:
    """How many are answered (and which are not), Submit exam and the question before handing in: asking and
    answering "Keep working" redraw only this part, not the paper. ``drawn`` is the view the paper was drawn
    with; on this part's own runs the server is asked again."""
    if st.session_state.pop(HANDED_IN, None) == sid:   # Yes, submit my exam: the whole page, the results
        st.rerun()
    view = drawn if st.session_state.pop(_DRAWN, None) == sid else runner.view(sid)
    if view["stage"] != "sitting":   # time ran out meanwhile: the whole page shows what follows
        st.rerun()
    saved = view.get("answers") or {}
    blank = [question_label(q) for q in questions if stepped.is_blank(saved.get(q["id"]))]
    answered = len(questions) - len(blank)
    st.caption(f"{answered} of {len(questions)} questions answered. Your answers are saved as you go.")
    if blank and answered:
        st.caption("Not answered yet: " + ", ".join(blank) + ".")
    if not st.session_state.get(CONFIRM):
        slot = st.empty()
        if not slot.button("Submit exam", type="primary", key="exam_submit"):
            return
        slot.empty()     # asked: the question takes its place at once, with no second run
        st.session_state[CONFIRM] = True
    area = st.empty()
    with area.container():
        st.warning(f"Hand in your exam now? You have answered {answered} of {len(questions)} questions, "
                   f"and you cannot change your answers afterwards.")
        unreadable = view.get("unreadable") or []
        if unreadable:
            st.warning(f"Could not be read: question{'s' if len(unreadable) > 1 else ''} "
                       + ", ".join(str(n) for n in unreadable) + ". As they stand these answers will be marked "
                       "wrong; choose Keep working to correct them first.")
        cols = st.columns(2)
        cols[0].button("Yes, submit my exam", type="primary", on_click=submit, args=(sid,))
        keep = cols[1].button("Keep working")
    if keep:
        st.session_state.pop(CONFIRM, None)
        area.empty()
        st.button("Submit exam", type="primary", key="exam_submit")


def result_key(sid: str, number: int) -> str:
    return f"res_{sid}_{number}"


@activity.fragment
def question_details(sid: str, exam: dict, per_question: list[dict]) -> None:
    """Each question's marking, a screen of the paper at a time (as it was sat), drawn only while its expander
    is open: choosing a screen or opening a question redraws only this part."""
    by_number = {q["number"]: q for s in exam["sections"] for q in s["questions"]}
    screens = structure.screens(exam)
    numbers = {q["number"] for q in screens[navigator(exam, screens, f"res_screen_{sid}")]["questions"]} \
        if screens else set(by_number)
    for q in [q for q in per_question if q["number"] in numbers]:
        mark = "✅" if q["correct"] else "❌"
        box = st.expander(f"{mark} Question {question_label(q)}: {q['marks_awarded']:g} / {q['marks']:g}",
                          key=result_key(sid, q["number"]), on_change="rerun")
        if not box.open:
            continue
        with box:
            text = Paragraphs()   # the paragraphs between other elements drawn as one block each
            if q["number"] in by_number:
                text.stem(by_number[q["number"]]["stem"])
            text.add(f"**Your answer:** {plain(q['answer']) if str(q['answer'] or '').strip() else '(no answer)'}")
            if q.get("unreadable"):
                text.flush()
                st.caption("This answer could not be read, so it was marked as it stands.")
            else:
                text.add(read_as_text({"valid": True, "read_as": q.get("read_as"),
                                       "latex": q.get("read_as_latex")}) or "")
            if q.get("steps"):
                text.flush()
                stepped.show_steps(q.get("steps"))
            text.stem(f"**Correct answer:** {q['correct_answer']}")
            if q.get("feedback"):
                text.stem(f"**Feedback:** {q['feedback']}")
            if gradebook.marked_by_note(q):
                text.flush()
                st.caption(plain(gradebook.marked_by_note(q)))
            if gradebook.override_note(q):
                text.flush()
                st.info(gradebook.override_note(q), icon="✏️")
            if q.get("explanation"):
                text.stem(f"**Explanation:** {q['explanation']}")
            text.flush()


FIRST_GAPS = 3   # the outcomes that lost the most marks, shown in full; the rest once asked for


def gap_block(exam: dict, block: dict) -> None:
    """One outcome to work on: what to revise, the questions of it missed, a practice question, a button."""
    with st.container(border=True):
        text = Paragraphs()   # the paragraphs between other elements drawn as one block each
        text.add(f"**{block['label']}** ({block['outcome_id']})")
        text.stem(block["explanation"])
        if block.get("questions"):
            text.flush()
            st.caption("Questions you missed: " + ", ".join(
                block.get("question_labels") or [str(n) for n in block["questions"]]))
        pq = block.get("practice_question")
        if pq:
            text.add("**Practice question:**")
            text.stem(pq["stem"])
            if pq.get("choose_several"):
                text.flush()
                st.caption("Choose all the right answers.")
            for k, option in enumerate(pq.get("options") or []):
                text.stem(f"**{chr(65 + k)}.** {option}")
        text.flush()
        if st.button("Practise this outcome", key=f"practise_{block['outcome_id']}"):
            st.session_state["practice_preset"] = sittings.practice_preset(exam["subject"], exam["level"],
                                                                           block["outcome_id"])
            st.switch_page(PRACTICE_PAGE)


@activity.fragment
def more_gaps(sid: str, exam: dict, blocks: list[dict]) -> None:
    """The other outcomes to work on, drawn once opened (opening redraws only this part)."""
    box = st.expander(f"{len(blocks)} more outcome{'s' if len(blocks) != 1 else ''} to work on: "
                      + "; ".join(b["label"] for b in blocks), key=f"res_more_{sid}", on_change="rerun")
    if box.open:
        with box:
            for block in blocks:
                gap_block(exam, block)


def show_results(view: dict) -> None:
    exam, res = view["exam"], view["results"]
    st.title(f"{exam['subject']} {exam['level']}: your results")
    if res.get("expired"):
        st.info("Time ran out, so the answers saved by then were marked.")
    cols = st.columns(3)
    cols[0].metric("Marks", f"{res['marks_awarded']:g} / {res['total_marks']:g}")
    cols[1].metric("Percent", f"{res['percent']:g}%")
    cols[2].metric("Grade", res["grade"])
    # Plain tables (markdown): a results page with two data grids took the browser a third of a second more.
    st.markdown(shared.markdown_table(
        ["Section", "Marks", "Percent"],
        [[s["section"], f"{s['marks_awarded']:g} / {s['marks']:g}", f"{s['percent']:g}%"] for s in res["sections"]]))

    st.subheader("Question by question")
    per_question = sorted(res["questions"].values(), key=lambda q: q["number"])
    st.markdown(shared.markdown_table(
        ["Question", "Your answer", "Correct answer", "Marks", "Right"],
        [[question_label(q), plain(q["answer"]) if str(q["answer"] or "").strip() else "—",
          readable(str(q["correct_answer"])), f"{q['marks_awarded']:g} / {q['marks']:g}",
          "✅ right" if q["correct"] else "❌ wrong"] for q in per_question]))
    question_details(view["session_id"], exam, per_question)

    st.subheader("What to work on")
    blocks = view.get("remediation") or []   # the outcome that lost the most marks first
    if not blocks:
        st.success("Every question was right: no gaps to work on. Try a harder course or another mock exam.")
    for block in blocks[:FIRST_GAPS]:
        gap_block(exam, block)
    if len(blocks) > FIRST_GAPS:
        more_gaps(view["session_id"], exam, blocks[FIRST_GAPS:])
    st.divider()
    st.button("Back to my exams", on_click=close_exam)   # before the next run: it draws only the list
    if not view.get("assigned"):
        draw_next_ahead()


# ---------------------------------------------------------------------------
# Handed in, results not released yet


def show_held(view: dict) -> None:
    """All a student sees of an assigned paper before its results are released: that it was handed in, when,
    and when the results come."""
    held = view["held"]
    exam = view.get("exam") or {}
    st.title(f"{held.get('title') or view.get('title') or exam.get('subject', '')}: handed in")
    if held.get("time_up"):
        st.warning(held["time_up"])
    elif held.get("submitted_at"):
        st.success(f"Your paper was submitted at {assignments.moment(held['submitted_at'])}.")
    st.info(held["message"])
    st.caption("Your marks, the answers and the explanations are shown here once the results are released.")
    st.button("Back to my exams", on_click=close_exam)   # before the next run: it draws only the list


# ---------------------------------------------------------------------------
# An assigned evaluation (from an assessment blueprint): one question at a time


def answer_evaluation(sid: str, item_id: str, answer) -> None:
    """Save an answer, then the page again: an answer after the question's time limit is kept but counts as
    wrong, and the next run says so."""
    try:
        view = runner.command(sid, "answer", item_id=item_id, answer=answer)
    except FlowError as exc:
        exam_answers.refused(sid, exc, FLASH)
    else:
        if view.get("time_up"):
            flash.later(FLASH, view["time_up"], "info")
    st.rerun()


def show_evaluation(view: dict) -> None:
    sid = view["session_id"]
    st.title(view["title"] or "Evaluation")
    if view["stage"] == "completed":
        res = view["results"]
        if res.get("expired"):
            st.info("Time ran out, so the answers given by then were marked.")
        cols = st.columns(3)
        cols[0].metric("Score", f"{res['score_percent']:g}%")
        cols[1].metric("Grade", res["grade"])
        cols[2].metric("Result", "Passed" if res["passed"] else "Not yet passed")
        st.dataframe([{"Section": s["section_title"], "Right": f"{s['items_correct']} / {s['items_total']}",
                       "Accuracy": f"{s['accuracy_percent']:g}%"} for s in res["section_results"]], hide_index=True)
        for r in res["review"]:
            with st.expander(f"{'✅' if r['correct'] else '❌'} Question {r['number']}"):
                shared.stem(r["stem"])
                st.markdown(f"**Your answer:** {plain(r['answer']) if r['answer'] is not None else '(no answer)'}")
                shared.stem(f"**Correct answer:** {r['correct_answer']}")
                if gradebook.marked_by_note(r):
                    st.caption(plain(gradebook.marked_by_note(r)))
                if gradebook.override_note(r):
                    st.info(gradebook.override_note(r), icon="✏️")
                if r.get("explanation"):
                    shared.stem(f"**Explanation:** {r['explanation']}")
        st.button("Back to my exams", on_click=close_exam)
        return
    q = view["question"]
    countdown.exam(view.get("time_remaining_seconds"))
    if view.get("time_remaining_seconds") is not None:
        watch_clock(sid)
    st.caption(f"{q['section_title']} · question {q['number']} of {q['total']}")
    shared.stem(q["stem"])
    shared.figure(q)
    if view.get("item_time_left_seconds") is not None:
        countdown.question(view["item_time_left_seconds"], q.get("time_limit_seconds"),
                           "⏰ Time's up for this question: an answer now counts as wrong.")
    go, answer = answer_box(q, f"ev_{sid}_{q['id']}", "Save and continue", default=view.get("your_answer"))
    if go:
        if answer is None or not str(answer).strip():
            st.warning("Type an answer or choose an option first.")
        else:
            answer_evaluation(sid, q["id"], answer)
    cols = st.columns(3)
    if view.get("can_skip") and cols[0].button("Skip for now"):
        sitting_command(sid, "skip", item_id=q["id"])
    if view.get("can_go_back") and q["index"] > 0 and cols[1].button("Previous question"):
        sitting_command(sid, "goto", index=q["index"] - 1)
    if view.get("all_answered") or view.get("can_go_back"):
        if cols[2].button("Finish and hand in", type="primary"):
            sitting_command(sid, "finish")


# ---------------------------------------------------------------------------

if SID not in st.session_state:
    # A reload loses the browser session: carry on with the newest exam still being sat.
    found = sittings.resume(wb.store, student, ("exam", "evaluation"))
    if found:
        st.session_state[SID] = found["id"]

flash.show(FLASH)

sid = st.session_state.get(SID)
if not sid:
    st.title("Mock exam")
    show_choice()
else:
    try:
        current = runner.view(sid)
    except FlowError as exc:
        close_exam()
        shared.error(exc)
        st.stop()
    if current.get("held"):
        show_held(current)
    elif current["kind"] == "evaluation":
        show_evaluation(current)
    elif current["stage"] == "sitting":
        show_sitting(current)
    elif current.get("results"):
        show_results(current)
    else:
        close_exam()
        st.info("That exam could not be shown; choose an exam to start.")
        show_choice()
