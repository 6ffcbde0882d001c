"""Every analyst notebook runs top to bottom on a simulated class, three ways.

- While this process holds the database open, as the running app does: DuckDB
  lets no other program open the file, so the notebooks (in their own kernel
  process) read the newest snapshot.
- When the file is free: they open the live file read-only.
- On PostgreSQL (the same class from the same seed): they read the live
  database, and their SQL gives what it gives on DuckDB.

blueprint_library generates items into a scratch database and only reads the
class's database: every table keeps its row count and the file its bytes.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
NAMES = [p.name for p in NOTEBOOKS]
READERS = {"analytics.ipynb", "item_quality.ipynb"}   # analyse a class's answers
GENERATES = "blueprint_library.ipynb"                 # generates items of its own, and reads a database's


def test_there_are_notebooks():
    assert NOTEBOOKS and READERS | {GENERATES} <= set(NAMES)


def build_class(target) -> None:
    """A simulated class (the same from the same seed on either backend) and a stored calibration."""
    from core.analytics.reports import run_calibration
    from core.blueprints.library import Library
    from core.demo.simulate import Simulation
    from core.store import Store
    store = Store(target)
    try:
        with store.single_threaded(), store.transaction():   # one commit: the class is built in less time
            Simulation(store, Library.load(exercise=False), seed=7).run(20, practice_sessions=2, questions=10,
                                                                         exams=1, lessons=1)
        run_calibration(store, "rasch", "auto")
        if store.backend == "duckdb":
            store.publish_snapshot()
    finally:
        store.close()


@pytest.fixture(scope="module")
def simulated_class(tmp_path_factory) -> Path:
    """A closed DuckDB file with the class and a published snapshot."""
    path = tmp_path_factory.mktemp("class") / "class.duckdb"
    build_class(path)
    return path


@pytest.fixture(scope="module")
def simulated_class_pg(pg_cluster, pg_template) -> str:
    """The same class in a PostgreSQL database of its own (skipped, saying why, where no server can run)."""
    url = pg_cluster.create_database(template=pg_template)
    build_class(url)
    yield url
    pg_cluster.drop_database(url)


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


def row_counts(store) -> dict[str, int]:
    """Rows in every table of the database (DuckDB or PostgreSQL)."""
    tables = [r[0] for r in store.query("SELECT table_name FROM information_schema.tables WHERE table_schema = "
                                        "current_schema() AND table_type = 'BASE TABLE' ORDER BY table_name")]
    return {t: store.query(f'SELECT count(*) FROM "{t}"')[0][0] for t in tables}


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_contents(name: str, text: str) -> None:
    if name == "analytics.ipynb":
        assert "rasch by auto" in text and "students on" in text
    elif name == "item_quality.ipynb":
        assert "blueprint_id" in text and "suggestion" in text
    else:
        assert "opened the live database" in text and "scratch.duckdb" in text     # the batch went to scratch
        assert "skills have stored items" in text                                     # the class's items were read


@pytest.mark.parametrize("name", NAMES)
def test_notebook_reads_the_snapshot_while_the_app_holds_the_database(name, simulated_class, monkeypatch):
    from core.store import Store
    holder = Store(simulated_class)        # this process holds the file, as the running app does
    try:
        before = row_counts(holder)
        monkeypatch.setenv("WORKBENCH_DB", str(simulated_class))
        text = outputs_text(run(ROOT / "notebooks" / name))
        assert "the live database is in use, so opened snapshot" in text
        check_contents(name, text)
        assert row_counts(holder) == before
    finally:
        holder.close()


@pytest.mark.parametrize("name", NAMES)
def test_notebook_reads_the_live_file_when_it_is_free(name, simulated_class, monkeypatch):
    from core.store import Store
    reader = Store(simulated_class, read_only=True)
    before = row_counts(reader)
    reader.close()
    bytes_before = digest(simulated_class)
    monkeypatch.setenv("WORKBENCH_DB", str(simulated_class))
    text = outputs_text(run(ROOT / "notebooks" / name))
    assert f"opened the live database {simulated_class} read-only" in text
    assert "so opened snapshot" not in text
    check_contents(name, text)
    reader = Store(simulated_class, read_only=True)
    try:
        assert row_counts(reader) == before
    finally:
        reader.close()
    assert digest(simulated_class) == bytes_before
    assert not Path(str(simulated_class) + ".wal").exists()


def sql_cells(nb) -> list[tuple[str, str]]:
    """(source, shown table) of each cell that is one query through ``handle.sql``."""
    return [(cell.source, str(out.get("data", {}).get("text/plain", ""))) for cell in nb.cells
            if cell.cell_type == "code" and cell.source.startswith("handle.sql(")
            for out in cell.get("outputs", []) if out.get("output_type") == "execute_result"]


@pytest.mark.parametrize("name", NAMES)
def test_notebook_reads_the_live_postgresql_database(name, simulated_class_pg, simulated_class, monkeypatch):
    from core.store import Store, open_for_analysis
    reader = Store(simulated_class_pg, read_only=True, run_migrations=False)
    try:
        before = row_counts(reader)
    finally:
        reader.close()
    monkeypatch.setenv("WORKBENCH_DB", simulated_class_pg)
    nb = run(ROOT / "notebooks" / name)
    text = outputs_text(nb)
    assert "reading the live PostgreSQL database" in text and "wb-test-secret" not in text
    check_contents(name, text)
    # The notebook's SQL, unchanged, shows the same table on DuckDB (the same class from the same seed).
    duck = open_for_analysis(simulated_class)
    try:
        for source, shown in sql_cells(nb):
            assert repr(eval(source, {"handle": duck})) == shown      # noqa: S307 - the notebook's own cell
    finally:
        duck.close()
    reader = Store(simulated_class_pg, read_only=True, run_migrations=False)
    try:
        assert row_counts(reader) == before
    finally:
        reader.close()
