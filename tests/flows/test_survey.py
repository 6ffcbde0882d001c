"""Surveys through the real flow on a real database: order, skip logic, validation, answers read back."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from core.flows.base import Context, FlowError, Runner
from core.flows.lesson import LessonFlow
from core.flows.survey import (MAX_FREE_TEXT, SurveyDefinition, SurveyError, SurveyFlow, load_survey,
                               load_survey_file, parse_survey, survey_answers)
from core.store import sessions

SHIPPED = Path(__file__).resolve().parents[2] / "blueprints" / "surveys" / "exit_ticket.yaml"


def make_runner(store, library) -> Runner:
    return Runner(Context.create(store, library), {"lesson": LessonFlow, "survey": SurveyFlow})


@pytest.fixture
def runner(store, library):
    return make_runner(store, library)


def start(runner, student="amy", survey_id="exit_ticket", context=None) -> str:
    return runner.start("survey", student, {"survey_id": survey_id, "context": context or {"practice_session": "prac_1"}})


def on_screen(runner, sid) -> str:
    return runner.view(sid)["question"]["question_id"]


def event_types(store, sid) -> list[str]:
    return [e["type"] for e in sessions.load_events(store, sid)]


def status(store, sid) -> str:
    return store.query("SELECT status FROM sessions WHERE id = ?", [sid])[0][0]


# --------------------------------------------------------------------------


def test_the_shipped_exit_ticket_is_valid():
    survey = load_survey_file(SHIPPED)
    assert survey.survey_id == "exit_ticket"
    types = {q.question_id: q.question_type for q in survey.questions}
    assert types == {"confidence": "rating", "confusing": "free_text", "difficulty": "choice",
                     "what_would_help": "free_text"}
    assert survey.questions[0].scale.min == 1 and survey.questions[0].scale.max == 5
    assert load_survey("exit_ticket") == survey


def test_a_full_run_records_every_answer_as_an_event_and_no_responses(runner, store):
    sid = start(runner)
    view = runner.view(sid)
    assert view["stage"] == "question" and view["title"] == "Exit ticket"
    assert view["question"]["question_id"] == "confidence" and view["question"]["scale"]["max"] == 5
    assert view["progress"]["position"] == 1 and view["progress"]["total"] == 4
    for qid, given in [("confidence", 2), ("confusing", "  Negative numbers in brackets  "),
                       ("difficulty", "too HARD"), ("what_would_help", "A worked example first")]:
        assert on_screen(runner, sid) == qid
        view = runner.command(sid, "answer", question_id=qid, answer=given)
    assert view["stage"] == "ended" and "Thank you" in view["message"]
    assert view["answers"] == {"confidence": 2, "confusing": "Negative numbers in brackets",
                               "difficulty": "Too hard", "what_would_help": "A worked example first"}
    assert event_types(store, sid) == ["started", "answered", "answered", "answered", "answered", "ended"]
    assert status(store, sid) == "completed"
    assert store.query("SELECT count(*) FROM responses")[0][0] == 0


def test_skip_logic_skips_the_confusing_question_for_a_confident_student(runner, store):
    sid = start(runner, "ben")
    view = runner.command(sid, "answer", question_id="confidence", answer=4)
    assert view["question"]["question_id"] == "difficulty" and view["progress"]["not_asked"] == 1
    # Counted as the student sees them: the second of the three now asked, not "3 of 4".
    assert (view["progress"]["step"], view["progress"]["steps"]) == (2, 3)
    with pytest.raises(FlowError, match="does not apply"):
        runner.command(sid, "answer", question_id="confusing", answer="nothing")
    answered = [e for e in sessions.load_events(store, sid) if e["type"] == "answered"]
    assert answered[0]["payload"]["not_asked"] == ["confusing"] and answered[0]["payload"]["rule"] == 0


def test_skip_logic_asks_the_confusing_question_when_confidence_is_low(runner):
    for student, confidence in (("cat", 1), ("dan", 2)):
        sid = start(runner, student)
        view = runner.command(sid, "answer", question_id="confidence", answer=confidence)
        assert view["question"]["question_id"] == "confusing" and view["progress"]["not_asked"] == 0
        assert view["question"]["required"] is False and view["question"]["max_length"] == MAX_FREE_TEXT


@pytest.mark.parametrize("question_id, bad, message", [
    ("confidence", 0, "whole number from 1 to 5"),
    ("confidence", 6, "whole number from 1 to 5"),
    ("confidence", 3.5, "whole number from 1 to 5"),
    ("confidence", "very", "whole number from 1 to 5"),
    ("confidence", True, "whole number from 1 to 5"),
    ("confidence", None, "needs an answer"),
    ("confidence", "   ", "needs an answer"),
])
def test_bad_ratings_are_refused(runner, store, question_id, bad, message):
    sid = start(runner)
    with pytest.raises(FlowError, match=message):
        runner.command(sid, "answer", question_id=question_id, answer=bad)
    assert event_types(store, sid) == ["started"]


def test_bad_choices_and_long_free_text_are_refused(runner, store):
    sid = start(runner)
    runner.command(sid, "answer", question_id="confidence", answer="1")   # digits as text are read as a rating
    with pytest.raises(FlowError, match="not on screen yet"):
        runner.command(sid, "answer", question_id="difficulty", answer="Too easy")
    with pytest.raises(FlowError, match="at most 2,000 characters"):
        runner.command(sid, "answer", question_id="confusing", answer="x" * (MAX_FREE_TEXT + 1))
    with pytest.raises(FlowError, match="written answer"):
        runner.command(sid, "answer", question_id="confusing", answer=["a list"])
    with pytest.raises(FlowError, match="type an answer, or skip"):
        runner.command(sid, "answer", question_id="confusing", answer="")
    runner.command(sid, "answer", question_id="confusing", answer="y" * MAX_FREE_TEXT)   # exactly the limit is fine
    with pytest.raises(FlowError, match="choose one of: Too easy, About right, Too hard"):
        runner.command(sid, "answer", question_id="difficulty", answer="Impossible")
    with pytest.raises(FlowError, match="choose one of"):
        runner.command(sid, "answer", question_id="difficulty", answer=2)
    with pytest.raises(FlowError, match="no question 'mood'"):
        runner.command(sid, "answer", question_id="mood", answer="fine")
    assert event_types(store, sid) == ["started", "answered", "answered"]
    assert runner.view(sid)["answers"]["confidence"] == 1


def test_required_questions_cannot_be_skipped_and_optional_ones_can(runner, store):
    sid = start(runner)
    with pytest.raises(FlowError, match="needs an answer and cannot be skipped"):
        runner.command(sid, "skip", question_id="confidence")
    runner.command(sid, "answer", question_id="confidence", answer=2)
    view = runner.command(sid, "skip", question_id="confusing")
    assert view["question"]["question_id"] == "difficulty" and view["progress"]["skipped"] == 1
    assert runner.command(sid, "skip", question_id="confusing")["question"]["question_id"] == "difficulty"  # repeat
    with pytest.raises(FlowError, match="cannot be skipped"):
        runner.command(sid, "skip")
    runner.command(sid, "answer", question_id="difficulty", answer="About right")
    view = runner.command(sid, "skip", question_id="what_would_help")
    assert view["stage"] == "ended" and status(store, sid) == "completed"
    assert view["answers"] == {"confidence": 2, "difficulty": "About right"}
    assert event_types(store, sid) == ["started", "answered", "skipped", "answered", "skipped", "ended"]


def test_a_repeated_answer_is_recorded_once_and_a_changed_one_is_refused(runner, store):
    sid = start(runner)
    runner.command(sid, "answer", question_id="confidence", answer=5)
    view = runner.command(sid, "answer", question_id="confidence", answer="5")   # double click, second tab
    assert view["question"]["question_id"] == "difficulty"
    assert event_types(store, sid) == ["started", "answered"]
    with pytest.raises(FlowError, match="already been answered"):
        runner.command(sid, "answer", question_id="confidence", answer=1)


def test_a_new_runner_resumes_at_the_same_question(store, library):
    first = make_runner(store, library)
    sid = start(first)
    first.command(sid, "answer", question_id="confidence", answer=1)
    other = make_runner(store, library)
    assert other.view(sid) == first.view(sid)
    assert other.view(sid)["question"]["question_id"] == "confusing"
    other.command(sid, "answer", question_id="confusing", answer="Dividing fractions")
    assert first.view(sid)["question"]["question_id"] == "difficulty"


def test_stop_keeps_the_answers_and_marks_the_survey_abandoned(runner, store):
    sid = start(runner)
    runner.command(sid, "answer", question_id="confidence", answer=3)
    view = runner.command(sid, "stop")
    assert view["stage"] == "ended" and status(store, sid) == "abandoned"
    with pytest.raises(FlowError, match="finished"):
        runner.command(sid, "answer", question_id="difficulty", answer="Too easy")
    assert [a["question_id"] for a in survey_answers(store)] == ["confidence"]


def test_survey_answers_reads_the_answers_back(runner, store):
    one = start(runner, "amy", context={"practice_session": "prac_amy"})
    for qid, given in [("confidence", 4), ("difficulty", "Too easy"), ("what_would_help", "Harder questions")]:
        runner.command(one, "answer", question_id=qid, answer=given)
    two = start(runner, "ben", context={"practice_session": "prac_ben"})
    runner.command(two, "answer", question_id="confidence", answer=1)
    runner.command(two, "answer", question_id="confusing", answer="Everything")
    rows = survey_answers(store, "exit_ticket")
    assert [(r["session_id"], r["student"], r["question_id"], r["answer"]) for r in rows] == [
        (one, "amy", "confidence", 4), (one, "amy", "difficulty", "Too easy"),
        (one, "amy", "what_would_help", "Harder questions"),
        (two, "ben", "confidence", 1), (two, "ben", "confusing", "Everything")]
    assert rows[0]["context"] == {"practice_session": "prac_amy"} and rows[0]["question_type"] == "rating"
    assert rows[0]["session_status"] == "completed" and rows[-1]["session_status"] == "active"
    assert rows[0]["question"] == "How confident do you feel about what you just practised?"
    assert rows[0]["answered_at"] is not None
    assert survey_answers(store) == rows and survey_answers(store, "other_survey") == []


# --------------------------------------------------------------------------
# Definitions

GOOD = """
survey_id: lesson_check
title: "After the lesson"
questions:
  - question_id: mood
    text: "How did it go?"
    question_type: choice
    options: ["Great", "OK", "Badly"]
  - question_id: why
    text: "Why?"
    question_type: free_text
    required: false
  - question_id: score
    text: "Rate the lesson"
    question_type: rating
    scale: {min: 0, max: 10}
  - question_id: more
    text: "Anything else?"
    question_type: free_text
    required: false
