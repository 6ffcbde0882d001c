"""Distractor analysis: which option students chose on each multiple-choice item, and what that says.

Each wrong option (distractor) of a generated item stands for a misconception
strategy, so counting choices counts misconceptions. Assumed: an answer is
the option whose text it matches (after normalising case, spacing and a final
full stop); answers given another way (a letter, an index) are read as
marking reads them. A distractor chosen by students as strong as those who
chose the key is suspect: the option may be arguably right, or the key wrong.
"""
from __future__ import annotations

import math
import unicodedata
from typing import Any, Optional

import numpy as np
import pandas as pd

from core.analytics.item_stats.inputs import Ability, _ability_series, _frame, _item_column, _json
from core.analytics.item_stats.scoring import item_scores

NO_OPTION = "(blank or not one of the options)"


def _norm(text: Any) -> Optional[str]:
    """Option text as compared: NFKC, case-folded, single spaces, no trailing full stop."""
    if text is None or (isinstance(text, float) and math.isnan(text)) or text is pd.NA:
        return None
    text = " ".join(unicodedata.normalize("NFKC", str(text)).casefold().split())
    return text[:-1].rstrip() if text.endswith(".") else text


def _option_table(items: pd.DataFrame, item: str) -> pd.DataFrame:
    """One row per multiple-choice item x option: option_index, option, is_key, strategy."""
    key = _item_column(items, item)
    rows = []
    extra = "blueprint_id" in items.columns
    for rec in items.to_dict("records"):
        options = _json(rec.get("options"))
        index = rec.get("correct_index")
        if not options or index is None or (isinstance(index, float) and math.isnan(index)) or index is pd.NA:
            continue   # no single key: a typed answer, or a choose-several question (several right options)
        index = int(index)
        if not 0 <= index < len(options):
            raise ValueError(f"item {rec[key]!r}: correct_index {index} does not name one of its {len(options)} options")
        strategies = list(_json(rec.get("option_strategies")) or [])
        misconceptions = _json(rec.get("misconceptions")) or {}
        by_answer = {_norm(v): k for k, v in misconceptions.items() if v is not None}
        for k, text in enumerate(options):
            strategy = strategies[k] if k < len(strategies) else None
            if strategy is None and k != index:
                strategy = by_answer.get(_norm(text))
            rows.append({item: rec[key], **({"blueprint_id": rec.get("blueprint_id")} if extra else {}),
                         "option_index": k, "option": str(text), "is_key": k == index,
                         "strategy": None if k == index else strategy})
    columns = [item] + (["blueprint_id"] if extra else []) + ["option_index", "option", "is_key", "strategy"]
    return pd.DataFrame(rows, columns=columns)


def _read_choices(pairs: pd.DataFrame, options: pd.DataFrame, item: str, answer: str) -> pd.Series:
    """The option index each (item, answer) pair picked; -1 for blanks and answers that are no option.

    Answers are stored as the option's text; a matching text is found by
    comparison. Anything else (a letter "b", an index "1", a number written
    differently) is read the way marking reads it, once per distinct pair.
    """
    normed = options.assign(_norm=options["option"].map(_norm)).drop_duplicates([item, "_norm"])
    keyed = pairs.assign(_norm=pairs[answer].map(_norm))
    found = keyed.merge(normed[[item, "_norm", "option_index"]], on=[item, "_norm"], how="left")["option_index"]
    found.index = pairs.index
    todo = found.isna() & keyed["_norm"].fillna("").ne("")
    if todo.any():
        from core.marking import MarkingSpec, mark_answer  # only for answers given as letters, numbers, ...
        texts = options.groupby(item, sort=False)["option"].agg(list)
        keys = options[options["is_key"]].set_index(item)["option_index"]
        for i, row in pairs[todo].iterrows():    # distinct (item, answer) pairs, not answers
            opts, k = texts[row[item]], int(keys[row[item]])
            picked = mark_answer(MarkingSpec(method="mcq", key=opts[k], options=opts, correct_index=k),
                                 row[answer]).normalised_answer
            if picked is not None and picked in opts:
                found[i] = opts.index(picked)
    return found.fillna(-1).astype(int)


