"""Reading and writing blueprints and items (the only SQL for them)."""
from __future__ import annotations

import json
from typing import Any, Iterable, Optional

import duckdb
import pyarrow as pa

from core.blueprints.loader import LoadedBlueprint
from core.items.generator import Item
from core.store.db import Store

ITEM_COLUMNS = [
    "id", "blueprint_id", "blueprint_version", "blueprint_hash", "source", "seed", "params", "computed", "stem",
    "item_type", "options", "option_strategies", "options_shuffled", "answer_key", "correct_index", "answer_value",
    "accepted_answers", "misconceptions", "explanation", "hints", "answer_type", "units", "marks", "marking_scheme",
    "evaluation", "difficulty_level", "difficulty_value", "subject", "level", "outcome_ids", "skill_ids",
    "calculator", "content_key", "status", "session_id", "diagram", "media", "origin",
]
JSON_COLUMNS = {"params", "computed", "options", "option_strategies", "answer_value", "accepted_answers",
                "misconceptions", "hints", "marking_scheme", "evaluation", "outcome_ids", "skill_ids", "verification",
                "diagram", "media", "origin"}
# A centre's own questions (local), past papers, Understanding Standards, and questions brought in from other
# systems (import), which count as the centre's own once approved.
BANK_SOURCES = ("local", "past", "us", "import")
# What practice and exams draw once approved: the banks, and questions the LLM pipeline wrote for an outcome.
DRAWN_SOURCES = (*BANK_SOURCES, "pipeline")
SMALL_INSERT = 16
_ARROW_SCHEMA = pa.schema([
    (c, pa.bool_() if c == "options_shuffled" else pa.int64() if c in ("correct_index", "marks")
     else pa.float64() if c == "difficulty_value" else pa.string())
    for c in ITEM_COLUMNS
])


# --------------------------------------------------------------------------
# Blueprints


