"""Running an assigned paper through the real flows: window, attempts, extra time, deadline, late work,
when results are released, a teacher's edits, and the saved answers as the truth with two tabs open."""
from __future__ import annotations

import datetime as dt
import json

import pytest

from core.flows.base import FlowError
from core.flows.registry import make_runner
from core.flows.sitting import AnswerConflict
from core.school import assignments, sittings
from core.school.assignments import AssignmentError
from core.school.classes import add_student, create_class
from core.store import Store, repo
from core.store import school

NAT5 = {"subject": "Mathematics", "level": "Nat 5", "seed": "class-paper", "paper_key": "paper:class"}
EVALUATION = {"assessment_id": "MATH-FUNDAMENTALS-L1", "seed": "fund"}
CLASS = "RUN-CLASS"
MIN = 60.0


@pytest.fixture
def runner(db_path, library, clock):
    store = Store(db_path)
    yield make_runner(store, library, clock=clock)
    store.close()


@pytest.fixture
def pupils(runner) -> dict[str, str]:
    store = runner.ctx.store
    create_class(store, CLASS, "Running exams", "Mathematics", "Nat 5")
    return {name: add_student(store, CLASS, name) for name in ("Amy Pond", "Ben Nevis", "Cal Smith")}


def now(clock) -> dt.datetime:
    return assignments.utc(clock())


def assign(runner, clock, config=NAT5, opens_in: float = -MIN, closes_in: float = 7 * 24 * 3600.0,
           limit=30, **options) -> str:
    """An assignment whose window is given in seconds from the test clock's now."""
    t = now(clock)
    return assignments.create(runner.ctx.store, CLASS, "Prelim", dict(config), t + dt.timedelta(seconds=opens_in),
                              t + dt.timedelta(seconds=closes_in), limit, **options)


def start(runner, aid: str, student: str) -> str:
    kind, config = sittings.assignment_start(assignments.get_assignment(runner.ctx.store, aid))
    return runner.start(kind, student, config)


def questions(view: dict) -> list[dict]:
    return [q for s in view["exam"]["sections"] for q in s["questions"]]


def right(runner, item_id: str) -> str:
    return repo.load_item(runner.ctx.store, item_id).typed_answer


def events(runner, sid: str, type_: str) -> list[dict]:
    rows = runner.ctx.store.query("SELECT payload FROM events WHERE session_id = ? AND type = ? ORDER BY seq",
                                  [sid, type_])
    return [json.loads(r[0]) for r in rows]


def assert_nothing_released(view: dict) -> None:
    """A handed-in sitting before release: that it was handed in and when results come; nothing to learn from."""
    assert "held" in view
    for key in ("results", "answers", "remediation", "question", "readings", "time_up"):
        assert key not in view, key
    text = json.dumps(view)
    for word in ("correct_answer", "explanation", "feedback", "marks_awarded", "score_percent", "grade",
                 "stem", "sections", '"review"', '"questions"'):
        assert word not in text, word


# ---------------------------------------------------------------- window, attempts, deadline


def test_a_sitting_starts_only_in_the_window_and_within_the_attempts(runner, clock, pupils):
    amy, ben = pupils["Amy Pond"], pupils["Ben Nevis"]
    aid = assign(runner, clock, opens_in=3600, closes_in=3 * 3600, attempts_allowed=2)
    with pytest.raises(FlowError, match="opens at .* come back then"):
        start(runner, aid, amy)
    assert school.assignment_sessions(runner.ctx.store, aid) == []   # a refused start leaves no session behind
    clock.advance(3600)
    first = start(runner, aid, amy)
    runner.command(first, "submit")
    second = start(runner, aid, amy)
    assert second != first
    with pytest.raises(FlowError, match="used your 2 attempts"):
        start(runner, aid, amy)
    assert assignments.for_student(runner.ctx.store, assignments.get_assignment(runner.ctx.store, aid), amy,
                                   clock())["attempts_left"] == 0
    clock.advance(2 * 3600)
    with pytest.raises(FlowError, match="closed at .* can no longer be started"):
        start(runner, aid, ben)

    one = assign(runner, clock)   # attempts default to one
    start(runner, one, ben)
    with pytest.raises(FlowError, match="used your attempt at 'Prelim'"):
        start(runner, one, ben)


