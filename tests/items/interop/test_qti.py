"""QTI 3.0: writing content packages that validate, reading packages and items, refusing hostile files."""
from __future__ import annotations

import copy
import io
import os
import struct
import time
import zipfile
import zlib
from pathlib import Path
from xml.etree.ElementTree import tostring

import pytest

from core.items.interop import qti, safety
from core.items.interop.model import (ALGEBRAIC, CHOICE, ESSAY, MULTI, NUMERIC, SHORT, Choice, InteropError, Media,
                                      NumericAnswer, Question)

FILES = Path(__file__).parent / "files" / "qti"
NS = "{http://www.imsglobal.org/xsd/imsqtiasi_v3p0}"
CP = "{http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1}"
MATHML = "{http://www.w3.org/1998/Math/MathML}"


def _png(shade: int) -> bytes:
    """A tiny real PNG picture, a different one for each shade."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes([shade, 100, 50]) * 2 for _ in range(2))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 2, 2, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _zip(members: dict[str, bytes]) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return out.getvalue()


def _zip_folder(folder: Path) -> bytes:
    return _zip({str(p.relative_to(folder)).replace(os.sep, "/"): p.read_bytes()
                 for p in sorted(folder.rglob("*")) if p.is_file()})


def _parse(data: bytes):
    """A file the writer made, parsed as any file is."""
    return safety.parse_xml(data, "the written file")


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _every_kind() -> list[Question]:
    """Questions of every kind, with maths, a picture, awkward provenance, both tolerances and part marks."""
    return [
        Question(CHOICE, "Area of a circle & <friends>", "A circle has radius $r = 3$ cm.\n\n"
                 "![The circle, radius marked](circle%20diagram.png)\n\nWhat is its area, $\\pi r^2$?",
                 choices=[Choice("$9\\pi$ cm²", 1.0, "Yes: $\\pi \\times 3^2$."),
                          Choice("$6\\pi$ cm²", 0.0, "That is the circumference."),
                          Choice("**$3\\pi$** cm²", 0.0)],
                 shuffle=False, general_feedback="Area is $\\pi r^2$, so $\\pi \\times 9 = 9\\pi$.",
                 correct_feedback="Well done.", incorrect_feedback="Square the radius first.",
                 hints=["Square the radius.", "Then multiply by $\\pi$."], marks=2,
                 category=["Mathematics", "Nat 5", "SQA.MATH.N5.CIRCLE"],
                 tags=["circles", "workbench:not-provenance", "workbench-tag:odd", " "],
                 provenance={"item": "area circle/01 (ünïcode)", "blueprint": "circle-area", "version": "3",
                             "level": "N5", "seed": "1234",
                             "note": ' spaces, "quotes" & <angles>\nnew line\ttab\r\nwindows line ',
                             "a=b": "key with an equals sign", "ctl": "bell\x07 in it", "empty": ""},
                 media=[Media("circle diagram.png", "image/png", _png(10))]),
        Question(CHOICE, "Part marks", "Which is closest to $\\sqrt{2}$?",
                 choices=[Choice("1.41", 1.0), Choice("1.4", 0.5, "Close."), Choice("2", -0.25)], marks=3),
        Question(MULTI, "Primes", "Select every prime number.",
                 choices=[Choice("2", 0.5, "2 is the only even prime."), Choice("3", 0.5), Choice("4", -1.0),
                          Choice("9", -1 / 3)], shuffle=True, marks=4),
        Question(NUMERIC, "Absolute tolerance", "Work out $12.5 \\times 3$.",
                 numbers=[NumericAnswer("37.5", 0.05, 1.0, "Exactly right."),
                          NumericAnswer("37", 0.5, 0.5, "Rounded too early."),
                          NumericAnswer("12.5", 0.0, 0.0, "You forgot to multiply.")],
                 units="cm", marks=2, provenance={"tolerance_relative": "no"}),
        Question(NUMERIC, "Relative tolerance", "The speed of light is about how many m/s?",
                 numbers=[NumericAnswer("3e8", 3e8 * 0.01, 1.0)], relative_tolerance=0.01),
        Question(NUMERIC, "Exact", "$7 \\times 8$ = ?", numbers=[NumericAnswer("56", 0.0, 1.0)], marks=0.5),
        Question(SHORT, "Capital", "What is the capital of Scotland?",
                 answers=[Choice("Edinburgh", 1.0, "Yes."), Choice("Edinburg", 0.5, "Check the spelling.")],
                 case_sensitive=True),
        Question(ALGEBRAIC, "Expand", "Expand $(x + 1)^2$.",
                 answers=[Choice("x^2+2x+1", 1.0), Choice("x^2 + 2x + 1", 1.0)],
                 provenance={"method": "algebraic", "item": "expand-1"}),
        Question(ESSAY, "Explain", "Explain why $\\frac{1}{3} > \\frac{1}{4}$.",
                 grader_info="Look for a comparison of **equal parts**.", keywords=["equal parts", "denominator"],
                 general_feedback="Thirds are bigger pieces than quarters.", marks=5),
    ]


FIELDS = ("name", "stem", "choices", "numbers", "answers", "units", "general_feedback", "shuffle", "category",
          "provenance", "media", "marks", "relative_tolerance", "case_sensitive", "correct_feedback",
          "incorrect_feedback", "hints", "grader_info", "keywords", "tags")


# --------------------------------------------------------------------------
# Writing


def test_write_gives_a_content_package_with_one_item_per_question():
    questions = _every_kind()
    result = qti.write(questions, title="Circles")
    assert result.filename == "questions-qti3.zip" and result.format == "qti3"
    assert result.written == [q.name for q in questions] and result.skipped == []
    members = _members(result.data)
    manifest = _parse(members["imsmanifest.xml"])
    items = [r for r in manifest.iter(f"{CP}resource") if r.get("type") == "imsqti_item_xmlv3p0"]
    assert len(items) == len(questions)
    for resource in items:
        href = resource.get("href")
        assert href.startswith("items/") and href in members
        assert [f.get("href") for f in resource.iter(f"{CP}file")] == [href]
        assert _parse(members[href]).tag == f"{NS}qti-assessment-item"
    first = items[0]
    assert first.get("identifier") == "area-circle-01-n-code"            # from provenance["item"], made valid
    (dependency,) = first.iter(f"{CP}dependency")
    media = next(r for r in manifest.iter(f"{CP}resource") if r.get("identifier") == dependency.get("identifierref"))
    assert media.get("type") == "webcontent"
    assert members["items/media/circle diagram.png"] == questions[0].media[0].data
    assert media.get("href") == "items/media/circle%20diagram.png"


MATHS = ("Solve $\\frac{x^2 - 1}{x + 1} = \\sqrt[3]{27}$ for $x \\ne -1$, given $\\sum_{i=1}^{n} i = "
         "\\frac{n(n+1)}{2}$, $\\left(\\frac{a}{b}\\right)^{-1}$, $\\sin^2\\theta + \\cos^2\\theta = 1$, "
         "$x_1 \\le 3 < y$ and $\\text{area} = 5\\,\\mathrm{cm}^2$. Also $\\unknowncommand{x}$ "
         "and $\\text{a & b < c}$.")


@pytest.mark.parametrize("questions", [
    pytest.param(_every_kind, id="every-kind"),
    pytest.param(lambda: [Question(NUMERIC, "Maths", MATHS, numbers=[NumericAnswer("4", 0.0, 1.0)])], id="maths"),
    pytest.param(lambda: [Question(ESSAY, "", "")], id="bare-essay"),
])
def test_written_package_validates_against_the_qti3_schemas(qti3_schemas, questions):
    result = qti.write(questions())
    assert result.skipped == []
    assert qti3_schemas.validate_package(result.data) == []


def test_maths_heavy_text_reads_back_as_written():
    q = Question(NUMERIC, "Maths", MATHS, numbers=[NumericAnswer("4", 0.0, 1.0)])
    assert qti.read(qti.write([q]).data, "maths.zip").questions[0].stem == MATHS


def test_maths_is_written_as_mathml_with_its_tex_kept():
    result = qti.write([_every_kind()[0]])
    item = _parse(_members(result.data)["items/area-circle-01-n-code.xml"])
    body = item.find(f"{NS}qti-item-body")
    stem = body.findall(f"{NS}p")[:3]
    assert len([m for p in stem for m in p.iter(f"{MATHML}math")]) == 2
    assert [a.text for p in stem for a in p.iter(f"{MATHML}annotation")] == ["r = 3", "\\pi r^2"]
    options = list(body.iter(f"{NS}qti-simple-choice"))
    assert [a.text for a in options[0].iter(f"{MATHML}annotation")] == ["9\\pi"]
    img = next(body.iter(f"{NS}img"))
    assert img.get("src") == "media/circle%20diagram.png" and img.get("alt") == "The circle, radius marked"


def test_choice_is_keyed_and_part_marks_are_mapped():
    questions = _every_kind()
    members = _members(qti.write(questions[:3]).data)
    single = _parse(members["items/area-circle-01-n-code.xml"])
    decl = single.find(f"{NS}qti-response-declaration")
    assert (decl.get("cardinality"), decl.get("base-type")) == ("single", "identifier")
    assert [v.text for v in decl.iter(f"{NS}qti-value")] == ["A"]
    assert decl.find(f"{NS}qti-mapping") is None                    # all or nothing: the correct response says it
    interaction = single.find(f".//{NS}qti-choice-interaction")
    assert (interaction.get("max-choices"), interaction.get("shuffle")) == ("1", "false")
    score = next(o for o in single.iter(f"{NS}qti-outcome-declaration") if o.get("identifier") == "SCORE")
    assert score.get("normal-maximum") == "2"
    modal = {m.get("identifier"): m.get("outcome-identifier") for m in single.iter(f"{NS}qti-modal-feedback")}
    assert modal == {"A": "FEEDBACK", "B": "FEEDBACK", "CORRECT": "FEEDBACK", "INCORRECT": "FEEDBACK",
                     "GENERAL": "FEEDBACK"}
    assert [b.get("identifier") for b in single.iter(f"{NS}qti-feedback-block")] == ["HINT1", "HINT2"]

    partial = _parse(members["items/Part-marks.xml"])
    entries = {e.get("map-key"): float(e.get("mapped-value")) for e in partial.iter(f"{NS}qti-map-entry")}
    assert entries == {"A": 3.0, "B": 1.5, "C": -0.75}               # fractions of the 3 marks
    assert next(partial.iter(f"{NS}qti-map-response")).get("identifier") == "RESPONSE"

    multi = _parse(members["items/Primes.xml"])
    decl = multi.find(f"{NS}qti-response-declaration")
    assert decl.get("cardinality") == "multiple"
    assert [v.text for v in decl.find(f"{NS}qti-correct-response")] == ["A", "B"]
    mapping = decl.find(f"{NS}qti-mapping")
    assert (mapping.get("lower-bound"), mapping.get("upper-bound")) == ("0", "4")
    assert multi.find(f".//{NS}qti-choice-interaction").get("max-choices") == "0"


def test_numbers_carry_their_tolerance_in_response_processing():
    questions = _every_kind()
    members = _members(qti.write(questions[3:6]).data)

    def equals(path):
        item = _parse(members[path])
        return [(e.get("tolerance-mode"), e.get("tolerance"), e[1].tag.split("}")[1], e[1].text)
                for e in item.iter(f"{NS}qti-equal")]
    assert equals("items/Absolute-tolerance.xml") == [
        ("absolute", "0.05 0.05", "qti-correct", None), ("absolute", "0.5 0.5", "qti-base-value", "37"),
        ("exact", None, "qti-base-value", "12.5")]
    assert equals("items/Relative-tolerance.xml") == [("relative", "1 1", "qti-correct", None)]
    assert equals("items/Exact.xml") == [("exact", None, "qti-correct", None)]
    item = _parse(members["items/Absolute-tolerance.xml"])
    decl = item.find(f"{NS}qti-response-declaration")
    assert decl.get("base-type") == "float" and next(decl.iter(f"{NS}qti-value")).text == "37.5"
    assert next(item.iter(f"{NS}span")).text == "cm"


def test_essay_is_scored_by_a_person_with_a_scorers_rubric():
    item = _parse(_members(qti.write([_every_kind()[-1]]).data)["items/Explain.xml"])
    assert item.find(f".//{NS}qti-extended-text-interaction") is not None
    score = next(o for o in item.iter(f"{NS}qti-outcome-declaration") if o.get("identifier") == "SCORE")
    assert (score.get("external-scored"), score.get("normal-maximum")) == ("human", "5")
    rubric = item.find(f".//{NS}qti-rubric-block")
    assert (rubric.get("view"), rubric.get("use")) == ("scorer", "scoring")
    assert all(s.get("identifier") != "SCORE" for s in item.iter(f"{NS}qti-set-outcome-value"))


def test_round_trip_gives_back_the_same_questions():
    questions = _every_kind()
    result = qti.write(questions)
    back = qti.read(result.data, result.filename)
    assert back.format == "qti3" and back.skipped == []
    assert len(back.questions) == len(questions)
    for original, read in zip(questions, back.questions):
        expected = copy.deepcopy(original)
        if expected.kind == ALGEBRAIC:
            expected.kind = SHORT
        assert read.kind == expected.kind, original.name
        for field in FIELDS:
            assert getattr(read, field) == getattr(expected, field), (original.name, field)
        assert read.notes == []


def test_relative_tolerance_reads_back_as_a_share_with_its_amount_either_side():
    q = Question(NUMERIC, "Percent", "About 12.5?", numbers=[NumericAnswer("12.5", 0.0, 1.0)],
                 relative_tolerance=0.07)
    item = _members(qti.write([q]).data)["items/Percent.xml"]
    assert b'tolerance-mode="relative" tolerance="7 7"' in item
    (back,) = qti.read(qti.write([q]).data, "p.zip").questions
    assert back.relative_tolerance == 0.07
    assert back.numbers[0].tolerance == pytest.approx(12.5 * 0.07)


def test_pictures_with_the_same_name_in_two_questions_are_both_kept():
    one = Question(CHOICE, "One", "![first](graph.png)", choices=[Choice("a", 1.0)],
                   media=[Media("graph.png", "image/png", _png(1))])
    two = Question(CHOICE, "Two", "![second](graph.png)", choices=[Choice("b", 1.0)],
                   media=[Media("graph.png", "image/png", _png(2))])
    same = Question(CHOICE, "Three", "![first again](graph.png)", choices=[Choice("c", 1.0)],
                    media=[Media("graph.png", "image/png", _png(1))])
    result = qti.write([one, two, same])
    assert sorted(n for n in _members(result.data) if "media" in n) == ["items/media/Two/graph.png",
                                                                      "items/media/graph.png"]
    back = qti.read(result.data, "graphs.zip").questions
    assert [q.media for q in back] == [one.media, two.media, same.media]
    assert [q.stem for q in back] == [one.stem, two.stem, same.stem]


def test_identifiers_are_valid_and_unique(qti3_schemas):
    questions = [Question(ESSAY, name, "Write.") for name in ("3 little pigs", "3 little pigs", "", "é", "MEDIA-1")]
    questions.append(Question(ESSAY, "Picture", "![p](p.png)", media=[Media("p.png", "image/png", _png(5))]))
    result = qti.write(questions)
    members = _members(result.data)
    assert sorted(n for n in members if n.endswith(".xml")) == [
        "imsmanifest.xml", "items/MEDIA-1.xml", "items/Picture.xml", "items/q-3-little-pigs-2.xml",
        "items/q-3-little-pigs.xml", "items/question-3.xml", "items/question-4.xml"]
    assert qti3_schemas.validate_package(result.data) == []          # identifiers unique across the manifest


@pytest.mark.parametrize("question, reason", [
    (Question(CHOICE, "No key", "Pick.", choices=[Choice("a", 0.0), Choice("b", 0.0)]), "none of its options"),
    (Question(NUMERIC, "Words", "How many?", numbers=[NumericAnswer("about ten", 0.0, 1.0)]),
     "not a number QTI can compare"),
    (Question(SHORT, "Empty", "Say.", answers=[]), "no accepted answer"),
    (Question("drag_and_drop", "Drag", "Drag."), "no QTI equivalent"),
    (Question(CHOICE, "Lost picture", "![x](missing.png)", choices=[Choice("a", 1.0)]), "not attached"),
    (Question(ESSAY, "Control", "Bell \x07 here."), "control characters"),
    (Question(CHOICE, "Bad file", "Pick.", choices=[Choice("a", 1.0)], media=[Media("../x.png", "image/png", b"x")]),
     "cannot be stored"),
])
def test_a_question_qti_cannot_hold_is_skipped_with_a_reason(question, reason):
    good = Question(ESSAY, "Fine", "Write.")
    result = qti.write([question, good])
    assert result.written == ["Fine"]
    (skipped,) = result.skipped
    assert skipped.question == question.name and reason in skipped.reason
    assert len([n for n in _members(result.data) if n.startswith("items/")]) == 1


# --------------------------------------------------------------------------
# Reading files written from the specification's examples


def _read_file(name: str):
    return qti.read((FILES / name).read_bytes(), name)


@pytest.mark.parametrize("path", sorted(p.relative_to(FILES) for p in FILES.rglob("*.xml")
                                        if p.name != "qti21_choice.xml"), ids=str)
def test_fixture_files_are_valid_qti3(qti3_schemas, path):
    schema = qti3_schemas.manifest if path.name == "imsmanifest.xml" else qti3_schemas.item
    assert qti3_schemas.errors(schema, (FILES / path).read_bytes(), str(path)) == []


def test_read_single_choice_with_mathml_prompt():
    (q,) = _read_file("choice_single.xml").questions
    assert (q.kind, q.name, q.marks, q.shuffle) == (CHOICE, "Fraction of an amount", 1.0, True)
    assert q.stem == "A school has 240 pupils.\n\nHow many pupils is $\\frac{3}{8}$ of the school?"
    assert [(c.text, c.fraction) for c in q.choices] == [("30", 0.0), ("80", 0.0), ("90", 1.0),
                                                         ("None of these", 0.0)]


def test_read_multiple_response_fractions_from_the_mapping():
    (q,) = _read_file("choice_multiple_mapping.xml").questions
    assert (q.kind, q.marks, q.shuffle) == (MULTI, 2.0, False)
    assert [(c.text, c.fraction) for c in q.choices] == [("1", -0.5), ("2", 0.5), ("7", 0.5), ("9", -0.5)]


def test_read_feedback_inline_block_and_modal():
    (q,) = _read_file("choice_feedback.xml").questions
    assert [c.feedback for c in q.choices] == ["You repeated one of the angles.", "Yes: 180 − 110 = 70.",
                                               "That is the sum of the two angles."]
    assert [c.text for c in q.choices] == ["60°", "70°", "110°"]
    assert q.general_feedback.startswith("The angles of a triangle add up to 180°")
    assert q.correct_feedback == "Well done."
    assert q.incorrect_feedback == "Not quite: add the two angles and take them from 180°."
    assert "SOLUTION" not in q.stem and "Well done" not in q.stem


@pytest.mark.parametrize("name, value, tolerance, relative, stem", [
    ("text_entry_absolute.xml", "78.54", 0.01, None,
     "A circle has radius 5 cm. Work out its area, to 2 decimal places.\n\nArea = _____ cm²"),
    ("text_entry_relative.xml", "343", 343 * 0.02, 0.02, "Sound travels 1715 m in 5 s. What is its speed in m/s?"),
    ("text_entry_exact.xml", "56", 0.0, None, "7 × 8 = _____"),
])
def test_read_numbers_with_each_tolerance_mode(name, value, tolerance, relative, stem):
    (q,) = _read_file(name).questions
    assert q.kind == NUMERIC and q.stem == stem
    assert (q.numbers[0].value, q.numbers[0].fraction) == (value, 1.0)
    assert q.numbers[0].tolerance == pytest.approx(tolerance)
    assert q.relative_tolerance == relative


def test_read_a_range_as_a_number_either_side_and_its_else_as_wrong_answer_feedback():
    (q,) = _read_file("text_entry_range.xml").questions
    assert [(n.value, n.tolerance, n.fraction) for n in q.numbers] == [("7.1", 0.1, 1.0)]
    assert q.incorrect_feedback == "7 × 7 = 49, so the root is a little over 7." and q.general_feedback == ""


def test_read_rounding_as_half_a_unit_and_a_solution_behind_a_button_as_the_explanation():
    (q,) = _read_file("text_entry_rounded_solution.xml").questions
    assert (q.kind, q.marks, q.stem) == (NUMERIC, 2.0, "Give $\\sqrt{2}$ to 2 decimal places.")
    assert [(n.value, n.tolerance, n.fraction) for n in q.numbers] == [("1.41", 0.005, 1.0)]
    assert q.general_feedback.startswith("1.41 × 1.41 = 1.9881") and q.hints == []
    assert (q.correct_feedback, q.incorrect_feedback) == ("Right.", "Not yet.")
    assert any("rounding" in note for note in q.notes)


def test_read_several_numbers_with_part_marks():
    (q,) = _read_file("text_entry_absolute.xml").questions
    assert q.marks == 2.0
    assert [(n.value, n.tolerance, n.fraction) for n in q.numbers] == [("78.54", 0.01, 1.0), ("78.5", 0.5, 0.5)]


def test_read_short_answers_from_the_mapping():
    (q,) = _read_file("text_entry_string.xml").questions
    assert q.kind == SHORT and q.case_sensitive
    assert [(a.text, a.fraction) for a in q.answers] == [("Edinburgh", 1.0), ("edinburgh", 0.5)]
    assert q.stem == "Complete the sentence.\n\nThe capital city of Scotland is _____."


def test_read_essay_with_rubrics():
    (q,) = _read_file("extended_text.xml").questions
    assert (q.kind, q.marks) == (ESSAY, 6.0)
    assert q.stem == ("Write in full sentences.\n\nPlants make their own food.\n\n"
                      "Explain how a plant uses light to make glucose.")
    assert q.grader_info.startswith("Award one mark for each point, up to six.")
    assert "light absorbed by chlorophyll" in q.grader_info and "15 minutes" not in q.grader_info + q.stem


def test_read_hint_behind_a_button_is_not_an_answer_box():
    (q,) = _read_file("hint_end_attempt.xml").questions
    assert q.kind == CHOICE and q.hints == ["It flows through Perth."]
    assert q.right_choices() == [1] and q.general_feedback == ""


def test_item_with_two_answer_boxes_is_skipped():
    result = _read_file("two_interactions.xml")
    assert result.questions == []
    (skipped,) = result.skipped
    assert skipped.question == "Two parts"
    assert skipped.reason.startswith("it holds 2 answer boxes; one answer per question is supported")


@pytest.mark.parametrize("name, words", [
    ("order_interaction.xml", "putting options in order"),
    ("inline_choice.xml", "a drop-down menu inside the text"),
    ("template_item.xml", "at random"),
])
def test_unsupported_items_are_skipped_in_a_teachers_words(name, words):
    result = _read_file(name)
    assert result.questions == [] and words in result.skipped[0].reason


def test_qti2_items_are_read_too_with_a_note():
    (q,) = _read_file("qti21_choice.xml").questions
    assert q.kind == CHOICE and q.stem == "At what temperature does water boil at sea level?"
    assert [c.fraction for c in q.choices] == [0.0, 1.0]
    assert q.general_feedback == "Water boils at 100 °C at sea level."
    assert q.notes == ["read from a QTI 2.x file"]


def test_read_package_with_an_assessment_test_and_a_picture():
    data = _zip_folder(FILES / "test_package")
    assert qti.sniff(data)
    result = qti.read(data, "biology.zip")
    assert result.skipped == []
    assert [q.name for q in result.questions] == ["Parts of a cell", "Boiling point", "Osmosis"]
    cells, boiling, osmosis = result.questions
    assert cells.stem == ("Look at the picture of a cell.\n\n![An animal cell with its parts labelled](cell.png)"
                          "\n\nWhich part holds the genetic material?")
    assert [(m.name, m.mime) for m in cells.media] == [("cell.png", "image/png")]     # the style sheet is not media
    assert cells.media[0].data == (FILES / "test_package/items/images/cell.png").read_bytes()
    assert (boiling.kind, boiling.numbers[0].value, boiling.numbers[0].tolerance) == (NUMERIC, "100", 1.0)
    assert osmosis.kind == ESSAY                       # reached only through the assessment test


def test_package_without_manifest_reads_every_item_file():
    data = _zip({"a/choice.xml": (FILES / "choice_single.xml").read_bytes(),
                 "b/essay.xml": (FILES / "extended_text.xml").read_bytes(),
                 "notes.xml": b"<notes>not an item</notes>"})
    assert qti.sniff(data)
    result = qti.read(data, "loose.zip")
    assert [q.kind for q in result.questions] == [CHOICE, ESSAY] and result.skipped == []


def test_broken_or_missing_item_is_skipped_and_the_rest_read():
    members = {p: d for p, d in _members(_zip_folder(FILES / "test_package")).items()}
    members["items/boiling.xml"] = b"<qti-assessment-item><unclosed></qti-assessment-item>"
    del members["items/cells.xml"]
    result = qti.read(_zip(members), "damaged.zip")
    assert [q.name for q in result.questions] == ["Osmosis"]
    reasons = {s.question: s.reason for s in result.skipped}
    assert "does not hold it" in reasons["cells"]
    assert "not well-formed XML" in reasons["boiling"]


def test_picture_escaping_the_package_is_not_read():
    item = (FILES / "test_package/items/cells.xml").read_bytes().replace(b"images/cell.png", b"../../secret.png")
    result = qti.read(_zip({"items/cells.xml": item, "secret.png": b"not for you"}), "escape.zip")
    (q,) = result.questions
    assert q.media == [] and any("secret.png" in note for note in q.notes)


@pytest.mark.parametrize("path", sorted(p.relative_to(FILES) for p in FILES.glob("*.xml")), ids=str)
def test_a_damaged_item_is_read_or_skipped_never_a_crash(path):
    """Each element of the file taken out in turn: the reader copes (or refuses the file cleanly)."""
    root = safety.parse_xml((FILES / path).read_bytes(), str(path))
    outcomes = set()
    for n in range(1, len(list(root.iter()))):
        damaged = copy.deepcopy(root)
        element = list(damaged.iter())[n]
        parent = next(p for p in damaged.iter() if element in list(p))
        parent.remove(element)
        try:
            result = qti.read(tostring(damaged), str(path))
        except InteropError as exc:
            outcomes.add("refused")
            assert "\n" not in str(exc)
            continue
        outcomes.add("read" if result.questions else "skipped")
        assert all(s.reason for s in result.skipped)
    assert outcomes & {"read", "skipped"}


# --------------------------------------------------------------------------
# Files that cannot be read at all


def test_assessment_test_alone_is_refused_with_advice():
    with pytest.raises(InteropError, match="import the whole package"):
        qti.read((FILES / "test_package/assessment-test.xml").read_bytes(), "test.xml")


def test_other_xml_is_refused():
    with pytest.raises(InteropError, match="not a QTI file"):
        qti.read(b"<quiz><question type='category'/></quiz>", "moodle.xml")


def test_package_without_questions_is_refused():
    with pytest.raises(InteropError, match="holds no QTI questions"):
        qti.read(_zip({"readme.txt": b"hello"}), "empty.zip")


# --------------------------------------------------------------------------
# Hostile packages: refused, quickly

_ITEM = (FILES / "choice_single.xml").read_bytes()
_MANIFEST = (b'<manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="m"><metadata/>'
             b'<organizations/><resources><resource identifier="i" type="imsqti_item_xmlv3p0" href="items/i.xml">'
             b'<file href="items/i.xml"/></resource></resources></manifest>')


def _billion_laughs(root: bytes) -> bytes:
    """The classic entity bomb: nine levels of ten references each, a few hundred bytes asking for gigabytes."""
    levels = [b'<!ENTITY lol0 "lol">']
    levels += [b'<!ENTITY lol%d "%s">' % (n, b"&lol%d;" % (n - 1) * 10) for n in range(1, 10)]
    return (b'<?xml version="1.0"?>\n<!DOCTYPE %s [\n%s\n]>\n<%s identifier="x" title="&lol9;" time-dependent="false"/>'
            % (root, b"\n".join(levels), root))


_LAUGHS = _billion_laughs(b"qti-assessment-item")


def _refused(data: bytes, match: str) -> None:
    start = time.monotonic()
    with pytest.raises(InteropError, match=match):
        qti.read(data, "hostile.zip")
    assert time.monotonic() - start < 3


def test_zip_slip_member_is_refused():
    _refused(_zip({"imsmanifest.xml": _MANIFEST, "items/i.xml": _ITEM, "../evil.xml": _ITEM}), "outside the package")


def test_absolute_member_path_is_refused():
    _refused(_zip({"imsmanifest.xml": _MANIFEST, "items/i.xml": _ITEM, "/etc/evil.xml": _ITEM}),
             "outside the package")


def test_member_that_unpacks_huge_is_refused():
    bomb = _zip({"imsmanifest.xml": _MANIFEST, "items/i.xml": _ITEM, "items/media/big.png": b"\0" * (48 << 20)})
    assert len(bomb) < 200_000
    _refused(bomb, "MB unpacked")


def test_member_compressed_beyond_reason_is_refused():
    _refused(_zip({"imsmanifest.xml": _MANIFEST, "items/i.xml": _ITEM, "items/media/pad.png": b"\0" * (4 << 20)}),
             "zip bomb")


def test_xml_bomb_inside_an_item_is_refused():
    _refused(_zip({"imsmanifest.xml": _MANIFEST, "items/i.xml": _LAUGHS}), "entities")


def test_xml_bomb_in_the_manifest_or_a_single_file_is_refused():
    _refused(_zip({"imsmanifest.xml": _billion_laughs(b"manifest")}), "entities")
    _refused(_LAUGHS, "entities")


def test_external_entity_is_refused():
    xxe = (b'<?xml version="1.0"?><!DOCTYPE qti-assessment-item [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
           b'<qti-assessment-item identifier="x" title="&x;" time-dependent="false"/>')
    _refused(_zip({"imsmanifest.xml": _MANIFEST, "items/i.xml": xxe}), "entities|external")


# --------------------------------------------------------------------------
# Recognising QTI


def test_sniff_recognises_qti_and_nothing_else():
    assert qti.sniff(qti.write([_every_kind()[-1]]).data)
    assert qti.sniff(_ITEM)
    assert qti.sniff((FILES / "test_package/assessment-test.xml").read_bytes())
    assert qti.sniff((FILES / "qti21_choice.xml").read_bytes())
    assert qti.sniff("\ufeff".encode("utf-8") + _ITEM.replace(b'<?xml version="1.0" encoding="UTF-8"?>', b""))
    assert not qti.sniff(b'<?xml version="1.0"?><quiz><question type="essay"/></quiz>')
    assert not qti.sniff(b"::Q1:: What is 2+2? {=4 ~5}")
    assert not qti.sniff(_zip({"readme.txt": b"hello", "data.xml": b"<data/>"}))
    assert not qti.sniff(b"")
    assert not qti.sniff(b"PK\x03\x04 not really a zip")
