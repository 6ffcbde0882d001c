"""The Analytics page's queries at 1,000,000 responses (aim: under 1 s each).

Builds a DuckDB file with one class of 10,000 students, 100 answers each on
about 4,000 generated Nat 5 items (correctness from a Rasch model with one true
difficulty per blueprint level), their practice sessions and mastery rows,
then times every function the page calls, with a stored calibration in place
as a teacher would have it.

    python bench/bench_analytics.py [--students 10000] [--answers 100]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.analytics import reports  # noqa: E402
from core.blueprints.library import Library  # noqa: E402
from core.school.classes import create_class  # noqa: E402
from core.store import Store, repo, school  # noqa: E402
from core.store import analytics as data  # noqa: E402
from core.store.responses import import_responses  # noqa: E402

AIM_S = 1.0
CLASS = "BENCH-1"


def build(store: Store, library: Library, students: int, answers: int, seed: int = 0) -> dict:
    rng = np.random.default_rng(seed)
    items = []
    for sid, gen in sorted(library.generators.items()):
        if gen.bp.metadata.level != "Nat 5":
            continue
        for level in gen.cs.levels:
            items += gen.batch(level, 20, "bench").items
    repo.insert_items(store, items, status="approved")
    create_class(store, CLASS, "Benchmark class", "Mathematics", "Nat 5")
    names = [f"{CLASS}:s{i:05d}" for i in range(students)]
    school.add_students(store, CLASS, [(n, f"Student {i:05d}") for i, n in enumerate(names)])
    fam = np.array([f"{it.blueprint_id}|{it.difficulty_level}" for it in items])
    families, fam_code = np.unique(fam, return_inverse=True)
    true_b = rng.normal(0, 1, len(families))
    theta = rng.normal(0, 1, students)
    s = np.repeat(np.arange(students), answers)
    i = rng.integers(0, len(items), students * answers)
    correct = rng.random(len(s)) < 1 / (1 + np.exp(-(theta[s] - true_b[fam_code[i]])))
    start = pd.Timestamp("2026-09-01")
    day = rng.integers(0, 60, len(s))
    when = start + pd.to_timedelta(day * 86400 + np.tile(np.arange(answers) * 30, students), unit="s")
    student_ids = np.array(names)[s]
    sessions = pd.Series(student_ids).str.cat(pd.Series(day).astype(str), sep="|").radd("prac_")
    frame = pd.DataFrame({"student": student_ids, "item_id": np.array([it.id for it in items])[i],
                          "correct": correct, "session_id": sessions, "created_at": when,
                          "score": correct.astype(float), "max_score": 1.0})
    t = time.perf_counter()
    stored = import_responses(store, frame)
    load_s = time.perf_counter() - t
    sess = frame.groupby("session_id").agg(student=("student", "first"), created_at=("created_at", "min")).reset_index()
    data.bulk_insert(store, "sessions", sess.rename(columns={"session_id": "id"}).assign(
        kind="practice", status="completed", config="{}", updated_at=sess["created_at"]))
    skills = np.array([it.blueprint_id for it in items])[i]
    mastery = pd.DataFrame({"student": student_ids, "skill": skills}).drop_duplicates()
    data.bulk_insert(store, "mastery", mastery.assign(score=rng.random(len(mastery)), updated_at=start))
    return {"responses": stored, "items": len(items), "load_s": load_s, "students": names}


def timed(label: str, fn, rows: list) -> object:
    t = time.perf_counter()
    out = fn()
    rows.append((label, time.perf_counter() - t))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--students", type=int, default=10_000)
    parser.add_argument("--answers", type=int, default=100)
    args = parser.parse_args()
    library = Library.load(exercise=False)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.duckdb")
        t = time.perf_counter()
        built = build(store, library, args.students, args.answers)
        print(f"built {built['responses']:,} responses on {built['items']:,} items for {args.students:,} students "
              f"in {time.perf_counter() - t:.1f} s (bulk insert of the responses {built['load_s']:.2f} s)\n")
        rows: list = []
        timed("calibration, rasch by auto (stored)", lambda: reports.run_calibration(store, "rasch", "auto", CLASS), rows)
        timed("calibration, 2pl by family (stored)", lambda: reports.run_calibration(store, "2pl", "family", CLASS), rows)
        page: list = []
        timed("load responses with items", lambda: data.responses(store, CLASS), page)
        timed("class overview (figures, activity, students)", lambda: reports.class_overview(store, CLASS), page)
        timed("abilities with intervals", lambda: reports.abilities(store, CLASS), page)
        timed("mastery heatmap", lambda: reports.mastery_matrix(store, library, CLASS), page)
        timed("class weakest skills (stored mastery)", lambda: reports.class_weakest(store, library, CLASS), page)
        timed("one student's report", lambda: reports.student_report(store, library, built["students"][7]), page)
        timed("newest calibration's parameters", lambda: reports.latest_parameters(store), page)
        timed("Wright map", lambda: reports.wright_map(store), page)
        timed("facility and discrimination by family", lambda: reports.item_table(store, CLASS), page)
        timed("distractors of one blueprint", lambda: reports.distractor_report(store, CLASS, "SQA.MATH.N5.SURDS"), page)
        timed("parameter effects of one blueprint",
              lambda: reports.parameter_report(store, CLASS, "SQA.MATH.N5.ARC_SECTOR"), page)
        timed("blueprint fixes (on demand, behind a button)", lambda: reports.blueprint_fixes(store, CLASS), rows)
        timed("exam results", lambda: reports.exam_report(store, CLASS), page)
        store.close()
    print("one-off work                                   seconds")
    for label, s in rows:
        print(f"  {label:<44} {s:6.2f}")
    print(f"\nthe Analytics page's queries at {built['responses']:,} responses   seconds   (aim < {AIM_S:.0f} s each)")
    for label, s in page:
        print(f"  {label:<44} {s:6.2f}   {'ok' if s < AIM_S else 'over'}")


if __name__ == "__main__":
    main()
