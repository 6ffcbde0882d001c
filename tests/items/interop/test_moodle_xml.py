"""Moodle XML in and out: real export files from Moodle 4.x and 1.9, broken and hostile files, and a round trip."""
from __future__ import annotations

import base64
import json
import re
import time
from pathlib import Path

import defusedxml.ElementTree as SafeET
import pytest

from core.items.interop import moodle_xml
from core.items.interop.model import (ALGEBRAIC, CHOICE, ESSAY, MULTI, NUMERIC, SHORT, Choice, InteropError, Media,
                                      NumericAnswer, Question)

FILES = Path(__file__).parent / "files" / "moodle"
PNG_RED = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGM4IScHRAwQCgAfJgQRoo8"
                           "irwAAAABJRU5ErkJggg==")
PNG_GREEN = base64.b64decode("iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEElEQVR4nGOQW2ADRAwQCgAa7gPphzi"
                             "BgAAAAABJRU5ErkJggg==")
MP3 = base64.b64decode("SUQzAwAAAAAACgAAAAAAAAAAAAD/+5BkAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==")


def read_file(name: str):
    return moodle_xml.read((FILES / name).read_bytes(), name)


def by_name(result, name: str) -> Question:
    return next(q for q in result.questions if q.name == name)


def reason(result, name: str) -> str:
    return next(s.reason for s in result.skipped if s.question == name)


# --------------------------------------------------------------------------
# Sniffing


def test_sniff_knows_moodle_xml_from_other_files():
    assert moodle_xml.sniff((FILES / "moodle4_export.xml").read_bytes())
    assert moodle_xml.sniff((FILES / "moodle19_old_format.xml").read_bytes())
    assert moodle_xml.sniff(b"\xef\xbb\xbf<?xml version='1.0'?>\n<!-- exported -->\n<!-- twice -->\n<quiz>\n</quiz>")
    assert moodle_xml.sniff("<?xml version='1.0' encoding='UTF-16'?><quiz/>".encode("utf-16"))
    assert not moodle_xml.sniff((FILES / "not_a_quiz.xml").read_bytes())
    assert not moodle_xml.sniff(b"::Q1:: What is 2+2? {=4 ~5}")
    assert not moodle_xml.sniff(b'<?xml version="1.0"?><qti-assessment-item identifier="a"/>')
    assert not moodle_xml.sniff(b"<quizzes/>")
    assert not moodle_xml.sniff(b"")


# --------------------------------------------------------------------------
# Reading a Moodle 4.x export


@pytest.fixture(scope="module")
def export():
    return read_file("moodle4_export.xml")


def test_export_reads_what_it_can_and_skips_the_rest_with_reasons(export):
    assert export.format == "moodle-xml"
    assert [q.name for q in export.questions] == [
        "Speed of a wave", "Transverse waves", "Sound in a vacuum", "Length of the bench", "Capital of France",
        "Noble gas", "Explain resonance", "What is the sound", "Auto-format question", "Escaped HTML, no CDATA",
        "Markdown essay", "question 20"]
    assert reason(export, "Read this first") == "a description has no question to answer."
    assert "Cloze (embedded answers)" in reason(export, "Cloze: wave words")
    assert "Matching question" in reason(export, "Match the quantities")
    assert "Drag and drop into text" in reason(export, "Drag the words")
    assert "Calculated question" in reason(export, "Calculated speed")
    assert "Ordering question" in reason(export, "Order the planets")
    assert "qtype_from_the_future" in reason(export, "Hologram question")
    assert "no options" in reason(export, "No options at all")
    assert "'about twelve' is not a number" in reason(export, "Not a number")
    assert "question text is empty" in reason(export, "Text missing")
    assert len(export.skipped) == 10


def test_export_categories_follow_the_category_pseudo_questions(export):
    assert by_name(export, "Speed of a wave").category == ["Default for Physics 101"]
    assert by_name(export, "Transverse waves").category == ["Default for Physics 101", "Waves & sound"]
    assert by_name(export, "question 20").category == ["Default for Physics 101", "Waves & sound"]


