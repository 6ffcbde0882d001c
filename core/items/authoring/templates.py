"""Blueprints to start from, one per kind of question and of blueprint: the YAML files in starters/, offered in
this order. Each is valid as shipped and commented so a teacher can fill it in without reading code."""
from __future__ import annotations

from pathlib import Path

TEMPLATES_DIR = Path(__file__).resolve().parent / "starters"

TEMPLATES: dict[str, str] = {name: (TEMPLATES_DIR / file).read_text(encoding="utf-8") for name, file in (
    ("Numeric skill", "numeric_skill.yaml"),
    ("Multiple-choice skill", "multiple_choice_skill.yaml"),
    ("Algebra skill", "algebraic_skill.yaml"),
    ("Written-answer skill", "short_text_skill.yaml"),
    ("Assessment", "assessment.yaml"),
    ("Course spec", "course_spec.yaml"),
)}