def test_the_deadline_is_the_limit_plus_extra_time_and_never_after_the_close(runner, clock, pupils):
    amy, ben, cal = pupils["Amy Pond"], pupils["Ben Nevis"], pupils["Cal Smith"]
    aid = assign(runner, clock, closes_in=20 * MIN, limit=10, extra_time={amy: 5, cal: 15})
    a, b, c = (start(runner, aid, s) for s in (amy, ben, cal))
    assert runner.view(b)["time_remaining_seconds"] == 600
    assert runner.view(a)["time_remaining_seconds"] == 900 and runner.view(a)["extra_minutes"] == 5
    assert runner.view(c)["time_remaining_seconds"] == 1200   # 25 minutes, but the window closes in 20

    # The teacher gives Ben extra time while he sits: it reaches his sitting at once.
    assignments.edit(runner.ctx.store, aid, extra_time={amy: 5, ben: 2, cal: 15}, now=clock())
    assert runner.view(b)["time_remaining_seconds"] == 720

    clock.advance(12 * MIN + 6)   # past Ben's deadline and the grace: the server marks his paper
    assert runner.view(b)["stage"] in ("marked", "reviewed")
    assert runner.state(b)["marking"]["expired"] and runner.state(b)["marking"]["late"]
    assert runner.view(a)["stage"] == "sitting" and runner.view(a)["time_remaining_seconds"] == 3 * 60 - 6


def test_closing_early_ends_the_sittings_in_progress(runner, clock, pupils):
    amy = pupils["Amy Pond"]
    aid = assign(runner, clock)
    sid = start(runner, aid, amy)
    q = questions(runner.view(sid))[0]
    runner.command(sid, "save", item_id=q["id"], answer=right(runner, q["id"]), base_version=0)
    clock.advance(MIN)
    closed = assignments.close_now(runner.ctx.store, aid, now=clock())
    assert closed["closed_early_at"] == closed["closes_at"] == now(clock)
    assert runner.view(sid)["time_remaining_seconds"] == 0
    clock.advance(10)
    state = runner.state(sid)
    assert state["stage"] in ("marked", "reviewed") and state["marking"]["expired"]
    assert state["marking"]["questions"][q["id"]]["correct"]
    with pytest.raises(FlowError, match="closed at"):
        start(runner, aid, pupils["Ben Nevis"])
    with pytest.raises(AssignmentError, match="closed already"):
        assignments.close_now(runner.ctx.store, aid, now=clock())


def test_work_sent_after_time_ran_out_is_recorded_late_and_not_counted(runner, clock, pupils):
    amy = pupils["Amy Pond"]
    aid = assign(runner, clock, limit=10)
    sid = start(runner, aid, amy)
    q1, q2 = questions(runner.view(sid))[:2]
    runner.command(sid, "save", item_id=q1["id"], answer=right(runner, q1["id"]), base_version=0)
    deadline = runner.state(sid)["started_at"] + 10 * MIN
    hhmm = assignments.clock_time(deadline)

    clock.advance(10 * MIN + 30)
    with pytest.raises(FlowError) as late_save:
        runner.command(sid, "save", item_id=q2["id"], answer=right(runner, q2["id"]), base_version=0)
    assert str(late_save.value) == f"Time is up: your answers saved by {hhmm} were marked."
    with pytest.raises(FlowError, match=f"^Time is up: your answers saved by {hhmm} were marked.$"):
        runner.command(sid, "submit")

    late = events(runner, sid, "late")
    assert [(e["action"], e.get("item_id"), e.get("answer")) for e in late] == \
        [("save", q2["id"], right(runner, q2["id"])), ("submit", None, None)]
    assert all(e["at"] > e["deadline"] == deadline for e in late)
    state = runner.state(sid)
    assert [e["action"] for e in state["late"]] == ["save", "submit"]
    marking = state["marking"]
    assert marking["late"] is True and marking["expired"] is True and marking["deadline"] == deadline
    assert marking["questions"][q1["id"]]["correct"] and not marking["questions"][q2["id"]]["correct"]
    assert marking["questions"][q2["id"]]["answer"] in ("", None)
    # Released on close; once closed, the student sees the results and the time-up sentence.
    assignments.close_now(runner.ctx.store, aid, now=clock())
    view = runner.view(sid)
    assert view["results"]["late"] and view["time_up"] == f"Time is up: your answers saved by {hhmm} were marked."