def test_export_single_choice_with_pictures_in_text_and_feedback(export):
    q = by_name(export, "Speed of a wave")
    assert q.kind == CHOICE and q.shuffle and q.marks == 2.0
    assert q.stem == ("A wave has frequency $f = 50\\,\\mathrm{Hz}$ and wavelength $\\lambda = 2\\,\\mathrm{m}$. "
                      "What is its speed?\n\n![A wave with two crests marked](wave%20diagram.png)")
    assert [(c.text, c.fraction) for c in q.choices] == [("100 m/s", 1.0), ("25 m/s", 0.0), ("52 m/s", 0.0)]
    assert q.choices[0].feedback == "![tick](tick.png) Right: 50 × 2 = 100."
    assert q.choices[1].feedback == "You divided $f$ by $\\lambda$."
    assert [(m.name, m.mime, m.data) for m in q.media] == [("wave diagram.png", "image/png", PNG_RED),
                                                           ("tick.png", "image/png", PNG_GREEN)]
    assert q.general_feedback == "Use $v = f\\lambda$."
    assert q.correct_feedback == "Your answer is correct." and q.incorrect_feedback == "Your answer is incorrect."
    assert q.hints == ["Speed is distance per second."]
    assert q.tags == ["waves", "Nat 5"]
    assert q.provenance == {"idnumber": "PHY-WAVE-01"}


def test_export_multiple_answers_keep_partial_and_negative_marks(export):
    q = by_name(export, "Transverse waves")
    assert q.kind == MULTI and not q.shuffle and q.marks == 3.0
    assert [c.text for c in q.choices] == ["Light", "Water surface waves", "Microwaves", "Sound in air"]
    assert [c.fraction for c in q.choices] == [1 / 3, 1 / 3, 1 / 3, -1.0]
    assert q.choices[3].feedback == "Sound in air is longitudinal."
    assert any("partly right" in n for n in q.notes)
    assert q.stem == "Which of these are **transverse** waves? Choose all that apply."


def test_export_true_false_is_a_choice_of_true_then_false(export):
    q = by_name(export, "Sound in a vacuum")
    assert q.kind == CHOICE and not q.shuffle
    assert [(c.text, c.fraction, c.feedback) for c in q.choices] == [
        ("True", 0.0, "No: there is nothing to vibrate."), ("False", 1.0, "Right.")]
    assert q.general_feedback == "Sound needs particles to vibrate."


def test_export_numerical_answers_tolerances_and_units(export):
    q = by_name(export, "Length of the bench")
    assert q.kind == NUMERIC and q.units == "m"
    assert q.numbers == [NumericAnswer("1.85", 0.02, 1.0, "Well measured."),
                         NumericAnswer("1.85", 0.1, 0.5, "Close, but measure more carefully.")]
    assert q.incorrect_feedback == "Check the units: the answer is in metres."    # Moodle's "any other answer"
    assert any("cm" in n and "100" in n for n in q.notes)


def test_export_short_answers_case_wildcards_and_escaped_stars(export):
    q = by_name(export, "Capital of France")
    assert q.kind == SHORT and q.case_sensitive
    assert q.answers == [Choice("Paris", 1.0, "Correct."), Choice("Lutetia", 0.5, "That was its Roman name.")]
    assert q.incorrect_feedback == "No. The capital of France is Paris."
    gas = by_name(export, "Noble gas")
    assert not gas.case_sensitive
    assert [a.text for a in gas.answers] == ["Neon", "*on", "2*3"]      # \* is a real asterisk
    assert any("'*on'" in n and "wildcard" in n for n in gas.notes)


def test_export_essay_keeps_the_grader_information(export):
    q = by_name(export, "Explain resonance")
    assert q.kind == ESSAY and q.marks == 4.0
    assert q.stem == "Explain what resonance is, with an example."
    assert q.grader_info.startswith("One mark each for: natural frequency;")
    assert any("response template" in n for n in q.notes)


