"""Versioned schema migrations, applied in order, each exactly once.

A migration is never edited after it ships; changes come as a new version.
"""
from __future__ import annotations

from typing import Any, Callable, Union

from core.store.dialect import DuckDBDialect, dialect_of


def _outcome_ability(dialect: DuckDBDialect) -> str:
    """The outcome-ability table, and mastery rows that earlier versions keyed by an outcome moved into it.

    Mastery is kept per skill; practice and lessons used to key it by the outcome
    for questions without a skill blueprint. Such a row (its key is an outcome a
    question was served under or belongs to, and no skill blueprint's id) becomes
    the student's ability on that outcome, estimated from their practice and
    lesson answers on the outcome's questions (first attempts): the empirical
    logit of their share right plus the questions' mean declared difficulty, with
    the standard error those answers allow (or, with no answers found, from the
    old score with the prior's uncertainty). Its counts are those answers.
    """
    outcome = dialect.json_text("i.outcome_ids", 0)
    declared = "least(0.98, greatest(0.02, coalesce(i.difficulty_value, 0.5)))"
    return dialect.ddl(f"""
CREATE TABLE outcome_ability (
    student VARCHAR NOT NULL,
    outcome_id VARCHAR NOT NULL,
    theta DOUBLE NOT NULL,
    se DOUBLE NOT NULL,
    n_answers INTEGER NOT NULL DEFAULT 0,
    n_correct INTEGER NOT NULL DEFAULT 0,
    updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (student, outcome_id)
);
INSERT INTO outcome_ability (student, outcome_id, theta, se, n_answers, n_correct, updated_at)
SELECT moved.student, moved.outcome_id,
       CASE WHEN coalesce(ev.n, 0) > 0
            THEN least(4.0, greatest(-4.0, ln((ev.n_right + 0.5) / (ev.n - ev.n_right + 0.5)) + ev.b))
            ELSE least(4.0, greatest(-4.0, ln(moved.score / (1 - moved.score)))) END,
       CASE WHEN coalesce(ev.n, 0) > 0
            THEN 1.0 / sqrt(1.0 + ev.n * ((ev.n_right + 0.5) / (ev.n + 1.0))
                                        * (1.0 - (ev.n_right + 0.5) / (ev.n + 1.0)))
            ELSE 1.0 END,
       coalesce(ev.n, 0), coalesce(ev.n_right, 0), moved.updated_at
FROM (SELECT m.student, m.skill AS outcome_id, least(0.98, greatest(0.02, m.score)) AS score, m.updated_at
      FROM mastery m
      WHERE m.skill NOT IN (SELECT id FROM blueprints WHERE kind = 'skill')
        AND (m.skill IN (SELECT outcome_id FROM seen WHERE outcome_id IS NOT NULL)
             OR m.skill IN (SELECT {outcome} FROM items i WHERE i.outcome_ids IS NOT NULL))) moved
LEFT JOIN (SELECT r.student, {outcome} AS outcome_id, count(*) AS n,
                  sum(CASE WHEN r.correct THEN 1 ELSE 0 END) AS n_right,
                  avg(1.6 * ln({declared} / (1 - {declared}))) AS b
           FROM responses r JOIN items i ON i.id = r.item_id JOIN sessions s ON s.id = r.session_id
           WHERE s.kind IN ('practice', 'lesson') AND r.attempt = 1 AND r.correct IS NOT NULL
           GROUP BY r.student, {outcome}) ev
  ON ev.student = moved.student AND ev.outcome_id = moved.outcome_id;
DELETE FROM mastery WHERE EXISTS (SELECT 1 FROM outcome_ability a
                                  WHERE a.student = mastery.student AND a.outcome_id = mastery.skill);
""")


