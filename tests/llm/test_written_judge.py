"""Written answers in mock exams and evaluations, judged for meaning by the LLM once handed in: against the local
fake OpenAI-compatible server, through the real client, flows and database."""
from __future__ import annotations

import pytest

from core.blueprints.loader import parse_text
from core.exams import gradebook
from core.flows import judging
from core.flows.base import FlowError
from core.flows.registry import make_runner
from core.items.banks import bank_question_to_item
from core.llm import LLMClient, LLMSettings
from core.llm.assist import JUDGE_CONFIDENCE, Assistant
from core.store import repo, sessions
from tests.llm.fake_openai import completion, error

GEO_SPEC = """spec_id: GEO-N5-WRITTEN
subject: Geography
level: Nat 5
outcomes: [{id: GEO-5-01, label: Reading maps, weight: 1}]
assessment_structure: [{section: Paper, outcome_ids: [GEO-5-01], marks: 3, time_allowed_minutes: 20}]
"""
EXAM = {"subject": "Geography", "level": "Nat 5", "seed": 1}
WRITTEN, NUMERIC = "geo_w1", "geo_n1"
PARAPHRASE = "the ground rises sharply"

ASSESSMENT = """assessment_id: "WRITTEN-TIME-L1"
version: "1.0"
metadata: {title: "Time intervals", description: "Two written answers"}
configuration: {total_items: 2, time_limit_minutes: 20, passing_score_percent: 50, shuffle_items: false,
                shuffle_options: false, show_progress: true, allow_review: false, allow_skip: false}
sections:
  - section_id: "time"
    title: "Time"
    item_count: 2
    skill_blueprints: [{skill_id: "SQA.MATH.N3.TIME_INTERVAL", weight: 1}]
    difficulty_distribution: {easy: 2}
scoring:
  method: "percent_correct"
  grade_bands:
    - {label: "Pass", min_percent: 50}
    - {label: "Not yet", min_percent: 0}
"""

CONFIDENT = completion({"equivalent": True, "confidence": 0.93, "reason": "a sharp rise means steep ground"})


@pytest.fixture
def client(fake, store):
    c = LLMClient(LLMSettings(api_key="k", base_url=fake.base_url, model="m-default", timeout_s=5, max_retries=0,
                              backoff_s=0.01), store)
    yield c
    c.close()
    judging.wait_idle(30)


@pytest.fixture
def geo(library, store):
    spec = parse_text(GEO_SPEC, "geo.yaml")
    assessment = parse_text(ASSESSMENT, "written.yaml")
    library.specs[spec.id] = spec
    library.assessments[assessment.id] = assessment
    repo.insert_items(store, [
        bank_question_to_item({"id": WRITTEN, "subject": "Geography", "level": "Nat 5", "outcome_id": "GEO-5-01",
                               "marks": 2, "text": "Name the feature shown by contour lines close together.",
                               "answer": "steep slope", "item_type": "short_text", "keywords": ["steep"]},
                              source="local"),
        bank_question_to_item({"id": NUMERIC, "subject": "Geography", "level": "Nat 5", "outcome_id": "GEO-5-01",
                               "marks": 1, "text": "How many metres are in a kilometre?", "answer": "1000"},
                              source="local")], status="approved")
    yield library
    del library.specs[spec.id]
    del library.assessments[assessment.id]


def sent(fake) -> str:
    return " ".join(str(r["body"]["messages"]) for r in fake.requests)


def response(store, sid: str, item_id: str) -> dict:
    return next(r for r in sessions.session_responses(store, sid) if r["item_id"] == item_id)


def events(store, sid: str, type_: str) -> list[dict]:
    return [e["payload"] for e in sessions.load_events(store, sid) if e["type"] == type_]


def hand_in_exam(runner, answer: str = PARAPHRASE) -> str:
    sid = runner.start("exam", "amy", EXAM)
    runner.command(sid, "save", item_id=WRITTEN, answer=answer)
    runner.command(sid, "save", item_id=NUMERIC, answer="1000")
    runner.view(sid)
    runner.command(sid, "submit")
    assert judging.wait_idle(30)
    return sid


