"""Items and blueprints: calibration runs, item tables, the Wright map, distractors and parameter effects."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from core.analytics import calibration as cal
from core.analytics import item_stats
from core.analytics.reports.class_overview import _theta
from core.analytics.reports.common import Progress
from core.store import Store
from core.store import analytics as data


def run_calibration(store: Store, model: str = "rasch", unit_level: str = "auto", class_code: Optional[str] = None,
                    progress: Progress = None) -> tuple[cal.Calibration, str]:
    """Calibrate the responses (of a class, or all) and store the result; the run and its id."""
    say = progress or (lambda _f, _t: None)
    say(0.1, "Loading responses…")
    frame = data.responses(store, class_code)
    say(0.3, f"Calibrating {len(frame):,} responses…")
    result = cal.calibrate(frame, model, unit_level)
    say(0.8, "Storing the parameters…")
    run_id = data.save_calibration(store, result.run_record(), result.parameters, result.abilities)
    say(1.0, "Done")
    return result, run_id


def latest_parameters(store: Store) -> tuple[Optional[dict], pd.DataFrame]:
    run = data.latest_calibration(store)
    if run is None:
        return None, pd.DataFrame()
    return run, data.calibration_parameters(store, run["id"])


def item_table(store: Store, class_code: Optional[str] = None, by: str = "family") -> pd.DataFrame:
    """Facility and discrimination per unit (``by`` item, family or skill), with the measured difficulty
    of the newest calibration when it has that unit."""
    table = data.unit_statistics(store, class_code, by)
    run, params = latest_parameters(store)
    if not params.empty:
        table = table.merge(params[["unit", "difficulty", "se_difficulty", "infit", "outfit"]]
                            .rename(columns={"se_difficulty": "se"}), on="unit", how="left")
    return table.rename(columns={"unit": by})


def wright_map(store: Store) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Abilities and unit difficulties of the newest calibration, on one scale: (abilities, units)."""
    run, params = latest_parameters(store)
    if run is None:
        return pd.DataFrame(columns=["theta"]), pd.DataFrame(columns=["unit", "difficulty"])
    return data.calibration_abilities(store, run["id"]), params[["unit", "kind", "difficulty"]]


def distractor_report(store: Store, class_code: Optional[str], blueprint_id: str,
                      ability: Optional[pd.Series] = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Which option (hence which misconception) drew whom on a blueprint's multiple-choice items.

    ``ability`` (theta by student) when the caller has it already; else from ``abilities``.
    """
    frame = data.responses(store, class_code, blueprint_id=blueprint_id, item_type="multiple_choice")
    meta = data.items(store, list(frame["item_id"].unique()))
    if frame.empty or meta.empty:   # no multiple-choice answers on this blueprint: no options to compare
        return pd.DataFrame(), pd.DataFrame()
    table = item_stats.distractors(frame, meta, ability=_theta(store, class_code, ability), min_count=1)
    return table, item_stats.strategy_summary(table)


def parameter_report(store: Store, class_code: Optional[str], blueprint_id: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Which parameter values make a blueprint's items harder: (effects, facility by value)."""
    frame = data.responses(store, class_code, blueprint_id=blueprint_id)
    meta = data.items(store, list(frame["item_id"].unique()))
    if frame.empty or not meta["params"].map(bool).any():   # no answers, or items without generator parameters
        return pd.DataFrame(), pd.DataFrame()
    return item_stats.parameter_tables(frame, meta)


def answered_blueprints(store: Store, class_code: Optional[str]) -> list[str]:
    """The blueprints a class (or, with None, anyone) has answered, most answered first: those with a report."""
    return data.answered_blueprints(store, class_code)


def blueprint_report(store: Store, class_code: Optional[str], blueprint_id: str,
                     ability: Optional[pd.Series] = None) -> dict[str, pd.DataFrame]:
    """``distractor_report`` and ``parameter_report`` of one blueprint from one read of its answers:
    distractors, strategies, effects, by_value (empty tables where the blueprint has none)."""
    frame = data.responses(store, class_code, blueprint_id=blueprint_id)
    meta = data.items(store, list(frame["item_id"].unique()))
    out = {k: pd.DataFrame() for k in ("distractors", "strategies", "effects", "by_value")}
    if frame.empty or meta.empty:
        return out
    mcq = frame[frame["item_type"] == "multiple_choice"]
    if not mcq.empty:
        table = item_stats.distractors(mcq, meta[meta["item_id"].isin(set(mcq["item_id"]))],
                                       ability=_theta(store, class_code, ability), min_count=1)
        out.update(distractors=table, strategies=item_stats.strategy_summary(table))
    if meta["params"].map(bool).any():
        out["effects"], out["by_value"] = item_stats.parameter_tables(frame, meta)
    return out
