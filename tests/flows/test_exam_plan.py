"""Planning and filling exam papers: exact totals, the topic cap, calculator rules, parts, formats."""
from __future__ import annotations

import random
import textwrap
from collections import Counter
from pathlib import Path

import pytest

from core.blueprints.library import Library
from core.flows.base import FlowError
from core.flows.exam_plan import Offer, assemble_sections, by_hand, exam_formats, plan_section, topic_of
from core.flows.registry import make_runner
from core.items.sources import NoQuestions, QuestionSource
from core.store import Store, repo

SEEDS = 12


@pytest.fixture(scope="module")
def banked(tmp_path_factory, library):
    """A database with the shipped banks, as a school's first start leaves it."""
    from core.workbench import import_shipped_banks
    store = Store(tmp_path_factory.mktemp("plan") / "workbench.duckdb")
    import_shipped_banks(store)
    yield store
    store.close()


def shapes(library):
    """Every (subject, level, format) a shipped spec offers."""
    return [(c["subject"], c["level"], name) for c in library.courses()
            for name in library.spec(c["subject"], c["level"]).format_names()]


def check_paper(spec, fmt, drawn, library) -> None:
    """The rules every paper keeps, whatever was drawn."""
    shape = spec.exam_format(fmt)
    assert [part["section"].section for part in drawn] == [s.section for s in shape.assessment_structure]
    numbers = []
    for part, section in zip(drawn, shape.assessment_structure):
        qs = part["questions"]
        assert sum(q.marks for q in qs) == section.marks, section.section
        assert all(q.marks == q.item.marks and q.marked_out_of is None for q in qs)   # never rescaled
        topics = Counter(topic_of(q.item) for q in qs)
        assert max(topics.values()) <= spec.topic_cap(section, shape), (section.section, topics.most_common(2))
        # only the kinds of question the section holds (no multiple choice in a maths paper, only that in an
        # SQA science Paper 1)
        kinds = Counter(q.item.item_type for q in qs)
        assert all(section.takes(kind) for kind in kinds), (section.section, kinds)
        if not section.calculator_allowed:
            for q in qs:
                assert q.item.calculator != "required", q.item.id
                if q.item.calculator == "optional":
                    assert by_hand(q.item), (q.item.blueprint_id, q.item.correct_answer)
        # every area of the course the library can supply (trigonometry and statistics, say) is asked in every paper
        suppliable = {(o, s.metadata.subdomain) for o in section.outcome_ids
                      for s in library.skills_for_outcome(spec.subject, spec.level, o)
                      if (s.metadata.calculator != "required" or section.calculator_allowed)
                      and section.takes(s.generation.item_type)}
        asked = {(q.outcome_id, library.generator(topic_of(q.item)).bp.metadata.subdomain) for q in qs
                 if topic_of(q.item) in library.generators}
        assert suppliable <= asked, (section.section, suppliable - asked)
        assert not part["missing"]
        numbers += [q.number for q in qs]
    assert numbers == list(range(1, len(numbers) + 1))
    keys = [q.item.content_key for part in drawn for q in part["questions"]]
    assert len(keys) == len(set(keys))


def test_every_shipped_spec_builds_exact_papers_for_many_seeds(library, banked):
    source = QuestionSource(library, banked)
    for subject, level, fmt in shapes(library):
        spec = library.spec(subject, level)
        for seed in range(SEEDS):
            drawn = assemble_sections(source, spec, f"paper:{seed}", seed, 1, False, exam_format=fmt)
            check_paper(spec, fmt, drawn, library)


def test_maths_papers_hold_no_multiple_choice_and_science_paper_ones_nothing_else(library):
    """As SQA sets them: National 5, Higher and Advanced Higher Mathematics papers ask for written answers only; the Paper 1 (or
    Section 1) of every Higher and National 5 science is multiple choice only."""
    for level in ("Nat 5", "Higher", "Advanced Higher"):
        for section in library.spec("Mathematics", level).assessment_structure:
            assert section.item_types and "multiple_choice" not in section.item_types, (level, section.section)
    for subject in ("Physics", "Chemistry", "Biology"):
        for level in ("Nat 5", "Higher"):
            first = library.spec(subject, level).assessment_structure[0]
            assert first.item_types == ["multiple_choice"], (subject, level, first.section)


