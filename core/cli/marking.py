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
    from core.marking import MarkingSpecError
    figures = args.significant_figures
    if figures is not None and figures.strip().lstrip("-").isdigit():
        figures = int(figures)
    try:
        spec = MarkingSpec(method=args.method, key=args.expected, answer_type=METHODS[args.method],
                           tolerance_relative=args.tolerance, tolerance_absolute=args.absolute_tolerance,
                           required_form=args.required_form, keywords=args.keyword or [], marks=args.marks,
                           significant_figures=figures, decimal_places=args.decimal_places, units=args.units,
                           units_exact=args.units_exact, variables=args.variable or [],
                           assume_positive=args.assume_positive, decimal_comma=args.decimal_comma)
    except MarkingSpecError as exc:
        raise CommandError(f"the question cannot be marked as given: {exc}") from None
    result = mark_answer(spec, args.answer)
    data = result.to_dict()
    # How the answer was read (the preview a student sees before it counts); valid is False when it could not be.
    data.update(read_as=result.read_as, read_as_latex=result.read_as_latex, valid=result.valid,
                notes=list(result.notes))
    if args.json:
        print_json(data)
    else:
        verdict = "correct" if result.correct else ("refused" if result.refused else
                                                    "could not be read" if not result.valid else "wrong")
        print(f"{verdict}: {result.score:g}/{result.max_score:g}. {result.feedback}")
        if result.valid and result.read_as is not None:
            print(f"read as: {result.read_as}")
        for note in result.notes:
            print(f"note: {note}")
    return 0


def add_parsers(sub) -> None:
    p = add_command(sub, "mark", "Mark one answer against an expected value.", cmd_mark)
    p.add_argument("--method", required=True,
                   help="exact_match, numeric_tolerance, algebraic_equivalence, short_text, ip_address or cidr")
    p.add_argument("--expected", required=True, help="the answer key")
    p.add_argument("--answer", required=True, help="the student's answer")
    p.add_argument("--tolerance", type=float, default=None, help="relative tolerance for numeric_tolerance (default 0.02)")
    p.add_argument("--absolute-tolerance", type=float, default=None, help="absolute tolerance for numeric_tolerance")
    p.add_argument("--required-form", default="any",
                   choices=["any", "simplified", "factorised", "expanded", "fraction", "decimal"])
    p.add_argument("--significant-figures", default=None,
                   help="3 (exactly), 'at least 3', or '2-4' (a range); the value must be right to them")
    p.add_argument("--decimal-places", type=int, default=None, help="the number of decimal places asked for")
    p.add_argument("--units", default=None, help="the question's units, e.g. 'm/s'; physical units must be given")
    p.add_argument("--units-exact", action="store_true", help="the answer must use exactly these units")
    p.add_argument("--variable", action="append", help="a variable the answer may use (repeatable)")
    p.add_argument("--assume-positive", action="store_true", help="variables are positive (sqrt(x^2) is x)")
    p.add_argument("--decimal-comma", action="store_true", help="the class writes 3,5 for three and a half")
    p.add_argument("--keyword", action="append", help="a keyword for short_text (repeatable)")
    p.add_argument("--marks", type=int, default=1, help="marks for a correct answer (default 1)")
