"""GIFT in and out: files written after Moodle's "GIFT format" documentation, read the way Moodle reads them,
and questions of every kind written, checked line by line and read back whole."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import pytest

from core.items.interop import gift
from core.items.interop.model import (ALGEBRAIC, CHOICE, ESSAY, MULTI, NUMERIC, SHORT, Choice, InteropError, Media,
                                      NumericAnswer, Question)
from core.items.interop.safety import MAX_FILE_BYTES

FILES = Path(__file__).parent / "files" / "gift"


def read(name: str):
    return gift.read((FILES / name).read_bytes(), name)


def named(result) -> dict[str, Question]:
    return {q.name: q for q in result.questions}


def options(q: Question) -> list[tuple]:
    return [(c.text, c.fraction, c.feedback) for c in q.choices]


def moodle_unescape(text: str) -> str:
    """What Moodle's importer makes of an escaped GIFT text, step by step as its escapedchar_pre/_post do."""
    marks = {"\\:": "&&058;", "\\#": "&&035;", "\\=": "&&061;", "\\{": "&&123;", "\\}": "&&125;", "\\~": "&&126;",
             "\\n": "&&010"}
    text = text.replace("\\\\", "&&092;")
    for escaped, mark in marks.items():
        text = text.replace(escaped, mark)
    text = text.replace("&&092;", "\\")
    for escaped, mark in marks.items():
        text = text.replace(mark, "\n" if escaped == "\\n" else escaped[1])
    return text


# --------------------------------------------------------------------------
# Recognising a GIFT file


def test_sniff_recognises_every_gift_file():
    for path in sorted(FILES.iterdir()):
        assert gift.sniff(path.read_bytes()), path.name


def test_sniff_refuses_xml_zip_and_other_text():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("imsmanifest.xml", "<manifest/>")
    assert not gift.sniff(buffer.getvalue())
    assert not gift.sniff(b'<?xml version="1.0"?><quiz><question type="category"/></quiz>')
    assert not gift.sniff(b"\xef\xbb\xbf<quiz></quiz>")
    assert not gift.sniff(b'{"questions": [{"stem": "x"}]}')
    assert not gift.sniff(b"Dear parents,\nthe trip is on Monday.\n")
    assert not gift.sniff(b"\\frac{1}{2} + \\sqrt{x}")
    assert not gift.sniff(b"\x00\x01\x02binary")
    assert gift.sniff(b"What is 2+2?{=4}") and gift.sniff(b"Solve: {=4}") and gift.sniff(b"How are you? {}")
    assert not gift.sniff(b'x = {"a": {}}')
    assert gift.sniff("Grant is buried in Grant's tomb.{F}".encode("utf-16"))
    assert gift.sniff(b"$CATEGORY: $course$/top/A\n")


# --------------------------------------------------------------------------
# Reading, construct by construct


def test_multiple_choice_missing_word_feedback_and_weights():
    result = read("choice.gift.txt")
    assert result.skipped == [] and result.format == "gift"
    qs = result.questions
    assert [q.name for q in qs[:3]] == ["question 1", "question 2", "question 3"]
    assert qs[0].kind == CHOICE and qs[0].stem == "Who's buried in Grant's tomb?"
    assert options(qs[0]) == [("Grant", 0.0, ""), ("Jefferson", 0.0, ""), ("no one", 1.0, "")]
    assert qs[1].stem == "Grant is _____ in Grant's tomb."          # missing word: the blank stays
    assert qs[1].right_choices() == [1]
    assert qs[2].stem == "The American holiday of Thanksgiving is celebrated on the _____ Thursday of November."
    q = named(result)
    assert options(q["Feedback"])[2] == ("right answer", 1.0, "Very good!")
    assert q["Partial credit"].kind == CHOICE and q["Partial credit"].stem == "Jesus Christ was from _____."
    assert [c.fraction for c in q["Partial credit"].choices] == [0.0, 0.25, 0.5, 1.0]
    primes = q["Primes"]
    assert primes.kind == MULTI
    assert options(primes) == [("2", 0.5, "right; 2 is the only even prime"), ("3", 0.5, "right"),
                               ("4", -1.0, "**wrong**: 4 = 2 × 2"), ("9", -1.0, "wrong")]
    thirds = q["Thirds"]
    assert thirds.kind == MULTI
    assert [c.fraction for c in thirds.choices] == [0.3333333, 0.3333333, 0.3333333, -1.0]


