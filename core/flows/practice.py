"""Rapid-fire practice (QuestionPracticeGraph), with an adaptive mode.

    start -> presented --answer--> answered (feedback shown) --next--> presented ...
                      --skip---> skipped, presented          --stop--> ended

Practice mode follows the seed: fetch with novelty over the chosen outcome
(or a weighted choice of outcomes). Every answer moves the mastery of the
skill the item practises (``core.items.skills.skill_for``; none when no skill
fits) and the student's stored ability on the item's outcome (seed 002,
13.6: a Bayesian step, with each item's difficulty taken from the newest
calibration, the item's own else its blueprint level's, or before one from
the blueprint's declared difficulty; a very quick wrong answer counts less).
Both are written with the answer. Adaptive mode starts from the stored
abilities and balances the outcomes: it weighs each by how weak and how
uncertain its estimate is, never serves one outcome three times running when
others exist, prefers a skill not served in the last few items, and serves a
difficulty a little below the estimate, recording why. An item whose
blueprint sets a time limit shows the seconds left; an answer after it is
recorded but counts as wrong (``core.flows.timing``).
"""
from __future__ import annotations

import dataclasses
import math
import random
import time
from typing import Any, Optional

from core.flows import preview, timing, written
from core.flows.remediation import diagnose
from core.school.progress import (INITIAL_MASTERY, PRIOR_SE, PRIOR_THETA, QUICK_NOTE, ability_update,
                                  mastery_update, outcome_info, skill_label)
from core.flows.base import Context, Flow, FlowError, Step
from core.flows.fetch import fetch_question, suppliable_outcomes
from core.items.generator import Item
from core.items.skills import skill_for
from core.items.sources import NoQuestions, stem_key
from core.analytics import irt
from core.analytics.calibration import difficulty_logit  # noqa: F401 - the scale adaptive practice reads
from core.store import analytics as analytics_store
from core.store import outcome_ability, school, sessions

ADAPTIVE_OFFSET = 0.3       # serve items this far (in logits) below the current estimate
MAX_RUN = 2                 # the same outcome at most this many times in a row, when others can be served
REPEAT_WEIGHT = 0.5         # the outcome just served is this much less likely next (spacing)
UNCERTAINTY_FLOOR = 0.5     # weight ~ exp(-theta) * (floor + se): weak outcomes first, uncertain ones sooner
RECENT_SKILLS = 3           # prefer a skill not served in the last few items

CALIBRATION_TTL_S = 60.0    # how long a process keeps the calibrated difficulties before looking again
_calibrated: dict[int, tuple[float, dict[str, tuple[float, float]]]] = {}


def calibrated(store: Any) -> dict[str, tuple[float, float]]:
    """Unit -> (difficulty, discrimination) from the newest calibration ({} before the first)."""
    now = time.monotonic()
    cached = _calibrated.get(id(store))
    if cached is None or now - cached[0] > CALIBRATION_TTL_S:
        cached = (now, analytics_store.difficulty_lookup(store))
        _calibrated[id(store)] = cached
    return cached[1]


def item_parameters(store: Any, item: Item) -> tuple[float, float, str]:
    """(b, a, where from) for an item: its own calibration, its family's, or its declared difficulty."""
    table = calibrated(store)
    for unit in (item.id, f"{item.blueprint_id}|{item.difficulty_level}"):
        if unit in table:
            b, a = table[unit]
            return b, a, "calibrated"
    return difficulty_logit(item.difficulty_value), 1.0, "declared"


def online_update(ability: dict, b: float, correct: bool, a: float = 1.0) -> dict:
    """One answer's Bayesian update of the ability estimate (normal approximation; se shrinks each time)."""
    theta, se = irt.online_update(ability.get("theta", PRIOR_THETA), ability.get("se", PRIOR_SE), b, a, correct)
    return {"theta": round(max(-4.0, min(4.0, theta)), 4), "se": round(se, 4), "n": ability.get("n", 0) + 1,
            "correct": ability.get("correct", 0) + int(correct)}


