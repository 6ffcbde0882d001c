"""Mock exams (ExamAssessmentGraph).

    start: build_blueprint -> fill_slots -> assemble_exam -> delivered
    save (answers as typed) ... submit (or the time limit passes) -> marked -> remediated -> ended

The blueprint comes from the course spec: each section's marks are split into
question slots over its outcomes, using the marks the available questions
actually carry (so no question's marks are rewritten). Slots are filled with
novelty across all this student's sessions, and non-calculator sections only
take questions that need no calculator. The student sees no key and no
feedback until the exam is submitted; the server enforces the time limit.
"""
from __future__ import annotations

import dataclasses
import math
import random
from typing import Any, Optional

from core.flows import preview
from core.flows.remediation import diagnose
from core.flows.base import Flow, FlowError, Step
from core.flows.fetch import fetch_question
from core.items.generator import Item
from core.items.sources import NoQuestions, QuestionSource, stem_key
from core.marking import INTERNAL_ERROR, MarkingSpecError, item_key_problem
from core.store import school

SQA_GRADES = [("A", 70.0), ("B", 60.0), ("C", 50.0), ("D", 40.0), ("No award", 0.0)]
GRACE_SECONDS = 5.0   # answers in flight when the clock runs out still count
UNMARKED = "This question could not be marked, so it does not count towards your total; your teacher can see why."


def _answered(answer: Any) -> bool:
    """Whether anything was written: in the answer, or in any step of an answer given step by step."""
    if isinstance(answer, dict):
        return any(v is not None and str(v).strip() for v in answer.values())
    return answer is not None and bool(str(answer).strip())


def grade_for(percent: float, bands=SQA_GRADES) -> str:
    for label, minimum in bands:
        if percent >= minimum:
            return label
    return bands[-1][0]


def available_marks(source: QuestionSource, subject: str, level: str, outcome_id: str,
                    calculator: bool, approved_only: bool = False) -> dict[int, float]:
    """How many questions of each marks value an outcome can supply (blueprints: without limit)."""
    supply: dict[int, float] = {}
    if approved_only:
        for it in source.approved_candidates(subject, level, outcome_id, limit=10_000):
            if calculator or it.calculator != "required":
                supply[it.marks] = supply.get(it.marks, 0) + 1
        return supply
    for skill in source.blueprints_for(subject, level, outcome_id, calculator):
        supply[source.library.generator(skill).bp.evaluation.total_marks()] = math.inf
    for item in source.get_local_questions(subject, level, outcome_id, 200) + \
            source.get_us_or_past_questions(subject, level, outcome_id, 200):
        if calculator or item.calculator != "required":
            supply[item.marks] = supply.get(item.marks, 0) + 1
    return supply


def _reachable(total: int, values: set[int]) -> list[bool]:
    reach = [False] * (total + 1)
    reach[0] = True
    for t in range(1, total + 1):
        reach[t] = any(v <= t and reach[t - v] for v in values)
    return reach


def plan_section(total: int, outcome_marks: dict[str, Any], rng: random.Random) -> list[tuple[str, int]]:
    """Split a section's marks into (outcome, marks) slots that add up exactly.

    ``outcome_marks`` gives, per outcome, how many questions of each marks
    value it can supply (a set means: without limit). Outcomes take turns;
    each slot takes a value that outcome still has, chosen so the rest can
    still be made up exactly (a coin-change table over what is left says which
    totals are reachable). When nothing adds up exactly (every question worth
    3, the section worth 35), the last slot is worth the remainder and its
    question is marked out of that, as the seed's override does; it is
    returned with negative marks so the caller knows.
    """
    supply = {o: ({m: math.inf for m in ms} if isinstance(ms, (set, frozenset, list)) else dict(ms))
              for o, ms in outcome_marks.items()}
    outcomes = [o for o in supply if any(c > 0 and m > 0 for m, c in supply[o].items())]
    if not outcomes:
        raise NoQuestions(f"no question source covers the outcomes {', '.join(outcome_marks)}")
    slots: list[tuple[str, int]] = []
    remaining = total
    turn = 0
    while remaining > 0:
        values = {m for o in outcomes for m, c in supply[o].items() if c > 0 and m > 0}
        reach = _reachable(remaining, values)
        target = max(t for t in range(remaining + 1) if reach[t])
        if target == 0:
            break
        for k in range(len(outcomes)):
            outcome = outcomes[(turn + k) % len(outcomes)]
            fits = [m for m, c in supply[outcome].items() if c > 0 and 0 < m <= target and reach[target - m]]
            if fits:
                # Smaller questions are more common in a real paper; weight them up.
                marks = rng.choices(sorted(fits), [1.0 / m for m in sorted(fits)])[0]
                slots.append((outcome, marks))
                supply[outcome][marks] -= 1
                remaining -= marks
                turn += k + 1
                break
        else:  # pragma: no cover - the reachability table guarantees some outcome fits
            break
    if remaining > 0:
        slots.append((outcomes[turn % len(outcomes)], -remaining))
    return slots


