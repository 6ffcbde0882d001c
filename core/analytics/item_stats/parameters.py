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
        if not isinstance(params, Mapping):
            raise ValueError(f"item {rec[key]!r}: params must be a JSON object of parameter values")
        for name, v in params.items():
            if not (_is_number(v) or isinstance(v, str) or v is None or isinstance(v, bool)):
                v = json.dumps(v, sort_keys=True)
            recs.append((rec[key], rec.get("blueprint_id") or "", str(name), v, _is_number(v)))
    long = pd.DataFrame(recs, columns=[item, "blueprint_id", "parameter", "raw", "is_number"])
    if long.empty:
        raise ValueError("none of the items has params (the generator's parameter values)")
    parts = []
    for _, part in long.groupby(["blueprint_id", "parameter"], sort=True):   # per parameter
        part = part.copy()
        numeric = bool(part["is_number"].all())
        part["numeric"] = numeric
        if not numeric:
            part["x"] = np.nan
            part["level"] = part["raw"].map(lambda v: "(none)" if v is None else str(v))
            part["level_key"] = part["level"]
        else:
            x = part["raw"].astype(float)
            part["x"] = x
            if x.nunique() <= max_levels:
                part["level"] = x.map(lambda v: f"{v:g}")
            else:
                codes = pd.Series(pd.qcut(x, q=bins, labels=False, duplicates="drop"), index=x.index)
                ends = x.groupby(codes).agg(["min", "max"])
                names = {c: f"{a:g}" if a == b else f"{a:g} to {b:g}" for c, (a, b) in ends.iterrows()}
                part["level"] = codes.map(names)
            part["level_key"] = part.groupby("level")["x"].transform("min")
        parts.append(part)
    return pd.concat(parts, ignore_index=True).drop(columns=["raw", "is_number"])


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
    merged = merged.copy()
    merged["_num"] = pd.to_numeric(merged["level_key"], errors="coerce")
    out = merged.groupby(["blueprint_id", "parameter", "level"], sort=False).agg(
        n=("value", "size"), n_items=(item, "nunique"), facility=("value", "mean"),
        _num=("_num", "min"), _text=("level", "first")).reset_index()
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
    levels = merged.groupby(["blueprint_id", "parameter", "level"], sort=True)["value"].agg(["size", "mean"])
    rows = []
    for (bp, name), part in merged.groupby(["blueprint_id", "parameter"], sort=True):   # per parameter
        by = levels.loc[(bp, name)]
        enough = by[by["size"] >= min_n]
        numeric = bool(part["numeric"].iloc[0])
        row = {"blueprint_id": bp, "parameter": name, "kind": "numeric" if numeric else "categorical",
               "n": len(part), "n_items": part[item].nunique(), "n_levels": len(by),
               "spread": float(enough["mean"].max() - enough["mean"].min()) if len(enough) > 1 else np.nan,
               "hardest": enough["mean"].idxmin() if len(enough) > 1 else None,
               "easiest": enough["mean"].idxmax() if len(enough) > 1 else None,
               "r": np.nan, "logit_slope": np.nan}
        if numeric:
            y = part["value"].to_numpy(float)
            x = part["x"].to_numpy(float)
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
