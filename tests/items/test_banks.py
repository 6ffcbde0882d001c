"""Question banks on real files and a real DuckDB store: parsing, bad rows, duplicates, import, variants."""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import math
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path

import pytest
import yaml

from core.items import banks
from core.items.banks import BankQuestionError, bank_question_to_item, import_bank, mutate_bank_question, parse_bank
from core.items.generator import normalise_text
from core.store import Store, repo

ROOT = Path(__file__).resolve().parents[2]
BANKS = ROOT / "data" / "banks"
SAMPLES = {"mathematics_local.json": "local", "mathematics_past.csv": "past",
           "physics_local.json": "local", "physics_past.csv": "past"}


def q(**over) -> dict:
    """A valid numeric question; tests override what they are about."""
    base = {"source": "local", "subject": "Mathematics", "level": "Nat 5", "outcome_id": "MNU-5-01",
            "text": "Calculate 3/4 of 84.", "marks": 2, "answer": "63",
            "marking_scheme": {"criteria": [{"step": "Find one quarter", "marks": 1, "gap_tag": "fractions"},
                                            {"step": "Multiply by three", "marks": 1}], "total_marks": 2}}
    base.update(over)
    return {k: v for k, v in base.items() if v is not None}


def formula_q(**over) -> dict:
    base = q(text=None, item_type="numeric", marks=1, marking_scheme=None,
             template="A rectangle is {l} cm long and {w} cm wide. Calculate its area.",
             variables={"l": {"min": 3, "max": 15}, "w": {"values": [2, 4, 5, 7]}},
             values={"l": 6, "w": 4}, answer_formula="l * w", answer="24", units="cm²")
    base.update(over)
    return {k: v for k, v in base.items() if v is not None}


def write_json(tmp_path: Path, rows, name: str = "bank.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    return path


def write_csv(tmp_path: Path, rows: list[dict], name: str = "bank.csv") -> Path:
    cols: list[str] = []
    for r in rows:
        cols += [c for c in r if c not in cols]
    buf = io.StringIO()
    w = csv.DictWriter(buf, cols, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: json.dumps(v, ensure_ascii=False) if isinstance(v, (dict, list)) else v for k, v in r.items()})
    path = tmp_path / name
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def key_of(text: str) -> str:
    return hashlib.sha256(("bank|" + normalise_text(text)).encode()).hexdigest()[:20]


@pytest.fixture
def store(tmp_path):
    s = Store(tmp_path / "w.duckdb")
    yield s
    s.close()


# --------------------------------------------------------------------------
# Parsing


def test_json_bank_becomes_items_with_the_bank_conventions(tmp_path):
    rows = [
        q(id="num_1", metadata={"difficulty": "hard", "calculator": "none", "year": 2019, "paper": "Paper 1"},
          tolerance_absolute=0.5, hints=["A quarter of 84 is 21."]),
        q(text="Which of these numbers is prime?", options=["4", "6", "7", "9"], answer="7", marks=1,
          marking_scheme=None),
        q(text="Explain what the standard deviation tells you.", answer="How spread out the data are.",
          keywords=["spread", "consistent"], marks=1, marking_scheme=None, source="us", level="Higher"),
    ]
    result = parse_bank(write_json(tmp_path, rows))
    assert result.errors == [] and result.duplicates == []
    numeric, mcq, text = result.questions

    assert numeric.id == "num_1" and numeric.source == "local" and numeric.item_type == "numeric"
    assert numeric.blueprint_id is None and numeric.blueprint_version is None and numeric.blueprint_hash == ""
    assert numeric.seed == "" and numeric.generation_params == {} and numeric.status == "approved"
    assert numeric.correct_answer == "63" and numeric.answer_value == 63 and numeric.answer_type == "integer"
    assert (numeric.difficulty_level, numeric.difficulty_value, numeric.calculator) == ("hard", 0.7, "none")
    assert numeric.evaluation == {"method": "numeric_tolerance", "tolerance": {"absolute": 0.5},
                                  "significant_figures": None, "required_form": "any", "keywords": [],
                                  "min_keywords": None, "partial_credit": True}
    assert numeric.marking_scheme["total_marks"] == 2 and numeric.marking_scheme["criteria"][0]["gap_tag"] == "fractions"
    assert numeric.outcome_ids == ["MNU-5-01"] and numeric.skill_ids == [] and numeric.hints == ["A quarter of 84 is 21."]
    assert numeric.content_key == key_of("Calculate 3/4 of 84.")
    assert numeric.computed_values["metadata"]["year"] == 2019

    assert mcq.item_type == "multiple_choice" and mcq.correct_index == 2 and mcq.correct_answer == "7"
    assert mcq.option_strategies == ["bank_distractor", "bank_distractor", None, "bank_distractor"]
    assert mcq.evaluation["method"] == "mcq" and mcq.evaluation["partial_credit"] is False
    assert mcq.id == "bank_" + key_of("Which of these numbers is prime?")
    assert (mcq.difficulty_level, mcq.difficulty_value, mcq.calculator) == ("medium", 0.5, "optional")

    assert text.item_type == "short_text" and text.source == "us" and text.evaluation["method"] == "short_text"
    assert text.evaluation["keywords"] == ["spread", "consistent"] and text.evaluation["tolerance"] is None


