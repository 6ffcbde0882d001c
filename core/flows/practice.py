"""Rapid-fire practice (QuestionPracticeGraph), with an adaptive mode.

    start -> presented --answer--> answered (feedback shown) --next--> presented ...
                      --skip---> skipped, presented          --stop--> ended

Practice mode follows the seed: fetch with novelty over the chosen outcome
(or a weighted choice of outcomes). Adaptive mode (seed 002, 13.6) keeps a
per-outcome ability estimate (mean and standard error) updated after every
response by a Bayesian step, with each item's difficulty taken from the newest
calibration (the item's own, else its blueprint level's) or, before one, from
the blueprint's declared difficulty; it serves the weakest outcome at a
difficulty a little below its estimate, recording why.
"""
from __future__ import annotations

import random
import time
from typing import Any, Optional

from core.flows import preview
from core.flows.remediation import diagnose
from core.school.progress import INITIAL_MASTERY, mastery_update
from core.flows.base import Flow, FlowError, Step
from core.flows.fetch import fetch_question, suppliable_outcomes
from core.items.generator import Item
from core.items.sources import NoQuestions, stem_key
from core.analytics import irt
from core.analytics.calibration import difficulty_logit
from core.store import analytics as analytics_store
from core.store import school, sessions

ADAPTIVE_OFFSET = 0.3       # serve items this far (in logits) below the current estimate


PRIOR_SE = 1.0              # a new student's ability: N(0, 1) on the calibrated scale
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
    theta, se = irt.online_update(ability.get("theta", 0.0), ability.get("se", PRIOR_SE), b, a, correct)
    return {"theta": round(max(-4.0, min(4.0, theta)), 4), "se": round(se, 4), "n": ability.get("n", 0) + 1,
            "correct": ability.get("correct", 0) + int(correct)}


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
            "total": 0, "correct": 0, "streak": 0, "best_streak": 0, "used": [], "outcomes": [],
            "abilities": {}, "mastery": {}, "similar": None, "tutor": [],
        }

    # ------------------------------------------------------------------
    def apply(self, state: dict, event: dict) -> None:
        p, t = event["payload"], event["type"]
        if t == "presented":
            state["stage"] = "question"
            state["current"] = p
            state["presented"] += 1
            state["used"].append(p["content_key"])
            state["used"].append(p["stem_key"])
            state["outcomes"].append(p["outcome_id"])
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
            out["question"] = {**cur["view"], "number": state["presented"]}
            if cur.get("rationale"):
                out["rationale"] = cur["rationale"]
        if state["stage"] == "feedback" and state["last"]:
            last = state["last"]
            out["feedback"] = {k: last[k] for k in ("item_id", "answer", "correct", "score", "max_score", "feedback",
                                                     "correct_answer", "explanation", "remediation", "gap_tags")}
            out["feedback"]["judged"] = last.get("judged")
            out["feedback"]["reading"] = last.get("reading")
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
        return self._present(state, Step())

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
        if time_ms is None and cur.get("t"):
            time_ms = int(max(0.0, self.ctx.clock() - cur["t"]) * 1000)
        step = Step()
        skill = item.blueprint_id or cur["outcome_id"]
        mastery = dict(state["mastery"])
        if skill not in mastery:
            mastery[skill] = sessions.get_mastery(self.ctx.store, state["student"]).get(skill, INITIAL_MASTERY)
        new_score = mastery_update(mastery[skill], mark.correct)
        step.mastery[skill] = new_score
        ability = None
        if state["mode"] == "adaptive":
            prior = state["abilities"].get(cur["outcome_id"], {"theta": 0.0, "n": 0, "correct": 0})
            b, a, _ = item_parameters(self.ctx.store, item)
            ability = online_update(prior, b, mark.correct, a)
        if diag.similar is not None:
            step.items.append(diag.similar)
        step.add("answered", item_id=item_id, outcome_id=cur["outcome_id"], answer=answer,
                 correct=mark.correct, score=mark.score, max_score=mark.max_score, feedback=mark.feedback,
                 misconception=mark.misconception, gap_tags=diag.gap_tags, remediation=diag.remediation,
                 correct_answer=item.shown_answer, explanation=item.explanation, stem=item.stem,
                 similar_item_id=diag.similar.id if diag.similar else None, time_ms=time_ms, judged=diag.judged,
                 mastery={skill: new_score}, ability=ability, reading=reading,
                 answer_text=diag.answer_text, steps=diag.steps)
        step.responses.append({"item_id": item_id, "answer": diag.answer_text, "correct": mark.correct,
                               "score": mark.score, "max_score": mark.max_score, "time_taken_ms": time_ms,
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
                 stem_key=stem_key(item), view=item.student_view(), rationale=rationale, t=self.ctx.clock())

    def _adaptive_pick(self, state: dict, seed: str, avoid: set[str]) -> tuple[Item, str, str, dict]:
        source = self.ctx.source
        subject, level = state["subject"], state["level"]
        outcomes = [o for o in suppliable_outcomes(source, subject, level)
                    if source.blueprints_for(subject, level, o.id)]
        if state["outcome"]:
            outcomes = [o for o in outcomes if o.id == state["outcome"]]
        if not outcomes:
            raise NoQuestions(f"adaptive practice needs skill blueprints for {subject} {level}")
        abilities = state["abilities"]
        rng = random.Random(f"adaptive|{seed}")
        # Weakest first; among equals, the least practised, then at random.
        weakest = min(outcomes, key=lambda o: (abilities.get(o.id, {}).get("theta", 0.0),
                                               abilities.get(o.id, {}).get("n", 0), rng.random()))
        theta = abilities.get(weakest.id, {}).get("theta", 0.0)
        target = theta - ADAPTIVE_OFFSET
        choices = []
        table = calibrated(self.ctx.store)   # measured difficulties where a calibration has them
        for skill in source.blueprints_for(subject, level, weakest.id):
            gen = self.ctx.library.generator(skill)
            for lvl, spec in gen.bp.generation.difficulty_levels.items():
                b = table.get(f"{skill}|{lvl}", (difficulty_logit(spec.value), 1.0))[0]
                choices.append((abs(b - target), rng.random(), skill, lvl, spec.value))
        choices.sort()
        _, _, skill, lvl, value = choices[0]
        gen = self.ctx.library.generator(skill)
        item = gen.generate(lvl, f"{seed}/adaptive")
        for k in range(8):
            if item.content_key not in avoid and stem_key(item) not in avoid:
                break
            item = gen.generate(lvl, f"{seed}/adaptive/{k}")
        rationale = {"domain": weakest.id, "estimated_ability": theta, "target_difficulty": round(target, 3),
                     "chosen": {"skill": skill, "level": lvl, "declared_difficulty": value},
                     "reason": ("weakest outcome" if abilities else "no evidence yet: start with an average item")
                     + f", served a little below the current estimate ({theta:+.2f})"}
        return item, weakest.id, "adaptive", rationale


def _text(answer: Any) -> str:
    return answer if isinstance(answer, str) else str(answer)