def test_repeated_sittings_by_one_student_stay_exact(library, tmp_path):
    """The same student, mock after mock: bank questions seen in one sitting are not counted on in the next."""
    from core.workbench import import_shipped_banks
    store = Store(tmp_path / "sittings.duckdb")
    try:
        import_shipped_banks(store)
        runner = make_runner(store, library)
        for subject, level, fmt in shapes(library):
            spec = library.spec(subject, level)
            declared = [s.marks for s in spec.exam_format(fmt).assessment_structure]
            given: set[str] = set()
            for n in range(1, 6):
                sid = runner.start("exam", "sam", {"subject": subject, "level": level, "exam_count": n,
                                                   "format": fmt})
                exam = runner.view(sid)["exam"]
                assert [sum(q["marks"] for q in s["questions"]) for s in exam["sections"]] == declared, (level, n)
                assert exam["total_marks"] == sum(declared)
                bank = {q["id"] for s in exam["sections"] for q in s["questions"]
                        if repo.load_item(store, q["id"]).source in ("local", "past", "us")}
                assert not bank & given, "a one-off bank question was given twice"
                given |= bank
                for s, section in zip(exam["sections"], spec.exam_format(fmt).assessment_structure):
                    topics = Counter(topic_of(repo.load_item(store, q["id"])) for q in s["questions"])
                    assert max(topics.values()) <= spec.topic_cap(section, spec.exam_format(fmt))
                    if not s["calculator_allowed"]:
                        assert all(repo.load_item(store, q["id"]).calculator != "required" for q in s["questions"])
    finally:
        store.close()


def test_a_bank_question_is_given_once_in_an_exam_and_counts_for_one_paper(library, banked):
    spec = library.spec("Mathematics", "Nat 5")
    drawn = assemble_sections(QuestionSource(library, banked), spec, "paper:banks", 3, 1, False)
    ids = [q.item.id for part in drawn for q in part["questions"]]
    assert len(ids) == len(set(ids))
    assert any(i.startswith(("loc_", "past_")) for i in ids)


# --------------------------------------------------------------------------
# plan_section on its own


def offers(*specs: tuple[str, str, int, bool]) -> list[Offer]:
    """(topic, outcome, marks, one-off?) -> offers; a one-off gets a stand-in item."""
    from core.items.generator import Item
    out = []
    for n, (topic, outcome, marks, one_off) in enumerate(specs):
        item = None
        if one_off:
            item = Item(id=f"q{n}", blueprint_id=None, blueprint_version=None, blueprint_hash="", source="local",
                        seed="", difficulty_level="easy", difficulty_value=0.3, item_type="numeric",
                        stem=f"Question {n}", options=[], option_strategies=[], options_shuffled=False,
                        correct_answer="1", correct_index=None, answer_value=1, accepted_answers=[],
                        misconceptions={}, explanation="", hints=[], answer_type="integer", units=None,
                        marks=marks, marking_scheme={}, evaluation={}, generation_params={}, computed_values={},
                        subject="S", level="L", outcome_ids=[outcome], skill_ids=[], calculator="none",
                        content_key=f"k{n}")
        out.append(Offer(topic, outcome, marks, item=item, skill_id=None if one_off else topic))
    return out


def test_plan_adds_up_exactly_respects_the_cap_and_asks_every_outcome():
    pool = offers(("A", "O1", 3, False), ("B", "O1", 2, False), ("C", "O2", 4, False), ("D", "O3", 3, False))
    for seed in range(30):
        slots, unasked = plan_section(17, pool, random.Random(seed), cap=2)
        assert sum(s.marks for s in slots) == 17 and not unasked
        assert max(Counter(s.topic for s in slots).values()) <= 2
        assert {s.outcome_id for s in slots} == {"O1", "O2", "O3"}


