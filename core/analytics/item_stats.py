"""Classical item analysis: facility, discrimination, distractors, reliability, parameter effects.

Pure functions over pandas DataFrames shaped like the store's tables.

Answers (``responses``), one row per answer:

* ``student``, ``item_id``;
* ``correct`` (True/False) and, for questions with part marks, ``score`` and
  ``max_score`` (marks earned and available); an answer's *mark fraction* is
  score / max_score where both are known (max_score > 0), else 1 or 0 from
  ``correct``;
* ``created_at`` (to find first attempts), ``answer`` (what the student gave;
  needed for distractor analysis only).

Every statistic uses each student's **first attempt** at an item (earliest
``created_at``, then earliest row), the usual convention: a second attempt
after feedback measures something else.

Items (``items``), one row per item: ``item_id`` (or ``id``), and as needed
``blueprint_id``, ``options`` (JSON list of option texts), ``correct_index``,
``option_strategies`` (JSON list aligned with ``options``: the misconception
strategy each distractor stands for, null for the key), ``misconceptions``
(JSON {strategy: wrong answer}) and ``params`` (JSON {parameter: value}, the
generator's values). JSON columns may hold JSON text or parsed lists / dicts.

Column names are parameters of every function; the defaults match the store.
Generated items are often seen by one student each; to analyse them, pass
``item=`` a column that groups them (e.g. the blueprint and level) so that
every item generated from it counts as one.
"""
from __future__ import annotations

import json
import math
import unicodedata
from typing import Any, Mapping, Optional, Union

import numpy as np
import pandas as pd

__all__ = ["item_scores", "score_matrix", "facility", "discrimination", "distractors", "strategy_summary",
           "cronbach_alpha", "kr20", "reliability", "reliability_by", "parameter_facility", "parameter_effects",
           "UPPER_LOWER_SHARE", "NO_OPTION"]

UPPER_LOWER_SHARE = 0.27      # Kelley's upper and lower groups
MIN_N_FOR_NOTE = 10           # fewer answers than this: no judgement on discrimination
WEAK_DISCRIMINATION = 0.2
NO_OPTION = "(blank or not one of the options)"
Ability = Union[pd.Series, pd.DataFrame, Mapping[str, float]]


# --------------------------------------------------------------------------
# Shared helpers


def _frame(df: Any, what: str, columns: Mapping[str, Optional[str]]) -> pd.DataFrame:
    if not isinstance(df, pd.DataFrame):
        raise ValueError(f"{what} needs a pandas DataFrame, got {type(df).__name__}")
    missing = [f"{role} column '{name}'" for role, name in columns.items() if name is not None and name not in df.columns]
    if missing:
        raise ValueError(f"{what}: no {', '.join(missing)} among the columns {list(df.columns)}; "
                         f"pass the right column names")
    return df


