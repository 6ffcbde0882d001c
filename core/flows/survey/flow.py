"""The survey flow: one question at a time, in order, with skip logic.

    start -> question --answer--> (skip logic) -> question ... -> ended
                      --skip (optional questions only)--> next question
                      --stop--> ended (abandoned)

The definition is copied into the session's first event, so editing the file
later does not change a survey already under way. Repeating an answer already
recorded (a double click, a second tab) is accepted and recorded once.

``answer`` and ``skip`` act on the question on screen; naming it
(``question_id``) is optional, and makes sure an answer meant for one question
is never taken as the answer to the next.
"""
from __future__ import annotations

from typing import Any, Optional

from core.flows.base import Flow, FlowError, Step
from core.flows.survey.answers import MAX_FREE_TEXT, _canonical, _same, check_answer, rule_matches
from core.flows.survey.definition import END, SurveyDefinition, SurveyQuestion
from core.flows.survey.loading import SurveyError, load_survey, survey_files


class SurveyFlow(Flow):
    kind = "survey"

    def new_state(self, session: dict) -> dict:
        cfg = session["config"] or {}
        if not cfg.get("survey_id"):
            known = ", ".join(sorted({p.stem for p in survey_files()})) or "none found"
            raise FlowError(f"a survey session needs a survey_id (surveys: {known}), e.g. survey_id=exit_ticket")
        context = cfg.get("context") or {}
        if not isinstance(context, dict):
            raise FlowError("a survey's context must be a mapping, such as {\"practice_session\": \"prac_...\"}")
        return {"student": session["student"], "survey_id": cfg["survey_id"], "context": context,
                "stage": "new", "definition": None, "current": None, "answers": {}, "skipped": [],
                "not_asked": [], "asked": 0}

    # ------------------------------------------------------------------
    def apply(self, state: dict, event: dict) -> None:
        p, t = event["payload"], event["type"]
        if t == "started":
            state["definition"] = p["definition"]
            state["stage"] = "question"
            state["current"] = p["first"]
        elif t in ("answered", "skipped"):
            if t == "answered":
                state["answers"][p["question_id"]] = p["answer"]
            else:
                state["skipped"].append(p["question_id"])
            state["not_asked"].extend(p.get("not_asked", []))
            state["current"] = p["next"]
            state["asked"] += 1
        elif t == "ended":
            state["stage"] = "ended"
            state["current"] = None

    def view(self, state: dict) -> dict:
        out = {"kind": self.kind, "stage": state["stage"], "survey_id": state["survey_id"],
               "context": state["context"]}
        d = state["definition"]
        if d is None:
            return out
        out.update({"title": d["title"], "description": d.get("description"), "answers": dict(state["answers"]),
                    "progress": {"answered": len(state["answers"]), "skipped": len(state["skipped"]),
                                 "not_asked": len(state["not_asked"]), "total": len(d["questions"])}})
        if state["stage"] == "question" and state["current"]:
            k = [q["question_id"] for q in d["questions"]].index(state["current"])
            q = d["questions"][k]
            out["question"] = {"question_id": q["question_id"], "text": q["text"], "question_type": q["question_type"],
                               "options": q["options"], "scale": q["scale"], "required": q["required"],
                               "number": k + 1, "max_length": MAX_FREE_TEXT if q["question_type"] == "free_text" else None}
            out["progress"]["position"] = k + 1
            # As a student counts them: the questions a rule leaves out are not counted (1 of 4, then 2 of 3).
            out["progress"]["step"] = len(state["answers"]) + len(state["skipped"]) + 1
            out["progress"]["steps"] = len(d["questions"]) - len(state["not_asked"])
        if state["stage"] == "ended":
            out["message"] = "Thank you: your answers have been saved."
        return out

    # ------------------------------------------------------------------
    def cmd_start(self, state: dict) -> Step:
        if state["stage"] != "new":
            return Step()
        try:
            survey = load_survey(state["survey_id"])
        except SurveyError as exc:
            raise FlowError(f"the survey cannot be used: {exc}") from None
        step = Step().add("started", survey_id=survey.survey_id, version=survey.version, title=survey.title,
                          context=state["context"], first=survey.questions[0].question_id,
                          definition=survey.model_dump(mode="json", by_alias=True))
        return step

    def cmd_answer(self, state: dict, answer: Any = None, question_id: Optional[str] = None) -> Step:
        """Answer the question on screen (``question_id`` may name it, and must then be that question)."""
        survey = self._survey(state)
        if question_id is None:
            if state["stage"] == "ended":
                raise FlowError("this survey has finished; thank you")
            question_id = state["current"]
        q = self._on_screen(state, survey, question_id, answer)
        if q is None:
            return Step()  # the same answer again (double click, second tab): recorded once
        value = check_answer(q, answer)
        nxt, not_asked, rule = self._after(survey, q, value)
        step = Step().add("answered", question_id=q.question_id, question_type=q.question_type, text=q.text,
                          answer=value, next=nxt, not_asked=not_asked, rule=rule)
        return self._maybe_end(step, state, nxt, answered=1, skipped=0)

    def cmd_skip(self, state: dict, question_id: Optional[str] = None) -> Step:
        survey = self._survey(state)
        if question_id is not None and question_id in state["skipped"]:
            return Step()  # skipped already (a repeated click)
        if state["stage"] == "ended":
            raise FlowError("this survey has finished; there is nothing to skip")
        q = survey.question(question_id or state["current"])
        self._on_screen(state, survey, q.question_id, None)
        if q.required:
            raise FlowError("this question needs an answer and cannot be skipped")
        # No answer means no skip rule on this question can fire: carry on in order.
        nxt, not_asked, _ = self._after(survey, q, None)
        step = Step().add("skipped", question_id=q.question_id, next=nxt, not_asked=not_asked)
        return self._maybe_end(step, state, nxt, answered=0, skipped=1)

    def cmd_stop(self, state: dict) -> Step:
        if state["stage"] == "ended":
            return Step()
        step = Step().add("ended", reason="stopped", answered=len(state["answers"]), skipped=len(state["skipped"]))
        # Stopped part-way: the answers given are kept, but the survey was not completed.
        step.status = "abandoned"
        return step

    # ------------------------------------------------------------------
    def _survey(self, state: dict) -> SurveyDefinition:
        if state["stage"] == "new":
            raise FlowError("the survey has not started yet; start it first")
        return SurveyDefinition.model_validate(state["definition"])

    def _on_screen(self, state: dict, survey: SurveyDefinition, question_id: str,
                   answer: Any) -> Optional[SurveyQuestion]:
        """The question if it is the one on screen; None for a repeat of an answer already recorded."""
        q = survey.question(question_id)
        if question_id in state["answers"]:
            if answer is not None and _same(state["answers"][question_id], _canonical(q, answer)):
                return None
            raise FlowError("that question has already been answered; answer the question on screen")
        if state["stage"] == "ended":
            raise FlowError("this survey has finished; thank you")
        if question_id in state["not_asked"]:
            raise FlowError("that question does not apply after your earlier answers")
        if question_id in state["skipped"]:
            raise FlowError("that question was skipped; answer the question on screen")
        if question_id != state["current"]:
            raise FlowError("that question is not on screen yet; answer the question on screen")
        return q

    @staticmethod
    def _after(survey: SurveyDefinition, q: SurveyQuestion, value: Any) -> tuple[Optional[str], list[str], Optional[int]]:
        """(next question id or None at the end, questions jumped over, the rule that fired)."""
        ids = [x.question_id for x in survey.questions]
        k = ids.index(q.question_id)
        for n, rule in enumerate(survey.skip_logic):
            if rule.if_.question == q.question_id and rule_matches(rule.if_, value):
                stop = len(ids) if rule.skip_to == END else ids.index(rule.skip_to)
                return (None if rule.skip_to == END else rule.skip_to), ids[k + 1:stop], n
        return (ids[k + 1] if k + 1 < len(ids) else None), [], None

    @staticmethod
    def _maybe_end(step: Step, state: dict, nxt: Optional[str], answered: int, skipped: int) -> Step:
        """End the survey in the same step when nothing is left to ask (counts include this step's question)."""
        if nxt is None:
            step.add("ended", reason="completed", answered=len(state["answers"]) + answered,
                     skipped=len(state["skipped"]) + skipped)
            step.status = "completed"
        return step