def test_a_paper_handed_in_on_time_is_not_late(runner, clock, pupils):
    aid = assign(runner, clock, release="on_submit")
    sid = start(runner, aid, pupils["Amy Pond"])
    clock.advance(5 * MIN)
    view = runner.command(sid, "submit")
    assert view["results"]["late"] is False and not view["results"]["expired"] and "time_up" not in view
    with pytest.raises(FlowError, match="^this exam has been submitted; answers can no longer change$"):
        runner.command(sid, "save", item_id=questions(runner.view(sid))[0]["id"], answer="1")
    assert events(runner, sid, "late") == []


# ---------------------------------------------------------------- release rules


@pytest.mark.parametrize("policy", ["on_submit", "on_close", "manual"])
def test_exam_results_are_held_until_released(runner, clock, pupils, policy):
    amy = pupils["Amy Pond"]
    aid = assign(runner, clock, closes_in=2 * 3600, release=policy)
    sid = start(runner, aid, amy)
    q = questions(runner.view(sid))[0]
    runner.command(sid, "save", item_id=q["id"], answer=right(runner, q["id"]), base_version=0)
    submitted = runner.command(sid, "submit")
    if policy == "on_submit":
        assert submitted["results"]["questions"][q["id"]]["correct"] and "remediation" in submitted
        return
    for view in (submitted, runner.view(sid)):
        assert_nothing_released(view)
        held = view["held"]
        assert held["submitted_at"] == clock() and held["late"] is False and held["release"] == policy
        assert view["exam"]["subject"] == "Mathematics" and view["stage"] in ("marked", "reviewed")
    closes = assignments.get_assignment(runner.ctx.store, aid)["closes_at"]
    if policy == "on_close":
        assert held["message"] == f"Results are released when the assignment closes, at {assignments.moment(closes)}."
        assert held["releases_at"] == assignments.epoch(closes)
    else:
        assert held["message"] == "Results are released when your teacher releases them."
        assert held["releases_at"] is None
    # Marked all the same: the teacher has the marks before release.
    assert runner.state(sid)["marking"]["questions"][q["id"]]["correct"]
    assert sittings.past_exams(runner.ctx.store, amy, now=clock())[0]["score"] == "results not released yet"

    clock.advance(2 * 3600)   # the window closes
    if policy == "manual":
        assert_nothing_released(runner.view(sid))
        assignments.release_results(runner.ctx.store, aid, by="teacher", now=clock())
    view = runner.view(sid)
    assert "held" not in view and view["results"]["questions"][q["id"]]["correct"]
    assert view["results"]["questions"][q["id"]]["correct_answer"] and "remediation" in view
    assert "/" in sittings.past_exams(runner.ctx.store, amy, now=clock())[0]["score"]