# --------------------------------------------------------------------------
# What one answer tells: the same for every flow that marks an answer


@dataclasses.dataclass
class Evidence:
    """What an answered item moves: its skill's mastery and its outcome's ability (before and after)."""
    skill: Optional[str]
    skill_name: Optional[str]
    mastery: dict[str, float]                 # {skill: new score}; {} when no skill fits the item
    mastery_before: Optional[float]
    ability: Optional[dict]                   # the outcome's new estimate; None without an outcome
    ability_before: Optional[dict]
    quick: bool                               # a very quick wrong answer: it counted less
    note: Optional[str]                       # what to tell the student about it

    def add_to(self, step: Step) -> Step:
        """Put the mastery and ability in the step, so the runner writes them with the answer."""
        step.mastery.update(self.mastery)
        if self.ability is not None:
            step.abilities[self.ability["outcome_id"]] = {k: self.ability[k] for k in ("theta", "se", "n", "correct")}
        return step


def answer_evidence(ctx: Context, student: str, item: Item, outcome_id: Optional[str], correct: bool,
                    time_ms: Optional[float], known_mastery: Optional[dict[str, float]] = None,
                    move_mastery: bool = True) -> Evidence:
    """Mastery of the item's skill and ability on its outcome after one answer, from what is stored.

    ``known_mastery`` holds scores the session has already moved (read before the store). The ability's
    prior is always the stored estimate, so another session or process that moved it is taken into account.
    With ``move_mastery`` false only the ability moves (a flow that moves mastery by rules of its own).
    Every flow that marks an answer calls this and then ``Evidence.add_to(step)``.
    """
    skill = skill_for(item, ctx.library)
    mastery: dict[str, float] = {}
    before = None
    if skill and move_mastery:
        before = (known_mastery or {}).get(skill)
        if before is None:
            before = sessions.get_mastery(ctx.store, student).get(skill, INITIAL_MASTERY)
        mastery[skill] = mastery_update(before, correct)
    ability = prior = None
    quick = False
    if outcome_id:
        prior = outcome_ability.get_ability(ctx.store, student, outcome_id)
        b, a, _ = item_parameters(ctx.store, item)
        ability = ability_update(item, outcome_id, correct, time_ms, prior, library=ctx.library, parameters=(b, a))
        quick = ability["quick"]
        if prior is not None:
            prior = {k: prior[k] for k in ("theta", "se", "n", "correct")}
    return Evidence(skill=skill, skill_name=skill_label(ctx.library, skill), mastery=mastery, mastery_before=before,
                    ability=ability, ability_before=prior, quick=quick, note=QUICK_NOTE if quick else None)


# --------------------------------------------------------------------------
# Adaptive choice of the next outcome


def outcome_weights(outcomes: list[str], abilities: dict[str, dict], recent: list[str]) -> dict[str, float]:
    """How likely each outcome is to be served next (shares adding up to 1).

    A weak estimate (low theta) and an uncertain one (high se) both raise the weight:
    exp(-theta) * (UNCERTAINTY_FLOOR + se). The outcome just served counts REPEAT_WEIGHT of that, and one
    served MAX_RUN times in a row gets none while another outcome can be served.
    """
    raw = {}
    for o in outcomes:
        a = abilities.get(o) or {}
        theta = float(a.get("theta", PRIOR_THETA))
        se = float(a.get("se", PRIOR_SE))
        raw[o] = math.exp(-theta) * (UNCERTAINTY_FLOOR + se)
    if recent and recent[-1] in raw:
        raw[recent[-1]] *= REPEAT_WEIGHT
        run = recent[-MAX_RUN:]
        if len(run) == MAX_RUN and len(set(run)) == 1 and len(raw) > 1:
            raw[recent[-1]] = 0.0
    total = sum(raw.values())
    return {o: w / total for o, w in raw.items()}