def test_one_off_questions_are_taken_once_across_sections():
    pool = offers(("A", "O1", 3, False), ("X", "O1", 1, True), ("Y", "O1", 1, True))
    taken: set[str] = set()
    first, _ = plan_section(5, pool, random.Random(1), cap=2, taken=taken)
    assert sorted(s.item.id for s in first if s.item is not None) == ["q1", "q2"]   # 3 + 1 + 1
    with pytest.raises(NoQuestions, match="exactly 5 marks"):
        plan_section(5, pool, random.Random(2), cap=2, taken=taken)   # both taken: 3-mark questions cannot make 5


def test_a_section_that_cannot_add_up_says_which_and_what_to_add():
    with pytest.raises(NoQuestions, match=r"Paper 1: no choice .* adds up to exactly 35 marks; add a skill blueprint "
                                          r"or bank questions worth 1 or 2 or 4 or 5 mark\(s\)"):
        plan_section(35, offers(("A", "O1", 3, False), ("B", "O2", 3, False)), random.Random(0), cap=9,
                     section="Paper 1")
    with pytest.raises(NoQuestions, match=r"Paper 2: the questions available add up to at most 12 of its 40 marks "
                                          r"\(at most 2 question\(s\) a skill\).*raise max_per_topic"):
        plan_section(40, offers(("A", "O1", 3, False), ("B", "O2", 3, False)), random.Random(0), cap=2,
                     section="Paper 2")


# --------------------------------------------------------------------------
# Questions without a calculator


def test_by_hand_takes_whole_short_and_simple_answers_only(library):
    gen = library.generator("SQA.MATH.N4.PYTHAGORAS")
    rounded = next(it for it in (gen.generate("medium", s) for s in range(50)) if "." in it.correct_answer)
    assert not by_hand(rounded)            # "correct to 1 decimal place": a calculator was needed
    whole = gen.generate("easy", 1)
    assert whole.correct_answer.isdigit() and by_hand(whole)
    recurrence = library.generator("SQA.MATH.H.RECURRENCE_LIMIT")
    for s in range(40):
        item = recurrence.generate("medium", s)
        rounded = "decimal place" in item.stem and item.correct_answer.partition(".")[2] != ""
        assert by_hand(item) == (not rounded), (item.stem, item.correct_answer)   # 87.5 exactly is fine


def test_a_non_calculator_paper_redraws_optional_skills_until_they_work_by_hand(library, banked):
    spec = library.spec("Mathematics", "Nat 4")
    optional = 0
    for seed in range(SEEDS):
        drawn = assemble_sections(QuestionSource(library, banked), spec, f"paper:h{seed}", seed, 1, False)
        for q in drawn[0]["questions"]:
            if q.item.calculator == "optional":
                optional += 1
                assert by_hand(q.item), q.item.correct_answer
    assert optional   # Pythagoras and simple interest are asked without a calculator


def test_a_student_who_has_seen_everything_gets_a_full_paper_without_forty_draws_a_question(library, banked,
                                                                                        monkeypatch):
    """Once a skill settles for a repeat in a paper, its other questions take a repeat after a few draws."""
    from core.flows import exam_plan
    from core.items import generator
    monkeypatch.setattr(QuestionSource, "seen", lambda self, student: ({"seen"}, set()))
    monkeypatch.setattr(exam_plan, "stem_key", lambda item: "seen")   # every question drawn repeats one seen
    draws: Counter = Counter()
    real = generator.SkillGenerator.generate
    monkeypatch.setattr(generator.SkillGenerator, "generate",
                        lambda self, level, seed, params=None: draws.update([self.bp.skill_id]) or
                        real(self, level, seed, params))
    spec = library.spec("Biology", "Nat 5")
    drawn = assemble_sections(QuestionSource(library, banked), spec, "keen", "s", 1, False)
    shape = spec.exam_format(None)
    assert [sum(q.marks for q in part["questions"]) for part in drawn] == [s.marks for s in shape.assessment_structure]
    generated = [q for part in drawn for q in part["questions"] if q.route == "generated"]
    slots = Counter((topic_of(q.item), part["section"].calculator_allowed)
                    for part in drawn for q in part["questions"] if q.route == "generated")
    assert any(n > 1 for n in slots.values())   # skills asked more than once: the case in question
    # The first slot of each skill (and calculator rule) draws in full, the others a few times at most.
    most = sum(exam_plan.FILL_DRAWS + (n - 1) * exam_plan.SPENT_DRAWS for n in slots.values())
    assert len(generated) <= sum(draws.values()) <= most


