"""Session flows on each backend (a DuckDB file and a PostgreSQL database): exam assembly, practice steps,
concurrent students.

1. National 5 Mathematics mock exam assembly, stored (items, seen rows, events):
   cold (first exam in a fresh process) and warm, against seed 000's 5 s target.
2. One practice step (answer, mark, persist, next item): p50 and p99.
3. N concurrent simulated students x M answers on one database (threads, one
   process, as the app runs): responses per second, and a check that no
   response is lost or duplicated.

The same work runs on each backend; a closing table sets PostgreSQL's figures
against DuckDB's.

    python bench/bench_flows.py [--exams 10] [--steps 200] [--students 50] [--answers 200]
                                [--backend duckdb|postgresql|both] [--pg-url URL]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from backends import add_arguments, each, ratio_line  # noqa: E402

from core.blueprints.library import Library  # noqa: E402
from core.flows.registry import make_runner  # noqa: E402
from core.store import Store, repo  # noqa: E402

SEED_EXAM_TARGET_S = 5.0
AIM_EXAM_S = 0.050
AIM_STEP_P99_S = 0.020


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def answer_for(store: Store, item_id: str, right: bool) -> str:
    item = repo.load_item(store, item_id)
    if item.options:   # a choice: an option, never text the question cannot read (that costs nothing)
        return item.options[item.correct_index if right else (item.correct_index + 1) % len(item.options)]
    return item.correct_answer if right else "0"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--exams", type=int, default=10)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--students", type=int, default=50)
    parser.add_argument("--answers", type=int, default=200)
    add_arguments(parser)
    args = parser.parse_args()
    library = Library.load(exercise=False)
    figures = each(args, "bench-flows", lambda target: run(library, Store(target), args))
    if len(figures) < 2:
        return
    print("\n=== the same work on each backend ===")
    for key, label, unit, scale in (("exam_cold", "exam assembly, cold", "ms", 1000.0),
                                    ("exam_warm", "exam assembly, warm median", "ms", 1000.0),
                                    ("step_p50", "practice step p50", "ms", 1000.0),
                                    ("step_p99", "practice step p99", "ms", 1000.0),
                                    ("per_response", "concurrent students, per response", "ms", 1000.0)):
        line = ratio_line(label, {b: f[key] for b, f in figures.items()}, unit, scale)
        if line:
            print(line)
    lost = {b: f["lost"] + f["duplicated"] for b, f in figures.items()}
    print("  responses lost or duplicated: " + ", ".join(f"{b} {n:.0f}" for b, n in lost.items()))


def run(library: Library, store: Store, args: argparse.Namespace) -> dict[str, float]:
    runner = make_runner(store, library)

    # 1. Exam assembly -------------------------------------------------------
    start = time.perf_counter()
    sid = runner.start("exam", "cold", {"subject": "Mathematics", "level": "Nat 5", "seed": "cold"})
    cold = time.perf_counter() - start
    exam = runner.view(sid)["exam"]
    warm = []
    for n in range(args.exams):
        start = time.perf_counter()
        runner.start("exam", f"exam{n}", {"subject": "Mathematics", "level": "Nat 5", "seed": n})
        warm.append(time.perf_counter() - start)
    w50 = statistics.median(warm)
    print("Nat 5 Mathematics mock exam, assembled and stored "
          f"({exam['question_count']} questions, {exam['total_marks']} marks)")
    print(f"  cold (first in process, samplers prepared): {cold * 1000:8.1f} ms   "
          f"{SEED_EXAM_TARGET_S / cold:6.1f}x under the seed's {SEED_EXAM_TARGET_S:.0f} s")
    print(f"  warm median of {args.exams}:                    {w50 * 1000:8.1f} ms   "
          f"{SEED_EXAM_TARGET_S / w50:6.1f}x under the seed's {SEED_EXAM_TARGET_S:.0f} s; "
          f"aim {AIM_EXAM_S * 1000:.0f} ms: {AIM_EXAM_S / w50:.2f}x")

    # 2. Practice steps ------------------------------------------------------
    sid = runner.start("practice", "stepper", {"subject": "Mathematics", "level": "Nat 5", "seed": "steps"})
    for n in range(20):  # warm the samplers this session will draw from
        q = runner.view(sid)["question"]
        runner.command(sid, "answer", item_id=q["id"], answer="0")
        runner.command(sid, "next")
    steps = []
    for n in range(args.steps):
        q = runner.view(sid)["question"]
        answer = answer_for(store, q["id"], n % 3 != 0)
        start = time.perf_counter()
        runner.command(sid, "answer", item_id=q["id"], answer=answer)
        runner.command(sid, "next")
        steps.append(time.perf_counter() - start)
    p50, p99 = pct(steps, 0.5), pct(steps, 0.99)
    print(f"\nPractice step (answer, mark, persist, next item), {args.steps} steps")
    print(f"  p50 {p50 * 1000:6.1f} ms   p99 {p99 * 1000:6.1f} ms   "
          f"(aim p99 {AIM_STEP_P99_S * 1000:.0f} ms: {AIM_STEP_P99_S / p99:.2f}x)")

    # 3. Concurrent students ---------------------------------------------------
    sessions = {f"student{k:02d}": runner.start("practice", f"student{k:02d}",
                                                 {"subject": "Mathematics", "level": "Nat 5", "seed": k})
                for k in range(args.students)}
    errors: list[BaseException] = []
    answered: dict[str, int] = {}

    def student(name: str, session_id: str) -> None:
        try:
            count = 0
            for n in range(args.answers):
                q = runner.view(session_id)["question"]
                runner.command(session_id, "answer", item_id=q["id"], answer=answer_for(store, q["id"], n % 2 == 0))
                count += 1
                runner.command(session_id, "next")
            answered[name] = count
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=student, args=(name, sid)) for name, sid in sessions.items()]
    start = time.perf_counter()
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    elapsed = time.perf_counter() - start
    expected = args.students * args.answers
    ids = list(sessions.values())
    marks = ", ".join("?" for _ in ids)
    stored, distinct = store.query(
        f"SELECT count(*), count(DISTINCT (session_id, item_id, attempt)) FROM responses WHERE session_id IN ({marks})", ids)[0]
    print(f"\n{args.students} concurrent students x {args.answers} answers on one database")
    print(f"  {expected / elapsed:8.1f} responses/s ({elapsed:.1f} s); stored {stored} of {expected}, "
          f"lost {expected - stored}, duplicated {stored - distinct}, errors {len(errors)}")
    if errors:
        print(f"  first error: {errors[0]!r}")
    store.close()
    return {"exam_cold": cold, "exam_warm": w50, "step_p50": p50, "step_p99": p99,
            "per_response": elapsed / expected, "lost": expected - stored, "duplicated": stored - distinct}


if __name__ == "__main__":
    main()
