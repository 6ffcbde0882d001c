"""The library as the editor lists it: blueprints as a tree, broken files to repair, the text behind each entry."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

from core.blueprints.library import Library
from core.blueprints.loader import BlueprintError, read_text
from core.items.authoring.errors import AuthoringError
from core.items.authoring.kinds import KIND_FOLDERS, KIND_LABELS, _table
from core.items.authoring.templates import TEMPLATES
from core.items.authoring.validation import format_issue


def library_tree(library: Library) -> list[dict]:
    """One row per blueprint, skills grouped by domain > subdomain > topic, then assessments and specs."""
    rows = []
    for loaded in library.skills.values():
        meta = loaded.model.metadata
        rows.append({"kind": "skill", "domain": meta.domain, "subdomain": meta.subdomain or "",
                     "topic": meta.topic or "", "id": loaded.id, "title": meta.skill_statement,
                     "version": loaded.version, "course": " ".join(filter(None, (meta.subject, meta.level))),
                     "file": loaded.file, "key": f"skill:{loaded.id}"})
    for loaded in library.assessments.values():
        meta = loaded.model.metadata
        rows.append({"kind": "assessment", "domain": meta.subject or "", "subdomain": "", "topic": meta.level or "",
                     "id": loaded.id, "title": meta.title, "version": loaded.version,
                     "course": " ".join(filter(None, (meta.subject, meta.level))), "file": loaded.file,
                     "key": f"assessment:{loaded.id}"})
    for loaded in library.specs.values():
        spec = loaded.model
        rows.append({"kind": "spec", "domain": spec.subject, "subdomain": "", "topic": spec.level, "id": loaded.id,
                     "title": spec.title or f"{spec.subject} {spec.level}", "version": loaded.version,
                     "course": f"{spec.subject} {spec.level}", "file": loaded.file, "key": f"spec:{loaded.id}"})
    order = {"skill": 0, "assessment": 1, "spec": 2}
    rows.sort(key=lambda r: (order[r["kind"]], r["domain"].lower(), r["subdomain"].lower(), r["topic"].lower(), r["id"]))
    return rows


def broken_files(library: Library) -> list[dict]:
    """Files the library could not load, with their first error (they can be opened and repaired)."""
    rows = []
    loaded_files = {lb.file for lb in library.all_loaded()}
    for file, issues in sorted(library.report.files.items()):
        errors = [i for i in issues if i.severity == "error"]
        if errors and file not in loaded_files:
            rows.append({"file": file, "errors": len(errors), "first": format_issue(errors[0]), "key": f"file:{file}"})
    return rows


def open_source(library: Library, key: str) -> tuple[str, Optional[str]]:
    """The YAML text behind a tree key ("skill:ID", "assessment:ID", "spec:ID", "template:NAME", "file:PATH"),
    and the file it came from (None for a template)."""
    kind, _, name = key.partition(":")
    if kind == "template":
        if name not in TEMPLATES:
            raise AuthoringError(f"There is no template called {name}; choose one of: {', '.join(TEMPLATES)}.")
        return TEMPLATES[name], None
    if kind == "file":
        try:
            return read_text(Path(name)), name
        except BlueprintError as exc:
            raise AuthoringError(f"{exc.issues[0].message}: {name}.") from None
    if kind not in KIND_FOLDERS:
        raise AuthoringError(f"Cannot open '{key}'; choose a blueprint from the list.")
    loaded = _table(library, kind).get(name)
    if loaded is None:
        raise AuthoringError(f"The library holds no {KIND_LABELS[kind].lower()} '{name}'; choose one from the list.")
    return loaded.text, loaded.file
