"""Analytics commands: calibrate."""
from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.common import CommandError, add_command, open_store, print_json


ID_COLUMNS = ("student_id", "item_id", "family", "skill")     # read as text, coded once (a dictionary per column)


def _responses_csv(path: str):
    """The responses of a CSV file as a frame (student, item_id, correct, ...), read by Arrow's CSV reader.

    Id columns arrive dictionary-encoded (pandas categoricals): every id is
    hashed once, while the file is read, and never touched again in Python.
    ``correct`` is read as true/false (1/0, True/False) straight into one byte
    per answer; a file that spells it otherwise is read again as it is, for
    the calibration to say what it found. Empty cells and the usual spellings
    of "missing" (NA, null) are missing.
    """
    import pyarrow as pa
    import pyarrow.csv as pcsv
    if not Path(path).is_file():
        raise CommandError(f"no such file: {path}")
    text = pa.dictionary(pa.int32(), pa.string())
    types = {c: text for c in ID_COLUMNS}
    try:
        try:
            table = pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(
                column_types={**types, "correct": pa.bool_()}, strings_can_be_null=True))
        except pa.ArrowInvalid:       # not 1/0 or True/False throughout (or not CSV at all): read it as it is
            table = pcsv.read_csv(path, convert_options=pcsv.ConvertOptions(column_types=types,
                                                                            strings_can_be_null=True))
    except (pa.ArrowException, OSError) as exc:
        first_line = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise CommandError(f"{path} is not a readable CSV file: {first_line}") from None
    missing = [c for c in ("student_id", "item_id", "correct") if c not in table.column_names]
    if missing:
        raise CommandError(f"{path} needs the columns student_id,item_id,correct; it lacks {', '.join(missing)}")
    where = table.column_names.index("correct")
    if pa.types.is_boolean(table.schema.types[where]):
        table = table.set_column(where, "correct", table.column(where).cast(pa.int8()))
    frame = table.to_pandas(split_blocks=True, self_destruct=True)   # Arrow's buffers go as pandas takes them
    return frame.rename(columns={"student_id": "student"})


def cmd_calibrate(args: argparse.Namespace) -> int:
    from core.analytics.calibration import COLUMNS, CalibrationError, calibrate
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
            from core.store import analytics
            frame = analytics.responses(store, columns=COLUMNS)
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
            from core.store.export import write_csv
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
