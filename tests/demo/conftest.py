"""Fixtures the demo tests share: the library as the app loads it, and fresh databases like a first start's."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from core.store import Store, repo


@pytest.fixture(scope="session")
def app_library():
    """The shipped library compiled only, as open_workbench loads it (the demo draws from it as the app does)."""
    from core.blueprints.library import Library
    return Library.load(exercise=False)


def first_start(path: Path, library) -> Store:
    """What open_workbench leaves in a new file (blueprints and the shipped banks), without loading the library again."""
    from core.workbench import import_shipped_banks
    store = Store(path)
    repo.sync_blueprints(store, library.all_loaded())
    import_shipped_banks(store)
    return store


@pytest.fixture(scope="session")
def built(tmp_path_factory, app_library):
    """A first start's database with the demo built, and the UTC dates the build ran between."""
    from core.demo.classroom import ensure_demo
    store = first_start(tmp_path_factory.mktemp("demo") / "workbench.duckdb", app_library)
    before = utc_now()
    assert ensure_demo(store, app_library)
    yield store, before, utc_now()
    store.close()


def utc_now() -> dt.datetime:
    """Now in UTC without a zone, as the database stores times."""
    return dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
