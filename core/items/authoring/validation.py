"""Blueprint text from the editor checked: parsed, exercised if it is a skill, cross-checked against the library."""
from __future__ import annotations

import re
from typing import Iterable, Optional

from core.blueprints.library import Library
from core.blueprints.loader import BlueprintError, Issue, LoadedBlueprint, parse_text
from core.items.authoring.compiled import _remember
from core.items.authoring.text_checks import check_items

EDITOR_FILE = "editor.yaml"


def validate_text(text: str, library: Library, file: str = EDITOR_FILE) -> tuple[Optional[LoadedBlueprint], list[Issue]]:
    """Parse a blueprint, exercise it if it is a skill, and cross-check it against ``library``.

    Returns the loaded blueprint (None when any issue is an error) and every
    issue found, warnings included.
    """
    if not (text or "").strip():
        return None, [Issue(file, None, "", "the editor is empty; open a blueprint or start from a template")]
    try:
        loaded = parse_text(text, file)
    except BlueprintError as exc:
        return None, list(exc.issues)
    # A one-file library lends the real one's skills and specs for cross-references:
    # the same checks the library runs on its own files (skill exercise, skill ids
    # of an assessment, outcome ids of a skill, coverage of a course spec).
    scratch = Library(exercise=True)
    issues = scratch.report.files.setdefault(file, [])
    scratch.add_loaded(loaded, issues)
    scratch._cross_check(library)  # noqa: SLF001 - the library's own cross-reference pass
    issues = scratch.report.files.get(file, issues)
    if any(i.severity == "error" for i in issues):
        return None, issues
    if loaded.kind == "skill" and loaded.id in scratch.generators:
        _remember(loaded.hash, scratch.generators[loaded.id])
        issues = issues + check_items(loaded, scratch.generators[loaded.id])
        if any(i.severity == "error" for i in issues):
            return None, issues
    return loaded, issues


def format_issue(issue: Issue) -> str:
    """An issue as the editor shows it: 'line N, field.path: message'."""
    where = []
    if issue.line:
        where.append(f"line {issue.line}")
    if issue.path:
        where.append(issue.path)
    tag = " (warning)" if issue.severity != "error" else ""
    return (", ".join(where) + ": " if where else "") + issue.message + tag


def issue_rows(issues: Iterable[Issue], text: str) -> list[dict]:
    """Issues for display, errors first, each with the editor line it points at."""
    lines = (text or "").splitlines()
    rows = []
    for issue in sorted(issues, key=lambda i: (i.severity != "error", i.line or 0)):
        source = lines[issue.line - 1] if issue.line and 0 < issue.line <= len(lines) else ""
        text = format_issue(issue)
        rows.append({"severity": issue.severity, "line": issue.line, "field": issue.path, "message": issue.message,
                     "text": text, "markdown": markdown_text(text), "source": source})
    return rows


_CODE_SPAN = re.compile(r"(``.+?``|`[^`]+`)")
_MARKDOWN = re.compile(r"([\\*_\[\]<>#|~$])")


def markdown_text(text: str) -> str:
    """A message for a page that renders markdown: formulas in backticks stay code, and elsewhere
    the characters markdown would eat are escaped, so ``a*b*k`` never shows as "abk"."""
    parts = _CODE_SPAN.split(text or "")
    return "".join(part if i % 2 else _MARKDOWN.sub(r"\\\1", part) for i, part in enumerate(parts))
