"""Written answers in mock exams and evaluations, judged for meaning once the paper is handed in.

While a paper is open nothing leaves the server: the student's written
answers (marking method ``short_text``) are marked at hand-in by the key
points and accepted answers, as every other answer is. Afterwards, when an
LLM is configured, the judge (``Assistant.judge_short_text``) reads each
written answer against the model answer:

    hand-in --marked/completed (key points)--> judge_later (a bounded background thread)
            --judge_session: the model asked outside the session's lock-->
            the flow's ``judge`` command --judged--> marks and responses rescored

The ``judged`` event holds, for each written question, the verdict, the
judge's confidence and reason, and the mark it gives (``marks``) beside the
key point mark it replaces (``keyword_marks``). A confident verdict sets the
mark; when the judge fails or is unsure (below ``JUDGE_CONFIDENCE``) the key
point mark stands and the reason is recorded. A teacher's override always
stays on top: the verdict then becomes the marker's mark under the teacher's.
An answer that is the model answer or one of the accepted phrasings is not
sent to the model at all (there is nothing to judge), nor is a blank one.

Sittings handed in while no LLM was set up are judged when a teacher asks
(the Gradebook's "Check written answers with the LLM", ``judge_session``);
a judge run asks again only about answers no confident verdict covers yet.
"""
from __future__ import annotations

import copy
import dataclasses
import logging
import threading
import time
from typing import Any, Callable, Optional

from core.flows.base import Context, FlowError, Runner, Step
from core.flows.marks import JUDGED_KEYS, counted_marks, judge_marking, marker_marks, marks_out_of, response_row
from core.items.generator import Item
from core.marking import MarkingSpec, MarkingSpecError, mark_answer
from core.store import repo, sessions

MAX_JUDGES = 2             # background judge runs at once in a process (the rest wait their turn)
HAND_IN_WAIT_S = 30.0      # how long a background run waits for the hand-in it follows to be stored
POLL_S = 0.05
VERDICT_KEYS = ("judged_by", "equivalent", "confidence", "reason", "error", "fraction", "feedback")

_log = logging.getLogger("workbench.judge")


# What is a written answer, what the judge said about one, and the flows' ``judge`` commands.


def is_written(item: Item | MarkingSpec) -> bool:
    """Whether an item (or the spec it is marked by) is answered in words and marked by key points
    (``short_text``)."""
    try:
        spec = item if isinstance(item, MarkingSpec) else MarkingSpec.from_item(item)
    except MarkingSpecError:
        return False
    return spec.method == "short_text"


def matches_key(spec: MarkingSpec, answer: Any) -> bool:
    """Whether an answer is the model answer or one of the accepted phrasings (key points aside)."""
    return mark_answer(dataclasses.replace(spec, keywords=[], min_keywords=None), answer).correct


def verdict_of(judged: Any) -> dict:
    """A ``JudgedMark`` as the flows' ``judge`` command takes it: who decided, why, and the share of the marks."""
    mark = judged.mark
    fraction = mark.score / mark.max_score if mark.max_score else 0.0
    return {"judged_by": judged.judged_by, "equivalent": judged.equivalent, "confidence": judged.confidence,
            "reason": judged.reason, "error": judged.error, "fraction": round(min(1.0, max(0.0, fraction)), 6),
            "feedback": mark.feedback}


def _checked(verdict: Any, number: Any) -> dict:
    if not isinstance(verdict, dict) or verdict.get("judged_by") not in ("llm", "keywords"):
        raise FlowError(f"the verdict on question {number} must say who marked it (the LLM judge or the key points)")
    fraction = verdict.get("fraction")
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)) or not 0 <= fraction <= 1:
        raise FlowError(f"the verdict on question {number} must give a share of the marks from 0 to 1")
    return {k: verdict.get(k) for k in VERDICT_KEYS}


