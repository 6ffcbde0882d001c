"""Calibration at the level the data support, with declared difficulties as the prior.

Generated items are unique, so most are answered a handful of times; the
item *family* (one blueprint at one difficulty level) and the *skill* (one
blueprint, or a bank question's outcome) gather the evidence instead. A
calibration unit is one of:

``item``    every item its own difficulty;
``family``  every item of a blueprint level shares one (bank items: their own);
``skill``   every item of a skill shares one;
``auto``    items answered at least ``min_responses`` times keep their own
            difficulty, the rest share their family's (a bank item without a
            family keeps its own, with its prior).

A unit's prior is the blueprint's declared difficulty on the logit scale
(``core.flows.practice.difficulty_logit``; for a skill, the mean over its
items). After fitting, abilities are estimated by EAP and every unit gets its
infit and outfit. ``level_order`` compares declared with measured difficulty
per blueprint and flags levels that come out in the wrong order or that span
no real difference.
"""
from __future__ import annotations

import dataclasses
import time
from typing import Any, Optional

import numpy as np
import pandas as pd

from core.analytics import irt

UNIT_LEVELS = ("item", "family", "skill", "auto")
MODELS = ("rasch", "2pl")
MIN_RESPONSES = 30          # auto: items answered this often keep their own difficulty
NO_REAL_DIFFERENCE = 0.25   # logits: levels of one blueprint closer than this (and within noise) are flagged
LEVEL_ORDER = ("easy", "medium", "hard")


class CalibrationError(ValueError):
    """Calibration asked of data or settings that cannot give it, said in one sentence."""


@dataclasses.dataclass
class Calibration:
    """One calibration run: per-unit parameters, abilities and what the run was."""
    model: str
    unit_level: str
    method: str
    parameters: pd.DataFrame       # unit, kind, difficulty, se_difficulty, discrimination, se_discrimination,
    #                                n, p_correct, infit, outfit, declared, flags
    abilities: pd.DataFrame        # student, theta, se, n
    unit_of_item: dict[str, str]
    n_responses: int
    seconds: float
    converged: bool
    iterations: int

    def run_record(self) -> dict[str, Any]:
        return {"model": self.model, "unit_level": self.unit_level, "method": self.method,
                "n_responses": self.n_responses, "n_students": len(self.abilities),
                "n_units": len(self.parameters),
                "summary": {"seconds": round(self.seconds, 3), "converged": self.converged,
                            "iterations": self.iterations}}


def _units(frame: pd.DataFrame, unit_level: str, min_responses: int) -> pd.Series:
    """The calibration unit of every response's item."""
    item = frame["item_id"].astype(str)
    family = frame["family"].where(frame["family"].notna(), item) if "family" in frame else item
    if unit_level == "item":
        return item
    if unit_level == "family":
        return family.astype(str)
    if unit_level == "skill":
        skill = frame["skill"] if "skill" in frame else family
        return skill.where(skill.notna(), item).astype(str)
    counts = item.map(item.value_counts())
    return item.where(counts >= min_responses, family).astype(str)


def _declared(frame: pd.DataFrame, units: pd.Series) -> dict[str, float]:
    """Each unit's prior: the mean declared difficulty (as a logit) of its responses' items."""
    if "difficulty_value" not in frame:
        return {}
    from core.flows.practice import difficulty_logit   # only here: the practice flow is heavy to import
    values = pd.to_numeric(frame["difficulty_value"], errors="coerce")
    logits = values.map(lambda v: difficulty_logit(float(v)) if pd.notna(v) else np.nan)
    means = logits.groupby(units.to_numpy()).mean().dropna()
    return {str(k): float(v) for k, v in means.items()}


