"""Exams end to end on a real DuckDB file: printed papers, a class sitting an assigned paper, the gradebook.

1. Printed papers (National 5 and Higher): building the paper, then writing paper.html and
   marking-scheme.html (MathML made on the server, SVG diagrams); printing as a share of building.
2. A class of N students sits an assigned National 5 paper (saves, hand-in, marking): hand-in p50/p99,
   against one saved answer as the baseline.
3. The gradebook of that class: the student x question table, a student's script, an override,
   re-marking the whole assignment, CSV and Parquet exports; each against reading the sittings alone.

    python bench/bench_exams.py [--students 30] [--seeds 3]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.blueprints.library import Library  # noqa: E402
from core.exams import gradebook, papers, printing  # noqa: E402
from core.exams.scheme import marking_scheme_html  # noqa: E402
from core.flows.registry import make_runner  # noqa: E402
from core.school import assignments, sittings  # noqa: E402
from core.school.classes import add_student, create_class  # noqa: E402
from core.store import Store, repo  # noqa: E402

CLASS = "BENCH-5"


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=30)
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args()

    library = Library.load(exercise=False)
    scratch = tempfile.TemporaryDirectory(prefix="bench-exams-")   # removed when the run ends
    folder = Path(scratch.name)
    store = Store(folder / "bench.duckdb")
    runner = make_runner(store, library)
    source = runner.ctx.source

    # 1. Printed papers --------------------------------------------------------
    print("Printed papers (build the paper; write paper.html and marking-scheme.html)")
    for level in ("Nat 5", "Higher"):
        builds, prints, sizes = [], [], []
        for seed in range(1, args.seeds + 1):
            paper, built = timed(papers.build_paper, source, "Mathematics", level, seed)
            start = time.perf_counter()
            html, scheme = printing.paper_html(paper), marking_scheme_html(paper)
            prints.append(time.perf_counter() - start)
            builds.append(built)
            sizes.append((len(html) + len(scheme)) / 1024)
        b, p = statistics.median(builds), statistics.median(prints)
        print(f"  Mathematics {level:6s} {paper['total_marks']} marks, {paper['question_count']} answer slots: "
              f"build {ms(b)}, print {ms(p)} ({p / b:.2f}x the build), {statistics.median(sizes):.0f} KiB")

    # 2. A class sits an assigned paper ----------------------------------------
    create_class(store, CLASS, "Bench class", "Mathematics", "Nat 5")
    students = [add_student(store, CLASS, f"Student {k:02d}") for k in range(args.students)]
    now = time.time()
    aid = assignments.create(store, CLASS, "Prelim", {"subject": "Mathematics", "level": "Nat 5", "seed": "1"},
                             assignments.utc(now - 3600), assignments.utc(now + 86400), None, release="on_submit")
    keys: dict[str, str] = {}
    saves, hand_ins, session_ids = [], [], []
    for k, student in enumerate(students):
        kind, config = sittings.assignment_start(assignments.get_assignment(store, aid))
        sid = runner.start(kind, student, config)
        session_ids.append(sid)
        qs = [q for s in runner.state(sid)["package"]["sections"] for q in s["questions"]]
        for n, q in enumerate(qs):
            if n % 3 == k % 3:
                continue   # a third left blank, differently for each student
            if q["id"] not in keys:
                keys[q["id"]] = repo.load_item(store, q["id"]).typed_answer
            answer = keys[q["id"]] if (n + k) % 4 else "0"
            _, took = timed(runner.command, sid, "save", item_id=q["id"], answer=answer)
            saves.append(took)
        _, took = timed(runner.command, sid, "submit")
        hand_ins.append(took)
    print(f"\n{args.students} students sit an assigned National 5 paper ({len(qs)} answer slots each)")
    print(f"  save one answer (baseline)  p50 {ms(pct(saves, .5))}   p99 {ms(pct(saves, .99))}")
    print(f"  hand in and mark            p50 {ms(pct(hand_ins, .5))}   p99 {ms(pct(hand_ins, .99))}   "
          f"({pct(hand_ins, .5) / pct(saves, .5):.0f}x one save)")

    # 3. The gradebook -----------------------------------------------------------
    runner.forget()
    _, read_all = timed(lambda: [runner.state(sid) for sid in session_ids])   # the sittings alone, cold
    runner.forget()
    gb, built = timed(gradebook.build, runner, aid)
    _, warm = timed(gradebook.build, runner, aid)
    _, script = timed(gradebook.script, runner, session_ids[0])
    first = next(iter(runner.state(session_ids[0])["marking"]["questions"]))
    _, overridden = timed(gradebook.override, runner, session_ids[0], first, 0, "Bench: marked by hand")
    changes, remarked = timed(gradebook.remark, runner, aid)
    _, csv = timed(gradebook.to_csv, gb)
    _, parquet = timed(gradebook.to_parquet, gb)
    print(f"\nGradebook of {args.students} students (baseline: reading their {len(session_ids)} sittings, "
          f"{ms(read_all).strip()})")
    print(f"  table, cold                 {ms(built)}   ({built / read_all:.2f}x the baseline)")
    print(f"  table, warm                 {ms(warm)}   ({warm / read_all:.2f}x)")
    print(f"  one student's script        {ms(script)}")
    print(f"  override one mark           {ms(overridden)}")
    print(f"  re-mark the assignment      {ms(remarked)}   ({remarked / read_all:.2f}x; {len(changes)} changes)")
    print(f"  CSV export                  {ms(csv)}")
    print(f"  Parquet export              {ms(parquet)}")
    store.close()


if __name__ == "__main__":
    main()