def entry(verdict: dict, number: Any, out_of: float, marker: Optional[float], model_answer: Any,
          whole: bool = False, **extra: Any) -> dict:
    """One question's part of a "judged" event: the verdict and the mark it gives (``marks``), beside the
    marker's key point mark (``keyword_marks``). An unsure or failed judge gives the key point mark."""
    v = _checked(verdict, number)
    if v["judged_by"] == "llm":
        marks = v["fraction"] * out_of
        if whole:
            marks = float(int(marks + 1e-9))   # whole marks, as a marker would give them
    else:
        marks = marker if marker is not None else 0.0
    return {**{k: v[k] for k in ("judged_by", "equivalent", "confidence", "reason", "error", "feedback")},
            "marks": round(float(marks), 6), "keyword_marks": marker, "out_of": float(out_of),
            "model_answer": model_answer, **extra}


def exam_step(state: dict, verdicts: dict, teacher: Optional[str]) -> Step:
    """A mock exam's "judged" event for ``verdicts`` ({item_id: verdict}), with the responses it rescores."""
    marking = state.get("marking")
    if marking is None:
        raise FlowError("this exam has not been handed in yet; written answers are judged once it has")
    printed = {q["id"]: (s["section"], q) for s in state["package"]["sections"] for q in s["questions"]}
    entries = {}
    for item_id, verdict in (verdicts or {}).items():
        q = marking["questions"].get(item_id)
        if q is None or item_id not in printed:
            raise FlowError(f"{item_id} is not a question of this exam")
        if q.get("unmarked"):
            continue   # left out of the total: the teacher marks it
        section, p = printed[item_id]
        entries[item_id] = entry(verdict, q.get("label") or q["number"], marks_out_of(q), marker_marks(q),
                                 q.get("correct_answer"), whole="marked_out_of" in p, section=section)
    if not entries:
        return Step()
    payload = {"questions": entries, "teacher": teacher}
    after = copy.deepcopy(marking)
    judge_marking(after, payload)
    step = Step().add("judged", **payload)
    step.rescored = [response_row(i, after["questions"][i]) for i in entries
                     if counted_marks(after["questions"][i]) != counted_marks(marking["questions"][i])]
    step.reply = {"judged_changes": len(step.rescored)}
    return step


def evaluation_step(state: dict, verdicts: dict, teacher: Optional[str]) -> Step:
    """An evaluation's "judged" event for ``verdicts`` ({item_id: verdict}), with the responses it rescores."""
    results = state.get("results")
    if state.get("stage") != "completed" or results is None:
        raise FlowError("this evaluation has not been handed in yet; written answers are judged once it has")
    review = {r["item_id"]: r for r in results["review"]}
    entries = {}
    for item_id, verdict in (verdicts or {}).items():
        r = review.get(item_id)
        if r is None:
            raise FlowError(f"{item_id} is not a question of this evaluation")
        entries[item_id] = entry(verdict, r["number"], float(r["max_score"]), _evaluation_marker(r),
                                 r.get("correct_answer"))
    if not entries:
        return Step()
    payload = {"questions": entries, "teacher": teacher}
    after = copy.deepcopy(results)
    judge_results(after, payload, state["sections"], state["scoring"], state["settings"])
    step = Step().add("judged", **payload)
    rows = {r["item_id"]: r for r in after["review"]}
    for item_id in entries:
        new, old = rows[item_id], review[item_id]
        if (new["score"], new["correct"]) != (old["score"], old["correct"]):
            step.rescored.append({"item_id": item_id, "answer": _text(new["answer"]), "correct": new["correct"],
                                  "score": new["score"], "max_score": float(new["max_score"]),
                                  "attempt": max(1, new.get("attempts") or 1)})
    step.reply = {"judged_changes": len(step.rescored)}
    return step


def _evaluation_marker(r: dict) -> float:
    return float(r.get("marker_score", r["score"]) if r.get("overrides") else r["score"])


