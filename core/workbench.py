"""One handle on everything a process needs: the store and the blueprint library."""
from __future__ import annotations

import dataclasses
import threading
from pathlib import Path
from typing import Optional, Union

from core.analytics import snapshots
from core.blueprints.library import Library
from core.items.banks import import_shipped_banks
from core.items.review import withdraw_unmarkable
from core.store import Store
from core.store import data_checks, repo

# Once per database: approved items whose key the marker cannot read or does not accept are withdrawn.
UNMARKABLE_KEYS_CHECK = "withdraw approved items whose key cannot be marked"


@dataclasses.dataclass
class Workbench:
    store: Store
    library: Library
    new_blueprint_versions: int
    withdrawn_items: list[dict] = dataclasses.field(default_factory=list)   # [{id, reason}] withdrawn on this open
    start_snapshot: Optional[threading.Thread] = None   # the snapshot published in the background on this open

    def summary(self) -> dict:
        lib = self.library
        return {
            "database": self.store.label,
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
    what changed on disk since the last run. With ``snapshot_interval_s`` (the
    app) a DuckDB database gets a snapshot for notebooks now, in the background,
    then every ``snapshot_interval_s`` seconds after changes.
    """
    # The file first: a database held by another program is reported before the library's load is spent.
    store = Store(db_path)
    # Compile-only: starting the app stays quick; levels are exercised by `workbench validate`
    # and by the Blueprints page, and a level that fails at generation says so when used.
    try:
        library = Library.load(blueprints, exercise=False)
        # Several app servers on one PostgreSQL database may start together: one at a time stores what is new,
        # and the next finds it stored.
        with store.exclusive("workbench first writes"):
            new = repo.sync_blueprints(store, library.all_loaded())
            # Before the shipped banks: on a new database there is nothing approved yet, so the check costs nothing.
            withdrawn = withdraw_unmarkable_once(store)
            import_shipped_banks(store)
    except BaseException:
        store.close()   # let go of the file, or of the server's connections
        raise
    start_snapshot = None
    if snapshot_interval_s and snapshots.publishes_snapshots(store):
        start_snapshot = snapshots.publish_at_start(store)   # after this open's own writes, so they are in it
        store.start_periodic_snapshots(snapshot_interval_s)
    return Workbench(store=store, library=library, new_blueprint_versions=new, withdrawn_items=withdrawn,
                     start_snapshot=start_snapshot)


def withdraw_unmarkable_once(store: Store) -> list[dict]:
    """Withdraw approved items whose key cannot be marked, the first time a database is opened for it.

    Returns [{id, reason}] for what was withdrawn now; [] once the check has run.
    Every path into "approved" checks keys from then on; a later sweep (say,
    after the marker changes) is a check with another name.
    """
    if data_checks.check_done(store, UNMARKABLE_KEYS_CHECK):
        return []
    withdrawn = withdraw_unmarkable(store)
    data_checks.record_check(store, UNMARKABLE_KEYS_CHECK, {"withdrawn": withdrawn})
    return withdrawn
