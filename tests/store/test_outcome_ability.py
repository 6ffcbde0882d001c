"""Each student's ability per course outcome: the repository, and the migration that moves mastery rows an
earlier version keyed by an outcome into it (on a DuckDB file and on PostgreSQL)."""
from __future__ import annotations

import math
from pathlib import Path

import pytest

from core.store import Store, outcome_ability, school, sessions
from tests.conftest import BACKENDS


@pytest.fixture
def store(db_path):
    s = Store(db_path)
    yield s
    s.close()


def test_an_estimate_is_stored_read_back_and_replaced(store):
    assert outcome_ability.get_ability(store, "amy", "MNU-5-01") is None
    assert outcome_ability.get_abilities(store, "amy") == {}
    store.write(lambda cur: outcome_ability.set_ability(cur, "amy", "MNU-5-01",
                                                        {"theta": 0.4, "se": 0.8, "n": 2, "correct": 1}))
    store.write(lambda cur: outcome_ability.set_ability(cur, "amy", "MNU-5-02",
                                                        {"theta": -0.3, "se": 0.9, "n": 1, "correct": 0}))
    found = outcome_ability.get_ability(store, "amy", "MNU-5-01")
    assert (found["theta"], found["se"], found["n"], found["correct"]) == (0.4, 0.8, 2, 1)
    assert found["updated_at"] is not None
    store.write(lambda cur: outcome_ability.set_ability(cur, "amy", "MNU-5-01",
                                                        {"theta": 0.9, "se": 0.7, "n": 3, "correct": 2}))
    every = outcome_ability.get_abilities(store, "amy")
    assert set(every) == {"MNU-5-01", "MNU-5-02"}
    assert (every["MNU-5-01"]["theta"], every["MNU-5-01"]["n"]) == (0.9, 3)
    assert outcome_ability.get_abilities(store, "ben") == {}


def test_a_class_reads_its_students_estimates_and_a_reset_removes_them(store):
    school.create_class(store, "ABL-1", "Ability class", "Mathematics", "Nat 5")
    school.add_students(store, "ABL-1", [("ABL-1:amy", "Amy"), ("ABL-1:ben", "Ben")])
    for student, theta in (("ABL-1:amy", 1.2), ("ABL-1:ben", -0.5), ("elsewhere", 0.0)):
        store.write(lambda cur, s=student, t=theta: outcome_ability.set_ability(
            cur, s, "MNU-5-03", {"theta": t, "se": 0.5, "n": 12, "correct": 7}))
    rows = outcome_ability.class_abilities(store, "ABL-1")
    assert [(r["name"], r["outcome_id"], r["theta"]) for r in rows] == [("Amy", "MNU-5-03", 1.2),
                                                                         ("Ben", "MNU-5-03", -0.5)]
    school.delete_student_history(store, ["ABL-1:amy"])
    assert outcome_ability.get_abilities(store, "ABL-1:amy") == {}
    assert outcome_ability.get_abilities(store, "ABL-1:ben")


# --------------------------------------------------------------------------
# The migration


@pytest.fixture(params=BACKENDS)
def empty_target(request, tmp_path: Path):
    """A database with nothing in it yet: a new DuckDB file, or a new, empty PostgreSQL database."""
    if request.param == "duckdb":
        yield tmp_path / "legacy.duckdb"
        return
    cluster = request.getfixturevalue("pg_cluster")
    url = cluster.create_database(prefix="legacy")
    yield url
    cluster.drop_database(url)