def judge_results(results: dict, judged: dict, sections: list[dict], scoring: dict, settings: dict) -> None:
    """Fold a "judged" event into an evaluation's results: each question's score (unless a teacher set it),
    then the section results, score, grade and pass, as the blueprint scores them."""
    from core.flows.evaluation import summarise   # the evaluation flow imports this module
    review = {r["item_id"]: r for r in results["review"]}
    for item_id, verdict in (judged.get("questions") or {}).items():
        r = review.get(item_id)
        if r is None:
            continue
        v = {**verdict, "at": judged.get("t"), "teacher": judged.get("teacher")}
        r["judged"] = {k: v.get(k) for k in JUDGED_KEYS}
        if v.get("judged_by") != "llm":
            continue
        if r.get("overrides"):
            r["marker_score"] = float(v["marks"])
            continue
        r["score"] = float(v["marks"])
        r["correct"] = bool(r["max_score"]) and r["score"] >= float(r["max_score"])
        if v.get("feedback"):
            r["feedback"] = v["feedback"]
    results.update(summarise(results["review"], sections, scoring, settings))


def _text(answer: Any) -> Optional[str]:
    if answer is None:
        return None
    return answer if isinstance(answer, str) else str(answer)


# --------------------------------------------------------------------------
# Asking the judge about one sitting


@dataclasses.dataclass
class Waiting:
    """A written answer of a handed-in paper that no confident verdict covers yet."""
    item_id: str
    label: str
    answer: str


def _blank(answer: Any) -> bool:
    return answer is None or not str(answer).strip()


def waiting_answers(store: Any, kind: str, state: dict) -> list[Waiting]:
    """The written answers of a handed-in sitting still to be judged (in paper order); [] before hand-in."""
    found: list[Waiting] = []
    if kind == "exam":
        marking = state.get("marking")
        if marking is None:
            return []
        questions = sorted(marking["questions"].items(), key=lambda kv: kv[1]["number"])
        unknown = [i for i, q in questions if "written" not in q]   # marked before questions said so
        items = repo.load_items(store, unknown) if unknown else {}
        for item_id, q in questions:
            written = q["written"] if "written" in q else bool(items.get(item_id) and is_written(items[item_id]))
            if (not written or q.get("unmarked") or _blank(q.get("answer"))
                    or (q.get("judged") or {}).get("judged_by") == "llm"):
                continue
            found.append(Waiting(item_id, str(q.get("label") or q["number"]), str(q["answer"])))
        return found
    if kind == "evaluation":
        results = state.get("results") if state.get("stage") == "completed" else None
        if results is None:
            return []
        review = results["review"]
        unknown = [r["item_id"] for r in review if "written" not in r]
        items = repo.load_items(store, unknown) if unknown else {}
        for r in review:
            written = r["written"] if "written" in r else bool(items.get(r["item_id"]) and
                                                               is_written(items[r["item_id"]]))
            if (not written or r.get("late") or _blank(r.get("answer"))
                    or (r.get("judged") or {}).get("judged_by") == "llm"):
                continue
            found.append(Waiting(r["item_id"], str(r["number"]), str(r["answer"])))
        return found
    return []


@dataclasses.dataclass
class JudgeReport:
    """What one judge run did on a sitting."""
    session_id: str
    asked: int = 0                   # written answers sent to the model
    by_llm: int = 0                  # ... that it judged confidently
    kept: int = 0                    # ... where the key point mark stands (the judge failed or was unsure)
    changed: int = 0                 # marks that moved (a teacher's override stays, so it does not count)
    matched_key: int = 0             # answers that are the model answer or an accepted phrasing: not sent
    problems: list[str] = dataclasses.field(default_factory=list)   # why the judge was not used, per answer