def test_questions_wrapper_forced_source_text_and_bytes(tmp_path):
    doc = {"questions": [q(source=None), q(text="Calculate 2/3 of 90.", answer="60", source="local")]}
    forced = parse_bank(write_json(tmp_path, doc), source="past")
    assert forced.errors == [] and [i.source for i in forced.questions] == ["past", "past"]

    unforced = parse_bank(json.dumps(doc))  # text, format sniffed
    assert [(e.row, e.field) for e in unforced.errors] == [(1, "source")]
    assert len(unforced.questions) == 1

    with_bom = parse_bank(b"\xef\xbb\xbf" + json.dumps(doc["questions"][1:]).encode(), fmt="json")
    assert with_bom.errors == [] and len(with_bom.questions) == 1
    with pytest.raises(ValueError):
        parse_bank(json.dumps(doc), source="llm")


def test_csv_bank_with_shorthand_cells(tmp_path):
    rows = [
        {"id": "c1", "source": "past", "subject": "Physics", "level": "Higher", "outcome_id": "PHY-H-03",
         "text": "A 470 μF capacitor is charged to 12 V. Calculate the energy stored.", "marks": "3",
         "marking_scheme": "Relationship: E = ½CV²:1:capacitor_energy;Substitution:1;Final answer:1:units",
         "answer": "0.0338", "units": "J", "tolerance_relative": "0.02",
         "metadata": {"difficulty": "easy", "year": 2021}, "paper": "Paper 2"},
        {"id": "c2", "source": "past", "subject": "Physics", "level": "Higher", "outcome_id": "PHY-H-03",
         "text": "In an n-type semiconductor the majority charge carriers are", "marks": "1",
         "options": "electrons|holes|positive ions", "answer": "electrons", "difficulty": "easy"},
        {"id": "c3", "source": "past", "subject": "Physics", "level": "Higher", "outcome_id": "PHY-H-04",
         "text": "Name the type of uncertainty\nthat repeated readings reduce.", "marks": "1",
         "answer": "random uncertainty", "keywords": "random"},
        {"id": "c4", "source": "past", "subject": "Physics", "level": "h", "outcome_id": "PHY-H-01",
         "text": "A ball is thrown upwards. What is its acceleration at the top?", "marks": "1",
         "options": '["0", "9.8 m s^-2 down", "9.8 m s^-2 up"]', "correct_index": "B", "answer": "9.8 m s^-2 down"},
    ]
    result = parse_bank(write_csv(tmp_path, rows))
    assert result.errors == []
    c1, c2, c3, c4 = result.questions
    assert c1.marking_scheme == {"criteria": [
        {"step": "Relationship: E = ½CV²", "marks": 1, "gap_tag": "capacitor_energy"},
        {"step": "Substitution", "marks": 1}, {"step": "Final answer", "marks": 1, "gap_tag": "units"}],
        "total_marks": 3}
    assert c1.evaluation["tolerance"] == {"relative": 0.02} and c1.answer_type == "decimal"
    assert c1.computed_values["metadata"] == {"difficulty": "easy", "year": 2021, "paper": "Paper 2"}
    assert c2.options == ["electrons", "holes", "positive ions"] and c2.correct_index == 0
    assert c2.difficulty_level == "easy"
    assert c3.item_type == "short_text" and c3.evaluation["keywords"] == ["random"] and "\n" in c3.stem
    assert c4.correct_index == 1 and c4.level == "Higher"


