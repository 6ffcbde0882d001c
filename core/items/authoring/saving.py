"""A blueprint saved as a new version: the file on disk, the version row in the database, the in-memory library."""
from __future__ import annotations

import os
import re
import tempfile
import threading
from pathlib import Path
from typing import Optional, Union

from core.blueprints.library import Library, default_blueprints_dir
from core.blueprints.loader import BlueprintError, Issue, LoadedBlueprint, parse_text
from core.items.authoring.errors import AuthoringError
from core.items.authoring.kinds import KIND_FOLDERS, _table
from core.items.authoring.validation import validate_text
from core.store import Store, repo

_save_lock = threading.Lock()


def next_version(version: str) -> str:
    """The version after ``version``: "1.0" -> "1.1", "2" -> "3", "1.9" -> "1.10", "beta" -> "beta.1"."""
    parts = str(version).strip().split(".")
    if parts and parts[-1].isdigit():
        parts[-1] = str(int(parts[-1]) + 1)
        return ".".join(parts)
    return f"{version}.1"


def _version_key(version: str) -> tuple:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in str(version).split("."))


def stored_versions(library: Library, store: Store, kind: str, blueprint_id: str) -> list[str]:
    """Every version of a blueprint the database or the library holds, oldest first by number."""
    versions = {r["version"] for r in repo.blueprint_versions(store, blueprint_id) if r["kind"] == kind}
    current = _table(library, kind).get(blueprint_id)
    if current is not None:
        versions.add(current.version)
    return sorted(versions, key=_version_key)


def file_stem(blueprint_id: str) -> str:
    """A file name for a new blueprint: the id in lower case, dots as underscores."""
    name = re.sub(r"[^a-z0-9_\-]+", "_", blueprint_id.lower().replace(".", "_")).strip("_")
    return name or "blueprint"


def target_path(loaded: LoadedBlueprint, library: Library, folder: Union[str, Path, None] = None,
                opened: Union[str, Path, None] = None) -> Path:
    """Where a blueprint is saved: its existing file, the broken file being repaired, or a new file."""
    current = _table(library, loaded.kind).get(loaded.id)
    if current is not None and Path(current.file).suffix in (".yaml", ".yml"):
        return Path(current.file)
    if opened is not None:
        opened = Path(opened)
        holds_valid = any(Path(lb.file) == opened for lb in library.all_loaded())
        if opened.is_file() and not holds_valid:
            return opened
    folder = Path(folder) if folder is not None else default_blueprints_dir()
    base = folder / KIND_FOLDERS[loaded.kind] / file_stem(loaded.id)
    path, n = base.with_suffix(".yaml"), 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}_{n}.yaml")
    return path


def write_text_atomic(path: Path, text: str) -> None:
    """Write a file so a crash leaves either the old content or the new, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save_new_version(text: str, library: Library, store: Store, folder: Union[str, Path, None] = None,
                     opened: Union[str, Path, None] = None, author: str = "teacher",
                     checked: Optional[tuple[Optional[LoadedBlueprint], list[Issue]]] = None) -> Path:
    """Save a blueprint as a new version: file, database row and the in-memory library.

    Raises BlueprintError (with every error) when the text is not valid, and
    AuthoringError when its version is already stored or the file cannot be
    written. ``opened`` is the file the editor was opened from, used to save a
    repaired broken file in place. ``checked`` is what ``validate_text`` gave
    for this very text against this library when the caller has it already
    (validated in a worker process); the text is then not exercised again.
    """
    with _save_lock:
        if checked is not None and (checked[0] is None or checked[0].text == text):
            loaded, issues = checked
        else:
            loaded, issues = validate_text(text, library)
        if loaded is None:
            raise BlueprintError([i for i in issues if i.severity == "error"])
        versions = stored_versions(library, store, loaded.kind, loaded.id)
        if loaded.version in versions:
            suggestion = next_version(versions[-1])
            while suggestion in versions:
                suggestion = next_version(suggestion)
            raise AuthoringError(f"Version {loaded.version} of {loaded.id} is already stored; "
                                 f"change the version to \"{suggestion}\" and save again.")
        path = target_path(loaded, library, folder, opened)
        try:
            write_text_atomic(path, text)
        except OSError as exc:
            raise AuthoringError(f"Could not write {path} ({exc.strerror or exc}); "
                                 f"check that the blueprints folder is writable.") from None
        saved = parse_text(text, str(path))
        repo.save_blueprint(store, saved, author)
        report = library.report.files[str(path)] = []
        library.add_loaded(saved, report)
        report.extend([i for i in _refile(issues, str(path)) if i not in report])
        return path


def _refile(issues: list[Issue], file: str) -> list[Issue]:
    return [Issue(file, i.line, i.path, i.message, i.severity) for i in issues if i.severity != "error"]