def test_export_sounds_are_kept_and_named_in_the_text(export):
    q = by_name(export, "What is the sound")
    assert q.stem == "Listen, then name the instrument.\n\n![](bell.mp3)"
    assert [(m.name, m.mime, m.data) for m in q.media] == [("bell.mp3", "audio/mpeg", MP3)]


def test_export_other_text_formats(export):
    auto = by_name(export, "Auto-format question")
    assert auto.stem == "Which unit measures frequency?\nPick one.\n\n(Hint: think of Heinrich.)"
    assert auto.kind == CHOICE and auto.shuffle                       # <single>1</single>, <shuffleanswers>1
    assert [c.text for c in auto.choices] == ["hertz", "newton <N>"]  # plain text stays as typed
    assert by_name(export, "Escaped HTML, no CDATA").stem == "Write the symbol for **sodium**."
    md = by_name(export, "Markdown essay")
    assert md.stem == "Describe **one** use of ultrasound.\n\n![Scan](scan.png)"
    assert [m.name for m in md.media] == ["scan.png"]
    assert md.grader_info == "Medical scans, cleaning, sonar."
    assert by_name(export, "question 20").stem == "A question with no name: what is $2^{10}$?"


# --------------------------------------------------------------------------
# Older files, other encodings


def test_old_format_file_reads_sensibly():
    result = read_file("moodle19_old_format.xml")
    assert not result.skipped
    mirror = by_name(result, "Mirror image")
    assert mirror.category == ["Optics", "Mirrors"]                 # no "top" in 1.9 paths
    assert mirror.kind == CHOICE and mirror.shuffle
    assert [(c.text, c.fraction) for c in mirror.choices] == [("Concave", 1.0), ("Convex", 0.0), ("Plane", 0.0)]
    assert mirror.choices[0].feedback == "Yes: a concave mirror focuses light."
    assert mirror.stem == "Which mirror can form a real image?\n\n![](pics_mirror.png)"      # <image_base64>
    assert [(m.name, m.data) for m in mirror.media] == [("pics_mirror.png", PNG_RED)]
    plane = by_name(result, "Plane mirror")                          # answers in German: order decides
    assert [(c.text, c.fraction, c.feedback) for c in plane.choices] == [("True", 1.0, "Richtig."),
                                                                         ("False", 0.0, "Nein.")]
    assert any("true/false" in n for n in plane.notes)
    g = by_name(result, "Acceleration due to gravity")
    assert g.stem == "What is g on Earth, in m/s²?"
    assert g.numbers == [NumericAnswer("9.8", 0.1, 1.0, "")] and g.units == "m/s2"   # <fraction>1</fraction>
    assert any("earth.jpg" in n for n in g.notes)
    lens = by_name(result, "Lens word")
    assert [a.text for a in lens.answers] == ["converging", "convex"]     # text directly inside <answer>
    colours = by_name(result, "Colours of light")
    assert colours.kind == MULTI and not colours.shuffle
    assert [c.fraction for c in colours.choices] == [0.5, 0.5, -0.5]
    rainbow = by_name(result, "Rainbow")
    assert rainbow.kind == ESSAY and rainbow.marks == 5.0
    assert rainbow.general_feedback == "Refraction, dispersion and reflection in raindrops."


def test_windows_1252_file_declared_as_such_reads_its_accents():
    q = read_file("windows1252.xml").questions[0]
    assert q.name == "Le café de Müller"
    assert q.category == ["Français"]
    assert q.stem == "Combien coûte un café ? Réponse en euros (€) – sans le symbole."
    assert q.general_feedback == "C’est écrit sur l’ardoise : 2,50 €."
    assert q.answers[0].feedback == "Très bien."
    assert not any("UTF-8" in n for n in q.notes)


def test_windows_1252_file_mislabelled_as_utf8_is_read_with_a_note():
    data = (FILES / "windows1252.xml").read_bytes().replace(b'encoding="windows-1252"', b'encoding="UTF-8"')
    q = moodle_xml.read(data, "old.xml").questions[0]
    assert q.stem == "Combien coûte un café ? Réponse en euros (€) – sans le symbole."
    assert any("not UTF-8" in n and "Windows-1252" in n for n in q.notes)