# A migration's SQL is text written for DuckDB (the dialect spells its types for PostgreSQL), or a function of
# the dialect for SQL that needs the few fragments the engines spell differently.
MIGRATIONS: list[tuple[int, str, Union[str, Callable[[DuckDBDialect], str]]]] = [
    (1, "initial schema", """
CREATE TABLE blueprints (
    id VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    version VARCHAR NOT NULL,
    yaml VARCHAR NOT NULL,
    hash VARCHAR NOT NULL,
    author VARCHAR,
    source_path VARCHAR,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (kind, id, hash)
);
CREATE TABLE items (
    id VARCHAR PRIMARY KEY,
    blueprint_id VARCHAR,
    blueprint_version VARCHAR,
    blueprint_hash VARCHAR,
    source VARCHAR NOT NULL,
    seed VARCHAR,
    params JSON,
    computed JSON,
    stem VARCHAR NOT NULL,
    item_type VARCHAR NOT NULL,
    options JSON,
    option_strategies JSON,
    options_shuffled BOOLEAN,
    answer_key VARCHAR NOT NULL,
    correct_index INTEGER,
    answer_value JSON,
    accepted_answers JSON,
    misconceptions JSON,
    explanation VARCHAR,
    hints JSON,
    answer_type VARCHAR,
    units VARCHAR,
    marks INTEGER NOT NULL DEFAULT 1,
    marking_scheme JSON,
    evaluation JSON,
    difficulty_level VARCHAR,
    difficulty_value DOUBLE,
    subject VARCHAR,
    level VARCHAR,
    outcome_ids JSON,
    skill_ids JSON,
    calculator VARCHAR,
    content_key VARCHAR,
    status VARCHAR NOT NULL DEFAULT 'draft',
    review_notes VARCHAR,
    reviewer VARCHAR,
    verification JSON,
    session_id VARCHAR,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE INDEX items_by_blueprint ON items (blueprint_id, difficulty_level);
CREATE INDEX items_by_content ON items (content_key);
CREATE TABLE sessions (
    id VARCHAR PRIMARY KEY,
    kind VARCHAR NOT NULL,
    student VARCHAR,
    config JSON,
    status VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    completed_at TIMESTAMP
);
CREATE TABLE events (
    session_id VARCHAR NOT NULL,
    seq INTEGER NOT NULL,
    type VARCHAR NOT NULL,
    payload JSON,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (session_id, seq)
);
CREATE TABLE responses (
    session_id VARCHAR NOT NULL,
    item_id VARCHAR NOT NULL,
    student VARCHAR NOT NULL,
    answer VARCHAR,
    correct BOOLEAN,
    score DOUBLE,
    max_score DOUBLE,
    time_taken_ms INTEGER,
    attempt INTEGER NOT NULL DEFAULT 1,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (session_id, item_id, attempt)
);
CREATE TABLE mastery (
    student VARCHAR NOT NULL,
    skill VARCHAR NOT NULL,
    score DOUBLE NOT NULL,
    updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (student, skill)
);
CREATE TABLE llm_runs (
    id VARCHAR PRIMARY KEY,
    stage VARCHAR,
    role VARCHAR,
    model VARCHAR,
    prompt_hash VARCHAR,
    prompt_tokens INTEGER,
    completion_tokens INTEGER,
    latency_ms DOUBLE,
    verdict VARCHAR,
    error VARCHAR,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
"""),
    (2, "what each student has seen", """
CREATE TABLE seen (
    student VARCHAR NOT NULL,
    content_key VARCHAR NOT NULL,
    stem_key VARCHAR NOT NULL,
    item_id VARCHAR NOT NULL,
    session_id VARCHAR,
    outcome_id VARCHAR,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (student, content_key)
);
CREATE INDEX seen_by_stem ON seen (student, stem_key);
"""),
    (3, "classes, roster, assignments, item review history, sign-in attempts", """
CREATE TABLE classes (
    code VARCHAR PRIMARY KEY,
    name VARCHAR NOT NULL,
    subject VARCHAR,
    level VARCHAR,
    allow_unknown_names BOOLEAN NOT NULL DEFAULT false,
    approved_items_only BOOLEAN NOT NULL DEFAULT false,
    demo BOOLEAN NOT NULL DEFAULT false,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE TABLE roster (
    class_code VARCHAR NOT NULL,
    student VARCHAR NOT NULL,
    display_name VARCHAR NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (class_code, student)
);
CREATE TABLE assignments (
    id VARCHAR PRIMARY KEY,
    class_code VARCHAR NOT NULL,
    kind VARCHAR NOT NULL,
    title VARCHAR NOT NULL,
    config JSON NOT NULL,
    opens_at TIMESTAMP NOT NULL,
    closes_at TIMESTAMP NOT NULL,
    time_limit_minutes DOUBLE,
    created_by VARCHAR,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE TABLE item_history (
    item_id VARCHAR NOT NULL,
    seq INTEGER NOT NULL,
    action VARCHAR NOT NULL,
    actor VARCHAR,
    note VARCHAR,
    changes JSON,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (item_id, seq)
);
CREATE TABLE sign_in_attempts (
    who VARCHAR NOT NULL,
    ok BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
"""),
    (4, "settings made on the settings pages", """
CREATE TABLE app_settings (
    key VARCHAR PRIMARY KEY,
    value JSON NOT NULL,
    updated_by VARCHAR,
    updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
"""),
    (5, "IRT calibrations: runs, unit parameters, abilities", """
CREATE TABLE calibrations (
    id VARCHAR PRIMARY KEY,
    model VARCHAR NOT NULL,
    unit_level VARCHAR NOT NULL,
    method VARCHAR NOT NULL,
    n_responses INTEGER NOT NULL,
    n_students INTEGER NOT NULL,
    n_units INTEGER NOT NULL,
    summary JSON,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
CREATE TABLE unit_parameters (
    calibration_id VARCHAR NOT NULL,
    unit VARCHAR NOT NULL,
    kind VARCHAR,
    difficulty DOUBLE NOT NULL,
    discrimination DOUBLE,
    se_difficulty DOUBLE,
    se_discrimination DOUBLE,
    n INTEGER,
    p_correct DOUBLE,
    infit DOUBLE,
    outfit DOUBLE,
    declared DOUBLE,
    flags VARCHAR,
    PRIMARY KEY (calibration_id, unit)
);
CREATE TABLE abilities (
    calibration_id VARCHAR NOT NULL,
    student VARCHAR NOT NULL,
    theta DOUBLE NOT NULL,
    se DOUBLE,
    n INTEGER,
    PRIMARY KEY (calibration_id, student)
);
"""),
    (6, "checks of the stored data run once (e.g. approved items whose key cannot be marked)", """
CREATE TABLE data_checks (
    name VARCHAR PRIMARY KEY,
    result JSON,
    done_at TIMESTAMP NOT NULL DEFAULT current_timestamp
);
"""),
    (7, "answers given step by step: what was written for each step", """
ALTER TABLE responses ADD COLUMN step_answers JSON;
"""),
    (8, "classes that write decimals with a comma (3,5)", """
ALTER TABLE classes ADD COLUMN decimal_comma BOOLEAN NOT NULL DEFAULT false;
"""),
    (9, "student PINs (hashed), classes that ask for them, and the client each sign-in attempt came from", """
ALTER TABLE classes ADD COLUMN require_pin BOOLEAN NOT NULL DEFAULT false;
CREATE TABLE student_pins (
    class_code VARCHAR NOT NULL,
    student VARCHAR NOT NULL,
    pin_hash VARCHAR NOT NULL,
    issued_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    PRIMARY KEY (class_code, student)
);
ALTER TABLE sign_in_attempts ADD COLUMN scope VARCHAR;
ALTER TABLE sign_in_attempts ADD COLUMN session VARCHAR;
ALTER TABLE sign_in_attempts ADD COLUMN address VARCHAR;
"""),
    (10, "sign-in tokens that keep a browser signed in across reloads, revoked on sign-out", """
CREATE TABLE sign_in_tokens (
    token_hash VARCHAR PRIMARY KEY,
    who JSON NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
    expires_at TIMESTAMP NOT NULL,
    revoked_at TIMESTAMP
);
"""),
    (11, "running assigned exams: extra time per student, attempts, when results are released, closing early, "
         "soft deletion", """
ALTER TABLE assignments ADD COLUMN extra_time JSON DEFAULT '{}';
ALTER TABLE assignments ADD COLUMN attempts_allowed INTEGER DEFAULT 1;
ALTER TABLE assignments ADD COLUMN release_policy VARCHAR DEFAULT 'on_close';
ALTER TABLE assignments ADD COLUMN released_at TIMESTAMP;
ALTER TABLE assignments ADD COLUMN released_by VARCHAR;
ALTER TABLE assignments ADD COLUMN closed_early_at TIMESTAMP;
ALTER TABLE assignments ADD COLUMN deleted_at TIMESTAMP;
ALTER TABLE assignments ADD COLUMN deleted_by VARCHAR;
ALTER TABLE assignments ADD COLUMN updated_at TIMESTAMP;
"""),
    (12, "an item's diagram (a labelled triangle, drawn from its parameters) kept with the item", """
ALTER TABLE items ADD COLUMN diagram JSON;
"""),
    (13, "questions brought in from other systems: their images and sounds, and the file each came from", """
ALTER TABLE items ADD COLUMN media JSON;
ALTER TABLE items ADD COLUMN origin JSON;
"""),
    (14, "each student's ability per course outcome; mastery rows keyed by an outcome moved there", _outcome_ability),
]


def migrate(cur: Any) -> list[int]:
    """Apply the migrations this database lacks; return the versions applied.

    One history for both engines: the DDL is written once and the cursor's
    dialect spells its types (DuckDB's DOUBLE is PostgreSQL's DOUBLE PRECISION).
    """
    dialect = dialect_of(cur)
    cur.execute("""CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name VARCHAR NOT NULL,
        applied_at TIMESTAMP NOT NULL DEFAULT current_timestamp)""")
    done = {row[0] for row in cur.execute("SELECT version FROM schema_migrations").fetchall()}
    applied = []
    for version, name, sql in MIGRATIONS:
        if version in done:
            continue
        cur.execute("BEGIN TRANSACTION")
        try:
            cur.execute(sql(dialect) if callable(sql) else dialect.ddl(sql))
            cur.execute("INSERT INTO schema_migrations (version, name) VALUES (?, ?)", [version, name])
            cur.execute("COMMIT")
        except BaseException:
            cur.execute("ROLLBACK")
            raise
        applied.append(version)
    return applied


def current_version(cur: Any) -> int:
    rows = cur.execute("SELECT max(version) FROM schema_migrations").fetchall()
    return int(rows[0][0] or 0)
