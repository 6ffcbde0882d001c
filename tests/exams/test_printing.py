"""Printed papers: the question paper and the marking scheme as self-contained HTML, typeset as a teacher writes.

The structure is read back from the files as a tool would: every printed
question's element has data-question and data-marks, and the marks add up to
the paper's total in both files.
"""
from __future__ import annotations

import dataclasses
import math
import textwrap
from html.parser import HTMLParser
from pathlib import Path

import pytest

from core.blueprints.library import check_skill
from core.blueprints.loader import BlueprintError, parse_text
from core.exams import diagrams, papers, printing
from core.exams.typeset import duration, typeset, typeset_html, typeset_plain, with_units
from core.items.sources import QuestionSource
from core.store import Store, repo

TRIANGLE_SKILLS = ("SQA.MATH.N5.SINE_RULE", "SQA.MATH.N5.COSINE_RULE", "SQA.MATH.N5.TRIANGLE_AREA_SINE",
                   "SQA.MATH.N5.RIGHT_ANGLED_TRIGONOMETRY", "SQA.MATH.N5.PYTHAGORAS")


class Page(HTMLParser):
    """What a reader sees of a page (text outside <style>/<title>) and its data-question elements."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.hidden = 0
        self.text: list[str] = []
        self.questions: list[dict] = []
        self.marks_cells: list[str] = []
        self._in_mark = False
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("style", "title"):
            self.hidden += 1
        if "data-question" in a:
            self.questions.append(a)
        self._in_mark = tag == "div" and a.get("class") == "mark"

    def handle_endtag(self, tag):
        if tag in ("style", "title"):
            self.hidden -= 1
        self._in_mark = False

    def handle_data(self, data):
        if not self.hidden:
            self.text.append(data)
            if self._in_mark:
                self.marks_cells.append(data)

    @property
    def visible(self) -> str:
        return " ".join(self.text)


@pytest.fixture(scope="module")
def built(library, tmp_path_factory) -> dict[str, dict]:
    store = Store(tmp_path_factory.mktemp("printing") / "papers.duckdb")
    try:
        source = QuestionSource(library, store)
        return {level: diagrams.fill_diagrams(papers.build_paper(source, "Mathematics", level, seed), library)
                for level, seed in (("Nat 5", 7), ("Higher", 2), ("Advanced Higher", 1))}
    finally:
        store.close()


def questions_of(paper: dict) -> list[dict]:
    return [q for s in paper["sections"] for q in s["questions"]]


# ---------------------------------------------------------------- structure


@pytest.mark.parametrize("level", ["Nat 5", "Higher", "Advanced Higher"])
def test_marks_on_the_questions_add_up_to_the_total_in_both_files(built, level):
    paper = built[level]
    sheet, scheme = Page(printing.paper_html(paper)), Page(printing.marking_scheme_html(paper))
    for page in (sheet, scheme):
        assert sum(float(q["data-marks"]) for q in page.questions) == paper["total_marks"]
        assert len(page.questions) == printing.printed_question_count(paper)
    assert [q["data-question"] for q in sheet.questions] == [q["data-question"] for q in scheme.questions]
    # the marks in the right-hand margin: one per slot, adding up to the paper too
    assert sum(float(m) for m in sheet.marks_cells) == paper["total_marks"]


def test_parts_print_under_one_number_with_the_marks_of_the_whole_question():
    stem = {"options": [], "units": None, "answer_key": "1", "correct_index": None, "accepted_answers": [],
            "explanation": "Because.", "marking_scheme": {"criteria": []}}
    paper = {"title": "Course: mock exam", "course_title": "Course", "seed": "1", "total_marks": 7,
             "instructions": ["Attempt ALL questions."], "sections": [{
                 "section": "Paper 1", "calculator_allowed": True, "marks": 7, "time_allowed_minutes": 30,
                 "questions": [
                     {**stem, "number": 1, "question": 1, "part": None, "label": "1", "marks": 2, "stem": "One."},
                     {**stem, "number": 2, "question": 2, "part": "a", "label": "2(a)", "marks": 2, "stem": "Two a."},
                     {**stem, "number": 3, "question": 2, "part": "b", "label": "2(b)", "marks": 3,
                      "stem": "Two b."}]}]}
    sheet, scheme = Page(printing.paper_html(paper)), Page(printing.marking_scheme_html(paper))
    assert [(q["data-question"], q["data-marks"]) for q in sheet.questions] == [("1", "2"), ("2", "5")]
    assert [(q["data-question"], q["data-marks"]) for q in scheme.questions] == [("1", "2"), ("2", "5")]
    assert "(a)" in sheet.visible and "(b)" in sheet.visible
    assert "2(a)" in scheme.visible and "2(b)" in scheme.visible
    assert printing.printed_question_count(paper) == 2


def test_each_paper_has_a_cover_with_what_a_candidate_needs(built):
    paper = built["Nat 5"]
    html = printing.paper_html(paper)
    text = Page(html).visible
    assert html.count('<section class="cover') == len(paper["sections"])
    assert html.count("[END OF QUESTION PAPER]") == len(paper["sections"])
    for section in paper["sections"]:
        assert section["section"] in text
        marks = sum(q["marks"] for q in section["questions"])
        assert f"Total marks {marks}" in " ".join(text.split())
        assert duration(section["time_allowed_minutes"]) in text
    assert "1 hour 15 minutes" in text or "1 hour 50 minutes" in text
    assert "You may NOT use a calculator." in text and "You may use a calculator." in text
    for box in ("Full name of centre", "Forename(s)", "Surname", "Candidate number", "Date of birth"):
        assert text.count(box) == len(paper["sections"])
    assert paper["course_title"] in text and "Instructions" in text
    assert printing.PRINT_ADVICE in text


def test_the_national_5_formulae_list_prints_after_each_cover_as_mathml(built):
    paper = built["Nat 5"]
    assert paper["formulae"], "the National 5 course spec lists its formulae"
    html = printing.paper_html(paper)
    assert html.count('<section class="formulae page-break">') == len(paper["sections"])
    page = html.split('<section class="formulae page-break">')[1].split("</section>")[0]
    assert page.count("<math") >= len(paper["formulae"])
    text = Page(page).visible
    for f in paper["formulae"]:
        assert typeset_plain(f["name"]) in text
    for name in ("Sine rule", "Cosine rule", "Standard deviation"):
        assert name.lower() in text.lower()
    assert "FORMULAE LIST" not in printing.paper_html({**paper, "formulae": []})


@pytest.mark.parametrize("level", ["Nat 5", "Higher", "Advanced Higher"])
def test_maths_is_mathml_and_no_raw_tex_is_visible(built, level):
    paper = built[level]
    assert "<math" in printing.paper_html(paper)
    for html in (printing.paper_html(paper), printing.marking_scheme_html(paper)):
        text = Page(html).visible
        assert "$" not in text and "\\" not in text
        assert "<script" not in html and "https://" not in html and "<link" not in html


def test_print_css_sets_a4_page_breaks_and_unbroken_questions(built):
    html = printing.paper_html(built["Higher"])
    css = html.split("<style>")[1].split("</style>")[0]
    assert "size: A4" in css and "break-before: page" in css and "page-break-before: always" in css
    assert "break-inside: avoid" in css
    assert html.count('class="questions page-break"') == len(built["Higher"]["sections"])


def test_working_space_grows_with_marks_and_multiple_choice_gets_less():
    written = [printing.working_space_mm({"marks": m, "options": []}) for m in (1, 2, 4)]
    assert written == sorted(written) and written[0] < written[-1]
    assert printing.working_space_mm({"marks": 3, "options": ["1", "2"]}) < printing.working_space_mm(
        {"marks": 3, "options": []})


def test_the_scheme_marks_each_step_generic_and_illustrative(built):
    paper = built["Higher"]
    html = printing.marking_scheme_html(paper)
    text = Page(html).visible
    assert "Generic scheme" in text and "Illustrative scheme" in text and "Marking instructions" in text
    for section in paper["sections"]:
        marks = sum(q["marks"] for q in section["questions"])
        assert f"{section['section']} ({marks} marks)" in text
    assert f"Total {printing.printed_question_count(paper)} {paper['total_marks']}" in " ".join(text.split())
    q = next(q for q in questions_of(paper) if (q.get("marking_scheme") or {}).get("criteria"))
    assert typeset_plain(q["marking_scheme"]["criteria"][0]["step"]) in text
    assert html.count('<span class="bullet">') >= sum(len((q.get("marking_scheme") or {}).get("criteria") or [1])
                                                        for q in questions_of(paper))


def test_write_paper_writes_both_files_and_refuses_a_folder_it_cannot_make(built, tmp_path: Path):
    paths = printing.write_paper(built["Higher"], tmp_path / "out")
    assert paths["paper"].read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert paths["marking_scheme"].name == "marking-scheme.html" and paths["paper"].name == "paper.html"
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    with pytest.raises(printing.PrintError, match="cannot write the paper into .*file.txt/sub"):
        printing.write_paper(built["Higher"], blocker / "sub")


# ---------------------------------------------------------------- typesetting


@pytest.mark.parametrize("raw, expected", [
    ("18247.60 £", "£18,247.60"),
    ("£18247.60", "£18,247.60"),
    ("£1700.00", "£1,700.00"),
    ("A car is valued at £19000.", "A car is valued at £19,000."),
    ("23 °", "23°"),
    ("5 %", "5%"),
    ("4.5 cm^2", "4.5 cm²"),
    ("4.5 cm2", "4.5 cm²"),
    ("12 m3", "12 m³"),
    ("In 2024, 123456 people", "In 2024, 123,456 people"),
    ("3.1415926", "3.1415926"),
    ("1570", "1570"),
    ("17:20", "17:20"),
    ("x + -9", "x − 9"),
    ("x - -4", "x + 4"),
    ("1x + 2", "x + 2"),
    ("3 - 1x^2", "3 − x²"),
    ("21x + 0.1x", "21x + 0.1x"),
    ("(-7, -3)", "(−7, −3)"),
    ("right-angled, MNU-5-04", "right-angled, MNU-5-04"),
    ("9x^2 - 2 + 8x^(-3)", "9x² − 2 + 8x⁻³"),
    ("4.41 × 10^2", "4.41 × 10²"),
    ("-8*exp(-2x)", "−8e⁻²ˣ"),
    ("u_n", "uₙ"),
    ("3 \\times 4", "3 × 4"),
    ("\\frac{a}{b}", "a/b"),
    ("Evaluate $1\\frac{5}{6} \\div 2\\frac{2}{5}$", "Evaluate 1 5/6 ÷ 2 2/5"),
    ("$\\sqrt{288}$", "√288"),
])
def test_typeset_plain(raw, expected):
    assert typeset_plain(raw) == expected


def test_typeset_html_makes_mathml_and_never_shows_tex():
    html = typeset_html("Evaluate $ (6.3 \\times 10^{9}) \\times (7 \\times 10^{-8}) $ for £18247.60")
    assert html.startswith("Evaluate <math") and "<msup>" in html and html.endswith("for £18,247.60")
    assert "<sup>2</sup>" in typeset_html("x^2 - 1") and "−" in typeset_html("x^2 - 1")
    stray = typeset_html("Simplify \\frac{a}{b} and \\sqrt{x} and 3 \\times 4")
    assert stray.count("<math") == 2 and "\\" not in stray and "3 × 4" in stray
    for broken in ("$\\frac{1$", "$\\left( x$", "$x^$", "$\\foo{x}$", "cost $ and more", "$\\arg z$"):
        out = typeset_html(broken)
        visible = Page(f"<p>{out}</p>").visible
        assert "\\" not in visible and "$" not in visible, (broken, out)
    assert typeset_html("<b> & x") == "&lt;b&gt; &amp; x"


def test_typeset_keeps_maths_for_a_markdown_renderer():
    assert typeset("Solve $x + -9 = 1x$ for £19000") == "Solve $x - 9 = x$ for £19,000"


def test_answers_with_units_are_written_as_a_teacher_writes_them():
    assert typeset_plain(with_units("18247.60", "£")) == "£18,247.60"
    assert typeset_plain(with_units("-5", "£")) == "−£5"
    assert typeset_plain(with_units("35", "°")) == "35°"
    assert typeset_plain(with_units("183.3", "cm^2")) == "183.3 cm²"
    assert typeset_plain(with_units("12 cm", "cm")) == "12 cm"
    assert typeset_plain(with_units("x = 3", None)) == "x = 3"
    assert printing.answer_text({"answer_key": "60.0", "units": "°", "options": ["30", "60.0"],
                                 "correct_index": 1}) == "B: 60.0"


@pytest.mark.parametrize("minutes, text", [(75, "1 hour 15 minutes"), (110, "1 hour 50 minutes"), (60, "1 hour"),
                                           (45, "45 minutes"), (120, "2 hours"), (61, "1 hour 1 minute")])
def test_durations_read_as_on_an_exam_paper(minutes, text):
    assert duration(minutes) == text


# ---------------------------------------------------------------- diagrams


def test_triangle_skills_give_their_items_a_diagram(library):
    for skill in TRIANGLE_SKILLS:
        gen = library.generator(skill)
        drawn = [gen.generate(level, 5) for level in gen.cs.levels]
        with_diagram = [it for it in drawn if it.diagram]
        assert with_diagram, skill
        for it in with_diagram:
            assert it.diagram["kind"] == "triangle" and len(it.diagram["vertices"]) == 3
            assert gen.diagram_for(it.generation_params) == it.diagram    # recomputed for a stored item
            svg = diagrams.diagram_svg(it.diagram)
            assert svg.startswith("<svg") and diagrams.NOT_TO_SCALE in svg
            for side in it.diagram["sides"]:
                if side["label"]:
                    assert typeset_plain(side["label"]) in svg
            for angle in it.diagram["angles"]:
                if angle["label"]:
                    assert angle["label"] in svg


def test_a_sine_rule_question_prints_its_labelled_triangle(library, tmp_path: Path):
    item = library.generator("SQA.MATH.N5.SINE_RULE").generate("easy", 3)
    store = Store(tmp_path / "items.duckdb")
    try:
        repo.insert_items(store, [item], status="approved")
        stored = repo.load_item(store, item.id)
    finally:
        store.close()
    assert stored is not None and stored.diagram == item.diagram      # the diagram is kept with the item
    # An item stored before items kept their diagrams gets it again from its blueprint and parameters.
    older = dataclasses.replace(stored, diagram=None)
    question = papers._question(older, 1, stored.marks, "Paper 2", None, "approved")
    paper = {"title": "T", "seed": "1", "total_marks": item.marks, "instructions": [],
             "sections": [{"section": "Paper 2", "calculator_allowed": True, "marks": item.marks,
                           "time_allowed_minutes": 10, "questions": [question]}]}
    diagrams.fill_diagrams(paper, library)
    assert question["diagram"] == item.diagram
    html = printing.paper_html(paper)
    svg = html.split("<svg")[1].split("</svg>")[0]
    params = item.generation_params
    assert f"{params['angle_a']}°" in svg and f"{params['angle_b']}°" in svg
    assert f"{typeset_plain(str(params['b']).removesuffix('.0'))} cm" in svg
    assert ">A<" in svg and ">B<" in svg and ">C<" in svg and "not drawn to scale" in svg
    assert 'role="img"' in svg and "Triangle ABC" in svg


def angle_at(pts, k) -> float:
    (x, y), (ax, ay), (bx, by) = pts[k], pts[(k + 1) % 3], pts[(k + 2) % 3]
    u, v = (ax - x, ay - y), (bx - x, by - y)
    return math.degrees(math.acos((u[0] * v[0] + u[1] * v[1]) / (math.hypot(*u) * math.hypot(*v))))


@pytest.mark.parametrize("sides, angles, expected", [
    ([None, None, None], [40, 60, None], [40, 60, 80]),                 # two angles
    ([3, 4, 5], [None, None, None], [36.87, 53.13, 90]),                # three sides
    ([None, 6, 3], [51, None, None], None),                             # two sides and the angle between
    ([None, 19, 17.5], [None, 41, None], None),                         # two sides, an angle opposite one
    ([None, None, None], [100, 100, None], None),                       # angles past 180: set aside
    ([1, 1, 5], [None, None, None], None),                              # no triangle: set aside
    ([None, None, None], [None, None, None], list(diagrams.GENERIC)),   # nothing known
])
def test_the_shape_follows_the_numbers_and_stays_a_triangle(sides, angles, expected):
    solved = diagrams.solve(sides, angles)
    assert abs(sum(solved) - 180) < 1e-6 and min(solved) > 0
    if expected:
        assert solved == pytest.approx(expected, abs=0.01)
    if sides[1] and sides[2] and angles[0] == 51:      # SAS: the cosine rule gives the third side
        a = math.sqrt(36 + 9 - 36 * math.cos(math.radians(51)))
        assert math.sin(math.radians(solved[0])) / a == pytest.approx(math.sin(math.radians(solved[1])) / 6)
    pts = diagrams._place(solved, 2 if expected and expected[2] == 90 else None)
    assert [angle_at(pts, k) for k in range(3)] == pytest.approx(solved, abs=0.01)


def test_a_right_angle_is_drawn_square_with_its_arms_along_the_page(library):
    item = next(it for it in (library.generator("SQA.MATH.N5.PYTHAGORAS").generate("medium", s) for s in range(20))
                if it.diagram)
    svg = diagrams.diagram_svg(item.diagram)
    assert "<polyline" in svg        # the small square at the right angle
    solved = diagrams.solve([None, None, None], [None, 90, None])
    pts = diagrams._place(solved, 1)
    assert pts[1] == (0.0, 0.0)      # one arm along the bottom, the other straight up
    assert sorted((x == 0.0, y == 0.0) for x, y in (pts[0], pts[2])) == [(False, True), (True, False)]


BAD_DIAGRAM = textwrap.dedent("""\
    skill_id: "TEST.TRIANGLE"
    version: "1.0"
    metadata: {domain: "Mathematics", skill_statement: "Label a triangle"}
    generation:
      item_type: "numeric"
      parameters:
        a: {type: integer, min: 3, max: 9}
      answer_formula: "a * 2"
      answer_type: integer
      difficulty_levels:
        easy: {value: 0.3}
    presentation:
      stem_templates: ["Side BC is {a} cm. Double it."]
    evaluation: {method: "exact_match"}
    diagram:
      vertices: [A, B, C]
      sides: {%s}
      angles: {%s}
    """)


def test_a_diagram_block_is_checked_with_its_path():
    good = parse_text(BAD_DIAGRAM % ('BC: "{a} cm", AB: {label: "x", length: "a + 1"}', 'B: {right: true}'),
                      "good.yaml")
    gen, issues = check_skill(good)
    assert not [i for i in issues if i.severity == "error"] and gen is not None
    item = gen.generate("easy", 1)
    assert item.diagram["sides"][0]["label"] == f"{item.generation_params['a']} cm"
    assert item.diagram["sides"][1] == {"from": "A", "to": "B", "label": "x",
                                        "length": float(item.generation_params["a"] + 1)}
    with pytest.raises(BlueprintError, match="sides.BD"):
        parse_text(BAD_DIAGRAM % ('BD: "x"', ""), "bad.yaml")
    with pytest.raises(BlueprintError, match="at most one right angle"):
        parse_text(BAD_DIAGRAM % ("", "A: {right: true}, B: {right: true}"), "bad.yaml")
    gen, issues = check_skill(parse_text(BAD_DIAGRAM % ('BC: "{nope} cm"', ""), "bad.yaml"))
    assert gen is None and any("diagram.sides.BC.label" in i.path and "nope" in i.message for i in issues)


def test_text_inside_maths_with_ampersands_and_less_than_signs_stays_well_formed():
    from xml.dom.minidom import parseString
    html = typeset_html(r"Show that $\text{profit & loss} < 5$ holds")
    math = html[html.index("<math"):html.index("</math>") + len("</math>")]
    parseString(math)       # raises on a bare & or <
    assert "&amp;" in math and "&#x0003C;" in math