def test_marks_written_from_0_to_1_are_read_as_full_marks_with_a_note():
    data = b"""<?xml version="1.0"?><quiz><question type="multichoice"><name><text>Scale</text></name>
      <questiontext format="html"><text>Pick</text></questiontext>
      <answer fraction="1"><text>right</text></answer><answer fraction="0"><text>wrong</text></answer>
    </question></quiz>"""
    q = moodle_xml.read(data, "scale.xml").questions[0]
    assert [c.fraction for c in q.choices] == [1.0, 0.0]
    assert any("0 to 1" in n for n in q.notes)


def test_files_with_the_same_name_in_two_fields_are_both_kept():
    red, green = base64.b64encode(PNG_RED).decode(), base64.b64encode(PNG_GREEN).decode()
    data = f"""<?xml version="1.0"?><quiz><question type="shortanswer"><name><text>Two</text></name>
      <questiontext format="html"><text><![CDATA[<p><img src="@@PLUGINFILE@@/image.png" alt="a"></p>
        <p><img src="https://elsewhere.example/logo.png" alt="web"></p>]]></text>
        <file name="image.png" path="/" encoding="base64">{red}</file></questiontext>
      <generalfeedback format="html"><text><![CDATA[<p><img src="@@PLUGINFILE@@/image.png" alt="b"></p>]]></text>
        <file name="image.png" path="/" encoding="base64">{green}</file></generalfeedback>
      <answer fraction="100"><text>x</text></answer></question></quiz>""".encode()
    q = moodle_xml.read(data, "two.xml").questions[0]
    assert q.stem == "![a](image.png)"
    assert q.general_feedback == "![b](image-2.png)"
    assert [(m.name, m.data) for m in q.media] == [("image.png", PNG_RED), ("image-2.png", PNG_GREEN)]
    assert any("elsewhere.example" in n for n in q.notes)


# --------------------------------------------------------------------------
# Files that cannot be read at all


@pytest.mark.parametrize("name, words", [
    ("malformed.xml", "not well-formed XML"),
    ("not_a_quiz.xml", "<questestinterop>"),
])
def test_unreadable_files_give_one_line_errors(name, words):
    with pytest.raises(InteropError) as err:
        read_file(name)
    message = str(err.value)
    assert words in message and name in message and "\n" not in message


def test_a_file_that_is_not_xml_at_all_is_refused():
    with pytest.raises(InteropError) as err:
        moodle_xml.read(PNG_RED, "picture.png")
    assert "picture.png" in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("name", ["billion_laughs.xml", "external_entity.xml"])
def test_hostile_xml_is_refused_quickly(name):
    start = time.monotonic()
    with pytest.raises(InteropError) as err:
        read_file(name)
    assert time.monotonic() - start < 2
    assert name in str(err.value) and "\n" not in str(err.value)
    assert "/etc/passwd" not in str(err.value) and "root:" not in str(err.value)


# --------------------------------------------------------------------------
# Writing, and reading back what was written

AWKWARD_PROVENANCE = {
    "item": "it-0001", "blueprint": "SQA.MATH.N5.SURDS", "version": "3", "level": "hard", "seed": "1234567890",
    "method": "mcq",
    "keywords": json.dumps(["a, b", "c"]),
    "key": "x < 3 & y > 2 ]]> `tick` 100%",
    "accepted": json.dumps(["½", "0.5", "1/2"], ensure_ascii=False),
    "note": "line one\nline two\ttabbed  double  spaced ",
    "long": "α" * 120,
    "empty": "",
    "equals": "a=b=c",
    "percent": "%41%",
    "space key": "v",
    "k=v": "x",
}