# --------------------------------------------------------------------------
# Bad rows


BAD_ROWS = [
    ("missing subject", {"subject": None}, "subject"),
    ("empty text", {"text": "   "}, "text"),
    ("missing answer", {"answer": None}, "answer"),
    ("marks not whole", {"marks": 2.5}, "marks"),
    ("marks zero", {"marks": 0}, "marks"),
    ("marks as words", {"marks": "two"}, "marks"),
    ("empty outcome", {"outcome_id": ""}, "outcome_id"),
    ("unknown source", {"source": "textbook"}, "source"),
    ("unknown item type", {"item_type": "essay"}, "item_type"),
    ("unknown method", {"method": "vibes"}, "method"),
    ("criteria do not add up", {"marking_scheme": {"criteria": [{"step": "All", "marks": 3}]}}, "marking_scheme"),
    ("index out of range", {"options": ["61", "62", "63"], "correct_index": 3, "marks": 1,
                            "marking_scheme": None}, "correct_index"),
    ("answer not an option", {"options": ["60", "61", "62"], "marks": 1, "marking_scheme": None}, "answer"),
    ("index not the answer", {"options": ["61", "62", "63"], "correct_index": 0, "marks": 1,
                              "marking_scheme": None}, "correct_index"),
    ("numeric without a number", {"item_type": "numeric", "answer": "sixty-three"}, "answer"),
    ("bad difficulty", {"metadata": {"difficulty": "impossible"}}, "metadata.difficulty"),
    ("misspelt field", {"anwser": "63"}, "anwser"),
    ("answer the marker cannot read", {"item_type": "algebraic", "answer": "2x +* 6", "marks": 1,
                                       "marking_scheme": None}, "answer"),
]


@pytest.mark.parametrize("name,change,field", BAD_ROWS, ids=[b[0] for b in BAD_ROWS])
def test_each_bad_json_row_is_reported_and_good_rows_kept(tmp_path, name, change, field):
    rows = [q(text="Good question one: 5 + 5?", answer="10", marks=1, marking_scheme=None),
            q(**change),
            q(text="Good question three: 6 + 6?", answer="12", marks=1, marking_scheme=None)]
    result = parse_bank(write_json(tmp_path, rows))
    assert [(e.row, e.field) for e in result.errors] == [(2, field)], result.errors
    assert result.errors[0].message.endswith(".") and len(result.errors[0].message) < 300
    assert [i.correct_answer for i in result.questions] == ["10", "12"]


BAD_FORMULAS = [
    ("does not compile", {"answer_formula": "l * * w"}, "answer_formula"),
    ("name not a variable", {"answer_formula": "l * width"}, "answer_formula"),
    ("attribute access", {"answer_formula": "l.__class__"}, "answer_formula"),
    ("import attempt", {"answer_formula": "__import__('os').system('true')"}, "answer_formula"),
    ("template field not a variable", {"template": "A rectangle is {l} cm by {width} cm. Area?"}, "template"),
    ("template field with attribute", {"template": "A rectangle is {l.real} cm by {w} cm. Area?"}, "template"),
    ("formula disagrees with the key", {"answer": "25"}, "answer_formula"),
    ("values miss a variable", {"values": {"l": 6}}, "values"),
    ("variables malformed", {"variables": {"l": {"min": 9, "max": 3}, "w": {"values": [2]}}}, "variables"),
    ("missing answer_formula", {"answer_formula": None}, "answer_formula"),
    ("text disagrees with template", {"text": "A square has side 6 cm. Calculate its area."}, "text"),
    ("constraint false for values", {"constraints": ["l > 10"]}, "constraints"),
    ("formula on a multiple-choice question", {"options": ["20", "24", "28"], "item_type": None}, "template"),
]


@pytest.mark.parametrize("name,change,field", BAD_FORMULAS, ids=[b[0] for b in BAD_FORMULAS])
def test_each_bad_formula_is_reported_on_its_row(tmp_path, name, change, field):
    rows = [formula_q(), formula_q(**change)]
    result = parse_bank(write_json(tmp_path, rows))
    assert [(e.row, e.field) for e in result.errors] == [(2, field)], result.errors
    assert len(result.questions) == 1


