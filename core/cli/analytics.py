"""Analytics commands: calibrate."""
from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.common import CommandError, add_command, open_store, print_json


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
    from core.store import analytics
    from core.store.export import write_csv
    if bool(args.responses) == bool(args.db):
        raise CommandError("give the responses as --responses FILE.csv or --db PATH (one of them)")
    store = None
    if args.responses:
        frame = _responses_csv(args.responses)
        if args.level in ("family", "skill") and args.level not in frame.columns:
            raise CommandError(f"--level {args.level} needs a '{args.level}' column in {args.responses} "
                               f"(each item's {args.level}); without it use --level item")
    else:
        store = open_store(args.db)
    try:
        if store is not None:
            frame = analytics.responses(store)
        try:
            result = calibrate(frame, args.model, args.level, min_responses=args.min_responses)
        except CalibrationError as exc:
            raise CommandError(str(exc)) from None
        saved = None
        if store is not None:
            saved = analytics.save_calibration(store, result.run_record(), result.parameters, result.abilities)
    finally:
        if store is not None:
            store.close()
    table = result.parameters.rename(columns={"unit": args.level if args.level != "auto" else "unit"})
    if args.model == "rasch":
        table = table.drop(columns=["discrimination", "se_discrimination"])
    for frame, path in ((table, args.out), (result.abilities, args.abilities)):
        if path:
            try:
                write_csv(frame, path)
            except OSError as exc:
                raise CommandError(f"cannot write {path}: {exc.strerror or exc}") from None
    record = result.run_record()
    if args.json:
        print_json({**record, "calibration_id": saved, "out": args.out, "abilities_out": args.abilities,
                    "units": table.astype(object).where(table.notna(), None).to_dict("records")
                    if not args.out else None})
    else:
        print(f"{args.model} calibration of {record['n_responses']} responses by {record['n_students']} students: "
              f"{record['n_units']} {args.level} unit(s) in {record['summary']['seconds']:.2f} s ({result.method})"
              + (f"; saved as {saved}" if saved else ""))
        if not args.out:
            print(table.to_string(index=False, max_rows=60))
    return 0


def add_parsers(sub) -> None:
    p = add_command(sub, "calibrate", "Calibrate item difficulties (Rasch or 2PL) from responses in a CSV file or "
                    "the database.", cmd_calibrate)
    p.add_argument("--responses", default=None, metavar="FILE.csv", help="columns student_id,item_id,correct")
    p.add_argument("--db", default=None, help="calibrate the database's responses (and store the result there)")
    p.add_argument("--model", choices=["rasch", "2pl"], default="rasch")
    p.add_argument("--level", choices=["item", "family", "skill", "auto"], default="item",
                   help="one difficulty per item, per blueprint level (family), per skill, or auto (items with "
                        "enough responses, else their family)")
    p.add_argument("--min-responses", type=int, default=30, help="auto: responses an item needs for its own difficulty")
    p.add_argument("--out", default=None, metavar="FILE.csv", help="write one row per unit here")
    p.add_argument("--abilities", default=None, metavar="FILE.csv", help="write the students' abilities (EAP) here")
