"""Command line: `workbench --help` (or `python -m core --help`).

Every command prints JSON on stdout with --json, exits 0 on success, and on
bad input exits non-zero with one line on stderr.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Optional

from core.cli import analytics, database, exams, interop, library, llm, marking, sessions
from core.cli.common import EXIT_INVALID, EXIT_USAGE, CommandError

__all__ = ["EXIT_INVALID", "EXIT_USAGE", "CommandError", "build_parser", "main"]

# In the order `--help` lists them.
GROUPS = [library, marking, sessions, exams, interop, llm, analytics, database]


def _prog() -> str:
    return "python -m core" if Path(sys.argv[0]).name == "__main__.py" else "workbench"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=_prog(), description="Teacher workbench command line.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in GROUPS:
        group.add_parsers(sub)
    return parser


def main(argv: Optional[list[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        parser.print_help()
        return EXIT_USAGE
    try:
        return args.func(args)
    except CommandError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return exc.code
    except BrokenPipeError:
        return 0
    except Exception as exc:
        message = _storage_message(exc, getattr(args, "db", None))
        if message is None:
            raise  # not the database or the disk: a bug, with its traceback
        print(f"error: {message}", file=sys.stderr)
        return EXIT_USAGE


def _storage_message(exc: Exception, db: Optional[str]) -> Optional[str]:
    """The one line for a database or disk failure; None for anything else. The store is looked at only when
    the command loaded it (or the disk failed), so commands that need no database never load an engine."""
    if "core.store.db" not in sys.modules and not isinstance(exc, OSError):
        return None
    from core.store.db import ENGINE_ERRORS, StoreError, problem_kind, storage_error
    if isinstance(exc, StoreError):
        return str(exc)
    if isinstance(exc, ENGINE_ERRORS) or (isinstance(exc, OSError) and problem_kind(exc) not in (None, "conflict")):
        return str(storage_error(exc, db))
    return None
