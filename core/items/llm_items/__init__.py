"""Blueprint-driven items written by an LLM and verified by core.

The model gets the skill blueprint's statement, parameter ranges, the level's
constraints, difficulty factors and distractor strategies, and answers with a
stem, options, its key, an explanation and the parameters it used. Core then
checks the shape, that the parameters lie in their domains and meet the
level's constraints, that the stem shows those parameters, and recomputes the
key from the parameters with the blueprint's answer formula. The model's key
is never taken on trust: the stored key is always core's.

``prompt`` writes what the model is asked, ``verification`` checks its answer
and recomputes the key, ``generation`` calls the model and stores what passed.
"""

from core.items.llm_items.generation import ROLE, STAGE, generate_llm_batch, generate_llm_item, store_llm_items
from core.items.llm_items.prompt import (ITEM_GENERATOR_SYSTEM_PROMPT, LLMItem, generation_messages,
                                         generation_prompt)
from core.items.llm_items.verification import LLM_DISTRACTOR, verify_llm_item

__all__ = [
    "ITEM_GENERATOR_SYSTEM_PROMPT",
    "LLMItem",
    "generation_prompt",
    "generation_messages",
    "LLM_DISTRACTOR",
    "verify_llm_item",
    "STAGE",
    "ROLE",
    "generate_llm_item",
    "generate_llm_batch",
    "store_llm_items",
]
