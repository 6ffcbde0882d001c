"""Evaluations from assessment blueprints (seed 003; EVALUATION sessions in seed 002, 10).

    start: plan from the blueprint -> every item generated and stored -> delivered
    answer (one item at a time) ... last answer, finish or the time limit -> completed

An evaluation is high stakes, so everything a student could argue about is
fixed when it starts: which skill and level fills each slot, the items
themselves, their order, the time limit and the scoring rules all go into the
start event, and later edits to the blueprint do not change a sitting in
progress. Items are marked on the server as they are answered, but nothing
about correctness (nor any key or explanation) reaches the view until the
evaluation is complete. Written answers are marked by their key points as they
are answered and, when an LLM is set up, judged for meaning once the
evaluation is handed in (``core.flows.judging``).

With ``shuffle_options: false`` every student sees a multiple-choice item's
options in one fixed, natural order (ascending when all are numbers, else
alphabetical), whatever order the generator dealt them in. An item whose skill
blueprint sets a time limit has that long from when it is first shown: an
answer after it is recorded but counts as wrong (``core.flows.timing``).
"""
from __future__ import annotations

import copy
import dataclasses
import hashlib
import random
import re
from fractions import Fraction
from typing import Any, Optional

from core.blueprints.library import LibraryError
from core.blueprints.models import AssessmentBlueprint
from core.flows import judging, preview, sitting, timing
from core.flows.remediation import diagnose
from core.flows.base import Flow, FlowError, Step
from core.flows.exam import GRACE_SECONDS
from core.flows.marks import checked_marks
from core.items.generator import Item, SkillGenerator
from core.items.sampler import GenerationError
from core.items.sources import stem_key
from core.store import sessions

MAX_DRAWS = 40   # redraws per slot to find a question not already in this evaluation


def grade_for(percent: float, bands: list[dict]) -> str:
    # Bands are validated highest first and the last starts at 0, so one always matches.
    for band in bands:
        if percent >= band["min_percent"]:
            return band["label"]
    return bands[-1]["label"]


def plan_slots(bp: AssessmentBlueprint, generators: dict[str, SkillGenerator],
               rng: random.Random) -> list[dict]:
    """(section, level, skill) for every item, by the sections' difficulty mix and skill weights."""
    slots = []
    for section in bp.sections:
        for level, count in section.difficulty_distribution.items():
            if count <= 0:
                continue
            eligible = [ws for ws in section.skill_blueprints
                        if level in generators[ws.skill_id].bp.generation.difficulty_levels]
            if not eligible:
                raise FlowError(f"no skill in section '{section.section_id}' of {bp.assessment_id} "
                                f"has a '{level}' level, so the evaluation cannot be assembled")
            for _ in range(count):
                skill = rng.choices([ws.skill_id for ws in eligible], [ws.weight for ws in eligible])[0]
                slots.append({"section_id": section.section_id, "difficulty_level": level, "blueprint_id": skill})
    return slots


def order_slots(bp: AssessmentBlueprint, slots: list[dict], seed: Any) -> list[dict]:
    """The delivery order: shuffled when configured, within sections only.

    A blueprint's section order can be deliberate (earlier sections feed later
    ones), and the student should meet each section once.
    """
    if not bp.configuration.shuffle_items:
        return slots
    order_rng = random.Random(f"evaluation-order|{bp.assessment_id}|{bp.version}|{seed}")
    shuffled = []
    for section in bp.sections:
        block = [s for s in slots if s["section_id"] == section.section_id]
        order_rng.shuffle(block)
        shuffled += block
    return shuffled


def draw_item(gen: SkillGenerator, level: str, seed: str, used: set[str],
              seen: tuple[set[str], set[str]]) -> Item:
    """An item not already in this evaluation, preferring one the student has never been shown."""
    seen_content, seen_stems = seen
    fallback: Optional[Item] = None
    for k in range(MAX_DRAWS):
        try:
            item = gen.generate(level, seed if k == 0 else f"{seed}+{k}")
        except GenerationError as exc:
            raise FlowError(f"the evaluation cannot be assembled: {exc}") from None
        stem = stem_key(item)
        if item.content_key in used or stem in used:
            continue
        if item.content_key not in seen_content and stem not in seen_stems:
            return item
        fallback = fallback or item
    if fallback is not None:
        return fallback
    raise FlowError(f"{gen.bp.skill_id} cannot produce enough different '{level}' questions for this evaluation; "
                    f"widen its parameter ranges or ask for fewer of its items")