def test_true_false_in_every_spelling():
    qs = read("truefalse.gift.txt").questions
    assert all(q.kind == CHOICE and [c.text for c in q.choices] == ["True", "False"] for q in qs)
    assert [q.right_choices() for q in qs] == [[1], [0], [1], [0], [0]]
    q = {x.name: x for x in qs}
    # {FALSE#wrong#right}: the wrong feedback goes with the answer a student gets wrong (True here)
    assert options(q["TF feedback"]) == [("True", 0.0, "42 is the Ultimate Answer."),
                                         ("False", 1.0, "You gave the right answer.")]
    assert options(q["TF general"]) == [("True", 1.0, "Yes."), ("False", 0.0, "Try 3 × 3.")]
    assert q["TF general"].general_feedback == "Odd times odd is odd."
    assert options(q["TF only right feedback"]) == [("True", 1.0, "Well done."), ("False", 0.0, "")]
    assert all(not x.shuffle for x in qs)                          # Moodle shows True, then False


def test_short_answers_weights_catch_all_and_stars():
    q = named(read("short_answer.gift.txt"))
    first = q["question 1"]
    assert first.kind == SHORT and [(a.text, a.fraction) for a in first.answers] == [("no one", 1.0), ("nobody", 1.0)]
    assert q["question 2"].stem == "Two plus two equals _____."
    assert [(a.text, a.fraction, a.feedback) for a in q["Hometown"].answers] == [
        ("Nazareth", 1.0, "Yes! That's right!"), ("Nazereth", 0.75, "Right, but misspelled."),
        ("Bethlehem", 0.25, "He was born here, but not raised here.")]
    catch_all = q["Catch-all"]
    assert [a.text for a in catch_all.answers] == ["Frog", "Cat"]
    assert catch_all.incorrect_feedback == "Completely wrong"
    assert [a.text for a in q["Star"].answers] == ["2*x"] and q["Star"].notes == []
    wildcard = q["Wildcard"]
    assert [a.text for a in wildcard.answers] == ["1*7"]
    assert any("wildcard" in n for n in wildcard.notes)


def test_numeric_tolerances_ranges_and_partial_credit():
    result = read("numeric.gift.txt")
    q = named(result)
    assert q["question 1"].numbers == [NumericAnswer("1822", 5.0, 1.0, "")]
    assert q["question 2"].numbers == [NumericAnswer("3.1415", 0.0005, 1.0, "")]
    assert q["Range"].numbers == [NumericAnswer("3.5", 0.5, 1.0, "")]
    assert q["Pi range"].numbers == [NumericAnswer("3.1415", 0.0005, 1.0, "")]
    assert q["Negative range"].numbers == [NumericAnswer("-4", 1.0, 1.0, "")]
    partial = q["Partial"]
    assert partial.kind == NUMERIC
    assert partial.numbers == [NumericAnswer("3.14", 0.0, 1.0, ""),
                               NumericAnswer("3.1", 0.1, 0.5, "Close, but give two decimal places.")]
    assert partial.incorrect_feedback == "That is not close to pi."
    assert q["Exact"].numbers == [NumericAnswer("4", 0.0, 1.0, "")]
    # a bad answer is skipped with a reason, and the reading goes on
    assert [(s.question, s.reason) for s in result.skipped] == [("Not a number", "its answer 'six' is not a number")]
    assert q["After the bad one"].general_feedback == "Seven divided by two."


def test_essay_with_and_without_general_feedback():
    q = named(read("essay.gift.txt"))
    assert q["Q8"].kind == ESSAY and q["Q8"].stem == "How are you?" and q["Q8"].general_feedback == ""
    proof = q["Proof"]
    assert proof.kind == ESSAY
    assert proof.stem == r"Prove that $\sqrt{2}$ is irrational."
    assert proof.general_feedback == r"Assume $\sqrt{2} = p/q$ in lowest terms."


