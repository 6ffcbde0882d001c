"""A conversation with the tutor about one course (seed 002's THOUGHT session: the student drives).

    start -> open --say--> waiting --reply--> open ...
                  --practice (or the tutor asks for one)--> question --answer--> waiting (the tutor sees the
                                                                    outcome) --reply--> open
                                                           question --skip--> open

Every message is an event, stored before the page moves on: the student's
message (``said``) is stored by its own command before the tutor is asked
(``reply``), so a tutor that fails, or a server that stops while it thinks,
loses nothing and the reply can be asked for again. The tutor sees the course,
a summary of the older messages (itself an event, ``summarised``) and the
newer ones verbatim (``core.llm.chat``).

A practice question is drawn and marked by core exactly as in practice: the
model only asks for one (with an outcome or a skill); the key stays with the
item, out of the view and out of what the model is told, until the answer is
marked. The answer is a ``responses`` row and moves mastery like any other.
"""
from __future__ import annotations

import random
from typing import Any, Optional

from core.flows import preview
from core.flows.base import Flow, FlowError, Step
from core.flows.fetch import fetch_question
from core.flows.remediation import diagnose
from core.items.generator import Item
from core.items.sampler import GenerationError
from core.items.sources import NoQuestions, stem_key
from core.llm import LLMError, MalformedReply
from core.llm import chat
from core.school.courses import home_course
from core.flows.practice import answer_evidence
from core.store import Store, school, sessions

WAITS_FOR_TUTOR = ("student", "result")     # entries the tutor answers
SKILL_TRIES = 8                             # fresh draws from a named skill before a repeat is accepted
RESULT_FIELDS = ("item_id", "number", "stem", "answer", "given", "correct", "score", "max_score", "feedback",
                 "correct_answer", "explanation", "remediation", "reading", "steps", "judged")


