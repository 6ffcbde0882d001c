"""Shared fixtures: the shipped library (loaded once) and temporary databases."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# The app's periodic snapshot thread would outlive each AppTest; tests publish snapshots explicitly.
os.environ.setdefault("WORKBENCH_SNAPSHOT_INTERVAL", "0")
# AppTest never reruns a page on a timer, so a page waits for its background job (validating, generating,
# calibrating) until the job ends; tests of the page following a job set this to 0.
os.environ.setdefault("WORKBENCH_JOB_WAIT", "120")
# Warming up every skill's sampling at each database opened costs seconds of CPU; the suite opens many.
os.environ.setdefault("WORKBENCH_WARM_UP", "0")
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


@pytest.fixture(scope="session")
def library():
    """The shipped library as the app loads it: compiled, each level's sampling prepared when first used.
    Generating from every level at load (``workbench validate``) is tested by tests/cli/test_cli.py and by
    tests/items/test_generation.py::test_every_level_of_every_blueprint; doing it again here cost each test
    process half a minute."""
    from core.blueprints.library import Library
    return Library.load(exercise=False)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "workbench.duckdb"


# --- PostgreSQL: one throwaway cluster per test process, a fresh database per test ------------------------
BACKENDS = ["duckdb", "postgresql"]


@pytest.fixture(scope="session")
def pg_cluster():
    """A running PostgreSQL cluster, or a skip saying why there is none (CI always has one: .ci/run installs it)."""
    from tests.pg_cluster import start_cluster, unavailable_reason
    reason = unavailable_reason()
    if reason is not None:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL tests cannot run in CI: {reason}")
        pytest.skip(f"PostgreSQL tests skipped: {reason}")
    cluster = start_cluster()
    yield cluster
    cluster.stop()


@pytest.fixture(scope="session")
def pg_template(pg_cluster) -> str:
    """The name of a database with every migration applied, copied for each test (far quicker than migrating)."""
    from core.store import Store
    url = pg_cluster.create_database(prefix="template")
    Store(url).close()
    return url.rsplit("/", 1)[1]


@pytest.fixture
def pg_url(pg_cluster, pg_template) -> str:
    """A fresh, migrated PostgreSQL database of its own for one test; dropped after it."""
    url = pg_cluster.create_database(template=pg_template)
    yield url
    pg_cluster.drop_database(url)


def backend_target(request, tmp_path: Path):
    """``db_path`` for a test parametrised over BACKENDS: a DuckDB file, or a PostgreSQL URL.

    Tests marked ``duckdb_only`` (files, locks, snapshots) run on the file alone.
    """
    if request.param == "duckdb":
        return tmp_path / "workbench.duckdb"
    if request.node.get_closest_marker("duckdb_only"):
        pytest.skip("about the DuckDB file itself")
    return request.getfixturevalue("pg_url")


@pytest.fixture(params=BACKENDS)
def store(request, tmp_path):
    """A fresh store on each engine: a DuckDB file in the test's temp dir, and a PostgreSQL database of its own."""
    from core.store import Store
    s = Store(backend_target(request, tmp_path))
    yield s
    s.close()


def pytest_configure(config):
    config.addinivalue_line("markers", "duckdb_only: a test of the DuckDB file itself (locks, snapshots, damage)")


def pytest_sessionfinish(session, exitstatus):
    """Close DuckDB connections still open (cached app resources) so the run ends cleanly."""
    import gc

    import duckdb
    gc.collect()
    for obj in gc.get_objects():
        if isinstance(obj, duckdb.DuckDBPyConnection):
            try:
                obj.close()
            except duckdb.Error:
                pass  # already closed
    gc.collect()
