"""Items out and back in: every kind of approved item, each format, into a fresh database; duplicates; filters."""
from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from pathlib import Path

import pytest

from core.items.interop.convert import expression_spellings, item_to_question, question_to_item
from core.items.interop.exporting import export_items, select_items
from core.items.interop.importing import detect, import_file
from core.items.interop.model import (CHOICE, ESSAY, MULTI, NUMERIC, SHORT, Choice, InteropError, NumericAnswer,
                                      Question, Skipped)
from core.marking import MarkingSpec, mark_answer
from core.store import Store, repo
from tests.items.interop.stock import stock

FORMATS = ("qti3", "moodle-xml", "gift")


@pytest.fixture(scope="module")
def school(tmp_path_factory, library):
    store = stock(tmp_path_factory.mktemp("school") / "school.duckdb", library)
    yield store
    store.close()


def _marking(item) -> tuple:
    ev = item.evaluation or {}
    tolerance = {k: v for k, v in (ev.get("tolerance") or {}).items() if v is not None} or None
    return (item.stem, item.options, item.correct_index, item.correct_answer, ev.get("method"), tolerance, item.item_type, item.marks,
            (item.marking_scheme or {}).get("criteria") or [])


def test_every_kind_of_item_reads_back_whole_through_the_exchange_form(school):
    items = select_items(school)
    kinds = {(it.item_type, it.evaluation.get("method")) for it in items}
    assert {("multiple_choice", "mcq"), ("numeric", "numeric_tolerance"), ("numeric", "exact_match"),
            ("algebraic", "algebraic_equivalence"), ("short_text", "short_text")} <= kinds
    for item in items:
        q = item_to_question(item)
        assert not isinstance(q, Skipped), (item.id, q)
        back = question_to_item(q, {"file": "f", "format": "test"})
        assert not isinstance(back, Skipped), (item.id, back)
        assert _marking(back) == _marking(item), item.id
        assert back.status == "draft" and back.source == "import"
        assert back.origin["provenance"]["item"] == item.id


def test_an_item_that_marks_key_points_goes_out_as_an_essay_and_comes_back_with_its_points():
    q = Question(kind=ESSAY, name="q", stem="Why do we see the Moon?",
                 provenance={"method": "short_text", "keywords": json.dumps(["reflects", "sunlight"]),
                             "min_keywords": "2", "key": "It reflects sunlight."})
    item = question_to_item(q, {"file": "f"})
    assert item.evaluation["keywords"] == ["reflects", "sunlight"]
    assert mark_answer(MarkingSpec.from_item(item), "it reflects light from the sun: sunlight").correct
    plain = question_to_item(dataclasses.replace(q, provenance={}), {"file": "f"})
    assert isinstance(plain, Skipped) and "marking by hand" in plain.reason


def test_a_key_the_marker_cannot_read_is_skipped_never_stored():
    q = Question(kind=SHORT, name="broken", stem="Simplify $2x + 3x$", answers=[Choice("x +* 2", 1.0)],
                 provenance={"method": "algebraic_equivalence", "key": "x +* 2"})
    made = question_to_item(q, {"file": "f"})
    assert isinstance(made, Skipped) and "marker cannot use its key" in made.reason


@pytest.mark.parametrize("question, reason", [
    (Question(kind=MULTI, name="m", stem="Pick the primes", choices=[Choice("2", .5), Choice("3", .3), Choice("4", -1)]),
     "right options add up to 80% of the marks"),
    (Question(kind=CHOICE, name="c", stem="Pick", choices=[Choice("a", 0), Choice("b", 0)]), "no option earns full marks"),
    (Question(kind=CHOICE, name="d", stem="Pick", choices=[Choice("a", 1), Choice("A", 0)]), "read the same"),
    (Question(kind=NUMERIC, name="n", stem="How many?", numbers=[NumericAnswer("*", 0, 1)]), "no numeric answer"),
    (Question(kind=SHORT, name="s", stem="Name it", answers=[Choice("*cat*", 1)]), "wildcard"),
    (Question(kind=CHOICE, name="e", stem="  ", choices=[Choice("a", 1), Choice("b", 0)]), "no question text"),
])
def test_questions_we_cannot_hold_or_check_are_skipped_with_a_reason(question, reason):
    made = question_to_item(question, {"file": "f"})
    assert isinstance(made, Skipped) and reason in made.reason


def test_a_choose_several_question_keeps_the_marks_of_each_tick():
    q = Question(kind=MULTI, name="primes", stem="Tick the prime numbers.",
                 choices=[Choice("2", .5), Choice("4", -1), Choice("5", .5), Choice("9", -1)])
    item = question_to_item(q, {"file": "f"})
    assert (item.item_type, item.correct_answer, item.evaluation["fractions"]) == ("multiple_response", "A, C",
                                                                                  [.5, -1, .5, -1])
    spec = MarkingSpec.from_item(item)
    assert mark_answer(spec, "C, A").correct
    half = mark_answer(spec, "A")
    assert not half.correct and half.score == 0.5
    assert mark_answer(spec, "A, B, C").score == 0
    back = item_to_question(item)
    assert back.kind == MULTI and [(c.text, c.fraction) for c in back.choices] == [(c.text, c.fraction) for c in q.choices]


