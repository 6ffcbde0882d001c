"""Command line: `python -m core --help`.

Every command prints JSON on stdout with --json, exits 0 on success, and on
bad input exits non-zero with one line on stderr.
"""
from __future__ import annotations

import argparse
import json
import sys
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
    _validate_surveys(args.paths, report)
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


def _validate_surveys(paths: list[str], report) -> None:
    """Survey definitions sit under blueprints/surveys/; the survey flow's loader checks them."""
    from core.blueprints.library import SURVEY_FOLDER
    from core.blueprints.loader import Issue, yaml_files
    from core.flows.survey import SurveyError, load_survey_file
    for path in yaml_files(paths):
        if SURVEY_FOLDER not in path.parts:
            continue
        issues = report.files.setdefault(str(path), [])
        try:
            load_survey_file(path)
        except SurveyError as exc:
            issues.append(Issue(exc.file, exc.line, exc.field, exc.problem))


def cmd_generate(args: argparse.Namespace) -> int:
    if args.n < 1 or args.n > 100_000:
        raise CommandError("--n must be between 1 and 100000")
    store = _open_store(args.db) if args.db else None  # first, so a busy database fails at once
    try:
        return _generate(args, store)
    finally:
        if store is not None:
            store.close()


def _generate(args: argparse.Namespace, store) -> int:
    from core.blueprints.library import LibraryError
    from core.items.sampler import GenerationError
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
    if store is not None:
        from core.store import repo
        repo.sync_blueprints(store, [lib.skills[args.skill_id]])
        stored = repo.insert_items(store, batch.items, status="draft")
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
    from core.items.sampler import GenerationError
    try:
        rows = [gen.variants(level) for level in gen.cs.levels]
    except GenerationError as exc:
        raise CommandError(str(exc)) from None
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
        from core.workbench import import_shipped_banks
        banks = import_shipped_banks(store)
        version = current_version(store.cursor())
        counts = repo.count_blueprints(store)
    finally:
        store.close()
    result = {"db": str(store.path), "schema_version": version, "new_blueprint_versions": new, "blueprints": counts,
              "bank_questions_imported": banks}
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


def cmd_mark(args: argparse.Namespace) -> int:
    from core.marking import MarkingSpec, mark_answer
    methods = {"exact_match": "string", "numeric_tolerance": "decimal", "algebraic_equivalence": "expression",
               "short_text": "string", "ip_address": "string", "cidr": "string"}
    if args.method not in methods:
        raise CommandError(f"unknown method '{args.method}'; methods: {', '.join(methods)}")
    if args.tolerance is not None and not 0 < args.tolerance < 1:
        raise CommandError("--tolerance is relative and must be between 0 and 1 (0.02 means 2%)")
    if args.absolute_tolerance is not None and args.absolute_tolerance <= 0:
        raise CommandError("--absolute-tolerance must be positive")
    spec = MarkingSpec(method=args.method, key=args.expected, answer_type=methods[args.method],
                       tolerance_relative=args.tolerance, tolerance_absolute=args.absolute_tolerance,
                       required_form=args.required_form, keywords=args.keyword or [], marks=args.marks)
    result = mark_answer(spec, args.answer)
    data = result.to_dict()
    if args.json:
        _print_json(data)
    else:
        verdict = "correct" if result.correct else ("refused" if result.refused else "wrong")
        print(f"{verdict}: {result.score:g}/{result.max_score:g}. {result.feedback}")
    return 0


def _runner(db: Optional[str]):
    """A session runner on the given database (or a throwaway one)."""
    import tempfile
    from core.flows.registry import make_runner
    store = _open_store(db or str(Path(tempfile.mkdtemp(prefix="workbench-")) / "scratch.duckdb"))
    return store, make_runner(store, _library())


def cmd_exam(args: argparse.Namespace) -> int:
    from core.flows.base import FlowError
    store, runner = _runner(args.db)
    try:
        try:
            sid = runner.start("exam", args.student, {"subject": args.subject, "level": args.level, "seed": args.seed})
        except FlowError as exc:
            raise CommandError(str(exc)) from None
        view = runner.view(sid)
    finally:
        store.close()
    package = view["exam"]
    if args.json:
        _print_json(package)
    else:
        print(f"{package['subject']} {package['level']}: {package['question_count']} questions, "
              f"{package['total_marks']} marks, {package['time_allowed_minutes']:g} minutes (session {sid})")
        for section in package["sections"]:
            print(f"\n{section['section']} ({section['marks']} marks)")
            for q in section["questions"]:
                print(f"  {q['number']:>2}. [{q['marks']}] {q['stem']}")
                for k, opt in enumerate(q["options"]):
                    print(f"        {chr(65 + k)}. {opt}")
    return 0


