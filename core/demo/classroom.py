"""The demo class: a roster with simulated history, so every page has something to show on first run."""
from __future__ import annotations

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


def demo_students() -> list[str]:
    return [student_id(DEMO_CODE, n) for n in DEMO_NAMES]


def ensure_demo(store: Store, library: Library, progress: Optional[Callable[[int, int], None]] = None,
                seed: str = "demo") -> bool:
    """Create the demo class with history if the database has no class yet; True when it did."""
    if school.list_classes(store):
        return False
    create_class(store, DEMO_CODE, "Demo class (S4 National 5 Mathematics)", "Mathematics", "Nat 5", demo=True)
    school.add_students(store, DEMO_CODE, list(zip(demo_students(), DEMO_NAMES)))
    _simulate(store, library, progress, seed)
    return True


def reset_demo(store: Store, library: Library, progress: Optional[Callable[[int, int], None]] = None,
               seed: str = "demo") -> None:
    """Throw away everything the demo students did and simulate it afresh."""
    if school.get_class(store, DEMO_CODE) is None:
        ensure_demo(store, library, progress, seed)
        return
    school.delete_student_history(store, demo_students())
    _simulate(store, library, progress, seed)


def _simulate(store: Store, library: Library, progress, seed: str) -> None:
    sim = Simulation(store, library, seed=seed, subject="Mathematics", level="Nat 5", days=21)
    sim.run(len(DEMO_NAMES), practice_sessions=2, questions=6, exams=1, lessons=0, progress=progress,
            names=demo_students())
