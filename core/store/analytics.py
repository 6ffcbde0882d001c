"""The SQL behind analytics: responses with their items, class activity, mastery, exam results, calibrations.

Every function returns a pandas DataFrame (DuckDB builds it column-wise, so a
million responses load in well under a second). Filters are optional: a class
code restricts to its roster, subject and level to the items of that course.
A question answered more than once in a session (a lesson card's retries)
counts at its first attempt, which is the one that measures what the student
knew.
"""
from __future__ import annotations

import json
from typing import Any, Optional, Sequence

import duckdb
import pandas as pd

from core.store.db import Store
from core.store.dialect import dialect_of

ID_CHUNK = 5000

def _item_units(store: Store) -> str:
    """Each item's units: its family (blueprint|level), skill and first outcome.

    The skill is the item's blueprint, else the skill a bank question names (as the stored mastery keys
    them); a question with neither counts under its outcome (or, without one, on its own).
    """
    outcome = dialect_of(store).json_text("outcome_ids", 0)
    named = dialect_of(store).json_text("skill_ids", 0)
    return f"""SELECT id, blueprint_id, difficulty_level, difficulty_value,
        CASE WHEN blueprint_id IS NULL THEN NULL ELSE blueprint_id || '|' || difficulty_level END AS family,
        coalesce(blueprint_id, {named}, {outcome}, id) AS skill,
        {outcome} AS outcome_id, subject, level, source, item_type FROM items"""


def _filters(class_code: Optional[str], subject: Optional[str], level: Optional[str],
             student: Optional[str] = None, blueprint_id: Optional[str] = None,
             item_type: Optional[str] = None) -> tuple[str, list[Any]]:
    """The WHERE clause over responses ``r`` joined to items ``i``: first attempts that were marked, filtered."""
    where, params = ["r.attempt = 1", "r.correct IS NOT NULL"], []
    if class_code is not None:
        where.append("r.student IN (SELECT student FROM roster WHERE class_code = ?)")
        params.append(class_code)
    if student is not None:
        where.append("r.student = ?")
        params.append(student)
    for col, value in (("subject", subject), ("level", level), ("blueprint_id", blueprint_id),
                       ("item_type", item_type)):
        if value is not None:
            where.append(f"i.{col} = ?")
            params.append(value)
    return " AND ".join(where), params


RESPONSE_COLUMNS = {
    "student": "r.student", "item_id": "r.item_id", "session_id": "r.session_id", "kind": "s.kind",
    "correct": "CAST(r.correct AS INTEGER)", "score": "r.score", "max_score": "r.max_score", "answer": "r.answer",
    "created_at": "r.created_at", "blueprint_id": "i.blueprint_id", "difficulty_level": "i.difficulty_level",
    "difficulty_value": "i.difficulty_value", "family": "i.family", "skill": "i.skill", "outcome_id": "i.outcome_id",
    "subject": "i.subject", "level": "i.level", "source": "i.source", "item_type": "i.item_type"}
ORDER = ("student", "item_id", "correct", "created_at")


def responses(store: Store, class_code: Optional[str] = None, subject: Optional[str] = None,
              level: Optional[str] = None, student: Optional[str] = None,
              blueprint_id: Optional[str] = None, item_type: Optional[str] = None,
              columns: Optional[Sequence[str]] = None) -> pd.DataFrame:
    """One row per first-attempt response: who, which item (its family and skill), right or not, when.

    Columns (all of RESPONSE_COLUMNS, or the ``columns`` asked for): student, item_id, session_id, kind,
    correct (int8), score, max_score, answer, created_at, blueprint_id, difficulty_level, difficulty_value,
    family (blueprint|level), skill, outcome_id, subject, level, source, item_type. Rows come sorted by
    student, item, mark and time (those of them asked for).
    """
    names = list(columns) if columns is not None else list(RESPONSE_COLUMNS)
    unknown = [c for c in names if c not in RESPONSE_COLUMNS]
    if unknown:
        raise ValueError(f"responses have no column {', '.join(unknown)}; they have {', '.join(RESPONSE_COLUMNS)}")
    where, params = _filters(class_code, subject, level, student, blueprint_id=blueprint_id, item_type=item_type)
    select = ", ".join(f"{RESPONSE_COLUMNS[c]} AS {c}" for c in names)
    sessions = " LEFT JOIN sessions s ON s.id = r.session_id" if "kind" in names else ""
    sql = f"""
        WITH i AS ({_item_units(store)})
        SELECT {select}
        FROM responses r JOIN i ON i.id = r.item_id{sessions}
        WHERE {where}"""
    # One order whatever the engine returned: figures summed from these rows come out the same on either backend.
    table = store.query_arrow(sql, params).sort_by([(c, "ascending") for c in ORDER if c in names])
    frame = table.to_pandas()
    if "correct" in frame.columns:
        frame["correct"] = frame["correct"].astype("int8")
    return frame


