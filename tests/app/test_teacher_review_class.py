"""Teacher pages through Streamlit's AppTest: Review, Class and Mock exams, on a temporary database.

One database (with a class and draft items) serves the module, so the app opens
it once; each test acts on items and students of its own.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]
TEACHER = {"role": "teacher", "user": "teacher", "name": "Teacher"}
STUDENT = {"role": "student", "user": "T-CLASS:amy-pond", "name": "Amy Pond", "class_code": "T-CLASS"}
MC_SKILL = "SQA.MATH.N5.CHANGE_SUBJECT"
OTHER_SKILL = "SQA.MATH.N5.GRADIENT"


def make_db(path: Path, drafts: bool = True) -> dict[str, list[str]]:
    """A database with a class (so the first-run demo is skipped) and, optionally, draft items."""
    from core.blueprints.library import Library
    from core.school.classes import add_student, create_class
    from core.store import Store, repo
    store = Store(path)
    create_class(store, "T-CLASS", "Test class", "Mathematics", "Nat 5")
    add_student(store, "T-CLASS", "Amy Pond")
    ids: dict[str, list[str]] = {}
    if drafts:
        lib = Library.load(exercise=False)
        for skill, n in ((MC_SKILL, 8), (OTHER_SKILL, 3)):
            items = lib.generator(skill).batch("medium", n, seed="review").items
            repo.insert_items(store, items, status="draft")
            ids[skill] = [it.id for it in items]
    store.close()
    return ids


def clear_caches() -> None:
    from ui import shared
    shared._open.clear()
    shared._runner.clear()


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    """WORKBENCH_DB set to a prepared database for the whole module; the app's store closed at the end."""
    path = tmp_path_factory.mktemp("teacher") / "app.duckdb"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(path))
        mp.delenv("WORKBENCH_TEACHER_PASSCODE", raising=False)
        mp.delenv("WORKBENCH_TEACHER_PASSCODE_HASH", raising=False)
        mp.chdir(ROOT)
        clear_caches()
        ids = make_db(path)
        yield {"path": path, "ids": ids}
        from ui import shared
        shared._open(str(path)).store.close()
        clear_caches()


def store_of(env):
    from ui import shared
    return shared._open(str(env["path"])).store


def open_page(page: str, user: dict = TEACHER) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["user"] = dict(user)
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    return at


def review_page(skill: str = MC_SKILL) -> AppTest:
    """The Review page showing one skill's drafts (a few, so all are on its first page of cards)."""
    at = open_page("pages/teacher_review.py")
    at.selectbox(key="rv_skill").select(skill).run()
    assert not at.exception, at.exception
    return at


def open_editor(at: AppTest, item_id: str) -> None:
    """Open the card's "Edit then approve" (its form is drawn only while open)."""
    at.session_state[f"rv_editor_{item_id}"] = True
    at.run()
    assert not at.exception, at.exception


def texts(at: AppTest) -> str:
    parts = []
    for kind in ("markdown", "caption", "error", "warning", "info", "success", "title", "header", "subheader"):
        parts += [str(e.value) for e in getattr(at, kind)]
    return "\n".join(parts)


def status(env, item_id: str) -> str:
    return store_of(env).query("SELECT status FROM items WHERE id = ?", [item_id])[0][0]


def history(env, item_id: str) -> list[dict]:
    from core.items import review
    return review.history(store_of(env), item_id)


# ---------------------------------------------------------------- every page renders


@pytest.mark.parametrize("page, title", [("pages/teacher_review.py", "Review"), ("pages/teacher_class.py", "Class"),
                                         ("pages/teacher_exams.py", "Mock exams"),
                                         ("pages/teacher_gradebook.py", "Gradebook")])
def test_each_teacher_page_renders(env, page, title):
    at = open_page(page)
    assert at.title[0].value == title
    assert "demo teacher passcode is in use" in texts(at)
    assert not at.error


# ---------------------------------------------------------------- review


