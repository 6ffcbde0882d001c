"""Parameter effects: how a blueprint's generator parameters move facility.

Generated items differ in the parameter values the generator drew, so
facility by parameter value says which parameters make an item harder.
Items vary several parameters at once and each parameter is looked at on its
own: these are marginal views, not effects with the other parameters held
fixed.
"""
from __future__ import annotations

import json
import math
from typing import Any, Mapping

import numpy as np
import pandas as pd

from core.analytics.item_stats.inputs import _frame, _item_column, _json
from core.analytics.item_stats.scoring import item_scores


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float, np.integer, np.floating)) and not isinstance(v, (bool, np.bool_)) \
        and math.isfinite(float(v))


def _parameter_levels(items: pd.DataFrame, item: str, max_levels: int, bins: int) -> pd.DataFrame:
    """One row per item x parameter: blueprint_id, parameter, numeric, x, level, level_key.

    A parameter is numeric when every item's value is a number. Numeric
    parameters with more than ``max_levels`` distinct values are cut into
    ``bins`` quantile bins of the items' values, labelled "lowest to highest".
    """
    _frame(items, "items", {"params": "params"})
    key = _item_column(items, item)
    recs = []
    cols = [key, "params"] + (["blueprint_id"] if "blueprint_id" in items.columns else [])
    for rec in items[cols].to_dict("records"):          # per item (JSON parsing), not per answer
        params = _json(rec["params"]) or {}
        blueprint = rec.get("blueprint_id")
        blueprint = "" if blueprint is None or blueprint is pd.NA or blueprint != blueprint else str(blueprint)
        if not isinstance(params, Mapping):
            raise ValueError(f"item {rec[key]!r}: params must be a JSON object of parameter values")
        for name, v in params.items():
            if not (_is_number(v) or isinstance(v, str) or v is None or isinstance(v, bool)):
                v = json.dumps(v, sort_keys=True)
            recs.append((rec[key], blueprint, str(name), v, _is_number(v)))
    if not recs:
        raise ValueError("none of the items has params (the generator's parameter values)")
    groups: dict[tuple[str, str], list[tuple]] = {}
    for rec in recs:
        groups.setdefault((rec[1], rec[2]), []).append(rec)
    rows = []   # plain lists per parameter: a blueprint has a dozen parameters, and pandas per group is slow
    for (bp, name), part in sorted(groups.items()):
        raw = [r[3] for r in part]
        numeric = all(r[4] for r in part)
        if not numeric:
            x = [np.nan] * len(raw)
            level = ["(none)" if v is None else str(v) for v in raw]
            level_key: list[Any] = level
        else:
            x = [float(v) for v in raw]
            if len(set(x)) <= max_levels:
                level = [f"{v:g}" for v in x]
            else:
                codes = _quantile_bins(x, bins)
                ends: dict[Any, list[float]] = {}
                for c, v in zip(codes, x):
                    lo_hi = ends.setdefault(c, [v, v])
                    lo_hi[0], lo_hi[1] = min(lo_hi[0], v), max(lo_hi[1], v)
                names = {c: f"{a:g}" if a == b else f"{a:g} to {b:g}" for c, (a, b) in ends.items()}
                level = [names[c] for c in codes]
            lowest: dict[str, float] = {}
            for lv, v in zip(level, x):
                lowest[lv] = min(lowest.get(lv, v), v)
            level_key = [lowest[lv] for lv in level]
        rows += [(r[0], bp, name, numeric, xv, lv, k) for r, xv, lv, k in zip(part, x, level, level_key)]
    return pd.DataFrame(rows, columns=[item, "blueprint_id", "parameter", "numeric", "x", "level", "level_key"])


def _quantile_bins(x: list[float], bins: int) -> list[int]:
    """``pd.qcut(x, bins, labels=False, duplicates="drop")``: the bin of each value between the values' quantiles
    (each bin closed on the right, the lowest value in the first), repeated quantiles merged."""
    values = np.asarray(x, float)
    edges = np.unique(np.quantile(values, np.linspace(0, 1, bins + 1)))
    return np.clip(np.searchsorted(edges, values, side="left") - 1, 0, None).tolist()


def _by_parameter(merged: pd.DataFrame) -> dict[tuple, dict[str, list]]:
    """{(blueprint, parameter): {level: [row positions]}} of the answers x parameters table, in one pass."""
    groups: dict[tuple, dict[str, list]] = {}
    for at, (bp, name, level) in enumerate(zip(merged["blueprint_id"].tolist(), merged["parameter"].tolist(),
                                                merged["level"].tolist())):
        groups.setdefault((bp, name), {}).setdefault(level, []).append(at)
    return groups


def _parameter_answers(responses: pd.DataFrame, items: pd.DataFrame, student: str, item: str, max_levels: int,
                       bins: int, columns: dict) -> pd.DataFrame:
    """One row per answer x parameter of its item, with the answer's mark fraction ``value``."""
    levels = _parameter_levels(items, item, max_levels, bins)
    scored = item_scores(responses, student=student, item=item, **columns)[[student, item, "value"]]
    merged = scored.merge(levels, on=item, how="inner")
    if merged.empty:
        raise ValueError("no answers to items with params; check the items table matches the answers")
    return merged


