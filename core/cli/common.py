"""What every command shares: errors and exit codes, JSON printing, the library and the database."""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable, Optional

EXIT_INVALID = 1   # validation found errors
EXIT_USAGE = 2     # bad arguments or input

DB_HELP = ("DuckDB file, or a PostgreSQL database as postgresql://USER:PASS@HOST:PORT/DBNAME (default: "
           "$WORKBENCH_DB, else data/workbench.duckdb in the project); created with the shipped blueprints on first use")


class CommandError(Exception):
    """A user mistake: printed as one line on stderr."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, default=str, ensure_ascii=False)
    sys.stdout.write("\n")


def library(exercise: bool = False):
    """The shipped library; commands that only read it skip generating from every level."""
    from core.blueprints.library import Library
    return Library.load(exercise=exercise)


def open_store(path: Optional[str]):
    """The bare store (no blueprints synced): for commands that manage the file itself."""
    from core.store import Store
    return Store(path)


def open_workbench(path: Optional[str]):
    """Store and library, the database created and given the blueprints on first use, as the app does."""
    from core.workbench import open_workbench as open_
    return open_(path)


def add_command(sub, name: str, help_: str, fn: Callable[[argparse.Namespace], int],
                db: bool = False, more: str = "") -> argparse.ArgumentParser:
    p = sub.add_parser(name, help=help_, description=f"{help_} {more}".strip())
    p.add_argument("--json", action="store_true", help="print JSON on stdout")
    if db:
        p.add_argument("--db", default=None, help=DB_HELP)
    p.set_defaults(func=fn)
    return p
