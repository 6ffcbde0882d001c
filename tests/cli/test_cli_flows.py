"""The flow commands of the command line: mark, exam, session, simulate."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import run


@pytest.mark.parametrize("method, expected, answer, correct", [
    ("exact_match", "85", " 85 ", True),
    ("exact_match", "1,234", "1234", True),
    ("numeric_tolerance", "2.5", "2.54", True),
    ("numeric_tolerance", "2.5", "2.6", False),
    ("numeric_tolerance", "0.2", "1/5", True),
    ("numeric_tolerance", "3.2e-19", "3.2 x 10^-19", True),
    ("algebraic_equivalence", "2x+3", "3+2*x", True),
    ("algebraic_equivalence", "2x+3", "2x+4", False),
    ("short_text", "newton", "Newton", True),
    ("ip_address", "192.168.1.0", "192.168.001.000", True),
    ("cidr", "10.0.0.0/8", "10.0.0.0 255.0.0.0", True),
])
def test_mark(method, expected, answer, correct):
    out = run("mark", "--method", method, "--expected", expected, "--answer", answer, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["correct"] is correct and data["max_score"] == 1
    assert data["score"] == (1 if correct else 0)


def test_mark_tolerance_flag_and_bad_input():
    out = run("mark", "--method", "numeric_tolerance", "--expected", "100", "--answer", "104", "--tolerance", "0.05", "--json")
    assert json.loads(out.stdout)["correct"] is True
    bad = run("mark", "--method", "telepathy", "--expected", "1", "--answer", "1")
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "unknown method" in bad.stderr
    bad = run("mark", "--method", "numeric_tolerance", "--expected", "1", "--answer", "1", "--tolerance", "5")
    assert bad.returncode == 2 and "between 0 and 1" in bad.stderr


def test_hostile_answer_is_marked_not_run(tmp_path: Path):
    canary = tmp_path / "canary"
    out = run("mark", "--method", "algebraic_equivalence", "--expected", "x", "--answer",
              f"__import__('os').system('touch {canary}')", "--json")
    assert out.returncode == 0 and json.loads(out.stdout)["correct"] is False
    assert not canary.exists()


def test_exam_prints_the_package_without_keys(tmp_path: Path):
    out = run("exam", "--subject", "Mathematics", "--level", "Nat 5", "--seed", "3", "--json")
    assert out.returncode == 0, out.stderr
    exam = json.loads(out.stdout)
    assert exam["total_marks"] == 110 and exam["question_count"] >= 30 and len(exam["sections"]) == 2
    text = out.stdout
    assert "correct_answer" not in text and "correct_index" not in text and "explanation" not in text
    db = tmp_path / "exam.duckdb"
    stored = run("exam", "--subject", "Mathematics", "--level", "Nat 5", "--seed", "3", "--db", str(db), "--json")
    assert json.loads(stored.stdout)["question_count"] == exam["question_count"]


def test_exam_for_an_unknown_course_is_one_line():
    out = run("exam", "--subject", "Alchemy", "--level", "Nat 5")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "no course spec for Alchemy Nat 5" in out.stderr


def start_practice(db: str, level: str, student: str) -> tuple[str, dict]:
    """A practice session started through the command line: its id and first question."""
    start = json.loads(run("session", "start", "practice", "--db", db, "--arg", "subject=Mathematics",
                           "--arg", f"level={level}", "--arg", f"student={student}", "--json").stdout)
    return start["session_id"], start["question"]


def send_answer(db: str, sid: str, question: dict, text: str) -> dict:
    return json.loads(run("session", "do", sid, "answer", "--db", db, "--arg", f"item_id={question['id']}",
                          "--arg", f"answer={text}", "--json").stdout)


def test_session_commands_drive_a_practice_session(tmp_path: Path):
    db = str(tmp_path / "s.duckdb")
    sid, q = start_practice(db, "Nat 4", "zoe")
    answered = send_answer(db, sid, q, "no idea")
    if "reading" in answered:   # a question that cannot read words: nothing counted, the question still waits
        assert answered["reading"]["valid"] is False and answered["reading"]["problem"]
        assert answered["stage"] == "question" and answered["stats"]["total"] == 0
        answered = send_answer(db, sid, q, q["options"][0] if q["options"] else "99999")
    assert answered["feedback"]["correct_answer"]
    following = json.loads(run("session", "do", sid, "next", "--db", db, "--json").stdout)
    assert following["question"]["id"] != q["id"]
    view = json.loads(run("session", "view", sid, "--db", db, "--json").stdout)
    assert view["stats"]["total"] == 1
    bad = run("session", "do", sid, "answer", "--db", db, "--arg", "item_id=itm_other", "--arg", "answer=1")
    assert bad.returncode == 2 and "no longer on screen" in bad.stderr


def test_simulate_fills_a_database(tmp_path: Path):
    db = tmp_path / "class.duckdb"
    truth = tmp_path / "truth.json"
    out = run("simulate", "--students", "3", "--seed", "5", "--db", str(db), "--practice", "1", "--questions", "4",
              "--exams", "1", "--lessons", "0", "--truth", str(truth), "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["students"] == 3 and data["responses"] > 3 * 4
    abilities = json.loads(truth.read_text())["students"]
    assert len(abilities) == 3 and all("theta" in s for s in abilities)
    from core.store import Store
    store = Store(db)
    kinds = dict(store.query("SELECT kind, count(*) FROM sessions GROUP BY kind"))
    assert kinds["practice"] == 3 and kinds["exam"] == 3
    assert store.query("SELECT count(*) FROM responses")[0][0] >= data["responses"]
    store.close()


def test_a_typed_answer_reaches_the_marker_as_text(tmp_path: Path):
    """`--arg answer=1` is the text "1" (a student's number), not option index 1 nor the integer 1."""
    from core.cli.sessions import TEXT_ARGS, _parse_args_kv
    parsed = _parse_args_kv(["answer=1", "item_id=itm_1", "cards=5", "answer_note=[1]"], TEXT_ARGS)
    assert parsed == {"answer": "1", "item_id": "itm_1", "cards": 5, "answer_note": [1]}
    db = str(tmp_path / "t.duckdb")
    sid, q = start_practice(db, "Nat 5", "tia")
    answered = send_answer(db, sid, q, "42")
    # The text typed, not the integer 42: marked (feedback) or, where 42 cannot be an answer to this
    # question (not one of its options), shown back as read without being counted (reading).
    got = answered.get("feedback") or answered.get("reading")
    assert got is not None and got["answer"] == "42", answered


@pytest.mark.parametrize("method, expected, answer, read_as", [
    ("algebraic_equivalence", "2x+3", "3+2x", "3 + 2*x"),
    ("numeric_tolerance", "2.5", "5/2", "2.5"),
])
def test_mark_json_says_how_the_answer_was_read(method, expected, answer, read_as):
    data = json.loads(run("mark", "--method", method, "--expected", expected, "--answer", answer, "--json").stdout)
    assert data["valid"] is True and data["correct"] is True
    assert data["read_as"].replace(" ", "") == read_as.replace(" ", "")
    assert "read_as_latex" in data and isinstance(data["notes"], list)
    text = run("mark", "--method", method, "--expected", expected, "--answer", answer)
    assert text.returncode == 0 and text.stdout.startswith("correct:")
    assert "read as: " in text.stdout


def test_mark_an_unreadable_answer_says_so_and_what_is_wrong_with_it():
    out = run("mark", "--method", "algebraic_equivalence", "--expected", "2x+3", "--answer", "2*(x+", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 0 and data["valid"] is False and data["read_as"] is None
    assert data["correct"] is False and data["score"] == 0 and data["feedback"]
    text = run("mark", "--method", "algebraic_equivalence", "--expected", "2x+3", "--answer", "2*(x+").stdout
    assert text.startswith("could not be read: 0/1.") and "read as" not in text


def test_session_answer_prints_the_reading(tmp_path: Path):
    db = str(tmp_path / "r.duckdb")
    start = json.loads(run("session", "start", "lesson", "--db", db, "--arg", 'skills=["SQA.MATH.N5.EXPAND_BRACKETS"]',
                           "--arg", "cards=1", "--arg", "student=rae", "--json").stdout)
    sid = start["session_id"]
    out = run("session", "do", sid, "answer", "--db", db, "--arg", "answer=2*(x+")
    assert out.returncode == 0, out.stderr
    assert "could not be read: " in out.stdout and "nothing was counted" in out.stdout
    view = json.loads(run("session", "view", sid, "--db", db, "--json").stdout)
    assert view["card"]["attempts_used"] == 0
    out = run("session", "do", sid, "answer", "--db", db, "--arg", "answer=3x + 99")
    assert out.returncode == 0 and "\nread as: 3*x + 99" in out.stdout
    data = json.loads(run("session", "do", sid, "answer", "--db", db, "--arg", "answer=3x + 98", "--json").stdout)
    assert data["feedback"]["reading"]["read_as"] and data["card"]["attempts_used"] == 2
