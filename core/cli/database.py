"""Database commands: init, snapshot, demo."""
from __future__ import annotations

import argparse
import sys

from core.cli.common import (EXIT_INVALID, CommandError, add_command, library, open_store, open_workbench,
                             print_json)


def cmd_init(args: argparse.Namespace) -> int:
    from core.items.banks import import_shipped_banks
    from core.store import repo
    from core.store.migrations import current_version
    store = open_store(args.db)  # first, so a busy database fails at once
    try:
        # Checked as the app checks it on opening (schema, formulas, cross-references); generating from every
        # difficulty level is `validate`'s work, which would make every init take half a minute.
        lib = library(exercise=False)
        if not lib.report.ok:
            first = lib.report.errors()[0]
            raise CommandError(f"the blueprint library has errors, first: {first}", EXIT_INVALID)
        new = repo.sync_blueprints(store, lib.all_loaded())
        banks = import_shipped_banks(store)
        version = current_version(store.cursor())
        counts = repo.count_blueprints(store)
    finally:
        store.close()
    result = {"db": store.label, "schema_version": version, "new_blueprint_versions": new, "blueprints": counts,
              "bank_questions_imported": banks}
    if args.json:
        print_json(result)
    else:
        print(f"{store.label}: schema v{version}, {new} new blueprint version(s); "
              + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    return 0


def cmd_snapshot(args: argparse.Namespace) -> int:
    store = open_workbench(args.db).store
    try:
        path = store.publish_snapshot()
    finally:
        store.close()
    if args.json:
        print_json({"snapshot": str(path)})
    else:
        print(f"published {path}")
    return 0


def _day(value) -> str | None:
    return value.date().isoformat() if value is not None else None


def cmd_demo(args: argparse.Namespace) -> int:
    from core.demo.classroom import ensure_demo, reset_demo
    from core.store import school, sessions
    wb = open_workbench(args.db)
    store = wb.store
    try:
        if not args.json and (args.reset or not school.list_classes(store)):
            print("simulating the demo class's history (a few seconds)...", file=sys.stderr, flush=True)
        if args.reset:
            reset_demo(store, wb.library)
            created = False
        else:
            created = ensure_demo(store, wb.library)
        demo = [c for c in school.list_classes(store) if c.get("demo")]
        if not demo:
            raise CommandError(f"{store.label} already has classes and the demo is only added to a database "
                               f"without any; pass --db with a new file for the demo")
        cls = demo[0]
        activity = sessions.class_activity(store, cls["code"])
    finally:
        store.close()
    result = {"db": store.label, "class_code": cls["code"], "class_name": cls["name"], "created": created,
              "reset": args.reset, "students": activity["students"], "sessions": activity["sessions"],
              "first_activity": _day(activity["first_activity"]), "last_activity": _day(activity["last_activity"])}
    if args.json:
        print_json(result)
    else:
        how = "built" if created else ("reset" if args.reset else "already there (--reset simulates it afresh)")
        kinds = ", ".join(f"{n} {kind}" for kind, n in activity["sessions"].items()) or "none"
        print(f"demo class {cls['code']} in {store.label}: {how}; {activity['students']} students; "
              f"sessions: {kinds}; activity from {result['first_activity']} to {result['last_activity']}")
    return 0


def cmd_migrate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from core.store import Store
    from core.store.db import db_target, is_database_url
    from core.store.transfer import copy_database
    source_target, target = db_target(args.source), db_target(args.to)
    if not is_database_url(source_target) and not Path(source_target).is_file():
        raise CommandError(f"--from {source_target}: no such database file; name the school's DuckDB file "
                           f"(or a snapshot of it)")
    if str(source_target) == str(target):
        raise CommandError("--from and --to name the same database; name an empty one with --to")
    source = Store(source_target)
    try:
        dest = Store(target)
        try:
            def progress(table: str, rows: int) -> None:
                if not args.json:
                    print(f"  {table}: {rows} rows", file=sys.stderr, flush=True)
            report = copy_database(source, dest, progress)
            labels = (source.label, dest.label)
        finally:
            dest.close()
    finally:
        source.close()
    ok = all(t.ok for t in report)
    result = {"from": labels[0], "to": labels[1], "ok": ok,
              "tables": {t.table: {"source_rows": t.source_rows, "target_rows": t.target_rows,
                                   "rows_sampled": t.sampled, "mismatches": t.mismatches} for t in report}}
    if args.json:
        print_json(result)
    else:
        rows = sum(t.target_rows for t in report)
        print(f"moved {rows} rows in {len(report)} tables from {labels[0]} to {labels[1]}; "
              + ("row counts and sampled rows match" if ok else "CHECK FAILED: "
                 + "; ".join(f"{t.table}: {t.source_rows} -> {t.target_rows} rows {' '.join(t.mismatches)}"
                             for t in report if not t.ok)))
    return 0 if ok else EXIT_INVALID


def add_parsers(sub) -> None:
    add_command(sub, "init", "Create or upgrade the database and store the shipped blueprints.", cmd_init, db=True)
    add_command(sub, "snapshot", "Publish a read-only snapshot of the database for analysis.", cmd_snapshot, db=True)
    p = add_command(sub, "demo", "Build the demo class with simulated history, as the app does on first run, "
                    "and summarise it.", cmd_demo, db=True)
    p.add_argument("--reset", action="store_true", help="throw away the demo students' history and simulate it afresh")
    p = add_command(sub, "migrate", "Move a school's data into another database (a DuckDB file into PostgreSQL, or "
                    "back), checked by row counts and a sample of rows.", cmd_migrate,
                    more="The target must be empty; stop the app first (DuckDB lets one program open the file).")
    p.add_argument("--from", dest="source", required=True, help="the database to copy: a DuckDB file or a postgresql:// URL")
    p.add_argument("--to", required=True, help="the empty database to fill: a postgresql:// URL or a new DuckDB file")