def calibrate(frame: pd.DataFrame, model: str = "rasch", unit_level: str = "auto", method: Optional[str] = None,
              min_responses: int = MIN_RESPONSES, prior_sd: float = irt.DECLARED_PRIOR_SD,
              use_declared: bool = True) -> Calibration:
    """Calibrate responses (columns student, item_id, correct; optionally family, skill, difficulty_value).

    ``model`` is "rasch" or "2pl"; ``method`` is passed to the estimator
    (default: its own, which suits adaptively assigned classroom data).
    """
    if model not in MODELS:
        raise CalibrationError(f"model must be one of {', '.join(MODELS)}, not {model!r}")
    if unit_level not in UNIT_LEVELS:
        raise CalibrationError(f"level must be one of {', '.join(UNIT_LEVELS)}, not {unit_level!r}")
    missing = [c for c in ("student", "item_id", "correct") if c not in frame.columns]
    if missing:
        raise CalibrationError(f"the responses need the column(s) {', '.join(missing)}; they have "
                               f"{', '.join(map(str, frame.columns))}")
    if frame.empty:
        raise CalibrationError("there are no responses to calibrate yet; students' answers are the data")
    started = time.perf_counter()
    units = _units(frame, unit_level, min_responses)
    # One row per item (a unit is the same for every response to an item): never a loop over the responses.
    per_item = pd.DataFrame({"item": frame["item_id"].astype(str).to_numpy(dtype=object),
                             "unit": units.to_numpy(dtype=object),
                             "family": frame["family"].astype(object).to_numpy() if "family" in frame else None}) \
        .drop_duplicates("item", keep="last")
    unit_of_item = dict(zip(per_item["item"].tolist(), per_item["unit"].tolist()))
    try:
        data = irt.ResponseData.from_frame(frame).regroup(unit_of_item)
    except ValueError as exc:
        raise CalibrationError(str(exc)) from None
    declared = _declared(frame, units) if use_declared else {}
    kwargs: dict[str, Any] = {"prior_mean": declared or None, "prior_sd": prior_sd if declared else None}
    if method is not None:
        kwargs["method"] = method
    try:
        params = (irt.fit_rasch if model == "rasch" else irt.fit_2pl)(data, **kwargs)
        abilities = irt.eap(data, params)
        fit = irt.item_fit(data, params, abilities)
    except ValueError as exc:
        raise CalibrationError(str(exc)) from None
    out = params.to_frame().rename(columns={"item_id": "unit"})
    if "se_discrimination" not in out:
        out["se_discrimination"] = np.nan
    fit = fit.rename(columns={"item_id": "unit"}) if "item_id" in fit.columns else fit
    out = out.merge(fit[["unit", "infit", "outfit"]], on="unit", how="left")
    out["declared"] = out["unit"].map(declared)
    kinds = _unit_kinds(per_item)
    out["kind"] = out["unit"].map(kinds).fillna("item")
    out = out[["unit", "kind", "difficulty", "se_difficulty", "discrimination", "se_discrimination", "n",
               "p_correct", "infit", "outfit", "declared", "flags"]]
    return Calibration(model=model, unit_level=unit_level, method=params.method, parameters=out,
                       abilities=abilities.to_frame().rename(columns={"student_id": "student"}),
                       unit_of_item=unit_of_item, n_responses=int(data.n_responses),
                       seconds=time.perf_counter() - started, converged=bool(params.converged),
                       iterations=int(params.iterations))


def _unit_kinds(per_item: pd.DataFrame) -> dict[str, str]:
    """Whether each unit is an item, a family or a skill (what a page needs to label it), from one row per item."""
    item, u, family = per_item["item"].to_numpy(), per_item["unit"].to_numpy(), per_item["family"].to_numpy()
    kinds = np.where(u == item, "item", np.where(u == family, "family", "skill"))
    return dict(zip(u.tolist(), kinds.tolist()))


def level_order(parameters: pd.DataFrame) -> pd.DataFrame:
    """Per blueprint, its levels' declared and measured difficulty, with a flag where they disagree.

    Reads family units ("blueprint|level"). Flags: "levels out of order" when
    a harder-declared level measures easier than an easier-declared one by
    more than the two standard errors allow; "no real difference" when a
    blueprint's levels span less than 0.25 logits. Columns: blueprint_id,
    level, declared, measured, se, n, flag.
    """
    fam = parameters[parameters["kind"] == "family"].copy()
    if fam.empty:
        return pd.DataFrame(columns=["blueprint_id", "level", "declared", "measured", "se", "n", "flag"])
    parts = fam["unit"].str.split("|", n=1, expand=True)
    fam["blueprint_id"], fam["level"] = parts[0], parts[1]
    fam = fam.rename(columns={"difficulty": "measured", "se_difficulty": "se"})
    rows = []
    for bp, group in fam.groupby("blueprint_id", sort=True):
        group = group.sort_values(["declared", "level"], key=lambda c: c if c.name == "declared" else
                                  c.map(lambda v: LEVEL_ORDER.index(v) if v in LEVEL_ORDER else 9))
        flags = {lvl: "" for lvl in group["level"]}
        records = group.to_dict("records")
        for lo, hi in zip(records, records[1:]):
            gap = hi["measured"] - lo["measured"]
            noise = 2 * float(np.hypot(lo["se"], hi["se"]))
            if gap < -noise:
                flags[hi["level"]] = f"measures easier than {lo['level']} ({hi['measured']:+.2f} vs {lo['measured']:+.2f})"
        if len(records) > 1 and group["measured"].max() - group["measured"].min() < NO_REAL_DIFFERENCE:
            for lvl in flags:
                flags[lvl] = flags[lvl] or f"levels span under {NO_REAL_DIFFERENCE} logits: no real difference"
        for r in records:
            rows.append({"blueprint_id": bp, "level": r["level"], "declared": r["declared"], "measured": r["measured"],
                         "se": r["se"], "n": r["n"], "flag": flags[r["level"]]})
    return pd.DataFrame(rows)


def icc_frame(parameters: pd.DataFrame, units: list[str], grid: Optional[np.ndarray] = None) -> pd.DataFrame:
    """Item characteristic curves for some units, long format: unit, theta, p."""
    grid = np.linspace(-4, 4, 81) if grid is None else grid
    chosen = parameters[parameters["unit"].isin(units)]
    params = irt.ItemParams.from_frame(chosen.rename(columns={"unit": "item_id"}), item="item_id")
    p = irt.icc(params, grid)
    return pd.DataFrame({"unit": np.repeat(params.item_ids, len(grid)), "theta": np.tile(grid, len(params.item_ids)),
                         "p": p.ravel()})