# --------------------------------------------------------------------------
# Mock exams


def test_a_written_exam_answer_is_marked_by_key_points_at_hand_in_then_judged_for_meaning(fake, client, store, geo):
    fake.default = CONFIDENT
    runner = make_runner(store, geo, llm=Assistant(client, geo, store))
    sid = runner.start("exam", "amy", EXAM)
    runner.command(sid, "save", item_id=WRITTEN, answer=PARAPHRASE)
    runner.command(sid, "save", item_id=NUMERIC, answer="1000")
    runner.view(sid)
    assert fake.requests == []     # nothing reaches the model while the paper is open

    runner.command(sid, "submit")
    assert judging.wait_idle(30)
    [marked], [judged] = events(store, sid, "marked"), events(store, sid, "judged")
    kinds = [e["type"] for e in sessions.load_events(store, sid)]
    assert kinds.index("marked") < kinds.index("judged")
    assert marked["questions"][WRITTEN]["marks_awarded"] == 0.0 and marked["marks_awarded"] == 1.0   # key points
    verdict = judged["questions"][WRITTEN]
    assert verdict["judged_by"] == "llm" and verdict["equivalent"] is True and verdict["confidence"] == 0.93
    assert verdict["reason"] == "a sharp rise means steep ground"
    assert (verdict["marks"], verdict["keyword_marks"], verdict["out_of"]) == (2.0, 0.0, 2.0)
    assert list(judged["questions"]) == [WRITTEN] and judged["teacher"] is None

    assert len(fake.requests) == 1 and PARAPHRASE in sent(fake) and "kilometre" not in sent(fake)
    marking = runner.state(sid)["marking"]
    q = marking["questions"][WRITTEN]
    assert q["marks_awarded"] == 2.0 and q["correct"] and marking["marks_awarded"] == 3.0
    assert marking["percent"] == 100.0 and marking["grade"] == "A" and marking["gap_outcomes"] == []
    row = response(store, sid, WRITTEN)
    assert row["score"] == 2.0 and row["correct"] is True and row["answer"] == PARAPHRASE
    assert gradebook.marked_by_note(q) == "Marked by the LLM judge: a sharp rise means steep ground"
    assert gradebook.marked_by_note(marking["questions"][NUMERIC]) is None

    # The student's results and the teacher's script read the same marking.
    assert runner.view(sid)["results"]["questions"][WRITTEN]["marks_awarded"] == 2.0
    script = {x["item_id"]: x for x in gradebook.script(runner, sid)["questions"]}
    assert script[WRITTEN]["judged"]["reason"] == "a sharp rise means steep ground" and script[WRITTEN]["written"]

    # A re-mark with the keys as they are keeps the judge's verdict over the key points.
    view = runner.command(sid, "remark")
    assert view["changes"] == [] and runner.state(sid)["marking"]["questions"][WRITTEN]["marks_awarded"] == 2.0


@pytest.mark.parametrize("reply, why", [
    (completion({"equivalent": True, "confidence": JUDGE_CONFIDENCE - 0.3, "reason": "maybe"}), "not confident"),
    (error(500), "HTTP 500"),
])
def test_a_failed_or_unsure_judge_leaves_the_key_point_mark_and_records_why(fake, client, store, geo, reply, why):
    fake.default = reply
    runner = make_runner(store, geo, llm=Assistant(client, geo, store))
    sid = hand_in_exam(runner)
    [judged] = events(store, sid, "judged")
    verdict = judged["questions"][WRITTEN]
    assert verdict["judged_by"] == "keywords" and why in verdict["error"] and verdict["marks"] == 0.0
    q = runner.state(sid)["marking"]["questions"][WRITTEN]
    assert q["marks_awarded"] == 0.0 and not q["correct"] and why in q["judged"]["error"]
    assert response(store, sid, WRITTEN)["score"] == 0.0
    assert gradebook.marked_by_note(q) == "Marked by the key points your teacher set"
    assert why in gradebook.marked_by_note(q, for_teacher=True)


