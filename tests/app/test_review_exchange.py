"""The Review page's import and export through Streamlit's AppTest: upload a file, download the listed items."""
from __future__ import annotations

import json

from core.items.interop.safety import parse_xml
from tests.app.test_teacher_review_class import env, open_page, store_of, texts  # noqa: F401

GIFT = b"""$CATEGORY: $course$/top/Mathematics/Nat 5

::area::[html]<p>A circle has radius \\(r = 3\\) cm. Give its area to 1 d.p.</p>{#28.3:0.05}

::capital::What is the capital of Scotland? {=Edinburgh}

::essay::Explain why the sky is blue. {}
"""


def exchange(at):
    """The Review page with its import and export panel open (drawn only while open)."""
    assert not [b for b in at.button if b.key == "rv_import"]
    at.session_state["rv_exchange_open"] = True
    return at.run()


def test_an_uploaded_file_becomes_drafts_with_where_they_came_from(env):
    at = exchange(open_page("pages/teacher_review.py"))
    at.file_uploader(key="rv_import_file").set_value(("school-bank.txt", GIFT, "text/plain")).run()
    at.button(key="rv_import").click().run()
    assert not at.exception
    shown = texts(at)
    assert "Imported 2 question(s) from school-bank.txt as drafts; 1 skipped (see Import)." in shown
    assert any("essay" in str(v) for df in at.dataframe for v in df.value.to_numpy().ravel())
    at.selectbox(key="rv_source").select("import").run()
    shown = texts(at)
    assert "Imported from school-bank.txt (gift), question area." in shown
    rows = store_of(env).query("SELECT stem, answer_key, status, subject, level FROM items WHERE source = 'import' "
                               "ORDER BY stem")
    assert rows == [("A circle has radius $r = 3$ cm. Give its area to 1 d.p.", "28.3", "draft", "Mathematics", "Nat 5"),
                    ("What is the capital of Scotland?", "Edinburgh", "draft", "Mathematics", "Nat 5")]


def test_a_file_that_cannot_be_read_says_why_and_stores_nothing(env):
    before = store_of(env).query("SELECT count(*) FROM items")[0][0]
    at = exchange(open_page("pages/teacher_review.py"))
    at.file_uploader(key="rv_import_file").set_value(("quiz.xml", b"<quiz><question>", "text/xml")).run()
    at.button(key="rv_import").click().run()
    assert not at.exception
    assert any("Nothing was imported: the file 'quiz.xml' is not well-formed XML (line 1" in e.value for e in at.error)
    assert store_of(env).query("SELECT count(*) FROM items")[0][0] == before


def test_the_listed_items_download_as_moodle_xml(env):
    at = exchange(open_page("pages/teacher_review.py"))
    listed = int(next(c.value for c in at.caption if c.value.endswith("item(s).")).split()[0])
    at.selectbox(key="rv_export_format").select("Moodle XML (.xml)").run()
    at.button(key="rv_export").click().run()
    assert not at.exception
    ready = at.session_state["rv_export_file"]
    assert at.get("download_button") and ready["name"] == "questions.xml"
    root = parse_xml(ready["data"], "download")
    written = [q for q in root.findall("question") if q.get("type") != "category"]
    assert len(written) == ready["items"] and ready["items"] + len(ready["skipped"]) == listed


def test_an_imported_question_is_placed_in_a_course_approved_and_reaches_practice(env):
    from core.blueprints.library import Library
    from core.items.sources import QuestionSource
    store = store_of(env)
    [(iid,)] = store.query("SELECT id FROM items WHERE source = 'import' AND answer_key = '28.3'")
    at = open_page("pages/teacher_review.py")
    at.selectbox(key="rv_source").select("import").run()
    outcomes = at.selectbox(key=f"rv_place_outcome_{iid}")
    nat5 = next(i for i, label in enumerate(outcomes.options) if label.startswith("Mathematics Nat 5 ·"))
    outcomes.select_index(nat5)                  # a form: the choice goes with the button
    at.button(key=f"rv_place_save_{iid}").click().run()
    assert not at.exception
    [(subject, level, outcome_ids)] = store.query("SELECT subject, level, outcome_ids FROM items WHERE id = ?", [iid])
    assert (subject, level) == ("Mathematics", "Nat 5") and outcome_ids
    [outcome] = json.loads(outcome_ids)
    assert f"{iid} is now in Mathematics Nat 5, {outcome}." in texts(at)
    at.button(key=f"rv_approve_{iid}").click().run()
    assert not at.exception
    source = QuestionSource(Library.load(exercise=False), store)
    assert iid in [it.id for it in source.bank_candidates("Mathematics", "Nat 5", outcome, ("local",), limit=500)]


MOODLE_WITH_FILES = b"""<?xml version="1.0" encoding="UTF-8"?>
<quiz>
  <question type="truefalse">
    <name><text>Read the notes</text></name>
    <questiontext format="html">
      <text><![CDATA[<p>Read <a href="@@PLUGINFILE@@/notes.txt">the notes</a>, look at
        <img src="@@PLUGINFILE@@/dot.png" alt="a dot"/>: is the dot red?</p>]]></text>
      <file name="notes.txt" path="/" encoding="base64">VGhlIGRvdCBpcyByZWQu</file>
      <file name="dot.png" path="/" encoding="base64">iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==</file>
    </questiontext>
    <answer fraction="100"><text>true</text></answer>
    <answer fraction="0"><text>false</text></answer>
  </question>
</quiz>
"""


def test_pictures_and_documents_that_came_with_a_question_are_shown_on_its_card(env):
    at = exchange(open_page("pages/teacher_review.py"))
    at.file_uploader(key="rv_import_file").set_value(("files.xml", MOODLE_WITH_FILES, "text/xml")).run()
    at.button(key="rv_import").click().run()
    assert "Imported 1 question(s) from files.xml as drafts." in texts(at)
    at.selectbox(key="rv_source").select("import").run()
    assert not at.exception
    shown = list(_elements(at.main))
    assert any(type(e).__name__ == "Image" for e in shown), "the picture is drawn"
    assert any("the notes" in b.label for b in at.get("download_button")), "the document can be opened"


def _elements(node):
    for child in getattr(node, "children", {}).values():
        yield child
        yield from _elements(child)
