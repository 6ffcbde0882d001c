"""Marking one answer from the command line: `mark`."""
from __future__ import annotations

import argparse

from core.cli.common import CommandError, add_command, print_json

METHODS = {"exact_match": "string", "numeric_tolerance": "decimal", "algebraic_equivalence": "expression",
           "short_text": "string", "ip_address": "string", "cidr": "string"}


def cmd_mark(args: argparse.Namespace) -> int:
    from core.marking import MarkingSpec, mark_answer
    if args.method not in METHODS:
        raise CommandError(f"unknown method '{args.method}'; methods: {', '.join(METHODS)}")
    if args.tolerance is not None and not 0 < args.tolerance < 1:
        raise CommandError("--tolerance is relative and must be between 0 and 1 (0.02 means 2%)")
    if args.absolute_tolerance is not None and args.absolute_tolerance <= 0:
        raise CommandError("--absolute-tolerance must be positive")
    spec = MarkingSpec(method=args.method, key=args.expected, answer_type=METHODS[args.method],
                       tolerance_relative=args.tolerance, tolerance_absolute=args.absolute_tolerance,
                       required_form=args.required_form, keywords=args.keyword or [], marks=args.marks)
    result = mark_answer(spec, args.answer)
    data = result.to_dict()
    if args.json:
        print_json(data)
    else:
        verdict = "correct" if result.correct else ("refused" if result.refused else "wrong")
        print(f"{verdict}: {result.score:g}/{result.max_score:g}. {result.feedback}")
    return 0


def add_parsers(sub) -> None:
    p = add_command(sub, "mark", "Mark one answer against an expected value.", cmd_mark)
    p.add_argument("--method", required=True,
                   help="exact_match, numeric_tolerance, algebraic_equivalence, short_text, ip_address or cidr")
    p.add_argument("--expected", required=True, help="the answer key")
    p.add_argument("--answer", required=True, help="the student's answer")
    p.add_argument("--tolerance", type=float, default=None, help="relative tolerance for numeric_tolerance (default 0.02)")
    p.add_argument("--absolute-tolerance", type=float, default=None, help="absolute tolerance for numeric_tolerance")
    p.add_argument("--required-form", default="any", choices=["any", "simplified", "factorised", "expanded"])
    p.add_argument("--keyword", action="append", help="a keyword for short_text (repeatable)")
    p.add_argument("--marks", type=int, default=1, help="marks for a correct answer (default 1)")
