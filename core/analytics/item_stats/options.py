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
    wanted = [key, "blueprint_id", "options", "correct_index", "option_strategies", "misconceptions"]
    for rec in items[[c for c in dict.fromkeys(wanted) if c in items.columns]].to_dict("records"):
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


def _key(value: Any) -> Any:
    """An answer as a dictionary key: blanks (None, NaN, NA) are one key, as pandas groups them."""
    return None if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)) else value


def _read_choices(pairs: list[tuple[Any, Any]], options: pd.DataFrame, item: str) -> list[int]:
    """The option index each distinct (item, answer) pair picked; -1 for blanks and answers that are no option.

    Answers are stored as the option's text; a matching text is found by
    comparison. Anything else (a letter "b", an index "1", a number written
    differently) is read the way marking reads it, once per distinct pair.
    """
    by_text: dict[tuple[Any, Optional[str]], int] = {}
    texts: dict[Any, list[str]] = {}
    keys: dict[Any, int] = {}
    for it, text, k, is_key in zip(options[item].tolist(), options["option"].tolist(),
                                   options["option_index"].tolist(), options["is_key"].tolist()):
        by_text.setdefault((it, _norm(text)), k)
        texts.setdefault(it, []).append(text)
        if is_key:
            keys[it] = k
    found = []
    for it, given in pairs:
        normed = _norm(given)
        k = by_text.get((it, normed), -1)
        if k < 0 and normed:
            from core.marking import MarkingSpec, mark_answer  # only for answers given as letters, numbers, ...
            opts, key = texts[it], keys[it]
            picked = mark_answer(MarkingSpec(method="mcq", key=opts[key], options=opts, correct_index=key),
                                 given).normalised_answer
            k = opts.index(picked) if picked is not None and picked in opts else -1
        found.append(k)
    return found


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
    who, what, given = scored[student].tolist(), scored[item].tolist(), scored[answer].tolist()
    points, out_of = {}, {}   # per student, over all their answers: the choosers' overall mark fraction
    for s_, p, o in zip(who, scored["points"].tolist(), scored["out_of"].tolist()):
        points[s_], out_of[s_] = points.get(s_, 0.0) + p, out_of.get(s_, 0.0) + o
    offered = set(options[item].tolist())
    rows = [(s_, it, _key(a)) for s_, it, a in zip(who, what, given) if it in offered]
    if not rows:
        raise ValueError("no answers to the multiple-choice items given; check the items match the answers")
    pairs = list(dict.fromkeys((it, a) for _, it, a in rows))     # distinct answers, read once each
    choice = dict(zip(pairs, _read_choices(pairs, options, item)))
    abilities = _ability_series(ability, student).to_dict() if ability is not None else {}
    chosen: dict[tuple[Any, int], list[list[float]]] = {}   # (item, option): choosers' scores and abilities
    for s_, it, a in rows:
        scores, levels = chosen.setdefault((it, choice[(it, a)]), [[], []])
        scores.append(points[s_] / out_of[s_])
        if s_ in abilities:
            levels.append(abilities[s_])
    table = options[options[item].isin({it for _, it, _a in rows})]
    records = table.to_dict("records")
    with_blueprint = "blueprint_id" in options.columns
    blueprint_of = dict(zip(options[item].tolist(), options["blueprint_id"].tolist())) if with_blueprint else {}
    for it in dict.fromkeys(it for it, k in chosen if k < 0):   # the blank / not-an-option row of each item
        records.append({item: it, **({"blueprint_id": blueprint_of.get(it)} if with_blueprint else {}),
                        "option_index": -1, "option": NO_OPTION, "is_key": False, "strategy": None})
    totals: dict[Any, int] = {}
    for (it, _k), (scores, _l) in chosen.items():
        totals[it] = totals.get(it, 0) + len(scores)
    for rec in records:
        scores, levels = chosen.get((rec[item], rec["option_index"]), ([], []))
        rec.update(count=len(scores), share=len(scores) / totals[rec[item]] if totals.get(rec[item]) else np.nan,
                   mean_score=math.fsum(scores) / len(scores) if scores else np.nan,
                   mean_ability=math.fsum(levels) / len(levels) if levels else np.nan)
    criterion = "mean_ability" if ability is not None else "mean_score"
    key_level = {rec[item]: rec[criterion] for rec in records if rec["is_key"]}
    for rec in records:
        bar = key_level.get(rec[item], np.nan)
        rec["suspect"] = bool(not rec["is_key"] and rec["option_index"] >= 0 and rec["count"] >= min_count
                              and rec[criterion] >= bar)   # NaN on either side: not suspect
    records.sort(key=lambda r: (r[item], r["option_index"] < 0, r["option_index"]))   # blanks after the options
    out = pd.DataFrame(records, columns=list(options.columns) + ["count", "share", "mean_score", "mean_ability",
                                                                 "suspect"])
    out["strategy"] = pd.Series([r["strategy"] for r in records], dtype=object)   # None for the key and blanks
    return out.astype({"option_index": "int64", "is_key": bool, "count": "int64", "share": float,
                       "mean_score": float, "mean_ability": float, "suspect": bool})


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
    per_item: dict[Any, int] = {}
    for it, n in zip(t[item].tolist(), t["count"].tolist()):
        per_item[it] = per_item.get(it, 0) + n
    groups: dict[tuple, list] = {}   # (by, strategy): items, offered, chosen, weighted score and ability, suspects
    columns = [t[c].tolist() for c in keys + ["strategy", item, "count", "mean_score", "mean_ability", "is_key",
                                              "option_index", "suspect"]]
    for *group, strategy, it, n, score, level, is_key, index, suspect in zip(*columns):
        if is_key or index < 0 or _key(strategy) is None:
            continue
        g = groups.setdefault((*(_key(v) for v in group), strategy), [set(), 0, 0, 0.0, 0.0, 0, 0])
        g[0].add(it)
        g[1] += per_item[it]
        g[2] += n
        g[3] += (0.0 if _key(score) is None else score) * n
        if _key(level) is not None:
            g[4] += level * n
            g[5] += n
        g[6] += int(bool(suspect))
    names = keys + ["strategy", "items", "offered", "chosen", "share", "mean_score", "mean_ability", "suspect_items"]
    out = pd.DataFrame([(*group, len(its), offered, chosen, chosen / offered if offered else np.nan,
                         w_score / chosen if chosen > 0 else np.nan, w_ability / has if has > 0 else np.nan, suspects)
                        for group, (its, offered, chosen, w_score, w_ability, has, suspects) in groups.items()],
                       columns=names)
    out = out.astype({"items": "int64", "offered": "int64", "chosen": "int64", "share": float, "mean_score": float,
                      "mean_ability": float, "suspect_items": "int64"})
    return out.sort_values(keys + ["share", "strategy"], ascending=[True] * len(keys) + [False, True]).reset_index(drop=True)
