"""Calibration against girth 0.8: whole commands from a CSV, a million stored responses, the estimators.

1. Whole process, from a CSV (the headline): 20,000 students x 120 items,
   Rasch, every student answering every item (2.4 million responses), written
   to a CSV (student_id,item_id,correct) with the generating difficulties kept
   aside. Ours: ``python -m core calibrate --responses R.csv --out U.csv
   --abilities A.csv`` (start Python, import, read, calibrate by MML, EAP
   abilities and item fit, write two files). girth: a ``python -c`` script
   that starts Python, reads the same CSV with pandas, builds girth's items x
   students matrix, runs ``girth.rasch_mml`` (marginal maximum likelihood, the
   estimator our default uses) and writes the difficulties. Each runs
   ``--rounds`` times, alternately; medians and girth/ours. Goal: ours at most
   girth's time. Accuracy: correlation and RMSE (both scales centred) against
   the generating difficulties, and ours against girth's.
2. One million responses from a DuckDB file: 20,000 students x 50 answers
   over 500 stored items (blueprint levels easy/medium/hard, each item's true
   difficulty its level's declared one plus noise). ``python -m core
   calibrate --db FILE`` by item and by auto as whole processes (open, read,
   calibrate, store the result), and the same from a PostgreSQL database (a
   throwaway local cluster, or ``--pg-url``); ``--backend`` picks one. Goal:
   under 20 s on each.
3. ``--estimators``: the estimators in process, side by side with girth on
   the same matrices: sizes 1,000x40, 10,000x100, 50,000x200, complete and
   70% missing at random, Rasch MML, 2PL MML and EAP (per method and size:
   seconds, difficulty and discrimination RMSE, correlation with the truth,
   girth/ours); a million responses (20,000 x 500, 90% missing) loaded from
   DuckDB; adaptive data (10,000 x 100, 20-30 items near each student's
   ability). Ours includes loading from a DuckDB file; girth is timed on its
   own dense matrix, built beforehand. ``--quick`` skips 50,000 x 200
   (girth's 2PL there takes minutes).

    python bench/bench_irt.py [--rounds 3] [--seed 1] [--backend duckdb|postgresql|both] [--pg-url URL]
                              [--no-girth] [--estimators [--quick]]

The default run (sections 1 and 2) takes about a minute.
girth is installed with: pip install -r requirements-bench.txt
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.analytics.irt import ItemParams, ResponseData, eap, fit_2pl, fit_rasch, simulate  # noqa: E402
from core.store import Store  # noqa: E402
from core.store.responses import import_responses, response_frame  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from backends import add_arguments, databases  # noqa: E402

SIZES = [(1_000, 40), (10_000, 100), (50_000, 200)]
MISSING = [0.0, 0.7]
GOAL_RATIO = {"Rasch MML": 2.0, "2PL MML": 20.0, "EAP": 5.0}
GOAL_MILLION_S = 20.0
CSV_SIZE = (20_000, 120)
DB_SIZE = (20_000, 50, 500)          # students, answers each, stored items
LEVELS = {"easy": 0.3, "medium": 0.5, "hard": 0.7}

try:
    import girth
    from girth import INVALID_RESPONSE
except ImportError:  # pragma: no cover - depends on the bench requirements
    girth = None
    INVALID_RESPONSE = -99999

# What a girth user runs on the CSV: read it, build the items x students matrix (-99999 where unanswered),
# fit, write the difficulties.
GIRTH_SCRIPT = """
import sys
import numpy as np
import pandas as pd
from girth import rasch_mml
frame = pd.read_csv(sys.argv[1], dtype={"student_id": str, "item_id": str})
s, students = pd.factorize(frame["student_id"])
i, items = pd.factorize(frame["item_id"])
matrix = np.full((len(items), len(students)), -99999, dtype=np.int64)
matrix[i, s] = frame["correct"].to_numpy()
out = rasch_mml(matrix)
pd.DataFrame({"item_id": np.asarray(items), "difficulty": out["Difficulty"]}).to_csv(sys.argv[2], index=False)
"""


def _girth_version() -> str:
    from importlib.metadata import version
    return version("girth")


def rmse_centred(estimate: np.ndarray, truth: np.ndarray) -> float:
    e = (estimate - estimate.mean()) - (truth - truth.mean())
    return float(np.sqrt(np.mean(e * e)))


def rmse(estimate: np.ndarray, truth: np.ndarray) -> float:
    return float(np.sqrt(np.mean((estimate - truth) ** 2)))


def corr(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.corrcoef(a, b)[0, 1])


def timed(fn: Callable):
    start = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - start


class Dataset:
    """One simulated data set: the responses stored in a DuckDB file, girth's matrix, the truth."""

    def __init__(self, n_students: int, n_items: int, missing: float, seed: int, model: str,
                 adaptive: bool = False, girth_matrix: bool = True):
        self.label = f"{n_students:,}x{n_items}"
        self.missing = "adaptive" if adaptive else f"{missing:.0%}"
        self.df, self.items, self.students = simulate(n_students, n_items, missing=missing, model=model, seed=seed,
                                                      adaptive=adaptive)
        self.n_responses = len(self.df)
        self.folder = Path(tempfile.mkdtemp(prefix="bench-irt-"))
        self.store = Store(self.folder / "bench.duckdb")
        _, self.import_s = timed(lambda: import_responses(self.store, self.df))
        self.matrix: Optional[np.ndarray] = None
        if girth_matrix:
            matrix = np.full((n_items, n_students), INVALID_RESPONSE, dtype=np.int64)
            matrix[self.df.item_id.cat.codes.to_numpy(), self.df.student.cat.codes.to_numpy()] = self.df.correct
            self.matrix = matrix
        self.data: Optional[ResponseData] = None

    def load(self) -> ResponseData:
        self.data = ResponseData.from_frame(response_frame(self.store))
        return self.data

    def truth(self, params: ItemParams) -> tuple[np.ndarray, np.ndarray]:
        table = self.items.set_index("item_id").loc[params.item_ids]
        return table.difficulty.to_numpy(), table.discrimination.to_numpy()

    def close(self) -> None:
        self.store.close()
        shutil.rmtree(self.folder, ignore_errors=True)


