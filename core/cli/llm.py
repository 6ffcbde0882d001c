"""LLM commands: llm-status, pipeline, llm-items."""
from __future__ import annotations

import argparse
import os
import sys
from typing import Optional

from core.cli.common import EXIT_USAGE, CommandError, add_command, open_workbench, print_json


def _llm_client(store):
    """The configured LLM client, or a CommandError carrying the sentence on how to turn LLM features on."""
    from core.llm import LLMClient, llm_status
    status = llm_status(None, os.environ, store)
    if not status.on:
        raise CommandError(status.message())
    return LLMClient(status.settings, store)


def cmd_llm_status(args: argparse.Namespace) -> int:
    from core.llm import ROLES, llm_status
    from core.llm.reach import notice
    wb = open_workbench(args.db)
    try:
        status = llm_status(None, os.environ, wb.store)
    finally:
        wb.store.close()
    said = notice(status)            # set up is not answering: the server is asked for its model list
    data = {"on": status.on, "answers": said.kind == "success", "origin": status.origin, "message": said.text,
            "models": {role: status.settings.model_for(role) for role in ROLES} if status.settings else None}
    if args.json:
        print_json(data)
    else:
        print(data["message"])
    return 0 if data["answers"] else EXIT_USAGE


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
    wb = open_workbench(args.db)
    store = wb.store
    try:
        if args.outcome:
            values.update(_outcome(wb.library, args.outcome))
        try:
            config = PipelineConfig.checked(**values)
        except PipelineError as exc:
            raise CommandError(str(exc)) from None
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
        print_json({"exported_to": str(folder), "stored_drafts": stored, "stats": stats,
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
    wb = open_workbench(args.db)
    store = wb.store
    try:
        client = _llm_client(store)
        try:
            gen = wb.library.generator(args.skill_id)
            verified: list = []
            items, rejected = generate_llm_batch(client, gen, args.difficulty, args.n, args.seed, verified=verified)
        except (LibraryError, GenerationError) as exc:
            raise CommandError(str(exc)) from None
        finally:
            client.close()
        stored = store_llm_items(store, items, verified)
    finally:
        store.close()
    if args.json:
        print_json({"skill_id": args.skill_id, "difficulty": args.difficulty, "verified": len(items),
                    "stored_drafts": stored, "rejected": [{"seed": r["seed"], "reason": r["reason"]} for r in rejected]})
    else:
        print(f"{len(items)} of {args.n} LLM item(s) verified; {stored} new draft(s) in the review queue")
        for r in rejected:
            print(f"  rejected ({r['seed']}): {r['reason']}")
    return 0


def _outcome(library, wanted: str) -> dict:
    """The course (subject, level) and outcome id of a course outcome named on the command line."""
    from core.llm.pipeline.review_queue import outcome_choices
    choices = outcome_choices(library)
    for subject, level, outcome_id, _label in choices:
        if outcome_id.lower() == wanted.strip().lower():
            return {"subject": subject, "level": level, "outcome_id": outcome_id}
    some = ", ".join(c[2] for c in choices[:6])
    raise CommandError(f"no course outcome {wanted!r} that the pipeline writes for: use an outcome id of a course "
                       f"spec, such as {some}")


def add_parsers(sub) -> None:
    add_command(sub, "llm-status", "Say whether LLM features are on, and with which settings; exit 2 when off.",
                cmd_llm_status, db=True)

    p = add_command(sub, "pipeline", "Write questions with the four-agent LLM pipeline; accepted ones go to the "
                    "review queue.", cmd_pipeline, db=True)
    p.add_argument("--n", type=int, default=1, help="number of questions (default 1)")
    p.add_argument("--seed", type=int, default=0, help="seed for the schema and difficulty plan (default 0)")
    p.add_argument("--retries", type=int, default=2, help="regenerations allowed per question (default 2)")
    p.add_argument("--prefix", action="append", metavar="M|P|C|B",
                   help="reasoning-schema prefix: M mathematics, P physics, C chemistry, B biology (repeatable; "
                        "default all)")
    p.add_argument("--weights", default=None, help="difficulty weights, e.g. easy=0.3,medium=0.5,hard=0.2")
    p.add_argument("--outcome", default=None, metavar="ID",
                   help="course outcome the questions assess, e.g. MTH-H-02: accepted ones are filed under it and "
                        "its course, and only schemas of its subject are used")
    p.add_argument("--level", default=None, help='course level to file accepted questions under, e.g. "Higher" '
                                                 "(without --outcome)")
    p.add_argument("--out", default=None, help="folder for accepted.jsonl, rejected.jsonl, logs.jsonl, stats.json "
                                               "(default runs/<time>)")

    p = add_command(sub, "llm-items", "Write multiple-choice items for a skill blueprint with the LLM; core checks "
                    "every key.", cmd_llm_items, db=True)
    p.add_argument("skill_id", metavar="SKILL_ID")
    p.add_argument("--difficulty", required=True, metavar="LEVEL")
    p.add_argument("--n", type=int, default=1)
    p.add_argument("--seed", default="0")
