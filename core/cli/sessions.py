"""Session commands: exam, session, simulate (all on a database, so a session can be continued later)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from core.cli.common import CommandError, add_command, open_workbench, print_json


def _runner(wb):
    from core.flows.registry import make_runner
    return make_runner(wb.store, wb.library)


def cmd_exam(args: argparse.Namespace) -> int:
    from core.flows.base import FlowError
    wb = open_workbench(args.db)
    try:
        runner = _runner(wb)
        try:
            config = {"subject": args.subject, "level": args.level, "seed": args.seed}
            if args.format and args.format != "full":
                config["format"] = args.format
            sid = runner.start("exam", args.student, config)
        except FlowError as exc:
            raise CommandError(str(exc)) from None
        view = runner.view(sid)
    finally:
        wb.store.close()
    package = view["exam"]
    if args.json:
        print_json(package)
    else:
        print(f"{package['subject']} {package['level']}: {package['question_count']} questions, "
              f"{package['total_marks']} marks, {package['time_allowed_minutes']:g} minutes (session {sid})")
        for section in package["sections"]:
            print(f"\n{section['section']} ({section['marks']} marks)")
            for q in section["questions"]:
                print(f"  {q.get('label', q['number']):>5}. [{q['marks']}] {q['stem']}")
                for k, opt in enumerate(q["options"]):
                    print(f"        {chr(65 + k)}. {opt}")
    return 0


# What a student typed stays text: "42" is an answer to be read, not a number, and never an option's index.
TEXT_ARGS = frozenset({"answer"})


def _parse_args_kv(pairs: list[str], text: frozenset = frozenset()) -> dict:
    """NAME=VALUE pairs; values are JSON when they parse as JSON (numbers, true, lists), else text, except ``text`` names."""
    out: dict[str, Any] = {}
    for pair in pairs:
        if "=" not in pair:
            raise CommandError(f"expected NAME=VALUE, got '{pair}'")
        name, value = pair.split("=", 1)
        if name in text:
            out[name] = value
            continue
        try:
            out[name] = json.loads(value)
        except json.JSONDecodeError:
            out[name] = value
    return out


def cmd_session(args: argparse.Namespace) -> int:
    from core.flows.base import FlowError
    if args.action == "start" and not args.target:
        raise CommandError("session start needs a KIND (practice, exam, ...)")
    wb = open_workbench(args.db)
    kwargs: dict = {}
    try:
        runner = _runner(wb)
        try:
            if args.action == "start":
                config = _parse_args_kv(args.arg or [])
                student = config.pop("student", None) or args.student
                sid = runner.start(args.target, student, config)
                view = runner.view(sid)
            elif args.action == "view":
                view = runner.view(args.target)
            else:
                kwargs = _parse_args_kv(args.arg or [], TEXT_ARGS)
                view = runner.command(args.target, args.command_name, **kwargs)
        except FlowError as exc:
            raise CommandError(str(exc)) from None
        except TypeError as exc:
            raise CommandError(f"wrong arguments for this command: {exc}") from None
    finally:
        wb.store.close()
    if args.json:
        print_json(view)
    else:
        print(json.dumps(view, indent=2, default=str, ensure_ascii=False))
        line = _reading_line(view, kwargs.get("item_id")) if args.action == "do" else ""
        if line:
            print(line)
    return 0


def _reading_line(view: dict, item_id: Any = None) -> str:
    """How the answer just given was read ("read as: ..."), or why it could not be read, from a command's view."""
    found = view.get("reading") or (view.get("feedback") or {}).get("reading")
    exam = found is None and item_id is not None and "readings" in view
    if exam:
        found = view["readings"].get(item_id)
    if not found or (exam and found.get("empty")):
        return ""
    if not found.get("valid"):
        kept = "saved as typed; marked as it stands if handed in like this" if exam else "nothing was counted"
        return f"could not be read: {found.get('problem')} ({kept})"
    notes = "".join(f"\nnote: {n}" for n in found.get("notes") or [])
    return f"read as: {found.get('read_as')}{notes}"


