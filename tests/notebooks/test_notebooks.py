"""Every analyst notebook runs top to bottom.

The analytics notebooks read a simulated class while this process holds the
database open, as the running app would, so they go through the snapshot.
"""
from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
READERS = {"analytics.ipynb", "item_quality.ipynb"}   # read a class's data; the others build their own


def test_there_are_notebooks():
    assert NOTEBOOKS and READERS <= {p.name for p in NOTEBOOKS}


@pytest.fixture(scope="module")
def simulated_class(tmp_path_factory):
    """A database with a simulated class and a stored calibration, held open like the app holds it."""
    from core.analytics.reports import run_calibration
    from core.blueprints.library import Library
    from core.demo.simulate import Simulation
    from core.store import Store
    path = tmp_path_factory.mktemp("class") / "class.duckdb"
    store = Store(path)
    Simulation(store, Library.load(exercise=False), seed=7).run(30, practice_sessions=2, questions=10, exams=1,
                                                                 lessons=1)
    run_calibration(store, "rasch", "auto")
    store.publish_snapshot()
    yield path
    store.close()


def run(path: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}})
    client.execute()
    errors = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors, [e.get("evalue") for e in errors]
    return nb


def outputs_text(nb) -> str:
    parts = []
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            parts.append(out.get("text", ""))
            parts.append(str(out.get("data", {}).get("text/plain", "")))
    return "\n".join(parts)


@pytest.mark.parametrize("path", [p for p in NOTEBOOKS if p.name not in READERS], ids=lambda p: p.name)
def test_notebook_runs(path: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(tmp_path / "notebook.duckdb"))
    run(path)
    assert (tmp_path / "notebook.duckdb").exists()


@pytest.mark.parametrize("name", sorted(READERS))
def test_analytics_notebook_runs_on_the_snapshot_while_the_app_holds_the_database(name, simulated_class, monkeypatch):
    monkeypatch.setenv("WORKBENCH_DB", str(simulated_class))
    nb = run(ROOT / "notebooks" / name)
    text = outputs_text(nb)
    assert "the live database is in use, so opened snapshot" in text
    if name == "analytics.ipynb":
        assert "rasch by auto" in text and "students on" in text
    else:
        assert "blueprint_id" in text and "suggestion" in text