# --------------------------------------------------------------------------
# Course specs: formats, the topic cap, formulae


SPEC = textwrap.dedent("""\
    spec_id: "T-SPEC"
    subject: "Mathematics"
    level: "Test Level"
    outcomes: [{id: "T-01", label: "Add", weight: 1}]
    max_per_topic: 3
    assessment_structure:
      - {section: "Paper 1", outcome_ids: ["T-01"], marks: MARKS, calculator_allowed: false, time_allowed_minutes: 20}
    formats:
      quick:
        title: "Quick check"
        max_per_topic: 1
        assessment_structure:
          - {section: "Check", outcome_ids: ["T-01"], marks: 2, time_allowed_minutes: 5, max_per_topic: 2}
    formulae:
      - {name: "Area", latex: "A = lb"}
    """)

SKILL = textwrap.dedent("""\
    skill_id: "TEST.ADD.THREE"
    version: "1.0"
    metadata: {domain: "Mathematics", skill_statement: "Add", subject: "Mathematics", level: "Test Level",
               outcome_ids: ["T-01"], calculator: "none"}
    generation:
      item_type: numeric
      parameters:
        a: {type: integer, min: 1, max: 500}
        b: {type: integer, min: 1, max: 500}
      answer_formula: "a + b"
      answer_type: integer
      difficulty_levels:
        easy: {value: 0.3, constraints: []}
    presentation:
      stem_templates: ["What is {a} + {b}?"]
    evaluation:
      method: numeric_tolerance
      marks: 3
    """)


def custom_library(tmp_path: Path, marks: int) -> Library:
    (tmp_path / "spec.yaml").write_text(SPEC.replace("MARKS", str(marks)))
    (tmp_path / "skill.yaml").write_text(SKILL)
    lib = Library.load(tmp_path, exercise=False)
    assert not [i for issues in lib.report.files.values() for i in issues if i.severity == "error"]
    return lib


def test_spec_formats_caps_and_formulae(tmp_path):
    spec = custom_library(tmp_path, 9).spec("Mathematics", "Test Level")
    assert spec.format_names() == ["full", "quick"]
    full, quick = spec.exam_format(None), spec.exam_format("quick")
    assert spec.exam_format("full").total_marks == full.total_marks == 9 and quick.total_marks == 2
    assert spec.topic_cap(full.assessment_structure[0], full) == 3       # the spec's setting
    assert spec.topic_cap(quick.assessment_structure[0], quick) == 2     # a section's own beats its format's
    with pytest.raises(ValueError, match="no exam format 'long'; formats: full, quick"):
        spec.exam_format("long")
    assert [f.model_dump() for f in spec.formulae] == [{"name": "Area", "latex": "A = lb"}]
    assert [f["format"] for f in exam_formats(spec)] == ["full", "quick"]


def test_a_spec_the_library_cannot_fill_exactly_fails_loudly(tmp_path):
    lib = custom_library(tmp_path, 8)    # only a 3-mark skill: 8 marks cannot be made exactly
    warnings = [i.message for issues in lib.report.files.values() for i in issues]
    assert any("adds up to exactly 8 marks" in w for w in warnings)
    store = Store(tmp_path / "w.duckdb")
    try:
        runner = make_runner(store, lib)
        with pytest.raises(FlowError, match=r"^Paper 1: no choice .* exactly 8 marks; add a skill blueprint or bank "
                                            r"questions worth 1 or 2 or 4 or 5 mark\(s\) for T-01"):
            runner.start("exam", "amy", {"subject": "Mathematics", "level": "Test Level", "seed": 1})
        assert store.query("SELECT count(*) FROM items")[0][0] == 0      # nothing half-built is kept
    finally:
        store.close()