@dataclasses.dataclass
class DrawnQuestion:
    item: Item
    outcome_id: str
    number: int
    marks: int                      # what the question is worth in this paper
    marked_out_of: Optional[int]    # the item's own marks when a remainder slot rescales it
    route: str


def exam_instructions(spec) -> list[str]:
    return list(spec.instructions) or [
        f"Attempt ALL questions. Total marks: {spec.total_marks}.",
        "Show your working; marks are awarded for each step of a correct method.",
        "Calculators may only be used in sections marked calculator.",
    ]


def assemble_sections(source: QuestionSource, spec, student: str, seed: Any, exam_count: int,
                      approved_only: bool, progress: Optional[Any] = None) -> list[dict]:
    """build_blueprint and fill_slots: every section planned, then every slot filled with novelty.

    Shared by the exam flow and the teachers' paper preview, so a previewed
    class paper is exactly what the students will sit. Raises NoQuestions
    naming the section when one cannot be filled.
    """
    source = source.offline()  # the LLM has no part in an exam before it is submitted
    subject, level = spec.subject, spec.level
    # Only plan_section draws from this generator, so planning every section first gives the
    # same slots as planning them one at a time.
    rng = random.Random(f"exam|{student}|{subject}|{level}|{seed}|{exam_count}")
    plans = []
    for section in spec.assessment_structure:
        calc = section.calculator_allowed
        outcome_marks = {o: available_marks(source, subject, level, o, calc, approved_only) for o in section.outcome_ids}
        try:
            slots = plan_section(section.marks, outcome_marks, rng)
        except NoQuestions as exc:
            raise NoQuestions(f"{section.section}: {exc}") from None
        plans.append((section, slots, [o for o, m in outcome_marks.items() if not m]))
    total = sum(len(slots) for _, slots, _ in plans)
    avoid: set[str] = set()
    number = 0
    out = []
    for s_index, (section, slots, missing) in enumerate(plans):
        questions = []
        for q_index, (outcome, marks) in enumerate(slots):
            scaled = marks < 0   # a remainder slot: any question, marked out of the remainder
            marks = abs(marks)
            try:
                fetched = fetch_question(source, student, subject, level, seed=f"{seed}/{exam_count}/{s_index}/{q_index}",
                                         target_outcome=outcome, avoid=avoid, calculator=section.calculator_allowed,
                                         marks=None if scaled else marks, approved_only=approved_only)
            except NoQuestions as exc:
                raise NoQuestions(f"{section.section}: {exc}") from None
            item = fetched.item
            avoid |= {item.content_key, stem_key(item)}
            number += 1
            questions.append(DrawnQuestion(item, outcome, number, marks if scaled else item.marks,
                                           item.marks if scaled and marks != item.marks else None, fetched.route))
            if progress:
                progress(number, total)
        out.append({"section": section, "questions": questions, "missing": missing})
    return out


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
                "approved_only": bool(cfg.get("approved_only")),
                "stage": "new", "package": None, "saved": {}, "readings": {}, "marking": None, "deadline": None,
                "remediation": None}

    def apply(self, state: dict, event: dict) -> None:
        p, t = event["payload"], event["type"]
        if t == "delivered":
            state["stage"] = "sitting"
            state["package"] = p["package"]
            state["deadline"] = p["deadline"]
        elif t == "saved":
            state["saved"][p["item_id"]] = p["answer"]
            state.setdefault("readings", {})[p["item_id"]] = p.get("reading")
        elif t == "marked":
            state["stage"] = "marked"
            state["marking"] = p
        elif t == "remediated":
            state["stage"] = "reviewed"
            state["remediation"] = p["remediation"]

    def view(self, state: dict) -> dict:
        out = {"kind": self.kind, "stage": state["stage"], "subject": state["subject"], "level": state["level"]}
        pkg = state["package"]
        if pkg:
            out["exam"] = pkg
            out["answers"] = dict(state["saved"])
            if state["stage"] == "sitting":
                out["time_remaining_seconds"] = max(0, int(state["deadline"] - self.ctx.clock())) if state["deadline"] else None
                out["readings"], out["unreadable"] = self._readings(state)
        if state["marking"]:
            out["results"] = state["marking"]
        if state["remediation"] is not None:
            out["remediation"] = state["remediation"]
        return out

    def tick(self, state: dict) -> Optional[Step]:
        if state["stage"] == "sitting" and state["deadline"] and self.ctx.clock() > state["deadline"] + GRACE_SECONDS:
            return self._mark(state, expired=True)
        return None

    # ------------------------------------------------------------------
    def cmd_start(self, state: dict) -> Step:
        if state["stage"] != "new":
            return Step()
        return self.assemble(state)

    def assemble(self, state: dict) -> Step:
        source = self.ctx.source
        student = state.get("paper_key") or state["student"]
        try:
            spec = source.spec(state["subject"], state["level"])
        except NoQuestions as exc:
            raise FlowError(str(exc)) from None
        approved_only = bool(state.get("approved_only")) or school.approved_only_for(self.ctx.store, state["student"])
        try:
            drawn = assemble_sections(source, spec, student, state["seed"], state["exam_count"], approved_only)
        except NoQuestions as exc:
            raise FlowError(str(exc)) from None
        step = Step()
        sections = []
        for part in drawn:
            section, questions = part["section"], []
            for q in part["questions"]:
                self.see(step, q.item, q.outcome_id)
                question = {**q.item.student_view(), "number": q.number, "outcome_id": q.outcome_id,
                            "marks": q.marks, "section": section.section}
                if q.marked_out_of is not None:
                    question["marked_out_of"] = q.marked_out_of
                questions.append(question)
            sections.append({"section": section.section, "calculator_allowed": section.calculator_allowed,
                             "marks": section.marks, "time_allowed_minutes": section.time_allowed_minutes,
                             "questions": questions, "outcomes_without_questions": part["missing"]})
        minutes = state["time_limit_minutes"] or sum(s["time_allowed_minutes"] for s in sections)
        package = {
            "exam_id": f"{spec.subject}_{spec.level}_{state['exam_count']}".replace(" ", "_"),
            "session_id": state["session_id"], "subject": spec.subject, "level": spec.level,
            "total_marks": sum(q["marks"] for s in sections for q in s["questions"]),
            "question_count": sum(len(s["questions"]) for s in sections), "sections": sections,
            "time_allowed_minutes": minutes, "instructions": exam_instructions(spec),
        }
        step.add("delivered", package=package, deadline=self.ctx.clock() + minutes * 60)
        return step

    def cmd_save(self, state: dict, item_id: str, answer: Any) -> Step:
        """Keep an answer as it is typed, so a reload loses nothing."""
        self._check_sitting(state)
        if item_id not in self._question_ids(state):
            raise FlowError("that question is not part of this exam")
        if state["saved"].get(item_id) == answer:
            return Step()
        return Step().add("saved", item_id=item_id, answer=answer, reading=self._read(state, item_id, answer))

    def cmd_submit(self, state: dict, answers: Optional[dict] = None) -> Step:
        if state["stage"] in ("marked", "reviewed"):
            return Step()  # submitted already: marking happens once
        self._check_sitting(state)
        step = Step()
        ids = self._question_ids(state)
        for item_id, answer in (answers or {}).items():
            if item_id not in ids:
                raise FlowError("an answer was given for a question that is not part of this exam")
            if state["saved"].get(item_id) != answer:
                step.add("saved", item_id=item_id, answer=answer, reading=self._read(state, item_id, answer))
                state["saved"][item_id] = answer
        marked = self._mark(state, expired=False)
        step.events += marked.events
        step.responses += marked.responses
        step.items += marked.items
        step.status = marked.status
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

    def _check_sitting(self, state: dict) -> None:
        if state["stage"] == "new":
            raise FlowError("the exam has not started")
        if state["stage"] != "sitting":
            raise FlowError("this exam has been submitted; answers can no longer change")
        if state["deadline"] and self.ctx.clock() > state["deadline"] + GRACE_SECONDS:
            raise FlowError("time is up: the exam has been submitted with the answers saved so far")

    def _mark(self, state: dict, expired: bool) -> Step:
        step = Step()
        per_question = {}
        gap_outcomes: list[str] = []
        notes: list[str] = []   # for the teacher: questions that could not be marked
        comma = self.decimal_comma(state)
        awarded = total = 0.0
        section_results = []
        for section in state["package"]["sections"]:
            s_awarded = s_total = 0.0
            for q in section["questions"]:
                answer = state["saved"].get(q["id"], "")
                item, diag, problem = self._marked(q["id"], answer, comma)
                if problem is not None:
                    # Left out of the total (out of 0 marks): a question that cannot be marked costs the student
                    # nothing, and the rest of the exam is marked as usual.
                    notes.append(f"Question {q['number']} ({q['id']}, {q['marks']} mark(s)) could not be marked: "
                                 f"{problem}. It is left out of the total; correct or reject it on the Review page.")
                    per_question[q["id"]] = {"number": q["number"], "correct": None, "marks_awarded": 0.0,
                                             "marks": 0.0, "marks_left_out": float(q["marks"]), "gap_tags": [],
                                             "answer": answer, "correct_answer": item.correct_answer if item else "",
                                             "feedback": UNMARKED, "outcome_id": q["outcome_id"],
                                             "explanation": item.explanation if item else "", "unmarked": problem}
                    continue
                assert item is not None and diag is not None
                mark = diag.mark
                out_of = float(q["marks"])
                score = mark.score * out_of / mark.max_score if mark.max_score else 0.0
                if "marked_out_of" in q:
                    score = float(int(score))  # whole marks, as a marker would give them
                per_question[q["id"]] = {"number": q["number"], "correct": mark.correct, "marks_awarded": score,
                                         "marks": out_of, "gap_tags": diag.gap_tags,
                                         "answer": answer if diag.steps is None else diag.answer_text,
                                         "correct_answer": item.correct_answer, "feedback": mark.feedback,
                                         "outcome_id": q["outcome_id"], "explanation": item.explanation,
                                         # how a typed answer was read (a chosen option has nothing to read)
                                         "read_as": None if q["options"] else mark.read_as,
                                         "read_as_latex": None if q["options"] else mark.read_as_latex,
                                         "unreadable": _answered(answer) and not mark.valid}
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
            section_results.append({"section": section["section"], "marks_awarded": s_awarded, "marks": s_total,
                                    "percent": round(100 * s_awarded / s_total, 1) if s_total else 0.0})
            awarded += s_awarded
            total += s_total
        percent = round(100 * awarded / total, 1) if total else 0.0
        step.add("marked", questions=per_question, marks_awarded=awarded, total_marks=total, percent=percent,
                 grade=grade_for(percent), sections=section_results, gap_outcomes=gap_outcomes, expired=expired,
                 notes=notes)
        step.events += self._remediate(state, gap_outcomes, step).events
        step.status = "completed"
        return step

    def _marked(self, item_id: str, answer: Any, comma: bool = False) -> tuple[Optional[Item], Any, Optional[str]]:
        """(item, diagnosis, None), or (item or None, None, why the question cannot be marked)."""
        try:
            item = self.item(item_id)
        except FlowError as exc:
            return None, None, str(exc)
        try:
            diag = diagnose(item, answer, None, similar=False, decimal_comma=comma)
        except MarkingSpecError as exc:
            return item, None, f"its answer key cannot be read ({str(exc).rstrip('.')})"
        except Exception as exc:  # deliberately broad: one broken question must not stop the exam being marked
            return item, None, f"marking it failed ({type(exc).__name__}: {exc})"
        if diag.mark.refused == INTERNAL_ERROR:
            return item, None, "the marker failed on it"
        if not diag.mark.correct:
            # A wrong mark may be the key's fault: a key the marker does not accept marks everyone wrong.
            problem = item_key_problem(item)
            if problem is not None:
                return item, None, problem.rstrip(".")
        return item, diag, None

    def _remediate(self, state: dict, gap_outcomes: list[str], outer: Step) -> Step:
        source = self.ctx.source
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
            wrong = [q for sec in state["package"]["sections"] for q in sec["questions"] if q["outcome_id"] == outcome]
            blocks.append({"outcome_id": outcome, "label": labels.get(outcome, outcome),
                           "explanation": f"Revise: {labels.get(outcome, outcome)}. "
                                          f"Work through the explanations of the questions you missed, then try the practice question.",
                           "questions": [q["number"] for q in wrong],
                           "practice_question": practice.student_view() if practice else None})
        return Step().add("remediated", remediation=blocks)