def sample_questions() -> list[Question]:
    picture = Media("pie chart.png", "image/png", PNG_RED)
    tick = Media("tick.png", "image/png", PNG_GREEN)
    bell = Media("bell.mp3", "audio/mpeg", MP3)
    sheet = Media("work sheet.pdf", "application/pdf", b"%PDF-1.4\n% a worksheet\n")
    return [
        Question(CHOICE, "it-0001", "Work out $\\frac{1}{2} + \\frac{1}{4}$ when **both** are < 1 & > 0.\n\n"
                 "![A pie chart](pie%20chart.png)",
                 choices=[Choice("$\\frac{3}{4}$", 1.0, "![tick](tick.png) Yes."),
                          Choice("$\\frac{2}{6}$", 0.0, "You added the tops ]]> and the bottoms."),
                          Choice("$\\frac{1}{8}$", 0.0, "")],
                 shuffle=False, general_feedback="Make the denominators the same: $\\frac{2}{4} + \\frac{1}{4}$.",
                 correct_feedback="Well done.", incorrect_feedback="Look at the quarters.",
                 hints=["Halves are two quarters.", "Then add."], marks=2.0,
                 category=["Mathematics", "Nat 5", "SQA.MATH.N5.SURDS"], provenance=dict(AWKWARD_PROVENANCE),
                 media=[picture, tick]),
        Question(CHOICE, "tf-1", "The square root of 2 is rational.",
                 choices=[Choice("True", 0.0, "It cannot be written as a fraction."), Choice("False", 1.0, "")],
                 shuffle=False, category=["Mathematics", "Nat 5", "SQA.MATH.N5.SURDS"],
                 provenance={"item": "tf-1", "seed": "7"}),
        Question(MULTI, "multi-1", "Which are prime?",
                 choices=[Choice("2", 1 / 3), Choice("3", 1 / 3), Choice("5", 1 / 3), Choice("9", -1.0, "9 = 3 × 3")],
                 shuffle=True, category=["Mathematics", "Primes / factors"], provenance={"item": "multi-1"}),
        Question(NUMERIC, "num-1", "A rod is $12.5$ cm long, give or take a little. How long is it?",
                 numbers=[NumericAnswer("12.5", 0.1, 1.0, "Right."), NumericAnswer("12.5", 0.5, 0.5, "Nearly.")],
                 units="cm", incorrect_feedback="Measure again.", general_feedback="Read the scale.", marks=3.0,
                 category=["Mathematics", "Primes / factors"],
                 provenance={"item": "num-1", "tolerance_relative": "0.01"}),
        Question(NUMERIC, "num-2", "The charge of an electron, in coulombs (magnitude)?",
                 numbers=[NumericAnswer("1.602E-19", 1e-21, 1.0, "")], category=["Physics"],
                 provenance={"item": "num-2"}),
        Question(SHORT, "short-1", "Name the capital of Scotland.",
                 answers=[Choice("Edinburgh", 1.0, "Yes."), Choice("Dun Eideann", 0.5, "In Gaelic, yes.")],
                 case_sensitive=True, category=["Physics"], provenance={"item": "short-1", "method": "short_text"}),
        Question(ALGEBRAIC, "alg-1", "Expand $2(x + 3)$.",
                 answers=[Choice("2*x + 6", 1.0), Choice("2x + 6", 1.0), Choice("6 + 2x", 1.0)],
                 category=[], provenance={"item": "alg-1", "method": "algebraic_equivalence", "key": "2x+6"}),
        Question(ESSAY, "essay-1", "Explain why $\\sqrt{2}$ is irrational.",
                 grader_info="A right answer makes 2 of these 3 points: assume a fraction; both even; contradiction.",
                 keywords=["assume a fraction", "both even", "contradiction"], marks=4.0, category=[],
                 hints=["Suppose it were $\\frac{p}{q}$."], incorrect_feedback="See the proof by contradiction.",
                 correct_feedback="A clear proof.", provenance={"item": "essay-1", "method": "short_text"}),
        Question(SHORT, "sound-1", "Listen and name the instrument.\n\n![The sound](bell.mp3)\n\n"
                 "Write it on ![the worksheet](work%20sheet.pdf) too.",
                 answers=[Choice("bell", 1.0)], category=[], provenance={"item": "sound-1"}, media=[bell, sheet],
                 tags=["listening", "Nat 4"]),
    ]