def _as_number(text: str) -> Optional[Fraction]:
    """An option's value when it is a plain number (integer, decimal, scientific or a fraction), else None."""
    try:
        return Fraction(str(text).replace("\u2212", "-").replace(" ", ""))
    except (ValueError, ZeroDivisionError):
        return None


def _natural_key(text: str) -> list[tuple[int, Any]]:
    """Alphabetical, ignoring case, with runs of digits compared as numbers (so 10.0.0.64 comes before 10.0.0.128)."""
    return [(0, int(part)) if part.isdigit() else (1, part) for part in re.split(r"(\d+)", str(text).casefold())]


def natural_order(options: list[str]) -> list[int]:
    """The options' positions in their natural order: ascending when all are numbers, else alphabetical."""
    numbers = [_as_number(o) for o in options]
    if all(n is not None for n in numbers):
        return sorted(range(len(options)), key=lambda k: (numbers[k], k))
    return sorted(range(len(options)), key=lambda k: (_natural_key(options[k]), k))


def in_natural_order(item: Item) -> Item:
    """The item with its options in their natural order and its key moved with them.

    The reordered item is a different item (a new id), so it is stored beside the generator's dealing and
    each is marked against its own options.
    """
    if not item.options or item.correct_index is None or item.choose_several:
        return item   # a choose-several key names options by letter; generated items never are
    order = natural_order(item.options)
    if order == list(range(len(order))):
        return item
    strategies = item.option_strategies
    if len(strategies) == len(order):
        strategies = [strategies[k] for k in order]
    return dataclasses.replace(
        item, id="itm_" + hashlib.sha256(f"{item.id}|natural-order".encode()).hexdigest()[:16],
        options=[item.options[k] for k in order], option_strategies=strategies,
        correct_index=order.index(item.correct_index), options_shuffled=False)


