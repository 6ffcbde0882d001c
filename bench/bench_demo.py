"""First start: opening a fresh database and building the demo class, against the 5 s aim.

Each run is a fresh process on a fresh database file, as the app's first start
is: nothing is compiled, sampled or imported beyond what the app has imported
before it opens the database. Prints the median of the runs with the
breakdown: open + blueprints (open_workbench), class (class, roster and the
commit), simulation (the students' three weeks through the real flows).

    python bench/bench_demo.py [--runs 3]
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

AIM_S = 5.0
PARTS = ("open", "class", "simulation")


def one(db: Path) -> dict:
    """Build the demo once in this process; the parts' times in seconds."""
    from core.demo import classroom
    from core.store import school
    from core.workbench import open_workbench

    simulated = 0.0
    real_simulate = classroom._simulate

    def timed_simulate(*args, **kwargs):
        nonlocal simulated
        start = time.perf_counter()
        try:
            return real_simulate(*args, **kwargs)
        finally:
            simulated += time.perf_counter() - start

    classroom._simulate = timed_simulate
    start, cpu = time.perf_counter(), time.process_time()
    wb = open_workbench(db)
    opened = time.perf_counter()
    assert classroom.ensure_demo(wb.store, wb.library)
    built, cpu = time.perf_counter(), time.process_time() - cpu
    sessions = wb.store.query("SELECT count(*) FROM sessions")[0][0]
    responses = wb.store.query("SELECT count(*) FROM responses")[0][0]
    students = len(school.roster(wb.store, classroom.DEMO_CODE))
    wb.store.close()
    return {"open": opened - start, "class": built - opened - simulated, "simulation": simulated,
            "total": built - start, "cpu": cpu, "sessions": sessions, "responses": responses, "students": students}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--one", metavar="DB", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one(Path(args.one))))
        return

    runs = []
    for n in range(args.runs):
        with tempfile.TemporaryDirectory(prefix="bench-demo-") as scratch:   # removed when the run ends
            out = subprocess.run([sys.executable, __file__, "--one", str(Path(scratch) / "workbench.duckdb")],
                                 capture_output=True, text=True, cwd=ROOT)
        if out.returncode:
            sys.exit(f"run {n + 1} failed:\n{out.stderr}")
        run = json.loads(out.stdout.strip().splitlines()[-1])
        runs.append(run)
        print(f"run {n + 1}: {run['total']:.2f} s  (" + ", ".join(f"{p} {run[p]:.2f}" for p in PARTS)
              + f"; CPU {run['cpu']:.2f} s; {run['students']} students, {run['sessions']} sessions, "
              f"{run['responses']} responses)")
    total = statistics.median(r["total"] for r in runs)
    print(f"\nfirst start, median of {len(runs)}: {total:.2f} s  (aim {AIM_S:.1f} s: {total / AIM_S:.2f} of it; "
          f"CPU {statistics.median(r['cpu'] for r in runs):.2f} s)")
    for part in PARTS:
        print(f"  {part:<11} {statistics.median(r[part] for r in runs):6.2f} s  (median)")


if __name__ == "__main__":
    main()