def test_review_lists_drafts_with_key_params_and_history(env):
    at = review_page(MC_SKILL)
    item = env["ids"][MC_SKILL][0]
    text = texts(at)
    assert item in text and "Answer:" in text
    assert "Generation parameters and checks" in [e.label for e in at.expander]
    assert "Generation parameters" not in text, "the parameters are drawn only once asked for"
    at.session_state[f"rv_details_{item}"] = True
    at.run()
    assert "Generation parameters" in texts(at) and at.json, "opened, the card shows what generated the item"
    assert at.button(key=f"rv_approve_{item}") and at.button(key=f"rv_reject_{item}")
    assert any(e.label == "History" for e in at.expander)
    at.selectbox(key="rv_skill").select(OTHER_SKILL).run()
    shown = texts(at)
    assert env["ids"][OTHER_SKILL][0] in shown and item not in shown
    at.selectbox(key="rv_verdict").select("has verification report").run()
    assert "No items match these filters" in texts(at)


def test_approve_one_item(env):
    item = env["ids"][MC_SKILL][0]
    at = review_page(MC_SKILL)
    at.button(key=f"rv_approve_{item}").click().run()
    assert not at.exception
    assert status(env, item) == "approved"
    assert [h["action"] for h in history(env, item)] == ["approved"]
    assert f"Approved {item}." in texts(at)


def test_reject_needs_a_reason(env):
    item = env["ids"][MC_SKILL][1]
    at = review_page(MC_SKILL)
    assert not [t for t in at.text_input if (t.key or "").startswith("rv_reason_")], "asked only once chosen"
    at.button(key=f"rv_reject_{item}").click().run()
    at.button(key=f"rv_reject_confirm_{item}").click().run()
    assert not at.exception
    assert any("Say why the item is rejected" in e.value for e in at.error)
    assert status(env, item) == "draft" and history(env, item) == []
    at.button(key=f"rv_reject_cancel_{item}").click().run()
    assert not [t for t in at.text_input if (t.key or "").startswith("rv_reason_")], "Cancel puts the question away"
    at.button(key=f"rv_reject_{item}").click().run()
    at.text_input(key=f"rv_reason_{item}").input("The distractors give the answer away")
    at.button(key=f"rv_reject_confirm_{item}").click().run()
    assert status(env, item) == "rejected"
    rows = history(env, item)
    assert [(h["action"], h["note"]) for h in rows] == [("rejected", "The distractors give the answer away")]
    assert f"Rejected {item}." in texts(at)


def test_edit_then_approve_refuses_a_duplicate_option_and_keeps_an_edit(env):
    from core.store import repo
    item_id = env["ids"][MC_SKILL][2]
    before = repo.get_item(store_of(env), item_id)
    at = review_page(MC_SKILL)
    open_editor(at, item_id)
    at.text_input(key=f"rv_opt_{item_id}_1").input(before["options"][0])
    at.button(key=f"rv_save_{item_id}").click().run()
    assert not at.exception
    assert any("Two options are the same" in e.value for e in at.error)
    after = repo.get_item(store_of(env), item_id)
    assert after["status"] == "draft" and after["options"] == before["options"] and history(env, item_id) == []

    at.text_input(key=f"rv_opt_{item_id}_1").input(before["options"][1])
    at.text_area(key=f"rv_stem_{item_id}").input("Make $k$ the subject of the formula below.\n\n" + before["stem"])
    at.button(key=f"rv_save_{item_id}").click().run()
    after = repo.get_item(store_of(env), item_id)
    assert after["status"] == "approved" and after["stem"].startswith("Make $k$ the subject")
    rows = history(env, item_id)
    assert [h["action"] for h in rows] == ["edited and approved"]
    assert rows[0]["changes"]["stem"] == {"from": before["stem"], "to": after["stem"]}


def test_bulk_approve_and_bulk_reject_need_a_reason(env):
    a, b, c = env["ids"][MC_SKILL][3:6]
    at = open_page("pages/teacher_review.py")
    assert not any(m.key == "rv_bulk_items" for m in at.multiselect)   # drawn only once asked for
    at.session_state["rv_bulk_open"] = True      # the expander "Approve or reject several at once", opened
    at.run()
    at.multiselect(key="rv_bulk_items").select(a).select(b)
    at.button(key="rv_bulk_approve").click().run()
    assert not at.exception
    assert status(env, a) == status(env, b) == "approved"
    assert "Approved 2 item(s)." in texts(at)
    at.multiselect(key="rv_bulk_items").select(c)
    at.button(key="rv_bulk_reject").click().run()
    assert any("Say why" in e.value for e in at.error) and status(env, c) == "draft"
    at.text_input(key="rv_bulk_reason").input("Not for this class")
    at.button(key="rv_bulk_reject").click().run()
    assert status(env, c) == "rejected"