class EvaluationFlow(Flow):
    kind = "evaluation"

    def new_state(self, session: dict) -> dict:
        cfg = session["config"]
        if not cfg.get("assessment_id"):
            raise FlowError("an evaluation needs an assessment_id")
        override = cfg.get("time_limit_minutes")
        if override is not None and (isinstance(override, bool) or not isinstance(override, (int, float))
                                     or override <= 0):
            raise FlowError("time_limit_minutes must be a positive number of minutes")
        return {"student": session["student"], "assessment_id": cfg["assessment_id"],
                "seed": str(cfg.get("seed", session["id"])), "time_limit_override": override,
                "session_id": session["id"], "stage": "new", "title": None, "version": None, "settings": {},
                "sections": [], "scoring": None, "plan": [], "views": {}, "current": None, "visited": [],
                "answers": {}, "skipped": [], "shown_at": None, "started_at": None, "deadline": None,
                "results": None, "assignment_id": cfg.get("assignment_id"), "late": []}

    # ------------------------------------------------------------------
    def apply(self, state: dict, event: dict) -> None:
        p, t = event["payload"], event["type"]
        if t == "started":
            state.update(stage="active", title=p["title"], version=p["version"], settings=p["settings"],
                         sections=p["sections"], scoring=p["scoring"], plan=p["plan"], views=p["views"],
                         started_at=p["started_at"], deadline=p["deadline"])
            self._show(state, 0, p.get("t"))
        elif t == "answered":
            state["answers"][p["item_id"]] = {k: p[k] for k in ("answer", "correct", "score", "max_score",
                                                                 "feedback", "time_ms", "attempt")}
            state["answers"][p["item_id"]]["late"] = bool(p.get("late"))
            if p["item_id"] in state["skipped"]:
                state["skipped"].remove(p["item_id"])
            nxt = self._next_open(state, p["index"])
            if nxt is not None:
                self._show(state, nxt, p.get("t"))
        elif t == "skipped":
            if p["item_id"] not in state["answers"] and p["item_id"] not in state["skipped"]:
                state["skipped"].append(p["item_id"])
            nxt = self._next_open(state, p["index"])
            if nxt is not None:
                self._show(state, nxt, p.get("t"))
        elif t == "moved":
            self._show(state, p["index"], p.get("t"))
        elif t == "completed":
            state["stage"] = "completed"
            state["results"] = p["results"]
            state["current"] = None
        elif t == "overridden":
            override_result(state["results"], p, state["sections"], state["scoring"], state["settings"])
        elif t == "judged":
            judging.judge_results(state["results"], p, state["sections"], state["scoring"], state["settings"])
        elif t == "late":
            state.setdefault("late", []).append(p)

    @staticmethod
    def _show(state: dict, index: int, t: Optional[float]) -> None:
        state["current"] = index
        state["shown_at"] = t
        # An item's time limit runs from when it was first shown: going back to it does not restart it.
        state.setdefault("first_shown", {}).setdefault(state["plan"][index]["item_id"], t)
        if index not in state["visited"]:
            state["visited"].append(index)

    @staticmethod
    def _next_open(state: dict, index: int) -> Optional[int]:
        """The next unanswered item after ``index``, wrapping round to skipped ones; None when all are answered."""
        plan = state["plan"]
        for k in range(1, len(plan) + 1):
            j = (index + k) % len(plan)
            if plan[j]["item_id"] not in state["answers"]:
                return j
        return None

    def view(self, state: dict) -> dict:
        out = {"kind": self.kind, "stage": state["stage"], "assessment_id": state["assessment_id"],
               "title": state["title"], "total_items": len(state["plan"])}
        if state["stage"] == "active":
            settings, plan = state["settings"], state["plan"]
            index = state["current"]
            entry = plan[index]
            titles = {s["section_id"]: s["title"] for s in state["sections"]}
            # Only the student view of the item: never its key, correct index or explanation.
            out["question"] = {**state["views"][entry["item_id"]], "index": index, "number": index + 1,
                               "total": len(plan), "section_id": entry["section_id"],
                               "section_title": titles.get(entry["section_id"], entry["section_id"])}
            mine = state["answers"].get(entry["item_id"])
            out["your_answer"] = mine["answer"] if mine else None
            limit = entry.get("time_limit_s")
            out["question"]["time_limit_seconds"] = limit
            out["item_time_left_seconds"] = timing.seconds_left(
                state.get("first_shown", {}).get(entry["item_id"]), limit, self.ctx.clock())
            out["time_limit_minutes"] = settings.get("time_limit_minutes")
            deadline = self._deadline(state)
            out["time_remaining_seconds"] = max(0, int(deadline - self.ctx.clock())) if deadline else None
            out["extra_minutes"] = sitting.extra_minutes(self.ctx, state)
            out["all_answered"] = len(state["answers"]) == len(plan)
            out["can_skip"] = bool(settings.get("allow_skip"))
            out["can_go_back"] = bool(settings.get("allow_review"))
            if settings.get("show_progress"):
                answered = len(state["answers"])
                out["progress"] = {
                    "answered": answered, "skipped": len(state["skipped"]), "total": len(plan),
                    "percent": round(100 * answered / len(plan)),
                    "items": [{"number": e["sequence_number"],
                               "status": ("answered" if e["item_id"] in state["answers"]
                                          else "skipped" if e["item_id"] in state["skipped"] else "unanswered")}
                              for e in plan]}
        if state["stage"] == "completed":
            results = state["results"]
            held = sitting.held(self.ctx, state, results.get("completed_at"), bool(results.get("expired")),
                                self._deadline(state))
            if held is not None:
                out["held"] = held   # handed in, results not released yet: no score, answers, keys or feedback
            else:
                out["results"] = results
                if results.get("expired"):
                    out["time_up"] = sitting.time_up(self._deadline(state))
        return out

    def tick(self, state: dict) -> Optional[Step]:
        if state["stage"] == "active" and self._expired(state):
            return sitting.stamp_marking(self._complete(state, expired=True), "completed", True, self._deadline(state))
        return None

    # ------------------------------------------------------------------
    def cmd_start(self, state: dict) -> Step:
        if state["stage"] != "new":
            return Step()
        sitting.check_start(self.ctx, state)   # an assignment's window and attempts
        library = self.ctx.library
        try:
            bp = library.assessment(state["assessment_id"])
            generators = {ws.skill_id: library.generator(ws.skill_id)
                          for s in bp.sections for ws in s.skill_blueprints}
        except LibraryError as exc:
            raise FlowError(f"the evaluation cannot start: {exc}") from None
        seed = state["seed"]
        slots = plan_slots(bp, generators, random.Random(f"evaluation|{bp.assessment_id}|{bp.version}|{seed}"))
        fixed_order = not bp.configuration.shuffle_options

        step = Step()
        seen = sessions.seen_keys(self.ctx.store, state["student"])
        used: set[str] = set()
        items: dict[str, Item] = {}
        for n, slot in enumerate(slots):
            item = draw_item(generators[slot["blueprint_id"]], slot["difficulty_level"], f"{seed}/{n}", used, seen)
            if fixed_order:
                item = in_natural_order(item)
            used |= {item.content_key, stem_key(item)}
            slot["item_id"] = item.id
            slot["time_limit_s"] = timing.limit_for(item, library)
            items[item.id] = item
            self.see(step, item, item.outcome_ids[0] if item.outcome_ids else None)

        slots = order_slots(bp, slots, seed)
        plan = [{**slot, "sequence_number": i + 1} for i, slot in enumerate(slots)]

        now = self.ctx.clock()
        minutes = state["time_limit_override"] or bp.configuration.time_limit_minutes
        settings = {**bp.configuration.model_dump(), "time_limit_minutes": minutes}
        step.add("started", assessment_id=bp.assessment_id, version=bp.version, title=bp.metadata.title,
                 settings=settings,
                 sections=[{"section_id": s.section_id, "title": s.title, "item_count": s.item_count}
                           for s in bp.sections],
                 scoring=bp.scoring.model_dump(), plan=plan,
                 views={item_id: item.student_view() for item_id, item in items.items()},
                 started_at=now, deadline=now + minutes * 60 if minutes else None, t=now)
        return step

    def cmd_answer(self, state: dict, item_id: str, answer: Any, time_ms: Optional[int] = None) -> Step:
        if self._timed_out(state):
            return sitting.late(self.ctx, self._deadline(state), "answer", item_id=item_id, answer=answer)
        prior = state["answers"].get(item_id)
        if prior is not None and prior["answer"] == answer:
            return Step()  # the same submission again (double click, second tab): recorded once
        self._check_open(state)
        index = state["current"]
        if state["plan"][index]["item_id"] != item_id:
            if item_id not in state["views"]:
                raise FlowError("that question is not part of this evaluation")
            raise FlowError("that answer is for a question that is no longer on screen; answer the current question")
        if prior is not None and not state["settings"].get("allow_review"):
            raise FlowError("this question has already been answered and this assessment does not allow changing answers")
        now = self.ctx.clock()
        if time_ms is None:
            time_ms = int(max(0.0, now - state["shown_at"]) * 1000) if state["shown_at"] is not None else None
        elif isinstance(time_ms, bool) or not isinstance(time_ms, (int, float)) or time_ms < 0:
            raise FlowError("time_ms must be a number of milliseconds, 0 or more")
        else:
            time_ms = int(time_ms)
        mark = diagnose(self.item(item_id), answer, None, similar=False,
                        decimal_comma=self.decimal_comma(state)).mark
        reading = {**preview.from_mark(mark, answer), "item_id": item_id}
        if not mark.valid:
            # Not read, so not an answer: nothing is stored and the question stays for a corrected one.
            return Step(reply={"reading": reading})
        limit = state["plan"][index].get("time_limit_s")
        late = not timing.in_time(state.get("first_shown", {}).get(item_id), limit, now)
        if late and prior is not None:
            # Answered in time before: that answer stands, and this one is only kept as a record.
            return Step(refuse=timing.time_up_message(limit, kept_earlier=True)).add(
                "late", action="answer", item_id=item_id, answer=answer, at=now, time_limit_s=limit)
        correct, score = (False, 0.0) if late else (mark.correct, mark.score)
        feedback = timing.time_up_message(limit) if late else mark.feedback
        reply = {"reading": reading, **({"time_up": feedback} if late else {})}
        attempt = prior["attempt"] + 1 if prior else 1
        step = Step(reply=reply).add("answered", item_id=item_id, index=index, answer=answer, correct=correct,
                                     score=score, max_score=mark.max_score, feedback=feedback, time_ms=time_ms,
                                     attempt=attempt, late=late, marked_correct=mark.correct if late else None, t=now)
        step.responses.append({"item_id": item_id, "answer": _text(answer), "correct": correct,
                               "score": score, "max_score": mark.max_score, "time_taken_ms": time_ms,
                               "attempt": attempt})
        # With review allowed the student may still change answers, so only an explicit finish ends it.
        if not state["settings"].get("allow_review"):
            self._fold(state, step)
            if len(state["answers"]) == len(state["plan"]):
                _merge(step, sitting.stamp_marking(self._complete(state, expired=False), "completed", False,
                                                   self._deadline(state)))
        return step

    def cmd_skip(self, state: dict, item_id: Optional[str] = None) -> Step:
        if not state["settings"].get("allow_skip") and state["stage"] == "active":
            raise FlowError("this assessment does not allow skipping; answer the question to move on")
        self._check_open(state)
        index = state["current"]
        current_id = state["plan"][index]["item_id"]
        if item_id is not None and item_id != current_id:
            if item_id in state["skipped"]:
                return Step()  # a repeated click on a question already skipped
            raise FlowError("that question is no longer on screen; skip only the current question")
        nxt = self._next_open(state, index)
        if nxt is None or nxt == index:
            raise FlowError("there is no other question to move to; answer this one or finish the evaluation")
        return Step().add("skipped", item_id=current_id, index=index, t=self.ctx.clock())

    def cmd_goto(self, state: dict, index: int) -> Step:
        if not state["settings"].get("allow_review") and state["stage"] == "active":
            raise FlowError("this assessment does not allow going back to earlier questions")
        self._check_open(state)
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(state["plan"]):
            raise FlowError(f"there is no question at index {index!r}; indexes run from 0 to {len(state['plan']) - 1}")
        if index not in state["visited"]:
            raise FlowError(f"question {index + 1} has not been reached yet; answer or skip the questions before it first")
        if index == state["current"]:
            return Step()
        return Step().add("moved", index=index, t=self.ctx.clock())

    def cmd_finish(self, state: dict) -> Step:
        if self._timed_out(state):
            return sitting.late(self.ctx, self._deadline(state), "finish")
        if state["stage"] == "completed":
            return Step()  # finished already: results are computed once
        if state["stage"] == "new":
            raise FlowError("the evaluation has not started")
        expired = self._expired(state)
        return sitting.stamp_marking(self._complete(state, expired=expired), "completed", expired,
                                     self._deadline(state))

    # ------------------------------------------------------------------
    def _deadline(self, state: dict) -> Optional[float]:
        """When time runs out (epoch seconds): for an assignment, as it stands now (closed early, extra time)."""
        return sitting.deadline(self.ctx, state, state["started_at"], state["settings"].get("time_limit_minutes"),
                                state["deadline"])

    def _expired(self, state: dict) -> bool:
        # Answers in flight when the clock runs out still count, as in mock exams.
        deadline = self._deadline(state)
        return bool(deadline) and self.ctx.clock() > deadline + GRACE_SECONDS

    def _timed_out(self, state: dict) -> bool:
        """Completed because time ran out: whatever the student sends now is late."""
        return state["stage"] == "completed" and bool((state["results"] or {}).get("expired"))

    def _check_open(self, state: dict) -> None:
        if state["stage"] == "new":
            raise FlowError("the evaluation has not started")
        if state["stage"] == "completed":
            if (state["results"] or {}).get("expired"):
                raise FlowError("time is up: the evaluation was submitted with the answers given before the deadline")
            raise FlowError("this evaluation is finished; answers can no longer change")
        if self._expired(state):
            raise FlowError("time is up: the evaluation is being submitted with the answers given before the deadline")

    def cmd_judge(self, state: dict, verdicts: dict, teacher: Optional[str] = None) -> Step:
        """The LLM judge's verdicts on written answers once the evaluation is handed in (``core.flows.judging``):
        a "judged" event, carried into the score, grade and pass; a teacher's override stays on top."""
        return judging.evaluation_step(state, verdicts, teacher)

    def cmd_override(self, state: dict, item_id: str, marks: Any, reason: str, teacher: str = "teacher") -> Step:
        """A teacher's mark for one question, with the reason: kept in its history and carried into the section
        results, score, grade and pass. Only once the evaluation is complete; 0 to the question's marks."""
        results = state["results"]
        if state["stage"] != "completed" or results is None:
            raise FlowError("this evaluation has not been handed in yet; a mark can be changed once it has")
        entry = next((r for r in results["review"] if r["item_id"] == item_id), None)
        if entry is None:
            raise FlowError(f"{item_id} is not a question of this evaluation; choose one of its questions")
        value = checked_marks(marks, entry["number"], float(entry["max_score"]))
        why = reason.strip() if isinstance(reason, str) else ""
        if not why:
            raise FlowError(f"say why question {entry['number']} gets {value:g} mark(s): the reason is kept with "
                            f"the mark and shown to the student")
        payload = {"item_id": item_id, "number": entry["number"], "marks": value, "reason": why,
                   "teacher": (teacher or "").strip() or "teacher"}
        step = Step().add("overridden", **payload)
        step.rescored.append({"item_id": item_id, "answer": _text(entry["answer"]),
                              "correct": bool(entry["max_score"]) and value >= entry["max_score"], "score": value,
                              "max_score": float(entry["max_score"]), "attempt": max(1, entry.get("attempts") or 1)})
        return step

    def _fold(self, state: dict, step: Step) -> None:
        for type_, payload in step.events:
            self.apply(state, {"type": type_, "payload": payload})

    def _complete(self, state: dict, expired: bool) -> Step:
        step = Step()
        now = self.ctx.clock()
        # A session noticed late (no one looked until after the deadline) still lasted only the time allowed.
        deadline = self._deadline(state)
        end = min(now, deadline) if deadline else now
        titles = {s["section_id"]: s["title"] for s in state["sections"]}
        review = []
        for entry in state["plan"]:
            item = self.item(entry["item_id"])
            mine = state["answers"].get(entry["item_id"])
            if mine is None:
                # Unanswered counts as wrong, and is recorded so item statistics see the omission.
                step.responses.append({"item_id": item.id, "answer": None, "correct": False, "score": 0.0,
                                       "max_score": float(item.marks), "time_taken_ms": None, "attempt": 1})
            review.append({"number": entry["sequence_number"], "item_id": item.id,
                           "section_id": entry["section_id"], "section_title": titles.get(entry["section_id"]),
                           "blueprint_id": entry["blueprint_id"], "difficulty_level": entry["difficulty_level"],
                           "stem": item.stem, "options": list(item.options),
                           "answer": mine["answer"] if mine else None, "correct_answer": item.shown_answer,
                           "correct": bool(mine and mine["correct"]), "score": mine["score"] if mine else 0.0,
                           "max_score": mine["max_score"] if mine else float(item.marks),
                           "feedback": mine["feedback"] if mine else "Not answered.",
                           "explanation": item.explanation, "time_ms": mine["time_ms"] if mine else None,
                           "attempts": mine["attempt"] if mine else 0, "late": bool(mine and mine.get("late")),
                           "written": judging.is_written(item)})

        results = {
            "session_id": state["session_id"], "assessment_id": state["assessment_id"],
            "assessment_version": state["version"], "title": state["title"],
            "started_at": state["started_at"], "completed_at": end,
            "duration_seconds": int(round(max(0.0, end - state["started_at"]))),
            "expired": expired, **summarise(review, state["sections"], state["scoring"], state["settings"]),
            "review": review,
        }
        step.add("completed", results=results, t=now)
        step.status = "completed"
        judging.judge_later(self.ctx, state["session_id"])   # written answers, in the background once stored
        return step