def judge_session(runner: Runner, session_id: str, teacher: Optional[str] = None,
                  between: Optional[Callable[[], None]] = None) -> JudgeReport:
    """Judge the written answers of one handed-in sitting that no confident verdict covers yet.

    The model is asked outside the session's lock (the student's page never waits on it), then the
    verdicts go to the sitting's ``judge`` command in one event. ``between`` is called before each
    question (a job's progress and stop). Raises FlowError when no LLM is set up or the paper is not
    handed in.
    """
    assistant = getattr(runner.ctx.source, "llm", None)
    if assistant is None:
        raise FlowError("judging written answers needs an LLM; set one up on the Settings page")
    store = runner.ctx.store
    session = sessions.get_session(store, session_id)
    if session is None or session["kind"] not in ("exam", "evaluation"):
        raise FlowError(f"{session_id} is not a mock exam or an evaluation")
    state = runner.state(session_id)
    report = JudgeReport(session_id)
    waiting = waiting_answers(store, session["kind"], state)
    if not waiting:
        return report
    items = repo.load_items(store, [w.item_id for w in waiting])
    verdicts: dict[str, dict] = {}
    for w in waiting:
        if between is not None:
            between()
        item = items.get(w.item_id)
        if item is None:
            continue
        spec = MarkingSpec.from_item(item)
        keyword = mark_answer(spec, w.answer)
        if not keyword.valid or keyword.refused is not None:
            continue
        if matches_key(spec, w.answer):
            report.matched_key += 1
            continue
        judged = assistant.judge_short_text(item, w.answer, keyword)
        report.asked += 1
        if judged.judged_by == "llm":
            report.by_llm += 1
        else:
            report.kept += 1
            report.problems.append(f"question {w.label}: {judged.error or 'the judge was not used'}")
        verdicts[w.item_id] = verdict_of(judged)
    if verdicts:
        step_view = runner.command(session_id, "judge", verdicts=verdicts, teacher=teacher)
        report.changed = int(step_view.get("judged_changes", 0))
    return report


# After hand-in: in the background, bounded.


_slots = threading.BoundedSemaphore(MAX_JUDGES)
_guard = threading.Lock()
_running: dict[tuple[int, str], threading.Thread] = {}


def judge_later(ctx: Context, session_id: str) -> None:
    """Judge a sitting's written answers in the background once its hand-in is stored (a flow calls this while
    building the hand-in, so the thread first waits for the hand-in to be committed). Nothing happens
    without an LLM; a sitting already being judged in this process is not judged twice at once."""
    if getattr(ctx.source, "llm", None) is None:
        return
    key = (id(ctx.store), session_id)
    with _guard:
        known = _running.get(key)
        if known is not None and known.is_alive():
            return
        thread = threading.Thread(target=_judge_in_background, args=(ctx, session_id, key),
                                  name=f"judge written answers {session_id}", daemon=True)
        _running[key] = thread
    thread.start()


def _handed_in(store: Any, session_id: str) -> bool:
    return any(e["type"] in ("marked", "completed") for e in sessions.load_events(store, session_id))


def _judge_in_background(ctx: Context, session_id: str, key: tuple[int, str]) -> None:
    try:
        until = time.monotonic() + HAND_IN_WAIT_S
        while not _handed_in(ctx.store, session_id):
            if time.monotonic() > until:
                return   # the hand-in was refused or never stored: there is nothing to judge
            time.sleep(POLL_S)
        with _slots:
            from core.flows.registry import FLOWS   # the registry imports the flows, which import this module
            judge_session(Runner(ctx, FLOWS), session_id)
    except Exception as exc:  # noqa: BLE001 - a background run must never take the app down; the key point marks stand
        _log.warning("Judging the written answers of %s failed: %s", session_id, exc)
    finally:
        with _guard:
            if _running.get(key) is threading.current_thread():
                del _running[key]


def wait_idle(timeout: float = 30.0) -> bool:
    """Wait for the background judge runs of this process to finish (for tests and orderly shutdown)."""
    until = time.monotonic() + timeout
    while True:
        with _guard:
            threads = [t for t in _running.values() if t.is_alive()]
        if not threads:
            return True
        left = until - time.monotonic()
        if left <= 0:
            return False
        threads[0].join(min(left, 0.5))
