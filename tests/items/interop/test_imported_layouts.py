"""Questions laid out the way other tools lay them out, read whole: drawings written into the text, sounds and
films, shared reading passages, per-option feedback chosen by the response processing, TeX annotations written
with their delimiters, feedback that only makes sense part-way through an attempt.

Each fixture is written for these tests, modelled on what real exports hold (Moodle's own files, the 1EdTech
QTI 3.0 examples, item players' reference items); each test reads it, then imports it into an empty database.
"""
from __future__ import annotations

import io
import os
import zipfile
from pathlib import Path

import pytest

from core.items.interop import gift, moodle_xml, qti
from core.items.interop.importing import import_file
from core.items.interop.model import CHOICE, MULTI, NUMERIC
from core.workbench import open_workbench

FILES = Path(__file__).parent / "files"
DRAWING = b"<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 40 10'>"


def _zip_folder(folder: Path) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                archive.writestr(str(p.relative_to(folder)).replace(os.sep, "/"), p.read_bytes())
    return out.getvalue()


@pytest.fixture
def store(tmp_path):
    wb = open_workbench(tmp_path / "import.duckdb")
    yield wb.store
    wb.store.close()


# --------------------------------------------------------------------------
# Pictures written into the text as data: addresses


@pytest.mark.parametrize("module, path, name", [
    (qti, "qti/choice_drawn_picture.xml", "picture-1.svg"),
    (moodle_xml, "moodle/pictures_drawn_and_linked.xml", "picture-1.svg"),
    (gift, "gift/drawn_picture_linked_sound.gift.txt", "picture1.svg"),
], ids=["qti", "moodle-xml", "gift"])
def test_a_drawing_written_into_the_text_is_kept_as_the_questions_picture(module, path, name):
    (q,) = module.read((FILES / path).read_bytes(), path).questions
    assert f"]({name})" in q.stem
    (drawing,) = q.media
    assert (drawing.name, drawing.mime) == (name, "image/svg+xml")
    assert drawing.data.startswith(DRAWING)
    assert not any(n.startswith("the picture") or "could not" in n for n in q.notes)


def test_an_item_whose_only_text_is_a_drawing_is_imported_with_it(store):
    report = import_file(store, FILES / "qti/choice_drawn_picture.xml")
    assert (len(report.imported), report.skipped) == (1, [])


def test_text_only_screen_readers_see_is_not_part_of_the_stem():
    (q,) = qti.read((FILES / "qti/choice_drawn_picture.xml").read_bytes(), "bar.xml").questions
    assert q.stem == "![A bar cut into four equal parts, one of them shaded](picture-1.svg)"
    assert [(c.text, c.fraction) for c in q.choices] == [("one third", 0), ("one quarter", 1), ("one fifth", 0)]


@pytest.mark.parametrize("module, path", [(moodle_xml, "moodle/pictures_drawn_and_linked.xml"),
                                          (gift, "gift/drawn_picture_linked_sound.gift.txt")],
                         ids=["moodle-xml", "gift"])
def test_a_recording_linked_from_another_site_is_noted_for_the_reviewer(module, path):
    (q,) = module.read((FILES / path).read_bytes(), path).questions
    assert "Listen to the fractions song first." in q.stem
    assert any("https://example.org/lessons/fractions-song.mp3" in n and "not in the file" in n for n in q.notes)


# --------------------------------------------------------------------------
# QTI: shared passages, sounds, feedback chosen by the processing, annotations


def test_a_shared_passage_in_the_package_comes_in_with_its_picture_and_the_items_sound():
    data = _zip_folder(FILES / "qti/passage_package")
    (q,) = qti.read(data, "reading.zip").questions
    assert q.kind == CHOICE
    assert q.stem == ("![A lighthouse on a rock](lighthouse.png)\n\nThe lighthouse\n\n"
                      "Every evening Mara climbed the hundred steps to light the lamp, and every morning she "
                      "climbed them again to put it out.\n\n"
                      "Read the passage, and listen to the sea.\n\n![The sea at night](waves.mp3)\n\n"
                      "How many times a day did Mara climb the steps?")
    files = {m.name: m for m in q.media}
    assert set(files) == {"lighthouse.png", "waves.mp3"}
    assert files["lighthouse.png"].data == (FILES / "qti/passage_package/passages/images/lighthouse.png").read_bytes()
    assert files["waves.mp3"].mime == "audio/mpeg"
    assert not any("passage" in n for n in q.notes)


def test_a_passage_the_package_does_not_hold_is_noted():
    folder = FILES / "qti/passage_package"
    members = {"imsmanifest.xml": (folder / "imsmanifest.xml").read_bytes(),
               "items/keeper.xml": (folder / "items/keeper.xml").read_bytes()}
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    (q,) = qti.read(out.getvalue(), "reading.zip").questions
    assert q.stem.startswith("Read the passage")
    assert "the shared passage (stimulus) it refers to was not brought in" in q.notes


def test_feedback_chosen_per_option_by_the_processing_belongs_to_its_option(store):
    (q,) = qti.read((FILES / "qti/choice_feedback_per_option.xml").read_bytes(), "primes.xml").questions
    assert q.kind == MULTI
    assert [(c.text, c.fraction, c.feedback) for c in q.choices] == [
        ("9", -0.5, "9 is 3 × 3, so it is not prime."),
        ("7", 0.5, "7 has no factors but 1 and itself."),
        ("11", 0.5, "")]
    assert q.general_feedback == "A prime number has exactly two factors."
    report = import_file(store, FILES / "qti/choice_feedback_per_option.xml")
    assert (len(report.imported), report.skipped) == (1, [])


def test_tex_annotations_lose_their_delimiters_and_attempt_state_feedback_is_left_out(store):
    (q,) = qti.read((FILES / "qti/number_solution_after_attempt.xml").read_bytes(), "root.xml").questions
    assert q.kind == NUMERIC
    assert q.stem == ("Find the value of $\\sqrt{2}$ to 2 decimal places. _____\n\n"
                      "It lies in the interval $[1, 2]$.")
    assert [(n.value, n.tolerance, n.fraction) for n in q.numbers] == [("1.41", 0.005, 1.0)]
    assert q.general_feedback == ("1.41 × 1.41 = 1.9881 and 1.42 × 1.42 = 2.0164, so the root is 1.41 to 2 "
                                  "decimal places.")
    assert "seen the solution" not in q.general_feedback + q.correct_feedback + q.incorrect_feedback
    assert any("You have seen the solution" in n and "left out" in n for n in q.notes)
    report = import_file(store, FILES / "qti/number_solution_after_attempt.xml")
    assert (len(report.imported), report.skipped) == (1, [])
