"""Item generation speed for every shipped blueprint and difficulty level.

Prints items per second, unstored and stored in batches (DuckDB in a temp
dir), beside seed 003's target of under 100 ms per item, as a ratio, and the
aims of 2,000 items/s per core unstored and 1,000/s stored.

    python bench/bench_generation.py [--n 300] [--batch 200] [--only SKILL_PREFIX]
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
from core.store import Store, repo  # noqa: E402

SEED_TARGET_MS = 100.0
AIM_UNSTORED = 2_000.0
AIM_STORED = 1_000.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=300, help="items per level (default 300)")
    parser.add_argument("--batch", type=int, default=200, help="items per stored batch (default 200)")
    parser.add_argument("--only", default="", help="only skills whose id starts with this")
    args = parser.parse_args()

    t0 = time.perf_counter()
    lib = Library.load()
    load_s = time.perf_counter() - t0
    pairs = [(sid, lvl) for sid, gen in sorted(lib.generators.items()) if sid.startswith(args.only)
             for lvl in gen.cs.levels]
    print(f"library: {len(lib.generators)} skills loaded and validated in {load_s:.2f} s; "
          f"{len(pairs)} levels, {args.n} items each\n")
    header = f"{'skill':<44} {'level':<8} {'unstored/s':>11} {'ms/item':>8} {'x target':>9} {'stored/s':>9}"
    print(header)
    print("-" * len(header))

    scratch = tempfile.TemporaryDirectory(prefix="bench-gen-")   # removed when the run ends
    store = Store(Path(scratch.name) / "bench.duckdb")
    rates_unstored, rates_stored = [], []
    total_items = total_unstored_s = total_stored_s = 0.0
    for sid, level in pairs:
        gen = lib.generator(sid)
        gen.generate(level, "warm-up")  # sampler preparation is a one-off per level
        start = time.perf_counter()
        for i in range(args.n):
            gen.generate(level, f"bench/{i}")
        unstored_s = time.perf_counter() - start

        start = time.perf_counter()
        done = 0
        while done < args.n:
            size = min(args.batch, args.n - done)
            items = [gen.generate(level, f"stored/{done + k}") for k in range(size)]
            repo.insert_items(store, items)
            done += size
        stored_s = time.perf_counter() - start

        ms = unstored_s / args.n * 1000
        r_unstored, r_stored = args.n / unstored_s, args.n / stored_s
        rates_unstored.append(r_unstored)
        rates_stored.append(r_stored)
        total_items += args.n
        total_unstored_s += unstored_s
        total_stored_s += stored_s
        print(f"{sid:<44} {level:<8} {r_unstored:>11,.0f} {ms:>8.3f} {SEED_TARGET_MS / ms:>8,.0f}x {r_stored:>9,.0f}")

    store.close()
    overall_unstored = total_items / total_unstored_s
    overall_stored = total_items / total_stored_s
    print("-" * len(header))
    print(f"overall unstored: {overall_unstored:,.0f} items/s on one core "
          f"({1000 / overall_unstored:.3f} ms/item, {SEED_TARGET_MS * overall_unstored / 1000:,.0f}x under the "
          f"{SEED_TARGET_MS:.0f} ms target; aim {AIM_UNSTORED:,.0f}/s: {overall_unstored / AIM_UNSTORED:.2f}x)")
    print(f"overall stored:   {overall_stored:,.0f} items/s in batches of {args.batch} "
          f"(aim {AIM_STORED:,.0f}/s: {overall_stored / AIM_STORED:.2f}x)")
    print(f"slowest level unstored: {min(rates_unstored):,.0f}/s; median {statistics.median(rates_unstored):,.0f}/s")
    print(f"slowest level stored:   {min(rates_stored):,.0f}/s; median {statistics.median(rates_stored):,.0f}/s")


if __name__ == "__main__":
    main()