def _parse_args_kv(pairs: list[str]) -> dict:
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise CommandError(f"expected NAME=VALUE, got '{pair}'")
        name, value = pair.split("=", 1)
        try:
            out[name] = json.loads(value)
        except json.JSONDecodeError:
            out[name] = value
    return out


def cmd_session(args: argparse.Namespace) -> int:
    from core.flows.base import FlowError
    if not args.db:
        raise CommandError("sessions live in a database: pass --db PATH")
    store, runner = _runner(args.db)
    try:
        try:
            if args.action == "start":
                if not args.target:
                    raise CommandError("session start needs a KIND (practice, exam, ...)")
                config = _parse_args_kv(args.arg or [])
                student = config.pop("student", None) or args.student
                sid = runner.start(args.target, student, config)
                view = runner.view(sid)
            elif args.action == "view":
                view = runner.view(args.target)
            else:
                view = runner.command(args.target, args.command_name, **_parse_args_kv(args.arg or []))
        except FlowError as exc:
            raise CommandError(str(exc)) from None
        except TypeError as exc:
            raise CommandError(f"wrong arguments for this command: {exc}") from None
    finally:
        store.close()
    _print_json(view) if args.json else print(json.dumps(view, indent=2, default=str, ensure_ascii=False))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from core.flows.base import FlowError
    from core.demo.simulate import Simulation
    if not args.db:
        raise CommandError("simulate writes a class into a database: pass --db PATH")
    if not 1 <= args.students <= 10_000:
        raise CommandError("--students must be between 1 and 10000")
    store = _open_store(args.db)
    try:
        sim = Simulation(store, _library(), seed=args.seed, subject=args.subject, level=args.level)

        def progress(done: int, total: int) -> None:
            if not args.json:
                print(f"\r{done}/{total} students", end="", file=sys.stderr, flush=True)

        try:
            summary = sim.run(args.students, practice_sessions=args.practice, questions=args.questions,
                              exams=args.exams, lessons=args.lessons, progress=progress)
        except FlowError as exc:
            raise CommandError(str(exc)) from None
    finally:
        store.close()
    if not args.json:
        print(file=sys.stderr)
    if args.truth:
        Path(args.truth).write_text(json.dumps(summary, indent=2))
    result = {"db": args.db, "students": args.students, "sessions": summary["sessions"],
              "responses": summary["responses"], "truth": args.truth}
    if args.json:
        _print_json(result)
    else:
        print(f"simulated {args.students} students: {summary['sessions']} sessions, {summary['responses']} responses in {args.db}")
    return 0


def _llm_client(store):
    """The configured LLM client, or a CommandError carrying the sentence on how to turn LLM features on."""
    import os

    from core.llm import LLMClient, llm_status
    status = llm_status(None, os.environ, store)
    if not status.on:
        raise CommandError(status.message())
    return LLMClient(status.settings, store)


def cmd_llm_status(args: argparse.Namespace) -> int:
    import os

    from core.llm import ROLES, llm_status
    store = _open_store(args.db)
    try:
        status = llm_status(None, os.environ, store)
    finally:
        store.close()
    data = {"on": status.on, "origin": status.origin, "message": status.message(),
            "models": {role: status.settings.model_for(role) for role in ROLES} if status.settings else None}
    if args.json:
        _print_json(data)
    else:
        print(data["message"])
    return 0 if status.on else EXIT_USAGE


def _weights(text: Optional[str]) -> Optional[dict]:
    if not text:
        return None
    out = {}
    for part in text.split(","):
        name, _, value = part.partition("=")
        try:
            out[name.strip()] = float(value)
        except ValueError:
            raise CommandError(f"--weights takes name=number pairs such as easy=0.3,medium=0.5,hard=0.2, not {part!r}") from None
    return out


def cmd_pipeline(args: argparse.Namespace) -> int:
    from core.llm.pipeline import PipelineConfig, PipelineError, default_run_folder, run_pipeline, store_accepted
    values: dict = {"n": args.n, "seed": args.seed, "max_retries": args.retries}
    if args.prefix:
        values["schema_prefixes"] = args.prefix
    weights = _weights(args.weights)
    if weights:
        values["difficulty_weights"] = weights
    try:
        config = PipelineConfig.checked(**values)
    except PipelineError as exc:
        raise CommandError(str(exc)) from None
    store = _open_store(args.db)
    try:
        client = _llm_client(store)

        def progress(done: int, total: int, outcome) -> None:
            if not args.json:
                print(f"\r{done}/{total} questions", end="", file=sys.stderr, flush=True)

        try:
            result = run_pipeline(client, config, progress)
        except PipelineError as exc:
            raise CommandError(str(exc)) from None
        finally:
            client.close()
        if not args.json:
            print(file=sys.stderr)
        stored = store_accepted(store, result, args.level)
    finally:
        store.close()
    folder = result.export(args.out or default_run_folder())
    stats = result.stats()
    if args.json:
        _print_json({"exported_to": str(folder), "stored_drafts": stored, "stats": stats,
                     "rejected": [{"item": o.item, "schema_id": o.schema_id, "stage": o.stage, "reason": o.reason}
                                  for o in result.rejected]})
    else:
        print(f"{stats['accepted']} of {stats['items']} question(s) accepted; {stored} new draft(s) in the review "
              f"queue; files in {folder}")
        for o in result.rejected:
            print(f"  rejected #{o.item} ({o.schema_id}, {o.stage}): {o.reason}")
    return 0