def _cards(at: AppTest) -> list[str]:
    return [b.key.removeprefix("rv_approve_") for b in at.button if (b.key or "").startswith("rv_approve_")]


def test_cards_come_six_to_a_page_and_draw_their_editor_and_history_when_opened(env):
    every = {i for ids in env["ids"].values() for i in ids}
    at = open_page("pages/teacher_review.py")
    at.selectbox(key="rv_status").select("All").run()
    at.selectbox(key="rv_source").select("formula").run()   # the module's 11 generated items, whatever their status
    first = _cards(at)
    assert len(first) == 6 and "Page 1 of 2: items 1–6." in texts(at)
    assert not [t for t in at.text_input if (t.key or "").startswith("rv_key_")], "no editor until one is opened"
    at.button(key="rv_page_next").click().run()
    rest = _cards(at)
    assert rest and not set(rest) & set(first) and set(first) | set(rest) >= every
    assert at.button(key="rv_page_next").disabled and not at.button(key="rv_page_back").disabled

    open_editor(at, rest[0])
    assert [t.key for t in at.text_input if (t.key or "").startswith("rv_key_")] == [f"rv_key_{rest[0]}"]
    for iid in rest:
        at.session_state[f"rv_history_{iid}"] = True
    at.run()
    assert not at.exception
    assert len(at.dataframe) == sum(1 for iid in rest if history(env, iid))
    assert texts(at).count("No review actions yet") == sum(1 for iid in rest if not history(env, iid))

    at.selectbox(key="rv_status").select("Drafts").run()   # a new filter starts again at the first page
    assert not any(c.value.startswith("Page 2 of") for c in at.caption)


def test_empty_queue_says_what_to_do(tmp_path, monkeypatch):
    path = tmp_path / "empty.duckdb"
    monkeypatch.setenv("WORKBENCH_DB", str(path))
    monkeypatch.chdir(ROOT)
    make_db(path, drafts=False)
    try:
        at = open_page("pages/teacher_review.py")
        assert "No drafts waiting. Generate some on the Generate page." in texts(at)
        at.switch_page("pages/teacher_exams.py").run()
        assert "build a paper" in texts(at)
    finally:
        from ui import shared
        shared._open(str(path)).store.close()
        shared._open.clear()
        shared._runner.clear()


# ---------------------------------------------------------------- class


def roster_names(env) -> list[str]:
    from core.store import school
    return [r["display_name"] for r in school.roster(store_of(env), "T-CLASS")]


def test_roster_add_import_with_a_bad_row_and_remove(env):
    at = open_page("pages/teacher_class.py")
    assert "Amy Pond" in at.dataframe[0].value["name"].tolist()
    at.text_input(key="cls_add_name").input("Rory Williams")
    at.button(key="cls_add_go").click().run()
    assert not at.exception and "Rory Williams" in roster_names(env)
    assert "Rory Williams added to T-CLASS." in texts(at)

    at.text_input(key="cls_add_name").input("rory   williams")
    at.button(key="cls_add_go").click().run()
    assert any("already on the class list" in e.value for e in at.error)

    csv = b"name,email\nClara Oswald,c@x\n\n,r@x\nRiver Song,s@x\nclara oswald,o@x\n"
    at.file_uploader(key="cls_csv").upload("class.csv", csv, "text/csv")
    at.run()
    at.button(key="cls_import_go").click().run()
    assert not at.exception
    assert {"Clara Oswald", "River Song"} <= set(roster_names(env))
    text = texts(at)
    assert "Added 2 student(s)" in text and "2 row(s) could not be added" in text
    problems = at.dataframe[-1].value     # the blank row 3 is no student and no problem; row 4 has no name
    assert problems["row"].tolist() == [4, 6]
    assert "no name" in problems["problem"][0] and "row 2" in problems["problem"][1]

    at.selectbox(key="cls_remove_who").select("T-CLASS:river-song")
    at.button(key="cls_remove_go").click().run()
    assert not at.exception and "River Song" not in roster_names(env)
    assert "River Song removed from T-CLASS." in texts(at)


