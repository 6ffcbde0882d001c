"""A simulated class: students with latent abilities working through the real flows.

Each student has an ability theta ~ N(0, 1). A response is correct with the
2PL probability 1 / (1 + exp(-a (theta - b))), where b is the item's declared
difficulty on the logit scale plus a per-blueprint offset (the blueprint's
"true" difficulty differs a little from what its author declared, as it does
in real classes) and a is drawn per blueprint around 1. Wrong answers pick one
of the item's misconception answers when it has them, so distractor analysis
has something to find. Time moves on a simulated clock, so sessions spread
over the days before now; ``history`` gives each student a term's worth of
sittings (practice, a lesson, a mock exam) on days that end today.

Everything goes through the real flows (practice, lessons, exams, the exit
survey), so the database holds exactly what real students would leave.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import math
import random
import time
from typing import Any, Callable, Optional

from core.blueprints.library import Library
from core.exams.papers import paper_key
from core.flows.base import SESSION_ITEM_STATUS, Context, Flow, FlowError, Loaded, Runner, Step
from core.flows.preview import preview
from core.flows.practice import difficulty_logit
from core.flows.registry import FLOWS
from core.items.generator import Item
from core.marking import right_options
from core.store import Store, repo

DAY = 86400.0
# What a simulated student types when they do not know, in the order tried (the first one the question can read).
UNSURE = ("I am not sure", "I don't know", "0", "1", "0.0.0.0", "255.255.255.255", "0.0.0.0/0", "10.0.0.0/8")


@dataclasses.dataclass
class SimulatedStudent:
    name: str
    theta: float


@dataclasses.dataclass(frozen=True)
class Sitting:
    at: float        # when it starts, epoch seconds
    kind: str        # "practice", "lesson" or "exam"
    number: int      # the student's how-many-th of that kind, from 0


class SimRunner(Runner):
    """The real flows, run by the only writer of its sessions: the simulation.

    A runner for students rereads a session's new events before every command,
    since another tab or process may have moved it on, and loads each item from
    the database whenever a flow needs it, since a teacher may have edited it.
    Nobody else touches a simulated student's sessions or the items drawn for
    them while the simulation runs (the demo class is built in one transaction
    no one else sees), so here the cached state is the truth, an item drawn in
    a step is kept as written in that step, and any other item is loaded once.
    What is stored is exactly what the flows store for real students.
    """

    def __init__(self, store: Store, library: Library, clock: Callable[[], float]):
        self.items: dict[str, Item] = {}
        flows = {kind: _loading_once(cls, self.items) for kind, cls in FLOWS.items()}
        super().__init__(Context.create(store, library, None, clock), flows)

    def load(self, session_id: str) -> Loaded:
        cached = self._cache.get(session_id)
        return cached if cached is not None else super().load(session_id)

    def _persist(self, loaded: Loaded, step: Step) -> None:
        super()._persist(loaded, step)
        for item in step.items:
            # Drawn now and marked a moment later, as the row just written (bank questions were there before).
            if item.id not in self.items and item.source not in repo.BANK_SOURCES:
                self.items[item.id] = dataclasses.replace(item, status=SESSION_ITEM_STATUS)

    def item(self, item_id: str) -> Item:
        item = self.items.get(item_id)
        if item is None:
            item = self.items[item_id] = repo.load_item(self.ctx.store, item_id)
        return item


def _loading_once(cls: type[Flow], items: dict[str, Item]) -> type[Flow]:
    """The flow ``cls``, taking items from ``items`` and loading each missing one once."""
    def item(self: Flow, item_id: str) -> Item:
        found = items.get(item_id)
        if found is None:
            found = items[item_id] = cls.item(self, item_id)
        return found
    return type(cls.__name__, (cls,), {"item": item})


def _weekday(day: float, oldest: float) -> float:
    """The midnight of ``day`` or the weekday before it (not before ``oldest``): classes meet Monday to Friday."""
    while dt.datetime.fromtimestamp(day, dt.timezone.utc).weekday() >= 5 and day - DAY >= oldest:
        day -= DAY
    return day


def term_plan(now: float, days: int, students: int, practice_sessions: int, lessons: int, exams: int,
              rng: random.Random) -> list[list[Sitting]]:
    """Each student's sittings over the ``days`` days ending today (UTC), oldest first.

    Lessons and mock exams are class sittings: everyone on the same weekday
    in school hours, lessons through the first weeks, mock exams in the last
    week but not today. Practice is homework in the evenings on days of each
    student's own: the first in the window's first two days, the last
    earlier today, the rest spread evenly between, give or take a few days.
    """
    days = max(1, days)
    today = math.floor(now / DAY) * DAY
    oldest = today - (days - 1) * DAY
    lesson_days = [_weekday(today - round((days - 1) * (1 - (k + 0.5) / max(1, lessons) * 0.6)) * DAY, oldest)
                   for k in range(lessons)]
    exam_days = [_weekday(today - max(1, min(days - 1, 2 + 2 * (exams - 1 - k))) * DAY, oldest)
                 for k in range(exams)]
    class_days = {round((today - d) / DAY) for d in lesson_days + exam_days}
    lesson_hours = [rng.uniform(9, 14) for _ in lesson_days]

    plans = []
    for _ in range(students):
        sittings = [Sitting(d + lesson_hours[k] * 3600 + rng.uniform(0, 300), "lesson", k)
                    for k, d in enumerate(lesson_days)]
        sittings += [Sitting(d + 9 * 3600 + rng.uniform(0, 180), "exam", k) for k, d in enumerate(exam_days)]
        if practice_sessions:
            ago = _practice_days(days, practice_sessions, class_days, rng)
            for k, d in enumerate(ago):
                if d:
                    at = today - d * DAY + rng.uniform(16, 21.5) * 3600
                else:
                    # Earlier today, finished by now (the clock's ceiling holds it there just after midnight).
                    earliest, latest = max(today, now - 3 * 3600), now - 1800
                    at = rng.uniform(earliest, latest) if latest > earliest else today + rng.random() * (now - today) / 2
                sittings.append(Sitting(at, "practice", k))
        plans.append(sorted(sittings, key=lambda s: s.at))
    return plans


def _practice_days(days: int, count: int, class_days: set[int], rng: random.Random) -> list[int]:
    """How many days ago each practice sitting is, oldest first: the first in the window's first two days, the last 0."""
    if count == 1 or days == 1:
        return [0] * count
    ago = {0, rng.randint(max(1, days - 2), days - 1)}
    spacing = (days - 1) / (count - 1)
    for k in range(1, count - 1):
        centre = round((days - 1) - k * spacing)
        near = [d for d in range(round(centre - spacing / 3), round(centre + spacing / 3) + 1)
                if 0 < d < days - 2 and d not in class_days and d not in ago]
        free = near or [d for d in range(1, days - 2) if d not in class_days and d not in ago] or [centre]
        ago.add(rng.choice(free))
    out = sorted(ago, reverse=True)
    return out + [0] * (count - len(out))   # a window too short for a day each: the rest today