def cmd_llm_items(args: argparse.Namespace) -> int:
    from core.blueprints.library import LibraryError
    from core.items.llm_items import generate_llm_batch, store_llm_items
    from core.items.sampler import GenerationError
    if not 1 <= args.n <= 1000:
        raise CommandError("--n must be between 1 and 1000")
    store = _open_store(args.db)
    try:
        client = _llm_client(store)
        try:
            gen = _library().generator(args.skill_id)
            verified: list = []
            items, rejected = generate_llm_batch(client, gen, args.difficulty, args.n, args.seed, verified=verified)
        except (LibraryError, GenerationError) as exc:
            raise CommandError(str(exc)) from None
        finally:
            client.close()
        from core.store import repo
        repo.sync_blueprints(store, [_library().skills[args.skill_id]])
        stored = store_llm_items(store, items, verified)
    finally:
        store.close()
    if args.json:
        _print_json({"skill_id": args.skill_id, "difficulty": args.difficulty, "verified": len(items),
                     "stored_drafts": stored, "rejected": [{"seed": r["seed"], "reason": r["reason"]} for r in rejected]})
    else:
        print(f"{len(items)} of {args.n} LLM item(s) verified; {stored} new draft(s) in the review queue")
        for r in rejected:
            print(f"  rejected ({r['seed']}): {r['reason']}")
    return 0


def _responses_csv(path: str):
    import pandas as pd
    if not Path(path).is_file():
        raise CommandError(f"no such file: {path}")
    try:
        frame = pd.read_csv(path, dtype={"student_id": str, "item_id": str})
    except (ValueError, OSError) as exc:
        raise CommandError(f"{path} is not a readable CSV file: {exc}") from None
    missing = [c for c in ("student_id", "item_id", "correct") if c not in frame.columns]
    if missing:
        raise CommandError(f"{path} needs the columns student_id,item_id,correct; it lacks {', '.join(missing)}")
    return frame.rename(columns={"student_id": "student"})


