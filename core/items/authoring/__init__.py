"""Authoring: editing blueprints, previewing them, saving new versions and generating draft items.

What the teacher's Blueprints and Generate pages do, with no Streamlit in it:
validate a blueprint typed in an editor against the library, show sample
items and the variant space of a skill, save a new version (file on disk,
version row in the database, and the in-memory library), list the library
as a tree, summarise an assessment, and turn skills or course outcomes plus
a difficulty mix into a batch of draft items for the review queue.
"""
from core.items.authoring.assessments import assessment_summary, difficulty_mix_rows
from core.items.authoring.drafts import generate_batches, generate_drafts, generate_llm_drafts, store_batches
from core.items.authoring.errors import AuthoringError
from core.items.authoring.kinds import KIND_FOLDERS, KIND_LABELS
from core.items.authoring.library_tree import broken_files, library_tree, open_source
from core.items.authoring.plans import (MAX_PLAN_ITEMS, PlanEntry, courses, levels_for, outcomes, plan_for_outcomes,
                                        plan_for_skills)
from core.items.authoring.preview import preview, variant_sizes
from core.items.authoring.progress import Progress
from core.items.authoring.saving import (file_stem, next_version, save_new_version, stored_versions, target_path,
                                         write_text_atomic)
from core.items.authoring.templates import TEMPLATES
from core.items.authoring.text_checks import check_items
from core.items.authoring.validation import EDITOR_FILE, format_issue, issue_rows, markdown_text, validate_text

__all__ = [
    "AuthoringError", "EDITOR_FILE", "KIND_FOLDERS", "KIND_LABELS", "MAX_PLAN_ITEMS", "PlanEntry", "Progress",
    "validate_text", "format_issue", "issue_rows", "markdown_text", "check_items",
    "preview", "variant_sizes",
    "next_version", "stored_versions", "file_stem", "target_path", "write_text_atomic", "save_new_version",
    "TEMPLATES",
    "library_tree", "broken_files", "open_source",
    "assessment_summary", "difficulty_mix_rows",
    "courses", "outcomes", "levels_for", "plan_for_skills", "plan_for_outcomes",
    "generate_drafts", "generate_llm_drafts", "generate_batches", "store_batches",
]
