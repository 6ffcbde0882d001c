"""Moving a school's data from one database to another (a DuckDB file to PostgreSQL, or back).

Both ends are opened as stores, so both have every migration applied and the
same tables. Each table is read whole through Arrow and loaded in one bulk
statement, then checked: the row counts must match, and so must a sample of
rows taken at the same places of both tables sorted the same way.
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional

from core.store.db import Store, StoreError

# The schema's own bookkeeping is written by each store when it opens; data_checks by the checks it runs then.
BOOKKEEPING = ("schema_migrations", "data_checks")
SAMPLE_ROWS = 200


@dataclasses.dataclass
class TableCopy:
    table: str
    source_rows: int
    target_rows: int
    sampled: int
    mismatches: list[str]

    @property
    def ok(self) -> bool:
        return self.source_rows == self.target_rows and not self.mismatches


def tables(store: Store) -> list[str]:
    """The database's tables, by name."""
    rows = store.query("SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() "
                       "AND table_type = 'BASE TABLE' ORDER BY table_name")
    return [r[0] for r in rows]


def columns(store: Store, table: str) -> list[str]:
    rows = store.query("SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                       "AND table_name = ? ORDER BY ordinal_position", [table])
    return [r[0] for r in rows]


def row_count(store: Store, table: str) -> int:
    return int(store.query(f'SELECT count(*) FROM "{table}"')[0][0])


def occupied(store: Store) -> dict[str, int]:
    """Tables of ``store`` that already hold rows (its bookkeeping aside), with their counts."""
    counts = {t: row_count(store, t) for t in tables(store) if t not in BOOKKEEPING}
    return {t: n for t, n in counts.items() if n}


def copy_database(source: Store, target: Store,
                  progress: Optional[Callable[[str, int], None]] = None) -> list[TableCopy]:
    """Copy every table of ``source`` into the empty ``target`` and check each; returns what was found per table."""
    full = occupied(target)
    if full:
        listing = ", ".join(f"{n} rows in {t}" for t, n in sorted(full.items())[:4])
        raise StoreError(f"{target.label} already holds data ({listing}); move the school into an empty database")
    missing = sorted(set(tables(source)) - set(tables(target)))
    if missing:
        raise StoreError(f"{target.label} lacks the tables {', '.join(missing)}; open it with this version first")
    report = []
    target.write(lambda cur: cur.execute("DELETE FROM data_checks"))   # the source's record of its checks wins
    for table in tables(source):
        if table == "schema_migrations":
            continue
        cols = [c for c in columns(source, table) if c in set(columns(target, table))]
        data = source.query_arrow(f"SELECT {', '.join(cols)} FROM {table}")
        if data.num_rows:
            target.load_arrow(table, data)
        if progress is not None:
            progress(table, data.num_rows)
        report.append(_check(source, target, table, cols, data.num_rows))
    return report


def _check(source: Store, target: Store, table: str, cols: list[str], copied: int) -> TableCopy:
    target_rows = row_count(target, table)
    mismatches: list[str] = []
    sampled = 0
    if copied and target_rows == copied:
        select = f"SELECT {', '.join(cols)} FROM {table}"
        ours, theirs = (_sorted(s.query_arrow(select).to_pylist(), cols) for s in (source, target))
        step = max(1, len(ours) // SAMPLE_ROWS)
        for i in range(0, len(ours), step):
            sampled += 1
            if ours[i] != theirs[i]:
                diff = [c for c in cols if ours[i][c] != theirs[i][c]]
                mismatches.append(f"{table} row {i}: {', '.join(diff)} differ")
                if len(mismatches) >= 5:
                    break
    return TableCopy(table, copied, target_rows, sampled, mismatches)


def _sorted(rows: list[dict], cols: list[str]) -> list[dict]:
    """Rows in one order whatever the engine's: by every value as text, nulls first."""
    return sorted(rows, key=lambda r: tuple((r[c] is not None, str(r[c])) for c in cols))
