"""Architecture rules: core never imports streamlit or the pages."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_core_never_imports_streamlit_or_pages():
    offenders = []
    for path in (ROOT / "core").rglob("*.py"):
        bad = imported_modules(path) & {"streamlit", "pages"}
        if bad:
            offenders.append(f"{path.relative_to(ROOT)} imports {', '.join(sorted(bad))}")
    assert not offenders, offenders


def test_sql_lives_in_the_store():
    offenders = []
    for path in (ROOT / "core").rglob("*.py"):
        if "store" in path.parts:
            continue
        text = path.read_text()
        if "import duckdb" in text or ".execute(" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders
