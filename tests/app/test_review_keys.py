"""The Review page through Streamlit's AppTest: a key that differs from the blueprint's, withdrawn items."""
from __future__ import annotations

import dataclasses

from tests.app.test_teacher_review_class import (ROOT, clear_caches, env, history, make_db, open_editor,  # noqa: F401
                                                 open_page, status, store_of, texts)

LINEAR = "SQA.MATH.N5.LINEAR_EQUATIONS"
PARAMS = {"a": 5, "b": -8, "c": 2, "d": -14, "bracket": 0}   # 5x - 8 = 2x - 14, so x = -2


def _generate(seed: str):
    from core.blueprints.library import Library
    return Library.load(exercise=False).generator(LINEAR).generate("easy", seed, dict(PARAMS))


def test_a_key_that_differs_from_the_blueprint_needs_keep_my_key_and_a_reason(env):
    from core.store import repo
    item = _generate("page")
    repo.insert_items(store_of(env), [item], status="draft")
    iid = item.id
    at = open_page("pages/teacher_review.py")
    open_editor(at, iid)
    at.text_input(key=f"rv_key_{iid}").input("999")
    at.button(key=f"rv_save_{iid}").click().run()
    assert not at.exception
    message = ("The key 999 is not what the blueprint computes for these parameters (-2). "
               "Tick 'keep my key' and say why, or correct it.")
    assert message in [w.value for w in at.warning]
    assert status(env, iid) == "draft" and history(env, iid) == []

    at.checkbox(key=f"rv_keep_{iid}").check()
    at.button(key=f"rv_save_{iid}").click().run()
    assert any("Say why you keep your key" in e.value for e in at.error)
    assert status(env, iid) == "draft"

    at.text_input(key=f"rv_keep_why_{iid}").input("Our printed paper has a typo we mark to")
    at.button(key=f"rv_save_{iid}").click().run()
    assert not at.exception
    assert f"Edited and approved {iid}." in texts(at)
    row = repo.get_item(store_of(env), iid)
    assert row["status"] == "approved" and row["answer_key"] == "999"
    [entry] = history(env, iid)
    assert entry["note"] == "Our printed paper has a typo we mark to"
    assert entry["changes"]["blueprint_key"] == {"from": "-2", "to": "999"}

    at.selectbox(key="rv_status").select("Approved").run()
    assert "Review note: Our printed paper has a typo we mark to" in texts(at)


def test_a_corrected_key_is_approved_without_asking(env):
    from core.store import repo
    item = _generate("page-2")
    repo.insert_items(store_of(env), [item], status="draft")
    at = open_page("pages/teacher_review.py")
    open_editor(at, item.id)
    at.text_input(key=f"rv_key_{item.id}").input("x = -2")
    at.button(key=f"rv_save_{item.id}").click().run()
    assert not at.exception and not any("keep my key" in w.value for w in at.warning)
    assert status(env, item.id) == "approved"


def test_withdrawn_items_are_announced_and_listed_with_their_reason(tmp_path, monkeypatch):
    from core.store import Store, repo
    path = tmp_path / "withdrawn.duckdb"
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    monkeypatch.chdir(ROOT)
    make_db(path, drafts=False)
    item = _generate("withdrawn")
    bad = dataclasses.replace(item, correct_answer="x +* 2", accepted_answers=[],
                              evaluation={**item.evaluation, "method": "algebraic_equivalence"})
    store = Store(path)
    repo.insert_items(store, [bad], status="approved")
    store.close()
    clear_caches()
    try:
        at = open_page("pages/teacher_review.py")
        assert any("1 approved item(s) were withdrawn" in w.value for w in at.warning)
        at.selectbox(key="rv_status").select("Withdrawn").run()
        shown = texts(at)
        assert bad.id in shown and "**withdrawn**" in shown
        assert "Review note: Withdrawn: the answer key 'x +* 2' is not a readable expression" in shown
        assert not at.button(key=f"rv_approve_{bad.id}").disabled
        at.button(key=f"rv_approve_{bad.id}").click().run()
        assert any(f"Item {bad.id} cannot be approved" in e.value for e in at.error)
    finally:
        from ui import shared
        shared._open(str(path)).store.close()
        clear_caches()
