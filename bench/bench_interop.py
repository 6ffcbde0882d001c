"""Question exchange on a real DuckDB file: exporting a bank in each format and importing it into an empty database.

For each of QTI 3.0, Moodle XML and GIFT: writing N approved items (of every kind the library makes), the file's
size, then reading that file back as drafts into a fresh database (every key rechecked by the marker) and
importing it a second time (every question found to be a duplicate). Baselines in the same run: writing the
same items as JSON (export), and storing the same items directly (import).

    python bench/bench_interop.py [--items 600]
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.blueprints.library import Library  # noqa: E402
from core.exams.diagrams import diagram_file  # noqa: E402
from core.items.interop.exporting import distractor_feedback, export_items, select_items  # noqa: E402
from core.items.interop.importing import import_file  # noqa: E402
from core.store import Store, repo  # noqa: E402

SKILLS = ["SQA.MATH.N5.SINE_RULE", "SQA.MATH.AH.MATRIX_DETERMINANT", "SQA.MATH.N5.COSINE_RULE",
          "SQA.MATH.AH.BINOMIAL_COEFF", "SQA.MATH.N5.LINEAR_EQUATIONS", "SQA.MATH.N5.FRACTIONS_MIXED_NUMBERS",
          "SQA.MATH.N5.PYTHAGORAS", "SQA.MATH.H.DIFFERENTIATE", "SQA.MATH.H.COMPOSITE_FUNCTION",
          "SQA.MATH.N3.TIME_INTERVAL", "SQA.MATH.N5.GRADIENT", "SQA.MATH.N5.CHANGE_SUBJECT"]


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=600)
    args = parser.parse_args()
    library = Library.load(exercise=False)
    scratch = tempfile.TemporaryDirectory(prefix="bench-interop-")
    folder = Path(scratch.name)
    store = Store(folder / "school.duckdb")
    per_skill = max(1, args.items // len(SKILLS))
    for level in ("easy", "medium", "hard"):
        for skill in SKILLS:
            gen = library.generator(skill)
            if level in gen.cs.levels:
                repo.insert_items(store, gen.batch(level, max(1, per_skill // 3), seed="bench").items,
                                  status="approved")
    items = select_items(store)
    print(f"{len(items)} approved items of {len(SKILLS)} skills (choice, numeric, exact, fraction, steps, "
          f"algebraic, short text)\n")
    _, json_s = timed(lambda: json.dumps([dataclasses.asdict(it) for it in items]).encode())
    print(f"baseline: the same items as JSON {json_s * 1000:8.1f} ms")
    print(f"{'format':<11} {'written':>7} {'skipped':>7} {'size':>9} {'export':>10} {'x JSON':>7} "
          f"{'import':>10} {'per item':>9} {'x store':>8} {'again':>9}")
    for fmt in ("qti3", "moodle-xml", "gift"):
        report, export_s = timed(export_items, items, fmt, option_feedback=distractor_feedback(library),
                                 draw=diagram_file)
        fresh = Store(folder / f"fresh-{fmt}.duckdb")
        imported, import_s = timed(import_file, fresh, report.data, report.filename)
        again, again_s = timed(import_file, fresh, report.data, report.filename)
        assert len(imported.imported) == len(report.items), imported.skipped[:3]
        assert not again.imported
        rows = [repo.row_to_item(r) for r in repo.list_items(fresh, limit=100_000)]
        fresh.close()
        baseline = Store(folder / f"baseline-{fmt}.duckdb")
        _, store_s = timed(repo.insert_items, baseline, rows, "draft")
        baseline.close()
        n = max(1, len(imported.imported))
        print(f"{fmt:<11} {len(report.items):>7} {len(report.skipped):>7} {len(report.data) / 1024:>7.0f} kB "
              f"{export_s * 1000:>7.1f} ms {export_s / json_s:>6.1f}x {import_s * 1000:>7.1f} ms "
              f"{import_s / n * 1000:>6.2f} ms {import_s / store_s:>7.1f}x {again_s * 1000:>6.1f} ms")
    store.close()


if __name__ == "__main__":
    main()
