"""The demo class: a roster with simulated history, so every page has something to show on first run.

The history covers the three weeks up to today, so Analytics shows recent
activity on the first visit. It is built in one transaction: a build that is
interrupted (the process killed, the page closed) leaves no trace, and the
next start builds the class afresh instead of finding half of it.
"""
from __future__ import annotations

import threading
from typing import Callable, Optional

from core.school.auth import student_id
from core.blueprints.library import Library
from core.school.classes import create_class
from core.demo.simulate import Simulation
from core.store import Store
from core.store import school

DEMO_CODE = "DEMO-N5"
DEMO_NAMES = ["Ava Brown", "Ben Clark", "Cara Duncan", "Dev Patel", "Ella Fraser", "Finn Graham",
              "Grace Hughes", "Hamza Iqbal"]
HISTORY_DAYS = 21
# Sized to build in a few seconds on a small machine: every answer goes through the real flows.
DEMO_PRACTICE = 3            # practice sittings per student, the first three weeks ago, the last today
DEMO_QUESTIONS = 2           # questions per practice sitting: short homework check-ins
DEMO_LESSONS = 1
DEMO_LESSON_CARDS = 3
DEMO_EXAMS = 1

# Two first page loads in one process must not both build: the second waits, then finds the class.
_building = threading.Lock()


def demo_students() -> list[str]:
    return [student_id(DEMO_CODE, n) for n in DEMO_NAMES]


def ensure_demo(store: Store, library: Library, progress: Optional[Callable[[int, int], None]] = None,
                seed: str = "demo") -> bool:
    """Create the demo class with history if the database has no class yet; True when it did."""
    with _building:
        if school.list_classes(store):
            return False
        with store.single_threaded(), store.transaction():
            # Sessions of these students without their class (say, the class was removed) would double up.
            school.delete_student_history(store, demo_students())
            create_class(store, DEMO_CODE, "Demo class (S4 National 5 Mathematics)", "Mathematics", "Nat 5",
                         demo=True)
            school.add_students(store, DEMO_CODE, list(zip(demo_students(), DEMO_NAMES)))
            _simulate(store, library, progress, seed)
        return True


def reset_demo(store: Store, library: Library, progress: Optional[Callable[[int, int], None]] = None,
               seed: str = "demo") -> None:
    """Throw away everything the demo students did and simulate it afresh (the old history stays if this fails)."""
    with _building:
        if school.get_class(store, DEMO_CODE) is not None:
            with store.single_threaded(), store.transaction():
                school.delete_student_history(store, demo_students())
                _simulate(store, library, progress, seed)
            return
    ensure_demo(store, library, progress, seed)


def _simulate(store: Store, library: Library, progress, seed: str) -> None:
    sim = Simulation(store, library, seed=seed, subject="Mathematics", level="Nat 5", days=HISTORY_DAYS)
    sim.history(demo_students(), practice_sessions=DEMO_PRACTICE, questions=DEMO_QUESTIONS, lessons=DEMO_LESSONS,
                exams=DEMO_EXAMS, lesson_cards=DEMO_LESSON_CARDS, progress=progress)