def answered_blueprints(store: Store, class_code: Optional[str] = None) -> list[str]:
    """The blueprints with marked first-attempt answers (of a class, or anyone's), most answered first."""
    where, params = _filters(class_code, None, None)
    sql = f"""
        SELECT i.blueprint_id FROM responses r JOIN items i ON i.id = r.item_id
        WHERE {where} AND i.blueprint_id IS NOT NULL
        GROUP BY 1 ORDER BY count(*) DESC, 1"""
    return [row[0] for row in store.query(sql, params)]


def unit_statistics(store: Store, class_code: Optional[str] = None, by: str = "family") -> pd.DataFrame:
    """Facility and discrimination per unit (item, family or skill), computed in the database.

    The criterion is each student's ability from the newest calibration (the
    students saw different items, so there is no common test score); without
    a calibration, or when it leaves out a student who answered here (it was
    of another class), their overall accuracy. Columns: unit, n, facility,
    point_biserial (Pearson r of right/wrong with the criterion), upper_lower
    (facility in the top 27% by criterion minus the bottom 27%, ranked among
    the unit's own answerers), criterion.
    """
    if by not in ("item", "family", "skill"):
        raise ValueError(f"by must be item, family or skill, not {by!r}")
    unit = "r.item_id" if by == "item" else f"coalesce(i.{by}, r.item_id)"
    where, params = _filters(class_code, None, None)
    run = latest_calibration(store)
    if run is not None and _uncalibrated_students(store, run["id"], where, params):
        run = None
    if run is not None:
        criterion = "(SELECT student, theta AS c FROM abilities WHERE calibration_id = ?)"
        c_params = [run["id"]]
    else:
        criterion = "(SELECT student, avg(CAST(CAST(correct AS INTEGER) AS DOUBLE PRECISION)) AS c FROM responses WHERE attempt = 1 GROUP BY 1)"
        c_params = []
    sql = f"""
        WITH i AS ({_item_units(store)}),
        a AS (SELECT {unit} AS unit, CAST(CAST(r.correct AS INTEGER) AS DOUBLE PRECISION) AS x, k.c,
                     percent_rank() OVER (PARTITION BY {unit} ORDER BY k.c) AS pr
              FROM responses r JOIN i ON i.id = r.item_id JOIN {criterion} k ON k.student = r.student
              WHERE {where})
        SELECT unit, count(*) AS n, avg(x) AS facility, corr(x, c) AS point_biserial,
               avg(x) FILTER (WHERE pr >= 0.73) - avg(x) FILTER (WHERE pr <= 0.27) AS upper_lower
        FROM a GROUP BY unit ORDER BY facility, unit"""
    frame = store.query_df(sql, c_params + params)
    frame["criterion"] = "calibrated ability" if run is not None else "overall accuracy"
    return frame


def _uncalibrated_students(store: Store, run_id: str, where: str, params: list) -> int:
    """How many students answering under ``where`` have no ability in calibration ``run_id``."""
    sql = (f"SELECT count(DISTINCT r.student) FROM responses r WHERE {where} AND r.student NOT IN "
           "(SELECT student FROM abilities WHERE calibration_id = ?)")
    return int(store.query(sql, params + [run_id])[0][0])


