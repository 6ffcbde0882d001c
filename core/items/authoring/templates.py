"""Blueprints to start from, one per kind: the YAML files in starters/, offered in this order."""
from __future__ import annotations

from pathlib import Path

TEMPLATES_DIR = Path(__file__).resolve().parent / "starters"

TEMPLATES: dict[str, str] = {name: (TEMPLATES_DIR / file).read_text(encoding="utf-8") for name, file in (
    ("Multiple-choice skill", "multiple_choice_skill.yaml"),
    ("Numeric skill", "numeric_skill.yaml"),
    ("Assessment", "assessment.yaml"),
    ("Course spec", "course_spec.yaml"),
)}
