"""Storing a bank's new questions as approved items: each question once, however often its file is imported."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

from core.items.banks.fields import SOURCES
from core.items.banks.files import _parse
from core.items.banks.reports import BankImport, RowError
from core.items.generator import Item
from core.store import Store, repo


def _stored_bank_questions(store) -> tuple[dict[str, str], set[str]]:
    """Content key -> id and the ids of every stored bank-style question (bank sources and variants)."""
    keys: dict[str, str] = {}
    ids: set[str] = set()
    for src in (*SOURCES, "variant"):
        offset = 0
        while True:
            page = repo.list_items(store, source=src, limit=1000, offset=offset)
            for row in page:
                ids.add(row["id"])
                if row.get("content_key"):
                    keys.setdefault(row["content_key"], row["id"])
            if len(page) < 1000:
                break
            offset += 1000
    return keys, ids


def import_bank(store, path: Any, source: Optional[str] = None) -> BankImport:
    """Parse a bank and store its good, new questions as approved items.

    Questions whose content is already in the database are reported as
    duplicates of the stored id and not stored again, so importing the same
    file twice stores nothing the second time. ``questions`` is what was stored.
    """
    good, errors, duplicates = _parse(path, None, source)
    stored_keys, stored_ids = _stored_bank_questions(store)
    fresh: list[tuple[int, Item]] = []
    for number, item in good:
        if item.content_key in stored_keys:
            duplicates.append((number, stored_keys[item.content_key]))
        elif item.id in stored_ids:
            errors.append(_id_taken(number, item.id))
        else:
            fresh.append((number, item))
    if fresh and repo.insert_items(store, [item for _, item in fresh], status="approved") < len(fresh):
        # Some id was taken by a non-bank item (a generated one); only then is each id looked up.
        kept = []
        for number, item in fresh:
            row = repo.get_item(store, item.id)
            if row is not None and row.get("content_key") == item.content_key:
                kept.append((number, item))
            else:
                errors.append(_id_taken(number, item.id))
        fresh = kept
    errors.sort(key=lambda e: e.row)
    duplicates.sort()
    return BankImport([item for _, item in fresh], errors, duplicates)


def _id_taken(number: int, item_id: str) -> RowError:
    return RowError(number, "id", f"id '{item_id}' is already used by a different stored question; "
                                  f"give this one another id.")


BANKS_DIR = Path(__file__).resolve().parents[3] / "data" / "banks"


def import_shipped_banks(store: Store, folder: Path = BANKS_DIR) -> dict[str, int]:
    """Import the sample banks once: only into a database that holds no bank questions yet."""
    if repo.bank_count(store):
        return {}
    imported = {}
    for path in sorted(folder.glob("*")):
        if path.suffix.lower() in (".json", ".csv"):
            imported[path.name] = len(import_bank(store, path).questions)
    return imported
