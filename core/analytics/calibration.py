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
(``difficulty_logit``; for a family or skill, the mean over its responses).
After fitting, abilities are estimated by EAP and every unit gets its
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


# What a calibration reads of each response (the first three are required).
COLUMNS = ("student", "item_id", "correct", "family", "skill", "difficulty_value")


def difficulty_logit(value: Any) -> Any:
    """Declared difficulty (0..1, 0.5 = average) on the logit scale used for ability; numbers or arrays.

    Clipped to 0.02..0.98, then 1.6 log(v / (1 - v)); NaN stays NaN. The
    practice flow reads declared difficulties on this same scale.
    """
    v = np.clip(np.asarray(value, dtype=np.float64), 0.02, 0.98)
    out = np.log(v / (1 - v)) * 1.6
    return float(out) if out.ndim == 0 else out


def _per_item(frame: pd.DataFrame, column: str, rows: Optional[np.ndarray], fallback: np.ndarray) -> np.ndarray:
    """``column`` as text, one value per item (read from the row ``rows`` gives for it); ``fallback`` where none."""
    if column not in frame.columns or rows is None:
        return fallback
    values = frame[column].iloc[rows]
    present = values.notna().to_numpy()
    return np.where(present, values.astype(object).to_numpy().astype(str), fallback)


def _units(item_ids: np.ndarray, family: np.ndarray, skill: np.ndarray, n_item: np.ndarray, unit_level: str,
           min_responses: int) -> np.ndarray:
    """The calibration unit of every item (arrays over items, never over responses)."""
    if unit_level == "item":
        return item_ids
    if unit_level == "family":
        return family
    if unit_level == "skill":
        return skill
    return np.where(n_item >= min_responses, item_ids, family)


def _declared(values: Optional[pd.Series], unit_of_response: np.ndarray, n_units: int) -> np.ndarray:
    """Each unit's prior: the mean declared difficulty (as a logit) over its responses (NaN for none)."""
    if values is None:
        return np.full(n_units, np.nan)
    logits = difficulty_logit(pd.to_numeric(values, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan))
    known = np.isfinite(logits)
    total = np.bincount(unit_of_response, weights=known, minlength=n_units)
    summed = np.bincount(unit_of_response, weights=np.where(known, logits, 0.0), minlength=n_units)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, summed / total, np.nan)


def calibrate(frame: pd.DataFrame, model: str = "rasch", unit_level: str = "auto", method: Optional[str] = None,
              min_responses: int = MIN_RESPONSES, prior_sd: float = irt.DECLARED_PRIOR_SD,
              use_declared: bool = True) -> Calibration:
    """Calibrate responses (columns student, item_id, correct; optionally family, skill, difficulty_value).

    ``model`` is "rasch" or "2pl"; ``method`` is passed to the estimator
    (default: its own, which suits adaptively assigned classroom data).
    Every step works on whole columns: ids are coded once (Arrow's dictionary
    encoding for the store's text columns, the codes of a categorical); an
    item's family and skill are read once per item, from one of its rows (the
    store gives every row of an item the same), and a unit's declared
    difficulty is the mean over its responses. Units and students come out in
    sorted order, whatever the order of the rows.
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
    marked = frame["correct"].notna().to_numpy()
    if not marked.all():              # unmarked answers say nothing: only the columns used here are kept
        used = [c for c in COLUMNS if c in frame]
        frame = frame.loc[marked, used]
    try:
        data = irt.ResponseData.from_frame(frame)
    except ValueError as exc:
        raise CalibrationError(str(exc)) from None
    rows = None                       # a row of every item (data.i follows the frame's rows), to read its family
    if "family" in frame.columns or "skill" in frame.columns:
        rows = np.empty(data.n_items, dtype=np.int64)
        rows[data.i] = np.arange(data.n_responses, dtype=np.int32)
    family = _per_item(frame, "family", rows, data.item_ids)                  # no family: the item itself
    skill = _per_item(frame, "skill", rows, data.item_ids) if "skill" in frame.columns else family
    units = _units(data.item_ids, family, skill, np.bincount(data.i, minlength=data.n_items), unit_level,
                   min_responses)
    by_unit = data if np.array_equal(units, data.item_ids) else data.group_items(units)
    unit_ids = by_unit.item_ids
    unit_of = np.searchsorted(unit_ids, units.astype(str))        # item -> its unit's code
    declared = _declared(frame["difficulty_value"] if use_declared and "difficulty_value" in frame.columns else None,
                         by_unit.i, len(unit_ids))
    has_prior = bool(np.isfinite(declared).any())
    kwargs: dict[str, Any] = {"prior_mean": declared if has_prior else None,
                              "prior_sd": prior_sd if has_prior else None}
    if method is not None:
        kwargs["method"] = method
    try:
        params = (irt.fit_rasch if model == "rasch" else irt.fit_2pl)(by_unit, **kwargs)
        abilities = irt.eap(by_unit, params)
        fit = irt.item_fit(by_unit, params, abilities)
    except ValueError as exc:
        raise CalibrationError(str(exc)) from None
    out = params.to_frame().rename(columns={"item_id": "unit"})      # units in unit_ids order, as fit's rows
    if "se_discrimination" not in out:
        out["se_discrimination"] = np.nan
    out["infit"], out["outfit"] = fit["infit"].to_numpy(), fit["outfit"].to_numpy()
    out["declared"] = declared
    out["kind"] = _unit_kinds(data.item_ids, units, family, unit_of, len(unit_ids))
    out = out[["unit", "kind", "difficulty", "se_difficulty", "discrimination", "se_discrimination", "n",
               "p_correct", "infit", "outfit", "declared", "flags"]]
    return Calibration(model=model, unit_level=unit_level, method=params.method, parameters=out,
                       abilities=abilities.to_frame().rename(columns={"student_id": "student"}),
                       unit_of_item=dict(zip(data.item_ids.tolist(), units.tolist())),
                       n_responses=int(by_unit.n_responses), seconds=time.perf_counter() - started,
                       converged=bool(params.converged), iterations=int(params.iterations))


def _unit_kinds(item_ids: np.ndarray, units: np.ndarray, family: np.ndarray, unit_of: np.ndarray,
                n_units: int) -> np.ndarray:
    """Whether each unit is an item, a family or a skill (what a page needs to label it), from arrays over items."""
    kinds = np.where(units == item_ids, "item", np.where(units == family, "family", "skill")).astype(object)
    out = np.empty(n_units, dtype=object)
    out[unit_of] = kinds
    return out


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