def skill_mastery_summary(store: Store, class_code: str, below: float) -> pd.DataFrame:
    """Per skill, from the stored mastery scores of a class: n_students, mean_mastery, share_below
    (share of students under ``below``), n_responses (the class's practice answers on it)."""
    sql = f"""
        WITH i AS ({_item_units(store)}),
        answers AS (SELECT i.skill, count(*) AS n_responses FROM responses r JOIN i ON i.id = r.item_id
                    JOIN sessions s ON s.id = r.session_id AND s.kind = 'practice'
                    WHERE r.student IN (SELECT student FROM roster WHERE class_code = ?) GROUP BY 1)
        SELECT m.skill, count(*) AS n_students, avg(m.score) AS mean_mastery,
               avg(CASE WHEN m.score < ? THEN 1.0 ELSE 0.0 END) AS share_below,
               coalesce(max(a.n_responses), 0) AS n_responses
        FROM mastery m LEFT JOIN answers a ON a.skill = m.skill
        WHERE m.student IN (SELECT student FROM roster WHERE class_code = ?)
        GROUP BY m.skill ORDER BY mean_mastery, m.skill"""
    return store.query_df(sql, [class_code, below, class_code])


def activity(store: Store, class_code: Optional[str] = None, subject: Optional[str] = None,
             level: Optional[str] = None) -> pd.DataFrame:
    """Per day: responses, students active, accuracy. Columns: day, responses, students, accuracy."""
    where, params = _filters(class_code, subject, level)
    sql = f"""
        SELECT CAST(r.created_at AS DATE) AS day, count(*) AS responses, count(DISTINCT r.student) AS students,
               avg(CAST(CAST(r.correct AS INTEGER) AS DOUBLE PRECISION)) AS accuracy
        FROM responses r JOIN items i ON i.id = r.item_id
        WHERE {where} GROUP BY 1 ORDER BY 1"""
    return store.query_df(sql, params)


def student_summary(store: Store, class_code: Optional[str] = None, subject: Optional[str] = None,
                    level: Optional[str] = None) -> pd.DataFrame:
    """Per student: responses, accuracy, sessions, last active. Columns: student, name, responses,
    accuracy, sessions, last_active (students on the roster with no responses have zero responses)."""
    where, params = _filters(class_code, subject, level)
    roster_sql = ("SELECT student, display_name FROM roster WHERE class_code = ?" if class_code is not None
                  else "SELECT DISTINCT student, student AS display_name FROM responses")
    roster_params = [class_code] if class_code is not None else []
    sql = f"""
        WITH stats AS (
            SELECT r.student, count(*) AS responses, avg(CAST(CAST(r.correct AS INTEGER) AS DOUBLE PRECISION)) AS accuracy,
                   count(DISTINCT r.session_id) AS sessions, max(r.created_at) AS last_active
            FROM responses r JOIN items i ON i.id = r.item_id
            WHERE {where} GROUP BY 1)
        SELECT ro.student, ro.display_name AS name, coalesce(st.responses, 0) AS responses, st.accuracy,
               coalesce(st.sessions, 0) AS sessions, st.last_active
        FROM ({roster_sql}) ro LEFT JOIN stats st ON st.student = ro.student
        ORDER BY ro.display_name"""
    return store.query_df(sql, params + roster_params)


def mastery(store: Store, class_code: Optional[str] = None) -> pd.DataFrame:
    """The stored mastery scores (seed rule). Columns: student, name, skill, score, updated_at."""
    if class_code is None:
        return store.query_df("SELECT m.student, m.student AS name, m.skill, m.score, m.updated_at FROM mastery m "
                              "ORDER BY m.student, m.skill")
    return store.query_df("SELECT m.student, ro.display_name AS name, m.skill, m.score, m.updated_at "
                          "FROM mastery m JOIN roster ro ON ro.student = m.student AND ro.class_code = ? "
                          "ORDER BY ro.display_name, m.skill", [class_code])