def distractors(responses: pd.DataFrame, items: pd.DataFrame, ability: Optional[Ability] = None,
                min_count: int = 5, student: str = "student", item: str = "item_id", answer: str = "answer",
                **columns: Any) -> pd.DataFrame:
    """Which option students chose on each multiple-choice item, and what that says.

    One row per item x option (options nobody chose included, plus a row
    ``option_index`` -1 for blank answers and answers that are not an option,
    when there are any): item, blueprint_id (when items have one),
    option_index, option, is_key, strategy (the misconception the distractor
    stands for), count, share (of the item's answers), mean_score (the
    choosers' mean mark fraction over all their answers in ``responses``),
    mean_ability (NaN without ``ability``) and suspect.

    A distractor is *suspect* when at least ``min_count`` students chose it and
    their mean ability (mean_score without abilities) is at least that of the
    students who chose the key: strong students picking a wrong option usually
    means the option is arguably right or the key is wrong.
    """
    _frame(responses, "distractors", {"student": student, "item": item, "answer": answer})
    options = _option_table(_frame(items, "distractors (items)", {}), item)
    if options.empty:
        raise ValueError("none of the items is multiple choice (options and correct_index); "
                         "distractor analysis needs multiple-choice items")
    scored = item_scores(responses, student=student, item=item, **columns)
    overall = scored.groupby(student)["points"].sum() / scored.groupby(student)["out_of"].sum()
    mcq = scored[scored[item].isin(set(options[item]))]
    if mcq.empty:
        raise ValueError("no answers to the multiple-choice items given; check the items match the answers")
    pairs = mcq[[item, answer]].drop_duplicates()
    choice = _read_choices(pairs.reset_index(drop=True), options, item, answer)
    pairs = pairs.reset_index(drop=True).assign(option_index=choice.to_numpy())
    chosen = mcq.merge(pairs, on=[item, answer], how="left")
    chosen["score_all"] = chosen[student].map(overall)
    chosen["ability"] = chosen[student].map(_ability_series(ability, student)) if ability is not None else np.nan
    counts = chosen.groupby([item, "option_index"]).agg(count=(student, "size"), mean_score=("score_all", "mean"),
                                                         mean_ability=("ability", "mean")).reset_index()
    answered = set(chosen[item])
    table = options[options[item].isin(answered)]
    blanks = counts[counts["option_index"] < 0][[item]].drop_duplicates()
    if len(blanks):
        extra = blanks.assign(option_index=-1, option=NO_OPTION, is_key=False, strategy=None)
        if "blueprint_id" in table.columns:
            extra["blueprint_id"] = extra[item].map(options.drop_duplicates(item).set_index(item)["blueprint_id"])
        table = pd.concat([table, extra[table.columns]], ignore_index=True)
    out = table.merge(counts, on=[item, "option_index"], how="left")
    out["count"] = out["count"].fillna(0).astype(int)
    out["share"] = out["count"] / out.groupby(item)["count"].transform("sum")
    criterion = "mean_ability" if ability is not None else "mean_score"
    key_level = out[out["is_key"]].set_index(item)[criterion]
    out["suspect"] = (~out["is_key"]) & (out["option_index"] >= 0) & (out["count"] >= min_count) & \
        (out[criterion] >= out[item].map(key_level))
    out = out[[c for c in options.columns] + ["count", "share", "mean_score", "mean_ability", "suspect"]]
    out["_last"] = out["option_index"] < 0       # the blank / not-an-option row after the options
    out = out.sort_values([item, "_last", "option_index"], kind="stable").drop(columns="_last")
    return out.reset_index(drop=True)


def strategy_summary(distractor_table: pd.DataFrame, by: Optional[str] = "blueprint_id",
                     item: str = "item_id") -> pd.DataFrame:
    """Misconception strategies across items (per blueprint when ``by`` is a column of the table).

    From ``distractors``' output: per strategy, items (how many items offered
    it as an option), offered (answers to those items), chosen, share =
    chosen / offered, mean_score and mean_ability of the students who chose
    it, suspect_items. Most chosen first.
    """
    t = _frame(distractor_table, "strategy_summary", {"item": item, "strategy": "strategy", "count": "count"})
    keys = [by] if by is not None and by in t.columns else []
    per_item = t.groupby(item)["count"].sum()
    d = t[(~t["is_key"]) & (t["option_index"] >= 0) & t["strategy"].notna()].copy()
    d["offered"] = d[item].map(per_item)
    d["w_score"] = d["mean_score"].fillna(0) * d["count"]
    d["w_ability"] = d["mean_ability"].fillna(0) * d["count"]
    d["has_ability"] = d["mean_ability"].notna() * d["count"]
    g = d.groupby(keys + ["strategy"], dropna=False)
    out = g.agg(items=(item, "nunique"), offered=("offered", "sum"), chosen=("count", "sum"),
                w_score=("w_score", "sum"), w_ability=("w_ability", "sum"), has_ability=("has_ability", "sum"),
                suspect_items=("suspect", "sum")).reset_index()
    with np.errstate(invalid="ignore", divide="ignore"):
        out["share"] = out["chosen"] / out["offered"]
        out["mean_score"] = (out["w_score"] / out["chosen"]).where(out["chosen"] > 0)
        out["mean_ability"] = (out["w_ability"] / out["has_ability"]).where(out["has_ability"] > 0)
    out = out.drop(columns=["w_score", "w_ability", "has_ability"])
    out = out[keys + ["strategy", "items", "offered", "chosen", "share", "mean_score", "mean_ability", "suspect_items"]]
    return out.sort_values(keys + ["share", "strategy"], ascending=[True] * len(keys) + [False, True]).reset_index(drop=True)