def summarise(review: list[dict], sections: list[dict], scoring: dict, settings: dict) -> dict:
    """Section results, score, grade and pass from the per-question review, as the blueprint scores them:
    by questions right (all their marks), overall or as a weighted mean of the sections' accuracy."""
    section_results = []
    accuracy: dict[str, float] = {}
    for section in sections:
        rows = [r for r in review if r["section_id"] == section["section_id"]]
        answered = [r for r in rows if r["attempts"]]
        correct = sum(r["correct"] for r in rows)
        times = [r["time_ms"] for r in answered if r["time_ms"] is not None]
        accuracy[section["section_id"]] = 100 * correct / len(rows) if rows else 0.0
        section_results.append({
            "section_id": section["section_id"], "section_title": section["title"],
            "items_total": len(rows), "items_attempted": len(answered), "items_correct": correct,
            "accuracy_percent": round(accuracy[section["section_id"]], 1),
            "mean_response_time_ms": round(sum(times) / len(times), 1) if times else None})
    total = len(review)
    items_correct = sum(r["correct"] for r in review)
    if scoring["method"] == "weighted_sections":
        # No weights given: every section counts the same.
        weights = scoring["section_weights"] or {sid: 1.0 for sid in accuracy}
        raw = sum(weights[sid] * acc for sid, acc in accuracy.items()) / sum(weights[sid] for sid in accuracy)
    else:
        raw = 100 * items_correct / total if total else 0.0
    # Grade and pass mark are judged on the score as shown, so they never disagree with it.
    score = round(raw, 1)
    return {"total_items": total, "items_answered": sum(1 for r in review if r["attempts"]),
            "items_correct": items_correct, "score_percent": score, "scoring_method": scoring["method"],
            "grade": grade_for(score, scoring["grade_bands"]),
            "passing_score_percent": settings["passing_score_percent"],
            "passed": score >= settings["passing_score_percent"], "section_results": section_results}


