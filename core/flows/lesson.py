"""A lesson (the seed's teaching loop): cards that teach, each with a check-for-understanding question.

    start -> card shown --answer(wrong, attempts left)--> retry (feedback + hint) --answer--> ...
                        --answer(right, or wrong on the last attempt)--> feedback (answer revealed)
                        --skip--> next card
             feedback --next--> next card ... after the last card: ended (performance analysis)

Every card is built when the lesson starts (a question the student has not
seen, and the teaching, worked example and hints of that question's own skill:
a bank question is taught from the skill it names or is matched to, or from
teaching written for it), so a reload or another process shows the same cards.
Hints escalate with each wrong attempt; with an LLM, a sentence leads from one
card to the next and the LLM writes the end-of-lesson summary, which otherwise
is written from the lesson's own figures. Each attempt is evidence (an
event and a responses row); mastery moves by the seed's rule when a card
completes. The student never sees a card's key or explanation before the card
completes.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import json
import random
from typing import Any, Optional

from core.blueprints.library import LibraryError
from core.flows import preview, timing, written
from core.flows.practice import answer_evidence
from core.flows.lesson_draws import draw, worked_example
from core.flows.lesson_words import engagement, hint_for, hint_ladder, written_summary
from core.flows.remediation import diagnose, easier_level
from core.items.skills import skill_for, teaching_for
from core.school.progress import INITIAL_MASTERY, mastery_update, skill_label
from core.flows.base import Flow, FlowError, Step
from core.flows.fetch import choose_outcome, fetch_question, suppliable_outcomes
from core.items.generator import Item, SkillGenerator
from core.marking import MAX_ANSWER_CHARS
from core.items.sources import NoQuestions, stem_key
from core.store import sessions

DEFAULT_CARDS = 5
MAX_CARDS = 30
DEFAULT_MAX_ATTEMPTS = 3
MAX_ATTEMPTS_LIMIT = 10
RETRY_BELOW = 0.7          # the seed's "retry the lesson" line, on card accuracy
MAX_TIME_MS = 24 * 3600 * 1000


def _iso(t: float) -> str:
    return dt.datetime.fromtimestamp(t, dt.timezone.utc).isoformat().replace("+00:00", "Z")


def _text(answer: Any) -> str:
    if isinstance(answer, dict):   # one answer per step: compared and measured as one canonical text
        return json.dumps({str(k): _text(v) for k, v in answer.items()}, sort_keys=True, ensure_ascii=False)
    return answer if isinstance(answer, str) else str(answer)


def _same_answer(a: Any, b: Any) -> bool:
    return _text(a).strip() == _text(b).strip()


def _int_setting(cfg: dict, name: str, default: int, low: int, high: int) -> int:
    value = cfg.get(name, default)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise FlowError(f"a lesson's {name} must be a whole number from {low} to {high}, not {value!r}")
    return value


class LessonFlow(Flow):
    kind = "lesson"

    def new_state(self, session: dict) -> dict:
        cfg = session["config"] or {}
        skills = cfg.get("skills")
        if skills is not None:
            if not isinstance(skills, list) or not skills or not all(isinstance(s, str) and s for s in skills):
                raise FlowError("a lesson's skills must be a non-empty list of skill ids")
        elif not (cfg.get("subject") and cfg.get("level")):
            raise FlowError("a lesson needs a subject and level (and optionally an outcome), or a list of skills")
        return {
            "student": session["student"], "subject": cfg.get("subject"), "level": cfg.get("level"),
            "outcome": cfg.get("outcome"), "skills": list(skills) if skills else None,
            "n_cards": _int_setting(cfg, "cards", DEFAULT_CARDS, 1, MAX_CARDS),
            "max_attempts": _int_setting(cfg, "max_attempts", DEFAULT_MAX_ATTEMPTS, 1, MAX_ATTEMPTS_LIMIT),
            "seed": str(cfg.get("seed", session["id"])),
            "stage": "new", "cards": [], "index": -1, "attempts": 0, "shown_t": None, "last": None,
            "results": [], "evidence": [], "mastery_updates": [], "started_t": None, "ended_t": None,
            "analysis": None,
        }

    # ------------------------------------------------------------------
    def apply(self, state: dict, event: dict) -> None:
        p, t = event["payload"], event["type"]
        if state["started_t"] is None and p.get("t") is not None:
            state["started_t"] = p["t"]
        if t == "planned":
            state["cards"] = p["cards"]
            state["max_attempts"] = p["max_attempts"]
            state["results"] = [None] * len(p["cards"])
        elif t == "presented":
            state["stage"] = "question"
            state["transition"] = p.get("transition")
            state["index"] = p["card_index"]
            state["attempts"] = 0
            state["last"] = None
            state["shown_t"] = p.get("t")
        elif t == "attempted":
            state["attempts"] = p["attempts"]
            state["last"] = p
            state["shown_t"] = p.get("t")
            state["evidence"].append(p["evidence"])
            state["stage"] = "feedback" if p["evidence"]["should_progress"] else "retry"
        elif t == "card_completed":
            state["results"][p["card_index"]] = {k: p[k] for k in ("result", "attempts", "first_try")}
            state["mastery_updates"].extend(p["mastery_updates"])
            if p["result"] == "skipped":
                state["stage"] = "skipped"
                state["last"] = None
        elif t == "ended":
            state["stage"] = "ended"
            state["analysis"] = p["analysis"]
            state["ended_t"] = p.get("t")

    def view(self, state: dict) -> dict:
        cards, index = state["cards"], state["index"]
        results = state["results"]
        out = {"kind": self.kind, "stage": state["stage"], "subject": state["subject"], "level": state["level"],
               "outcome": state["outcome"], "skills": state["skills"],
               "progress": {"card": index + 1, "total": len(cards),
                            "completed": sum(1 for r in results if r),
                            "correct": sum(1 for r in results if r and r["result"] == "correct")}}
        if 0 <= index < len(cards):
            card = cards[index]
            complete = results[index] is not None
            out["card"] = {
                "index": index, "card_id": card["card_id"], "number": index + 1, "title": card["title"],
                "teaching": card["teaching"], "question": {**card["view"], "number": index + 1},
                "max_attempts": state["max_attempts"], "attempts_used": state["attempts"],
                "transition": state.get("transition"), "hint_level": state["attempts"] if not complete else 0,
                "time_limit_seconds": card.get("time_limit_s"),
                "time_left_seconds": None if complete or not card.get("time_limit_s") else
                timing.seconds_left(state.get("shown_t"), card["time_limit_s"], self.ctx.clock()),
                "attempts_remaining": max(0, state["max_attempts"] - state["attempts"]),
                "complete": complete,
            }
            last = state["last"]
            if last is not None and last["card_index"] == index:
                out["feedback"] = {"item_id": last["item_id"], "answer": last["answer"], "correct": last["correct"],
                                   "feedback": last["feedback"], "hint": last.get("hint"),
                                   "key_concept": last.get("key_concept"), "reading": last.get("reading"),
                                   "judged": last.get("judged")}
                if last.get("steps"):   # answered step by step: the final answer's text, and each step's marks
                    out["feedback"]["answer"] = last.get("answer_text", "")
                    out["feedback"]["steps"] = last["steps"]
                if last.get("revealed"):
                    # Only present once the card has completed: after a right answer or the last failed attempt.
                    out["revealed"] = last["revealed"]
        if state["stage"] == "ended":
            out["summary"] = state["analysis"]
        return out

    # ------------------------------------------------------------------
    def cmd_start(self, state: dict) -> Step:
        if state["stage"] != "new":
            return Step()
        step = Step()
        cards = self._build_cards(state, step)
        step.add("planned", cards=cards, max_attempts=state["max_attempts"], t=self.ctx.clock())
        step.add("presented", card_index=0, card_id=cards[0]["card_id"], t=self.ctx.clock())
        return step

    def cmd_answer(self, state: dict, answer: Any, card_index: Optional[int] = None, item_id: Optional[str] = None,
                   time_ms: Optional[int] = None) -> Step:
        index = self._target(state, card_index, item_id)
        card = state["cards"][index]
        last = state["last"]
        if state["results"][index] is not None or state["stage"] == "ended":
            tried = [e for e in state["evidence"] if e["card_index"] == index]
            if tried and _same_answer(tried[-1]["student_response"], answer):
                return Step()  # the same submission again (double click, second tab): recorded once
            if state["stage"] == "ended":
                raise FlowError("this lesson has ended; start a new lesson to keep practising")
            if index == state["index"]:
                raise FlowError(f"card {index + 1} is already finished; move on to the next card")
            raise FlowError(f"card {index + 1} is already finished; answer card {state['index'] + 1}, which is on screen")
        if index != state["index"]:
            raise FlowError(f"that answer is for card {index + 1}, but card {state['index'] + 1} is on screen; "
                            f"answer the card on screen")
        if state["stage"] == "retry" and last and _same_answer(last["answer"], answer):
            # The identical wrong answer again is a repeated click, not a new attempt: it would only burn an attempt.
            return Step()
        if state["stage"] not in ("question", "retry"):
            raise FlowError("there is no card waiting for an answer; ask for the next card")

        if len(_text(answer)) > MAX_ANSWER_CHARS:
            # Refused before marking, so a stray paste does not use up an attempt.
            raise FlowError(f"that answer is too long (over {MAX_ANSWER_CHARS:,} characters); shorten it and try again")
        item = self.item(card["item_id"])
        attempts = state["attempts"] + 1
        diag = diagnose(item, answer, self.ctx.source, seed=f"{state['seed']}/{index}/{attempts}", similar=False,
                        decimal_comma=self.decimal_comma(state),
                        tutor=attempts >= state["max_attempts"])  # the tutor explains once the answer is revealed
        mark = diag.mark
        reading = preview.from_mark(mark, diag.answer_text)
        if not mark.valid:
            # Not read, so not an attempt: no evidence, no attempt used, the card waits for a corrected answer.
            return Step(reply={"reading": {**reading, "card_index": index, "item_id": item.id}})
        now = self.ctx.clock()
        if isinstance(time_ms, bool) or not isinstance(time_ms, int) or not 0 <= time_ms <= MAX_TIME_MS:
            time_ms = None  # the client's figure is only a hint; measure instead
        if time_ms is None and state.get("shown_t"):
            time_ms = int(max(0.0, now - state["shown_t"]) * 1000)
        limit = card.get("time_limit_s")
        if limit and not timing.in_time(state.get("shown_t"), limit, now):
            # The server's clock decides: an answer after the card's time limit is an attempt, but not a right one.
            mark = dataclasses.replace(mark, correct=False, score=0.0, feedback=timing.time_up_message(limit))
        should_progress = mark.correct or attempts >= state["max_attempts"]
        rem = diag.remediation or {}
        hint = None
        if not mark.correct and not should_progress:
            # One rung further up the card's hints on each wrong attempt (cards planned before hints were
            # part of the plan get the question's own ladder).
            ladder = card.get("hints")
            if ladder is None:
                ladder = hint_ladder(item, rem.get("key_concept"), bool(card["teaching"].get("example")))
            hint = hint_for(ladder, attempts)
        feedback = mark.feedback
        if not mark.correct and rem.get("what_went_wrong") and rem["what_went_wrong"] != mark.feedback:
            feedback = f"{mark.feedback} {rem['what_went_wrong']}".strip()   # the marker's words, and the mistake
        revealed = None
        if should_progress:
            revealed = {"correct_answer": item.shown_answer, "explanation": item.explanation,
                        "units": item.units}
            if not mark.correct:
                revealed["remediation"] = {k: rem.get(k) for k in ("what_went_wrong", "key_concept", "tutor", "tutor_error")
                                            if rem.get(k) is not None}
        evidence = {"card_id": card["card_id"], "card_index": index, "item_id": item.id, "question": item.stem,
                    "student_response": _text(answer), "is_correct": mark.correct, "attempts": attempts,
                    "should_progress": should_progress, "feedback": feedback, "timestamp": _iso(now),
                    "cfu_type": item.item_type, "skill_ids": card["skill_ids"], "hint": hint,
                    "score": mark.score, "max_score": mark.max_score, "time_ms": time_ms}
        if diag.step_answers is not None:
            evidence["step_answers"] = diag.step_answers
        step = Step()
        step.add("attempted", card_index=index, item_id=item.id, answer=_text(answer), correct=mark.correct,
                 score=mark.score, max_score=mark.max_score, feedback=feedback, hint=hint,
                 key_concept=None if mark.correct else rem.get("key_concept"),
                 misconception=mark.misconception, gap_tags=diag.gap_tags, attempts=attempts,
                 revealed=revealed, time_ms=time_ms, evidence=evidence, reading=reading,
                 answer_text=diag.answer_text, steps=diag.steps, judged=diag.judged, t=now)
        step.responses.append({"item_id": item.id, "answer": diag.answer_text, "correct": mark.correct,
                               "score": mark.score, "max_score": mark.max_score, "time_taken_ms": time_ms,
                               "attempt": attempts, "step_answers": diag.step_answers})
        if attempts == 1:
            # The first attempt is the one that says what the student knew: it moves the outcome's ability (the
            # lesson moves mastery by its own rule, when the card completes).
            outcome = card.get("outcome_id") or (item.outcome_ids[0] if item.outcome_ids else None)
            answer_evidence(self.ctx, state["student"], item, outcome, mark.correct, time_ms,
                            move_mastery=False).add_to(step)
        if should_progress:
            result = "correct" if mark.correct else "incorrect"
            self._complete(state, step, index, result, attempts, first_try=mark.correct and attempts == 1,
                           correct_for_mastery=mark.correct, now=now)
        return step

    def cmd_mark_written(self, state: dict, answer: dict, correct: Any, reason: Any, teacher: Any = "teacher") -> Step:
        """A teacher marks one of this session's written answers right or wrong, with a reason: an event in the
        session's history, and the answer's responses row rescored (``core.school.written_answers`` finds it)."""
        return written.teacher_mark(answer, correct, reason, teacher)

    def cmd_skip(self, state: dict, card_index: Optional[int] = None) -> Step:
        if state["stage"] == "ended":
            raise FlowError("this lesson has ended; there is no card to skip")
        if state["stage"] == "new":
            raise FlowError("the lesson has not started yet; start it first")
        index = state["index"] if card_index is None else self._target(state, card_index, None)
        if state["results"][index] is not None:
            if state["results"][index]["result"] == "skipped":
                return Step()  # skipped already (a repeated click)
            raise FlowError(f"card {index + 1} is already finished; move on to the next card")
        if index != state["index"] or state["stage"] not in ("question", "retry"):
            raise FlowError(f"card {index + 1} is not on screen; only the card on screen can be skipped")
        # Mastery on a skip: a card skipped before any attempt changes nothing (a skip says nothing about
        # what the student knows); a card skipped after wrong attempts counts as a wrong answer, so that
        # skipping cannot be used to dodge the decrease the last attempt would have brought.
        failed = state["attempts"] > 0
        now = self.ctx.clock()
        step = Step()
        self._complete(state, step, index, "skipped", state["attempts"], first_try=False,
                       correct_for_mastery=False if failed else None, now=now)
        if index + 1 < len(state["cards"]):
            transition = self._transition(state, index, "skipped", state["attempts"], index + 1)
            step.add("presented", card_index=index + 1, card_id=state["cards"][index + 1]["card_id"],
                     transition=transition, t=now)
        return step

    def cmd_next(self, state: dict) -> Step:
        if state["stage"] in ("question", "retry", "ended"):
            return Step()  # a card is already on screen, or the lesson is over: a repeated click changes nothing
        if state["stage"] == "new":
            raise FlowError("the lesson has not started yet; start it first")
        index = state["index"] + 1
        if index >= len(state["cards"]):
            return Step()  # the lesson ended with the last card
        done = state["results"][index - 1] or {}
        transition = self._transition(state, index - 1, done.get("result", ""), done.get("attempts", 0), index)
        return Step().add("presented", card_index=index, card_id=state["cards"][index]["card_id"],
                          transition=transition, t=self.ctx.clock())

    def cmd_stop(self, state: dict) -> Step:
        if state["stage"] == "ended":
            return Step()
        now = self.ctx.clock()
        step = Step().add("ended", reason="stopped",
                          analysis=self._analysis(state, state["results"], [], now, stopped=True), t=now)
        # A lesson stopped before its last card is not a finished lesson.
        step.status = "abandoned"
        return step

    # ------------------------------------------------------------------
    def _target(self, state: dict, card_index: Optional[int], item_id: Optional[str]) -> int:
        if state["stage"] == "new":
            raise FlowError("the lesson has not started yet; start it first")
        cards = state["cards"]
        if card_index is None and item_id is None:
            return state["index"]
        if card_index is not None:
            if isinstance(card_index, bool) or not isinstance(card_index, int) or not 0 <= card_index < len(cards):
                raise FlowError(f"there is no card {card_index!r} in this lesson (it has {len(cards)} cards)")
            if item_id is not None and cards[card_index]["item_id"] != item_id:
                raise FlowError(f"that question is not the one on card {card_index + 1}; reload the lesson")
            return card_index
        for k, card in enumerate(cards):
            if card["item_id"] == item_id:
                return k
        raise FlowError("that question is not part of this lesson; reload the lesson")

    def _complete(self, state: dict, step: Step, index: int, result: str, attempts: int, first_try: bool,
                  correct_for_mastery: Optional[bool], now: float) -> None:
        card = state["cards"][index]
        updates = []
        if correct_for_mastery is not None:
            # The store is the truth: earlier cards' updates (and other sessions') are already committed.
            stored = sessions.get_mastery(self.ctx.store, state["student"])
            for skill in card["skill_ids"]:
                previous = step.mastery.get(skill, stored.get(skill, INITIAL_MASTERY))
                new = mastery_update(previous, correct_for_mastery)
                step.mastery[skill] = new
                updates.append({"skill_id": skill, "skill_name": card.get("skill_names", {}).get(skill, skill),
                                "previous_score": previous, "new_score": new, "delta": round(new - previous, 6),
                                "card_id": card["card_id"], "timestamp": _iso(now), "is_correct": correct_for_mastery})
        step.add("card_completed", card_index=index, card_id=card["card_id"], result=result, attempts=attempts,
                 first_try=first_try, mastery_updates=updates, t=now)
        if index == len(state["cards"]) - 1:
            results = list(state["results"])
            results[index] = {"result": result, "attempts": attempts, "first_try": first_try}
            step.add("ended", reason="completed", analysis=self._analysis(state, results, updates, now), t=now)
            step.status = "completed"

    def _analysis(self, state: dict, results: list, new_updates: list, now: float,
                  stopped: bool = False) -> dict:
        """The seed's performance analysis; accuracy is per card answered (right within the attempts allowed).

        A lesson stopped before its last card says so (``stopped_early``, with the cards shown), and its
        summary never tells the student to move on.
        """
        done = [(card, r) for card, r in zip(state["cards"], results) if r]
        total_attempts = sum(r["attempts"] for _, r in done)
        correct = sum(1 for _, r in done if r["result"] == "correct")
        accuracy = round(correct / len(done), 4) if done else 0.0
        per_skill: dict[str, dict] = {}
        for card, r in done:
            for skill in card["skill_ids"]:
                s = per_skill.setdefault(skill, {"cards": 0, "correct": 0, "first_try": 0})
                s["cards"] += 1
                s["correct"] += r["result"] == "correct"
                s["first_try"] += bool(r["first_try"])
        # Strong: right first time on every card for the skill. Weak: right on under RETRY_BELOW of its cards.
        strong = sorted(k for k, s in per_skill.items() if s["first_try"] == s["cards"])
        weak = sorted(k for k, s in per_skill.items() if s["correct"] / s["cards"] < RETRY_BELOW)
        started = state["started_t"] if state["started_t"] is not None else now
        shown = state["index"] + 1
        stopped_early = stopped and len(done) < len(state["cards"])
        analysis = {
            "overall_accuracy": accuracy, "total_attempts": total_attempts, "cards_completed": len(done),
            "cards_correct": correct, "cards_skipped": sum(1 for _, r in done if r["result"] == "skipped"),
            "cards_first_try": sum(1 for _, r in done if r["first_try"]),
            "cards_total": len(state["cards"]), "cards_shown": shown, "stopped_early": stopped_early,
            "average_attempts_per_card": round(total_attempts / len(done), 2) if done else 0.0,
            "retry_recommended": stopped_early or accuracy < RETRY_BELOW,
            "strong_skills": strong, "weak_skills": weak, "skills": per_skill,
            "skill_names": {k: skill_label(self.ctx.library, k) or k for k in per_skill},
            "time_spent_seconds": round(max(0.0, now - started), 1),
            "engagement_score": engagement(results, state["evidence"], shown),
            "mastery_updates": state["mastery_updates"] + list(new_updates),
        }
        names = analysis["skill_names"]
        analysis["summary"] = written_summary(analysis, [names[k] for k in strong], [names[k] for k in weak])
        analysis["summary_by"] = "lesson"
        written = self._llm_summary(state, analysis)
        if written:
            analysis["summary"], analysis["summary_by"] = written, "llm"
        return analysis

    def _llm_summary(self, state: dict, analysis: dict) -> Optional[str]:
        assistant = self.ctx.source.llm
        if assistant is None:
            return None
        from core.llm import LLMError
        from core.llm.lesson import LessonTeacher
        names = analysis["skill_names"]
        figures = {k: analysis[k] for k in ("cards_total", "cards_shown", "cards_completed", "cards_correct",
                                            "cards_first_try", "cards_skipped", "stopped_early", "total_attempts",
                                            "retry_recommended", "engagement_score")}
        figures.update(strong=[names[k] for k in analysis["strong_skills"]],
                       to_work_on=[names[k] for k in analysis["weak_skills"]],
                       cards=[{"title": c["title"], "result": (r or {}).get("result", "not reached")}
                              for c, r in zip(state["cards"], state["results"])])
        try:
            return LessonTeacher(assistant.client).summary(figures)
        except LLMError:
            return None

    def _transition(self, state: dict, index: int, result: str, attempts: int, next_index: int) -> Optional[str]:
        """With an LLM, a sentence or two leading from the card just finished into the next one."""
        assistant = self.ctx.source.llm
        if assistant is None or not 0 <= next_index < len(state["cards"]):
            return None
        from core.llm import LLMError
        from core.llm.lesson import LessonTeacher
        cards = state["cards"]
        try:
            return LessonTeacher(assistant.client).transition(
                {"title": cards[index]["title"], "result": result, "attempts": attempts},
                {"title": cards[next_index]["title"]},
                {"card": next_index + 1, "of": len(cards),
                 "right_so_far": sum(1 for r in state["results"] if r and r["result"] == "correct")})
        except LLMError:
            return None

    # ------------------------------------------------------------------
    def _build_cards(self, state: dict, step: Step) -> list[dict]:
        student, seed, n = state["student"], state["seed"], state["n_cards"]
        seen_content, seen_stems = self.ctx.source.seen(student)
        avoid = seen_content | seen_stems   # grows with every item this lesson shows
        cards: list[dict] = []
        chosen_outcomes: list[str] = []
        for i in range(n):
            card_seed = f"{seed}/card{i}"
            if state["skills"]:
                skill = state["skills"][i % len(state["skills"])]
                gen = self._generator(skill)
                # Later passes over the same skill step up through its difficulty levels.
                levels = gen.cs.levels
                level = levels[min(i // len(state["skills"]), len(levels) - 1)]
                item = draw(gen, level, card_seed, avoid)
                outcome = item.outcome_ids[0] if item.outcome_ids else None
                route = "generated"
            else:
                outcome = state["outcome"] or self._pick_outcome(state, chosen_outcomes, card_seed)
                try:
                    fetched = fetch_question(self.ctx.source, student, state["subject"], state["level"], card_seed,
                                             target_outcome=outcome, avoid=avoid)
                except NoQuestions as exc:
                    raise FlowError(str(exc)) from None
                item, outcome, route = fetched.item, fetched.outcome_id, fetched.route
            chosen_outcomes.insert(0, outcome)
            avoid |= {item.content_key, stem_key(item)}
            self.see(step, item, outcome)
            cards.append(self._card(state, i, item, outcome, route, card_seed, avoid, step))
        return cards

    def _card(self, state: dict, i: int, item: Item, outcome: Optional[str], route: str, seed: str,
              avoid: set[str], step: Step) -> dict:
        """A card that teaches what its question asks: the question's own skill's teaching, a worked example
        drawn from that skill, and hints that escalate."""
        library = self.ctx.library
        skill = skill_for(item, library)
        teaching = teaching_for(item, library)
        source = "skill" if skill else "bank" if teaching else None
        if teaching is None:
            teaching = self._written_teaching(item)
            source = "llm" if teaching else None
        label = self._outcome_label(state, outcome)
        if teaching is None:
            # Nothing teaches this question: say what it is about, and let the hints carry the method.
            about = label or "this topic"
            teaching = {"title": label, "text": f"This question is about {about[0].lower() + about[1:]}. Read it "
                        f"carefully, decide which method it needs, and show your working.", "key_concept": None}
            source = "outcome"
        example = None
        gen = library.generators.get(skill) if skill else None
        if gen is not None:
            levels = gen.bp.generation.difficulty_levels
            if item.blueprint_id == skill and item.difficulty_level in levels:
                level = item.difficulty_level
            else:   # a bank question: the level nearest its difficulty, one easier for an example
                level = easier_level(levels, min(levels, key=lambda n: abs(levels[n].value - item.difficulty_value)))
            example_item = worked_example(gen, level, f"{seed}/example", avoid | {item.content_key, stem_key(item)},
                                          item if item.blueprint_id == skill else None)
            if example_item.content_key != item.content_key and stem_key(example_item) != stem_key(item):
                # The student reads this one with its answer, so it counts as seen.
                avoid |= {example_item.content_key, stem_key(example_item)}
                self.see(step, example_item, outcome)
                example = {"item_id": example_item.id, "stem": example_item.stem,
                           "answer": example_item.shown_answer, "units": example_item.units,
                           "explanation": example_item.explanation}
        title = teaching.get("title") or label or "Check your understanding"
        return {"card_id": f"card_{i + 1}", "index": i, "title": title,
                "teaching": {"text": teaching["text"], "example": example, "source": source},
                "item_id": item.id, "view": item.student_view(), "route": route, "outcome_id": outcome,
                "skill_ids": [skill] if skill else [], "skill_names": {skill: skill_label(library, skill)} if skill else {},
                "key_concept": teaching.get("key_concept"), "time_limit_s": timing.limit_for(item, library),
                "hints": hint_ladder(item, teaching.get("key_concept"), example is not None)}

    def _written_teaching(self, item: Item) -> Optional[dict]:
        """Teaching the LLM writes for a question nothing else teaches (None offline or when it fails)."""
        assistant = self.ctx.source.llm
        if assistant is None:
            return None
        from core.llm import LLMError
        from core.llm.lesson import LessonTeacher
        view = item.student_view()
        try:
            written = LessonTeacher(assistant.client).teach(
                {k: view[k] for k in ("stem", "item_type", "options", "units", "marks") if view.get(k)})
        except LLMError:
            return None
        return {"title": None, **written}

    def _generator(self, skill: str) -> SkillGenerator:
        try:
            return self.ctx.library.generator(skill)
        except LibraryError as exc:
            raise FlowError(str(exc)) from None

    def _pick_outcome(self, state: dict, recent: list[str], seed: str) -> str:
        source = self.ctx.source
        try:
            outcomes = suppliable_outcomes(source, state["subject"], state["level"])
        except NoQuestions as exc:
            raise FlowError(str(exc)) from None
        rng = random.Random(f"lesson|{state['student']}|{seed}")
        # This lesson's own earlier cards are not in the seen table yet, so they lead the recent list.
        recent = recent + sessions.recent_outcomes(self.ctx.store, state["student"])
        counts = sessions.outcome_counts(self.ctx.store, state["student"])
        for o in recent:
            counts[o] = counts.get(o, 0) + 1
        try:
            return choose_outcome(outcomes, recent, counts, rng)
        except NoQuestions as exc:
            raise FlowError(str(exc)) from None

    def _outcome_label(self, state: dict, outcome: Optional[str]) -> Optional[str]:
        if not (outcome and state["subject"] and state["level"]):
            return None
        try:
            spec = self.ctx.source.spec(state["subject"], state["level"])
        except NoQuestions:
            return None
        return next((o.label for o in spec.outcomes if o.id == outcome), None)