def row(method: str, ds: Dataset, ours_s: float, girth_s: Optional[float], b: tuple, a: tuple, r: tuple) -> dict:
    return {"method": method, "size": ds.label, "missing": ds.missing, "ours_s": ours_s, "girth_s": girth_s,
            "b_ours": b[0], "b_girth": b[1], "a_ours": a[0], "a_girth": a[1], "r_ours": r[0], "r_girth": r[1]}


def fmt(value: Optional[float], spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(rows: list[dict]) -> None:
    head = (f"{'method':<10} {'size':>11} {'missing':>8} | {'ours s':>7} {'girth s':>8} {'girth/ours':>10} "
            f"{'goal':>6} | {'b RMSE ours':>11} {'girth':>6} | {'a RMSE ours':>11} {'girth':>6} | "
            f"{'corr ours':>9} {'girth':>6}")
    print(head)
    print("-" * len(head))
    for r in rows:
        ratio = r["girth_s"] / r["ours_s"] if r["girth_s"] is not None else None
        goal = GOAL_RATIO[r["method"]]
        verdict = "-" if ratio is None else ("met" if ratio >= goal else "MISSED")
        print(f"{r['method']:<10} {r['size']:>11} {r['missing']:>8} | {r['ours_s']:7.3f} {fmt(r['girth_s'], '8.3f')} "
              f"{fmt(ratio, '9.1f') + 'x' if ratio is not None else '-':>10} {verdict:>6} | "
              f"{fmt(r['b_ours'], '11.3f')} {fmt(r['b_girth'], '6.3f')} | {fmt(r['a_ours'], '11.3f')} "
              f"{fmt(r['a_girth'], '6.3f')} | {fmt(r['r_ours'], '9.4f')} {fmt(r['r_girth'], '6.4f')}")
    print(f"goals: ours at most 1/{GOAL_RATIO['Rasch MML']:.0f} of girth's time for Rasch MML, "
          f"1/{GOAL_RATIO['2PL MML']:.0f} for 2PL MML, 1/{GOAL_RATIO['EAP']:.0f} for EAP; same or better RMSE")


def compare_rasch(ds: Dataset, use_girth: bool) -> list[dict]:
    rasch, t_ours = timed(lambda: fit_rasch(ds.load()))
    b_true, _ = ds.truth(rasch)
    g_b = g_r = g_t = None
    if use_girth:
        out, g_t = timed(lambda: girth.rasch_mml(ds.matrix))
        g_b = rmse_centred(np.asarray(out["Difficulty"]), ds.items.difficulty.to_numpy())
        g_r = corr(np.asarray(out["Difficulty"]), ds.items.difficulty.to_numpy())
    print(f"    Rasch: ours {t_ours:.2f} s" + (f", girth {g_t:.2f} s" if g_t else ""), flush=True)
    return [row("Rasch MML", ds, t_ours, g_t, (rmse_centred(rasch.difficulty, b_true), g_b), (None, None),
                (corr(rasch.difficulty, b_true), g_r))]


def compare_2pl(ds: Dataset, use_girth: bool) -> list[dict]:
    rows = []
    # 2PL MML --------------------------------------------------------------
    twopl, t_ours = timed(lambda: fit_2pl(ds.load()))
    b_true, a_true = ds.truth(twopl)
    g_b = g_a = g_r = g_t = None
    if use_girth:
        out, g_t = timed(lambda: girth.twopl_mml(ds.matrix))
        g_b = rmse_centred(np.asarray(out["Difficulty"]), ds.items.difficulty.to_numpy())
        g_a = rmse(np.asarray(out["Discrimination"]), ds.items.discrimination.to_numpy())
        g_r = corr(np.asarray(out["Difficulty"]), ds.items.difficulty.to_numpy())
    rows.append(row("2PL MML", ds, t_ours, g_t, (rmse_centred(twopl.difficulty, b_true), g_b),
                    (rmse(twopl.discrimination, a_true), g_a), (corr(twopl.difficulty, b_true), g_r)))
    print(f"    2PL: ours {t_ours:.2f} s" + (f", girth {g_t:.2f} s" if g_t else ""), flush=True)
    # EAP with the true item parameters ----------------------------------------
    truth = ItemParams.from_frame(ds.items)
    data = ds.data
    abilities, t_ours = timed(lambda: eap(data, truth))
    theta_true = ds.students.set_index("student").theta
    r_ours = corr(abilities.theta, theta_true.loc[abilities.student_ids].to_numpy())
    g_r = g_t = None
    if use_girth:
        answered = np.unique(ds.df.student.cat.codes.to_numpy())
        out, g_t = timed(lambda: girth.ability_eap(ds.matrix[:, answered], ds.items.difficulty.to_numpy(),
                                                   ds.items.discrimination.to_numpy()))
        g_r = corr(np.asarray(out), ds.students.theta.to_numpy()[answered])
    rows.append(row("EAP", ds, t_ours, g_t, (None, None), (None, None), (r_ours, g_r)))
    return rows


def million(seed: int) -> None:
    print("\n1,000,000 responses: 20,000 students x 500 items, 90% missing (time includes loading from DuckDB)")
    for model, fit in (("rasch", fit_rasch), ("2pl", fit_2pl)):
        ds = Dataset(20_000, 500, 0.9, seed, model=model, girth_matrix=False)
        try:
            start = time.perf_counter()
            frame = response_frame(ds.store)
            t_load = time.perf_counter() - start
            data = ResponseData.from_frame(frame)
            params = fit(data)
            total = time.perf_counter() - start
            b_true, a_true = ds.truth(params)
            extra = f", a RMSE {rmse(params.discrimination, a_true):.3f}" if model == "2pl" else ""
            print(f"  {model:5s} {ds.n_responses:,} responses: {total:6.2f} s (load {t_load:.2f} s, "
                  f"{params.iterations} iterations), b RMSE {rmse_centred(params.difficulty, b_true):.3f}{extra}; "
                  f"goal <= {GOAL_MILLION_S:.0f} s: {'met' if total <= GOAL_MILLION_S else 'MISSED'}", flush=True)
        finally:
            ds.close()


def adaptive(seed: int, use_girth: bool) -> None:
    print("\nAdaptive data: 10,000 students x 100 items, each answering 20-30 items near their ability (Rasch)")
    ds = Dataset(10_000, 100, 0.0, seed, model="rasch", adaptive=True, girth_matrix=use_girth)
    try:
        data = ds.load()
        print(f"  {'estimator':<44} {'seconds':>8} {'b RMSE':>8}")
        runs = [("ours, default (MML, design strata)", lambda: fit_rasch(data)),
                ("ours, joint", lambda: fit_rasch(data, method="joint")),
                ("ours, MML one population (strata=1)", lambda: fit_rasch(data, strata=1))]
        for label, fn in runs:
            params, t = timed(fn)
            b_true, _ = ds.truth(params)
            print(f"  {label:<44} {t:8.2f} {rmse_centred(params.difficulty, b_true):8.3f}", flush=True)
        if use_girth:
            out, t = timed(lambda: girth.rasch_mml(ds.matrix))
            print(f"  {'girth rasch_mml':<44} {t:8.2f} "
                  f"{rmse_centred(np.asarray(out['Difficulty']), ds.items.difficulty.to_numpy()):8.3f}")
        print("  goal: difficulty RMSE <= 0.07 on adaptive data")
    finally:
        ds.close()


# ---------------------------------------------------------------------------
# 1. Whole process from a CSV


def run(args: list[str]) -> float:
    """Seconds one command takes as a process of its own (it must succeed)."""
    start = time.perf_counter()
    done = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, env=os.environ)
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(args[:4])} ... failed:\n{done.stderr.strip()}")
    return seconds


