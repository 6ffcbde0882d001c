"""The gradebook through real sittings: a real DuckDB file, the real Runner, papers answered and handed in.

Covers the student × question table (totals, grades, statuses, attempts, lateness), its distribution and
section results, CSV and Parquet exports, a student's script, a teacher's override (validation, history,
totals, responses, what the student sees), re-marking after a key is corrected (exactly the affected marks
change; overrides stay), evaluation sittings in the gradebook, the analytics and the student's past exams,
and remediation listing only the questions not fully right.
"""
from __future__ import annotations

import dataclasses
import io
import re
import types
from pathlib import Path

import pandas as pd
import pytest

from core.analytics import reports
from core.exams import gradebook
from core.exams.gradebook import GradebookError
from core.flows.marks import grade_for
from core.flows.registry import make_runner
from core.items import review
from core.items.answer_keys import key_problem
from core.marking import MarkingSpec, mark_answer
from core.school import assignments, sittings
from core.school.classes import add_student, create_class
from core.store import Store, repo, sessions
from core.store.export import BOM
from tests.conftest import BACKENDS, backend_target

CLASS = "S4-A"
NAMES = ["Amy Pond", "Ben Cole", "Cal Dee", "Dee Eve"]
NAT5 = {"subject": "Mathematics", "level": "Nat 5"}
EVALUATION = {"assessment_id": "MATH-FUNDAMENTALS-L1", "seed": "1"}