def test_a_school_export_with_forename_and_surname_in_windows_text_is_imported(env):
    at = open_page("pages/teacher_class.py")
    csv = "Pupil ID;Forename;Surname;Reg\r\n101;Zoë;Müller;4A\r\n102;Seán;Ó Briain;4A\r\n".encode("cp1252")
    at.file_uploader(key="cls_csv").upload("export.csv", csv, "text/csv")
    at.run()
    at.button(key="cls_import_go").click().run()
    assert not at.exception
    assert {"Zoë Müller", "Seán Ó Briain"} <= set(roster_names(env))
    assert "Forename" not in roster_names(env) and "Pupil ID" not in roster_names(env)
    text = texts(at)
    assert "Added 2 student(s)" in text and "Names read from the columns 'Forename' + 'Surname'." in text
    assert any("was not UTF-8" in w.value for w in at.warning)


def test_class_settings_are_saved(env):
    from core.store import school
    at = open_page("pages/teacher_class.py")
    at.checkbox(key="cls_unknown_T-CLASS").check()
    at.checkbox(key="cls_approved_T-CLASS").check()
    at.button(key="cls_settings_go").click().run()
    assert not at.exception and "Settings saved." in texts(at)
    klass = school.get_class(store_of(env), "T-CLASS")
    assert klass["allow_unknown_names"] and klass["approved_items_only"]
    at.checkbox(key="cls_approved_T-CLASS").uncheck()
    at.button(key="cls_settings_go").click().run()
    klass = school.get_class(store_of(env), "T-CLASS")
    assert klass["allow_unknown_names"] and not klass["approved_items_only"]
    assert not klass["decimal_comma"]
    at.checkbox(key="cls_comma_T-CLASS").check()
    at.button(key="cls_settings_go").click().run()
    assert school.get_class(store_of(env), "T-CLASS")["decimal_comma"]


def test_create_class_with_a_bad_code_then_a_good_one(env):
    from core.store import school
    at = open_page("pages/teacher_class.py")
    at.text_input(key="cls_new_code").input("x")
    at.text_input(key="cls_new_name").input("S3 Maths")
    at.button(key="cls_create_go").click().run()
    assert any("class code is 3 to 16" in e.value for e in at.error)
    at.text_input(key="cls_new_code").input("s3-maths")
    at.button(key="cls_create_go").click().run()
    assert not at.exception and school.get_class(store_of(env), "S3-MATHS")["name"] == "S3 Maths"
    assert at.selectbox(key="cls_code").value == "S3-MATHS"
    assert "No students on the list yet" in texts(at)


# ---------------------------------------------------------------- mock exams


def test_exam_preview_downloads_and_assignment(env):
    from core.store import school
    at = open_page("pages/teacher_exams.py")
    at.text_input(key="exam_seed").input("42")
    at.button(key="exam_build_go").click().run()
    assert not at.exception and not at.error
    assert at.header[0].value == "SQA National 5 Mathematics: mock exam"
    paper = at.session_state["exam_paper"]
    assert {m.label: m.value for m in at.metric}["Total marks"] == str(paper["total_marks"])
    assert paper["config"]["paper_key"] == "paper:42" and len(paper["sections"]) == 2
    assert [s.value for s in at.subheader[:2]] == ["Paper 1 (Non-calculator)", "Paper 2 (Calculator)"]
    numbered = re.compile(r"^\*\*1(\(a\))?\.\*\* \*\(\d+ marks?\)\*", flags=re.MULTILINE)   # "**1(a).** *(3 marks)*"
    assert "**Answer:**" not in texts(at) and not numbered.search(texts(at)), "each section's questions once opened"
    at.session_state["exam_section_0"] = True
    at.run()
    assert numbered.search(texts(at)) and "**Answer:**" not in texts(at)
    at.toggle(key="exam_keys").set_value(True).run()
    assert "**Answer:**" in texts(at)
    # the question paper and the marking scheme, the same files `python -m core paper` writes
    assert len(at.get("download_button")) == 2

    at.selectbox(key="exam_class").select("T-CLASS")
    assert not [b for b in at.button if b.key == "exam_assign_go"]     # the form is drawn once opened
    at.session_state["exam_assign_open"] = True
    at.run()
    at.text_input(key="exam_title").input("Prelim practice")
    at.button(key="exam_assign_go").click().run()
    assert not at.exception and not at.error
    rows = school.assignments_for_class(store_of(env), "T-CLASS")
    assert [(r["title"], r["kind"]) for r in rows] == [("Prelim practice", "exam")]
    assert rows[0]["config"] == {"subject": "Mathematics", "level": "Nat 5", "seed": "42", "paper_key": "paper:42"}
    assert rows[0]["time_limit_minutes"] == 185 and rows[0]["closes_at"] > rows[0]["opens_at"]   # 75 + 110 minutes
    assert "Prelim practice" in at.dataframe[-1].value["title"].tolist()