def pick_weighted(weights: dict[str, float], rng: random.Random) -> str:
    """One key, with the chance its weight gives (in the order given, so a seed always picks the same)."""
    pick = rng.random()
    last = None
    for key, w in weights.items():
        if w <= 0:
            continue
        last = key
        pick -= w
        if pick < 0:
            return key
    return last if last is not None else next(iter(weights))


class PracticeFlow(Flow):
    kind = "practice"

    def new_state(self, session: dict) -> dict:
        cfg = session["config"]
        for field in ("subject", "level"):
            if not cfg.get(field):
                raise FlowError(f"practice needs a {field}")
        return {
            "student": session["student"], "subject": cfg["subject"], "level": cfg["level"],
            "approved_only": bool(cfg.get("approved_only")),
            "outcome": cfg.get("outcome"),
            "mode": cfg.get("mode", "practice"), "seed": str(cfg.get("seed", session["id"])),
            "stage": "new", "current": None, "last": None, "presented": 0,
            "total": 0, "correct": 0, "streak": 0, "best_streak": 0, "used": [], "outcomes": [], "skills": [],
            "abilities": {}, "mastery": {}, "similar": None, "tutor": [],
        }

    # ------------------------------------------------------------------
    def apply(self, state: dict, event: dict) -> None:
        p, t = event["payload"], event["type"]
        if t == "began":
            state["abilities"].update(p.get("abilities") or {})
        elif t == "presented":
            state["stage"] = "question"
            state["current"] = p
            state["presented"] += 1
            state["used"].append(p["content_key"])
            state["used"].append(p["stem_key"])
            state["outcomes"].append(p["outcome_id"])
            state["skills"].append(p.get("skill"))
            state["similar"] = None
            state["tutor"] = []
        elif t == "answered":
            state["stage"] = "feedback"
            state["last"] = p
            state["total"] += 1
            if p["correct"]:
                state["correct"] += 1
                state["streak"] += 1
                state["best_streak"] = max(state["best_streak"], state["streak"])
            else:
                state["streak"] = 0
            if p.get("ability") is not None:
                state["abilities"][p["outcome_id"]] = p["ability"]
            state["mastery"].update(p.get("mastery", {}))
            state["similar"] = p.get("similar_item_id")
        elif t == "tutor":
            state.setdefault("tutor", []).append({"question": p["question"], "reply": p["reply"]})
        elif t == "skipped":
            state["stage"] = "skipped"
            state["streak"] = 0
        elif t == "ended":
            state["stage"] = "ended"
            state["current"] = None

    def view(self, state: dict) -> dict:
        out = {"kind": self.kind, "mode": state["mode"], "stage": state["stage"], "subject": state["subject"],
               "level": state["level"], "outcome": state["outcome"],
               "stats": {"total": state["total"], "correct": state["correct"], "streak": state["streak"],
                         "best_streak": state["best_streak"]}}
        if state["stage"] == "question" and state["current"]:
            cur = state["current"]
            limit = cur.get("time_limit_s")
            out["question"] = {**cur["view"], "number": state["presented"], "time_limit_seconds": limit}
            out["time_left_seconds"] = timing.seconds_left(cur.get("t"), limit, self.ctx.clock())
            if cur.get("rationale"):
                out["rationale"] = cur["rationale"]
        if state["stage"] == "feedback" and state["last"]:
            last = state["last"]
            out["feedback"] = {k: last[k] for k in ("item_id", "answer", "correct", "score", "max_score", "feedback",
                                                     "correct_answer", "explanation", "remediation", "gap_tags")}
            out["feedback"]["judged"] = last.get("judged")
            out["feedback"]["reading"] = last.get("reading")
            out["feedback"]["note"] = last.get("note")            # a very quick wrong answer: take your time
            out["feedback"]["late"] = bool(last.get("late"))      # answered after the item's time limit
            out["feedback"]["skill_name"] = last.get("skill_name")
            if last.get("steps"):   # answered step by step: the final answer's text, and each step's marks
                out["feedback"]["answer"] = last.get("answer_text", "")
                out["feedback"]["steps"] = last["steps"]
            out["tutor"] = list(state.get("tutor", []))
            out["feedback"]["question"] = last["stem"]
            out["can_try_similar"] = bool(state.get("similar"))
        if state["mode"] == "adaptive":
            out["abilities"] = state["abilities"]
        return out

    # ------------------------------------------------------------------
    def cmd_start(self, state: dict) -> Step:
        if state["stage"] != "new":
            return Step()
        step = Step()
        if state["mode"] == "adaptive":
            # Where the student stands when the session begins: adaptive practice carries on from there.
            stored = outcome_ability.get_abilities(self.ctx.store, state["student"])
            course = {o.id for o in self._course_outcomes(state)}
            step.add("began", abilities={o: {k: a[k] for k in ("theta", "se", "n", "correct")}
                                         for o, a in stored.items() if o in course})
        return self._present(state, step)

    def cmd_answer(self, state: dict, item_id: str, answer: Any, time_ms: Optional[int] = None) -> Step:
        cur, last = state["current"], state["last"]
        if state["stage"] == "feedback" and last and last["item_id"] == item_id:
            if last["answer"] == answer:
                return Step()  # the same submission again (double click, second tab): recorded once
            raise FlowError("this question has already been answered; move on to the next one")
        if state["stage"] != "question" or not cur:
            raise FlowError("there is no question waiting for an answer; ask for the next question")
        if cur["item_id"] != item_id:
            raise FlowError("that answer is for a question that is no longer on screen; answer the current question")
        item = self.item(item_id)
        avoid = set(state["used"])
        diag = diagnose(item, answer, self.ctx.source, seed=f"{state['seed']}/{state['presented']}", avoid=avoid,
                        decimal_comma=self.decimal_comma(state))
        mark = diag.mark
        reading = preview.from_mark(mark, diag.answer_text)
        if not mark.valid:
            # Not read, so not an attempt: nothing is stored and the question stays for a corrected answer.
            return Step(reply={"reading": {**reading, "item_id": item_id}})
        now = self.ctx.clock()
        if time_ms is None and cur.get("t"):
            time_ms = int(max(0.0, now - cur["t"]) * 1000)
        limit = cur.get("time_limit_s")
        # The server's clock decides: an answer after the item's limit is kept, but counts as wrong.
        late = not timing.in_time(cur.get("t"), limit, now)
        correct = bool(mark.correct) and not late
        score = 0.0 if late else mark.score
        feedback = f"{timing.time_up_message(limit)} Have a look at how it is done, then try the next one." \
            if late else mark.feedback
        step = Step()
        evidence = answer_evidence(self.ctx, state["student"], item, cur["outcome_id"], correct, time_ms,
                                   state["mastery"])
        evidence.add_to(step)
        if diag.similar is not None:
            step.items.append(diag.similar)
        step.add("answered", item_id=item_id, outcome_id=cur["outcome_id"], answer=answer,
                 correct=correct, score=score, max_score=mark.max_score, feedback=feedback,
                 misconception=mark.misconception, gap_tags=diag.gap_tags, remediation=diag.remediation,
                 correct_answer=item.shown_answer, explanation=item.explanation, stem=item.stem,
                 similar_item_id=diag.similar.id if diag.similar else None, time_ms=time_ms, judged=diag.judged,
                 skill=evidence.skill, skill_name=evidence.skill_name, mastery=evidence.mastery,
                 ability=evidence.ability, ability_before=evidence.ability_before, quick=evidence.quick,
                 note=evidence.note, late=late, marked_correct=mark.correct if late else None,
                 time_limit_s=limit, reading=reading, answer_text=diag.answer_text, steps=diag.steps)
        step.responses.append({"item_id": item_id, "answer": diag.answer_text, "correct": correct,
                               "score": score, "max_score": mark.max_score, "time_taken_ms": time_ms,
                               "attempt": 1, "step_answers": diag.step_answers})
        return step

    def cmd_next(self, state: dict, similar: bool = False) -> Step:
        if state["stage"] == "question":
            return Step()  # already showing a question (a repeated click)
        if state["stage"] == "ended":
            raise FlowError("this practice session has ended; start a new one")
        if similar and state.get("similar"):
            item = self.item(state["similar"])
            step = Step()
            outcome = item.outcome_ids[0] if item.outcome_ids else (state["current"] or {}).get("outcome_id")
            self._present_item(state, step, item, outcome, "similar", None)
            return step
        return self._present(state, Step())

    def cmd_ask_tutor(self, state: dict, question: str) -> Step:
        """The tutor answers a question about the feedback on screen (free chat, seed 002's thought session)."""
        from core.llm import OFF_MESSAGE, LLMError
        assistant = self.ctx.source.llm
        if assistant is None:
            raise FlowError(f"The tutor is not available. {OFF_MESSAGE}")
        if state["stage"] != "feedback" or not state["last"]:
            raise FlowError("the tutor answers questions about feedback: answer a question first")
        last = state["last"]
        context = {"question": last["stem"], "student_answer": last.get("answer_text", last["answer"]),
                   "correct": last["correct"],
                   "correct_answer": last["correct_answer"], "feedback": last["feedback"],
                   "explanation": last["explanation"], "remediation": last.get("remediation")}
        try:
            reply = assistant.tutor(context, state.get("tutor", []), question)
        except ValueError as exc:
            raise FlowError(str(exc)) from None
        except LLMError as exc:
            raise FlowError(f"The tutor could not answer: {exc}. Try again in a moment.") from None
        return Step().add("tutor", item_id=last["item_id"], question=question.strip(), reply=reply)

    def cmd_mark_written(self, state: dict, answer: dict, correct: Any, reason: Any, teacher: Any = "teacher") -> Step:
        """A teacher marks one of this session's written answers right or wrong, with a reason: an event in the
        session's history, and the answer's responses row rescored (``core.school.written_answers`` finds it)."""
        return written.teacher_mark(answer, correct, reason, teacher)

    def cmd_skip(self, state: dict) -> Step:
        if state["stage"] != "question":
            raise FlowError("there is no question to skip")
        step = Step().add("skipped", item_id=state["current"]["item_id"])
        state = {**state, "stage": "skipped"}
        return self._present(state, step)

    def cmd_stop(self, state: dict) -> Step:
        if state["stage"] == "ended":
            return Step()
        step = Step().add("ended", total=state["total"], correct=state["correct"], best_streak=state["best_streak"])
        step.status = "completed"
        return step

    # ------------------------------------------------------------------
    def _present(self, state: dict, step: Step) -> Step:
        seed = f"{state['seed']}/{state['presented']}"
        avoid = set(state["used"])
        rationale = None
        approved_only = bool(state.get("approved_only")) or school.approved_only_for(self.ctx.store, state["student"])
        try:
            if state["mode"] == "adaptive" and not approved_only:
                item, outcome, route, rationale = self._adaptive_pick(state, seed, avoid)
            else:
                fetched = fetch_question(self.ctx.source, state["student"], state["subject"], state["level"], seed,
                                         target_outcome=state["outcome"], avoid=avoid, approved_only=approved_only)
                item, outcome, route = fetched.item, fetched.outcome_id, fetched.route
        except NoQuestions as exc:
            raise FlowError(str(exc)) from None
        self._present_item(state, step, item, outcome, route, rationale)
        return step

    def _present_item(self, state: dict, step: Step, item: Item, outcome: Optional[str], route: str,
                      rationale: Optional[dict]) -> None:
        self.see(step, item, outcome)
        step.add("presented", item_id=item.id, outcome_id=outcome, route=route, content_key=item.content_key,
                 stem_key=stem_key(item), view=item.student_view(), rationale=rationale,
                 skill=skill_for(item, self.ctx.library), time_limit_s=timing.limit_for(item, self.ctx.library),
                 t=self.ctx.clock())

    def _course_outcomes(self, state: dict) -> list:
        source = self.ctx.source
        subject, level = state["subject"], state["level"]
        try:
            outcomes = [o for o in suppliable_outcomes(source, subject, level)
                        if source.blueprints_for(subject, level, o.id)]
        except NoQuestions as exc:
            raise FlowError(str(exc)) from None
        if state["outcome"]:
            outcomes = [o for o in outcomes if o.id == state["outcome"]]
        return outcomes

    def _adaptive_pick(self, state: dict, seed: str, avoid: set[str]) -> tuple[Item, str, str, dict]:
        source, library = self.ctx.source, self.ctx.library
        subject, level = state["subject"], state["level"]
        outcomes = self._course_outcomes(state)
        if not outcomes:
            raise NoQuestions(f"adaptive practice needs skill blueprints for {subject} {level}")
        # The stored estimates are the truth (another session may have moved them); the session's own fill gaps.
        stored = outcome_ability.get_abilities(self.ctx.store, state["student"])
        abilities = {o.id: stored.get(o.id) or state["abilities"].get(o.id) for o in outcomes}
        recent = [o for o in state["outcomes"] if o]
        weights = outcome_weights([o.id for o in outcomes], abilities, recent)
        rng = random.Random(f"adaptive|{seed}")
        chosen = pick_weighted(weights, rng)
        ability = abilities.get(chosen) or {}
        theta, se = float(ability.get("theta", PRIOR_THETA)), float(ability.get("se", PRIOR_SE))
        target = theta - ADAPTIVE_OFFSET

        # Variety: a skill not served in the last few items, the least served in this session, at the level
        # nearest the target difficulty.
        skills = source.blueprints_for(subject, level, chosen)
        recent_skills = {s for s in state["skills"][-RECENT_SKILLS:] if s}
        fresh = [s for s in skills if s not in recent_skills] or skills
        served = {s: state["skills"].count(s) for s in skills}
        table = calibrated(self.ctx.store)   # measured difficulties where a calibration has them
        choices = []
        for skill in fresh:
            gen = library.generator(skill)
            for lvl, spec in gen.bp.generation.difficulty_levels.items():
                b = table.get(f"{skill}|{lvl}", (difficulty_logit(spec.value), 1.0))[0]
                choices.append((served[skill], abs(b - target), rng.random(), skill, lvl, spec.value))
        choices.sort()
        _, _, _, skill, lvl, value = choices[0]
        gen = library.generator(skill)
        seen_content, seen_stems = source.seen(state["student"])
        item = gen.generate(lvl, f"{seed}/adaptive")
        for k in range(8):
            if item.content_key not in avoid and stem_key(item) not in avoid and item.content_key not in seen_content \
                    and stem_key(item) not in seen_stems:
                break
            item = gen.generate(lvl, f"{seed}/adaptive/{k}")

        label = outcome_info(library, chosen)["label"]
        rested = [o for o, w in weights.items() if w == 0.0]
        evidence = any(abilities.get(o) for o in weights)
        reason = (f"{label}: chosen from your weaker and less certain outcomes "
                  f"(a {round(100 * weights[chosen])}% chance this time)" if evidence else
                  f"{label}: no answers on this course yet, so every outcome is as likely as the next")
        if rested:
            reason += f"; {outcome_info(library, rested[0])['label']} came up twice running, so it rests this time"
        name = skill_label(library, skill)
        if len(skills) > 1 and skill not in recent_skills:
            reason += f"; {name}, a skill you have not had in the last few questions"
        # In a student's words: the estimate itself (a logit) stays in the rationale's numbers for the teacher.
        reason += "; set a little below the level you are working at, to stretch you without being out of reach"
        rationale = {"domain": chosen, "outcome_label": label, "estimated_ability": round(theta, 4),
                     "uncertainty": round(se, 4), "target_difficulty": round(target, 3),
                     "weights": {o: round(w, 4) for o, w in weights.items()},
                     "chosen": {"skill": skill, "skill_name": name, "level": lvl, "declared_difficulty": value},
                     "reason": reason}
        return item, chosen, "adaptive", rationale


def _text(answer: Any) -> str:
    return answer if isinstance(answer, str) else str(answer)
