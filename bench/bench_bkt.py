"""Bayesian Knowledge Tracing fit: core.analytics.bkt against pyBKT, side by side.

Simulates answers from known BKT parameters (default 5 skills x 2,000
students x 20 opportunities = 200,000 answers), fits them with pyBKT 1.4
(no forgetting, its default 5 random starts, its own parallelism) and with
``core.analytics.bkt.fit_bkt``, and prints the seconds, each method's
parameter RMSE and largest error against the truth, how far apart the two
methods' parameters are, and the speed ratio next to the goal (at least 100x
faster than pyBKT at the same accuracy).

pyBKT is a benchmark-only dependency: ``pip install -r requirements-bench.txt``.
Without it only our fit is timed.

    python bench/bench_bkt.py [--skills 5] [--students 2000] [--opportunities 20] [--seed 0]
                              [--repeat 5] [--no-pybkt]
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.analytics.bkt import PARAMS, fit_bkt, log_likelihood, simulate_bkt  # noqa: E402

GOAL_SPEEDUP = 100.0
SAME_ACCURACY = 0.002   # our RMSE may exceed pyBKT's by at most this much


def rmse(estimate: pd.DataFrame, truth: pd.DataFrame) -> tuple[float, float]:
    diff = (estimate.loc[truth.index, list(PARAMS)] - truth[list(PARAMS)]).to_numpy()
    return float(np.sqrt(np.mean(diff ** 2))), float(np.max(np.abs(diff)))


def import_pybkt():
    """pyBKT's Model class, made to run on this project's numpy and scikit-learn.

    pyBKT 1.4.3 predates both, and two shims (for this process only; nothing
    in site-packages changes) let it run unmodified otherwise:

    * on import it probes every scikit-learn metric and expects only
      TypeErrors; scikit-learn 1.9's private ``_log_loss`` raises
      AttributeError, so the import is retried with the private metric names
      hidden (pyBKT uses only public ones);
    * its E-step returns the log-likelihood as a (1, 1) array that EM_fit
      stores into a scalar slot, which numpy 2.4 refuses; the E-step is wrapped
      to return the same number as a float.
    """
    try:
        from pyBKT.models import Model
    except AttributeError:
        import types

        import sklearn.metrics as sk
        original = sk._classification
        sk._classification = types.SimpleNamespace(**{n: getattr(original, n) for n in dir(original)
                                                       if not n.startswith("_")})
        try:
            from pyBKT.models import Model
        finally:
            sk._classification = original
    from pyBKT.fit import EM_fit
    if not getattr(EM_fit.run, "scalar_loglike", False):
        e_step = EM_fit.run

        def run(*args, **kwargs):
            result = e_step(*args, **kwargs)
            result["total_loglike"] = float(np.asarray(result["total_loglike"]).ravel()[0])
            return result
        run.scalar_loglike = True
        EM_fit.run = run
    return Model


def fit_pybkt(answers: pd.DataFrame, seed: int) -> tuple[float, pd.DataFrame]:
    Model = import_pybkt()
    data = pd.DataFrame({"user_id": answers["student"].to_numpy(), "skill_name": answers["skill"].to_numpy(),
                         "correct": answers["correct"].astype(int).to_numpy(),
                         "order_id": np.arange(1, len(answers) + 1)})  # rows are in time order per student
    model = Model(seed=seed, num_fits=5, parallel=True)
    start = time.perf_counter()
    model.fit(data=data, forgets=False)
    seconds = time.perf_counter() - start
    coef = model.coef_
    table = pd.DataFrame({skill: {"prior": float(c["prior"]), "learn": float(np.ravel(c["learns"])[0]),
                                  "guess": float(np.ravel(c["guesses"])[0]), "slip": float(np.ravel(c["slips"])[0])}
                          for skill, c in coef.items()}).T
    return seconds, table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=5)
    parser.add_argument("--students", type=int, default=2000)
    parser.add_argument("--opportunities", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of our fit (the median is shown)")
    parser.add_argument("--no-pybkt", action="store_true", help="time only our fit")
    args = parser.parse_args()

    answers, truth = simulate_bkt(args.skills, args.students, args.opportunities, seed=args.seed)
    print(f"BKT fit: {args.skills} skills x {args.students:,} students x {args.opportunities} opportunities "
          f"= {len(answers):,} answers (simulated, seed {args.seed})\n")

    fit_bkt(answers.head(1000))  # warm up imports and caches
    runs = []
    for _ in range(max(1, args.repeat)):
        start = time.perf_counter()
        ours = fit_bkt(answers, seed=args.seed)
        runs.append(time.perf_counter() - start)
    ours_s = statistics.median(runs)
    ours_table = ours.set_index("skill")
    ours_rmse, ours_max = rmse(ours_table, truth)

    pybkt = None
    if not args.no_pybkt:
        try:
            import pyBKT  # noqa: F401
        except ImportError:
            print("pyBKT is not installed; to compare, run: pip install -r requirements-bench.txt\n")
        else:
            pybkt = fit_pybkt(answers, args.seed)

    print(f"{'method':<34}{'seconds':>10}{'RMSE':>9}{'max err':>9}{'log-likelihood':>16}")
    print(f"{'core.analytics.bkt (median of ' + str(len(runs)) + ')':<34}{ours_s:>10.3f}{ours_rmse:>9.4f}"
          f"{ours_max:>9.4f}{log_likelihood(answers, ours_table).sum():>16.2f}")
    if pybkt is not None:
        py_s, py_table = pybkt
        py_rmse, py_max = rmse(py_table, truth)
        apart, apart_max = rmse(ours_table, py_table.rename_axis("skill"))
        print(f"{'pyBKT 1.4 (5 starts, parallel)':<34}{py_s:>10.3f}{py_rmse:>9.4f}{py_max:>9.4f}"
              f"{log_likelihood(answers, py_table).sum():>16.2f}")
    print(f"{'the true parameters':<34}{'':>10}{'':>9}{'':>9}{log_likelihood(answers, truth).sum():>16.2f}")
    if pybkt is not None:
        speedup = py_s / ours_s
        same = ours_rmse <= py_rmse + SAME_ACCURACY
        print(f"\nspeed-up {speedup:,.0f}x (goal >= {GOAL_SPEEDUP:.0f}x: {'met' if speedup >= GOAL_SPEEDUP else 'NOT met'}); "
              f"accuracy RMSE {ours_rmse:.4f} vs pyBKT {py_rmse:.4f} "
              f"(goal: within {SAME_ACCURACY}: {'met' if same else 'NOT met'})")
        print(f"the two fits differ by RMSE {apart:.4f} (largest {apart_max:.4f})")
    print(f"\niterations per skill: {ours['iterations'].tolist()}, all converged: {bool(ours['converged'].all())}")
    print("\nper skill (truth / ours" + (" / pyBKT" if pybkt is not None else "") + "):")
    for skill in truth.index:
        cells = []
        for p in PARAMS:
            text = f"{truth.loc[skill, p]:.3f}/{ours_table.loc[skill, p]:.3f}"
            if pybkt is not None:
                text += f"/{pybkt[1].loc[skill, p]:.3f}"
            cells.append(f"{p} {text}")
        print(f"  {skill}: " + "  ".join(cells))


if __name__ == "__main__":
    main()