class Clock:
    def __init__(self, t: float = 1_700_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture(params=BACKENDS)
def env(request, tmp_path: Path, library):
    store = Store(backend_target(request, tmp_path))
    clock = Clock()
    runner = make_runner(store, library, clock=clock)
    create_class(store, CLASS, "S4 maths", "Mathematics", "Nat 5")
    ids = {name: add_student(store, CLASS, name) for name in NAMES}
    yield types.SimpleNamespace(store=store, runner=runner, clock=clock, ids=ids, library=library)
    store.close()


def assign(env, config: dict, **rules) -> str:
    now = env.clock()
    rules.setdefault("release", "on_submit")
    return assignments.create(env.store, CLASS, rules.pop("title", "Prelim"), dict(config),
                              assignments.utc(now - 3600), assignments.utc(now + 7 * 86400),
                              rules.pop("time_limit_minutes", None), **rules)


def sit(env, aid: str, name: str) -> str:
    kind, config = sittings.assignment_start(assignments.get_assignment(env.store, aid))
    return env.runner.start(kind, env.ids[name], config)


def questions(env, sid: str) -> list[dict]:
    return [q for s in env.runner.state(sid)["package"]["sections"] for q in s["questions"]]


def key(env, item_id: str) -> str:
    return repo.load_item(env.store, item_id).typed_answer


def hand_in(env, sid: str, right: int, wrong: dict | None = None) -> dict:
    """Answer the first ``right`` questions with their keys (``wrong``: item id -> answer instead), hand in."""
    answers = {q["id"]: key(env, q["id"]) for q in questions(env, sid)[:right]}
    answers.update(wrong or {})
    env.runner.command(sid, "submit", answers=answers)
    return env.runner.state(sid)["marking"]


def col(env, sid: str, number: int) -> str:
    """The gradebook's column for an answer slot: the question as printed ("Q5(a)")."""
    return "Q" + next(q["label"] for q in questions(env, sid) if q["number"] == number)


def row(gb, name: str) -> dict:
    return gb.table.set_index("Student").loc[name].to_dict()


def response(env, sid: str, item_id: str) -> tuple:
    return env.store.query("SELECT correct, score, max_score FROM responses WHERE session_id = ? AND item_id = ?",
                           [sid, item_id])[0]


# ---------------------------------------------------------------- the table


def test_table_has_every_student_with_marks_totals_grades_and_status(env):
    aid = assign(env, NAT5)
    amy, ben, cal = sit(env, aid, "Amy Pond"), sit(env, aid, "Ben Cole"), sit(env, aid, "Cal Dee")
    amy_marking = hand_in(env, amy, right=12)
    ben_marking = hand_in(env, ben, right=4)
    gb = gradebook.build(env.runner, aid)

    assert gb.kind == "exam" and list(gb.table["Student"]) == NAMES
    statuses = dict(zip(gb.table["Student"], gb.table["Status"]))
    assert statuses == {"Amy Pond": "Handed in", "Ben Cole": "Handed in", "Cal Dee": "In progress",
                        "Dee Eve": "Not started"}
    columns = [q["column"] for q in gb.questions]
    # named as printed: "Q5(a)" for a question with parts
    assert columns == [f"Q{q['label']}" for q in questions(env, amy)]
    assert any("(a)" in c for c in columns) and len(set(columns)) == len(columns)
    for name, marking in (("Amy Pond", amy_marking), ("Ben Cole", ben_marking)):
        r = row(gb, name)
        per_question = {col(env, amy, q["number"]): q["marks_awarded"] for q in marking["questions"].values()}
        assert {c: r[c] for c in columns} == per_question
        assert r["Marks"] == sum(per_question.values()) == marking["marks_awarded"]
        assert r["Out of"] == marking["total_marks"] == sum(q["marks"] for q in gb.questions)
        assert r["Percent"] == round(100 * r["Marks"] / r["Out of"], 1)
        assert r["Grade"] == grade_for(r["Percent"]) and r["Attempt counted"] == "1" and not r["Late"]
    assert amy_marking["marks_awarded"] > ben_marking["marks_awarded"] > 0
    for name in ("Cal Dee", "Dee Eve"):
        r = row(gb, name)
        assert pd.isna(r["Marks"]) and pd.isna(r[columns[0]]) and pd.isna(r["Grade"])

    # The distribution: every SQA band listed, two students in all; the histogram counts the same two.
    assert list(gb.grades["Grade"]) == ["A", "B", "C", "D", "No award"]
    assert gb.grades["Students"].sum() == 2 == gb.histogram["Students"].sum() == gb.handed_in
    for name in ("Amy Pond", "Ben Cole"):
        r = row(gb, name)
        assert gb.grades.set_index("Grade").loc[r["Grade"], "Students"] >= 1
        band = gb.histogram["Percent"][min(int(r["Percent"] // 10), 9)]
        assert gb.histogram.set_index("Percent").loc[band, "Students"] >= 1

    # Section results: per student as marked, and summarised per section.
    amy_sections = gb.sections[gb.sections["Student"] == "Amy Pond"]
    assert list(amy_sections["Percent"]) == [s["percent"] for s in amy_marking["sections"]]
    summary = gb.section_summary.set_index("Section")
    for s_amy, s_ben in zip(amy_marking["sections"], ben_marking["sections"]):
        assert summary.loc[s_amy["section"], "Students"] == 2
        assert summary.loc[s_amy["section"], "Mean %"] == round((s_amy["percent"] + s_ben["percent"]) / 2, 1)
    assert [s["label"] for s in gb.scripts] == ["Amy Pond", "Ben Cole"] and all(s["counted"] for s in gb.scripts)
    assert cal not in {s["session_id"] for s in gb.scripts}


def test_exports_read_back_with_pandas(env, tmp_path):
    aid = assign(env, NAT5, title="=Prelim (S4)")
    hand_in(env, sit(env, aid, "Amy Pond"), right=10)
    gb = gradebook.build(env.runner, aid)

    raw = gradebook.to_csv(gb)
    assert raw.startswith(BOM.encode("utf-8"))
    back = pd.read_csv(io.BytesIO(raw), encoding="utf-8-sig")
    assert list(back.columns) == list(gb.table.columns)
    assert list(back["Student"]) == NAMES and list(back["Status"]) == list(gb.table["Status"])
    first = gb.questions[0]["column"]
    assert back["Marks"].iloc[0] == gb.table["Marks"].iloc[0] and back[first].iloc[0] == gb.table[first].iloc[0]

    parquet = pd.read_parquet(io.BytesIO(gradebook.to_parquet(gb)))
    assert list(parquet.columns) == list(gb.table.columns)
    assert parquet["Marks"].iloc[0] == gb.table["Marks"].iloc[0] and parquet["Student"].tolist() == NAMES

    written = gradebook.export(gb, tmp_path / "out")
    assert pd.read_csv(written["csv"], encoding="utf-8-sig")["Grade"].iloc[0] == gb.table["Grade"].iloc[0]
    assert pd.read_parquet(written["parquet"])["Percent"].iloc[0] == gb.table["Percent"].iloc[0]
    assert gradebook.filename(gb, "csv") == "gradebook-prelim--s4.csv"


def test_with_several_attempts_the_latest_handed_in_counts(env):
    aid = assign(env, NAT5, attempts_allowed=3)
    first = sit(env, aid, "Amy Pond")
    hand_in(env, first, right=15)
    env.clock.t += 3600
    second = sit(env, aid, "Amy Pond")
    latest = hand_in(env, second, right=3)
    gb = gradebook.build(env.runner, aid)
    r = row(gb, "Amy Pond")
    assert r["Attempt counted"] == "2 of 2 (latest handed in)" and r["Marks"] == latest["marks_awarded"]
    assert [(s["label"], s["counted"]) for s in gb.scripts] == [("Amy Pond · attempt 1 of 2", False),
                                                                ("Amy Pond · attempt 2 of 2", True)]

    env.clock.t += 3600
    sit(env, aid, "Amy Pond")   # a third attempt, not handed in: the second still counts
    r = row(gradebook.build(env.runner, aid), "Amy Pond")
    assert r["Attempt counted"] == "2 of 3 (latest handed in)" and r["Marks"] == latest["marks_awarded"]
    assert r["Status"] == "Handed in; another attempt in progress"


def test_time_running_out_is_flagged_late(env):
    aid = assign(env, NAT5, time_limit_minutes=30)
    sid = sit(env, aid, "Ben Cole")
    first = questions(env, sid)[0]
    env.runner.command(sid, "save", item_id=first["id"], answer=key(env, first["id"]))
    env.clock.t += 31 * 60
    gb = gradebook.build(env.runner, aid)   # reading the gradebook marks a sitting whose time is up
    r = row(gb, "Ben Cole")
    marking = env.runner.state(sid)["marking"]
    assert marking["expired"] and r["Marks"] == marking["marks_awarded"] > 0
    assert r["Late"] and r["Status"] == "Handed in late (time ran out)"
    assert gradebook.script(env.runner, sid)["late"]


def test_a_deleted_assignment_stays_reportable(env):
    aid = assign(env, NAT5, title="Old prelim")
    hand_in(env, sit(env, aid, "Amy Pond"), right=5)
    assignments.delete(env.store, aid, by="teacher", now=env.clock())
    listed = {a["id"]: a for a in gradebook.class_assignments(env.store, CLASS)}
    assert aid in listed and gradebook.assignment_label(listed[aid]).endswith("· deleted")
    assert row(gradebook.build(env.runner, aid), "Amy Pond")["Marks"] > 0
    with pytest.raises(GradebookError, match="There is no assignment asg_nope"):
        gradebook.build(env.runner, "asg_nope")


# ---------------------------------------------------------------- a script


def test_script_shows_answers_beside_keys_with_the_markers_reading(env):
    aid = assign(env, NAT5)
    sid = sit(env, aid, "Amy Pond")
    qs = questions(env, sid)
    wrong = {qs[1]["id"]: "98765"}
    stepped = [q for q in qs[2:] if q.get("steps") and not q.get("options")]   # not the two checked below
    if stepped:   # a question answered step by step: only the final answer, so the method marks are missed
        final = str(stepped[0]["steps"][-1]["index"])
        wrong[stepped[0]["id"]] = {final: key(env, stepped[0]["id"])}
    marking = hand_in(env, sid, right=len(qs), wrong=wrong)
    sc = gradebook.script(env.runner, sid)
    assert sc["name"] == "Amy Pond" and sc["marks_awarded"] == marking["marks_awarded"]
    by_id = {q["item_id"]: q for q in sc["questions"]}
    assert [q["number"] for q in sc["questions"]] == sorted(q["number"] for q in sc["questions"])
    right = by_id[qs[0]["id"]]
    item = repo.load_item(env.store, qs[0]["id"])
    assert right["stem"] == item.stem and right["correct_answer"] == item.correct_answer
    assert right["answer"] == key(env, qs[0]["id"]) and right["marks_awarded"] == right["marks"] == qs[0]["marks"]
    assert right["correct"] and (right["read_as"] or qs[0]["options"]) and right["section"] == qs[0]["section"]
    miss = by_id[qs[1]["id"]]
    assert miss["answer"] == "98765" and miss["marks_awarded"] == 0 and not miss["correct"]
    assert miss["read_as"] == "98765" or qs[1]["options"]
    assert miss["feedback"] and miss["overrides"] == [] and miss["override"] is None
    if stepped:
        steps = by_id[stepped[0]["id"]]["steps"]
        assert len(steps) == len(stepped[0]["steps"]) and all("awarded" in s and "marks" in s for s in steps)
    in_progress = sit(env, aid, "Ben Cole")
    with pytest.raises(GradebookError, match="Ben Cole has not handed this in yet"):
        gradebook.script(env.runner, in_progress)


# ---------------------------------------------------------------- overrides


def test_override_is_validated_kept_in_history_and_moves_the_totals(env):
    aid = assign(env, NAT5)
    sid = sit(env, aid, "Amy Pond")
    qs = questions(env, sid)
    target = qs[0]
    with pytest.raises(GradebookError, match="has not been handed in and marked yet"):
        gradebook.override(env.runner, sid, target["id"], 1, "too early")
    before = hand_in(env, sid, right=len(qs) // 2)
    out_of = float(target["marks"])
    for marks, reason, message in ((out_of + 1, "x", f"is worth {out_of:g} mark"), (-1, "x", "give a mark from 0"),
                                   (1, "   ", rf"Say why question {re.escape(target['label'])} gets 1 mark"),
                                   ("lots", "x", "must be a number from 0"), (None, "x", "must be a number from 0")):
        with pytest.raises(GradebookError, match=message):
            gradebook.override(env.runner, sid, target["id"], marks, reason)
    with pytest.raises(GradebookError, match="is not a question of this exam"):
        gradebook.override(env.runner, sid, "itm_nope", 1, "x")
    assert [e["type"] for e in sessions.load_events(env.store, sid)].count("overridden") == 0

    sc = gradebook.override(env.runner, sid, target["id"], out_of - 1, "Working not shown", teacher="Ms Reid")
    after = env.runner.state(sid)["marking"]
    q = after["questions"][target["id"]]
    assert q["marks_awarded"] == out_of - 1 and not q["correct"] and q["marker_marks"] == out_of
    assert q["override"] == q["overrides"][0] and q["override"]["reason"] == "Working not shown"
    assert q["override"]["teacher"] == "Ms Reid" and q["override"]["from"] == out_of and q["override"]["at"] == env.clock()
    assert after["marks_awarded"] == before["marks_awarded"] - 1
    assert after["percent"] == round(100 * after["marks_awarded"] / after["total_marks"], 1)
    assert after["grade"] == grade_for(after["percent"])
    section = next(s for s in after["sections"] if s["section"] == target["section"])
    old_section = next(s for s in before["sections"] if s["section"] == target["section"])
    assert section["marks_awarded"] == old_section["marks_awarded"] - 1
    assert section["percent"] == round(100 * section["marks_awarded"] / section["marks"], 1)
    assert response(env, sid, target["id"]) == (False, out_of - 1, out_of)   # what the analytics read
    assert sc["questions"][0]["override"]["to"] == out_of - 1

    env.clock.t += 60
    gradebook.override(env.runner, sid, target["id"], out_of, "Method seen on the extra sheet", teacher="Ms Reid")
    q = env.runner.state(sid)["marking"]["questions"][target["id"]]
    assert [(o["from"], o["to"]) for o in q["overrides"]] == [(out_of, out_of - 1), (out_of - 1, out_of)]
    assert q["correct"] and env.runner.state(sid)["marking"]["marks_awarded"] == before["marks_awarded"]
    assert response(env, sid, target["id"]) == (True, out_of, out_of)
    lines = gradebook.override_lines(q)
    assert len(lines) == 2 and "Ms Reid" in lines[1] and "Method seen on the extra sheet" in lines[1]
    assert row(gradebook.build(env.runner, aid), "Amy Pond")["Overridden"] == col(env, sid, target["number"])

    # The student's results carry the new mark and the reason (this assignment releases them on hand-in).
    mine = env.runner.view(sid)["results"]["questions"][target["id"]]
    assert mine["marks_awarded"] == out_of and mine["override"]["reason"] == "Method seen on the extra sheet"
    assert gradebook.override_note(mine) == (f"Your teacher changed this mark from {out_of - 1:g} to {out_of:g} "
                                             f"out of {out_of:g}: Method seen on the extra sheet")
    # ...and the analytics read the marks as they stand.
    exam = reports.exam_report(env.store, CLASS)["results"]
    assert exam["marks_awarded"].tolist() == [before["marks_awarded"]]


def test_a_question_the_marker_could_not_mark_can_be_marked_by_the_teacher(env):
    aid = assign(env, NAT5)
    sid = sit(env, aid, "Amy Pond")
    qs = questions(env, sid)
    broken = next(q for q in qs if not q["options"])
    answers = {q["id"]: key(env, q["id"]) for q in qs}
    # A stored key the marker cannot read (as an item approved before keys were checked could have).
    env.store.write(lambda cur: cur.execute("UPDATE items SET answer_key = 'x +* 2', evaluation = ? WHERE id = ?",
                                            ['{"method": "algebraic_equivalence"}', broken["id"]]))
    env.runner.command(sid, "submit", answers=answers)
    before = env.runner.state(sid)["marking"]
    assert before["questions"][broken["id"]]["unmarked"] and before["total_marks"] == sum(q["marks"] for q in qs) - broken["marks"]
    assert env.store.query("SELECT count(*) FROM responses WHERE session_id = ? AND item_id = ?", [sid, broken["id"]]) == [(0,)]
    assert pd.isna(row(gradebook.build(env.runner, aid), "Amy Pond")[col(env, sid, broken["number"])])

    with pytest.raises(GradebookError, match=f"is worth {broken['marks']:g} mark"):
        gradebook.override(env.runner, sid, broken["id"], broken["marks"] + 1, "Marked by hand")
    gradebook.override(env.runner, sid, broken["id"], 1, "Marked by hand: the method is right")
    after = env.runner.state(sid)["marking"]
    q = after["questions"][broken["id"]]
    assert "unmarked" not in q and q["marker_problem"] and q["marks"] == broken["marks"] and q["marks_awarded"] == 1
    assert q["override"]["from"] is None and q["marker_marks"] is None
    assert after["total_marks"] == before["total_marks"] + broken["marks"]
    assert after["marks_awarded"] == before["marks_awarded"] + 1
    assert after["percent"] == round(100 * after["marks_awarded"] / after["total_marks"], 1)
    assert "has since been marked by the teacher" in after["notes"][-1]
    assert response(env, sid, broken["id"]) == (broken["marks"] == 1, 1.0, float(broken["marks"]))
    assert gradebook.override_note(q) == (f"Your teacher changed this mark to 1 out of {broken['marks']:g}: "
                                          "Marked by hand: the method is right")
    assert row(gradebook.build(env.runner, aid), "Amy Pond")[col(env, sid, broken["number"])] == 1


# ---------------------------------------------------------------- re-marking


def _numeric_question(env, sid: str) -> tuple[dict, str]:
    """The first typed question with a number for its key that could take another, clearly different number as its
    key (the old answer then wrong: no tolerance or accepted alternative keeps it); returns it and that other key."""
    seen = []
    for q in questions(env, sid):
        item = repo.load_item(env.store, q["id"])
        if q["options"] or item.units:
            seen.append(f"{q['id']}: {'options' if q['options'] else 'units'}")
            continue
        try:
            value = float(item.correct_answer)
        except ValueError:
            seen.append(f"{q['id']}: key {item.correct_answer!r} is not a number")
            continue
        for other in (f"{value + 1:g}", f"{abs(value) * 2 + 3:g}", f"{abs(value) * 10 + 17:g}"):
            changed = dataclasses.replace(item, correct_answer=other)
            problem = key_problem(changed)
            if problem is None and not mark_answer(MarkingSpec.from_item(changed), key(env, q["id"])).correct:
                return q, other
            seen.append(f"{q['id']}: key {item.correct_answer!r} -> {other}: {problem or 'old answer still right'}")
    pytest.fail("no typed question with a numeric key on the paper:\n" + "\n".join(seen))


def test_remark_after_a_key_is_corrected_changes_exactly_the_affected_marks(env):
    aid = assign(env, NAT5)
    amy, ben, cal = sit(env, aid, "Amy Pond"), sit(env, aid, "Ben Cole"), sit(env, aid, "Cal Dee")
    n = len(questions(env, amy))
    question, new_key = _numeric_question(env, amy)
    qid, out_of, number, label = question["id"], float(question["marks"]), question["number"], question["label"]
    hand_in(env, amy, right=n)                            # the key as printed
    hand_in(env, ben, right=n, wrong={qid: new_key})      # what the key should have been
    hand_in(env, cal, right=n)
    kept = out_of - 1 if out_of > 1 else 0.0              # the teacher had lowered Cal's mark, with a reason
    gradebook.override(env.runner, cal, qid, kept, "Copied from a neighbour", teacher="Ms Reid")
    assert gradebook.remark(env.runner, aid) == []        # nothing changed yet: nothing to record
    assert "remarked" not in [e["type"] for e in sessions.load_events(env.store, amy)]
    before = {sid: env.runner.state(sid)["marking"] for sid in (amy, ben, cal)}
    assert before[ben]["questions"][qid]["marks_awarded"] == 0

    item = repo.load_item(env.store, qid)
    review.edit_and_approve(env.store, qid, item.stem, new_key, item.explanation, confirm_key_change=True,
                            reason="The printed key was wrong", library=env.library)
    changes = gradebook.remark(env.runner, aid, teacher="Ms Reid")
    assert [(c["Student"], c["Question"], c["Old"], c["New"]) for c in changes] == [
        ("Amy Pond", label, out_of, 0.0), ("Ben Cole", label, 0.0, out_of), ("Cal Dee", label, kept, kept)]
    assert "Marked again" in changes[0]["Note"] and "overrides the marker" in changes[2]["Note"]
    after = {sid: env.runner.state(sid)["marking"] for sid in (amy, ben, cal)}
    for sid in (amy, ben, cal):   # every other question keeps its marks
        for other, q in after[sid]["questions"].items():
            if other != qid:
                assert q["marks_awarded"] == before[sid]["questions"][other]["marks_awarded"]
    assert after[amy]["marks_awarded"] == before[amy]["marks_awarded"] - out_of
    assert after[ben]["marks_awarded"] == before[ben]["marks_awarded"] + out_of
    assert after[cal]["marks_awarded"] == before[cal]["marks_awarded"]
    assert after[amy]["questions"][qid]["correct_answer"] == new_key
    assert after[amy]["remarks"][-1]["changes"] == 1 and after[amy]["remarks"][-1]["teacher"] == "Ms Reid"
    cal_q = after[cal]["questions"][qid]
    assert cal_q["marks_awarded"] == kept and cal_q["marker_marks"] == 0.0 and len(cal_q["overrides"]) == 1
    assert response(env, amy, qid) == (False, 0.0, out_of) and response(env, ben, qid) == (True, out_of, out_of)
    assert response(env, cal, qid)[1:] == (kept, out_of)
    for sid in (amy, ben, cal):
        assert [e["type"] for e in sessions.load_events(env.store, sid)].count("remarked") == 1
    assert gradebook.remark(env.runner, aid) == []   # marking again changes nothing more
    table = gradebook.build(env.runner, aid).table.set_index("Student")
    column = col(env, amy, number)
    assert (table.loc["Amy Pond", column], table.loc["Ben Cole", column]) == (0, out_of)
    # The Analytics page reads the exams as re-marked.
    exam = reports.exam_report(env.store, CLASS)["results"].set_index("name")
    assert exam.loc["Amy Pond", "marks_awarded"] == after[amy]["marks_awarded"]


# ---------------------------------------------------------------- evaluations


def answer_evaluation(env, sid: str, right: int) -> dict:
    for k in range(10_000):
        view = env.runner.view(sid)
        if view["stage"] != "active":
            break
        q = view["question"]
        right_answer = repo.load_item(env.store, q["id"]).typed_answer
        answer = right_answer if k < right else next((o for o in q["options"] if o != right_answer), "98765")
        env.runner.command(sid, "answer", item_id=q["id"], answer=answer)
    env.runner.command(sid, "finish")
    return env.runner.state(sid)["results"]


def test_evaluation_sittings_in_the_gradebook_with_overrides_analytics_and_past_exams(env):
    aid = assign(env, EVALUATION, title="Fundamentals check")
    amy, ben = sit(env, aid, "Amy Pond"), sit(env, aid, "Ben Cole")
    amy_results = answer_evaluation(env, amy, right=100)
    ben_results = answer_evaluation(env, ben, right=2)
    gb = gradebook.build(env.runner, aid)
    assert gb.kind == "evaluation" and "Passed" in gb.table.columns
    r = row(gb, "Amy Pond")
    assert r["Percent"] == amy_results["score_percent"] == 100.0 and r["Passed"] and r["Grade"] == amy_results["grade"]
    assert r["Marks"] == sum(x["score"] for x in amy_results["review"])
    assert row(gb, "Ben Cole")["Percent"] == ben_results["score_percent"] and row(gb, "Cal Dee")["Status"] == "Not started"
    bands = [b["label"] for b in env.runner.state(amy)["scoring"]["grade_bands"]]
    assert list(gb.grades["Grade"]) == bands and gb.grades["Students"].sum() == 2
    assert list(gb.section_summary["Section"]) == [s["section_title"] for s in amy_results["section_results"]]
    with pytest.raises(GradebookError, match="nothing to re-mark"):
        gradebook.remark(env.runner, aid)

    # A teacher's mark on an evaluation question: history, score, grade and the responses move with it.
    wrong = next(x for x in ben_results["review"] if not x["correct"])
    sc = gradebook.override(env.runner, ben, wrong["item_id"], wrong["max_score"], "Right, written another way",
                            teacher="Ms Reid")
    now = env.runner.state(ben)["results"]
    entry = next(x for x in now["review"] if x["item_id"] == wrong["item_id"])
    assert entry["correct"] and entry["score"] == wrong["max_score"] and entry["overrides"][0]["reason"]
    assert now["items_correct"] == ben_results["items_correct"] + 1
    assert now["score_percent"] > ben_results["score_percent"]
    assert next(q for q in sc["questions"] if q["item_id"] == wrong["item_id"])["override"]["teacher"] == "Ms Reid"
    assert response(env, ben, wrong["item_id"])[:2] == (True, wrong["max_score"])
    with pytest.raises(GradebookError, match="give a mark from 0"):
        gradebook.override(env.runner, ben, wrong["item_id"], wrong["max_score"] + 1, "x")
    shown = next(x for x in env.runner.view(ben)["results"]["review"] if x["item_id"] == wrong["item_id"])
    assert gradebook.override_note(shown).endswith(": Right, written another way")

    # The Analytics page's evaluation section, and each student's past exams.
    ev = reports.evaluation_report(env.store, CLASS)
    results = ev["results"].set_index("name")
    assert set(results.index) == {"Amy Pond", "Ben Cole"}
    assert results.loc["Ben Cole", "score_percent"] == now["score_percent"]
    assert results.loc["Ben Cole", "overridden"] == f"Q{wrong['number']}" and results.loc["Amy Pond", "passed"]
    assert ev["summary"]["students"].tolist() == [2] and ev["summary"]["assessment"].tolist() == [amy_results["title"]]
    past = sittings.past_exams(env.store, env.ids["Ben Cole"], now=env.clock())
    assert [(p["kind"], p["course"], p["assigned"]) for p in past] == [
        ("evaluation", f"Evaluation: {amy_results['title']}", True)]


# ---------------------------------------------------------------- remediation


def test_remediation_lists_only_the_questions_not_fully_right(env):
    sid = env.runner.start("exam", env.ids["Amy Pond"], dict(NAT5, seed="remediate"))
    qs = questions(env, sid)
    by_outcome: dict[str, list[dict]] = {}
    for q in qs:
        by_outcome.setdefault(q["outcome_id"], []).append(q)
    outcome, group = max(by_outcome.items(), key=lambda kv: len(kv[1]))
    assert len(group) >= 2
    # Every question right but one of the largest outcome's, left blank.
    answers = {q["id"]: key(env, q["id"]) for q in qs if q["id"] != group[0]["id"]}
    env.runner.command(sid, "submit", answers=answers)
    state = env.runner.state(sid)
    marking = state["marking"]
    missed = sorted(q["number"] for q in marking["questions"].values()
                    if q["outcome_id"] == outcome and (not q["correct"] or q["marks_awarded"] < q["marks"]))
    assert group[0]["number"] in missed and len(missed) < len(group)
    block = next(b for b in state["remediation"] if b["outcome_id"] == outcome)
    assert block["questions"] == missed
    for b in state["remediation"]:
        for number in b["questions"]:
            q = next(x for x in marking["questions"].values() if x["number"] == number)
            assert not q["correct"] or q["marks_awarded"] < q["marks"]