def test_a_teacher_may_release_early_and_a_students_own_mock_releases_on_submit(runner, clock, pupils):
    amy = pupils["Amy Pond"]
    aid = assign(runner, clock)   # on_close by default
    assert assignments.get_assignment(runner.ctx.store, aid)["release_policy"] == "on_close"
    sid = start(runner, aid, amy)
    assert_nothing_released(runner.command(sid, "submit"))
    assignments.release_results(runner.ctx.store, aid, now=clock())
    assert "results" in runner.view(sid) and runner.view(sid)["assigned"]

    own = runner.start("exam", amy, {"subject": "Mathematics", "level": "Nat 5", "seed": 3})
    view = runner.command(own, "submit")
    assert "held" not in view and "results" in view and "remediation" in view
    assert not view["assigned"]   # the student's own: the page draws the next one ahead


def answer_every_question(runner, sid: str) -> None:
    view = runner.view(sid)
    while view["stage"] == "active":
        q = view["question"]
        item = repo.load_item(runner.ctx.store, q["id"])
        view = runner.command(sid, "answer", item_id=q["id"],
                              answer=item.options[item.correct_index] if item.options else item.typed_answer)


@pytest.mark.parametrize("policy", ["on_submit", "on_close", "manual"])
def test_evaluation_results_are_held_until_released(runner, clock, pupils, policy):
    amy = pupils["Amy Pond"]
    aid = assign(runner, clock, config=EVALUATION, closes_in=3600, limit=None, release=policy)
    sid = start(runner, aid, amy)
    answer_every_question(runner, sid)
    view = runner.view(sid)
    assert view["stage"] == "completed"
    if policy == "on_submit":
        assert view["results"]["items_correct"] == 20 and view["results"]["late"] is False
        return
    assert_nothing_released(view)
    assert view["held"]["submitted_at"] == clock() and view["title"]
    assert runner.state(sid)["results"]["items_correct"] == 20
    clock.advance(3600)
    if policy == "manual":
        assert_nothing_released(runner.view(sid))
        assignments.release_results(runner.ctx.store, aid, now=clock())
    assert runner.view(sid)["results"]["items_correct"] == 20


def test_an_evaluation_answer_after_time_ran_out_is_recorded_late(runner, clock, pupils):
    aid = assign(runner, clock, config=EVALUATION, limit=5, release="on_submit")
    sid = start(runner, aid, pupils["Ben Nevis"])
    q = runner.view(sid)["question"]
    clock.advance(5 * MIN + 10)
    with pytest.raises(FlowError, match="^Time is up: your answers saved by .* were marked.$"):
        runner.command(sid, "answer", item_id=q["id"], answer="3")
    view = runner.view(sid)
    assert view["results"]["expired"] and view["results"]["late"] and view["time_up"].startswith("Time is up")
    assert [(e["action"], e["answer"]) for e in events(runner, sid, "late")] == [("answer", "3")]


# ---------------------------------------------------------------- a teacher's edits


def test_edits_are_checked_with_clear_messages(runner, clock, pupils):
    store = runner.ctx.store
    aid = assign(runner, clock)
    a = assignments.get_assignment(store, aid)
    with pytest.raises(AssignmentError, match="must close after it opens"):
        assignments.edit(store, aid, closes_at=a["opens_at"] - dt.timedelta(minutes=1))
    with pytest.raises(AssignmentError, match=r"cannot be negative \(Amy Pond: -5 minutes\)"):
        assignments.edit(store, aid, extra_time={pupils["Amy Pond"]: -5})
    with pytest.raises(AssignmentError, match="OTHER:zed is not on the class list of RUN-CLASS"):
        assignments.edit(store, aid, extra_time={"OTHER:zed": 10})
    with pytest.raises(AssignmentError, match="Attempts allowed must be a whole number from 1"):
        assignments.edit(store, aid, attempts_allowed=0)
    with pytest.raises(AssignmentError, match="'on_submit', 'on_close' or 'manual'"):
        assignments.edit(store, aid, release="sometime")
    with pytest.raises(AssignmentError, match="time limit must be more than 0"):
        assignments.edit(store, aid, time_limit_minutes=0)
    with pytest.raises(AssignmentError, match="no assignment asg_nope"):
        assignments.edit(store, "asg_nope", attempts_allowed=2)
    assert assignments.get_assignment(store, aid) == a   # nothing changed half-way

    later = a["closes_at"] + dt.timedelta(days=1)
    edited = assignments.edit(store, aid, closes_at=later, time_limit_minutes=0.15, attempts_allowed=3,
                              release="manual", extra_time={pupils["Amy Pond"]: 7.5, pupils["Ben Nevis"]: 0})
    assert (edited["closes_at"], edited["time_limit_minutes"], edited["attempts_allowed"], edited["release_policy"],
            edited["extra_time"]) == (later, 0.15, 3, "manual", {pupils["Amy Pond"]: 7.5})
    assert edited["opens_at"] == a["opens_at"] and edited["updated_at"] is not None

    assignments.delete(store, aid, by="teacher", now=clock())
    with pytest.raises(AssignmentError, match="was deleted on .* can no longer be changed"):
        assignments.edit(store, aid, attempts_allowed=2)
    with pytest.raises(AssignmentError, match="deleted already"):
        assignments.delete(store, aid)
    with pytest.raises(AssignmentError, match="has not opened yet"):
        assignments.close_now(store, assign(runner, clock, opens_in=3600), now=clock())