def parameter_facility(responses: pd.DataFrame, items: pd.DataFrame, max_levels: int = 6, bins: int = 4,
                       student: str = "student", item: str = "item_id", **columns: Any) -> pd.DataFrame:
    """Facility by parameter value, per blueprint.

    Numeric parameters with more than ``max_levels`` distinct values are cut
    into ``bins`` quantile bins of the items' values (labelled "lowest to
    highest"); others are shown by value. Returns blueprint_id, parameter,
    level, n (answers), n_items, facility (mean mark fraction), levels in
    value order.
    """
    return _facility_of(_parameter_answers(responses, items, student, item, max_levels, bins, columns), item)


def _facility_of(merged: pd.DataFrame, item: str) -> pd.DataFrame:
    items = merged[item].tolist()
    values = merged["value"].to_numpy(float)
    numbers = pd.to_numeric(merged["level_key"], errors="coerce").to_numpy(float)
    rows = []
    for (bp, name), levels in _by_parameter(merged).items():
        for level, at in levels.items():
            keys = numbers[at]
            rows.append((bp, name, level, len(at), len({items[i] for i in at}), math.fsum(values[at]) / len(at),
                         np.nanmin(keys) if not np.isnan(keys).all() else np.nan, level))
    out = pd.DataFrame(rows, columns=["blueprint_id", "parameter", "level", "n", "n_items", "facility", "_num",
                                      "_text"])
    out = out.sort_values(["blueprint_id", "parameter", "_num", "_text"], kind="stable")
    return out.drop(columns=["_num", "_text"]).reset_index(drop=True)


def _logit_slope(x: np.ndarray, y: np.ndarray, iterations: int = 50) -> float:
    """Slope b of logit P(right) = a + b x, by Newton's method (y may be mark fractions). NaN if not estimable."""
    sd = x.std()
    if sd <= 0 or len(x) < 3:
        return float("nan")
    z = (x - x.mean()) / sd
    X = np.column_stack([np.ones_like(z), z])
    beta = np.zeros(2)
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-(X @ beta)))
        w = p * (1 - p)
        hessian = X.T @ (X * w[:, None])
        try:
            step = np.linalg.solve(hessian, X.T @ (y - p))
        except np.linalg.LinAlgError:
            return float("nan")
        beta = beta + step
        if np.abs(step).max() < 1e-10:
            break
        if np.abs(beta[1]) > 30:      # right or wrong is perfectly predicted: no finite slope
            return float("nan")
    else:
        return float("nan")
    return float(beta[1] / sd)


def parameter_effects(responses: pd.DataFrame, items: pd.DataFrame, max_levels: int = 6, bins: int = 4,
                      min_n: int = 5, student: str = "student", item: str = "item_id",
                      **columns: Any) -> pd.DataFrame:
    """How much each generator parameter moves facility, per blueprint.

    One row per blueprint x parameter: kind (numeric / categorical), n
    (answers), n_items, n_levels, spread (highest minus lowest facility among
    levels with at least ``min_n`` answers), hardest and easiest level, and
    for numeric parameters r (Pearson correlation of the mark fraction with
    the value; negative: larger values are harder) and logit_slope (change in
    the log-odds of a right answer per unit of the parameter, from a logistic
    regression on the value alone; NaN when not estimable). Largest spread
    first. Items vary several parameters at once, so each row is a marginal
    view, not the parameter's effect with the others held fixed.
    """
    return _effects_of(_parameter_answers(responses, items, student, item, max_levels, bins, columns), item, min_n)


def _effects_of(merged: pd.DataFrame, item: str, min_n: int) -> pd.DataFrame:
    items = merged[item].tolist()
    x_all, y_all = merged["x"].to_numpy(float), merged["value"].to_numpy(float)
    numeric_all = merged["numeric"].tolist()
    rows = []
    for (bp, name), levels in sorted(_by_parameter(merged).items()):   # per parameter
        by = [(level, len(at), math.fsum(y_all[at]) / len(at)) for level, at in sorted(levels.items())]
        enough = [(level, mean) for level, size, mean in by if size >= min_n]
        means = [mean for _, mean in enough]
        at = np.sort(np.concatenate([np.asarray(a) for a in levels.values()]))
        numeric = bool(numeric_all[at[0]])
        row = {"blueprint_id": bp, "parameter": name, "kind": "numeric" if numeric else "categorical",
               "n": len(at), "n_items": len({items[i] for i in at}), "n_levels": len(by),
               "spread": float(max(means) - min(means)) if len(enough) > 1 else np.nan,
               "hardest": enough[means.index(min(means))][0] if len(enough) > 1 else None,
               "easiest": enough[means.index(max(means))][0] if len(enough) > 1 else None,
               "r": np.nan, "logit_slope": np.nan}
        if numeric:
            x, y = x_all[at], y_all[at]
            if x.std() > 0 and y.std() > 0:
                row["r"] = float(np.corrcoef(x, y)[0, 1])
            row["logit_slope"] = _logit_slope(x, y)
        rows.append(row)
    out = pd.DataFrame(rows)
    return out.sort_values(["spread", "blueprint_id", "parameter"], ascending=[False, True, True],
                           na_position="last").reset_index(drop=True)


def parameter_tables(responses: pd.DataFrame, items: pd.DataFrame, max_levels: int = 6, bins: int = 4,
                     min_n: int = 5, student: str = "student", item: str = "item_id",
                     **columns: Any) -> tuple[pd.DataFrame, pd.DataFrame]:
    """``parameter_effects`` and ``parameter_facility`` together, reading the items' parameters once."""
    merged = _parameter_answers(responses, items, student, item, max_levels, bins, columns)
    return _effects_of(merged, item, min_n), _facility_of(merged, item)
