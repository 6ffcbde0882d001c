"""The review queue: teachers approve, reject (with a reason) or edit then approve drafts."""
from __future__ import annotations

from typing import Optional

from core.store import Store, repo
from core.store import reviews


class ReviewError(ValueError):
    """A review action that cannot be done; the message says why."""


def approve(store: Store, item_ids: list[str], reviewer: str = "teacher", note: Optional[str] = None) -> int:
    return _set(store, item_ids, "approved", "approved", reviewer, note)


def reject(store: Store, item_ids: list[str], reason: str, reviewer: str = "teacher") -> int:
    if not (reason or "").strip():
        raise ReviewError("Say why the item is rejected; the reason is kept with it.")
    return _set(store, item_ids, "rejected", "rejected", reviewer, reason.strip())


def _set(store: Store, item_ids: list[str], status: str, action: str, reviewer: str, note: Optional[str]) -> int:
    if not item_ids:
        raise ReviewError("Select at least one item.")

    def run(cur) -> int:
        done = 0
        for item_id in item_ids:
            if not reviews.item_exists(cur, item_id):
                raise ReviewError(f"Item {item_id} no longer exists; reload the queue.")
            reviews.set_item_status(cur, item_id, status, reviewer, note)
            reviews.record_item_action(cur, item_id, action, reviewer, note, None)
            done += 1
        return done
    done = store.write(run)
    repo.bank_changed()
    return done


def edit_and_approve(store: Store, item_id: str, stem: str, answer_key: str, explanation: str,
                     options: Optional[list[str]] = None, reviewer: str = "teacher") -> None:
    """Change an item's text and key, checking it still makes sense, then approve it."""
    item = repo.get_item(store, item_id)
    if item is None:
        raise ReviewError(f"Item {item_id} no longer exists; reload the queue.")
    stem, answer_key = (stem or "").strip(), (answer_key or "").strip()
    if not stem:
        raise ReviewError("The question text cannot be empty.")
    if not answer_key:
        raise ReviewError("The answer key cannot be empty.")
    changes: dict = {}
    fields: dict = {}
    if options is not None and item["options"]:
        options = [o.strip() for o in options]
        if any(not o for o in options):
            raise ReviewError("An option is empty; fill it in or remove the item.")
        if len(set(options)) != len(options):
            raise ReviewError("Two options are the same; every option must be different.")
        if answer_key not in options:
            raise ReviewError("The answer key must be one of the options.")
        if options != list(item["options"]):
            fields["options"] = options
        if options.index(answer_key) != item["correct_index"]:
            fields["correct_index"] = options.index(answer_key)
    for name, new in (("stem", stem), ("answer_key", answer_key), ("explanation", (explanation or "").strip())):
        if new != (item[name] or ""):
            fields[name] = new
    for name, new in fields.items():
        changes[name] = {"from": item[name], "to": new}

    def run(cur) -> None:
        reviews.update_item_content(cur, item_id, fields)
        reviews.set_item_status(cur, item_id, "approved", reviewer, None)
        reviews.record_item_action(cur, item_id, "edited and approved", reviewer, None, changes or None)
    store.write(run)
    repo.bank_changed()


def history(store: Store, item_id: str) -> list[dict]:
    return reviews.item_history(store, item_id)


def queue(store: Store, status: Optional[str] = "draft", blueprint_id: Optional[str] = None,
          outcome_id: Optional[str] = None, source: Optional[str] = None, limit: int = 200) -> list[dict]:
    return reviews.review_queue(store, status, blueprint_id, outcome_id, source, limit)