def test_bad_csv_rows_count_from_two_and_keep_good_rows(tmp_path):
    good = {"source": "past", "subject": "Mathematics", "level": "Nat 5", "outcome_id": "MNU-5-01", "marks": "1"}
    rows = [
        {**good, "text": "Row two: 2 + 2?", "answer": "4"},
        {**good, "text": "Row three: broken metadata", "answer": "3", "metadata": "{\"difficulty\": "},
        {**good, "text": "Row four: multi\nline cell", "answer": "4"},
        {**good, "text": "Row five: bad marks", "answer": "5", "marks": "-1"},
        {**good, "text": "Row six: bad scheme", "answer": "6", "marking_scheme": "All of it"},
        {**good, "text": "Row seven: bad criteria JSON", "answer": "7", "marking_scheme": "{\"criteria\": [}"},
        {**good, "text": "Row eight: 8 + 0?", "answer": "8", "notes": "a stray column"},
    ]
    result = parse_bank(write_csv(tmp_path, rows))
    assert [(e.row, e.field) for e in result.errors] == [
        (1, "notes"), (3, "metadata"), (5, "marks"), (6, "marking_scheme"), (7, "marking_scheme")]
    assert "JSON" in result.errors[1].message
    assert [i.correct_answer for i in result.questions] == ["4", "4", "8"]


def test_file_level_problems(tmp_path):
    latin = tmp_path / "latin.csv"
    latin.write_bytes("subject,level,outcome_id,text,marks,answer,source\nMaths,Nat 5,MNU-5-01,Cost £5?,1,5,local\n"
                      .encode("latin-1"))
    assert [(e.row, e.field) for e in parse_bank(latin).errors] == [(0, None)]
    assert "UTF-8" in parse_bank(latin).errors[0].message

    big = tmp_path / "big.json"
    big.write_text("[" + " " * (5 * 1024 * 1024) + "]", encoding="utf-8")
    result = parse_bank(big)
    assert result.questions == [] and result.errors[0].row == 0 and "5 MB" in result.errors[0].message

    broken = write_json(tmp_path, [q()], "broken.json")
    broken.write_text(broken.read_text()[:-5], encoding="utf-8")
    assert parse_bank(broken).errors[0].row == 0 and "line 1" in parse_bank(broken).errors[0].message

    assert parse_bank(tmp_path / "missing.json").errors[0].row == 0
    assert parse_bank(write_json(tmp_path, {"items": []}, "shape.json")).errors[0].row == 0
    not_objects = parse_bank(write_json(tmp_path, [q(), "just text"], "mixed.json"))
    assert [(e.row, e.field) for e in not_objects.errors] == [(2, None)] and len(not_objects.questions) == 1


def test_more_than_ten_thousand_rows(tmp_path):
    rows = [q(text=f"What is {i} + 1?", answer=str(i + 1), marks=1, marking_scheme=None) for i in range(10_001)]
    result = parse_bank(write_json(tmp_path, rows))
    assert len(result.questions) == 10_000
    assert [(e.row, e.field) for e in result.errors] == [(10_001, None)]
    csv_result = parse_bank(write_csv(tmp_path, rows))
    assert len(csv_result.questions) == 10_000 and csv_result.errors[0].row == 10_002


def test_bank_question_to_item_raises_with_every_problem():
    with pytest.raises(BankQuestionError) as exc:
        bank_question_to_item(q(marks=0, outcome_id="", item_type="essay"))
    assert {e.field for e in exc.value.errors} == {"marks", "outcome_id", "item_type"}
    assert bank_question_to_item(q(), source="us").source == "us"


# --------------------------------------------------------------------------
# Duplicates and import


def test_duplicates_inside_the_file(tmp_path):
    rows = [q(id="first"), q(id="other", text="Something else: 1 + 1?", answer="2"),
            q(id="again", text="  CALCULATE   3/4 of 84."), q(id="other", text="A new text, same id", answer="1")]
    result = parse_bank(write_json(tmp_path, rows))
    assert result.duplicates == [(3, "first")]
    assert [(e.row, e.field) for e in result.errors] == [(4, "id")]
    assert [i.id for i in result.questions] == ["first", "other"]


