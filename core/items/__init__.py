"""Items: generating them from skill blueprints (generator, sampler), question banks (banks), where
practice and exams get questions (sources), authoring blueprints and drafts (authoring), items
written by an LLM and checked by core (llm_items), and the review queue (review)."""