skip_logic:
  - if: {question: mood, op: in, value: ["Great", "OK"]}
    skip_to: score
  - if: {question: score, op: gte, value: 9}
    skip_to: end
"""


def write(directory: Path, name: str, text: str) -> Path:
    path = directory / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_survey_from_another_folder_with_in_and_end_rules(runner, store, tmp_path, monkeypatch):
    folder = tmp_path / "surveys"
    folder.mkdir()
    write(folder, "lesson_check.yaml", GOOD)
    monkeypatch.setenv("WORKBENCH_SURVEYS", str(folder))
    sid = start(runner, survey_id="lesson_check")
    view = runner.command(sid, "answer", question_id="mood", answer="ok")
    assert view["question"]["question_id"] == "score"
    with pytest.raises(FlowError, match="whole number from 0 to 10"):
        runner.command(sid, "answer", question_id="score", answer=11)
    view = runner.command(sid, "answer", question_id="score", answer=9)
    assert view["stage"] == "ended" and view["progress"]["not_asked"] == 2
    assert status(store, sid) == "completed"
    other = start(runner, "ben", survey_id="lesson_check")
    assert runner.command(other, "answer", question_id="mood", answer="Badly")["question"]["question_id"] == "why"
    with pytest.raises(FlowError, match="no survey 'nope'"):
        start(runner, survey_id="nope")
    with pytest.raises(FlowError, match="not a survey id"):
        start(runner, survey_id="../../etc/passwd")


@pytest.mark.parametrize("change, field, message", [
    (("- question_id: why", "- question_id: mood"), "questions[1].question_id", "already used by questions[0]"),
    (("skip_to: score", "skip_to: nowhere"), "skip_logic[0].skip_to", "no question 'nowhere'"),
    (("skip_to: score", "skip_to: mood"), "skip_logic[0].skip_to", "must point forward"),
    (("{question: score, op: gte", "{question: score2, op: gte"), "skip_logic[1].if.question", "no question 'score2'"),
    (('options: ["Great", "OK", "Badly"]', "options: []"), "questions[0].options", "at least two options"),
    (('options: ["Great", "OK", "Badly"]', 'options: ["Great", "great"]'), "questions[0].options[1]", "repeats option 1"),
    (("scale: {min: 0, max: 10}", "scale: {min: 5, max: 5}"), "questions[2].scale.max", "must be above its min"),
    (("scale: {min: 0, max: 10}", "scale: {min: 0, max: 100}"), "questions[2].scale.max", "at most 11 points"),
    (("question_type: rating", "question_type: slider"), "questions[2].question_type", "Input should be"),
    (('value: ["Great", "OK"]', 'value: ["Great", "Superb"]'), "skip_logic[0].if.value", "not one of the options"),
    (("op: in", "op: lt"), "skip_logic[0].if.op", "compares numbers"),
    (("op: gte, value: 9", "op: gte, value: high"), "skip_logic[1].if.value", "must be a number"),
    (('title: "After the lesson"', 'titel: "After the lesson"'), "titel", "unknown field"),
    (("    required: false\n  - question_id: score", "    required: false\n    scale: {min: 1, max: 3}\n  - question_id: score"),
     "questions[1].scale", "only applies to rating"),
])
def test_a_bad_survey_file_is_reported_with_its_path_and_field(tmp_path, change, field, message):
    old, new = change
    text = textwrap.dedent(GOOD)
    assert old in text
    path = write(tmp_path, "bad.yaml", text.replace(old, new, 1))
    with pytest.raises(SurveyError) as caught:
        load_survey_file(path)
    err = caught.value
    assert err.file == str(path) and err.field == field and message in err.problem
    assert str(err).startswith(str(path)) and field in str(err)
    assert err.line is not None


def test_yaml_syntax_errors_and_a_bad_file_met_while_searching_are_reported(tmp_path, store, library, monkeypatch):
    path = write(tmp_path, "broken.yaml", "survey_id: broken\nquestions: [\n")
    with pytest.raises(SurveyError, match="YAML syntax error") as caught:
        load_survey_file(path)
    assert caught.value.file == str(path) and caught.value.line is not None
    with pytest.raises(SurveyError, match="expected a mapping"):
        parse_survey("- just\n- a list\n", "list.yaml")
    folder = tmp_path / "surveys"
    folder.mkdir()
    write(folder, "exit_ticket.yaml", GOOD.replace("skip_to: score", "skip_to: mood"))
    monkeypatch.setenv("WORKBENCH_SURVEYS", str(folder))
    runner = make_runner(store, library)
    with pytest.raises(FlowError, match=r"exit_ticket\.yaml.*skip_logic\[0\]\.skip_to"):
        start(runner, survey_id="lesson_check")  # found nowhere: the unreadable file is named
    with pytest.raises(FlowError, match="cannot be used"):
        write(folder, "lesson_check.yaml", GOOD.replace("title:", "titel:"))
        start(runner, survey_id="lesson_check")


def test_the_model_accepts_the_definition_as_stored_in_the_event_log():
    survey = load_survey_file(SHIPPED)
    again = SurveyDefinition.model_validate(survey.model_dump(mode="json", by_alias=True))
    assert again == survey


# --------------------------------------------------------------------------
# Answering the question on screen without naming it


def test_the_exit_ticket_is_answered_without_naming_any_question(runner, store):
    sid = start(runner, "una")
    view = runner.command(sid, "answer", answer="4")                # the rating on screen, typed as text
    assert view["answers"] == {"confidence": 4} and on_screen(runner, sid) == "difficulty"
    view = runner.command(sid, "answer", answer="About right")
    view = runner.command(sid, "skip")                              # the optional last question
    assert view["stage"] == "ended" and view["answers"] == {"confidence": 4, "difficulty": "About right"}
    assert status(store, sid) == "completed"
    with pytest.raises(FlowError, match="finished"):
        runner.command(sid, "answer", answer="5")


def test_naming_the_question_still_works_and_must_name_the_one_on_screen(runner):
    sid = start(runner, "vic")
    with pytest.raises(FlowError, match="not on screen"):
        runner.command(sid, "answer", question_id="difficulty", answer="Too easy")
    runner.command(sid, "answer", question_id="confidence", answer=1)
    assert on_screen(runner, sid) == "confusing"
    runner.command(sid, "answer", question_id="confidence", answer=1)   # the same answer again: recorded once
    with pytest.raises(FlowError, match="needs an answer|type an answer"):
        runner.command(sid, "answer")
    assert runner.view(sid)["answers"] == {"confidence": 1}


def test_a_survey_without_a_survey_id_says_which_there_are(runner):
    with pytest.raises(FlowError, match="survey_id.*exit_ticket"):
        runner.start("survey", "wes", {})


def test_the_command_line_starts_and_answers_the_exit_ticket_without_a_question_id(tmp_path):
    import json

    from tests.cli.test_cli import run
    db = str(tmp_path / "survey.duckdb")
    started = run("session", "start", "survey", "--db", db, "--student", "xia", "--arg", "survey_id=exit_ticket",
                  "--json")
    assert started.returncode == 0, started.stderr
    sid = json.loads(started.stdout)["session_id"]
    answered = run("session", "do", sid, "answer", "--db", db, "--arg", "answer=5", "--json")
    assert answered.returncode == 0, answered.stderr
    view = json.loads(answered.stdout)
    assert view["answers"] == {"confidence": 5} and view["question"]["question_id"] == "difficulty"
    help_text = run("session", "--help").stdout
    assert "question_id" in help_text and "optional" in help_text
