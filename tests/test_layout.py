"""Architecture rules: which part of the code may import which.

core never imports streamlit, the pages or their UI pieces; the lower layers
(store, blueprints, marking) never import the upper ones; items (the layer
between) uses the lower ones and the LLM client only; SQL lives in the store.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core"

UPPER = {"flows", "llm", "school", "exams", "analytics", "cli", "demo"}
LOWER = {"store", "blueprints", "marking"}
# What the items layer may take from core.llm: the client and its settings, not the pipeline or the tutor.
ITEMS_MAY_USE = {"core.llm", "core.llm.client", "core.llm.settings"}


def imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at any depth (lazy imports inside functions count too)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            if node.module == "core":
                names |= {f"core.{a.name}" for a in node.names}
    return names


def core_files() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def package_of(path: Path) -> str:
    """The core package a file belongs to ('' for the facade files at core's root)."""
    rel = path.relative_to(CORE).parts
    return rel[0] if len(rel) > 1 else ""


def core_package(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if parts[0] == "core" and len(parts) > 1 else None


def test_core_never_imports_streamlit_pages_or_ui():
    offenders = []
    for path in core_files():
        bad = {m.split(".")[0] for m in imported_modules(path)} & {"streamlit", "pages", "ui"}
        if bad:
            offenders.append(f"{path.relative_to(ROOT)} imports {', '.join(sorted(bad))}")
    assert not offenders, offenders


@pytest.mark.parametrize("layer", sorted(LOWER))
def test_lower_layers_never_import_upper_ones(layer):
    offenders = []
    for path in (CORE / layer).rglob("*.py"):
        bad = {m for m in imported_modules(path) if core_package(m) in UPPER}
        if bad:
            offenders.append(f"{path.relative_to(ROOT)} imports {', '.join(sorted(bad))}")
    assert not offenders, offenders


def test_marking_stands_alone():
    """Marking is a pure function of the spec and the answer: it imports no other part of core."""
    offenders = []
    for path in (CORE / "marking").rglob("*.py"):
        bad = {m for m in imported_modules(path) if core_package(m) not in (None, "marking")}
        if bad:
            offenders.append(f"{path.relative_to(ROOT)} imports {', '.join(sorted(bad))}")
    assert not offenders, offenders


def test_items_use_only_the_layers_below_and_the_llm_client():
    offenders = []
    for path in (CORE / "items").rglob("*.py"):
        bad = {m for m in imported_modules(path)
               if core_package(m) in UPPER and not (m in ITEMS_MAY_USE)}
        if bad:
            offenders.append(f"{path.relative_to(ROOT)} imports {', '.join(sorted(bad))}")
    assert not offenders, offenders


def test_only_the_command_line_entry_imports_the_command_line():
    offenders = [str(p.relative_to(ROOT)) for p in core_files()
                 if package_of(p) != "cli" and p.name != "__main__.py"
                 and any(core_package(m) == "cli" for m in imported_modules(p))]
    assert not offenders, offenders


def test_no_loose_modules_in_core():
    """core's root holds its packages, the command-line entry and the facade; everything else has a folder."""
    loose = sorted(p.name for p in CORE.glob("*.py"))
    assert loose == ["__init__.py", "__main__.py", "workbench.py"], loose


def test_main_only_dispatches():
    body = (CORE / "__main__.py").read_text()
    code = [line for line in body.splitlines() if line.strip() and not line.lstrip().startswith(("#", '"""'))]
    assert len(code) <= 4, code


def test_pages_folder_holds_only_pages():
    """Helpers in pages/ could be opened by URL; they live in ui/, which the server never serves."""
    assert not (ROOT / "pages" / "__init__.py").exists()
    for path in (ROOT / "pages").glob("*.py"):
        text = path.read_text()
        assert "st.set_page_config" not in text or path.name == "app.py"
        assert "def show(" not in text, f"{path.name} defines a reusable piece; move it to ui/"
    assert {"pages", "ui"} & {m.split(".")[0] for m in imported_modules(ROOT / "app.py")} == {"ui"}


def test_sql_lives_in_the_store():
    offenders = []
    for path in core_files():
        if package_of(path) == "store":
            continue
        text = path.read_text()
        if "import duckdb" in text or ".execute(" in text:
            offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, offenders


def test_no_file_in_core_needs_a_table_of_contents():
    """A file that needs three banner comments to find its way around, or runs past 600 lines, holds more than one idea."""
    offenders = []
    for path in core_files():
        lines = path.read_text().splitlines()
        banners = sum(1 for line in lines if line.startswith("# ----"))
        if banners > 2 or len(lines) > 600:
            offenders.append(f"{path.relative_to(ROOT)}: {len(lines)} lines, {banners} banner sections")
    assert not offenders, offenders
