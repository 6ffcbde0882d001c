"""Mastery per student and skill: over time, the weakest skills, and what to practise next.

Two ways to score mastery from a student's answers on a skill, in time order:

* ``method="rule"`` (what the app shows students): the rule in
  ``core.school.progress.mastery_update``, starting from ``INITIAL_MASTERY`` -
  right answers move mastery 10% of the way to 1, wrong ones 20% of the way
  to 0. Every answer counts alike and old answers fade geometrically.
* ``method="bkt"``: Bayesian Knowledge Tracing (``core.analytics.bkt``) -
  the chance the student knows the skill after the answer, counting the
  chance this practice taught it (the standard knowledge-tracing estimate).
  Parameters are fitted per skill on the answers given unless passed in, so
  it needs a class's worth of answers per skill.

Answers (``df``): one row per answer with ``student``, ``skill`` (for the
app's own scores, the skill the item practises: ``core.items.skills.skill_for``;
an item no skill fits moves only its outcome's ability, never a mastery
score), ``correct`` (True/False or 1/0) and ``created_at`` (ties keep the
rows' order). Replaying the rule over a student's practice answers
reproduces the scores the app stored; lessons also update the stored score
when a card is finished (by their own retry rules, sometimes for several
skills per card), which a replay of answers does not model.

Mastery tables (``mastery_df``): one row per student and skill with
``student``, ``skill``, ``mastery`` and, when known, ``n_responses`` - what
``current_mastery`` returns. Bands follow the student pages
(``core.school.progress``): secure from ``SECURE``, developing from ``DEVELOPING``,
else needs work. ``outcome_mastery`` rolls skills up to the outcome each
belongs to, for wherever a figure per outcome is shown.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

import numpy as np
import pandas as pd

from core.analytics.bkt import require_columns, binary_correct, fit_bkt, mastery_trace, pack_sequences
from core.school.progress import INITIAL_MASTERY, mastery_update
from core.school.progress import DEVELOPING, SECURE

__all__ = ["METHODS", "rule_history", "mastery_history", "current_mastery", "weakest_skills", "class_weakest",
           "recommendations", "outcome_mastery"]

METHODS = ("rule", "bkt")
_PROBES = (0.0, 0.25, 0.5, 0.75, 1.0)


def _rule_steps() -> Optional[tuple[float, float, float, float]]:
    """(a_right, b_right, a_wrong, b_wrong) with mastery_update(m, c) = a_c m + b_c, read off the rule itself.

    None when the rule is not of that form (then it is applied answer by answer).
    """
    steps = []
    for correct in (True, False):
        b = mastery_update(0.0, correct)
        a = mastery_update(1.0, correct) - b
        if any(abs(mastery_update(m, correct) - (a * m + b)) > 2e-6 for m in _PROBES):
            return None
        steps += [a, b]
    return tuple(steps)


def rule_history(df: pd.DataFrame, skill: str = "skill", student: str = "student", correct: str = "correct",
                 order: Optional[str] = "created_at", initial: float = INITIAL_MASTERY) -> pd.DataFrame:
    """Replay the app's mastery rule over every student x skill's answers in time order.

    Returns a copy of ``df`` (same rows and order) with ``opportunity`` (1 for
    the student's first answer on the skill, ...), ``mastery_before`` and
    ``mastery`` (after the answer, rounded to 6 decimals as the app stores it).

    The rule is read off ``core.school.progress.mastery_update`` (it is a fixed
    affine step for a right and for a wrong answer) and applied one
    opportunity at a time to all sequences at once. The app rounds after every
    step and this replay only at the end, so values can differ from the
    stored ones in the sixth decimal (at most 5e-6: each rounding error shrinks
    by the next step).
    """
    require_columns(df, {"skill": skill, "student": student, "correct": correct, "order": order}, "rule_history")
    if not (isinstance(initial, (int, float)) and 0 <= initial <= 1):
        raise ValueError(f"initial mastery must be a number from 0 to 1, got {initial!r}")
    obs = binary_correct(df[correct], correct)
    seqs = pack_sequences(df, skill, student, order)
    right = seqs.pack(obs) > 0.5
    steps = _rule_steps()
    before = np.empty(len(right))
    after = np.empty(len(right))
    position = np.empty(len(right), dtype=np.int64)
    m = np.full(seqs.n_sequences, float(initial))
    exact = np.frompyfunc(mastery_update, 2, 1) if steps is None else None
    for t in range(seqs.n_opportunities):
        b, n = seqs.block(t), int(seqs.counts[t])
        m = m[:n]
        before[b] = m
        r = right[b]
        if steps is None:
            m = exact(m, r).astype(float)
        else:
            a1, b1, a0, b0 = steps
            m = np.where(r, a1 * m + b1, a0 * m + b0)
        after[b] = m
        position[b] = t + 1
    out = df.copy()
    out["opportunity"] = seqs.unpack(position)
    out["mastery_before"] = np.round(seqs.unpack(before), 6)
    out["mastery"] = np.round(seqs.unpack(after), 6)
    return out


def mastery_history(df: pd.DataFrame, method: str = "rule", params: Any = None, skill: str = "skill",
                    student: str = "student", correct: str = "correct", order: Optional[str] = "created_at",
                    **fit_options: Any) -> pd.DataFrame:
    """Mastery after every answer (for over-time charts): a copy of ``df`` with opportunity and mastery.

    ``method="rule"``: ``rule_history``. ``method="bkt"``: P(knows) after the
    answer including what it taught (``mastery_trace``'s ``p_known_next``),
    with ``params`` from ``fit_bkt`` or, when None, fitted here on ``df``
    (``fit_options`` go to ``fit_bkt``).
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if method == "rule":
        return rule_history(df, skill=skill, student=student, correct=correct, order=order)
    if params is None:
        params = fit_bkt(df, skill=skill, student=student, correct=correct, order=order, **fit_options)
    trace = mastery_trace(df, params, skill=skill, student=student, correct=correct, order=order)
    return trace.rename(columns={"p_known_next": "mastery"}).drop(
        columns=["p_known_before", "p_known", "p_correct_next"])


def current_mastery(df: pd.DataFrame, method: str = "rule", params: Any = None, skill: str = "skill",
                    student: str = "student", correct: str = "correct", order: Optional[str] = "created_at",
                    **fit_options: Any) -> pd.DataFrame:
    """Each student's mastery of each skill after their latest answer.

    Returns student, skill, mastery, n_responses, n_correct and (when
    ``order`` is a column) last_at, sorted by student then skill.
    """
    history = mastery_history(df, method, params, skill=skill, student=student, correct=correct, order=order,
                              **fit_options)
    history["_right"] = binary_correct(history[correct], correct)
    history["_n"] = history.groupby([student, skill], sort=False)["opportunity"].transform("max")
    last = history[history["opportunity"] == history["_n"]]
    right = history.groupby([student, skill])["_right"].sum()
    out = last[[student, skill, "mastery", "_n"] + ([order] if order is not None else [])].rename(
        columns={"_n": "n_responses", **({order: "last_at"} if order is not None else {})})
    out = out.rename(columns={student: "student", skill: "skill"}).set_index(["student", "skill"])
    out["n_correct"] = right.rename_axis(["student", "skill"]).astype(int)
    out = out.reset_index().sort_values(["student", "skill"]).reset_index(drop=True)
    columns = ["student", "skill", "mastery", "n_responses", "n_correct"] + (["last_at"] if order is not None else [])
    return out[columns]


# --------------------------------------------------------------------------
# Weakest skills and recommendations


def _mastery_table(mastery_df: Any, value: str, what: str) -> pd.DataFrame:
    if not isinstance(mastery_df, pd.DataFrame):
        raise ValueError(f"{what} needs a mastery table (student, skill, mastery), got {type(mastery_df).__name__}")
    if value not in mastery_df.columns and value == "mastery" and "score" in mastery_df.columns:
        value = "score"                          # the store's mastery table
    missing = [c for c in ("student", "skill", value) if c not in mastery_df.columns]
    if missing:
        raise ValueError(f"{what}: the mastery table has no {', '.join(missing)} column; columns are "
                         f"{list(mastery_df.columns)} (current_mastery returns the expected table)")
    table = mastery_df.rename(columns={value: "mastery"}).copy()
    table["mastery"] = pd.to_numeric(table["mastery"], errors="coerce")
    if table["mastery"].isna().any():
        raise ValueError(f"{what}: {int(table['mastery'].isna().sum())} mastery values are missing or not numbers")
    if "n_responses" not in table.columns:
        table["n_responses"] = np.nan
    return table


def _check_n(n: Any, name: str = "n") -> None:
    if not (isinstance(n, (int, np.integer)) and not isinstance(n, bool) and n >= 1):
        raise ValueError(f"{name} must be a whole number of at least 1, got {n!r}")


def weakest_skills(mastery_df: pd.DataFrame, n: int = 3, min_responses: int = 3,
                   value: str = "mastery") -> pd.DataFrame:
    """Each student's ``n`` lowest-mastery skills among those with at least ``min_responses`` answers.

    Fewer answers are too little evidence to call a skill weak (one wrong
    answer gives 0.4). Ties: fewer answers first, then skill name. Returns
    student, rank (1 = weakest), skill, mastery, n_responses. Without an
    n_responses column every skill counts.
    """
    _check_n(n)
    if not (isinstance(min_responses, (int, np.integer)) and min_responses >= 0):
        raise ValueError(f"min_responses must be a whole number of at least 0, got {min_responses!r}")
    table = _mastery_table(mastery_df, value, "weakest_skills")
    if table["n_responses"].notna().any():
        table = table[table["n_responses"].fillna(0) >= min_responses]
    table = table.sort_values(["student", "mastery", "n_responses", "skill"], kind="stable")
    table["rank"] = table.groupby("student").cumcount() + 1
    out = table[table["rank"] <= n]
    return out[["student", "rank", "skill", "mastery", "n_responses"]].reset_index(drop=True)


def class_weakest(mastery_df: pd.DataFrame, n: int = 5, below: float = DEVELOPING, min_responses: int = 1,
                  value: str = "mastery") -> pd.DataFrame:
    """The class's weakest skills: per skill n_students, mean_mastery, share_below, n_responses.

    ``share_below`` is the share of students whose mastery is under ``below``
    (default: the "needs work" band, under the starting value 0.5 - more
    recent answers wrong than right). Students with fewer than
    ``min_responses`` answers on a skill are left out of it. Lowest mean
    first; the ``n`` weakest skills.
    """
    _check_n(n)
    table = _mastery_table(mastery_df, value, "class_weakest")
    if table["n_responses"].notna().any():
        table = table[table["n_responses"].fillna(0) >= min_responses]
    table["_below"] = (table["mastery"] < below).astype(float)
    out = table.groupby("skill").agg(n_students=("student", "nunique"), mean_mastery=("mastery", "mean"),
                                     share_below=("_below", "mean"), n_responses=("n_responses", "sum"))
    if table["n_responses"].isna().all():
        out["n_responses"] = np.nan                     # not known (the store's table has no counts)
    out = out.reset_index().sort_values(["mean_mastery", "share_below", "skill"], ascending=[True, False, True])
    return out.head(n).reset_index(drop=True)


def recommendations(mastery_df: pd.DataFrame, student: str, n: int = 3, skills: Optional[Sequence[str]] = None,
                    value: str = "mastery") -> pd.DataFrame:
    """The skills ``student`` should practise next, each with a reason they would understand.

    The order (mastery learning: finish what is started before starting more):

    1. skills they have answered and are not yet secure (mastery < SECURE),
       lowest mastery first - "mastery 0.32 after 6 answers - practise this next";
    2. skills in ``skills`` (e.g. their course's skills) they have never
       answered, in the order given - "not tried yet - a new skill to start";
    3. secure skills, lowest first - a refresher.

    Returns rank, skill, mastery (NaN when not tried), n_responses, reason.
    """
    _check_n(n)
    table = _mastery_table(mastery_df, value, "recommendations")
    mine = table[table["student"] == student]
    if mine.empty and not skills:
        raise ValueError(f"student {student!r} has no answers yet; pass skills=[...] (e.g. their course's skills) "
                         f"to recommend a first skill")
    mine = mine.sort_values(["mastery", "n_responses", "skill"], kind="stable")
    seen = set(mine["skill"])
    new = [s for s in dict.fromkeys(skills or []) if s not in seen]
    open_ = mine[mine["mastery"] < SECURE]
    secure = mine[mine["mastery"] >= SECURE]
    rows = [(r.skill, r.mastery, r.n_responses, _reason(r.mastery, r.n_responses)) for r in open_.itertuples()]
    rows += [(s, np.nan, 0, "not tried yet — a new skill to start") for s in new]
    rows += [(r.skill, r.mastery, r.n_responses, _reason(r.mastery, r.n_responses)) for r in secure.itertuples()]
    out = pd.DataFrame(rows[:n], columns=["skill", "mastery", "n_responses", "reason"])
    out.insert(0, "rank", np.arange(1, len(out) + 1))
    return out


def _reason(mastery: float, answers: Any) -> str:
    after = "" if answers is None or pd.isna(answers) else \
        f" after {int(answers)} answer{'' if int(answers) == 1 else 's'}"
    if mastery < DEVELOPING:
        return f"mastery {mastery:.2f}{after} — practise this next"
    if mastery < SECURE:
        return f"mastery {mastery:.2f}{after} — nearly there; a little more practice makes it secure"
    return f"mastery {mastery:.2f}{after} — secure; a quick refresher keeps it that way"


def outcome_mastery(mastery_df: pd.DataFrame, outcome_of: Mapping[str, Optional[str]],
                    value: str = "mastery") -> pd.DataFrame:
    """Skills rolled up to their outcomes: one row per student and outcome.

    ``outcome_of`` maps each skill to its outcome id (a skill blueprint's first ``outcome_ids``; e.g.
    ``{sid: lb.model.metadata.outcome_ids[0] for sid, lb in library.skills.items() if ...}``); skills it
    does not map are left out. Returns student, outcome_id, mastery (the mean of the outcome's skills,
    each counting once), n_skills, n_responses (their answers, NaN when not known), weakest_skill and
    weakest_mastery, sorted by student then outcome.
    """
    table = _mastery_table(mastery_df, value, "outcome_mastery")
    table["outcome_id"] = table["skill"].map(lambda s: outcome_of.get(s))
    table = table[table["outcome_id"].notna()]
    columns = ["student", "outcome_id", "mastery", "n_skills", "n_responses", "weakest_skill", "weakest_mastery"]
    if table.empty:
        return pd.DataFrame(columns=columns)
    weakest = table.sort_values(["student", "outcome_id", "mastery", "skill"], kind="stable") \
        .groupby(["student", "outcome_id"], sort=False).head(1)
    weakest = weakest.rename(columns={"skill": "weakest_skill", "mastery": "weakest_mastery"})
    known = table["n_responses"].notna().any()
    out = table.groupby(["student", "outcome_id"]).agg(
        mastery=("mastery", "mean"), n_skills=("skill", "nunique"), n_responses=("n_responses", "sum")).reset_index()
    if not known:
        out["n_responses"] = np.nan
    out = out.merge(weakest[["student", "outcome_id", "weakest_skill", "weakest_mastery"]], on=["student", "outcome_id"])
    return out.sort_values(["student", "outcome_id"]).reset_index(drop=True)[columns]
