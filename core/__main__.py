"""Command line: `python -m core --help`.

Every command prints JSON on stdout with --json, exits 0 on success, and on
bad input exits non-zero with one line on stderr.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any, Optional

EXIT_INVALID = 1   # validation found errors
EXIT_USAGE = 2     # bad arguments or input


class CommandError(Exception):
    """A user mistake: printed as one line on stderr."""

    def __init__(self, message: str, code: int = EXIT_USAGE):
        super().__init__(message)
        self.code = code


def _print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, default=str, ensure_ascii=False)
    sys.stdout.write("\n")


def _library(exercise: bool = False):
    """The shipped library; commands that only read it skip generating from every level."""
    from core.blueprints.library import Library
    return Library.load(exercise=exercise)


def _open_store(path: Optional[str]):
    from core.store import Store
    return Store(path)


# --------------------------------------------------------------------------


def cmd_validate(args: argparse.Namespace) -> int:
    from core.blueprints.library import Library
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise CommandError(f"no such file or folder: {missing[0]}")
    context = Library.load(exercise=False) if not args.standalone else None
    lib = Library.load(args.paths, context=context)
    report = lib.report
    if not report.files:
        raise CommandError(f"no .yaml or .yml files found in {', '.join(args.paths)}")
    if args.json:
        _print_json(report.as_dict())
    else:
        for file, issues in report.files.items():
            errors = [i for i in issues if i.severity == "error"]
            print(f"{'FAIL' if errors else 'OK  '} {file}")
            for issue in issues:
                print(f"  {issue}")
        bad = sum(1 for issues in report.files.values() if any(i.severity == "error" for i in issues))
        print(f"{len(report.files)} file(s), {bad} with errors")
    return 0 if report.ok else EXIT_INVALID


def cmd_generate(args: argparse.Namespace) -> int:
    from core.blueprints.library import LibraryError
    from core.items.sampler import GenerationError
    if args.n < 1 or args.n > 100_000:
        raise CommandError("--n must be between 1 and 100000")
    lib = _library()
    try:
        gen = lib.generator(args.skill_id)
        levels = list(gen.cs.levels)
        if args.difficulty not in levels:
            raise CommandError(f"{args.skill_id} has no difficulty level '{args.difficulty}'; levels: {', '.join(levels)}")
        batch = gen.batch(args.difficulty, args.n, args.seed, unique=not args.allow_repeats)
    except LibraryError as exc:
        raise CommandError(str(exc)) from None
    except GenerationError as exc:
        raise CommandError(str(exc)) from None
    stored = None
    if args.db:
        from core.store import repo
        store = _open_store(args.db)
        try:
            repo.sync_blueprints(store, [lib.skills[args.skill_id]])
            stored = repo.insert_items(store, batch.items, status="draft")
        finally:
            store.close()
    if args.json:
        _print_json({"skill_id": args.skill_id, "difficulty": args.difficulty, "seed": args.seed,
                     "count": len(batch.items), "exhausted": batch.exhausted, "duplicates": batch.duplicates,
                     "stored": stored, "items": [it.to_dict() for it in batch.items]})
    else:
        for it in batch.items:
            print(f"[{it.id}] {it.stem}")
            for k, opt in enumerate(it.options):
                mark = "*" if k == it.correct_index else " "
                print(f"   {mark} {chr(65 + k)}. {opt}")
            if not it.options:
                print(f"   answer: {it.correct_answer}")
        if batch.exhausted:
            print(f"note: level '{args.difficulty}' ran out of distinct items; {batch.duplicates} repeat(s)")
        if stored is not None:
            print(f"stored {stored} new draft item(s) in {args.db}")
    return 0


def cmd_variants(args: argparse.Namespace) -> int:
    from core.blueprints.library import LibraryError
    lib = _library()
    try:
        gen = lib.generator(args.skill_id)
    except LibraryError as exc:
        raise CommandError(str(exc)) from None
    rows = [gen.variants(level) for level in gen.cs.levels]
    if args.json:
        _print_json({"skill_id": args.skill_id, "levels": rows})
    else:
        for r in rows:
            approx = "" if r["exact"] else "about "
            print(f"{r['level']:>10}: {approx}{r['parameter_combinations']:,} distinct items "
                  f"(x{r['stem_templates']} stem wordings)")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    lib = _library()
    rows = []
    for lb in lib.all_loaded():
        m = lb.model
        row = {"kind": lb.kind, "id": lb.id, "version": lb.version, "file": lb.file}
        if lb.kind == "skill":
            row.update(subject=m.metadata.subject, level=m.metadata.level, domain=m.metadata.domain,
                       item_type=m.generation.item_type, levels=list(m.generation.difficulty_levels),
                       outcome_ids=m.metadata.outcome_ids)
        elif lb.kind == "spec":
            row.update(subject=m.subject, level=m.level, total_marks=m.total_marks)
        rows.append(row)
    if args.kind:
        rows = [r for r in rows if r["kind"] == args.kind]
    if args.json:
        _print_json(rows)
    else:
        for r in rows:
            extra = f" {r.get('subject') or ''} {r.get('level') or ''}".rstrip()
            print(f"{r['kind']:<10} {r['id']:<40}{extra}")
    return 0


def cmd_init(args: argparse.Namespace) -> int:
    from core.store import repo
    from core.store.migrations import current_version
    store = _open_store(args.db)  # first, so a busy database fails at once
    try:
        lib = _library(exercise=True)
        if not lib.report.ok:
            first = lib.report.errors()[0]
            raise CommandError(f"the blueprint library has errors, first: {first}", EXIT_INVALID)
        new = repo.sync_blueprints(store, lib.all_loaded())
        version = current_version(store.cursor())
        counts = repo.count_blueprints(store)
    finally:
        store.close()
    result = {"db": str(store.path), "schema_version": version, "new_blueprint_versions": new, "blueprints": counts}
    if args.json:
        _print_json(result)
    else:
        print(f"{store.path}: schema v{version}, {new} new blueprint version(s); "
              + ", ".join(f"{n} {k}" for k, n in sorted(counts.items())))
    return 0


def cmd_snapshot(args: argparse.Namespace) -> int:
    store = _open_store(args.db)
    try:
        path = store.publish_snapshot()
    finally:
        store.close()
    if args.json:
        _print_json({"snapshot": str(path)})
    else:
        print(f"published {path}")
    return 0


# --------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m core", description="Teacher workbench command line.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help_: str, fn, db: bool = False) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        p.add_argument("--json", action="store_true", help="print JSON on stdout")
        if db:
            p.add_argument("--db", default=None, help="DuckDB file (default: data/workbench.duckdb or $WORKBENCH_DB)")
        p.set_defaults(func=fn)
        return p

    p = add("validate", "Validate blueprint files or folders; exit 1 if any file has errors.", cmd_validate)
    p.add_argument("paths", nargs="+", metavar="PATH", help="YAML files or folders")
    p.add_argument("--standalone", action="store_true",
                   help="check cross-references only among the given files, not against the shipped library")

    p = add("generate", "Generate items from a skill blueprint (with answer keys: a teacher tool).", cmd_generate)
    p.add_argument("skill_id", metavar="SKILL_ID")
    p.add_argument("--difficulty", required=True, metavar="LEVEL", help="difficulty level, e.g. easy")
    p.add_argument("--n", type=int, default=1, help="number of items (default 1)")
    p.add_argument("--seed", default="0", help="seed; the same seed gives the same items")
    p.add_argument("--db", default=None, help="store the items as drafts in this DuckDB file (otherwise nothing is written)")
    p.add_argument("--allow-repeats", action="store_true", help="draw independently instead of avoiding repeats")

    p = add("variants", "Count the distinct items each difficulty level can produce.", cmd_variants)
    p.add_argument("skill_id", metavar="SKILL_ID")

    p = add("list", "List the blueprints in the library.", cmd_list)
    p.add_argument("--kind", choices=["skill", "assessment", "spec"])

    add("init", "Create or upgrade the database and store the shipped blueprints.", cmd_init, db=True)
    add("snapshot", "Publish a read-only snapshot of the database for analysis.", cmd_snapshot, db=True)
    return parser


def main(argv: Optional[list[str]] = None) -> int:
    from core.store import StoreError
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
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