def test_approved_questions_only_are_each_given_once_and_the_shortfall_is_named(tmp_path):
    lib = custom_library(tmp_path, 9)    # three 3-mark questions
    store = Store(tmp_path / "w.duckdb")
    try:
        gen = lib.generator("TEST.ADD.THREE")
        approved = [gen.generate("easy", f"approved{n}") for n in range(5)]
        repo.insert_items(store, approved, status="approved")
        runner = make_runner(store, lib)
        cfg = {"subject": "Mathematics", "level": "Test Level", "approved_only": True}
        first = runner.view(runner.start("exam", "amy", {**cfg, "seed": 1}))["exam"]
        ids = [q["id"] for s in first["sections"] for q in s["questions"]]
        assert first["total_marks"] == 9 and len(ids) == 3 and set(ids) <= {it.id for it in approved}
        # Two unseen approved questions are left: 6 marks, and no blueprint may make up the rest.
        with pytest.raises(FlowError, match=r"^Paper 1: the approved questions not yet given \(at most 3 a skill\) add "
                                            r"up to at most 6 of its 9 marks; approve more for T-01 on the Review page"):
            runner.start("exam", "amy", {**cfg, "seed": 2, "exam_count": 2})
    finally:
        store.close()


def test_a_student_may_choose_the_short_mock(library, tmp_path):
    from core.school import sittings
    assert sittings.exam_start("Mathematics", "Nat 5") == ("exam", {"subject": "Mathematics", "level": "Nat 5"})
    assert sittings.exam_start("Mathematics", "Nat 5", "full")[1] == {"subject": "Mathematics", "level": "Nat 5"}
    kind, config = sittings.exam_start("Mathematics", "Nat 5", exam_format="short")
    assert config == {"subject": "Mathematics", "level": "Nat 5", "format": "short"}
    store = Store(tmp_path / "w.duckdb")
    try:
        exam = make_runner(store, library).start(kind, "amy", config)
        assert make_runner(store, library).view(exam)["exam"]["total_marks"] == 90
    finally:
        store.close()


def test_what_a_topic_can_add_matches_counting_every_choice():
    """The planner's table of totals against brute force: a skill's questions again and again, one-offs once."""
    import itertools
    from core.flows.exam_plan import _topic_sums
    rng = random.Random(7)
    for _ in range(200):
        one_offs = [rng.randint(1, 5) for _ in range(rng.randint(0, 3))]
        skill = [rng.randint(1, 5)] if rng.random() < 0.7 else []
        room, limit = rng.randint(1, 5), rng.randint(5, 25)
        pool = offers(*([("T", "O", m, True) for m in one_offs] + [("T", "O", m, False) for m in skill]))
        expected = set()
        for size in range(len(one_offs) + 1):
            for chosen in itertools.combinations(one_offs, size):
                for copies in range(room + 1 if skill else 1):
                    total = sum(chosen) + copies * (skill[0] if skill else 0)
                    if size + copies <= room and total <= limit:
                        expected.add(total)
        got = _topic_sums(pool, room, limit)
        assert {b for b in range(limit + 1) if got >> b & 1} == expected, (one_offs, skill, room, limit)


def test_a_section_that_names_its_kinds_of_question_holds_only_those(banked, library):
    from core.blueprints.loader import parse_text
    text = """spec_id: N5-MC
subject: Mathematics
level: Nat 5
outcomes: [{id: MNU-5-01, label: Numerical, weight: 0.5}, {id: MNU-5-02, label: Algebraic, weight: 0.5}]
assessment_structure:
  - {section: "Section 1 (Multiple choice)", outcome_ids: [MNU-5-01, MNU-5-02], marks: 8, time_allowed_minutes: 15,
     item_types: [multiple_choice], max_per_topic: 4}
  - {section: "Section 2", outcome_ids: [MNU-5-01, MNU-5-02], marks: 20, time_allowed_minutes: 40}
"""
    spec = parse_text(text, "n5-mc.yaml").model
    drawn = assemble_sections(QuestionSource(library, banked), spec, "paper:mc", 4, 1, False)
    first = [q.item for q in drawn[0]["questions"]]
    assert first and {item.item_type for item in first} == {"multiple_choice"}
    assert sum(item.marks for item in first) == 8
    second = [q.item for q in drawn[1]["questions"]]
    assert {item.item_type for item in second} - {"multiple_choice"}     # the other section is not held to one kind
