"""The demo class's history: three weeks of sittings through the real flows, the newest today."""
from __future__ import annotations

import dataclasses
import datetime as dt
import random

import pytest

from core.demo.classroom import (DEMO_CODE, DEMO_EXAMS, DEMO_LESSONS, DEMO_PRACTICE, HISTORY_DAYS, demo_students,
                                 ensure_demo)
from core.demo.simulate import DAY, Simulation, term_plan
from core.school.classes import create_class
from core.store import repo, school

from tests.demo.conftest import first_start


def kinds_by_student(store) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for student, kind, n in store.query("SELECT student, kind, count(*) FROM sessions GROUP BY ALL"):
        out.setdefault(student, {})[kind] = n
    return out


def test_every_student_has_practice_a_lesson_and_the_mock_exam(built):
    store, _, _ = built
    assert [c["code"] for c in school.list_classes(store)] == [DEMO_CODE]
    assert sorted(r["student"] for r in school.roster(store, DEMO_CODE)) == sorted(demo_students())
    kinds = kinds_by_student(store)
    assert sorted(kinds) == sorted(demo_students())
    for student, counts in kinds.items():
        assert counts.get("practice") == DEMO_PRACTICE, student
        assert counts.get("lesson") == DEMO_LESSONS, student
        assert counts.get("exam") == DEMO_EXAMS, student
        assert counts.get("survey") == 1, student      # the exit ticket after the latest practice
    # Nothing left half done: every sitting ran to its end.
    assert store.query("SELECT DISTINCT status FROM sessions") == [("completed",)]


def test_the_history_spans_three_weeks_and_ends_today_not_later(built):
    store, before, after = built
    for table in ("sessions", "events", "responses"):
        oldest, newest = store.query(f"SELECT min(created_at), max(created_at) FROM {table}")[0]
        assert newest <= after, table                                     # nothing in the future
        assert newest.date() in (before.date(), after.date()), table      # the newest today (UTC)
        assert oldest.date() <= before.date() - dt.timedelta(days=18), table
        assert oldest.date() >= before.date() - dt.timedelta(days=HISTORY_DAYS - 1), table
    newest_completion = store.query("SELECT max(completed_at) FROM sessions")[0][0]
    assert newest_completion <= after


def test_each_student_is_active_on_several_days_up_to_today(built):
    store, before, after = built
    today = {before.date(), after.date()}
    weeks = set()
    for student in demo_students():
        days = {r[0].date() for r in store.query("SELECT created_at FROM sessions WHERE student = ?", [student])}
        assert len(days) >= 4, (student, sorted(days))
        assert max(days) in today, student
        weeks |= {(after.date() - d).days // 7 for d in days}
    assert weeks == {0, 1, 2}   # the class was at work in each of the three weeks


def test_the_mock_exam_is_one_paper_sat_by_the_whole_class_on_one_day(built):
    store, _, _ = built
    rows = store.query("SELECT s.student, r.item_id, s.created_at FROM responses r "
                       "JOIN sessions s ON s.id = r.session_id WHERE s.kind = 'exam'")
    papers: dict[str, set[str]] = {}
    for student, item, _ in rows:
        papers.setdefault(student, set()).add(item)
    assert len(papers) == len(demo_students())
    assert len({frozenset(p) for p in papers.values()}) == 1
    assert len(next(iter(papers.values()))) >= 10
    assert len({at.date() for _, _, at in rows}) == 1
    assert all(at.weekday() < 5 for _, _, at in rows)


def test_ensure_demo_leaves_a_database_with_a_class_alone(tmp_path, app_library):
    store = first_start(tmp_path / "workbench.duckdb", app_library)
    try:
        create_class(store, "S4-MATHS", "S4 maths", "Mathematics", "Nat 5")
        assert not ensure_demo(store, app_library)
        assert [c["code"] for c in school.list_classes(store)] == ["S4-MATHS"]
        assert store.query("SELECT count(*) FROM sessions") == [(0,)]
    finally:
        store.close()


def test_the_built_demo_is_not_built_twice(built, app_library):
    store, _, _ = built
    sessions = store.query("SELECT count(*) FROM sessions")
    assert not ensure_demo(store, app_library)
    assert store.query("SELECT count(*) FROM sessions") == sessions


# --------------------------------------------------------------------------
# The plan of sittings


@pytest.mark.parametrize("clock", ["00:04:00", "07:30:00", "13:15:00", "23:58:00"])
@pytest.mark.parametrize("weekday", [0, 2, 5, 6])          # Monday, Wednesday, Saturday, Sunday
def test_term_plan_ends_today_before_now_and_starts_three_weeks_back(clock, weekday):
    day = dt.date(2026, 11, 23) + dt.timedelta(days=weekday)
    now = dt.datetime.combine(day, dt.time.fromisoformat(clock), dt.timezone.utc).timestamp()
    today = now - now % DAY
    plans = term_plan(now, 21, 8, practice_sessions=3, lessons=1, exams=1, rng=random.Random(4))
    assert len(plans) == 8
    for plan in plans:
        assert [s.at for s in plan] == sorted(s.at for s in plan)
        assert sorted(s.kind for s in plan) == ["exam", "lesson", "practice", "practice", "practice"]
        assert today <= plan[-1].at < now and plan[-1].kind == "practice"
        assert today - 20 * DAY <= plan[0].at < today - 18 * DAY
        assert len({int(s.at // DAY) for s in plan}) == 5      # five sittings on five days
    for kind in ("lesson", "exam"):
        days = {int(s.at // DAY) for plan in plans for s in plan if s.kind == kind}
        assert len(days) == 1                                  # a class sitting: everyone on the same day
        assert dt.datetime.fromtimestamp(days.pop() * DAY, dt.timezone.utc).weekday() < 5


def test_items_kept_by_the_simulation_are_what_the_database_holds(tmp_path, app_library):
    """The simulation marks an item drawn in a step as written in that step: the same as reading it back."""
    store = first_start(tmp_path / "workbench.duckdb", app_library)
    try:
        with store.transaction():
            sim = Simulation(store, app_library, seed="kept", days=7)
            sim.history(["kept:one", "kept:two"], practice_sessions=2, questions=3, lessons=1, exams=1,
                        lesson_cards=2)
        kept = sim.runner.items
        assert len(kept) > 20
        for item_id, item in kept.items():
            assert dataclasses.asdict(item) == dataclasses.asdict(repo.load_item(store, item_id)), item_id
    finally:
        store.close()


def test_a_write_failing_inside_the_build_keeps_none_of_it(tmp_path, app_library):
    """Even when the failure is caught inside the block, the transaction is not committed half done."""
    store = first_start(tmp_path / "workbench.duckdb", app_library)
    try:
        def boom(cur) -> None:
            raise RuntimeError("boom")

        with pytest.raises(Exception, match="none of it was kept"):
            with store.transaction():
                create_class(store, "HALF-1", "Half", "Mathematics", "Nat 5")
                with pytest.raises(RuntimeError):
                    store.write(boom)
        assert school.list_classes(store) == []
    finally:
        store.close()