def override_result(results: dict, override: dict, sections: list[dict], scoring: dict, settings: dict) -> None:
    """Fold an "overridden" event into an evaluation's results: the question's score and history, then the
    section results, score, grade and pass. The blueprint scores questions right or not, so a question
    counts as right only with all its marks; a part mark shows in the marks, not in the score."""
    entry = next(r for r in results["review"] if r["item_id"] == override["item_id"])
    change = {"from": entry["score"], "to": float(override["marks"]), "out_of": float(entry["max_score"]),
              "reason": override["reason"], "teacher": override.get("teacher"), "at": override.get("t")}
    entry.setdefault("marker_score", entry["score"])
    entry["overrides"] = list(entry.get("overrides") or []) + [change]
    entry["override"] = change
    entry["score"] = change["to"]
    entry["correct"] = bool(entry["max_score"]) and change["to"] >= entry["max_score"]
    results.update(summarise(results["review"], sections, scoring, settings))


def current_results(events: list[dict]) -> Optional[dict]:
    """An evaluation's results as they stand: the "completed" results with every later override folded in."""
    started, results = None, None
    for event in events:
        t, p = event["type"], event["payload"]
        if t == "started":
            started = p
        elif t == "completed":
            results = copy.deepcopy(p["results"])
        elif t == "overridden" and results is not None and started is not None:
            override_result(results, p, started["sections"], started["scoring"], started["settings"])
        elif t == "judged" and results is not None and started is not None:
            judging.judge_results(results, p, started["sections"], started["scoring"], started["settings"])
    return results


def _merge(into: Step, other: Step) -> None:
    into.events += other.events
    into.responses += other.responses
    into.items += other.items
    into.seen += other.seen
    into.mastery.update(other.mastery)
    into.abilities.update(other.abilities)
    into.status = other.status or into.status


def _text(answer: Any) -> Optional[str]:
    if answer is None:
        return None
    return answer if isinstance(answer, str) else str(answer)
