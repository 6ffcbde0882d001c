"""Lookups for importing questions: what of a file is already stored (the only SQL for it)."""
from __future__ import annotations

from typing import Iterable

from core.store.db import Store

CHUNK = 500


def existing_questions(store: Store, content_keys: Iterable[str], item_ids: Iterable[str]
                       ) -> tuple[dict[str, str], dict[str, str]]:
    """({content key: id} of stored items with these content keys, {id: stem} of stored items with these ids)."""
    cur = store.cursor()
    by_key: dict[str, str] = {}
    stems: dict[str, str] = {}
    for values, sql, out in ((sorted(set(content_keys)), "SELECT content_key, id FROM items WHERE content_key IN ({})",
                              by_key),
                             (sorted(set(item_ids)), "SELECT id, stem FROM items WHERE id IN ({})", stems)):
        for start in range(0, len(values), CHUNK):
            chunk = values[start:start + CHUNK]
            for a, b in cur.execute(sql.format(", ".join("?" for _ in chunk)), chunk).fetchall():
                out.setdefault(a, b)
    return by_key, stems