def test_the_model_answer_and_blank_answers_are_not_sent_to_the_judge(fake, client, store, geo):
    fake.default = error(500, "nothing should be sent")
    runner = make_runner(store, geo, llm=Assistant(client, geo, store))
    sid = hand_in_exam(runner, answer="Steep slope.")
    assert fake.requests == [] and events(store, sid, "judged") == []
    q = runner.state(sid)["marking"]["questions"][WRITTEN]
    assert q["marks_awarded"] == 2.0 and gradebook.marked_by_note(q) == "Marked by the key points your teacher set"


def test_a_teacher_override_after_the_judge_stands_and_a_later_judge_run_does_not_undo_it(fake, client, store, geo):
    fake.default = CONFIDENT
    runner = make_runner(store, geo, llm=Assistant(client, geo, store))
    sid = hand_in_exam(runner)
    assert runner.state(sid)["marking"]["questions"][WRITTEN]["marks_awarded"] == 2.0
    after = gradebook.override(runner, sid, WRITTEN, 1, "Names the idea but not the feature", "ms-teach")
    shown = next(q for q in after["questions"] if q["item_id"] == WRITTEN)
    assert shown["marks_awarded"] == 1.0 and shown["marker_marks"] == 2.0

    report = judging.judge_session(runner, sid, "ms-teach")       # already judged: nothing is asked again
    assert report.asked == 0 and len(fake.requests) == 1
    runner.command(sid, "remark", teacher="ms-teach")
    q = runner.state(sid)["marking"]["questions"][WRITTEN]
    assert q["marks_awarded"] == 1.0 and q["override"]["reason"] == "Names the idea but not the feature"
    assert response(store, sid, WRITTEN)["score"] == 1.0
    assert "changed this mark from 2 to 1 out of 2" in gradebook.override_note(q)


def test_a_judge_run_after_an_override_records_its_verdict_under_the_teachers_mark(fake, client, store, geo):
    fake.push(error(500))                  # the judge fails at hand-in ...
    fake.default = CONFIDENT               # ... and answers when the teacher asks again
    runner = make_runner(store, geo, llm=Assistant(client, geo, store))
    sid = hand_in_exam(runner)
    assert runner.state(sid)["marking"]["questions"][WRITTEN]["judged"]["judged_by"] == "keywords"
    gradebook.override(runner, sid, WRITTEN, 1, "Half the idea", "ms-teach")

    report = judging.judge_session(runner, sid, "ms-teach")
    assert (report.asked, report.by_llm, report.changed) == (1, 1, 0)
    [_, judged] = events(store, sid, "judged")
    assert judged["teacher"] == "ms-teach" and judged["questions"][WRITTEN]["marks"] == 2.0
    q = runner.state(sid)["marking"]["questions"][WRITTEN]
    assert q["marks_awarded"] == 1.0 and q["marker_marks"] == 2.0 and q["judged"]["judged_by"] == "llm"
    assert response(store, sid, WRITTEN)["score"] == 1.0


def test_a_sitting_handed_in_without_an_llm_is_judged_when_the_teacher_asks(fake, client, store, geo):
    fake.default = CONFIDENT
    offline = make_runner(store, geo)
    sid = hand_in_exam(offline)
    assert events(store, sid, "judged") == [] and fake.requests == []
    with pytest.raises(FlowError, match="needs an LLM"):
        judging.judge_session(offline, sid)

    online = make_runner(store, geo, llm=Assistant(client, geo, store))
    report = judging.judge_session(online, sid, "ms-teach")
    assert (report.asked, report.by_llm, report.changed) == (1, 1, 1)
    assert online.state(sid)["marking"]["questions"][WRITTEN]["marks_awarded"] == 2.0
    assert response(store, sid, WRITTEN)["score"] == 2.0