def test_import_stores_approved_items_and_skips_stored_duplicates(tmp_path, store):
    first = write_json(tmp_path, [q(id="m1", options=["60", "63", "66"], marks=1, marking_scheme=None),
                                  formula_q(id="m2")], "first.json")
    result = import_bank(store, first)
    assert result.errors == [] and result.duplicates == [] and [i.id for i in result.questions] == ["m1", "m2"]

    row = repo.get_item(store, "m1")
    assert row["answer_key"] == "63" and row["status"] == "approved" and row["source"] == "local"
    assert row["options"] == ["60", "63", "66"] and row["correct_index"] == 1 and row["blueprint_id"] is None
    formula_row = repo.get_item(store, "m2")
    assert formula_row["answer_key"] == "24" and formula_row["params"] == {"l": 6, "w": 4}
    assert formula_row["computed"]["answer_formula"] == "l * w"

    second = write_json(tmp_path, [q(id="copy_of_m1", text="calculate  3/4 OF 84.", options=["60", "63", "66"],
                                     marks=1, marking_scheme=None),
                                   q(id="m3", text="Calculate 2/5 of 90.", answer="36"),
                                   q(id="m1", text="A different question reusing an id.", answer="1")], "second.json")
    again = import_bank(store, second, source="past")
    assert again.duplicates == [(1, "m1")]
    assert [(e.row, e.field) for e in again.errors] == [(3, "id")]
    assert [i.id for i in again.questions] == ["m3"] and repo.get_item(store, "m3")["source"] == "past"
    assert repo.get_item(store, "copy_of_m1") is None

    generated = dataclasses.replace(bank_question_to_item(q(text="Made by a blueprint.")), id="taken", source="formula")
    repo.insert_items(store, [generated])
    clash = import_bank(store, write_json(tmp_path, [q(id="taken", text="Calculate 1/5 of 90.", answer="18"),
                                                     q(id="m4", text="Calculate 1/3 of 90.", answer="30")], "third.json"))
    assert [(e.row, e.field) for e in clash.errors] == [(1, "id")] and [i.id for i in clash.questions] == ["m4"]
    assert repo.get_item(store, "taken")["source"] == "formula"

    repeat = import_bank(store, first)
    assert repeat.questions == [] and repeat.duplicates == [(1, "m1"), (2, "m2")]
    assert repo.count_items(store) == 5


def test_a_row_whose_key_the_marker_cannot_use_is_reported_and_not_stored(tmp_path, store):
    good = {"source": "local", "subject": "Mathematics", "level": "Nat 5", "outcome_id": "MNU-5-02", "marks": "1"}
    rows = [{**good, "id": "e1", "text": "Expand 2(x + 3).", "item_type": "algebraic", "answer": "2x + 6"},
            {**good, "id": "e2", "text": "Expand 3(x + 1).", "item_type": "algebraic", "answer": "3x +* 3"}]
    result = import_bank(store, write_csv(tmp_path, rows))
    assert [i.id for i in result.questions] == ["e1"]
    [error] = result.errors
    assert (error.row, error.field) == (3, "answer")
    assert "'3x +* 3' is not a readable expression" in error.message and "import the row again" in error.message
    assert repo.get_item(store, "e1")["status"] == "approved" and repo.get_item(store, "e2") is None
    with pytest.raises(BankQuestionError, match="not a readable expression"):
        bank_question_to_item({**good, "text": "Expand 3(x + 1).", "item_type": "algebraic", "answer": "3x +* 3"})


# --------------------------------------------------------------------------
# Variants


def test_mutate_gives_new_numbers_and_a_recomputed_key():
    item = bank_question_to_item(formula_q(id="rect"))
    seen = set()
    for n in range(1, 6):
        v = mutate_bank_question(item, n, seed=42)
        assert v is not None
        l, w = v.generation_params["l"], v.generation_params["w"]
        assert 3 <= l <= 15 and w in (2, 4, 5, 7) and (l, w) != (6, 4)
        assert v.stem == f"A rectangle is {l} cm long and {w} cm wide. Calculate its area."
        assert v.correct_answer == str(l * w) and v.answer_value == l * w
        assert v.id == f"rect_variant_{n}" and v.source == "variant"
        assert v.content_key == key_of(v.stem) != item.content_key
        assert v.marking_scheme == item.marking_scheme and v.outcome_ids == item.outcome_ids
        seen.add((l, w))
    assert len(seen) > 1
    again = mutate_bank_question(item, 3, seed=42)
    assert again == mutate_bank_question(item, 3, seed=42)
    assert item.correct_answer == "24" and item.generation_params == {"l": 6, "w": 4}  # original untouched


