"""The once-per-database check, on a real DuckDB file: approved items whose key cannot be marked are withdrawn."""
from __future__ import annotations

import dataclasses

from core.items import review
from core.store import Store, repo
from core.store import data_checks
from core.workbench import UNMARKABLE_KEYS_CHECK, open_workbench

LINEAR = "SQA.MATH.N5.LINEAR_EQUATIONS"


def items(library):
    gen = library.generator(LINEAR)
    good = gen.generate("easy", "ok", {"a": 5, "b": -8, "c": 2, "d": -14, "bracket": 0})
    bad = dataclasses.replace(gen.generate("easy", "bad", {"a": 7, "b": 3, "c": 4, "d": -9, "bracket": 0}),
                              correct_answer="x +* 2", accepted_answers=[],
                              evaluation={**good.evaluation, "method": "algebraic_equivalence"})
    return good, bad


def test_an_existing_database_is_checked_once(db_path, library):
    good, bad = items(library)
    store = Store(db_path)
    repo.insert_items(store, [good, bad], status="approved")
    store.close()

    wb = open_workbench(db_path)
    try:
        assert [w["id"] for w in wb.withdrawn_items] == [bad.id]
        store = wb.store
        row = repo.get_item(store, bad.id)
        assert row["status"] == "withdrawn" and "x +* 2" in row["review_notes"]
        assert repo.get_item(store, good.id)["status"] == "approved"
        assert [h["action"] for h in review.history(store, bad.id)] == ["withdrawn"]
        assert [it["id"] for it in review.queue(store, status="withdrawn")] == [bad.id]
        # Students no longer get it: exams and practice draw approved items only.
        assert bad.id not in {it.id for it in repo.approved_items(store, "Mathematics", "Nat 5")}
        assert data_checks.check_result(store, UNMARKABLE_KEYS_CHECK)["withdrawn"][0]["id"] == bad.id
        # Made approved again behind the review queue's back, it is not withdrawn twice: the check ran.
        store.write(lambda cur: cur.execute("UPDATE items SET status = 'approved' WHERE id = ?", [bad.id]))
    finally:
        wb.store.close()

    wb = open_workbench(db_path)
    try:
        assert wb.withdrawn_items == []
        assert repo.get_item(wb.store, bad.id)["status"] == "approved"
        assert len(review.history(wb.store, bad.id)) == 1
    finally:
        wb.store.close()


def test_a_new_database_records_the_check_before_the_banks_arrive(db_path):
    wb = open_workbench(db_path)
    try:
        assert wb.withdrawn_items == []
        assert data_checks.check_done(wb.store, UNMARKABLE_KEYS_CHECK)
        assert repo.bank_count(wb.store) > 0 and repo.count_items(wb.store, "withdrawn") == 0
    finally:
        wb.store.close()