def compare(read: Question, wrote: Question) -> None:
    assert read.kind == (SHORT if wrote.kind == ALGEBRAIC else wrote.kind)
    for field in ("name", "stem", "choices", "numbers", "answers", "units", "general_feedback", "category",
                  "provenance", "media", "marks", "hints", "grader_info", "keywords", "case_sensitive", "tags",
                  "correct_feedback", "incorrect_feedback"):
        assert getattr(read, field) == getattr(wrote, field), (wrote.name, field)
    if wrote.kind in (CHOICE, MULTI):
        assert read.shuffle == wrote.shuffle


@pytest.fixture(scope="module")
def written():
    return moodle_xml.write(sample_questions())


def test_round_trip_gives_back_every_question(written):
    questions = sample_questions()
    assert written.format == "moodle-xml" and written.filename == "questions.xml"
    assert written.skipped == []
    assert written.written == [q.name for q in questions]
    result = moodle_xml.read(written.data, written.filename)
    assert result.skipped == []
    assert len(result.questions) == len(questions)
    for read, wrote in zip(result.questions, questions):
        compare(read, wrote)
        assert read.notes == []


def test_written_file_has_the_structure_moodle_expects(written):
    root = SafeET.fromstring(written.data)
    assert root.tag == "quiz"
    kinds = [q.get("type") for q in root.findall("question")]
    assert kinds == ["category", "multichoice", "multichoice", "category", "multichoice", "numerical", "category",
                     "numerical", "shortanswer", "category", "shortanswer", "essay", "shortanswer"]
    categories = [q.findtext("category/text") for q in root.findall("question") if q.get("type") == "category"]
    assert categories == ["$course$/top/Mathematics/Nat 5/SQA.MATH.N5.SURDS",
                          "$course$/top/Mathematics/Primes // factors", "$course$/top/Physics", "$course$/top"]
    real = [q for q in root.findall("question") if q.get("type") != "category"]
    for q in real:
        assert q.find("name/text").text
        assert q.find("questiontext").get("format") == "html"
        assert q.findtext("questiontext/text").startswith("<p>")
        assert q.find("generalfeedback") is not None and q.findtext("hidden") == "0"
        assert float(q.findtext("defaultgrade")) > 0 and q.findtext("penalty") is not None
        assert q.findtext("idnumber") == q.findtext("name/text")        # the item id
    choice, tf, multi, num, num2, short, alg, essay, sound = real
    assert choice.findtext("single") == "true" and choice.findtext("shuffleanswers") == "false"
    assert choice.findtext("answernumbering") == "abc"
    assert [a.get("fraction") for a in choice.findall("answer")] == ["100", "0", "0"]
    assert choice.find("answer").get("format") == "html"
    assert choice.findtext("answer/text") == "<p>\\(\\frac{3}{4}\\)</p>"
    assert choice.findtext("correctfeedback/text") == "<p>Well done.</p>"
    assert choice.find("partiallycorrectfeedback") is not None
    assert choice.findtext("incorrectfeedback/text") == "<p>Look at the quarters.</p>"
    assert [h.findtext("text") for h in choice.findall("hint")] == ["<p>Halves are two quarters.</p>",
                                                                   "<p>Then add.</p>"]
    assert choice.find("hint").get("format") == "html"
    stem_html = choice.findtext("questiontext/text")
    assert '<img src="@@PLUGINFILE@@/pie%20chart.png" alt="A pie chart"/>' in stem_html
    assert "\\(\\frac{1}{2} + \\frac{1}{4}\\)" in stem_html and "&lt; 1 &amp; &gt; 0" in stem_html
    files = choice.findall("questiontext/file")
    assert [(f.get("name"), f.get("path"), f.get("encoding")) for f in files] == [
        ("pie chart.png", "/", "base64"), ("tick.png", "/", "base64")]
    assert base64.b64decode(files[0].text) == PNG_RED
    feedback_files = choice.findall("answer/feedback/file")          # Moodle shows a file from its own field
    assert [f.get("name") for f in feedback_files] == ["tick.png"]
    assert [a.get("fraction") for a in tf.findall("answer")] == ["0", "100"]
    assert multi.findtext("single") == "false"
    assert [a.get("fraction") for a in multi.findall("answer")] == ["33.33333", "33.33333", "33.33333", "-100"]
    assert [(a.get("fraction"), a.findtext("text"), a.findtext("tolerance")) for a in num.findall("answer")] == [
        ("100", "12.5", "0.1"), ("50", "12.5", "0.5"), ("0", "*", "0")]
    assert num.findtext("units/unit/unit_name") == "cm" and num.findtext("units/unit/multiplier") == "1"
    assert (num.findtext("unitgradingtype"), num.findtext("showunits"), num.findtext("unitsleft")) == ("0", "0", "0")
    assert num2.findtext("answer/text") == "1.602E-19" and float(num2.findtext("answer/tolerance")) == 1e-21
    assert num2.findtext("showunits") == "3" and num2.find("units") is None
    assert short.findtext("usecase") == "1"
    assert [(a.get("fraction"), a.findtext("text")) for a in short.findall("answer")] == [
        ("100", "Edinburgh"), ("50", "Dun Eideann")]
    assert alg.findtext("usecase") == "0"
    assert [a.findtext("text") for a in alg.findall("answer")] == ["2\\*x + 6", "2x + 6", "6 + 2x"]
    assert essay.findtext("responseformat") == "editor" and essay.find("graderinfo").get("format") == "html"
    assert "assume a fraction" in essay.findtext("graderinfo/text")
    sound_html = sound.findtext("questiontext/text")
    assert '<audio controls="controls" title="The sound"><source src="@@PLUGINFILE@@/bell.mp3"/>' in sound_html
    assert '<a href="@@PLUGINFILE@@/work%20sheet.pdf">the worksheet</a>' in sound_html
    assert "workbench-incorrect-feedback" in essay.findtext("graderinfo/text")
    assert [t.findtext("text") for t in sound.findall("tags/tag")][-2:] == ["listening", "Nat 4"]
    raw = written.data.decode("utf-8")
    assert raw.startswith('<?xml version="1.0" encoding="UTF-8"?>\n<quiz>')
    assert "<text><![CDATA[<p>Work out" in raw


