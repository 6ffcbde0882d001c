"""A class with plenty of answers on every figure the Analytics page shows, written straight to the store.

The simulator answers through the real flows, which takes about a second per
student; a class where every blueprint level has hundreds of answers is
built here instead: generated items of two blueprints, each student answering
``answers`` of them (Rasch model, one true difficulty per level) in practice
sessions, with their mastery rows.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.blueprints.library import Library
from core.school.classes import create_class
from core.store import Store, repo, school
from core.store import analytics as data
from core.store.responses import import_responses

BLUEPRINTS = ("SQA.MATH.N5.SURDS", "SQA.MATH.N5.ARC_SECTOR")


def many_answers_class(store: Store, library: Library, code: str, students: int = 40, answers: int = 60,
                       seed: int = 0) -> list[str]:
    """Build class ``code``; the students' ids."""
    rng = np.random.default_rng(seed)
    items = []
    for bp in BLUEPRINTS:
        gen = library.generators[bp]
        for level in gen.cs.levels:
            items += gen.batch(level, 20, f"{code}-{seed}").items
    repo.insert_items(store, items, status="approved")
    create_class(store, code, f"Class {code}", "Mathematics", "Nat 5")
    names = [f"{code}:s{i:03d}" for i in range(students)]
    school.add_students(store, code, [(n, f"Student {i:03d}") for i, n in enumerate(names)])
    families = sorted({f"{it.blueprint_id}|{it.difficulty_level}" for it in items})
    true_b = dict(zip(families, np.linspace(-1.5, 1.5, len(families))))
    theta = rng.normal(0, 1, students)
    start = pd.Timestamp.now().floor("D") - pd.Timedelta(days=10)
    rows = []
    for s, name in enumerate(names):
        chosen = rng.choice(len(items), size=answers, replace=False)
        for k, i in enumerate(chosen):
            it = items[i]
            p = 1 / (1 + np.exp(-(theta[s] - true_b[f"{it.blueprint_id}|{it.difficulty_level}"])))
            right = bool(rng.random() < p)
            rows.append({"student": name, "item_id": it.id, "correct": right, "score": float(right), "max_score": 1.0,
                         "session_id": f"prac_{name}|{k // 20}",
                         "created_at": start + pd.Timedelta(days=k // 20, minutes=k)})
    frame = pd.DataFrame(rows)
    import_responses(store, frame)
    sessions = frame.groupby("session_id").agg(student=("student", "first"), created_at=("created_at", "min"))
    data.bulk_insert(store, "sessions", sessions.reset_index().rename(columns={"session_id": "id"}).assign(
        kind="practice", status="completed", config="{}", updated_at=lambda d: d["created_at"]))
    mastery = pd.DataFrame([{"student": n, "skill": bp, "score": float(rng.uniform(0.2, 0.95)), "updated_at": start}
                            for n in names for bp in BLUEPRINTS])
    data.bulk_insert(store, "mastery", mastery)
    return names