def cmd_simulate(args: argparse.Namespace) -> int:
    from core.flows.base import FlowError
    from core.demo.simulate import Simulation
    if not 1 <= args.students <= 10_000:
        raise CommandError("--students must be between 1 and 10000")
    wb = open_workbench(args.db)
    db = wb.store.label
    try:
        sim = Simulation(wb.store, wb.library, seed=args.seed, subject=args.subject, level=args.level)

        def progress(done: int, total: int) -> None:
            if not args.json:
                print(f"\r{done}/{total} students", end="", file=sys.stderr, flush=True)

        try:
            summary = sim.run(args.students, practice_sessions=args.practice, questions=args.questions,
                              exams=args.exams, lessons=args.lessons, progress=progress)
        except FlowError as exc:
            raise CommandError(str(exc)) from None
    finally:
        wb.store.close()
    if not args.json:
        print(file=sys.stderr)
    if args.truth:
        Path(args.truth).write_text(json.dumps(summary, indent=2))
    result = {"db": db, "students": args.students, "sessions": summary["sessions"],
              "responses": summary["responses"], "truth": args.truth}
    if args.json:
        print_json(result)
    else:
        print(f"simulated {args.students} students: {summary['sessions']} sessions, {summary['responses']} responses in {db}")
    return 0


def add_parsers(sub) -> None:
    p = add_command(sub, "exam", "Assemble a mock exam and print it as the student receives it (no keys).", cmd_exam,
                    db=True, more="The exam is a session in the database: continue it with "
                                  "`session do SESSION_ID save|submit --db ...` on the same database.")
    p.add_argument("--subject", required=True)
    p.add_argument("--level", required=True, help='e.g. "Nat 5"')
    p.add_argument("--seed", default="0")
    p.add_argument("--student", default="cli", help="whose exam (novelty is per student; default 'cli')")
    p.add_argument("--format", default=None,
                   help="another shape of paper from the course spec's formats (e.g. 'short' for the National 5 "
                        "90-mark mock); default: the full paper")

    p = add_command(sub, "session", "Drive any session flow: start, view, or run a command on it.", cmd_session, db=True,
                    more="Start with --arg for the configuration (practice: subject=, level=, optionally outcome= "
                         "or mode=adaptive; survey: survey_id=exit_ticket), then `do` its commands with --arg for "
                         "their arguments (practice: answer item_id=... answer=..., next, skip, stop). A survey's "
                         "answer and skip act on the question on screen: `do SESSION_ID answer --arg answer=4`; "
                         "question_id=... is optional and, when given, must name that question.")
    p.add_argument("action", choices=["start", "view", "do"])
    p.add_argument("target", nargs="?", help="KIND for start; SESSION_ID for view and do")
    p.add_argument("command_name", nargs="?", metavar="COMMAND",
                   help="for do: answer, next, skip, stop, save, submit, goto, finish, ...")
    p.add_argument("--student", default="cli")
    p.add_argument("--arg", action="append", metavar="NAME=VALUE",
                   help="configuration (start) or command argument (do), repeatable: e.g. --arg survey_id=exit_ticket, "
                        "--arg answer=4 (a survey answers the question on screen; question_id= is optional)")

    p = add_command(sub, "simulate", "Fill a database with a simulated class working through the real flows.",
                    cmd_simulate, db=True)
    p.add_argument("--students", type=int, required=True)
    p.add_argument("--seed", default="0")
    p.add_argument("--subject", default="Mathematics")
    p.add_argument("--level", default="Nat 5")
    p.add_argument("--practice", type=int, default=2, help="practice sessions per student (default 2)")
    p.add_argument("--questions", type=int, default=8, help="questions per practice session (default 8)")
    p.add_argument("--exams", type=int, default=1, help="mock exams per student (default 1)")
    p.add_argument("--lessons", type=int, default=1, help="lessons per student (default 1)")
    p.add_argument("--truth", default=None, help="write the simulated abilities and blueprint parameters to this JSON file")
