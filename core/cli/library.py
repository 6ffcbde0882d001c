"""Blueprint library commands: validate, generate, variants, list."""
from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.common import EXIT_INVALID, CommandError, add_command, library, open_store, print_json


def cmd_validate(args: argparse.Namespace) -> int:
    from core.blueprints.library import Library
    missing = [p for p in args.paths if not Path(p).exists()]
    if missing:
        raise CommandError(f"no such file or folder: {missing[0]}")
    context = Library.load(exercise=False) if not args.standalone else None
    lib = Library.load(args.paths, context=context)
    report = lib.report
    _validate_surveys(args.paths, report)
    if not report.files:
        raise CommandError(f"no .yaml or .yml files found in {', '.join(args.paths)}")
    if args.json:
        print_json(report.as_dict())
    else:
        for file, issues in report.files.items():
            errors = [i for i in issues if i.severity == "error"]
            print(f"{'FAIL' if errors else 'OK  '} {file}")
            for issue in issues:
                print(f"  {issue}")
        bad = sum(1 for issues in report.files.values() if any(i.severity == "error" for i in issues))
        print(f"{len(report.files)} file(s), {bad} with errors")
    return 0 if report.ok else EXIT_INVALID


def _validate_surveys(paths: list[str], report) -> None:
    """Survey definitions sit under blueprints/surveys/; the survey flow's loader checks them."""
    from core.blueprints.library import SURVEY_FOLDER
    from core.blueprints.loader import BlueprintError, Issue, check_yaml_text, read_text, yaml_files
    from core.flows.survey import MAX_FILE_BYTES, SurveyError, load_survey_file
    for path in yaml_files(paths):
        if SURVEY_FOLDER not in path.parts:
            continue
        issues = report.files.setdefault(str(path), [])
        try:
            # The same guards as a blueprint's (size, depth, aliases) before the survey loader builds anything.
            check_yaml_text(read_text(path), str(path), MAX_FILE_BYTES)
        except BlueprintError as exc:
            issues.extend(exc.issues)
            continue
        try:
            load_survey_file(path)
        except SurveyError as exc:
            issues.append(Issue(exc.file, exc.line, exc.field, exc.problem))


def cmd_generate(args: argparse.Namespace) -> int:
    if args.n < 1 or args.n > 100_000:
        raise CommandError("--n must be between 1 and 100000")
    store = open_store(args.db) if args.db else None  # first, so a busy database fails at once
    try:
        return _generate(args, store)
    finally:
        if store is not None:
            store.close()


def _generate(args: argparse.Namespace, store) -> int:
    from core.blueprints.library import LibraryError
    from core.items.sampler import GenerationError
    lib = library()
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
    if store is not None:
        from core.store import repo
        repo.sync_blueprints(store, [lib.skills[args.skill_id]])
        stored = repo.insert_items(store, batch.items, status="draft")
    if args.json:
        print_json({"skill_id": args.skill_id, "difficulty": args.difficulty, "seed": args.seed,
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
            print(f"stored {stored} new draft item(s) in {store.label}")
    return 0


def cmd_variants(args: argparse.Namespace) -> int:
    from core.blueprints.library import LibraryError
    lib = library()
    try:
        gen = lib.generator(args.skill_id)
    except LibraryError as exc:
        raise CommandError(str(exc)) from None
    from core.items.sampler import GenerationError
    try:
        rows = [gen.variants(level) for level in gen.cs.levels]
    except GenerationError as exc:
        raise CommandError(str(exc)) from None
    if args.json:
        print_json({"skill_id": args.skill_id, "levels": rows})
    else:
        for r in rows:
            approx = "" if r["exact"] else "about "
            print(f"{r['level']:>10}: {approx}{r['parameter_combinations']:,} distinct items "
                  f"(x{r['stem_templates']} stem wordings)")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    lib = library()
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
        print_json(rows)
    else:
        for r in rows:
            extra = f" {r.get('subject') or ''} {r.get('level') or ''}".rstrip()
            print(f"{r['kind']:<10} {r['id']:<40}{extra}")
    return 0


def add_parsers(sub) -> None:
    p = add_command(sub, "validate", "Validate blueprint files or folders; exit 1 if any file has errors.", cmd_validate)
    p.add_argument("paths", nargs="+", metavar="PATH", help="YAML files or folders")
    p.add_argument("--standalone", action="store_true",
                   help="check cross-references only among the given files, not against the shipped library")

    p = add_command(sub, "generate", "Generate items from a skill blueprint (with answer keys: a teacher tool).",
                    cmd_generate)
    p.add_argument("skill_id", metavar="SKILL_ID")
    p.add_argument("--difficulty", required=True, metavar="LEVEL", help="difficulty level, e.g. easy")
    p.add_argument("--n", type=int, default=1, help="number of items (default 1)")
    p.add_argument("--seed", default="0", help="seed; the same seed gives the same items")
    p.add_argument("--db", default=None, help="store the items as drafts in this database, a DuckDB file or a "
                   "postgresql:// URL (otherwise nothing is written)")
    p.add_argument("--allow-repeats", action="store_true", help="draw independently instead of avoiding repeats")

    p = add_command(sub, "variants", "Count the distinct items each difficulty level can produce.", cmd_variants)
    p.add_argument("skill_id", metavar="SKILL_ID")

    p = add_command(sub, "list", "List the blueprints in the library.", cmd_list)
    p.add_argument("--kind", choices=["skill", "assessment", "spec"])