class ChatFlow(Flow):
    kind = "chat"

    def new_state(self, session: dict) -> dict:
        cfg = session["config"]
        return {
            "student": session["student"], "subject": cfg.get("subject"), "level": cfg.get("level"),
            "approved_only": bool(cfg.get("approved_only")), "seed": str(cfg.get("seed", session["id"])),
            "stage": "new", "messages": [], "summary": None, "current": None, "posed": 0, "answered": 0,
            "correct": 0, "used": [], "mastery": {},
        }

    # ------------------------------------------------------------------
    def apply(self, state: dict, event: dict) -> None:
        p, t = event["payload"], event["type"]
        messages = state["messages"]
        if t == "opened":
            state["subject"], state["level"] = p["subject"], p["level"]
            state["stage"] = "open"
        elif t == "said":
            messages.append({"role": "student", "text": p["text"], "t": p.get("t")})
        elif t == "replied":
            messages.append({"role": "tutor", "text": p["text"], "t": p.get("t")})
        elif t == "posed":
            messages.append({"role": "question", "item_id": p["item_id"], "outcome_id": p["outcome_id"],
                             "number": p["number"], "question": p["view"], "asked_by": p.get("asked_by")})
            state["current"] = p
            state["stage"] = "question"
            state["posed"] += 1
            state["used"] += [p["content_key"], p["stem_key"]]
        elif t == "answered":
            messages.append({"role": "result", **{k: p.get(k) for k in RESULT_FIELDS}})
            state["current"] = None
            state["stage"] = "open"
            state["answered"] += 1
            state["correct"] += int(bool(p["correct"]))
            state["mastery"].update(p.get("mastery") or {})
        elif t == "skipped":
            messages.append({"role": "skipped", "item_id": p["item_id"], "number": p["number"]})
            state["current"] = None
            state["stage"] = "open"
        elif t == "no_question":
            messages.append({"role": "notice", "text": p["text"]})
        elif t == "summarised":
            state["summary"] = {"text": p["text"], "upto": p["upto"]}

    def view(self, state: dict) -> dict:
        """The conversation as the student may see it: a question's key only in its result, after the answer."""
        messages = []
        for entry in state["messages"]:
            shown = dict(entry)
            if entry["role"] == "question":
                shown["open"] = bool(state["current"]) and state["current"]["item_id"] == entry["item_id"]
            messages.append(shown)
        out = {"kind": self.kind, "stage": state["stage"], "subject": state["subject"], "level": state["level"],
               "title": chat.title(first_said(state)), "messages": messages, "waiting": waiting(state),
               "stats": {"posed": state["posed"], "answered": state["answered"], "correct": state["correct"]}}
        cur = state["current"]
        if cur:
            out["question"] = {**cur["view"], "number": cur["number"], "outcome_id": cur["outcome_id"]}
        return out

    # ------------------------------------------------------------------
    def cmd_start(self, state: dict) -> Step:
        if state["stage"] != "new":
            return Step()
        self._tutor()   # no conversation without a tutor to talk to
        subject, level = state["subject"], state["level"]
        if not subject or not level:
            try:
                subject, level = home_course(self.ctx.store, self.ctx.library, state["student"])
            except ValueError as exc:
                raise FlowError(str(exc)) from None
        try:
            spec = self.ctx.source.spec(subject, level)
        except NoQuestions as exc:
            raise FlowError(str(exc)) from None
        return Step().add("opened", subject=spec.subject, level=spec.level)

    def cmd_say(self, state: dict, text: str) -> Step:
        """The student's message, stored before the tutor is asked (``reply``)."""
        self._tutor()
        text = (text or "").strip()
        if not text:
            raise FlowError("type a message for the tutor first")
        if len(text) > chat.MAX_MESSAGE:
            raise FlowError(f"a message to the tutor may be at most {chat.MAX_MESSAGE} characters; "
                            f"this one has {len(text)}")
        last = state["messages"][-1] if state["messages"] else None
        if last and last["role"] == "student" and last["text"] == text and waiting(state):
            return Step()   # the same message again while it waits (a double press, a second tab): kept once
        return Step().add("said", text=text, t=self.ctx.clock())

    def cmd_reply(self, state: dict) -> Step:
        """The tutor answers what waits for it (a message, an answer marked); nothing when nothing waits."""
        tutor = self._tutor()
        if not waiting(state):
            return Step()
        step = Step()
        course = self._course(state)
        entries = state["messages"]
        summary = state["summary"]["text"] if state["summary"] else None
        upto = state["summary"]["upto"] if state["summary"] else 0
        fold = chat.to_fold(len(entries), upto)
        if fold is not None:
            try:
                summary = tutor.summarise(course, summary, entries[upto:fold])
                step.add("summarised", text=summary, upto=fold)
                upto = fold
            except MalformedReply:
                pass    # the older messages go verbatim until a summary succeeds
            except LLMError as exc:
                raise FlowError(chat.failed(exc)) from None
        try:
            answer = tutor.reply(course, summary, entries[upto:])
        except LLMError as exc:
            step.refuse = chat.failed(exc)   # a summary just made is kept all the same
            return step
        step.add("replied", text=answer.reply, practice=answer.practice, outcome_id=answer.outcome_id,
                 skill_id=answer.skill_id, t=self.ctx.clock())
        if answer.practice and state["current"] is None:
            try:
                self._pose(state, step, answer.outcome_id, answer.skill_id, "tutor")
            except NoQuestions as exc:
                step.add("no_question", text=str(exc))
        return step

    def cmd_practice(self, state: dict, outcome: Optional[str] = None, skill: Optional[str] = None) -> Step:
        """A practice question the student asked for (the course's, or an outcome's or a skill's)."""
        if state["stage"] == "new":
            raise FlowError("this conversation has not started; start a new one")
        if state["current"] is not None:
            raise FlowError("answer or skip the practice question on screen first")
        step = Step()
        try:
            self._pose(state, step, outcome, skill, "student", strict=True)
        except NoQuestions as exc:
            raise FlowError(str(exc)) from None
        return step

    def cmd_answer(self, state: dict, item_id: str, answer: Any, time_ms: Optional[int] = None) -> Step:
        cur = state["current"]
        if cur is None:
            done = [m for m in state["messages"] if m["role"] == "result" and m["item_id"] == item_id]
            if done and done[-1]["given"] == answer:
                return Step()   # the same answer again (a double press, a second tab): recorded once
            raise FlowError("there is no practice question waiting for an answer")
        if cur["item_id"] != item_id:
            raise FlowError("that answer is for a question that is no longer on screen; answer the current question")
        item = self.item(item_id)
        diag = diagnose(item, answer, self.ctx.source, seed=f"{state['seed']}/{cur['number']}",
                        avoid=set(state["used"]), similar=False, tutor=False, decimal_comma=self.decimal_comma(state))
        mark = diag.mark
        reading = preview.from_mark(mark, diag.answer_text)
        if not mark.valid:
            # Not read, so not an attempt: nothing is stored and the question stays for a corrected answer.
            return Step(reply={"reading": {**reading, "item_id": item_id}})
        if time_ms is None and cur.get("t"):
            time_ms = int(max(0.0, self.ctx.clock() - cur["t"]) * 1000)
        # The skill's mastery and the outcome's ability move as in practice (no skill fits: only the ability).
        evidence = answer_evidence(self.ctx, state["student"], item, cur["outcome_id"], mark.correct, time_ms,
                                   state["mastery"])
        step = evidence.add_to(Step())
        step.add("answered", item_id=item_id, number=cur["number"], outcome_id=cur["outcome_id"],
                 answer=diag.answer_text, given=answer, correct=mark.correct, score=mark.score,
                 max_score=mark.max_score, feedback=mark.feedback, misconception=mark.misconception,
                 gap_tags=diag.gap_tags, remediation=diag.remediation, correct_answer=item.shown_answer,
                 explanation=item.explanation, stem=item.stem, time_ms=time_ms, judged=diag.judged,
                 mastery=evidence.mastery, ability=evidence.ability, note=evidence.note, reading=reading,
                 steps=diag.steps, t=self.ctx.clock())
        step.responses.append({"item_id": item_id, "answer": diag.answer_text, "correct": mark.correct,
                               "score": mark.score, "max_score": mark.max_score, "time_taken_ms": time_ms,
                               "attempt": 1, "step_answers": diag.step_answers})
        return step

    def cmd_skip(self, state: dict) -> Step:
        cur = state["current"]
        if cur is None:
            raise FlowError("there is no practice question to skip")
        return Step().add("skipped", item_id=cur["item_id"], number=cur["number"])

    # ------------------------------------------------------------------
    def _tutor(self) -> chat.ChatTutor:
        assistant = self.ctx.source.llm
        client = getattr(assistant, "client", None)
        if client is None:
            raise FlowError(chat.NEEDS_LLM)
        return chat.ChatTutor(client)

    def _course(self, state: dict) -> dict:
        return chat.course_brief(self.ctx.library, state["subject"], state["level"])

    def _pose(self, state: dict, step: Step, outcome: Optional[str], skill: Optional[str], asked_by: str,
              strict: bool = False) -> None:
        """Draw a question and put it to the student; NoQuestions when none can be drawn.

        An outcome or skill the model names that is not in the course is passed over (the course's own choice
        is drawn); one the student names (``strict``) is refused."""
        subject, level = state["subject"], state["level"]
        known = {o.id for o in self.ctx.source.spec(subject, level).outcomes}
        skills = {s["id"]: o["id"] for o in self._course(state)["outcomes"] for s in o["skills"]}
        if outcome is not None and outcome not in known:
            if strict:
                raise NoQuestions(f"outcome {outcome} is not in the {subject} {level} course; "
                                  f"outcomes: {', '.join(sorted(known))}")
            outcome = None
        if skill is not None and skill not in skills:
            if strict:
                raise NoQuestions(f"there is no skill {skill} in the {subject} {level} course")
            skill = None
        number = state["posed"] + 1
        seed = f"{state['seed']}/{number}"
        avoid = set(state["used"])
        approved_only = state["approved_only"] or school.approved_only_for(self.ctx.store, state["student"])
        if skill is not None and not approved_only:
            item = self._from_skill(state["student"], skill, seed, avoid)
            outcome_id, route = (outcome if outcome in item.outcome_ids else skills[skill]), "generated"
        else:
            fetched = fetch_question(self.ctx.source, state["student"], subject, level, seed,
                                     target_outcome=outcome, avoid=avoid, approved_only=approved_only)
            item, outcome_id, route = fetched.item, fetched.outcome_id, fetched.route
        self.see(step, item, outcome_id)
        step.add("posed", item_id=item.id, outcome_id=outcome_id, route=route, number=number, asked_by=asked_by,
                 content_key=item.content_key, stem_key=stem_key(item), view=item.student_view(), t=self.ctx.clock())

    def _from_skill(self, student: str, skill: str, seed: str, avoid: set[str]) -> Item:
        """A fresh item from one skill blueprint, at a level drawn by seed, unseen by the student where possible."""
        gen = self.ctx.library.generator(skill)
        seen_content, seen_stems = self.ctx.source.seen(student)
        avoid = avoid | seen_content | seen_stems
        rng = random.Random(f"chat|{student}|{skill}|{seed}")
        item: Optional[Item] = None
        for k in range(SKILL_TRIES):
            try:
                item = gen.generate(rng.choice(gen.cs.levels), f"{student}|{seed}/{k}")
            except GenerationError as exc:
                raise NoQuestions(f"skill {skill}: {exc}") from None
            if item.content_key not in avoid and stem_key(item) not in avoid:
                break
        assert item is not None
        return item


def waiting(state: dict) -> bool:
    """Whether the newest message or marked answer still waits for the tutor (a question set since is no reply)."""
    for entry in reversed(state["messages"]):
        if entry["role"] == "question":
            continue
        return entry["role"] in WAITS_FOR_TUTOR
    return False


def first_said(state: dict) -> Optional[str]:
    return next((m["text"] for m in state["messages"] if m["role"] == "student"), None)


def conversations(store: Store, student: str, limit: int = 50) -> list[dict]:
    """The student's conversations with the tutor, the most recently active first, titled by their first message."""
    out = []
    for row in sessions.sessions_by_activity(store, student, ChatFlow.kind, "said", limit):
        cfg = row["config"]
        out.append({"id": row["id"], "title": chat.title((row["first"] or {}).get("text")) or "(no messages yet)",
                    "subject": cfg.get("subject"), "level": cfg.get("level"), "messages": row["count"],
                    "last_at": row["last_at"] or row["created_at"], "status": row["status"]})
    return out

