"""One handle on everything a process needs: the store and the blueprint library."""
from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Optional, Union

from core.blueprints.library import Library
from core.items.banks import import_shipped_banks
from core.store import Store
from core.store import repo


@dataclasses.dataclass
class Workbench:
    store: Store
    library: Library
    new_blueprint_versions: int

    def summary(self) -> dict:
        lib = self.library
        return {
            "database": str(self.store.path),
            "skills": len(lib.generators),
            "assessments": len(lib.assessments),
            "course_specs": len(lib.specs),
            "library_errors": len(lib.report.errors()),
            "items": repo.count_items(self.store),
        }


def open_workbench(db_path: Union[str, Path, None] = None, blueprints: Union[str, Path, None] = None,
                   snapshot_interval_s: Optional[float] = None) -> Workbench:
    """Open (creating on first run) the database and store the library's blueprints.

    Blueprint versions are kept by content hash, so opening again stores only
    what changed on disk since the last run.
    """
    # The file first: a database held by another program is reported before the library's load is spent.
    store = Store(db_path)
    # Compile-only: starting the app stays quick; levels are exercised by `workbench validate`
    # and by the Blueprints page, and a level that fails at generation says so when used.
    try:
        library = Library.load(blueprints, exercise=False)
    except BaseException:
        store.close()
        raise
    new = repo.sync_blueprints(store, library.all_loaded())
    import_shipped_banks(store)
    if snapshot_interval_s:
        store.start_periodic_snapshots(snapshot_interval_s)
    return Workbench(store=store, library=library, new_blueprint_versions=new)