def test_text_formats_and_pictures():
    q = named(read("formats.gift.txt"))
    html_q = q["HTML"]
    assert html_q.stem == r"Which is **bigger**: $\frac{1}{2}$ or $\frac{1}{3}$?"
    assert options(html_q) == [(r"$\frac{1}{2}$", 1.0, "Right"),
                               (r"$\frac{1}{3}$", 0.0, "Halves are bigger than thirds.")]
    assert q["Moodle format"].stem == "First line\nsecond line with $x^2$ in it."
    assert q["Plain"].stem == "Type the tag <b> exactly as it is." and q["Plain"].answers[0].text == "<b>"
    assert q["Markdown"].stem == "Who's buried in **Grant's tomb**?"
    picture = q["Picture"]
    assert picture.stem == "What shape is this?\n\n![shape](picture1.png)"
    assert [(m.name, m.mime, m.data) for m in picture.media] == [("picture1.png", "image/png",
                                                                   b"\x89PNG\r\n\x1a\n")]
    missing = q["Missing picture"]
    assert missing.stem == "Read the graph." and missing.media == []
    assert any("graph.png" in n and "left out" in n for n in missing.notes)


def test_escapes_and_tex():
    q = read("escapes.gift.txt").questions
    assert [c.text for c in q[0].choices] == ["= 2 + 2", "= 2 + 3", "= 2 + 4"] and q[0].right_choices() == [1]
    control = q[1]
    assert [c.text for c in control.choices] == ["~", "=", "#", "{", "}", "\\"]
    assert control.right_choices() == [5]
    assert control.choices[5].feedback == "Correct! \\ (backslash) is not a control character."
    assert q[2].name == "Title with : a colon"
    assert q[2].stem == "A line\nbreak, and the time 10:30."
    assert q[3].stem == r"Simplify $\frac{12}{16}$."
    assert [a.text for a in q[3].answers] == ["3/4", r"\frac{3}{4}"]


def test_categories():
    result = read("categories.gift.txt")
    assert [(q.name, q.category) for q in result.questions] == [
        ("question 1", ["Algebra", "Surds"]), ("Square", ["Algebra", "Surds"]),
        ("Triangle", ["Shapes and/or space"]), ("Old style", ["tom", "dick", "harry"])]
    assert result.questions[0].stem == r"Is $\sqrt{2}$ rational?"


def test_unsupported_and_broken_questions_are_skipped_and_reading_goes_on():
    result = read("unsupported.gift.txt")
    assert [q.name for q in result.questions] == ["First", "Last"]
    reasons = {s.question: s.reason for s in result.skipped}
    assert reasons["question 2"] == "a matching question, which the workbench cannot hold"
    assert reasons["About"] == "a description has no question to answer"
    assert "braces do not match" in reasons["Unclosed"]
    assert "more than one answer block" in reasons["Two blocks"]
    assert reasons["One option"] == "a multiple-choice question needs at least two options"
    assert "any answer" in reasons["Any answer"]
    assert len(result.skipped) == 6


def test_provenance_tags_and_settings_from_comments():
    q = named(read("provenance.gift.txt"))
    surds = q["Surds"]
    assert surds.provenance == {"item": "it-0042", "blueprint": "SQA.MATH.N5.SURDS",
                                "note": "50% off [sale]\nnext line", "key=with=equals": "x=y",
                                "moodle_idnumber": "Q-42"}
    assert surds.tags == ["surds", "N5"] and surds.marks == 3.0
    assert [a.text for a in surds.answers] == [r"2\sqrt{2}"]
    assert q["Unrelated"].provenance == {}                       # a comment cut off by a blank line is no one's


def test_windows_1252_file_is_read_with_a_note():
    qs = read("windows1252.gift.txt").questions
    assert [q.name for q in qs] == ["Café", "Élève"]
    assert qs[0].stem == "Combien coûte un croissant ? Réponse en €."
    assert qs[0].numbers == [NumericAnswer("1.2", 0.05, 1.0, "")]
    assert all(any("Windows-1252" in n for n in q.notes) for q in qs)


def test_byte_order_mark_and_windows_line_ends():
    qs = read("bom.gift.txt").questions
    assert [q.name for q in qs] == ["Café", "Ελληνικά"]           # the mark is not part of the first title
    assert qs[1].stem == r"Τι είναι $\pi$ περίπου;" and qs[1].numbers[0].value == "3.14"
    assert all(q.notes == [] for q in qs)


