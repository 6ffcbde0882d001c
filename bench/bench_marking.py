"""Marking speed per method: marks per second, p50 and p99 per answer, and the slowest answer.

Each method is marked over a fixed mix of answers a class really gives (right,
wrong, other forms, typos, hostile input), repeated to --rounds. The first
algebraic answer of a process pays for importing sympy; it is reported apart
and left out of the percentiles. Marking keeps parses it has made in small
caches; a class's answers are mostly new to it, so every answer here is
timed with those caches emptied first (the "new answer" figures), and the
repeats are shown apart. Aims: p99 under 20 ms for numeric answers
(with or without units) and under 100 ms for algebraic ones.

    python bench/bench_marking.py [--rounds 20]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.marking import MarkingSpec, mark_answer  # noqa: E402

AIMS_P99_MS = {"numeric": 20.0, "numeric with units": 20.0, "algebraic": 100.0}
# The same cases with the reader before units were converted, significant figures followed the
# documented rule and algebra stopped assuming positive variables (same machine, 2 cores): p99 ms.
BEFORE_P99_MS = {"numeric": 0.07, "numeric with units": 0.06, "algebraic": 1.9}

CASES: dict[str, list[tuple[MarkingSpec, list[str]]]] = {
    "numeric": [
        (MarkingSpec(method="numeric_tolerance", key="-32/9", answer_type="fraction", tolerance_absolute=0.001),
         ["-32/9", "-3.5556", "-3.556", "-3 5/9", "-3.5", "32/9", "-64/18", "−32/9", "abc", "1e999999"]),
        (MarkingSpec(method="numeric_tolerance", key="0.0512", answer_type="decimal", significant_figures=3),
         ["0.0512", "5.12e-2", "5.12×10^-2", "0.051", "0.05120", ".0512", "5.1e-2", "0,0512"]),
        (MarkingSpec(method="exact_match", key="42", answer_type="integer"),
         ["42", " 42 ", "42.0", "41", "forty-two", "x = 42", "4 2"]),
    ],
    "numeric with units": [
        (MarkingSpec(method="numeric_tolerance", key="46.2", answer_type="decimal", tolerance_relative=0.01,
                     units="cm^2"),
         ["46.2 cm^2", "46.2cm²", "46.2", "0.00462 m^2", "46.2 cm", "46 cm^2", "4620 mm^2", "46.2 square cm"]),
        (MarkingSpec(method="numeric_tolerance", key="25", answer_type="decimal", tolerance_relative=0.02,
                     units="m/s"),
         ["25 m/s", "90 km/h", "25 ms^-1", "25", "2500 cm/s", "24.8 m/s", "25 m"]),
    ],
    "algebraic": [
        (MarkingSpec(method="algebraic_equivalence", key="x^2 - 9", answer_type="expression"),
         ["x^2-9", "(x+3)(x-3)", "x*x - 9", "x^2+9", "x2-9", "(x-3)*(x+3)", "x^2 - 3^2", "sinx"]),
        (MarkingSpec(method="algebraic_equivalence", key="(2x+1)(x-3)", answer_type="expression",
                     required_form="factorised"),
         ["(2x+1)(x-3)", "(x-3)(2x+1)", "2x^2-5x-3", "(2x-1)(x+3)", "2(x+1/2)(x-3)"]),
        (MarkingSpec(method="algebraic_equivalence", key="sqrt(x^2)", answer_type="expression"),
         ["abs(x)", "x", "sqrt(x^2)", "(x^2)^(1/2)", "|x|"]),
        (MarkingSpec(method="algebraic_equivalence", key="y = 2x + 1", answer_type="expression"),
         ["y=2x+1", "2x+1=y", "2x - y + 1 = 0", "y = 2x - 1", "y-1=2x"]),
    ],
    "multiple choice": [
        (MarkingSpec(method="mcq", key="12", options=["10", "12", "14", "21"], correct_index=1),
         ["B", "b", "12", "1", "A", "(b)", "twelve"]),
    ],
    "short text": [
        (MarkingSpec(method="short_text", key="photosynthesis", keywords=["light", "glucose", "chlorophyll"],
                     min_keywords=2),
         ["light makes glucose", "Chlorophyll absorbs light", "plants grow", "", "LIGHT GLUCOSE"]),
    ],
}


def marking_caches() -> list:
    """The parse and equivalence caches inside core.marking (not the one-off sympy import)."""
    import functools
    import importlib
    import pkgutil

    import core.marking
    caches = []
    for info in pkgutil.iter_modules(core.marking.__path__, "core.marking."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if isinstance(value, functools._lru_cache_wrapper) and (value.cache_parameters()["maxsize"] or 0) > 1:  # noqa: SLF001
                caches.append(value)
    return caches


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    args = parser.parse_args()

    first = time.perf_counter()
    mark_answer(CASES["algebraic"][0][0], "x^2-9")
    print(f"first algebraic answer in this process (imports sympy): {1000 * (time.perf_counter() - first):.0f} ms\n")

    caches = marking_caches()
    header = (f"{'method':<20} {'answers':>8} {'marks/s':>9} {'p50 ms':>8} {'p99 ms':>8} {'max ms':>8} "
              f"{'aim p99':>8} {'p99/aim':>8} {'repeat p99':>11} {'before p99':>11}")
    print(header)
    print("-" * len(header))
    for method, cases in CASES.items():
        new_times, repeat_times, slowest = [], [], (0.0, "")
        for _ in range(args.rounds):
            for spec, answers in cases:
                for answer in answers:
                    for cache in caches:
                        cache.cache_clear()
                    start = time.perf_counter()
                    mark_answer(spec, answer)
                    took = time.perf_counter() - start
                    new_times.append(took)
                    if took > slowest[0]:
                        slowest = (took, f"{spec.key!r} <- {answer!r}")
                    start = time.perf_counter()
                    mark_answer(spec, answer)
                    repeat_times.append(time.perf_counter() - start)
        p50, p99 = 1000 * statistics.median(new_times), 1000 * percentile(new_times, 0.99)
        aim = AIMS_P99_MS.get(method)
        print(f"{method:<20} {len(new_times):>8} {len(new_times) / sum(new_times):>9.0f} {p50:>8.2f} {p99:>8.2f} "
              f"{1000 * slowest[0]:>8.2f} {(f'{aim:.0f}' if aim else '-'):>8} {(f'{p99 / aim:.2f}' if aim else '-'):>8} "
              f"{1000 * percentile(repeat_times, 0.99):>11.2f} "
              f"{(f'{BEFORE_P99_MS[method]:.2f}' if method in BEFORE_P99_MS else '-'):>11}")
        print(f"{'':<20} slowest: {slowest[1]}")


if __name__ == "__main__":
    main()
