"""A plan's items generated, by formula or by the LLM, and stored as drafts for the review queue."""
from __future__ import annotations

from typing import Any, Iterable

from core.blueprints.library import Library, LibraryError
from core.items.authoring.errors import AuthoringError
from core.items.authoring.plans import MAX_PLAN_ITEMS, PlanEntry
from core.items.authoring.progress import Progress
from core.items.sampler import GenerationError
from core.store import Store, repo


def _merged_plan(plan: Iterable[PlanEntry]) -> dict[tuple[str, str], int]:
    """(skill, level) -> items, entries for the same pair added up; AuthoringError when empty or too big."""
    merged: dict[tuple[str, str], int] = {}
    for skill_id, level, count in plan:
        if int(count) > 0:
            merged[(skill_id, level)] = merged.get((skill_id, level), 0) + int(count)
    total = sum(merged.values())
    if total == 0:
        raise AuthoringError("The plan holds no items; choose skills and a number of items above zero.")
    if total > MAX_PLAN_ITEMS:
        raise AuthoringError(f"The plan asks for {total} items; generate at most {MAX_PLAN_ITEMS} at a time.")
    return merged


def generate_drafts(library: Library, store: Store, plan: Iterable[PlanEntry], seed: Any,
                    progress: Progress = None) -> dict:
    """Generate a plan's items and store them as drafts for the review queue.

    The same plan and seed give the same items again (they are then counted
    as already stored rather than stored twice). Entries whose skill or level
    is unknown are skipped, entries that cannot be generated fail; both with
    the reason, and the rest of the plan still runs.
    """
    return store_batches(store, generate_batches(library, plan, seed, progress))


def generate_batches(library: Library, plan: Iterable[PlanEntry], seed: Any, progress: Progress = None) -> dict:
    """A plan's items generated and nothing stored (the half of ``generate_drafts`` a worker process can do).

    Returns {requested, skipped, failed, batches}; each batch is an entry
    (skill_id, level, count) with its ``items`` and ``repeats``.
    ``store_batches`` stores them.
    """
    merged = _merged_plan(plan)
    total = sum(merged.values())
    out: dict[str, Any] = {"requested": total, "skipped": [], "failed": [], "batches": []}
    done = 0
    if progress:
        progress(0, total)
    for (skill_id, level), count in merged.items():
        entry = {"skill_id": skill_id, "level": level, "count": count}
        try:
            gen = library.generator(skill_id)
            if level not in gen.cs.levels:
                raise LibraryError(f"{skill_id} has no '{level}' level (it has: {', '.join(gen.cs.levels)})")
        except LibraryError as exc:
            out["skipped"].append({**entry, "reason": str(exc)})
        else:
            try:
                batch = gen.batch(level, count, str(seed))
            except GenerationError as exc:
                out["failed"].append({**entry, "reason": str(exc)})
            else:
                out["batches"].append({**entry, "items": batch.items, "repeats": batch.duplicates})
        done += count
        if progress:
            progress(done, total)
    return out


def store_batches(store: Store, generated: dict) -> dict:
    """Batches from ``generate_batches`` stored as drafts: what was stored, already stored, repeated, skipped, failed."""
    result: dict[str, Any] = {"requested": generated["requested"], "generated": 0, "stored": 0, "already_stored": 0,
                              "repeats": 0, "skipped": list(generated["skipped"]), "failed": list(generated["failed"]),
                              "entries": []}
    for batch in generated["batches"]:
        items = batch["items"]
        stored = repo.insert_items(store, items, status="draft")
        result["generated"] += len(items)
        result["stored"] += stored
        result["already_stored"] += len(items) - stored
        result["repeats"] += batch["repeats"]
        result["entries"].append({"skill_id": batch["skill_id"], "level": batch["level"], "count": batch["count"],
                                  "stored": stored, "repeats": batch["repeats"]})
    return result


def generate_llm_drafts(library: Library, store: Store, client: Any, plan: Iterable[PlanEntry], seed: Any,
                        progress: Progress = None) -> dict:
    """Have the LLM write a plan's multiple-choice items; core verifies each key before it is stored as a draft.

    Skills that are not multiple choice are skipped with the reason (their
    items come from the formula, which is always right). Every rejected item
    is reported with the check it failed; the rest of the plan still runs.
    """
    from core.items.llm_items import generate_llm_batch, store_llm_items
    merged = _merged_plan(plan)
    total = sum(merged.values())
    result: dict[str, Any] = {"requested": total, "verified": 0, "stored": 0, "skipped": [], "rejected": []}
    done = 0
    if progress:
        progress(0, total)
    for (skill_id, level), count in merged.items():
        entry = {"skill_id": skill_id, "level": level, "count": count}
        try:
            gen = library.generator(skill_id)
            if gen.bp.generation.item_type != "multiple_choice":
                raise GenerationError(f"LLM items are written only for multiple-choice skills; {skill_id} is "
                                      f"{gen.bp.generation.item_type}, so generate it by formula")
            before = done
            verified: list[dict] = []
            items, rejected = generate_llm_batch(
                client, gen, level, count, f"{seed}/{skill_id}/{level}", verified=verified,
                progress=(lambda d, _t, b=before: progress(b + d, total)) if progress else None)
        except (LibraryError, GenerationError) as exc:
            result["skipped"].append({**entry, "reason": str(exc)})
        else:
            repo.sync_blueprints(store, [library.skills[skill_id]])
            result["verified"] += len(items)
            result["stored"] += store_llm_items(store, items, verified)
            result["rejected"] += [{**entry, "seed": r["seed"], "reason": r["reason"]} for r in rejected]
        done += count
        if progress:
            progress(done, total)
    return result