def accuracy(estimate: np.ndarray, truth: np.ndarray) -> str:
    return f"corr {corr(estimate, truth):.5f}, RMSE {rmse_centred(estimate, truth):.4f}"


def whole_process_csv(folder: Path, seed: int, rounds: int, use_girth: bool) -> None:
    import pandas as pd
    n_students, n_items = CSV_SIZE
    df, items, _ = simulate(n_students, n_items, seed=seed)
    path = folder / "responses.csv"
    df.rename(columns={"student": "student_id"}).to_csv(path, index=False)
    print(f"1. Whole process from a CSV: {n_students:,} students x {n_items} items, Rasch, {len(df):,} responses "
          f"({path.stat().st_size / 1e6:.0f} MB); median of {rounds} alternating runs each")
    ours_cmd = [sys.executable, "-m", "core", "calibrate", "--responses", str(path), "--out", str(folder / "ours.csv"),
                "--abilities", str(folder / "abilities.csv")]
    girth_cmd = [sys.executable, "-c", GIRTH_SCRIPT, str(path), str(folder / "girth.csv")]
    ours_s, girth_s = [], []
    for _ in range(rounds):
        ours_s.append(run(ours_cmd))
        if use_girth:
            girth_s.append(run(girth_cmd))
    ours = statistics.median(ours_s)
    print(f"  ours  (python -m core calibrate, + abilities and fit)  {ours:6.2f} s   runs: "
          + ", ".join(f"{s:.2f}" for s in ours_s))
    truth = items.set_index("item_id")["difficulty"]
    mine = pd.read_csv(folder / "ours.csv").set_index("item")["difficulty"]
    if use_girth:
        theirs_s = statistics.median(girth_s)
        print(f"  girth (pandas read_csv + girth.rasch_mml)            {theirs_s:6.2f} s   runs: "
              + ", ".join(f"{s:.2f}" for s in girth_s))
        ratio = theirs_s / ours
        print(f"  girth/ours {ratio:.2f}x; goal: ours at most girth's time: {'met' if ratio >= 1.0 else 'MISSED'}")
    print("  accuracy against the generating difficulties: ours "
          + accuracy(mine.to_numpy(), truth[mine.index].to_numpy()))
    if use_girth:
        theirs = pd.read_csv(folder / "girth.csv").set_index("item_id")["difficulty"]
        print(f"  {'':46}girth {accuracy(theirs.to_numpy(), truth[theirs.index].to_numpy())}")
        print(f"  ours against girth's: {accuracy(mine.to_numpy(), theirs[mine.index].to_numpy())}", flush=True)


