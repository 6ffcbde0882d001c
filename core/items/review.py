"""The review queue: teachers approve, reject (with a reason) or edit then approve drafts.

Nothing is approved unless its answer key is sound (``core.items.answer_keys``):
the marker reads the key and marks it right, and a blueprint item's key is what
its blueprint computes for the item's parameters, or the teacher has said, with
a reason kept in the item's history, to keep a key that differs.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Optional

from core.blueprints.library import LibraryError
from core.items.answer_keys import (KEPT_KEY, Blueprints, KeyDifference, as_item, kept_before, key_problem,
                                    same_value)
from core.marking.choices import default_fractions, letters as option_letters, read_letters
from core.store import Store, repo
from core.store import reviews

WITHDRAWN = "withdrawn"   # was approved, taken back by the workbench: its key cannot be marked


class ReviewError(ValueError):
    """A review action that cannot be done; the message says why."""


class KeyDiffersError(ReviewError):
    """An edited key is not what the blueprint computes; approving it needs a confirmation and a reason."""

    def __init__(self, difference: KeyDifference):
        self.difference = difference
        super().__init__(f"{difference.message} Tick 'keep my key' and say why, or correct it.")


def approve(store: Store, item_ids: list[str], reviewer: str = "teacher", note: Optional[str] = None,
            library: Any = None) -> int:
    """Approve items whose keys are sound; if any is not, none is approved and the error names each.

    ``library`` (the blueprint library) lets a blueprint item's key be recomputed
    without reading its blueprint back from the database.
    """
    if not item_ids:
        raise ReviewError("Select at least one item.")
    blueprints = Blueprints(store, library)
    problems = []
    for item_id in item_ids:
        row = repo.get_item(store, item_id)
        if row is None:
            raise ReviewError(f"Item {item_id} no longer exists; reload the queue.")
        missing = unplaced(row)
        if missing is not None:
            problems.append(f"Item {item_id} cannot be approved: {missing}")
            continue
        item = as_item(row)
        problem = key_problem(item)
        if problem is not None:
            problems.append(f"Item {item_id} cannot be approved: {problem}. Correct its key under 'Edit then approve'.")
            continue
        difference = blueprints.difference(item)
        if difference is not None and not kept_before(reviews.item_history(store, item_id), difference):
            problems.append(f"Item {item_id} cannot be approved: {difference.message} Correct it, or keep it under "
                            f"'Edit then approve' by ticking 'keep my key' and saying why.")
    if problems:
        raise ReviewError(" ".join(problems))
    return _set(store, item_ids, "approved", "approved", reviewer, note)


def unplaced(row: dict) -> Optional[str]:
    """Why no student could get this item once approved, or None.

    A question that comes from no blueprint or skill (the question pipeline's, most imported ones) reaches
    students only through its course and outcome.
    """
    if row.get("blueprint_id") or row.get("skill_ids"):
        return None
    if row.get("outcome_ids") and row.get("subject") and row.get("level"):
        return None
    return ("it has no course outcome, so no student would get it. Choose the outcome it assesses under "
            "'Course and outcome' first.")


def _note_after_approval(status: Optional[str], note: Optional[str]) -> Optional[str]:
    """The review note to set on approval: a withdrawal's reason no longer holds once the item is approved."""
    return "" if note is None and status == WITHDRAWN else note


def place(store: Store, item_id: str, subject: str, level: str, outcome_id: str, skill_id: Optional[str] = None,
          reviewer: str = "teacher", library: Any = None) -> None:
    """Put a question in a course: its subject, level and outcome (and skill), so practice and exams can use it.

    Questions brought in from other systems arrive without them. With ``library``
    the course, outcome and skill are checked against the course specs.
    """
    item = repo.get_item(store, item_id)
    if item is None:
        raise ReviewError(f"Item {item_id} no longer exists; reload the queue.")
    if not (subject and level and outcome_id):
        raise ReviewError("Choose the course and the outcome the question assesses.")
    if library is not None:
        try:
            spec = library.spec(subject, level)
        except LibraryError as exc:
            raise ReviewError(str(exc)[:1].upper() + str(exc)[1:] + ".") from None
        outcomes = {o.id for o in spec.outcomes}
        if outcome_id not in outcomes:
            raise ReviewError(f"{outcome_id} is not an outcome of {subject} {level}; choose one of "
                              f"{', '.join(sorted(outcomes))}.")
    skills = [skill_id] if skill_id else list(item.get("skill_ids") or [])
    after = {"subject": subject, "level": level, "outcome_ids": [outcome_id], "skill_ids": skills}
    changes = {k: {"from": item.get(k), "to": v} for k, v in after.items() if item.get(k) != v}

    def run(cur) -> None:
        reviews.set_item_course(cur, item_id, subject, level, [outcome_id], skills)
        reviews.record_item_action(cur, item_id, "placed", reviewer, f"{subject} {level}, {outcome_id}", changes)
    store.write(run)
    repo.bank_changed()


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
            current = reviews.item_status(cur, item_id)
            if current is None:
                raise ReviewError(f"Item {item_id} no longer exists; reload the queue.")
            reviews.set_item_status(cur, item_id, status, reviewer,
                                    _note_after_approval(current, note) if status == "approved" else note)
            reviews.record_item_action(cur, item_id, action, reviewer, note, None)
            done += 1
        return done
    done = store.write(run)
    repo.bank_changed()
    return done


def _several_key(answer_key: str, options: list[str], evaluation: dict) -> tuple[str, dict]:
    """A choose-several key as typed ("a c", "C,A") written the usual way ("A, C"), and the options' fractions
    of the marks: kept while the right options stay the same, else 1/k for each of the k right options and
    -1/k for each wrong one."""
    right, problem = read_letters(answer_key, len(options))
    if problem is not None or not right:
        raise ReviewError(f"The answer key must be the letters of the right options, such as A, C "
                          f"({(problem or 'no option named').rstrip('.')}).")
    fractions = evaluation.get("fractions")
    was = {i for i, f in enumerate(fractions or []) if isinstance(f, (int, float)) and f > 0}
    if not isinstance(fractions, list) or len(fractions) != len(options) or was != set(right):
        evaluation = {**evaluation, "method": "multiple_response",
                      "fractions": default_fractions(right, len(options))}
    return option_letters(right), evaluation


def edit_and_approve(store: Store, item_id: str, stem: str, answer_key: str, explanation: str,
                     options: Optional[list[str]] = None, reviewer: str = "teacher", *,
                     confirm_key_change: bool = False, reason: Optional[str] = None, library: Any = None) -> None:
    """Change an item's text and key, checking it still makes sense, then approve it.

    The edited key must be one the marker reads and marks right. For a blueprint
    item it must also equal, in value, what the blueprint computes for the item's
    parameters; a key that differs raises KeyDiffersError unless
    ``confirm_key_change`` is set and ``reason`` says why, and then the reason,
    the blueprint's key and the kept key go into the item's history.
    """
    item = repo.get_item(store, item_id)
    if item is None:
        raise ReviewError(f"Item {item_id} no longer exists; reload the queue.")
    missing = unplaced(item)
    if missing is not None:
        raise ReviewError(f"Item {item_id} cannot be approved: {missing}")
    stem, answer_key = (stem or "").strip(), (answer_key or "").strip()
    if not stem:
        raise ReviewError("The question text cannot be empty.")
    if not answer_key:
        raise ReviewError("The answer key cannot be empty.")
    changes: dict = {}
    fields: dict = {}
    several = as_item(item).choose_several and bool(item["options"])
    if options is not None and item["options"]:
        options = [o.strip() for o in options]
        if any(not o for o in options):
            raise ReviewError("An option is empty; fill it in or remove the item.")
        if len(set(options)) != len(options):
            raise ReviewError("Two options are the same; every option must be different.")
        if not several and answer_key not in options:
            raise ReviewError("The answer key must be one of the options.")
        if options != list(item["options"]):
            fields["options"] = options
        if not several and options.index(answer_key) != item["correct_index"]:
            fields["correct_index"] = options.index(answer_key)
    evaluation = dict(item.get("evaluation") or {})
    if several:
        # Choose several: the key is the right options' letters, written "A, C".
        answer_key, evaluation = _several_key(answer_key, list(fields.get("options", item["options"])), evaluation)
        if evaluation != (item.get("evaluation") or {}):
            fields["evaluation"] = evaluation
    for name, new in (("stem", stem), ("answer_key", answer_key), ("explanation", (explanation or "").strip())):
        if new != (item[name] or ""):
            fields[name] = new
    alternatives = list(item.get("accepted_answers") or [])
    if "answer_key" in fields and alternatives and not item["options"]:
        # Alternatives written for the old key would still be marked right: keep those that equal the new key.
        bare = dataclasses.replace(as_item(item), correct_answer=answer_key, accepted_answers=[])
        kept = [a for a in alternatives if same_value(bare, answer_key, a)]
        if kept != alternatives:
            fields["accepted_answers"] = kept
    for name, new in fields.items():
        changes[name] = {"from": item[name], "to": new}

    edited = dataclasses.replace(as_item(item), stem=stem, correct_answer=answer_key,
                                 explanation=fields.get("explanation", item["explanation"] or ""),
                                 options=list(fields.get("options", item["options"] or [])),
                                 correct_index=fields.get("correct_index", item["correct_index"]),
                                 accepted_answers=list(fields.get("accepted_answers", alternatives)),
                                 evaluation=evaluation if several else as_item(item).evaluation)
    problem = key_problem(edited)
    if problem is not None:
        raise ReviewError(f"The key cannot be used: {problem}. Correct the key so the marker accepts it.")
    note = None
    difference = Blueprints(store, library).difference(edited)
    if difference is not None and not kept_before(reviews.item_history(store, item_id), difference):
        why = (reason or "").strip()
        if not confirm_key_change:
            raise KeyDiffersError(difference)
        if not why:
            raise ReviewError(f"{difference.message} Say why you keep your key; the reason is kept in the "
                              f"item's history.")
        changes[KEPT_KEY] = {"from": difference.blueprint_key, "to": difference.key}
        note = why

    def run(cur) -> None:
        reviews.update_item_content(cur, item_id, fields)
        reviews.set_item_status(cur, item_id, "approved", reviewer, _note_after_approval(item["status"], note))
        reviews.record_item_action(cur, item_id, "edited and approved", reviewer, note, changes or None)
    store.write(run)
    repo.bank_changed()


def withdraw_unmarkable(store: Store, actor: str = "workbench") -> list[dict]:
    """Withdraw every approved item whose key the marker cannot read or does not accept.

    Each gets the status ``withdrawn``, the reason as its review note and an
    entry in its history; [{id, reason}] says what was withdrawn.
    """
    found = []
    for row in reviews.approved_rows(store):
        problem = key_problem(row)
        if problem is not None:
            found.append({"id": row["id"], "reason": f"Withdrawn: {problem}. Correct the key under 'Edit then "
                                                      f"approve', or reject the item."})
    if not found:
        return []

    def run(cur) -> None:
        for entry in found:
            reviews.set_item_status(cur, entry["id"], WITHDRAWN, actor, entry["reason"])
            reviews.record_item_action(cur, entry["id"], "withdrawn", actor, entry["reason"], None)
    store.write(run)
    repo.bank_changed()
    return found


def history(store: Store, item_id: str) -> list[dict]:
    return reviews.item_history(store, item_id)


def histories(store: Store, item_ids: list[str]) -> dict[str, list[dict]]:
    """The histories of several items, read at once: {item id: what ``history`` gives for it}."""
    return reviews.item_histories(store, list(item_ids))


def count(store: Store, status: str) -> int:
    """How many items have this status."""
    return repo.count_items(store, status)


def queue_version(store: Store) -> str:
    """Changes whenever what ``queue`` or ``count`` give may have changed, so a page can keep them until then."""
    return reviews.queue_version(store)


def queue(store: Store, status: Optional[str] = "draft", blueprint_id: Optional[str] = None,
          outcome_id: Optional[str] = None, source: Optional[str] = None, limit: int = 200) -> list[dict]:
    return reviews.review_queue(store, status, blueprint_id, outcome_id, source, limit)