def _legacy_data(store: Store) -> None:
    """What an earlier version left: mastery keyed by skills and, for questions without a skill, by outcomes."""
    sid = sessions.create_session(store, "practice", "amy", {"subject": "Mathematics", "level": "Nat 5"})
    old = sessions.create_session(store, "exam", "amy", {"subject": "Mathematics", "level": "Nat 5"})

    def run(cur) -> None:
        cur.execute("INSERT INTO blueprints (id, kind, version, yaml, hash) VALUES "
                    "('SQA.MATH.N5.SURDS', 'skill', '1.0', 'skill_id: SQA.MATH.N5.SURDS', 'h1')")
        for item_id, blueprint, outcome, value in (("bank_1", None, "MNU-5-01", 0.5),
                                                   ("bank_2", None, "MNU-5-01", 0.5),
                                                   ("gen_1", "SQA.MATH.N5.SURDS", "MNU-5-01", 0.5)):
            cur.execute("INSERT INTO items (id, blueprint_id, source, stem, item_type, answer_key, difficulty_value, "
                        "outcome_ids, skill_ids) VALUES (?, ?, 'local', 'A question', 'numeric', '1', ?, "
                        "CAST(? AS JSON), CAST(? AS JSON))",
                        [item_id, blueprint, value, f'["{outcome}"]', f'["{blueprint}"]' if blueprint else "[]"])
        # Practice answers on the outcome's questions (first attempts), a lesson-style retry and an exam answer
        # that do not count.
        for item_id, correct, attempt, session in (("bank_1", True, 1, sid), ("bank_2", False, 1, sid),
                                                   ("gen_1", True, 1, sid), ("bank_2", True, 2, sid),
                                                   ("bank_1", False, 1, old)):
            cur.execute("INSERT INTO responses (session_id, item_id, student, answer, correct, score, max_score, "
                        "attempt) VALUES (?, ?, 'amy', '1', ?, ?, 1, ?)",
                        [session, item_id, correct, 1.0 if correct else 0.0, attempt])
        cur.execute("INSERT INTO seen (student, content_key, stem_key, item_id, session_id, outcome_id) VALUES "
                    "('ben', 'c1', 's1', 'bank_9', NULL, 'MNU-5-02')")
        for student, key, score in (("amy", "MNU-5-01", 0.62), ("amy", "SQA.MATH.N5.SURDS", 0.55),
                                    ("ben", "MNU-5-02", 0.4), ("ben", "SOMETHING.ELSE", 0.7)):
            cur.execute("INSERT INTO mastery (student, skill, score) VALUES (?, ?, ?)", [student, key, score])
    store.write(run)


def test_mastery_rows_keyed_by_an_outcome_move_to_the_outcomes_ability(empty_target, monkeypatch):
    from core.store import migrations
    with monkeypatch.context() as mp:
        mp.setattr(migrations, "MIGRATIONS", [m for m in migrations.MIGRATIONS if m[0] < 14])
        old = Store(empty_target)
        assert migrations.current_version(old.cursor()) == 13
        _legacy_data(old)
        old.close()
    store = Store(empty_target)
    try:
        assert migrations.current_version(store.cursor()) >= 14
        # Skill rows stay; rows keyed by an outcome leave the skill table; a key that is neither stays put.
        assert sessions.get_mastery(store, "amy") == {"SQA.MATH.N5.SURDS": 0.55}
        assert sessions.get_mastery(store, "ben") == {"SOMETHING.ELSE": 0.7}
        amy = outcome_ability.get_abilities(store, "amy")
        assert set(amy) == {"MNU-5-01"}
        # Three practice answers on the outcome's questions (first attempts), two of them right, all of
        # average declared difficulty: the empirical logit, and the standard error three answers allow.
        a = amy["MNU-5-01"]
        assert (a["n"], a["correct"]) == (3, 2)
        assert a["theta"] == pytest.approx(math.log(2.5 / 1.5), abs=1e-9)
        p = 2.5 / 4
        assert a["se"] == pytest.approx(1 / math.sqrt(1 + 3 * p * (1 - p)), abs=1e-9)
        # No answers found: the old score on the logit scale, with the prior's uncertainty.
        ben = outcome_ability.get_abilities(store, "ben")["MNU-5-02"]
        assert (ben["n"], ben["correct"], ben["se"]) == (0, 0, 1.0)
        assert ben["theta"] == pytest.approx(math.log(0.4 / 0.6), abs=1e-9)
    finally:
        store.close()