def test_the_judge_command_is_refused_before_hand_in(fake, client, store, geo):
    runner = make_runner(store, geo)
    sid = runner.start("exam", "amy", EXAM)
    verdict = {"judged_by": "llm", "fraction": 1.0}
    with pytest.raises(FlowError, match="not been handed in"):
        runner.command(sid, "judge", verdicts={WRITTEN: verdict})
    assert judging.waiting_answers(store, "exam", runner.state(sid)) == []


# --------------------------------------------------------------------------
# Evaluations


def evaluation_paraphrase(item) -> str:
    """A right answer the key points and accepted phrasings miss ("35 minutes" written as "35 minutes long")."""
    return f"it lasts {item.correct_answer} altogether"


def test_an_evaluation_written_answer_is_judged_after_hand_in_and_an_override_stays_on_top(fake, client, store,
                                                                                             geo):
    fake.default = completion({"equivalent": True, "confidence": 0.9, "reason": "the same length of time"})
    runner = make_runner(store, geo, llm=Assistant(client, geo, store))
    sid = runner.start("evaluation", "amy", {"assessment_id": "WRITTEN-TIME-L1", "seed": "1"})
    answered = []
    while runner.view(sid)["stage"] == "active":
        assert fake.requests == []      # nothing reaches the model while the evaluation is open
        q = runner.view(sid)["question"]
        item = repo.load_item(store, q["id"])
        answer = evaluation_paraphrase(item) if not answered else item.correct_answer
        runner.command(sid, "answer", item_id=q["id"], answer=answer)
        answered.append((q["id"], answer))
    assert judging.wait_idle(30)
    (first, paraphrase), (second, _) = answered
    [completed] = events(store, sid, "completed")
    assert completed["results"]["score_percent"] == 50.0          # key points first
    [judged] = events(store, sid, "judged")
    assert list(judged["questions"]) == [first] and judged["questions"][first]["judged_by"] == "llm"
    assert len(fake.requests) == 1 and paraphrase in sent(fake)
    results = runner.state(sid)["results"]
    entry = next(r for r in results["review"] if r["item_id"] == first)
    assert entry["correct"] and entry["score"] == entry["max_score"] and results["score_percent"] == 100.0
    assert results["grade"] == "Pass" and results["passed"]
    assert response(store, sid, first)["correct"] is True
    assert gradebook.marked_by_note(entry) == "Marked by the LLM judge: the same length of time"
    assert gradebook.marked_by_note(next(r for r in results["review"] if r["item_id"] == second)) == \
        "Marked by the key points your teacher set"

    gradebook.override(runner, sid, first, 0, "The question asked for hours and minutes", "ms-teach")
    assert judging.judge_session(runner, sid).asked == 0
    entry = next(r for r in runner.state(sid)["results"]["review"] if r["item_id"] == first)
    assert entry["score"] == 0.0 and entry["marker_score"] == entry["max_score"]
    assert runner.state(sid)["results"]["score_percent"] == 50.0 and response(store, sid, first)["score"] == 0.0

    # The reports read the same results from the events.
    from core.flows.evaluation import current_results
    folded = current_results(sessions.load_events(store, sid))
    assert folded["score_percent"] == 50.0 and next(r for r in folded["review"]
                                                     if r["item_id"] == first)["judged"]["judged_by"] == "llm"


def test_an_unsure_judge_leaves_an_evaluations_key_point_mark(fake, client, store, geo):
    fake.default = completion({"equivalent": True, "confidence": 0.2, "reason": "cannot tell"})
    runner = make_runner(store, geo, llm=Assistant(client, geo, store))
    sid = runner.start("evaluation", "amy", {"assessment_id": "WRITTEN-TIME-L1", "seed": "2"})
    while runner.view(sid)["stage"] == "active":
        q = runner.view(sid)["question"]
        runner.command(sid, "answer", item_id=q["id"], answer=evaluation_paraphrase(repo.load_item(store, q["id"])))
    assert judging.wait_idle(30)
    results = runner.state(sid)["results"]
    assert results["score_percent"] == 0.0
    assert all(r["judged"]["judged_by"] == "keywords" and "not confident" in r["judged"]["error"]
               for r in results["review"])
