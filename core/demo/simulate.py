"""A simulated class: students with latent abilities working through the real flows.

Each student has an ability theta ~ N(0, 1). A response is correct with the
2PL probability 1 / (1 + exp(-a (theta - b))), where b is the item's declared
difficulty on the logit scale plus a per-blueprint offset (the blueprint's
"true" difficulty differs a little from what its author declared, as it does
in real classes) and a is drawn per blueprint around 1. Wrong answers pick one
of the item's misconception answers when it has them, so distractor analysis
has something to find. Time moves on a simulated clock, so sessions spread
over the days before now.

Everything goes through the real flows (practice, lessons, exams, the exit
survey), so the database holds exactly what real students would leave.
"""
from __future__ import annotations

import dataclasses
import math
import random
import time
from typing import Any, Callable, Optional

from core.blueprints.library import Library
from core.flows.base import FlowError, Runner
from core.flows.practice import difficulty_logit
from core.flows.registry import make_runner
from core.store import Store, repo


@dataclasses.dataclass
class SimulatedStudent:
    name: str
    theta: float


class SimClock:
    """A clock the simulation moves forward: every answer takes its time."""

    def __init__(self, start: float):
        self.t = start

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


class Simulation:
    def __init__(self, store: Store, library: Library, seed: Any = 0, subject: str = "Mathematics",
                 level: str = "Nat 5", days: int = 28):
        self.store = store
        self.library = library
        self.rng = random.Random(f"simulate|{seed}")
        self.seed = seed
        self.subject = subject
        self.level = level
        self.clock = SimClock(time.time() - days * 86400)
        self.days = days
        self.runner: Runner = make_runner(store, library, clock=self.clock)
        self._skill_truth: dict[str, tuple[float, float]] = {}
        self.responses = 0
        self.sessions = 0

    # ------------------------------------------------------------------
    def truth(self, skill: Optional[str]) -> tuple[float, float]:
        """(discrimination, difficulty offset) of a blueprint, fixed per simulation."""
        key = skill or "bank"
        if key not in self._skill_truth:
            r = random.Random(f"truth|{self.seed}|{key}")
            self._skill_truth[key] = (round(max(0.4, r.gauss(1.0, 0.25)), 3), round(r.gauss(0.0, 0.35), 3))
        return self._skill_truth[key]

    def p_correct(self, theta: float, item) -> float:
        a, offset = self.truth(item.blueprint_id)
        b = difficulty_logit(item.difficulty_value) + offset
        return 1.0 / (1.0 + math.exp(-a * (theta - b)))

    def respond(self, student: SimulatedStudent, item_id: str) -> tuple[str, bool]:
        item = repo.load_item(self.store, item_id)
        right = self.rng.random() < self.p_correct(student.theta, item)
        if right:
            answer = item.options[item.correct_index] if item.options else item.correct_answer
        elif item.misconceptions and self.rng.random() < 0.7:
            answer = self.rng.choice(sorted(item.misconceptions.values()))
        elif item.options:
            answer = self.rng.choice([o for i, o in enumerate(item.options) if i != item.correct_index])
        else:
            answer = "I am not sure"
        seconds = max(3.0, self.rng.lognormvariate(math.log(25 + 10 * item.marks), 0.5))
        self.clock.advance(seconds)
        self.responses += 1
        return answer, right

    # ------------------------------------------------------------------
    def practice(self, student: SimulatedStudent, questions: int, mode: str = "practice") -> str:
        sid = self.runner.start("practice", student.name, {"subject": self.subject, "level": self.level,
                                                           "mode": mode, "seed": f"{self.seed}/{self.sessions}"})
        self.sessions += 1
        for n in range(questions):
            view = self.runner.view(sid)
            answer, _ = self.respond(student, view["question"]["id"])
            self.runner.command(sid, "answer", item_id=view["question"]["id"], answer=answer)
            self.clock.advance(5)
            if n < questions - 1:
                similar = view.get("can_try_similar") and self.rng.random() < 0.3
                self.runner.command(sid, "next", similar=bool(similar))
        self.runner.command(sid, "stop")
        if "survey" in self.runner.flows:
            self.exit_ticket(student, sid)
        return sid

    def exit_ticket(self, student: SimulatedStudent, practice_id: str) -> None:
        try:
            sid = self.runner.start("survey", student.name, {"survey_id": "exit_ticket", "context": {"session": practice_id}})
        except FlowError:
            return  # no exit-ticket survey shipped
        self.sessions += 1
        for _ in range(10):
            view = self.runner.view(sid)
            question = view.get("question")
            if view.get("stage") != "question" or not question:
                break
            kind = question.get("question_type")
            if kind == "rating":
                scale = question.get("scale") or {"min": 1, "max": 5}
                confidence = 1 / (1 + math.exp(-student.theta))
                answer: Any = int(round(scale["min"] + confidence * (scale["max"] - scale["min"])))
            elif kind == "choice":
                answer = self.rng.choice(question["options"])
            else:
                answer = self.rng.choice(["More worked examples", "It was fine", "Slower pace please", ""]) or "Nothing"
            self.runner.command(sid, "answer", question_id=question["question_id"], answer=answer)

    def lesson(self, student: SimulatedStudent) -> Optional[str]:
        if "lesson" not in self.runner.flows:
            return None
        sid = self.runner.start("lesson", student.name, {"subject": self.subject, "level": self.level, "cards": 4,
                                                         "seed": f"{self.seed}/{self.sessions}"})
        self.sessions += 1
        for _ in range(40):
            view = self.runner.view(sid)
            stage = view.get("stage")
            if stage in ("ended", "completed", "done"):
                break
            question = (view.get("card") or {}).get("question") or view.get("question")
            if stage in ("question", "retry", "card") and question:
                answer, _ = self.respond(student, question["id"])
                self.runner.command(sid, "answer", item_id=question["id"], answer=answer)
            else:
                try:
                    self.runner.command(sid, "next")
                except FlowError:
                    break
        return sid

    def exam(self, student: SimulatedStudent, count: int) -> str:
        sid = self.runner.start("exam", student.name, {"subject": self.subject, "level": self.level,
                                                       "seed": f"{self.seed}/{self.sessions}", "exam_count": count})
        self.sessions += 1
        view = self.runner.view(sid)
        answers = {}
        for section in view["exam"]["sections"]:
            for q in section["questions"]:
                if self.rng.random() < 0.95:  # now and then a question is left blank
                    answers[q["id"]], _ = self.respond(student, q["id"])
        self.runner.command(sid, "submit", answers=answers)
        return sid

    # ------------------------------------------------------------------
    def run(self, students: int, practice_sessions: int = 2, questions: int = 8, exams: int = 1,
            lessons: int = 1, progress: Optional[Callable[[int, int], None]] = None,
            names: Optional[list[str]] = None) -> dict:
        """Simulate ``students`` students (named by ``names`` when given, e.g. a class roster's ids)."""
        names = names or [f"student{n + 1:03d}" for n in range(students)]
        roster = [SimulatedStudent(names[n], round(self.rng.gauss(0, 1), 3)) for n in range(students)]
        for n, student in enumerate(roster):
            self.clock.advance(self.rng.uniform(0, self.days * 86400 / max(1, students)))
            for k in range(practice_sessions):
                self.practice(student, questions, mode="adaptive" if k % 2 else "practice")
            for _ in range(lessons):
                self.lesson(student)
            for e in range(exams):
                self.exam(student, e + 1)
            if progress:
                progress(n + 1, students)
        return {"students": [dataclasses.asdict(s) for s in roster], "sessions": self.sessions,
                "responses": self.responses,
                "blueprints": {k: {"discrimination": a, "difficulty_offset": b} for k, (a, b) in sorted(self._skill_truth.items())}}