def test_mutate_keeps_the_precision_and_style_of_the_key():
    photon = bank_question_to_item(formula_q(
        template="Light of frequency {f:.1f} × 10^14 Hz is used. Calculate the energy of one photon.",
        variables={"f": {"values": [4.5, 5.0, 6.0, 7.5]}}, values={"f": 6.0},
        answer_formula="6.63e-34 * f * 1e14", answer="3.98 × 10^-19", units="J"))
    for n in range(1, 4):
        v = mutate_bank_question(photon, n, seed="s")
        f = v.generation_params["f"]
        mantissa = Decimal("6.63") * Decimal(str(f)) / 10  # h f = (6.63 f / 10) × 10^-19 for f from 4.5 to 7.5
        assert v.correct_answer == f"{mantissa.quantize(Decimal('0.01'), ROUND_HALF_UP)} × 10^-19"
        assert f"{f:.1f} × 10^14 Hz" in v.stem

    money = bank_question_to_item(formula_q(
        template="£{p} is invested at {r}% per year for {n} years. Find its value.",
        variables={"p": {"values": [1000, 2500, 4000]}, "r": {"values": [2, 3, 4]}, "n": {"values": [2, 3]}},
        values={"p": 1000, "r": 2, "n": 2}, answer_formula="p * (1 + r / 100) ** n", answer="1040.40"))
    for k in range(1, 4):
        v = mutate_bank_question(money, k, seed=1)
        p, r, n = (v.generation_params[x] for x in "prn")
        exact = Fraction(p) * (1 + Fraction(r, 100)) ** n
        pennies = math.floor(exact * 100 + Fraction(1, 2))  # half up, as a teacher rounds money
        assert v.correct_answer == f"{pennies // 100}.{pennies % 100:02d}"


def test_mutate_returns_none_without_a_usable_formula():
    plain = bank_question_to_item(q())
    assert mutate_bank_question(plain, 1, seed=0) is None
    mcq = bank_question_to_item(q(options=["60", "63"], marks=1, marking_scheme=None))
    assert mutate_bank_question(mcq, 1, seed=0) is None
    fixed = bank_question_to_item(formula_q(variables={"l": {"values": [6]}, "w": {"values": [4]}}))
    assert mutate_bank_question(fixed, 1, seed=0) is None  # no other values to draw