def test_deleting_keeps_the_students_work_and_stops_new_sittings(runner, clock, pupils):
    store = runner.ctx.store
    amy, ben = pupils["Amy Pond"], pupils["Ben Nevis"]
    aid = assign(runner, clock, release="on_submit", attempts_allowed=2)
    sid = start(runner, aid, amy)
    q = questions(runner.view(sid))[0]
    runner.command(sid, "save", item_id=q["id"], answer=right(runner, q["id"]), base_version=0)
    runner.command(sid, "submit")
    responses = store.query("SELECT count(*) FROM responses WHERE session_id = ?", [sid])[0][0]
    assert responses > 0

    assignments.delete(store, aid, by="teacher", now=clock())
    gone = assignments.get_assignment(store, aid)
    assert gone["deleted_at"] == now(clock) and gone["deleted_by"] == "teacher"
    assert [a["id"] for a in school.assignments_for_class(store, CLASS)] == []
    assert [a["id"] for a in school.assignments_for_class(store, CLASS, include_deleted=True)] == [aid]
    assert sittings.open_assignments(store, ben, now(clock)) == []
    with pytest.raises(FlowError, match="withdrawn by your teacher"):
        start(runner, aid, amy)
    # Kept and still reported: the session, its responses, the student's results and the class results.
    assert [s["id"] for s in school.assignment_sessions(store, aid)] == [sid]
    assert store.query("SELECT count(*) FROM responses WHERE session_id = ?", [sid])[0][0] == responses
    assert runner.view(sid)["results"]["questions"][q["id"]]["correct"]
    assert sid in {r["session_id"] for r in school.class_results(store, CLASS)}


def test_results_released_follows_the_policy(runner, clock, pupils):
    store = runner.ctx.store
    t = now(clock)
    a = assignments.get_assignment(store, assign(runner, clock, closes_in=3600))
    assert not assignments.results_released(store, a, t)
    assert assignments.results_released(store, a, t + dt.timedelta(hours=1))
    assert assignments.results_released(store, a["id"], clock() + 3600)   # epoch seconds and ids work too
    m = assignments.get_assignment(store, assign(runner, clock, closes_in=3600, release="manual"))
    assert not assignments.results_released(store, m, t + dt.timedelta(days=30))
    m = assignments.release_results(store, m["id"], now=t)
    assert assignments.results_released(store, m, t)
    s = assignments.get_assignment(store, assign(runner, clock, release="on_submit"))
    assert assignments.results_released(store, s, t)


