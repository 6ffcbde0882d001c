"""Question exchange commands: export (QTI 3.0, Moodle XML, GIFT) and import (any of them, as drafts for review)."""
from __future__ import annotations

import argparse
from pathlib import Path

from core.cli.common import EXIT_INVALID, CommandError, add_command, open_workbench, print_json
from core.items.interop.model import FORMATS, STATUSES


def _write_file(out: Path, data: bytes) -> Path:
    if out.is_dir():
        raise CommandError(f"--out {out} is a folder; give a file name, e.g. {out / 'questions.xml'}")
    if not out.parent.exists():
        raise CommandError(f"the folder {out.parent} does not exist; create it or choose another --out")
    from core.store.export import write_whole
    try:
        write_whole(data, out)
    except OSError as exc:
        raise CommandError(f"cannot write {out}: {exc.strerror or exc}; choose another --out") from None
    return out.resolve()


def cmd_export(args: argparse.Namespace) -> int:
    from core.items.interop.exporting import distractor_feedback, export_items, select_items
    from core.exams.diagrams import diagram_file
    from core.items.interop.model import InteropError
    out = Path(args.out)
    wb = open_workbench(args.db)
    try:
        try:
            items = select_items(wb.store, args.status, args.skill)
            report = export_items(items, args.format, title=args.title,
                                  option_feedback=distractor_feedback(wb.library), draw=diagram_file)
        except InteropError as exc:
            raise CommandError(str(exc).rstrip(".")) from None
    finally:
        wb.store.close()
    path = _write_file(out, report.data)
    if args.json:
        print_json(report.summary())
    else:
        print(f"{len(report.items)} question(s) written to {path} as {args.format}")
        for s in report.skipped:
            print(f"  skipped {s.question}: {s.reason}")
        if not items:
            print(f"  no {'' if args.status == 'any' else args.status + ' '}items"
                  f"{' for ' + args.skill if args.skill else ''} in the database")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from core.items.interop.importing import import_file
    from core.items.interop.model import InteropError
    path = Path(args.path)
    if not path.exists():
        raise CommandError(f"{path} does not exist; check the path", EXIT_INVALID)
    wb = open_workbench(args.db)
    try:
        try:
            report = import_file(wb.store, path)
        except InteropError as exc:
            raise CommandError(f"cannot read {path.name}: {str(exc).rstrip('.')}", EXIT_INVALID) from None
    finally:
        wb.store.close()
    if args.json:
        print_json(report.summary())
    else:
        print(f"{len(report.imported)} question(s) imported from {path.name} ({report.format}) as drafts; "
              f"review them on the Review page")
        for s in report.skipped:
            print(f"  skipped {s.question}: {s.reason}")
    return 0


def add_parsers(sub) -> None:
    p = add_command(sub, "export", "Export items as QTI 3.0, Moodle XML or GIFT (with keys: a teacher tool).",
                    cmd_export, db=True,
                    more="Every question carries where it came from (item, blueprint, level, seed). Items a format "
                         "cannot hold are listed as skipped, with the reason.")
    p.add_argument("--format", required=True, choices=FORMATS, help="qti3 (a .zip package), moodle-xml or gift")
    p.add_argument("--out", required=True, metavar="PATH", help="the file to write")
    p.add_argument("--status", default="approved", choices=STATUSES,
                   help="which items (default: approved)")
    p.add_argument("--skill", default=None, metavar="ID", help="only items practising this skill")
    p.add_argument("--title", default="Workbench questions", help="the title the package or file carries")
    p = add_command(sub, "import", "Import questions from a Moodle XML, GIFT or QTI 3.0 file as drafts for review.",
                    cmd_import, db=True,
                    more="The format is recognised from the content. Every key is checked by the marker; what "
                         "cannot be held or checked is skipped with the reason. Exit 1 when the file cannot be read.")
    p.add_argument("path", metavar="PATH", help="the file: .xml, .gift/.txt or a QTI .zip package")