def items(store: Store, item_ids: Optional[list[str]] = None, blueprint_id: Optional[str] = None) -> pd.DataFrame:
    """Item metadata for analysis. Columns: item_id, blueprint_id, difficulty_level, difficulty_value, family,
    skill, item_type, stem, options, option_strategies, correct_index, answer_key, params, misconceptions,
    subject, level, source (JSON columns decoded to Python values)."""
    where, params = [], []
    if blueprint_id is not None:
        where.append("i.blueprint_id = ?")
        params.append(blueprint_id)
    sql = f"""
        WITH u AS ({_item_units(store)})
        SELECT i.id AS item_id, i.blueprint_id, i.difficulty_level, i.difficulty_value, u.family, u.skill,
               i.item_type, i.stem, i.options, i.option_strategies, i.correct_index,
               i.answer_key, i.params, i.misconceptions, i.subject, i.level, i.source
        FROM items i JOIN u ON u.id = i.id"""
    if item_ids is None:
        frame = store.query_df(sql + (" WHERE " + " AND ".join(where) if where else ""), params)
    else:
        wanted = list(dict.fromkeys(item_ids))
        if not wanted:
            return _empty_items()
        # In chunks: both engines bind at most some tens of thousands of parameters per statement.
        parts = []
        for start in range(0, len(wanted), ID_CHUNK):
            chunk = wanted[start:start + ID_CHUNK]
            clause = " AND ".join(where + [f"i.id IN ({', '.join('?' for _ in chunk)})"])
            parts.append(store.query_df(f"{sql} WHERE {clause}", params + chunk))
        frame = pd.concat(parts, ignore_index=True) if len(parts) > 1 else parts[0]
    for col in ("options", "option_strategies", "params", "misconceptions"):
        frame[col] = [json.loads(v) if isinstance(v, str) else v for v in frame[col]]
    return frame


def _empty_items() -> pd.DataFrame:
    return pd.DataFrame(columns=["item_id", "blueprint_id", "difficulty_level", "difficulty_value", "family",
                                 "skill", "item_type", "stem", "options", "option_strategies", "correct_index",
                                 "answer_key", "params", "misconceptions", "subject", "level", "source"])


def exam_results(store: Store, class_code: Optional[str] = None, subject: Optional[str] = None,
                 level: Optional[str] = None) -> pd.DataFrame:
    """Marked mock exams. Columns: session_id, student, subject, level, submitted_at, marks_awarded,
    total_marks, percent, grade, sections (list of {section, marks_awarded, marks, percent}),
    questions (dict item_id -> {number, marks_awarded, marks, outcome_id, correct}; a question that could not
    be marked has correct None and ``unmarked``), notes (list of sentences for the teacher)."""
    where, params = ["s.kind = 'exam'", "e.type = 'marked'"], []
    if class_code is not None:
        where.append("s.student IN (SELECT student FROM roster WHERE class_code = ?)")
        params.append(class_code)
    for name, value in (("subject", subject), ("level", level)):
        if value is not None:
            where.append(f"{dialect_of(store).json_text('s.config', name)} = ?")
            params.append(value)
    sql = f"""
        SELECT s.id AS session_id, s.student, {dialect_of(store).json_text('s.config', 'subject')} AS subject,
               {dialect_of(store).json_text('s.config', 'level')} AS level, e.created_at AS submitted_at, e.payload
        FROM sessions s JOIN events e ON e.session_id = s.id
        WHERE {' AND '.join(where)} ORDER BY e.created_at"""
    frame = store.query_df(sql, params)
    payloads = [json.loads(p) for p in frame.pop("payload")]
    for key in ("marks_awarded", "total_marks", "percent", "grade", "sections", "questions"):
        frame[key] = [p.get(key) for p in payloads]
    frame["notes"] = [list(p.get("notes") or []) for p in payloads]
    return frame


# --------------------------------------------------------------------------
# Calibrations