def _moodle_tag(text: str) -> str:
    """What Moodle keeps of a tag name (clean_param PARAM_TAG)."""
    text = re.sub(r"[\x00-\x1f\x7f<>`]", "", text)
    return re.sub(r"\s+", " ", text).strip()[:50]


def test_provenance_tags_survive_moodles_tag_rules_and_any_order(written):
    root = SafeET.fromstring(written.data)
    first = [q for q in root.findall("question") if q.get("type") == "multichoice"][0]
    tags = [t.findtext("text") for t in first.findall("tags/tag")]
    assert "workbench:item=it-0001" in tags and "workbench:blueprint=SQA.MATH.N5.SURDS" in tags
    for tag in tags:
        assert _moodle_tag(tag) == tag and "," not in tag
    # Moodle may give the tags back in another order: the provenance still reads back whole.
    block = re.search(rb"<tags>\n(.*?)\n    </tags>", written.data, re.S)
    reordered = written.data.replace(block[1], b"\n".join(reversed(block[1].split(b"\n"))), 1)
    again = moodle_xml.read(reordered, "reordered.xml").questions[0]
    assert again.provenance == AWKWARD_PROVENANCE


def test_missing_piece_of_provenance_is_noted_not_invented(written):
    root_text = written.data.decode()
    piece = re.search(r"      <tag><text>workbench\*\d+\.2/\d+:[^<]*</text></tag>\n", root_text)
    q = moodle_xml.read(root_text.replace(piece[0], "", 1).encode(), "cut.xml").questions[0]
    assert any("provenance" in n for n in q.notes)
    assert set(q.provenance) < set(AWKWARD_PROVENANCE)