# ---------------------------------------------------------------------------
# 2. One million stored responses


def _item(k: int, level: str):
    from core.items.generator import Item
    return Item(id=f"bench-{k:05d}", blueprint_id=f"BENCH.BP{k // 15:02d}", blueprint_version="1",
                blueprint_hash="bench", source="generated", seed=str(k), difficulty_level=level,
                difficulty_value=LEVELS[level], item_type="short_answer", stem=f"Question {k}", options=[],
                option_strategies=[], options_shuffled=False, correct_answer="1", correct_index=None, answer_value=1,
                accepted_answers=["1"], misconceptions={}, explanation="", hints=[], answer_type="number",
                units=None, marks=1, marking_scheme={}, evaluation={}, generation_params={}, computed_values={},
                subject="Mathematics", level="Nat 5", outcome_ids=[f"BENCH.OUT{k % 40}"], skill_ids=[],
                calculator="either", content_key=f"bench-{k}")


def build_million(target: str, seed: int):
    """A million first-attempt responses on stored items; returns the true difficulty per item id."""
    import pandas as pd
    from core.analytics.calibration import difficulty_logit
    from core.store import repo
    n_students, answers, n_items = DB_SIZE
    rng = np.random.default_rng(seed)
    items = [_item(k, list(LEVELS)[k % 3]) for k in range(n_items)]
    b = difficulty_logit(np.array([it.difficulty_value for it in items])) + rng.normal(0, 0.5, n_items)
    theta = rng.normal(0, 1, n_students)
    s = np.repeat(np.arange(n_students), answers)
    i = np.argsort(rng.random((n_students, n_items)), axis=1)[:, :answers].ravel()    # 50 items each, at random
    x = (rng.random(len(s)) < 1 / (1 + np.exp(-(theta[s] - b[i])))).astype(np.int8)
    ids = np.array([it.id for it in items])
    frame = pd.DataFrame({"student": pd.Categorical.from_codes(s, [f"bench:s{p:05d}" for p in range(n_students)]),
                          "item_id": pd.Categorical.from_codes(i, ids), "correct": x})
    store = Store(target)
    try:
        repo.insert_items(store, items, status="approved")
        stored = import_responses(store, frame)
    finally:
        store.close()
    return pd.Series(b, index=ids), stored