def test_mutate_respects_constraints_and_whole_number_keys():
    item = bank_question_to_item(formula_q(
        template="Solve {a}x + {b} = {c}.", variables={"a": {"min": 2, "max": 9}, "b": {"min": 1, "max": 20},
                                                      "c": {"min": 10, "max": 60}},
        values={"a": 3, "b": 5, "c": 20}, constraints=["c > b"], answer_formula="(c - b) / a", answer="5",
        units=None))
    for n in range(1, 8):
        v = mutate_bank_question(item, n, seed=9)
        a, b, c = (v.generation_params[x] for x in "abc")
        assert c > b and (c - b) % a == 0 and v.correct_answer == str((c - b) // a)


def test_template_with_latex_braces():
    item = bank_question_to_item(formula_q(
        template="Find the limit of $u_{{n+1}} = {a}u_n + {b}$.", variables={"a": {"values": [0.5, 0.75]},
                                                                         "b": {"min": 2, "max": 9}},
        values={"a": 0.5, "b": 6}, answer_formula="round(b / (1 - a), 6)", answer="12", units=None))
    assert item.stem == "Find the limit of $u_{n+1} = 0.5u_n + 6$."
    v = mutate_bank_question(item, 1, seed=0)
    a, b = v.generation_params["a"], v.generation_params["b"]
    assert v.stem == f"Find the limit of $u_{{n+1}} = {a}u_n + {b}$." and float(v.correct_answer) == b / (1 - a)


# --------------------------------------------------------------------------
# The shipped banks


def _spec_outcomes() -> dict[tuple[str, str], set[str]]:
    out = {}
    for path in (ROOT / "blueprints" / "specs").glob("*.yaml"):
        spec = yaml.safe_load(path.read_text(encoding="utf-8"))
        out[(spec["subject"], spec["level"])] = {o["id"] for o in spec["outcomes"]}
    return out


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_shipped_banks_import_without_errors(tmp_path, name):
    s = Store(tmp_path / "w.duckdb")
    try:
        result = import_bank(s, BANKS / name)
        assert result.errors == [] and result.duplicates == []
        assert len(result.questions) >= 8
        assert {i.source for i in result.questions} == {SAMPLES[name]}
        outcomes = _spec_outcomes()
        for item in result.questions:
            assert set(item.outcome_ids) <= outcomes[(item.subject, item.level)], item.id
            assert repo.get_item(s, item.id)["answer_key"] == item.correct_answer
            assert item.marking_scheme["criteria"], item.id
            if "template" in item.computed_values:
                for n in (1, 2):
                    v = mutate_bank_question(item, n, seed="ship")
                    assert v is not None and v.generation_params != item.generation_params, item.id
    finally:
        s.close()


def test_shipped_bank_keys_match_an_independent_calculation():
    items = {}
    for name in SAMPLES:
        items.update({i.id: i for i in parse_bank(BANKS / name).questions})
    sin, cos, rad = math.sin, math.cos, math.radians
    expected = {
        "loc_math_n4_001": 18 * 24,
        "loc_math_n4_003": round(math.hypot(5, 7), 1),
        "loc_math_n4_004": (20 - 5) / 3,
        "loc_math_n5_001": 7369.50,  # 12000 × 0.85³ = 7369.4999… on a float, 7369.50 exactly
        "loc_math_n5_004": (11 - 3) / (5 - 1),
        "loc_math_n5_005": round(110 / 360 * math.pi * 16, 1),
        "loc_math_n5_006": round(math.sqrt(81 + 49 - 126 * cos(rad(52))), 1),
        "loc_math_h_001": 12 / 0.4,
        "loc_math_h_004": (27 + 12) - (1 + 4),
        "past_math_n5_001": Fraction(7, 2) - Fraction(5, 3),
        "past_math_n5_002": 4.2e5 * 3e-2,
        "past_math_n5_006": float(f"{math.pi * 36 * 10 / 3:.3g}"),
        "past_math_n5_007": round(8.5 * sin(rad(63)) / sin(rad(48)), 1),
        "past_math_h_001": float(f"{200 * math.exp(-0.6):.3g}"),
        "loc_phys_h_001": (22 - 4) / 6,
        "loc_phys_h_002": round(math.sqrt(2 * 45 / 9.8), 2),
        "loc_phys_h_004": float(f"{6.63e-34 * 6.0e14:.3g}"),
        "loc_phys_h_005": round(sin(rad(50)) / sin(rad(30)), 2),
        "loc_phys_h_007": float(f"{0.5 * 470e-6 * 12 ** 2:.3g}"),
        "loc_phys_h_008": round(0.2 / 12.4 * 100, 1),
        "past_phys_h_001": 650 * (9.8 + 1.2),
        "past_phys_h_003": round(math.sqrt(2 * 9.8 * 0.80), 2),
        "past_phys_h_004": round(math.degrees(math.asin(2 * 633e-9 * 300_000)), 1),
        "past_phys_h_006": 9.0 / (4.0 + 0.5),
        "past_phys_h_008": round((1.99 - 1.89) / 5, 2),
    }
    for qid, value in expected.items():
        key = banks.parse_number(items[qid].correct_answer)
        assert key is not None and math.isclose(float(key), float(value), rel_tol=1e-9), (qid, key, value)
    assert items["loc_math_h_003"].correct_answer == "6x^2 - 10x + 7"
    assert items["past_math_n5_005"].correct_answer == "No real roots" and 3 ** 2 - 4 * 2 * 5 < 0
    assert items["loc_phys_h_003"].correct_answer == f"{2.0 * 3.0 / (2.0 + 1.0):.1f} m s^-1"
    for qid in ("past_math_h_002",):  # x + 3y − 13 = 0 passes through A(−2, 5) with gradient −1/3
        assert items[qid].correct_answer == "x + 3y - 13 = 0" and -2 + 3 * 5 - 13 == 0