def save_calibration(store: Store, run: dict[str, Any], parameters: pd.DataFrame,
                     abilities: Optional[pd.DataFrame] = None) -> str:
    """Store one calibration run with its unit parameters (and abilities) in one transaction; return its id.

    ``parameters`` columns: unit, kind (item, family or skill), difficulty, discrimination, se_difficulty, se_discrimination, n, p_correct,
    infit, outfit, declared, flags (a string). ``abilities``: student, theta, se, n.
    """
    cols = ["unit", "kind", "difficulty", "discrimination", "se_difficulty", "se_discrimination", "n", "p_correct",
            "infit", "outfit", "declared", "flags"]
    params_frame = parameters.reindex(columns=cols)

    def write(cur: duckdb.DuckDBPyConnection) -> str:
        run_id = cur.execute("SELECT 'cal_' || lpad(CAST(coalesce(max(CAST(substr(id, 5) AS INTEGER)), 0) + 1 AS VARCHAR), 6, '0') "
                             "FROM calibrations").fetchall()[0][0]
        cur.execute("INSERT INTO calibrations (id, model, unit_level, method, n_responses, n_students, n_units, "
                    "summary) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    [run_id, run["model"], run["unit_level"], run["method"], run["n_responses"], run["n_students"],
                     run["n_units"], json.dumps(run.get("summary") or {}, default=str)])
        cur.register("_cal_params", params_frame)
        try:
            cur.execute(f"INSERT INTO unit_parameters (calibration_id, {', '.join(cols)}) "
                        f"SELECT ?, {', '.join(cols)} FROM _cal_params", [run_id])
        finally:
            cur.unregister("_cal_params")
        if abilities is not None and len(abilities):
            cur.register("_cal_abilities", abilities.reindex(columns=["student", "theta", "se", "n"]))
            try:
                cur.execute("INSERT INTO abilities (calibration_id, student, theta, se, n) "
                            "SELECT ?, student, theta, se, n FROM _cal_abilities", [run_id])
            finally:
                cur.unregister("_cal_abilities")
        return run_id
    return store.write(write)


def latest_calibration(store: Store, unit_level: Optional[str] = None, model: Optional[str] = None) -> Optional[dict]:
    """The newest calibration run (optionally of one unit level and model) as a dict, or None."""
    where, params = [], []
    for col, value in (("unit_level", unit_level), ("model", model)):
        if value is not None:
            where.append(f"{col} = ?")
            params.append(value)
    cur = store.cursor().execute(
        "SELECT * FROM calibrations" + (" WHERE " + " AND ".join(where) if where else "")
        + " ORDER BY created_at DESC, id DESC LIMIT 1", params)
    rows = cur.fetchall()
    if not rows:
        return None
    row = dict(zip([d[0] for d in cur.description], rows[0]))
    row["summary"] = json.loads(row["summary"]) if isinstance(row["summary"], str) else row["summary"]
    return row


def calibration_parameters(store: Store, calibration_id: str) -> pd.DataFrame:
    return store.query_df("SELECT unit, kind, difficulty, discrimination, se_difficulty, se_discrimination, n, "
                          "p_correct, infit, outfit, declared, flags FROM unit_parameters WHERE calibration_id = ? "
                          "ORDER BY unit", [calibration_id])


def calibration_abilities(store: Store, calibration_id: str) -> pd.DataFrame:
    return store.query_df("SELECT student, theta, se, n FROM abilities WHERE calibration_id = ? "
                          "ORDER BY student", [calibration_id])


def difficulty_lookup(store: Store) -> dict[str, tuple[float, float]]:
    """Unit -> (difficulty, discrimination) from the newest calibration by item, family or auto level
    (items and "blueprint|level" families), for adaptive practice; {} before any calibration."""
    rows = store.query("SELECT u.unit, u.difficulty, coalesce(u.discrimination, 1.0) FROM unit_parameters u "
                       "WHERE u.calibration_id = (SELECT id FROM calibrations WHERE unit_level IN ('item', 'family', "
                       "'auto') ORDER BY created_at DESC, id DESC LIMIT 1)")
    return {unit: (float(b), float(a)) for unit, b, a in rows}


BULK_TABLES = {"sessions": ("id", "kind", "student", "config", "status", "created_at", "updated_at", "completed_at"),
               "mastery": ("student", "skill", "score", "updated_at")}


def bulk_insert(store: Store, table: str, frame: pd.DataFrame) -> int:
    """Insert a frame of sessions or mastery rows in one statement (imported histories, benchmarks)."""
    if table not in BULK_TABLES:
        raise ValueError(f"bulk inserts go into {', '.join(BULK_TABLES)}, not {table!r}")
    cols = [c for c in BULK_TABLES[table] if c in frame.columns]

    def run(cur: duckdb.DuckDBPyConnection) -> int:
        cur.register("_bulk", frame[cols])
        try:
            values = ", ".join("CAST(config AS JSON)" if c == "config" else c for c in cols)
            return len(cur.execute(f"INSERT INTO {table} ({', '.join(cols)}) SELECT {values} FROM _bulk "
                                   f"ON CONFLICT DO NOTHING RETURNING 1").fetchall())
        finally:
            cur.unregister("_bulk")
    return store.write(run)