def test_the_students_list_shows_attempts_and_when_results_come(runner, clock, pupils):
    amy = pupils["Amy Pond"]
    aid = assign(runner, clock, attempts_allowed=2, closes_in=3600)
    listed = sittings.open_assignments(runner.ctx.store, amy, now(clock))
    assert [(a["id"], a["attempts_left"], a["start_problem"], a["session"]) for a in listed] == [(aid, 2, None, None)]
    assert listed[0]["release_note"].startswith("Results are released when the assignment closes, at ")
    sid = start(runner, aid, amy)
    runner.command(sid, "submit")
    listed = sittings.open_assignments(runner.ctx.store, amy, now(clock))
    assert listed[0]["attempts_left"] == 1 and listed[0]["session"]["id"] == sid


# ---------------------------------------------------------------- the saved answers are the truth


def test_a_save_from_a_stale_tab_is_a_conflict_and_submit_marks_what_is_saved(runner, clock, pupils):
    sid = start(runner, assign(runner, clock, release="on_submit"), pupils["Amy Pond"])
    tab_a = runner.view(sid)
    tab_b = runner.view(sid)
    q = next(q for q in questions(tab_a) if not q["options"])
    key = right(runner, q["id"])
    assert tab_a["versions"] == {} and tab_b["versions"] == {}

    after = runner.command(sid, "save", item_id=q["id"], answer="1", base_version=tab_a["versions"].get(q["id"], 0))
    assert after["versions"][q["id"]] == 1
    # Tab B never saw that save: its different answer is refused, carrying the newer one.
    with pytest.raises(AnswerConflict) as conflict:
        runner.command(sid, "save", item_id=q["id"], answer=key, base_version=tab_b["versions"].get(q["id"], 0))
    assert conflict.value.conflict == {"item_id": q["id"], "number": q.get("label") or q["number"], "saved_answer": "1",
                                       "saved_version": 1, "your_answer": key}
    assert "changed in another tab" in str(conflict.value)
    assert runner.view(sid)["answers"][q["id"]] == "1"
    # The same answer from a stale tab is no conflict (nothing to choose).
    runner.command(sid, "save", item_id=q["id"], answer="1", base_version=0)
    # The student chooses "Use what I typed here": saved against the version now seen.
    chosen = runner.command(sid, "save", item_id=q["id"], answer=key, base_version=1)
    assert chosen["versions"][q["id"]] == 2 and chosen["answers"][q["id"]] == key

    # Tab A hands in with its stale copy: the newer saved answer stands and is marked.
    results = runner.command(sid, "submit", answers={q["id"]: "1"})["results"]
    assert results["questions"][q["id"]]["correct"] and results["questions"][q["id"]]["answer"] == key
    assert len(events(runner, sid, "saved")) == 2


def test_submit_fills_only_unsaved_questions_from_a_callers_answers(runner, clock, pupils):
    sid = runner.start("exam", pupils["Ben Nevis"], {"subject": "Mathematics", "level": "Nat 5", "seed": 8})
    q1, q2 = [q for q in questions(runner.view(sid)) if not q["options"]][:2]
    runner.command(sid, "save", item_id=q1["id"], answer=right(runner, q1["id"]))   # no version: last save wins
    results = runner.command(sid, "submit", answers={q1["id"]: "wrong", q2["id"]: right(runner, q2["id"])},
                             base_versions={q2["id"]: 0})["results"]
    assert results["questions"][q1["id"]]["correct"] and results["questions"][q2["id"]]["correct"]


def test_a_reload_shows_the_saved_answers_and_versions(runner, library, clock, pupils):
    sid = start(runner, assign(runner, clock), pupils["Cal Smith"])
    q = questions(runner.view(sid))[0]
    runner.command(sid, "save", item_id=q["id"], answer="4", base_version=0)
    runner.command(sid, "save", item_id=q["id"], answer="5", base_version=1)
    other = make_runner(runner.ctx.store, library, clock=clock)   # another process, as after a restart
    view = other.view(sid)
    assert view["answers"][q["id"]] == "5" and view["versions"][q["id"]] == 2
    with pytest.raises(FlowError, match="base_version must be the whole number"):
        other.command(sid, "save", item_id=q["id"], answer="6", base_version=-1)