def test_evaluation_paper_and_a_window_that_closes_before_it_opens(env):
    import datetime as dt
    from core.store import school
    at = open_page("pages/teacher_exams.py")
    at.radio(key="exam_from").set_value("Assessment blueprint").run()
    at.selectbox(key="exam_assessment").select("MATH-FUNDAMENTALS-L1")
    at.button(key="exam_build_go").click().run()
    assert not at.exception and not at.error
    at.selectbox(key="exam_class").select("T-CLASS")
    at.session_state["exam_assign_open"] = True
    at.run()
    opens = at.get("date_time_input")[0].value
    at.get("date_time_input")[1].set_value(opens - dt.timedelta(hours=1))
    at.button(key="exam_assign_go").click().run()
    assert any("must close after it opens" in e.value for e in at.error)
    before = len(school.assignments_for_class(store_of(env), "T-CLASS"))
    at.get("date_time_input")[1].set_value(opens + dt.timedelta(days=1))
    at.button(key="exam_assign_go").click().run()
    rows = school.assignments_for_class(store_of(env), "T-CLASS")
    assert len(rows) == before + 1
    assert any(r["kind"] == "evaluation" and r["config"] == {"assessment_id": "MATH-FUNDAMENTALS-L1", "seed": "1"}
               for r in rows)


def test_a_class_of_approved_items_only_needs_an_approved_only_paper(env):
    from core.school.classes import create_class
    from core.store import school
    create_class(store_of(env), "AP-ONLY", "Approved only", "Mathematics", "Nat 5", approved_items_only=True)
    at = open_page("pages/teacher_exams.py")
    at.button(key="exam_build_go").click().run()
    at.selectbox(key="exam_class").select("AP-ONLY")
    at.session_state["exam_assign_open"] = True
    at.run()
    at.button(key="exam_assign_go").click().run()
    assert not at.exception
    assert any("AP-ONLY gets approved items only" in e.value for e in at.error)
    assert school.assignments_for_class(store_of(env), "AP-ONLY") == []


# ---------------------------------------------------------------- students are kept out


@pytest.mark.parametrize("page, marker", [("pages/teacher_review.py", "rv_status"), ("pages/teacher_class.py", "cls_code"),
                                          ("pages/teacher_exams.py", "exam_from"),
                                          ("pages/teacher_gradebook.py", "gb_class")])
def test_a_student_cannot_open_teacher_pages(env, page, marker):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["user"] = dict(STUDENT)
    at.run()
    assert not at.exception and "demo teacher passcode" not in texts(at)
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page(page)   # the student's navigation does not hold the teacher pages
    # The page itself refuses too, whatever the navigation shows.
    direct = AppTest.from_file(str(ROOT / page), default_timeout=120)
    direct.session_state["user"] = dict(STUDENT)
    direct.run()
    assert not direct.exception
    assert [e.value for e in direct.error] == ["This page is not available to you. Sign in with the right account."]
    assert not direct.title and marker not in {w.key for w in direct.get("selectbox") + direct.get("radio")}
