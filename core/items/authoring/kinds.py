"""The three kinds of blueprint: the folder each is saved in, what the pages call it, the library table holding it."""
from __future__ import annotations

from core.blueprints.library import Library
from core.blueprints.loader import LoadedBlueprint

KIND_FOLDERS = {"skill": "skills", "assessment": "assessments", "spec": "specs"}
KIND_LABELS = {"skill": "Skill", "assessment": "Assessment", "spec": "Course spec"}


def _article(kind: str) -> str:
    label = KIND_LABELS[kind].lower()
    return ("an " if label[0] in "aeiou" else "a ") + label


def _table(library: Library, kind: str) -> dict[str, LoadedBlueprint]:
    return {"skill": library.skills, "assessment": library.assessments, "spec": library.specs}[kind]