def million_from_db(folder: Path, target: str, seed: int, backend: str) -> None:
    import pandas as pd
    start = time.perf_counter()
    truth, stored = build_million(target, seed)
    n_students, answers, n_items = DB_SIZE
    print(f"\n2. {stored:,} responses from {backend}: {n_students:,} students x {answers} answers over "
          f"{n_items} stored items (built in {time.perf_counter() - start:.1f} s)")
    for level in ("item", "auto"):
        out = folder / f"{backend}-{level}.csv"
        seconds = run([sys.executable, "-m", "core", "calibrate", "--db", target, "--level", level, "--out", str(out)])
        units = pd.read_csv(out).set_index(level if level != "auto" else "unit")
        items = units.index.intersection(truth.index)
        measured = accuracy(units.loc[items, "difficulty"].to_numpy(), truth[items].to_numpy())
        print(f"  python -m core calibrate --db ... --level {level:<5} {seconds:6.2f} s whole process, "
              f"{len(units)} units; items measured on their own: {measured}; "
              f"goal < {GOAL_MILLION_S:.0f} s: {'met' if seconds < GOAL_MILLION_S else 'MISSED'}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="runs of each whole process (median reported)")
    parser.add_argument("--seed", type=int, default=1)
    add_arguments(parser)
    parser.add_argument("--no-girth", action="store_true", help="time ours only")
    parser.add_argument("--estimators", action="store_true", help="also the in-process comparison (section 3)")
    parser.add_argument("--quick", action="store_true", help="section 3 without the 50,000 x 200 size")
    args = parser.parse_args()
    use_girth = not args.no_girth
    if use_girth and girth is None:
        print("girth is not installed; install the bench requirements with:\n"
              "    pip install -r requirements-bench.txt\n(or run with --no-girth to time ours only)")
        sys.exit(1)
    print(f"Calibration against girth {_girth_version() if use_girth else '(not run)'}\n")
    folder = Path(tempfile.mkdtemp(prefix="bench-irt-"))
    try:
        whole_process_csv(folder, args.seed, max(1, args.rounds), use_girth)
        with databases(args, "bench_irt") as targets:
            for backend, target in targets:
                million_from_db(folder, str(target), args.seed, backend)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    if args.estimators:
        estimators(args.seed, use_girth, args.quick)


def estimators(seed: int, use_girth: bool, quick: bool) -> None:
    sizes = SIZES[:-1] if quick else SIZES
    print(f"\n3. The estimators in process: sizes {', '.join(f'{p:,}x{i}' for p, i in sizes)}; complete and 70% "
          f"missing; Rasch rows on Rasch-simulated data, 2PL and EAP rows on 2PL-simulated data (the same data for "
          f"both packages)")
    rows: list[dict] = []
    for n_students, n_items in sizes:
        for missing in MISSING:
            for model, compare in (("rasch", compare_rasch), ("2pl", compare_2pl)):
                ds = Dataset(n_students, n_items, missing, seed, model=model, girth_matrix=use_girth)
                print(f"  {ds.label} {ds.missing}, {model} data: {ds.n_responses:,} responses "
                      f"(stored in {ds.import_s:.1f} s)", flush=True)
                try:
                    rows += compare(ds, use_girth)
                finally:
                    ds.close()
    print()
    print_table(rows)
    million(seed)
    adaptive(seed, use_girth)


if __name__ == "__main__":
    main()