def cmd_calibrate(args: argparse.Namespace) -> int:
    from core.analytics.calibration import CalibrationError, calibrate
    if bool(args.responses) == bool(args.db):
        raise CommandError("give the responses as --responses FILE.csv or --db PATH (one of them)")
    store = None
    if args.responses:
        frame = _responses_csv(args.responses)
        if args.level in ("family", "skill") and args.level not in frame.columns:
            raise CommandError(f"--level {args.level} needs a '{args.level}' column in {args.responses} "
                               f"(each item's {args.level}); without it use --level item")
    else:
        from core.store import analytics
        store = _open_store(args.db)
        frame = analytics.responses(store)
    try:
        try:
            result = calibrate(frame, args.model, args.level, min_responses=args.min_responses)
        except CalibrationError as exc:
            raise CommandError(str(exc)) from None
        saved = None
        if store is not None:
            from core.store import analytics
            saved = analytics.save_calibration(store, result.run_record(), result.parameters, result.abilities)
    finally:
        if store is not None:
            store.close()
    table = result.parameters.rename(columns={"unit": args.level if args.level != "auto" else "unit"})
    if args.model == "rasch":
        table = table.drop(columns=["discrimination", "se_discrimination"])
    if args.out:
        table.to_csv(args.out, index=False)
    if args.abilities:
        result.abilities.to_csv(args.abilities, index=False)
    record = result.run_record()
    if args.json:
        _print_json({**record, "calibration_id": saved, "out": args.out, "abilities_out": args.abilities,
                     "units": table.astype(object).where(table.notna(), None).to_dict("records")
                     if not args.out else None})
    else:
        print(f"{args.model} calibration of {record['n_responses']} responses by {record['n_students']} students: "
              f"{record['n_units']} {args.level} unit(s) in {record['summary']['seconds']:.2f} s ({result.method})"
              + (f"; saved as {saved}" if saved else ""))
        if not args.out:
            print(table.to_string(index=False, max_rows=60))
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

    p = add("mark", "Mark one answer against an expected value.", cmd_mark)
    p.add_argument("--method", required=True,
                   help="exact_match, numeric_tolerance, algebraic_equivalence, short_text, ip_address or cidr")
    p.add_argument("--expected", required=True, help="the answer key")
    p.add_argument("--answer", required=True, help="the student's answer")
    p.add_argument("--tolerance", type=float, default=None, help="relative tolerance for numeric_tolerance (default 0.02)")
    p.add_argument("--absolute-tolerance", type=float, default=None, help="absolute tolerance for numeric_tolerance")
    p.add_argument("--required-form", default="any", choices=["any", "simplified", "factorised", "expanded"])
    p.add_argument("--keyword", action="append", help="a keyword for short_text (repeatable)")
    p.add_argument("--marks", type=int, default=1, help="marks for a correct answer (default 1)")

    p = add("exam", "Assemble a mock exam and print it as the student receives it (no keys).", cmd_exam, db=True)
    p.add_argument("--subject", required=True)
    p.add_argument("--level", required=True, help='e.g. "Nat 5"')
    p.add_argument("--seed", default="0")
    p.add_argument("--student", default="cli", help="whose exam (novelty is per student; default 'cli')")

    p = add("session", "Drive any session flow: start, view, or run a command on it.", cmd_session, db=True)
    p.add_argument("action", choices=["start", "view", "do"])
    p.add_argument("target", nargs="?", help="KIND for start; SESSION_ID for view and do")
    p.add_argument("command_name", nargs="?", metavar="COMMAND", help="for do: answer, next, skip, stop, save, submit, ...")
    p.add_argument("--student", default="cli")
    p.add_argument("--arg", action="append", metavar="NAME=VALUE", help="configuration or command argument (repeatable)")

    p = add("simulate", "Fill a database with a simulated class working through the real flows.", cmd_simulate, db=True)
    p.add_argument("--students", type=int, required=True)
    p.add_argument("--seed", default="0")
    p.add_argument("--subject", default="Mathematics")
    p.add_argument("--level", default="Nat 5")
    p.add_argument("--practice", type=int, default=2, help="practice sessions per student (default 2)")
    p.add_argument("--questions", type=int, default=8, help="questions per practice session (default 8)")
    p.add_argument("--exams", type=int, default=1, help="mock exams per student (default 1)")
    p.add_argument("--lessons", type=int, default=1, help="lessons per student (default 1)")
    p.add_argument("--truth", default=None, help="write the simulated abilities and blueprint parameters to this JSON file")

    add("llm-status", "Say whether LLM features are on, and with which settings; exit 2 when off.", cmd_llm_status, db=True)

    p = add("pipeline", "Write questions with the four-agent LLM pipeline; accepted ones go to the review queue.",
            cmd_pipeline, db=True)
    p.add_argument("--n", type=int, default=1, help="number of questions (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed for the schema and difficulty plan (default 0)")
    p.add_argument("--retries", type=int, default=2, help="regenerations allowed per question (default 2)")
    p.add_argument("--prefix", action="append", metavar="M|P", help="reasoning-schema prefix (repeatable; default M and P)")
    p.add_argument("--weights", default=None, help="difficulty weights, e.g. easy=0.3,medium=0.5,hard=0.2")
    p.add_argument("--level", default=None, help='course level to file accepted questions under, e.g. "Higher"')
    p.add_argument("--out", default=None, help="folder for accepted.jsonl, rejected.jsonl, logs.jsonl, stats.json "
                                               "(default runs/<time>)")

    p = add("llm-items", "Write multiple-choice items for a skill blueprint with the LLM; core checks every key.",
            cmd_llm_items, db=True)
    p.add_argument("skill_id", metavar="SKILL_ID")
    p.add_argument("--difficulty", required=True, metavar="LEVEL")
    p.add_argument("--n", type=int, default=1)
    p.add_argument("--seed", default="0")

    p = add("calibrate", "Calibrate item difficulties (Rasch or 2PL) from responses in a CSV file or the database.",
            cmd_calibrate)
    p.add_argument("--responses", default=None, metavar="FILE.csv", help="columns student_id,item_id,correct")
    p.add_argument("--db", default=None, help="calibrate the database's responses (and store the result there)")
    p.add_argument("--model", choices=["rasch", "2pl"], default="rasch")
    p.add_argument("--level", choices=["item", "family", "skill", "auto"], default="item",
                   help="one difficulty per item, per blueprint level (family), per skill, or auto (items with "
                        "enough responses, else their family)")
    p.add_argument("--min-responses", type=int, default=30, help="auto: responses an item needs for its own difficulty")
    p.add_argument("--out", default=None, metavar="FILE.csv", help="write one row per unit here")
    p.add_argument("--abilities", default=None, metavar="FILE.csv", help="write the students' abilities (EAP) here")

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
