"""IRT-lite calibration against girth 0.8, side by side on the same simulated data.

1. Sizes 1,000x40, 10,000x100, 50,000x200 (students x items), complete and 70%
   missing at random: Rasch MML, 2PL MML and EAP abilities, ours and girth's
   (rasch_mml, twopl_mml, ability_eap). Per method and size: seconds, difficulty
   RMSE, discrimination RMSE (2PL), correlation with the truth, girth/ours time.
   Our Rasch and 2PL times include loading: the responses are first written to
   a DuckDB store on a temp file (import_responses, not timed), then the timer
   covers response_frame + ResponseData.from_frame + the fit. girth is timed on
   its own input, a dense items x students matrix with -99999 for missing,
   built beforehand. EAP (both) uses the true item parameters and is timed
   alone, on data already loaded.
2. One million responses (20,000 x 500, 90% missing): Rasch and 2PL, with loading.
3. Adaptive data (10,000 x 100, each student answering 20-30 items near their
   ability): girth's Rasch MML against ours (default, joint, one population).

Difficulty RMSEs centre both scales on their item mean first.

    python bench/bench_irt.py [--quick] [--seed 1] [--no-girth]

--quick skips the 50,000 x 200 size (girth's 2PL there takes about 5 minutes per run).
girth is installed with: pip install -r requirements-bench.txt
"""
from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable, Optional

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.analytics.irt import ItemParams, ResponseData, eap, fit_2pl, fit_rasch, simulate  # noqa: E402
from core.store import Store  # noqa: E402
from core.store.responses import import_responses, response_frame  # noqa: E402

SIZES = [(1_000, 40), (10_000, 100), (50_000, 200)]
MISSING = [0.0, 0.7]
GOAL_RATIO = {"Rasch MML": 2.0, "2PL MML": 20.0, "EAP": 5.0}
GOAL_MILLION_S = 20.0

try:
    import girth
    from girth import INVALID_RESPONSE
except ImportError:  # pragma: no cover - depends on the bench requirements
    girth = None
    INVALID_RESPONSE = -99999


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="skip the 50,000 x 200 size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-girth", action="store_true", help="time ours only")
    args = parser.parse_args()
    use_girth = not args.no_girth
    if use_girth and girth is None:
        print("girth is not installed; install the bench requirements with:\n"
              "    pip install -r requirements-bench.txt\n(or run with --no-girth to time ours only)")
        sys.exit(1)

    sizes = SIZES[:-1] if args.quick else SIZES
    print(f"IRT-lite vs girth {_girth_version() if use_girth else '(not run)'}: "
          f"sizes {', '.join(f'{p:,}x{i}' for p, i in sizes)}; complete and 70% missing; Rasch rows on "
          f"Rasch-simulated data, 2PL and EAP rows on 2PL-simulated data (the same data for both packages)")
    rows: list[dict] = []
    for n_students, n_items in sizes:
        for missing in MISSING:
            for model, compare in (("rasch", compare_rasch), ("2pl", compare_2pl)):
                ds = Dataset(n_students, n_items, missing, args.seed, model=model, girth_matrix=use_girth)
                print(f"  {ds.label} {ds.missing}, {model} data: {ds.n_responses:,} responses "
                      f"(stored in {ds.import_s:.1f} s)", flush=True)
                try:
                    rows += compare(ds, use_girth)
                finally:
                    ds.close()
    print()
    print_table(rows)
    million(args.seed)
    adaptive(args.seed, use_girth)


if __name__ == "__main__":
    main()