def test_empty_and_comment_only_files_hold_nothing():
    for data in (b"", b"\n\n  \n", b"// only a comment\n// and another\n", b"\xef\xbb\xbf"):
        result = gift.read(data, "empty.gift.txt")
        assert result.questions == [] and result.skipped == []


# --------------------------------------------------------------------------
# Hostile files


def test_a_huge_file_is_refused_by_the_size_check():
    with pytest.raises(InteropError, match="MB"):
        gift.read(b"Q{=a}\n\n" * (MAX_FILE_BYTES // 7 + 1), "huge.gift.txt")


def test_a_binary_file_is_refused():
    with pytest.raises(InteropError, match="not a text file"):
        gift.read(b"PK\x03\x04\x00\x00binary", "questions.zip")


def test_unbalanced_braces_are_skipped_not_a_crash():
    result = read("unbalanced.gift.txt")
    assert [q.name for q in result.questions] == ["Fine"]
    assert [s.question for s in result.skipped] == ["Braces", "Deep", "Closing first"]
    flood = b"::Open::" + b"{" * 2_000_000 + b"\n\n::Close::" + b"}" * 2_000_000 + b"\n\nFine?{T}"
    result = gift.read(flood, "flood.gift.txt")
    assert [s.question for s in result.skipped] == ["Open", "Close"]
    assert [q.stem for q in result.questions] == ["Fine?"]
    assert not gift.sniff(b"x" * 70000)                           # a long line without braces is cheap to look at


def test_hostile_numbers_are_skipped():
    result = gift.read(b"::Big::Huge?{#1e999999999..2e999999999}\n\n::Inf::Inf?{#1e999:1}\n\n::Ok::Ok?{#1}", "n")
    assert [s.question for s in result.skipped] == ["Big", "Inf"]
    assert [q.name for q in result.questions] == ["Ok"]


# --------------------------------------------------------------------------
# Writing, and reading back


PROVENANCE = {"item": "it-7", "blueprint": "SQA.MATH.N5.FRACTIONS", "seed": "42",
              "odd key=x": "a\nb %20 [tag:x] \\ é ", "keywords": "x~y#z{w}:v"}


def every_kind() -> list[Question]:
    return [
        Question(CHOICE, "Q1: {odd} = name ~ #1 \\ end",
                 r"Simplify $\frac{12}{16}$ when $x = {3}$: what's $\sqrt{x}$?" "\n\n"
                 "Second paragraph with ~tilde, #hash, {braces}, a \\ backslash and a: colon.",
                 choices=[Choice(r"$\frac{3}{4}$", 1.0, "Yes: divide both by 4 = right"),
                          Choice(r"$\frac{6}{8}$", 0.5, "Not in lowest terms ~ yet"),
                          Choice("[1, 2]", 0.0, ""), Choice("%5 off", 0.0, "")],
                 general_feedback=r"Use $\gcd(12,16)=4$ {always}.",
                 category=["Mathematics", "N5/Surds", "Fractions: {a}"], provenance=dict(PROVENANCE),
                 tags=["fractions", "odd]tag"], marks=2.0),
        Question(CHOICE, "tf", r"The angles of a triangle add up to $180^\circ$.",
                 choices=[Choice("True", 1.0, "Good"), Choice("False", 0.0, "No: think of $a+b+c$")],
                 shuffle=False, category=["Mathematics", "N5/Surds", "Fractions: {a}"]),
        Question(CHOICE, "tf false", "Zero is odd.",
                 choices=[Choice("True", 0.0, ""), Choice("False", 1.0, "")], shuffle=True),
        Question(CHOICE, "in order", "Which is $2^{10}$?",
                 choices=[Choice("512", 0.0), Choice("1024", 1.0), Choice("2048", 0.0)], shuffle=False),
        Question(CHOICE, "two right", "Pick a name for $x$.",
                 choices=[Choice("ex", 1.0), Choice("x", 1.0)]),
        Question(MULTI, "multi", "Which are multiples of 3?",
                 choices=[Choice("3", 1 / 3), Choice("6", 1 / 3), Choice("9", 1 / 3),
                          Choice("10", -1.0, "No = 1 mod 3")]),
        Question(NUMERIC, "num", "Find the area of the square.", numbers=[NumericAnswer("12.5", 0.05)],
                 units="cm^2", relative_tolerance=0.004),
        Question(NUMERIC, "num in", "Find the length in cm.", numbers=[NumericAnswer("-0.25", 0.00001)],
                 units="cm"),
        Question(NUMERIC, "num2", r"Give $\pi$.", numbers=[NumericAnswer("3.14", 0.01, 1.0, "Good: 3.14"),
                                                            NumericAnswer("3.1", 0.1, 0.5)],
                 incorrect_feedback="Not close ~ at all", general_feedback="$\\pi \\approx 3.14159$"),
        Question(SHORT, "short", "Write $2x = y$ with a star.",
                 answers=[Choice("2*x = y", 1.0, "Yes #1"), Choice("x{2}~\\y:", 0.5, ""),
                          Choice("%d", 1.0), Choice("[a]", 1.0)],
                 case_sensitive=True, incorrect_feedback="Try again: {hint}", category=[]),
        Question(ALGEBRAIC, "alg", r"Expand $(x+1)^2$.", answers=[Choice("x^2+2x+1", 1.0), Choice("(x+1)^2", 0.0)],
                 provenance={"method": "algebraic"}),
        Question(ESSAY, "essay", "Explain why $\\sqrt{2}$ is irrational.", general_feedback="Look: {here}",
                 grader_info="Proof by contradiction", keywords=["contradiction", "lowest terms"], marks=5.0,
                 hints=["Assume p/q", "Square both sides"], correct_feedback="Well argued"),
    ]


def assert_same(original: Question, back: Question) -> None:
    kind = SHORT if original.kind == ALGEBRAIC else original.kind
    assert back.kind == kind, original.name
    for field in ("name", "stem", "choices", "numbers", "answers", "units", "general_feedback", "shuffle",
                  "category", "provenance", "media", "marks", "tags", "case_sensitive", "relative_tolerance",
                  "correct_feedback", "incorrect_feedback", "hints", "grader_info", "keywords"):
        assert getattr(back, field) == getattr(original, field), (original.name, field)


def test_round_trip_of_every_kind():
    questions = every_kind()
    out = gift.write(questions, title="Fractions\nand more")
    assert out.format == "gift" and out.filename == "questions.gift.txt"
    assert out.skipped == [] and out.written == [q.name for q in questions]
    text = out.data.decode("utf-8")
    lines = text.split("\n")

    # the file itself, checked line by line
    assert lines[0] == "// Fractions and more"
    assert "$CATEGORY: $course$/top/Mathematics/N5//Surds/Fractions: {a}" in lines
    assert lines.count("$CATEGORY: $course$/top/Mathematics/N5//Surds/Fractions: {a}") == 1   # only when it changes
    assert "$CATEGORY: $course$/top" in lines                                               # back to no category
    assert "// workbench: odd key%3Dx=a%0Ab %2520 %5Btag:x%5D %5C é%20" in lines
    assert "// workbench: keywords=x~y#z{w}:v" in lines
    assert "// [tag:fractions] [tag:odd\\]tag]" in lines
    assert '// workbench-setting: marks=2.0' in lines
    stem_line = next(line for line in lines if line.startswith("::Q1"))
    assert stem_line == ("::Q1\\: \\{odd\\} \\= name \\~ \\#1 \\\\ end::[html]"
                         "<p>Simplify \\\\(\\\\frac\\{12\\}\\{16\\}\\\\) when \\\\(x \\= \\{3\\}\\\\)\\: what's "
                         "\\\\(\\\\sqrt\\{x\\}\\\\)?</p><p>Second paragraph with \\~tilde, \\#hash, \\{braces\\}, "
                         "a \\\\ backslash and a\\: colon.</p>{")
    # Moodle's own unescaping of that line gives the TeX with single backslashes
    assert moodle_unescape(stem_line).startswith(
        "::Q1: {odd} = name ~ #1 \\ end::[html]<p>Simplify \\(\\frac{12}{16}\\) when \\(x = {3}\\): what's ")
    assert "\t=\\\\(\\\\frac\\{3\\}\\{4\\}\\\\)#Yes\\: divide both by 4 \\= right" in lines
    assert "\t~%50%\\\\(\\\\frac\\{6\\}\\{8\\}\\\\)#Not in lowest terms \\~ yet" in lines
    assert "\t~[html][1, 2]" in lines and "\t~%0%%5 off" in lines
    assert "\t####<p>Use \\\\(\\\\gcd(12,16)\\=4\\\\) \\{always\\}.</p>" in lines
    assert "::tf::[html]<p>The angles of a triangle add up to \\\\(180^\\\\circ\\\\).</p>" \
           "{TRUE#No\\: think of \\\\(a+b+c\\\\)#Good}" in lines
    assert "::tf false::[html]<p>Zero is odd.</p>{FALSE}" in lines
    assert "\t~%33.33333333333333%3" in lines
    assert "::num::[html]<p>Find the area of the square.</p><p>Give your answer in cm^2.</p>{#12.5:0.05}" in lines
    assert "::num in::[html]<p>Find the length in cm.</p>{#-0.25:0.00001}" in lines
    assert "\t=%50%3.1:0.1" in lines and "\t~#Not close \\~ at all" in lines
    assert "\t=2\\\\*x \\= y#Yes \\#1" in lines
    assert "\t=%50%x\\{2\\}\\~\\\\y\\:" in lines
    assert "\t=%100%%d" in lines and "\t=[plain][a]" in lines
    assert "\t=%0%*#Try again\\: \\{hint\\}" in lines
    assert "::essay::[html]<p>Explain why \\\\(\\\\sqrt\\{2\\}\\\\) is irrational.</p>{####<p>Look\\: \\{here\\}</p>}" \
           in lines
    # no blank line inside a question, and every question closes its answer block
    blocks = [b for b in text.split("\n\n") if b.strip() and not b.startswith(("// Fractions", "$CATEGORY"))]
    assert len(blocks) == len(questions)
    assert all(b.rstrip().endswith("}") for b in blocks)

    back = gift.read(out.data, out.filename)
    assert back.skipped == []
    assert len(back.questions) == len(questions)
    for original, again in zip(questions, back.questions):
        assert_same(original, again)
        assert again.notes == []


def test_writer_skips_what_gift_cannot_express():
    picture = Media("graph.png", "image/png", b"\x89PNG\r\n\x1a\n")
    questions = [
        Question(SHORT, "with media", "Read the graph.", answers=[Choice("4", 1.0)], media=[picture]),
        Question(SHORT, "with picture", "Read ![graph](graph.png).", answers=[Choice("4", 1.0)]),
        Question(SHORT, "with sound", "Listen: ![word](word.mp3)", answers=[Choice("bonjour", 1.0)],
                 media=[Media("word.mp3", "audio/mpeg", b"ID3")]),
        Question(CHOICE, "fixed order", "Which is true?", shuffle=False,
                 choices=[Choice("2 is prime", 0.0), Choice("3 is prime", 0.0), Choice("All of the above", 1.0)]),
        Question(CHOICE, "letters", "Which?", shuffle=False,
                 choices=[Choice("x > 0", 0.0), Choice("x < 0", 0.0), Choice("A and B", 1.0)]),
        Question(MULTI, "odd part", "Pick", choices=[Choice("a", 0.35), Choice("b", 0.65)]),
        Question(SHORT, "arrow", "Map", answers=[Choice("x -> 2x", 1.0)]),
        Question(NUMERIC, "words", "How many?", numbers=[NumericAnswer("six", 0.0)]),
        Question(CHOICE, "no key", "Pick", choices=[Choice("a", 0.0), Choice("b", 0.0)]),
        Question(CHOICE, "one option", "Pick", choices=[Choice("a", 1.0)]),
        Question("matching", "other kind", "Match"),
        Question(ESSAY, "no text", "   "),
        Question(SHORT, "fine", "What is 2+2?", answers=[Choice("4", 1.0)]),
    ]
    out = gift.write(questions)
    reasons = {s.question: s.reason for s in out.skipped}
    assert out.written == ["fine"]
    assert "that its text does not show" in reasons["with media"]
    assert "'graph.png', which is not attached" in reasons["with picture"]
    assert "cannot carry sounds" in reasons["with sound"]
    assert "All of the above" in reasons["fixed order"] and "shuffles" in reasons["fixed order"]
    assert "A and B" in reasons["letters"]
    assert "35%" in reasons["odd part"] and "Moodle accepts only" in reasons["odd part"]
    assert "matching" in reasons["arrow"]
    assert "not a number" in reasons["words"]
    assert reasons["no key"] == "no option earns full marks"
    assert "at least two options" in reasons["one option"]
    assert "'matching' has no GIFT form" in reasons["other kind"]
    assert reasons["no text"] == "it has no question text"
    assert len(out.skipped) == len(questions) - 1
    back = gift.read(out.data, out.filename).questions
    assert [q.name for q in back] == ["fine"] and back[0].answers == [Choice("4", 1.0, "")]


def test_units_go_into_the_question_and_come_back_out():
    q = Question(NUMERIC, "speed", "A car travels 120 km in 2 hours. Find its speed.",
                 numbers=[NumericAnswer("60", 0.5)], units="km/h")
    text = gift.write([q]).data.decode()
    assert "<p>Give your answer in km/h.</p>{#60:0.5}" in text
    back = gift.read(text.encode(), "u").questions[0]
    assert back.stem == q.stem and back.units == "km/h" and back.numbers == q.numbers


def test_a_file_from_elsewhere_reads_the_same_after_a_round_trip():
    first = read("choice.gift.txt").questions + read("numeric.gift.txt").questions \
        + read("short_answer.gift.txt").questions + read("categories.gift.txt").questions
    out = gift.write(first)
    again = gift.read(out.data, out.filename)
    assert out.skipped == [] and again.skipped == []
    for original, back in zip(first, again.questions):
        assert_same(original, back)


def test_provenance_with_any_characters_reads_back_exactly():
    awkward = ["", " lead", "trail ", "\ttab", "line\u2028separator", "next\x85line", "cr\rlf\r\n", "50%", "%41",
               "a=b=c", "[id:x] [tag:y]", "back\\slash", "// not a comment", "{}~#:", "émoji 🙂", "\x00nul",
               "key: value"]
    provenance = {f"k{i} {v}": v for i, v in enumerate(awkward)}
    q = Question(SHORT, "p", "Q?", answers=[Choice("a", 1.0)], provenance=provenance)
    out = gift.write([q])
    comment_lines = [line for line in out.data.decode().split("\n") if line.startswith("// workbench:")]
    assert len(comment_lines) == len(awkward)                  # one line each: nothing breaks a line
    back = gift.read(out.data, out.filename).questions[0]
    assert back.provenance == provenance and back.tags == []  # and Moodle's [tag:] is not triggered


def test_a_question_right_after_its_category_line_is_still_read():
    data = b"$CATEGORY: $course$/top/Ratio\n::R::Share 10 in the ratio 2:3. The smaller share?{#4}\n"
    q = gift.read(data, "c").questions[0]
    assert q.category == ["Ratio"] and q.numbers == [NumericAnswer("4", 0.0, 1.0, "")]
    assert q.stem == "Share 10 in the ratio 2:3. The smaller share?"
    assert any("$CATEGORY:" in n for n in q.notes)


def test_damaged_workbench_comments_are_ignored_with_a_note():
    data = ("// workbench: item=50% raw\n"
            "// workbench: broken=%FF%FE\n"
            "// workbench-setting: marks=\"lots\"\n"
            "// workbench-setting: shuffle=maybe\n"
            "// workbench-setting: colour=\"red\"\n"
            "::Edited::What is 5 squared?{#25}\n").encode()
    q = gift.read(data, "edited.gift.txt").questions[0]
    assert q.provenance == {"item": "50% raw"} and q.marks == 1.0 and q.shuffle is True
    assert q.numbers == [NumericAnswer("25", 0.0, 1.0, "")]
    assert len(q.notes) == 4 and all("ignored" in n for n in q.notes)


def test_pictures_travel_inside_the_text_and_read_back_under_their_names():
    svg = b'<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><path d="M0 0L10 10"/></svg>'
    q = Question(NUMERIC, "triangle", "Find $x$.\n\n![The triangle, not to scale](tri%20angle.svg)",
                 numbers=[NumericAnswer("12.3", 0.1)], media=[Media("tri angle.svg", "image/svg+xml", svg)])
    out = gift.write([q])
    assert out.written == ["triangle"]
    text = out.data.decode("utf-8")
    assert "data\\:image/svg+xml;name\\=tri%20angle.svg;base64," in text     # GIFT escapes : and =
    [back] = gift.read(out.data, out.filename).questions
    assert back.stem == q.stem and back.media == q.media and back.notes == []

