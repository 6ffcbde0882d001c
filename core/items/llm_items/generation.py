"""Asking the model for items (one, or a batch at once) and storing those that passed verification."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, as_completed
from typing import Any, Callable, Optional

from core.items.generator import GenerationError, Item, SkillGenerator
from core.items.llm_items.prompt import LLMItem, generation_messages, generation_prompt
from core.items.llm_items.verification import verify_llm_item
from core.llm import LLMClient, LLMError
from core.store.db import Store

STAGE = "item_generation"
ROLE = "item_generator"


def _require_multiple_choice(generator: SkillGenerator) -> None:
    if generator.bp.generation.item_type != "multiple_choice":
        raise GenerationError(f"LLM items are made only for multiple-choice skills, and "
                              f"{generator.bp.skill_id} is {generator.bp.generation.item_type}")


def generate_llm_item(client: LLMClient, generator: SkillGenerator, level: str, seed: Any) -> tuple[Optional[Item], dict]:
    """One LLM item verified by core, or None with the report saying why it was rejected."""
    _require_multiple_choice(generator)
    messages = generation_messages(generator, level, seed)
    try:
        answer = client.structured(ROLE, messages, LLMItem, stage=STAGE)
    except LLMError as exc:
        bp = generator.bp
        return None, {"skill_id": bp.skill_id, "level": level, "seed": str(seed), "parameters": None,
                      "model_key": None, "core_key": None,
                      "checks": [{"name": "llm_call", "ok": False, "detail": str(exc)}],
                      "verdict": "rejected", "reason": str(exc)}
    return verify_llm_item(generator, level, seed, answer)


def generate_llm_batch(client: LLMClient, generator: SkillGenerator, level: str, n: int, seed: Any,
                       progress: Optional[Callable[[int, int], None]] = None,
                       verified: Optional[list[dict]] = None) -> tuple[list[Item], list[dict]]:
    """``n`` LLM items (seeds "SEED/i") made concurrently; failures are rejected with their reason.

    Items come back in seed order; an item repeating the parameters of an
    earlier one in the batch is rejected as a duplicate. ``progress(done, n)``
    is called as calls finish; the verified items' reports are appended to
    ``verified`` when a list is given (``store_llm_items`` stores them).
    """
    if n < 0:
        raise GenerationError("the number of items must not be negative")
    _require_multiple_choice(generator)
    generation_prompt(generator, level)  # an unknown level is the caller's mistake, reported once
    results: list[Optional[tuple[Optional[Item], dict]]] = [None] * n
    done = 0
    if n:
        with client.batched(), ThreadPoolExecutor(max_workers=min(n, client.settings.concurrency),
                                                  thread_name_prefix="llm-items") as pool:
            futures = {pool.submit(generate_llm_item, client, generator, level, f"{seed}/{i}"): i for i in range(n)}
            for future in as_completed(futures):
                results[futures[future]] = future.result()
                done += 1
                if progress is not None:
                    progress(done, n)
    items: list[Item] = []
    rejected: list[dict] = []
    seen: dict[str, str] = {}
    for item, report in (r for r in results if r is not None):
        if item is None:
            rejected.append(report)
        elif item.content_key in seen:
            report["verdict"] = "rejected"
            report["reason"] = f"it repeats the parameters of item {seen[item.content_key]} in this batch"
            report["checks"].append({"name": "unique_in_batch", "ok": False, "detail": report["reason"]})
            rejected.append(report)
        else:
            seen[item.content_key] = item.id
            items.append(item)
            if verified is not None:
                verified.append(report)
    return items, rejected


def store_llm_items(store: Store, items: list[Item], reports: list[dict]) -> int:
    """Store verified items as drafts with their verification reports; return how many were new."""
    from core.store.llm_runs import save_verifications
    from core.store.repo import insert_items

    added = insert_items(store, items, status="draft")
    by_id = {r.get("item_id"): r for r in reports if r.get("verdict") == "verified"}
    save_verifications(store, {item.id: by_id[item.id] for item in items if item.id in by_id})
    return added