class SimClock:
    """A clock the simulation moves forward: every answer takes its time.

    With ``ceiling`` (the real clock) it never reads later than the real time,
    so a sitting simulated "just now" cannot end in the future.
    """

    def __init__(self, start: float, ceiling: Optional[Callable[[], float]] = None):
        self.t = start
        self.ceiling = ceiling

    def __call__(self) -> float:
        return self.t if self.ceiling is None else min(self.t, self.ceiling())

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
        self.runner: SimRunner = SimRunner(store, library, self.clock)
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
        item = self.runner.item(item_id)
        right = self.rng.random() < self.p_correct(student.theta, item)
        if right:
            answer = item.typed_answer
        elif item.misconceptions and self.rng.random() < 0.7:
            answer = self.rng.choice(sorted(item.misconceptions.values()))
        elif item.options and item.choose_several:
            # ticks one option the key does not name (choose several: answers are letters)
            right = right_options(item.correct_answer, len(item.options))
            answer = chr(65 + self.rng.choice([i for i in range(len(item.options)) if i not in right] or [0]))
        elif item.options:
            answer = self.rng.choice([o for i, o in enumerate(item.options) if i != item.correct_index])
        else:
            answer = self.unsure(item)
        seconds = max(3.0, self.rng.lognormvariate(math.log(25 + 10 * item.marks), 0.5))
        self.clock.advance(seconds)
        self.responses += 1
        return answer, right

    @staticmethod
    def unsure(item, avoid: Optional[str] = None) -> str:
        """A guess from a student who does not know: words where words can be read, else a number or an
        address, so that it is marked (wrong) rather than refused as unreadable, which would cost nothing."""
        for guess in UNSURE:
            if guess != avoid and guess != item.correct_answer and preview(item, guess)["valid"]:
                return guess
        return UNSURE[0]

    # ------------------------------------------------------------------
    def practice(self, student: SimulatedStudent, questions: int, mode: str = "practice",
                 exit_ticket: bool = True) -> str:
        sid = self.runner.start("practice", student.name, {"subject": self.subject, "level": self.level,
                                                           "mode": mode, "seed": f"{self.seed}/{self.sessions}"})
        self.sessions += 1
        # Each command returns the view it leads to; asking for it again would only reread the session.
        view = self.runner.view(sid)
        for n in range(questions):
            answer, _ = self.respond(student, view["question"]["id"])
            feedback = self.runner.command(sid, "answer", item_id=view["question"]["id"], answer=answer)
            self.clock.advance(5)
            if n < questions - 1:
                similar = view.get("can_try_similar") and self.rng.random() < 0.3
                view = self.runner.command(sid, "next", similar=bool(similar))
            else:
                view = feedback
        self.runner.command(sid, "stop")
        if exit_ticket and "survey" in self.runner.flows:
            self.exit_ticket(student, sid)
        return sid

    def exit_ticket(self, student: SimulatedStudent, practice_id: str) -> None:
        try:
            sid = self.runner.start("survey", student.name, {"survey_id": "exit_ticket", "context": {"session": practice_id}})
        except FlowError:
            return  # no exit-ticket survey shipped
        self.sessions += 1
        view = self.runner.view(sid)
        for _ in range(10):
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
            view = self.runner.command(sid, "answer", question_id=question["question_id"], answer=answer)

    def lesson(self, student: SimulatedStudent, cards: int = 4) -> Optional[str]:
        if "lesson" not in self.runner.flows:
            return None
        sid = self.runner.start("lesson", student.name, {"subject": self.subject, "level": self.level, "cards": cards,
                                                         "seed": f"{self.seed}/{self.sessions}"})
        self.sessions += 1
        view = self.runner.view(sid)
        last = None
        for _ in range(40):
            stage = view.get("stage")
            if stage in ("ended", "completed", "done"):
                break
            question = (view.get("card") or {}).get("question") or view.get("question")
            if stage in ("question", "retry", "card") and question:
                answer, _ = self.respond(student, question["id"])
                if stage == "retry" and answer == last:
                    # Told to try again, a student does not send the same answer (the flow would ignore it).
                    answer = self.unsure(self.runner.item(question["id"]), avoid=last)
                last = answer
                view = self.runner.command(sid, "answer", item_id=question["id"], answer=answer)
            else:
                try:
                    view = self.runner.command(sid, "next")
                except FlowError:
                    break
        return sid

    def exam(self, student: SimulatedStudent, count: int, paper: Optional[str] = None) -> str:
        """A mock exam: a paper of the student's own, or with ``paper`` (a seed) the class's shared paper."""
        config: dict[str, Any] = {"subject": self.subject, "level": self.level, "exam_count": count}
        if paper is None:
            config["seed"] = f"{self.seed}/{self.sessions}"
        else:
            config.update(seed=paper, paper_key=paper_key(paper))
        sid = self.runner.start("exam", student.name, config)
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
    def history(self, names: list[str], practice_sessions: int = 4, questions: int = 6, lessons: int = 1,
                exams: int = 1, lesson_cards: int = 4, progress: Optional[Callable[[int, int], None]] = None,
                now: Optional[float] = None) -> dict:
        """Each named student's sittings over the last ``days`` days, the newest earlier today (see ``term_plan``).

        The exit ticket follows a student's latest practice sitting only: that
        is the one a teacher reads, and each costs as much as a practice question.
        """
        now = time.time() if now is None else now
        self.clock.ceiling = time.time
        plans = term_plan(now, self.days, len(names), practice_sessions, lessons, exams,
                          random.Random(f"term|{self.seed}"))
        roster = [SimulatedStudent(name, round(self.rng.gauss(0, 1), 3)) for name in names]
        for n, (student, plan) in enumerate(zip(roster, plans)):
            for sitting in plan:
                self.clock.t = sitting.at
                if sitting.kind == "practice":
                    self.practice(student, questions, mode="adaptive" if sitting.number % 2 else "practice",
                                  exit_ticket=sitting.number == practice_sessions - 1)
                elif sitting.kind == "lesson":
                    self.lesson(student, lesson_cards)
                else:
                    self.exam(student, sitting.number + 1, paper=f"{self.seed}/mock{sitting.number + 1}")
            if progress:
                progress(n + 1, len(names))
        return self._summary(roster)

    def _summary(self, roster: list[SimulatedStudent]) -> dict:
        return {"students": [dataclasses.asdict(s) for s in roster], "sessions": self.sessions,
                "responses": self.responses,
                "blueprints": {k: {"discrimination": a, "difficulty_offset": b} for k, (a, b) in sorted(self._skill_truth.items())}}

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
        return self._summary(roster)