def test_questions_moodle_cannot_hold_are_skipped_with_reasons():
    good = Question(SHORT, "fine", "Say hi.", answers=[Choice("hi", 1.0)])
    bad = [
        Question(CHOICE, "odd-mark", "Pick.", choices=[Choice("a", 1.0), Choice("b", 0.35)]),
        Question(CHOICE, "no-key", "Pick.", choices=[Choice("a", 0.5), Choice("b", 0.0)]),
        Question(CHOICE, "one-option", "Pick.", choices=[Choice("a", 1.0)]),
        Question(MULTI, "too-much", "Pick all.", choices=[Choice("a", 1.0), Choice("b", 1.0), Choice("c", 0.0)]),
        Question(NUMERIC, "words", "How many?", numbers=[NumericAnswer("twelve", 0.0, 1.0)]),
        Question(SHORT, "no-answers", "Say?", answers=[]),
        Question("hotspot", "hotspot", "Click the map."),
        Question(SHORT, "no-text", "  ", answers=[Choice("x", 1.0)]),
    ]
    result = moodle_xml.write([bad[0], good] + bad[1:])
    assert result.written == ["fine"]
    reasons = {s.question: s.reason for s in result.skipped}
    assert set(reasons) == {q.name for q in bad}
    assert "35%" in reasons["odd-mark"] and "Moodle does not accept" in reasons["odd-mark"]
    assert "full marks" in reasons["no-key"]
    assert "at least two" in reasons["one-option"]
    assert "200%" in reasons["too-much"]
    assert "'twelve'" in reasons["words"]
    assert "no accepted answer" in reasons["no-answers"]
    assert "hotspot" in reasons["hotspot"]
    assert "no question text" in reasons["no-text"]
    back = moodle_xml.read(result.data, "x.xml")
    assert [q.name for q in back.questions] == ["fine"] and back.skipped == []


def test_text_with_cdata_ends_and_control_characters_stays_well_formed():
    bell = Question(SHORT, "bell", "Ring\x07 the bell\x0b.", answers=[Choice("ding\x00", 1.0)])
    back = moodle_xml.read(moodle_xml.write([bell]).data, "bell.xml").questions[0]
    assert back.stem == "Ring the bell." and back.answers == [Choice("ding", 1.0)]
    q = Question(SHORT, "cdata ]]> name", "Type ]]> exactly, then ]]]]> too.",
                 answers=[Choice("]]>", 1.0, "Yes, ]]>.")], general_feedback="a ]]> b")
    data = moodle_xml.write([q]).data
    assert b"<text><![CDATA[]]]]><![CDATA[>]]></text>" in data        # "]]>" cannot end the CDATA early
    SafeET.fromstring(data)                                          # parses as XML on its own
    back = moodle_xml.read(data, "cdata.xml").questions[0]
    assert (back.name, back.stem, back.answers, back.general_feedback) == (
        q.name, q.stem, q.answers, q.general_feedback)


def test_dollar_signs_that_are_not_maths_are_pointed_out():
    data = b"""<?xml version="1.0"?><quiz><question type="numerical"><name><text>Price</text></name>
      <questiontext format="html"><text><![CDATA[<p>A pen costs $2 and a book $5. Total, \\(x\\)?</p>]]></text>
      </questiontext><answer fraction="100"><text>7</text><tolerance>0</tolerance></answer></question>
      <question type="numerical"><name><text>Plain</text></name>
      <questiontext format="html"><text><![CDATA[<p>What is \\(3 + 4\\)?</p>]]></text></questiontext>
      <answer fraction="100"><text>7</text></answer></question></quiz>"""
    price, plain = moodle_xml.read(data, "price.xml").questions
    assert any("dollar" in n for n in price.notes)
    assert plain.stem == "What is $3 + 4$?" and plain.notes == []
