"""Mock exams (ExamAssessmentGraph).

    start: build_blueprint -> fill_slots -> assemble_exam -> delivered
    save (answers as typed) ... submit (or the time limit passes) -> marked -> remediated -> ended
    then, with an LLM, in the background: judge (the written answers, for meaning) -> judged
    then, by a teacher: override (one question's mark, with a reason) -> overridden; remark -> remarked;
    judge (sittings handed in while no LLM was set up) -> judged

The blueprint comes from the course spec and is planned and filled in
``core.flows.exam_plan``: each section's marks are split exactly into questions
of their own marks, no skill more than the spec allows per paper, with novelty
across all this student's sessions, and non-calculator sections only take
questions that need no calculator. The student sees no key and no
feedback until the exam is submitted; the server enforces the time limit.
Written answers are marked by their key points at hand-in, and judged for
meaning afterwards when an LLM is set up (``core.flows.judging``); the model
sees nothing while the paper is open.
"""
from __future__ import annotations

import copy
from typing import Any, Callable, Optional

from core.flows import judging, preview, sitting
from core.flows.remediation import diagnose, marking_spec
from core.flows.base import Flow, FlowError, Step
from core.flows.exam_plan import (DrawnQuestion, Offer, assemble_sections, available_marks, by_hand,  # noqa: F401
                                  exam_instructions, format_name, plan_section, topic_of)
from core.flows.fetch import fetch_question
from core.flows.marks import (SQA_GRADES, checked_marks, counted_marks, grade_for, judge_marking,  # noqa: F401
                              marks_out_of, missed, override_question, remarked, response_row, same_marking)
from core.items.generator import Item
from core.items.sources import NoQuestions
from core.marking import INTERNAL_ERROR, MarkingSpec, MarkingSpecError, spec_key_problem
from core.store import repo, school

GRACE_SECONDS = 5.0   # answers in flight when the clock runs out still count
UNMARKED = "This question could not be marked, so it does not count towards your total; your teacher can see why."


def _label(question: dict) -> str:
    """A question as the paper prints it: "5(a)", or its number (exams sat before papers had parts)."""
    return str(question.get("label") or question["number"])


def _answered(answer: Any) -> bool:
    """Whether anything was written: in the answer, or in any step of an answer given step by step."""
    if isinstance(answer, dict):
        return any(v is not None and str(v).strip() for v in answer.values())
    return answer is not None and bool(str(answer).strip())


