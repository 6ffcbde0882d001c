"""Blueprint changes the evidence suggests: levels out of order, noisy units, low discrimination, weak
distractors.
"""
from __future__ import annotations

from typing import Optional

import pandas as pd

from core.analytics import calibration as cal
from core.analytics import item_stats
from core.analytics.explain import FIT_HIGH
from core.analytics.reports.class_overview import _theta
from core.analytics.reports.items import latest_parameters
from core.store import Store
from core.store import analytics as data

NOISY_OUTFIT = FIT_HIGH
RARE_SHARE = 0.02


def _unit_parts(unit: str) -> tuple[str, Optional[str]]:
    """(blueprint id, level) of a family unit "blueprint|level"; (unit, None) for an item or skill."""
    blueprint, _, level = unit.partition("|")
    return blueprint, level or None


def blueprint_fixes(store: Store, class_code: Optional[str] = None, min_n: int = 20,
                    ability: Optional[pd.Series] = None) -> pd.DataFrame:
    """Blueprint changes the evidence suggests: blueprint_id, level, issue, evidence, suggestion.

    From the newest calibration: levels out of order or with no real
    difference, noisy units (outfit above 1.3) and low discrimination; from
    the answers: distractor strategies almost nobody chooses, and ones that
    draw the stronger students (a sign the option may be defensible).
    """
    rows: list[dict] = []
    run, params = latest_parameters(store)
    if not params.empty:
        for r in cal.level_order(params).itertuples():
            if r.flag:
                rows.append({"blueprint_id": r.blueprint_id, "level": r.level, "issue": "difficulty levels",
                             "evidence": r.flag,
                             "suggestion": "make the harder level harder (wider ranges, more steps, constraints) "
                                           "or relabel the levels so their order matches the data"})
        solid = params[params["n"] >= min_n]
        for r in solid[solid["outfit"] > NOISY_OUTFIT].itertuples():
            blueprint, level = _unit_parts(r.unit)
            rows.append({"blueprint_id": blueprint, "level": level, "issue": "noisy", "evidence": f"outfit {r.outfit:.2f} over {int(r.n)} answers",
                         "suggestion": "look for stems that can be read two ways or keys that mark right answers "
                                       "wrong (tolerance, units, forms)"})
        for r in solid[solid["flags"].fillna("").str.contains("low discrimination")].itertuples():
            blueprint, level = _unit_parts(r.unit)
            rows.append({"blueprint_id": blueprint, "level": level, "issue": "low discrimination",
                         "evidence": f"discrimination {r.discrimination:.2f} over {int(r.n)} answers",
                         "suggestion": "stronger and weaker students do about equally well: check for guessable "
                                       "options or a shortcut that skips the skill"})
    frame = data.responses(store, class_code, item_type="multiple_choice")
    mcq = frame[frame["blueprint_id"].notna()]
    if not mcq.empty:
        meta = data.items(store, list(mcq["item_id"].unique()))
        summary = item_stats.strategy_summary(
            item_stats.distractors(mcq, meta, ability=_theta(store, class_code, ability), min_count=1))
        summary = summary[summary["strategy"].notna()]
        for r in summary[(summary["offered"] >= min_n) & (summary["share"] < RARE_SHARE)].itertuples():
            rows.append({"blueprint_id": r.blueprint_id, "level": None, "issue": "distractor never chosen",
                         "evidence": f"{r.strategy}: chosen {int(r.chosen)} times in {int(r.offered)} answers",
                         "suggestion": f"rework or replace the '{r.strategy}' distractor: no one makes that mistake"})
        for r in summary[summary["suspect_items"] > 0].itertuples():
            rows.append({"blueprint_id": r.blueprint_id, "level": None, "issue": "distractor draws strong students",
                         "evidence": f"{r.strategy}: {int(r.suspect_items)} item(s) where those choosing it "
                                     f"outscore those choosing the key",
                         "suggestion": f"check that the '{r.strategy}' option is not also defensible, "
                                       f"and that the stem says what is wanted"})
    return pd.DataFrame(rows, columns=["blueprint_id", "level", "issue", "evidence", "suggestion"])