def save_blueprint(store: Store, loaded: LoadedBlueprint, author: Optional[str] = None) -> bool:
    """Store a blueprint version; True if this content was new (versions are kept by hash)."""
    def run(cur: duckdb.DuckDBPyConnection) -> bool:
        exists = cur.execute("SELECT 1 FROM blueprints WHERE kind = ? AND id = ? AND hash = ?",
                             [loaded.kind, loaded.id, loaded.hash]).fetchall()
        if exists:
            return False
        cur.execute("INSERT INTO blueprints (id, kind, version, yaml, hash, author, source_path) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [loaded.id, loaded.kind, loaded.version, loaded.text, loaded.hash, author, loaded.file])
        return True
    return store.write(run)


def sync_blueprints(store: Store, loaded: Iterable[LoadedBlueprint], author: Optional[str] = "library") -> int:
    """Store every blueprint whose content is new; return how many were new."""
    with store.transaction():  # one commit, not one per blueprint: most of a first start's database time
        return sum(save_blueprint(store, lb, author) for lb in loaded)


def blueprint_versions(store: Store, blueprint_id: str) -> list[dict]:
    rows = store.cursor().execute(
        "SELECT kind, id, version, hash, author, source_path, created_at FROM blueprints WHERE id = ? ORDER BY created_at",
        [blueprint_id]).fetchall()
    return [dict(zip(("kind", "id", "version", "hash", "author", "source_path", "created_at"), r)) for r in rows]


def blueprint_text(store: Store, blueprint_id: str, hash_: Optional[str] = None) -> Optional[str]:
    sql = "SELECT yaml FROM blueprints WHERE id = ?" + (" AND hash = ?" if hash_ else "") + " ORDER BY created_at DESC LIMIT 1"
    rows = store.cursor().execute(sql, [blueprint_id, hash_] if hash_ else [blueprint_id]).fetchall()
    return rows[0][0] if rows else None


def count_blueprints(store: Store) -> dict[str, int]:
    rows = store.cursor().execute("SELECT kind, count(DISTINCT id) FROM blueprints GROUP BY kind").fetchall()
    return {k: int(n) for k, n in rows}


# --------------------------------------------------------------------------
# Items


def item_row(item: Item, status: Optional[str] = None, session_id: Optional[str] = None) -> dict[str, Any]:
    """The items-table row for an item (JSON columns as text)."""
    dumps = json.dumps
    return {
        "id": item.id, "blueprint_id": item.blueprint_id, "blueprint_version": item.blueprint_version,
        "blueprint_hash": item.blueprint_hash, "source": item.source, "seed": item.seed,
        "params": dumps(item.generation_params), "computed": dumps(item.computed_values), "stem": item.stem,
        "item_type": item.item_type, "options": dumps(item.options), "option_strategies": dumps(item.option_strategies),
        "options_shuffled": item.options_shuffled, "answer_key": item.correct_answer,
        "correct_index": item.correct_index, "answer_value": dumps(item.answer_value),
        "accepted_answers": dumps(item.accepted_answers), "misconceptions": dumps(item.misconceptions),
        "explanation": item.explanation, "hints": dumps(item.hints), "answer_type": item.answer_type,
        "units": item.units, "marks": item.marks, "marking_scheme": dumps(item.marking_scheme),
        "evaluation": dumps(item.evaluation), "difficulty_level": item.difficulty_level,
        "difficulty_value": item.difficulty_value, "subject": item.subject, "level": item.level,
        "outcome_ids": dumps(item.outcome_ids), "skill_ids": dumps(item.skill_ids), "calculator": item.calculator,
        "content_key": item.content_key, "status": status or item.status, "session_id": session_id,
        "diagram": None if item.diagram is None else dumps(item.diagram),
        "media": dumps(item.media) if item.media else None,
        "origin": None if item.origin is None else dumps(item.origin),
    }


def insert_items(store: Store, items: Iterable[Item], status: Optional[str] = None,
                 session_id: Optional[str] = None) -> int:
    """Store items in one transaction; items already stored (same id) are left as they are.

    Returns the number of new rows.
    """
    items = list(items)
    if not items:
        return 0
    added = store.write(lambda cur: insert_items_in(cur, items, status, session_id))
    if any(it.source in BANK_SOURCES for it in items):
        bank_changed()
    return added


def insert_items_in(cur: duckdb.DuckDBPyConnection, items: Iterable[Item], status: Optional[str] = None,
                    session_id: Optional[str] = None) -> int:
    """Insert within the caller's transaction (so items commit with the events that use them).

    Rows go in as one Arrow table (``INSERT ... SELECT``), which DuckDB takes
    far faster than row-by-row inserts.
    """
    rows = list({row["id"]: row for row in (item_row(it, status, session_id) for it in items)}.values())
    if not rows:
        return 0
    cols = ", ".join(ITEM_COLUMNS)
    if len(rows) <= SMALL_INSERT:
        # A session stores one or two items per step: plain parameters beat building an Arrow
        # table, and looking the ids up first is cheaper than ON CONFLICT on this table. Two
        # writers racing on one id make the insert fail; the caller's retry then finds it stored.
        holes = ", ".join("?" for _ in rows)
        existing = {r[0] for r in cur.execute(f"SELECT id FROM items WHERE id IN ({holes})",
                                              [row["id"] for row in rows]).fetchall()}
        rows = [row for row in rows if row["id"] not in existing]
        if not rows:
            return 0
        marks = "(" + ", ".join("?" for _ in ITEM_COLUMNS) + ")"
        values = [row[c] for row in rows for c in ITEM_COLUMNS]
        cur.execute(f"INSERT INTO items ({cols}) VALUES {', '.join(marks for _ in rows)}", values)
        return len(rows)
    table = pa.Table.from_pylist(rows, schema=_ARROW_SCHEMA)
    name = f"_items_batch_{id(table)}"
    cur.register(name, table)
    try:
        # JSON columns cast from their text: PostgreSQL takes no text into json unasked.
        values = ", ".join(f"CAST({c} AS JSON)" if c in JSON_COLUMNS else c for c in ITEM_COLUMNS)
        return len(cur.execute(f"INSERT INTO items ({cols}) SELECT {values} FROM {name} "
                               f"ON CONFLICT DO NOTHING RETURNING id").fetchall())
    finally:
        cur.unregister(name)


def _decode(row: dict) -> dict:
    for col in JSON_COLUMNS & row.keys():
        if isinstance(row[col], str):
            row[col] = json.loads(row[col])
    return row


def get_item(store: Store, item_id: str) -> Optional[dict]:
    cur = store.cursor().execute("SELECT * FROM items WHERE id = ?", [item_id])
    rows = cur.fetchall()
    if not rows:
        return None
    return _decode(dict(zip([d[0] for d in cur.description], rows[0])))


def list_items(store: Store, blueprint_id: Optional[str] = None, status: Optional[str] = None,
               source: Optional[str] = None, limit: int = 200, offset: int = 0) -> list[dict]:
    where, params = [], []
    for col, value in (("blueprint_id", blueprint_id), ("status", status), ("source", source)):
        if value is not None:
            where.append(f"{col} = ?")
            params.append(value)
    sql = "SELECT * FROM items" + (" WHERE " + " AND ".join(where) if where else "")
    sql += " ORDER BY created_at, id LIMIT ? OFFSET ?"
    cur = store.cursor().execute(sql, params + [limit, offset])
    names = [d[0] for d in cur.description]
    return [_decode(dict(zip(names, r))) for r in cur.fetchall()]


def count_items(store: Store, status: Optional[str] = None) -> int:
    if status is None:
        return int(store.cursor().execute("SELECT count(*) FROM items").fetchall()[0][0])
    return int(store.cursor().execute("SELECT count(*) FROM items WHERE status = ?", [status]).fetchall()[0][0])


def row_to_item(row: dict) -> Item:
    """An items-table row (as get_item returns it) back as an Item."""
    return Item(
        id=row["id"], blueprint_id=row["blueprint_id"], blueprint_version=row["blueprint_version"],
        blueprint_hash=row["blueprint_hash"] or "", source=row["source"], seed=row["seed"] or "",
        difficulty_level=row["difficulty_level"] or "medium", difficulty_value=float(row["difficulty_value"] or 0.5),
        item_type=row["item_type"], stem=row["stem"], options=list(row["options"] or []),
        option_strategies=list(row["option_strategies"] or []), options_shuffled=bool(row["options_shuffled"]),
        correct_answer=row["answer_key"], correct_index=row["correct_index"], answer_value=row["answer_value"],
        accepted_answers=list(row["accepted_answers"] or []), misconceptions=dict(row["misconceptions"] or {}),
        explanation=row["explanation"] or "", hints=list(row["hints"] or []), answer_type=row["answer_type"] or "string",
        units=row["units"], marks=int(row["marks"] or 1), marking_scheme=row["marking_scheme"] or {"criteria": [], "total_marks": 1},
        evaluation=row["evaluation"] or {"method": "exact_match"}, generation_params=row["params"] or {},
        computed_values=row["computed"] or {}, subject=row["subject"], level=row["level"],
        outcome_ids=list(row["outcome_ids"] or []), skill_ids=list(row["skill_ids"] or []),
        calculator=row["calculator"] or "optional", content_key=row["content_key"] or row["id"],
        status=row["status"], diagram=row.get("diagram") or None,
        media=list(row.get("media") or []), origin=row.get("origin") or None,
    )


def load_item(store: Store, item_id: str) -> Optional[Item]:
    row = get_item(store, item_id)
    return row_to_item(row) if row else None


def load_items(store: Store, item_ids: list[str]) -> dict[str, Item]:
    """Several items in one query (marking a whole paper), by id; ids not stored are left out."""
    ids = list(dict.fromkeys(item_ids))
    if not ids:
        return {}
    marks = ", ".join("?" for _ in ids)
    cur = store.cursor().execute(f"SELECT * FROM items WHERE id IN ({marks})", ids)
    names = [d[0] for d in cur.description]
    rows = [_decode(dict(zip(names, r))) for r in cur.fetchall()]
    return {row["id"]: row_to_item(row) for row in rows}


_bank_generation = 0


def bank_generation() -> int:
    """Bumped whenever this process changes the bank (imports, status changes), so caches can refresh."""
    return _bank_generation


def bank_changed() -> None:
    global _bank_generation
    _bank_generation += 1


def bank_count(store: Store) -> int:
    marks = ", ".join("?" for _ in BANK_SOURCES)
    return int(store.cursor().execute(f"SELECT count(*) FROM items WHERE source IN ({marks})",
                                      list(BANK_SOURCES)).fetchall()[0][0])


def approved_items(store: Store, subject: str, level: str) -> list[Item]:
    """Every approved question for a course, whatever its source (banks and reviewed drafts)."""
    cur = store.cursor().execute(
        "SELECT * FROM items WHERE status = 'approved' AND lower(subject) = lower(?) AND lower(level) = lower(?) "
        "ORDER BY id", [subject, level])
    names = [d[0] for d in cur.description]
    return [row_to_item(_decode(dict(zip(names, r)))) for r in cur.fetchall()]


def bank_items(store: Store, subject: str, level: str) -> list[Item]:
    """Every approved bank question (local, past, us, imported) and pipeline question for a course."""
    marks = ", ".join("?" for _ in DRAWN_SOURCES)
    cur = store.cursor().execute(
        f"SELECT * FROM items WHERE source IN ({marks}) AND status = 'approved' "
        f"AND lower(subject) = lower(?) AND lower(level) = lower(?) ORDER BY id", [*DRAWN_SOURCES, subject, level])
    names = [d[0] for d in cur.description]
    return [row_to_item(_decode(dict(zip(names, r)))) for r in cur.fetchall()]