class ExamFlow(Flow):
    kind = "exam"

    def new_state(self, session: dict) -> dict:
        cfg = session["config"]
        for field in ("subject", "level"):
            if not cfg.get(field):
                raise FlowError(f"a mock exam needs a {field}")
        return {"student": session["student"], "subject": cfg["subject"], "level": cfg["level"],
                "seed": str(cfg.get("seed", session["id"])), "exam_count": int(cfg.get("exam_count", 1)),
                "time_limit_minutes": cfg.get("time_limit_minutes"), "session_id": session["id"],
                # An assigned paper is the same for the whole class: novelty is judged for the
                # paper, not the student, so every student's assembly draws the same questions.
                "paper_key": cfg.get("paper_key"), "assignment_id": cfg.get("assignment_id"),
                "approved_only": bool(cfg.get("approved_only")), "format": format_name(cfg.get("format")),
                "stage": "new", "package": None, "saved": {}, "readings": {}, "marking": None, "deadline": None,
                "remediation": None,
                # per question, how many times its answer was saved: a page sends the version it last saw
                "versions": {}, "started_at": None, "late": []}

    def apply(self, state: dict, event: dict) -> None:
        p, t = event["payload"], event["type"]
        if t == "delivered":
            state["stage"] = "sitting"
            state["package"] = p["package"]
            state["deadline"] = p["deadline"]
            state["started_at"] = p.get("t")
        elif t == "saved":
            state["saved"][p["item_id"]] = p["answer"]
            state.setdefault("readings", {})[p["item_id"]] = p.get("reading")
            versions = state.setdefault("versions", {})
            versions[p["item_id"]] = versions.get(p["item_id"], 0) + 1
        elif t == "late":
            state.setdefault("late", []).append(p)
        elif t == "marked":
            state["stage"] = "marked"
            state["marking"] = p
        elif t == "remediated":
            state["stage"] = "reviewed"
            state["remediation"] = p["remediation"]
        elif t == "overridden":
            override_question(state["marking"], p)
        elif t == "remarked":
            state["marking"] = copy.deepcopy(p["marking"])
        elif t == "judged":
            judge_marking(state["marking"], p)

    def view(self, state: dict) -> dict:
        out = {"kind": self.kind, "stage": state["stage"], "subject": state["subject"], "level": state["level"],
               "assigned": bool(state.get("assignment_id"))}
        pkg = state["package"]
        marking = state["marking"]
        if marking:
            held = sitting.held(self.ctx, state, marking.get("t"), bool(marking.get("expired")), self._deadline(state))
            if held is not None:
                # Handed in, results not released yet: that it was handed in and when results come, nothing more
                # (no marks, answers, keys, explanations, feedback or remediation).
                out["held"] = held
                if pkg:
                    out["exam"] = {k: pkg[k] for k in ("exam_id", "session_id", "subject", "level", "total_marks",
                                                       "question_count", "time_allowed_minutes") if k in pkg}
                return out
        if pkg:
            out["exam"] = pkg
            out["answers"] = dict(state["saved"])
            if state["stage"] == "sitting":
                deadline = self._deadline(state)
                out["versions"] = dict(state.get("versions", {}))
                out["time_remaining_seconds"] = max(0, int(deadline - self.ctx.clock())) if deadline else None
                out["extra_minutes"] = sitting.extra_minutes(self.ctx, state)
                out["readings"], out["unreadable"] = self._readings(state)
        if marking:
            out["results"] = marking
            if marking.get("expired"):
                out["time_up"] = sitting.time_up(self._deadline(state))
        if state["remediation"] is not None:
            out["remediation"] = state["remediation"]
        return out

    def tick(self, state: dict) -> Optional[Step]:
        if state["stage"] == "sitting":
            deadline = self._deadline(state)
            if deadline and self.ctx.clock() > deadline + GRACE_SECONDS:
                judging.judge_later(self.ctx, state["session_id"])   # once the marking is stored
                return sitting.stamp_marking(self._mark(state, expired=True), "marked", True, deadline)
        return None

    def prepare(self, state: dict, pause: Callable[[], None]) -> None:
        """The paper drawn ahead (its items are kept by the generators), when its seed is known before the start:
        an assigned paper's, or one the page chose; a paper seeded by its new session's id cannot be."""
        if state["seed"]:
            self.assemble(state, lambda done, total: pause())

    def to_mark(self, state: dict) -> list[str]:
        if state["stage"] != "sitting" or not state["package"]:
            return []
        return [q["id"] for s in state["package"]["sections"] for q in s["questions"]]

    # ------------------------------------------------------------------
    def cmd_start(self, state: dict) -> Step:
        if state["stage"] != "new":
            return Step()
        sitting.check_start(self.ctx, state)   # an assignment's window and attempts
        return self.assemble(state)

    def assemble(self, state: dict, progress: Optional[Callable[[int, int], None]] = None) -> Step:
        source = self.ctx.source
        student = state.get("paper_key") or state["student"]
        try:
            spec = source.spec(state["subject"], state["level"])
        except NoQuestions as exc:
            raise FlowError(str(exc)) from None
        approved_only = bool(state.get("approved_only")) or school.approved_only_for(self.ctx.store, state["student"])
        fmt = state.get("format") or None
        try:
            drawn = assemble_sections(source, spec, student, state["seed"], state["exam_count"], approved_only,
                                      progress=progress, exam_format=fmt)
            instructions = exam_instructions(spec, fmt)
        except NoQuestions as exc:
            raise FlowError(str(exc)) from None
        step = Step()
        sections = []
        for part in drawn:
            section, questions = part["section"], []
            for q in part["questions"]:
                self.see(step, q.item, q.outcome_id)
                # number: the answer slot (marking and results key on it); question, part, label: as printed
                question = {**q.item.student_view(), "number": q.number, "question": q.question, "part": q.part,
                            "label": q.label, "outcome_id": q.outcome_id, "marks": q.marks,
                            "section": section.section}
                if q.marked_out_of is not None:
                    question["marked_out_of"] = q.marked_out_of
                questions.append(question)
            sections.append({"section": section.section, "calculator_allowed": section.calculator_allowed,
                             "marks": section.marks, "time_allowed_minutes": section.time_allowed_minutes,
                             "questions": questions, "outcomes_without_questions": part["missing"]})
        minutes = state["time_limit_minutes"] or sum(s["time_allowed_minutes"] for s in sections)
        # Every sitting has an id of its own: an assigned paper's names the assignment and the student.
        owner = (f"{state['assignment_id']}_{state['student']}" if state.get("assignment_id")
                 else f"{spec.subject}_{spec.level}")
        package = {
            "exam_id": f"{owner}_{state['session_id']}".replace(" ", "_"),
            "session_id": state["session_id"], "subject": spec.subject, "level": spec.level,
            "course_title": spec.title or f"{spec.subject} {spec.level}", "format": fmt or "full",
            "total_marks": sum(q["marks"] for s in sections for q in s["questions"]),
            "question_count": sum(len(s["questions"]) for s in sections), "sections": sections,
            "time_allowed_minutes": minutes, "instructions": instructions,
            "formulae": [f.model_dump() for f in spec.formulae],
        }
        step.add("delivered", package=package, deadline=self.ctx.clock() + minutes * 60)
        return step

    def cmd_save(self, state: dict, item_id: str, answer: Any, base_version: Optional[int] = None) -> Step:
        """Keep an answer as it is typed, so a reload loses nothing.

        ``base_version`` is the version of this answer (how many times it was saved) the page last showed:
        a save from a page that missed a newer, different answer (another tab) is refused with AnswerConflict,
        so the student chooses. After time ran out, a save is recorded as late and refused.
        """
        if self._timed_out(state):
            return sitting.late(self.ctx, self._deadline(state), "save", item_id=item_id, answer=answer)
        self._check_sitting(state)
        question = self._questions(state).get(item_id)
        if question is None:
            raise FlowError("that question is not part of this exam")
        saved = state["saved"].get(item_id)
        sitting.save_conflict(question.get("label") or question["number"], item_id, saved,
                              state.get("versions", {}).get(item_id, 0), answer, base_version)
        if saved == answer:
            return Step()
        return Step().add("saved", item_id=item_id, answer=answer, reading=self._read(state, item_id, answer))

    def cmd_submit(self, state: dict, answers: Optional[dict] = None, base_versions: Optional[dict] = None) -> Step:
        """Hand in: the saved answers are marked.

        ``answers`` is for callers that do not save as they go (a simulated class, the command line): an answer
        is kept only where nothing newer is saved (no save at all, or with ``base_versions`` the version given),
        so a stale copy never overwrites a newer saved answer.
        """
        if self._timed_out(state):
            return sitting.late(self.ctx, self._deadline(state), "submit", answers=answers)
        if state["stage"] in ("marked", "reviewed"):
            return Step()  # submitted already: marking happens once
        self._check_sitting(state)
        step = Step()
        ids = self._question_ids(state)
        versions = state.setdefault("versions", {})
        for item_id, answer in (answers or {}).items():
            if item_id not in ids:
                raise FlowError("an answer was given for a question that is not part of this exam")
            if versions.get(item_id, 0) > int((base_versions or {}).get(item_id, 0)):
                continue   # saved since the caller's copy was made: the saved answer stands
            if state["saved"].get(item_id) != answer:
                step.add("saved", item_id=item_id, answer=answer, reading=self._read(state, item_id, answer))
                state["saved"][item_id] = answer
                versions[item_id] = versions.get(item_id, 0) + 1
        marked = sitting.stamp_marking(self._mark(state, expired=False), "marked", False, self._deadline(state))
        step.events += marked.events
        step.responses += marked.responses
        step.items += marked.items
        step.status = marked.status
        judging.judge_later(self.ctx, state["session_id"])   # in the background, once the marking is stored
        return step

    # ------------------------------------------------------------------
    def _questions(self, state: dict) -> dict[str, dict]:
        return {q["id"]: q for s in state["package"]["sections"] for q in s["questions"]} if state["package"] else {}

    def _read(self, state: dict, item_id: str, answer: Any) -> Optional[dict]:
        """How a typed answer is read, kept with it when saved (a choice of option has nothing to read)."""
        question = self._questions(state).get(item_id)
        if question is None or question["options"]:
            return None
        try:
            found = preview.preview(self.item(item_id), answer, self.decimal_comma(state))
        except MarkingSpecError:
            # The question's own key cannot be read: the answer is kept as typed, and marking leaves the question out.
            found = preview.reading(answer, None if answer is None else str(answer), None, True, None)
        found.pop("answer", None)   # the answer is in the event already
        return found

    def _readings(self, state: dict) -> tuple[dict[str, dict], list[int]]:
        """Each saved typed answer's reading, and the numbers of the questions whose answers cannot be read.

        An unreadable answer is kept as typed and, if it is handed in like that, marked as it stands;
        the numbers let the page say so before hand-in.
        """
        questions = self._questions(state)
        readings: dict[str, dict] = {}
        for item_id, answer in state["saved"].items():
            question = questions.get(item_id)
            if question is None or question["options"]:
                continue
            found = state.get("readings", {}).get(item_id)
            if found is None:   # saved before answers were read on saving
                found = self._read(state, item_id, answer)
            readings[item_id] = found
        unreadable = sorted(questions[i]["number"] for i, r in readings.items()
                            if r and not r["empty"] and not r["valid"])
        return readings, unreadable

    def _question_ids(self, state: dict) -> set[str]:
        return {q["id"] for s in state["package"]["sections"] for q in s["questions"]} if state["package"] else set()

    def _deadline(self, state: dict) -> Optional[float]:
        """When time runs out (epoch seconds): for an assignment, as it stands now (closed early, extra time)."""
        pkg = state["package"]
        return sitting.deadline(self.ctx, state, state.get("started_at"),
                                pkg.get("time_allowed_minutes") if pkg else None, state["deadline"])

    def _timed_out(self, state: dict) -> bool:
        """Marked because time ran out before the student handed in: whatever they send now is late."""
        return state["stage"] in ("marked", "reviewed") and bool((state["marking"] or {}).get("expired"))

    def _check_sitting(self, state: dict) -> None:
        if state["stage"] == "new":
            raise FlowError("the exam has not started")
        if state["stage"] != "sitting":
            raise FlowError("this exam has been submitted; answers can no longer change")
        deadline = self._deadline(state)
        if deadline and self.ctx.clock() > deadline + GRACE_SECONDS:
            raise FlowError(sitting.time_up(deadline))

    def _mark(self, state: dict, expired: bool, remediate: bool = True) -> Step:
        step = Step()
        per_question = {}
        gap_outcomes: list[str] = []
        lost: dict[str, float] = {}   # marks lost on each outcome
        notes: list[str] = []   # for the teacher: questions that could not be marked
        comma = self.decimal_comma(state)
        awarded = total = 0.0
        section_results = []
        stored = repo.load_items(self.ctx.store, [q["id"] for s in state["package"]["sections"]
                                                 for q in s["questions"]])   # one query for the paper
        for section in state["package"]["sections"]:
            s_awarded = s_total = 0.0
            for q in section["questions"]:
                answer = state["saved"].get(q["id"], "")
                item, spec, diag, problem = self._marked(q["id"], answer, comma, stored.get(q["id"]))
                if problem is not None:
                    # Left out of the total (out of 0 marks): a question that cannot be marked costs the student
                    # nothing, and the rest of the exam is marked as usual.
                    notes.append(f"Question {_label(q)} ({q['id']}, {q['marks']} mark(s)) could not be marked: "
                                 f"{problem}. It is left out of the total; correct or reject it on the Review page.")
                    per_question[q["id"]] = {"number": q["number"], "label": _label(q), "correct": None,
                                             "marks_awarded": 0.0,
                                             "marks": 0.0, "marks_left_out": float(q["marks"]), "gap_tags": [],
                                             "answer": answer, "correct_answer": item.shown_answer if item else "",
                                             "feedback": UNMARKED, "outcome_id": q["outcome_id"],
                                             "explanation": item.explanation if item else "", "unmarked": problem}
                    continue
                assert item is not None and spec is not None and diag is not None
                mark = diag.mark
                out_of = float(q["marks"])
                score = mark.score * out_of / mark.max_score if mark.max_score else 0.0
                if "marked_out_of" in q:
                    score = float(int(score))  # whole marks, as a marker would give them
                per_question[q["id"]] = {"number": q["number"], "label": _label(q), "correct": mark.correct,
                                         "marks_awarded": score,
                                         "marks": out_of, "gap_tags": diag.gap_tags,
                                         "answer": answer if diag.steps is None else diag.answer_text,
                                         "correct_answer": item.shown_answer, "feedback": mark.feedback,
                                         "outcome_id": q["outcome_id"], "explanation": item.explanation,
                                         # how a typed answer was read (a chosen option has nothing to read)
                                         "read_as": None if q["options"] else mark.read_as,
                                         "read_as_latex": None if q["options"] else mark.read_as_latex,
                                         "unreadable": _answered(answer) and not mark.valid,
                                         # marked by key points now; the LLM judge may read it for meaning later
                                         "written": judging.is_written(spec)}
                if diag.steps is not None:
                    # Answered step by step: each step's marks (scaled with the question's), and what was written.
                    scale = out_of / mark.max_score if mark.max_score else 1.0
                    per_question[q["id"]]["steps"] = [{**st, "awarded": st["awarded"] * scale,
                                                       "marks": st["marks"] * scale} if scale != 1.0 else st
                                                      for st in diag.steps]
                step.responses.append({"item_id": q["id"], "answer": diag.answer_text, "correct": mark.correct,
                                       "score": score, "max_score": out_of, "attempt": 1,
                                       "step_answers": diag.step_answers})
                s_awarded += score
                s_total += out_of
                if not mark.correct and q["outcome_id"] not in gap_outcomes:
                    gap_outcomes.append(q["outcome_id"])
                lost[q["outcome_id"]] = lost.get(q["outcome_id"], 0.0) + out_of - score
            section_results.append({"section": section["section"], "marks_awarded": s_awarded, "marks": s_total,
                                    "percent": round(100 * s_awarded / s_total, 1) if s_total else 0.0})
            awarded += s_awarded
            total += s_total
        percent = round(100 * awarded / total, 1) if total else 0.0
        gap_outcomes.sort(key=lambda outcome: -lost.get(outcome, 0.0))   # the most marks lost first, then paper order
        step.add("marked", questions=per_question, marks_awarded=awarded, total_marks=total, percent=percent,
                 grade=grade_for(percent), sections=section_results, gap_outcomes=gap_outcomes, expired=expired,
                 notes=notes)
        if remediate:
            step.events += self._remediate(state, gap_outcomes, step, per_question).events
        step.status = "completed"
        return step

    def _marked(self, item_id: str, answer: Any, comma: bool = False, item: Optional[Item] = None
                ) -> tuple[Optional[Item], Optional[MarkingSpec], Any, Optional[str]]:
        """(item, its marking spec, diagnosis, None), or (item or None, None, None, why the question cannot be
        marked); ``item`` when already loaded. The spec is built once: marking, the key's check and whether the
        answer is written all read it."""
        try:
            item = item or self.item(item_id)
        except FlowError as exc:
            return None, None, None, str(exc)
        try:
            spec = marking_spec(item)
            diag = diagnose(item, answer, None, similar=False, decimal_comma=comma, spec=spec)
        except MarkingSpecError as exc:
            return item, None, None, f"its answer key cannot be read ({str(exc).rstrip('.')})"
        except Exception as exc:  # deliberately broad: one broken question must not stop the exam being marked
            return item, None, None, f"marking it failed ({type(exc).__name__}: {exc})"
        if diag.mark.refused == INTERNAL_ERROR:
            return item, None, None, "the marker failed on it"
        if not diag.mark.correct:
            # A wrong mark may be the key's fault: a key the marker does not accept marks everyone wrong.
            problem = spec_key_problem(spec)
            if problem is not None:
                return item, None, None, problem.rstrip(".")
        return item, spec, diag, None

    # ------------------------------------------------------------------ after marking: the teacher's part
    def cmd_override(self, state: dict, item_id: str, marks: Any, reason: str, teacher: str = "teacher") -> Step:
        """A teacher's mark for one question, with the reason: kept in the question's history (``overrides``),
        carried into the section and paper totals, percent and grade, and shown to the student with the results.
        Only once the exam is marked; any mark from 0 to what the question is worth."""
        marking = state["marking"]
        if marking is None:
            raise FlowError("this exam has not been handed in and marked yet; a mark can be changed once it has")
        question = marking["questions"].get(item_id)
        if question is None:
            raise FlowError(f"{item_id} is not a question of this exam; choose one of its questions")
        value = checked_marks(marks, _label(question), marks_out_of(question))
        why = reason.strip() if isinstance(reason, str) else ""
        if not why:
            raise FlowError(f"say why question {_label(question)} gets {value:g} mark(s): the reason is kept with "
                            f"the mark and shown to the student")
        payload = {"item_id": item_id, "number": question["number"], "section": self._section_of(state, item_id),
                   "marks": value, "reason": why, "teacher": (teacher or "").strip() or "teacher"}
        after = copy.deepcopy(marking)
        override_question(after, payload)
        step = Step().add("overridden", **payload)
        step.rescored.append(response_row(item_id, after["questions"][item_id]))
        return step

    def cmd_remark(self, state: dict, teacher: str = "teacher") -> Step:
        """Mark the handed-in answers again against the questions' keys as they are now (a key corrected on the
        Review page keeps the question's id). A teacher's override stays on top of the new mark.

        Appends a ``remarked`` event with the new marking and what changed, only when something did; the
        reply's ``changes`` lists each question whose marks changed (``override_kept``: the teacher's mark
        stands, and the marker's own mark is in ``marker_from``/``marker_to``).
        """
        old = state["marking"]
        if old is None:
            raise FlowError("this exam has not been handed in and marked yet, so there is nothing to re-mark")
        fresh = self._mark(state, expired=bool(old.get("expired")), remediate=False)
        payload = next(p for t, p in fresh.events if t == "marked")
        sections = {q["id"]: s["section"] for s in state["package"]["sections"] for q in s["questions"]}
        new, changes = remarked(old, payload, sections)
        if same_marking(new, old):
            return Step(reply={"changes": []})
        given = {r["item_id"]: r for r in fresh.responses}
        rows = [response_row(item_id, q, given.get(item_id)) for item_id, q in new["questions"].items()
                if counted_marks(q) != counted_marks(old["questions"].get(item_id))]
        who = (teacher or "").strip() or "teacher"
        new["remarks"] = list(old.get("remarks") or []) + [{"at": self.ctx.clock(), "teacher": who,
                                                             "changes": len(changes)}]
        step = Step(reply={"changes": changes}).add("remarked", marking=new, changes=changes, teacher=who)
        step.rescored = rows
        return step

    def cmd_judge(self, state: dict, verdicts: dict, teacher: Optional[str] = None) -> Step:
        """The LLM judge's verdicts on written answers of the handed-in paper ({item_id: verdict}, asked by
        ``core.flows.judging`` outside this session's lock): a "judged" event with each question's verdict,
        confidence, reason and the mark it gives, and the responses it rescores. A teacher's override stays on
        top; an unsure or failed judge leaves the key point mark. ``teacher``: who asked (None: after hand-in)."""
        return judging.exam_step(state, verdicts, teacher)

    @staticmethod
    def _section_of(state: dict, item_id: str) -> Optional[str]:
        return next((s["section"] for s in state["package"]["sections"] for q in s["questions"] if q["id"] == item_id),
                    None)

    def _remediate(self, state: dict, gap_outcomes: list[str], outer: Step, marked: dict[str, dict]) -> Step:
        """A block per outcome with a gap: what to revise, the questions of it not fully right, a practice question.
        The hand-in never waits on the LLM: practice questions come from the blueprints and banks only."""
        source = self.ctx.source.offline()
        spec = source.spec(state["subject"], state["level"])
        labels = {o.id: o.label for o in spec.outcomes}
        blocks = []
        for n, outcome in enumerate(gap_outcomes):
            practice: Optional[Item] = None
            try:
                practice = fetch_question(source, state["student"], state["subject"], state["level"],
                                          seed=f"{state['seed']}/remediate/{n}", target_outcome=outcome).item
            except NoQuestions:
                practice = None
            if practice is not None:
                outer.items.append(practice)
            wrong = [q for sec in state["package"]["sections"] for q in sec["questions"]
                     if q["outcome_id"] == outcome and missed(marked.get(q["id"]))]
            blocks.append({"outcome_id": outcome, "label": labels.get(outcome, outcome),
                           "explanation": f"Revise: {labels.get(outcome, outcome)}. "
                                          f"Work through the explanations of the questions you missed, then try the practice question.",
                           "questions": [q["number"] for q in wrong],
                           "question_labels": [_label(q) for q in wrong],   # as the paper prints them
                           "practice_question": practice.student_view() if practice else None})
        return Step().add("remediated", remediation=blocks)
