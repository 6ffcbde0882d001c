"""Exam paper commands: paper (print a class paper and its marking scheme as HTML files)."""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from core.cli.common import CommandError, add_command, open_workbench, print_json


def _writable_folder(out: Path) -> Path:
    """The output folder, made if missing; a clear error before any work when it cannot be written to."""
    if out.exists() and not out.is_dir():
        raise CommandError(f"--out {out} is a file, not a folder; give a folder for paper.html and "
                           f"marking-scheme.html")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CommandError(f"cannot create the folder {out}: {exc.strerror or exc}; choose another --out") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise CommandError(f"cannot write into the folder {out}: permission denied; choose another --out")
    return out.resolve()


def cmd_paper(args: argparse.Namespace) -> int:
    from core.exams import papers, printing
    from core.exams.diagrams import fill_diagrams
    from core.items.sources import QuestionSource
    if not args.assessment and not (args.subject and args.level):
        raise CommandError("paper needs --subject and --level (a course), or --assessment ID (an assessment "
                           "blueprint)")
    out = _writable_folder(Path(args.out))
    wb = open_workbench(args.db)
    try:
        try:
            if args.assessment:
                paper = papers.build_evaluation_paper(wb.library, args.assessment, args.seed)
            else:
                paper = papers.build_paper(QuestionSource(wb.library, wb.store), args.subject, args.level, args.seed,
                                           exam_format=args.format)
        except papers.PaperError as exc:
            raise CommandError(str(exc).rstrip(".")) from None
        fill_diagrams(paper, wb.library)
    finally:
        wb.store.close()
    try:
        paths = printing.write_paper(paper, out)
    except printing.PrintError as exc:
        raise CommandError(str(exc)) from None
    result = {"paper": str(paths["paper"]), "marking_scheme": str(paths["marking_scheme"]),
              "total_marks": paper["total_marks"], "questions": printing.printed_question_count(paper)}
    if args.json:
        print_json(result)
    else:
        print(f"{paper['title']}: {result['questions']} questions, {result['total_marks']} marks")
        print(f"  question paper: {result['paper']}")
        print(f"  marking scheme: {result['marking_scheme']}")
        print(f"  {printing.PRINT_ADVICE}")
    return 0


def add_parsers(sub) -> None:
    p = add_command(sub, "paper", "Print a class paper: paper.html and marking-scheme.html, for a browser to print.",
                    cmd_paper, db=True,
                    more="The files are self-contained (maths, diagrams and styles inline) and work offline; "
                         "print them from a browser, or save them as PDF from its print dialog.")
    p.add_argument("--subject", help="the course's subject, e.g. Mathematics")
    p.add_argument("--level", help='the course\'s level, e.g. "Nat 5"')
    p.add_argument("--assessment", default=None, metavar="ID",
                   help="an assessment blueprint's id instead of a course (an evaluation paper)")
    p.add_argument("--seed", default="1", help="any word or number: the same seed gives the same paper (default 1)")
    p.add_argument("--format", default=None,
                   help="another shape of paper from the course spec's formats (e.g. 'short' for the National 5 "
                        "90-mark mock); default: the full paper")
    p.add_argument("--out", required=True, metavar="DIR", help="folder to write paper.html and marking-scheme.html")