def _json(value: Any) -> Any:
    """A JSON column's value parsed (text is parsed; None / NaN become None)."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return None
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8")
    if isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            return json.loads(text)
        except json.JSONDecodeError:
            raise ValueError(f"a JSON column holds text that is not JSON: {text[:60]!r}") from None
    if isinstance(value, np.ndarray):
        return value.tolist()
    return value


def _item_column(items: pd.DataFrame, item: str) -> str:
    if item in items.columns:
        return item
    if "id" in items.columns:
        return "id"
    raise ValueError(f"items: no '{item}' or 'id' column among {list(items.columns)}; pass item=... naming it")


def item_scores(responses: pd.DataFrame, student: str = "student", item: str = "item_id", correct: str = "correct",
                score: Optional[str] = "score", max_score: Optional[str] = "max_score",
                order: Optional[str] = "created_at", within: Optional[list[str]] = None) -> pd.DataFrame:
    """Each student's first attempt at each item: student, item, points, out_of, value (mark fraction), correct.

    ``points`` is the marks earned (``score``, else 1/0 from ``correct``),
    ``out_of`` the marks available, ``value`` = points / out_of. The other
    columns of the first-attempt row are kept. ``within`` names columns that
    keep attempts apart (e.g. a test form): the first attempt in each.
    """
    _frame(responses, "item_scores", {"student": student, "item": item})
    if len(responses) == 0:
        raise ValueError("there are no answers: the table is empty (check the filters that selected it)")
    has_correct = correct is not None and correct in responses.columns
    has_score = score is not None and max_score is not None and score in responses.columns \
        and max_score in responses.columns
    if not has_correct and not has_score:
        raise ValueError(f"answers need a '{correct}' column or '{score}' and '{max_score}' columns to be scored")
    df = responses
    if order is not None and order in df.columns:
        df = df.sort_values(order, kind="stable", na_position="last")
    df = df.drop_duplicates(list(within or []) + [student, item], keep="first").copy()
    right = pd.to_numeric(df[correct], errors="coerce").astype(float) if has_correct else \
        pd.Series(np.nan, index=df.index)
    if has_score:
        pts = pd.to_numeric(df[score], errors="coerce").astype(float)
        out_of = pd.to_numeric(df[max_score], errors="coerce").astype(float)
        usable = pts.notna() & out_of.notna() & (out_of > 0)
    else:
        pts = out_of = pd.Series(np.nan, index=df.index)
        usable = pd.Series(False, index=df.index)
    df["points"] = np.where(usable, pts, right)
    df["out_of"] = np.where(usable, out_of, 1.0)
    unscored = df["points"].isna()
    if unscored.any():
        raise ValueError(f"{int(unscored.sum())} answers have neither a mark nor right/wrong "
                         f"(e.g. student {df.loc[unscored, student].iloc[0]!r}, item {df.loc[unscored, item].iloc[0]!r}); "
                         f"drop them or mark them first")
    df["value"] = df["points"] / df["out_of"]
    df["correct"] = np.where(right.notna(), right, (df["value"] >= 1.0).astype(float))
    return df


def score_matrix(responses: pd.DataFrame, value: str = "points", student: str = "student", item: str = "item_id",
                 **columns: Any) -> pd.DataFrame:
    """Students x items table of first attempts (``value``: points, value or correct); NaN where not answered."""
    if value not in ("points", "value", "correct"):
        raise ValueError(f"value must be 'points', 'value' or 'correct', got {value!r}")
    scored = item_scores(responses, student=student, item=item, **columns)
    return scored.pivot(index=student, columns=item, values=value)


def _ability_series(ability: Ability, student: str) -> pd.Series:
    if isinstance(ability, pd.DataFrame):
        col = next((c for c in ("ability", "theta") if c in ability.columns), None)
        if col is None:
            raise ValueError("ability table needs an 'ability' or 'theta' column (and a student column or index)")
        table = ability.set_index(student) if student in ability.columns else ability
        series = table[col]
    elif isinstance(ability, pd.Series):
        series = ability
    elif isinstance(ability, Mapping):
        series = pd.Series(dict(ability), dtype=float)
    else:
        raise ValueError("ability must be a Series or mapping {student: ability} or a table with student and ability")
    series = pd.to_numeric(series, errors="coerce").astype(float)
    if series.index.has_duplicates:
        raise ValueError("ability has more than one value for some students; give one per student")
    return series.dropna()


def _correlation(frame: pd.DataFrame, key: str, x: str, y: str) -> pd.Series:
    """Pearson r of x and y within each ``key`` group (NaN when either does not vary)."""
    g = frame.groupby(key, sort=False)
    dx = frame[x] - g[x].transform("mean")
    dy = frame[y] - g[y].transform("mean")
    parts = pd.DataFrame({key: frame[key], "xy": dx * dy, "xx": dx * dx, "yy": dy * dy}).groupby(key, sort=False).sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        r = parts["xy"] / np.sqrt(parts["xx"] * parts["yy"])
    return r.where((parts["xx"] > 1e-12) & (parts["yy"] > 1e-12))


# --------------------------------------------------------------------------
# Facility and discrimination


def facility(responses: pd.DataFrame, item: str = "item_id", **columns: Any) -> pd.DataFrame:
    """Per item: n (students), facility (mean mark fraction), p_correct (share fully right), marks (most available).

    Facility is the proportion correct for right/wrong items and the mean of
    score / max_score for part-marked ones. Sorted hardest first.
    """
    scored = item_scores(responses, item=item, **columns)
    out = scored.groupby(item, sort=True).agg(n=("value", "size"), facility=("value", "mean"),
                                              p_correct=("correct", "mean"), marks=("out_of", "max")).reset_index()
    return out.sort_values(["facility", item], kind="stable").reset_index(drop=True)


def discrimination(responses: pd.DataFrame, ability: Optional[Ability] = None, share: float = UPPER_LOWER_SHARE,
                   student: str = "student", item: str = "item_id", **columns: Any) -> pd.DataFrame:
    """How well each item separates stronger from weaker students.

    Without ``ability`` (a test form: the students took the same items) the
    criterion is the test score: ``point_biserial`` is the corrected
    item-rest correlation, the Pearson r between the item's mark fraction and
    the student's marks on the *other* items (for a right/wrong item this is
    the point-biserial); the upper-lower index compares the top and bottom
    ``share`` (27%) of students by total marks. An item a student did not
    answer is left out of their total (a blank answer is marked 0 and counts).

    With ``ability`` ({student: ability}, e.g. IRT thetas; students saw
    different items) the criterion is the ability instead, for both measures;
    answers of students without an ability are left out.

    Upper and lower groups are formed per item among the students who answered
    it: g = round(share x n) students at each end, ties at the cut split by
    student name. ``upper_lower`` = facility in the upper group minus facility
    in the lower group (NaN when g = 0).

    Returns per item: n, facility, point_biserial, upper_lower, n_group,
    criterion ("rest score" or "ability"), note (plain-language warning).
    """
    if not (isinstance(share, (int, float)) and 0 < share < 0.5):
        raise ValueError(f"share must be between 0 and 0.5 (the size of each of the upper and lower groups), got {share!r}")
    scored = item_scores(responses, student=student, item=item, **columns)
    if ability is None:
        totals = scored.groupby(student)["points"].transform("sum")
        scored = scored.assign(criterion=totals, rest=totals - scored["points"])
        against, label = "rest", "rest score"
    else:
        theta = _ability_series(ability, student)
        scored = scored.assign(criterion=scored[student].map(theta)).dropna(subset=["criterion"])
        if scored.empty:
            raise ValueError("none of the answering students has an ability; pass abilities for these students")
        against, label = "criterion", "ability"
    r = _correlation(scored, item, "value", against)
    ordered = scored.sort_values([item, "criterion", student], kind="stable")
    rank = ordered.groupby(item, sort=False).cumcount()
    size = ordered.groupby(item, sort=False)["value"].transform("size")
    g = np.floor(share * size + 0.5)
    lower = rank < g
    upper = rank >= size - g
    grouped = pd.DataFrame({item: ordered[item], "up": ordered["value"].where(upper),
                            "low": ordered["value"].where(lower), "g": g})
    ul = grouped.groupby(item, sort=False).agg(up=("up", "mean"), low=("low", "mean"), n_group=("g", "first"))
    base = scored.groupby(item).agg(n=("value", "size"), facility=("value", "mean"))
    out = base.join(r.rename("point_biserial")).join(ul)
    out["upper_lower"] = out["up"] - out["low"]
    out["n_group"] = out["n_group"].astype(int)
    out["criterion"] = label
    out["note"] = _discrimination_note(out)
    out = out.drop(columns=["up", "low"]).reset_index()
    return out[[item, "n", "facility", "point_biserial", "upper_lower", "n_group", "criterion", "note"]]


def _discrimination_note(out: pd.DataFrame) -> pd.Series:
    r = out["point_biserial"]
    note = pd.Series("", index=out.index, dtype=object)
    note[r < WEAK_DISCRIMINATION] = "weak: hardly separates stronger from weaker students"
    note[r < 0] = "negative: weaker students do better; check the key and the wording"
    note[r.isna()] = "no spread: everyone scored alike on it or on the rest"
    note[out["n"] < MIN_N_FOR_NOTE] = f"too few answers to judge (under {MIN_N_FOR_NOTE})"
    return note


# --------------------------------------------------------------------------
# Distractors


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
            continue
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


# --------------------------------------------------------------------------
# Reliability


def _complete(matrix: pd.DataFrame) -> tuple[np.ndarray, int]:
    if not isinstance(matrix, pd.DataFrame):
        raise ValueError("reliability needs a students x items table (see score_matrix)")
    values = matrix.apply(pd.to_numeric, errors="coerce")
    if values.shape[1] < 2:
        raise ValueError(f"reliability needs at least 2 items, got {values.shape[1]}")
    complete = values.dropna(axis=0, how="any")
    if len(complete) < 2:
        raise ValueError(f"reliability needs at least 2 students who answered every item; {len(complete)} of "
                         f"{len(values)} did (missing answers drop a student; mark blanks 0 to keep them)")
    return complete.to_numpy(dtype=float), len(values) - len(complete)


def cronbach_alpha(matrix: pd.DataFrame) -> float:
    """Cronbach's alpha = k/(k-1) * (1 - sum of item variances / variance of totals).

    ``matrix``: students x items scores (marks; items count with their
    weight). Complete cases only: a student missing any item is dropped.
    Variances are population variances (the ratio, hence alpha, is the same
    with n-1). NaN when every student has the same total.

    Alpha estimates the reliability of the total when the items measure one
    thing with equal weight (tau-equivalence); otherwise it is a lower bound.
    It rises with the number of items, so compare forms of similar length.
    """
    x, _ = _complete(matrix)
    return _alpha(x)


def _alpha(x: np.ndarray) -> float:
    k = x.shape[1]
    total = x.sum(axis=1).var()
    if total <= 1e-12:
        return float("nan")
    return float(k / (k - 1) * (1.0 - x.var(axis=0).sum() / total))


def kr20(matrix: pd.DataFrame) -> float:
    """Kuder-Richardson 20 = k/(k-1) * (1 - sum p(1-p) / variance of totals), for right/wrong items.

    Every item counts as one mark: an item scored 0 or its maximum (e.g. 0 or
    3 marks) is read as wrong / right. Complete cases only; population
    variance of the totals, so KR-20 equals alpha on 0/1 scores. A ValueError
    when an item has more than two score values (part marks: use alpha).
    """
    x, _ = _complete(matrix)
    binary = _dichotomise(x)
    if binary is None:
        raise ValueError("KR-20 needs right/wrong items but some items have part marks; use cronbach_alpha")
    return _kr20(binary)


def _dichotomise(x: np.ndarray) -> Optional[np.ndarray]:
    top = x.max(axis=0)
    ok = np.all((x == 0) | (x == top[None, :]), axis=0) | np.all(x == x[0], axis=0)
    if not ok.all():
        return None
    return (x > 0).astype(float)


def _kr20(binary: np.ndarray) -> float:
    k = binary.shape[1]
    p = binary.mean(axis=0)
    total = binary.sum(axis=1).var()
    if total <= 1e-12:
        return float("nan")
    return float(k / (k - 1) * (1.0 - (p * (1 - p)).sum() / total))


def reliability(matrix: pd.DataFrame) -> dict:
    """alpha, kr20 (NaN when items have part marks), n_students (complete cases), n_items, n_dropped."""
    x, dropped = _complete(matrix)
    binary = _dichotomise(x)
    return {"alpha": _alpha(x), "kr20": _kr20(binary) if binary is not None else float("nan"),
            "n_students": int(x.shape[0]), "n_items": int(x.shape[1]), "n_dropped": int(dropped)}


def reliability_by(responses: pd.DataFrame, by: str, student: str = "student", item: str = "item_id",
                   **columns: Any) -> pd.DataFrame:
    """``reliability`` of each test form: ``by`` names the column that says which form an answer belongs to.

    The matrix of each form holds marks (points) of first attempts within the
    form. Forms with fewer than 2 items or 2 complete students get NaN and a
    note saying why.
    """
    _frame(responses, "reliability_by", {"form": by})
    scored = item_scores(responses, student=student, item=item, within=[by], **columns)
    rows = []
    for form, part in scored.groupby(by, sort=True):     # one pass per form, not per answer
        matrix = part.pivot(index=student, columns=item, values="points")
        try:
            rows.append({by: form, **reliability(matrix), "note": ""})
        except ValueError as exc:
            rows.append({by: form, "alpha": np.nan, "kr20": np.nan, "n_students": 0, "n_items": matrix.shape[1],
                         "n_dropped": len(matrix), "note": str(exc)})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------
# Parameter effects


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
    merged = _parameter_answers(responses, items, student, item, max_levels, bins, columns)
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
    merged = _parameter_answers(responses, items, student, item, max_levels, bins, columns)
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
