"""Mastery over time (the app's rule and BKT), weakest skills and recommendations, checked by hand."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.analytics.bkt import simulate_bkt
from core.analytics.mastery import (class_weakest, current_mastery, mastery_history, recommendations, rule_history,
                                    weakest_skills)
from core.school.progress import INITIAL_MASTERY, mastery_update


def answers(rows: list[tuple]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["student", "skill", "correct", "created_at"])


def test_rule_by_hand():
    """From 0.5: right 0.5 + 0.1 * 0.5 = 0.55; right 0.55 + 0.1 * 0.45 = 0.595; wrong 0.595 * 0.8 = 0.476.

    ben's single wrong answer on the same skill: 0.5 * 0.8 = 0.4. Rows are out of time order on purpose.
    """
    df = answers([("ann", "s", False, 3), ("ben", "s", False, 1), ("ann", "s", True, 1), ("ann", "s", True, 2)])
    out = rule_history(df)
    assert out["opportunity"].tolist() == [3, 1, 1, 2]
    assert out["mastery"].tolist() == pytest.approx([0.476, 0.4, 0.55, 0.595])
    assert out["mastery_before"].tolist() == pytest.approx([0.595, 0.5, 0.5, 0.55])
    assert out.index.equals(df.index) and out["student"].tolist() == df["student"].tolist()


def test_rule_replay_matches_the_app_rule_answer_by_answer():
    """Against mastery_update applied one answer at a time (the app rounds each step; the replay within 5e-6)."""
    df, _ = simulate_bkt(3, 60, 40, seed=2)
    df = df.sample(frac=1.0, random_state=3)
    out = rule_history(df)
    worst = 0.0
    for _, seq in df.sort_values("created_at").groupby(["skill", "student"]):
        m, replay = INITIAL_MASTERY, []
        for c in seq["correct"]:
            m = mastery_update(m, bool(c))
            replay.append(m)
        worst = max(worst, float(np.abs(out.loc[seq.index, "mastery"].to_numpy() - replay).max()))
    assert worst <= 5e-6


def test_current_mastery_by_hand():
    df = answers([("ann", "s", True, 1), ("ann", "s", True, 2), ("ann", "s", False, 3), ("ann", "t", False, 4),
                  ("ben", "s", False, 1)])
    out = current_mastery(df)
    assert out[["student", "skill"]].values.tolist() == [["ann", "s"], ["ann", "t"], ["ben", "s"]]
    assert out["mastery"].tolist() == pytest.approx([0.476, 0.4, 0.4])
    assert out["n_responses"].tolist() == [3, 1, 1] and out["n_correct"].tolist() == [2, 0, 0]
    assert out["last_at"].tolist() == [3, 4, 1]


def test_bkt_method_uses_knowledge_tracing():
    """prior 0.3, learn 0.2, guess 0.2, slip 0.1, one right answer:
    P(knows) = 0.27 / 0.41 = 0.658537, plus learning: 0.658537 + 0.341463 * 0.2 = 0.726829."""
    df = answers([("ann", "s", True, 1)])
    params = {"s": {"prior": 0.3, "learn": 0.2, "guess": 0.2, "slip": 0.1}}
    out = mastery_history(df, method="bkt", params=params)
    assert out["mastery"].iloc[0] == pytest.approx(0.726829, abs=1e-6)
    current = current_mastery(df, method="bkt", params=params)
    assert current["mastery"].iloc[0] == pytest.approx(0.726829, abs=1e-6)


def test_bkt_method_fits_when_no_parameters_are_given():
    df, _ = simulate_bkt(2, 200, 10, seed=4)
    out = current_mastery(df, method="bkt")
    assert len(out) == 400 and out["mastery"].between(0, 1).all()


# --------------------------------------------------------------------------
# Weakest skills


MASTERY = pd.DataFrame([
    ("ann", "fractions", 0.32, 6), ("ann", "gradient", 0.70, 4), ("ann", "volume", 0.85, 12),
    ("ann", "surds", 0.10, 1),
    ("ben", "fractions", 0.60, 5), ("ben", "gradient", 0.40, 3), ("ben", "volume", 0.45, 8),
], columns=["student", "skill", "mastery", "n_responses"])


def test_weakest_skills_per_student():
    """min_responses 3 leaves out ann's surds (1 answer). ann: fractions 0.32, gradient 0.70; ben: gradient
    0.40, volume 0.45."""
    out = weakest_skills(MASTERY, n=2, min_responses=3)
    assert out[["student", "rank", "skill"]].values.tolist() == [
        ["ann", 1, "fractions"], ["ann", 2, "gradient"], ["ben", 1, "gradient"], ["ben", 2, "volume"]]
    assert weakest_skills(MASTERY, n=1, min_responses=1)["skill"].tolist() == ["surds", "gradient"]


def test_class_weakest():
    """gradient: mean (0.70 + 0.40) / 2 = 0.55, one of two under 0.5; fractions (0.32 + 0.60) / 2 = 0.46, one
    of two; volume 0.65, one of two; surds 0.10 (one student). Lowest mean first."""
    out = class_weakest(MASTERY, n=3)
    assert out["skill"].tolist() == ["surds", "fractions", "gradient"]
    assert out["mean_mastery"].tolist() == pytest.approx([0.10, 0.46, 0.55])
    assert out["share_below"].tolist() == pytest.approx([1.0, 0.5, 0.5])
    assert out["n_students"].tolist() == [1, 2, 2] and out["n_responses"].tolist() == [1, 11, 7]
    assert class_weakest(MASTERY, n=5, min_responses=2)["skill"].tolist()[0] == "fractions"


# --------------------------------------------------------------------------
# Recommendations


def test_recommendations_order_and_reasons():
    """ann: not yet secure first (surds 0.10, fractions 0.32, gradient 0.70), then never tried (angles),
    then secure (volume 0.85)."""
    out = recommendations(MASTERY, "ann", n=5, skills=["volume", "angles", "fractions"])
    assert out["skill"].tolist() == ["surds", "fractions", "gradient", "angles", "volume"]
    assert out["rank"].tolist() == [1, 2, 3, 4, 5]
    assert out["reason"].tolist() == [
        "mastery 0.10 after 1 answer — practise this next",
        "mastery 0.32 after 6 answers — practise this next",
        "mastery 0.70 after 4 answers — nearly there; a little more practice makes it secure",
        "not tried yet — a new skill to start",
        "mastery 0.85 after 12 answers — secure; a quick refresher keeps it that way",
    ]
    assert recommendations(MASTERY, "ann")["skill"].tolist() == ["surds", "fractions", "gradient"]


def test_recommendations_for_a_new_student_and_the_stored_table():
    out = recommendations(MASTERY, "cat", n=2, skills=["angles", "volume"])
    assert out["skill"].tolist() == ["angles", "volume"] and out["mastery"].isna().all()
    stored = MASTERY.drop(columns="n_responses").rename(columns={"mastery": "score"})   # the store's mastery table
    out = recommendations(stored, "ben", n=1)
    assert out["skill"].tolist() == ["gradient"] and out["reason"].iloc[0] == "mastery 0.40 — practise this next"


# --------------------------------------------------------------------------
# Errors a user can cause


def test_clear_errors():
    with pytest.raises(ValueError, match="method must be one of rule, bkt"):
        mastery_history(answers([("ann", "s", True, 1)]), method="elo")
    with pytest.raises(ValueError, match="no answers yet; pass skills="):
        recommendations(MASTERY, "cat")
    with pytest.raises(ValueError, match="n must be a whole number"):
        weakest_skills(MASTERY, n=0)
    with pytest.raises(ValueError, match="no mastery column"):
        class_weakest(MASTERY.drop(columns="mastery"))
    with pytest.raises(ValueError, match="no answers"):
        rule_history(answers([]))
    with pytest.raises(ValueError, match="True/False or 1/0"):
        rule_history(answers([("ann", "s", "right", 1)]))


def test_an_abilitys_words_name_every_band_its_interval_crosses():
    """Working at: the band of the estimate first, then the others the 95% interval reaches, never skipping one
    between (an interval from Needs work to Secure passes through Developing)."""
    from core.school.progress import ability_words
    order = ["Needs work", "Developing", "Secure"]
    for theta in [x / 4 for x in range(-16, 17)]:
        for se in (0.05, 0.3, 0.6, 1.0, 1.5):
            words = ability_words({"theta": theta, "se": se, "n": 12, "correct": 6})
            likely = words["likely_bands"]
            assert likely == order[order.index(likely[0]):order.index(likely[-1]) + 1], (theta, se, likely)
            assert words["band"] in likely
            if len(likely) == 3:
                assert "too early to tell" in words["working_at"]
            else:
                assert set(words["working_at"].split(" / ")) == set(likely) and \
                    words["working_at"].startswith(words["band"]), (theta, se, words["working_at"])