def test_part_marks_and_other_answers_are_kept_as_notes_for_the_reviewer():
    q = Question(kind=NUMERIC, name="pi", stem="Give $\\pi$", numbers=[NumericAnswer("3.14", 0.01, 1),
                                                                       NumericAnswer("3", 0, 0.5)])
    item = question_to_item(q, {"file": "f"})
    assert item.evaluation["tolerance"] == {"absolute": 0.01}
    assert any("3 ± 0 for 50%" in n for n in item.origin["notes"])
    exact = question_to_item(dataclasses.replace(q, numbers=[NumericAnswer("12", 0, 1)]), {"file": "f"})
    assert exact.evaluation["method"] == "exact_match"
    assert mark_answer(MarkingSpec.from_item(exact), "12.0").correct
    assert not mark_answer(MarkingSpec.from_item(exact), "12.1").correct


def test_algebraic_answers_are_listed_in_the_ways_a_student_writes_them():
    spellings = expression_spellings(["2x + 3"])
    assert {"2x+3", "3+2x", "2*x+3", "2x + 3", "3 + 2x"} <= set(spellings)
    assert expression_spellings(["a + b + c + d"]) is None


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_then_import_into_an_empty_database_gives_the_same_questions(school, tmp_path, fmt):
    items = {it.id: it for it in select_items(school)}
    report = export_items(items.values(), fmt)
    assert report.items, report.skipped
    for s in report.skipped:
        assert s.reason and s.question in items
    (tmp_path / report.filename).write_bytes(report.data)
    fresh = Store(tmp_path / "fresh.duckdb")
    try:
        assert detect(report.data) == fmt
        imported = import_file(fresh, tmp_path / report.filename)
        assert len(imported.imported) == len(report.items), imported.skipped
        for row in repo.list_items(fresh, limit=1000):
            origin = row["origin"]
            assert origin["format"] == fmt and origin["file"] == report.filename
            original = items[origin["provenance"]["item"]]
            back = repo.row_to_item(row)
            assert _marking(back) == _marking(original), original.id
            assert origin["provenance"].get("blueprint") == original.blueprint_id
            assert origin["provenance"].get("seed", "") == original.seed
        again = import_file(fresh, report.data, report.filename)
        assert again.imported == [] and len(again.skipped) == len(report.items)
        assert all("already in the question bank" in s.reason for s in again.skipped)
    finally:
        fresh.close()


def test_our_own_items_coming_home_are_not_duplicated(school):
    item = select_items(school, skill="SQA.MATH.H.DIFFERENTIATE")[0]
    report = export_items([item], "moodle-xml")
    again = import_file(school, report.data, "home.xml")
    assert again.imported == [] and f"item {item.id}" in again.skipped[0].reason


def test_export_chooses_by_status_and_skill(school):
    skill = "SQA.MATH.N5.COSINE_RULE"
    chosen = select_items(school, "approved", skill)
    assert chosen and all(it.blueprint_id == skill or skill in it.skill_ids for it in chosen)
    assert any(it.source == "local" for it in chosen)          # a bank question matched to the skill
    assert select_items(school, "rejected") == []
    with pytest.raises(InteropError, match="unknown status"):
        select_items(school, "maybe")
    with pytest.raises(InteropError, match="unknown format"):
        export_items(chosen, "csv")


def test_diagrams_travel_with_the_question_as_pictures(school):
    from core.exams.diagrams import diagram_file
    item = next(it for it in select_items(school, skill="SQA.MATH.N5.COSINE_RULE") if it.diagram)
    q = item_to_question(item, draw=diagram_file)
    [picture] = q.media
    assert picture.mime == "image/svg+xml" and picture.data.startswith(b"<svg")
    assert f"]({picture.name})" in q.stem


def test_a_file_in_no_known_format_is_refused_in_one_line(tmp_path):
    for data in (b"<html><body>hello</body></html>", b"name,answer\nq1,4\n", b"\x89PNG\r\n\x1a\n\x00\x00"):
        with pytest.raises(InteropError) as exc:
            import_file(Store(tmp_path / "x.duckdb"), data, "mystery")
        assert "\n" not in str(exc.value)
    empty = io.BytesIO()
    zipfile.ZipFile(empty, "w").close()
    with pytest.raises(InteropError):
        import_file(Store(tmp_path / "y.duckdb"), empty.getvalue(), "empty.zip")


def test_missing_and_unreadable_paths_say_so(tmp_path: Path):
    store = Store(tmp_path / "z.duckdb")
    with pytest.raises(InteropError, match="does not exist"):
        import_file(store, tmp_path / "nope.xml")
    with pytest.raises(InteropError, match="is a folder"):
        import_file(store, tmp_path)
    store.close()
