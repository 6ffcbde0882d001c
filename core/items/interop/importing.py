"""Import: a Moodle XML, GIFT or QTI 3.0 file, recognised by its content, as draft items awaiting review.

Every question's key is checked by our marker before it is stored; what cannot
be held or checked is skipped with the reason. A question already in the
database (the same text, options and key, or our own exported item coming
home) is skipped as a duplicate, so importing a file twice stores nothing the
second time.
"""
from __future__ import annotations

import dataclasses
import hashlib
import io
import zipfile
from pathlib import Path
from typing import Union

from core.items.generator import Item
from core.items.interop.convert import question_to_item
from core.items.interop.exporting import format_module
from core.items.interop.model import InteropError, ReadResult, Skipped
from core.items.interop.safety import MAX_PACKAGE_BYTES
from core.store import Store, interop as store_interop, repo


@dataclasses.dataclass
class ImportReport:
    format: str
    file: str
    imported: list[str]              # ids of the draft items stored
    skipped: list[Skipped]

    def summary(self) -> dict:
        """What ``import --json`` prints."""
        return {"imported": len(self.imported), "format": self.format,
                "skipped": [{"question": s.question, "reason": s.reason} for s in self.skipped]}


def detect(data: bytes) -> str:
    """The format of a file by its content: qti3, moodle-xml or gift; InteropError when it is none of them."""
    if data[:4] == b"PK\x03\x04" or zipfile.is_zipfile(io.BytesIO(data)):
        return "qti3"
    for fmt in ("moodle-xml", "qti3", "gift"):
        if format_module(fmt).sniff(data):
            return fmt
    head = data[:200].lstrip()
    if head.startswith(b"<") or head.startswith(b"\xef\xbb\xbf<"):
        raise InteropError("this XML file is neither Moodle XML (a <quiz> of questions) nor QTI 3.0 "
                           "(a qti-assessment-item); export the questions from Moodle as Moodle XML, or as a QTI 3.0 "
                           "package.")
    raise InteropError("this file is not a Moodle XML, GIFT or QTI 3.0 file; export the questions in one of "
                       "those formats and upload that file.")


def read_file(data: bytes, name: str) -> ReadResult:
    """The questions in a file (any of the three formats), and what was skipped while reading it."""
    if len(data) > MAX_PACKAGE_BYTES:
        raise InteropError(f"the file is {len(data) / 1048576:.0f} MB, more than the "
                           f"{MAX_PACKAGE_BYTES // 1048576} MB allowed; split it into smaller files.")
    if not data.strip():
        raise InteropError(f"{name} is empty; choose the file the questions were exported to.")
    fmt = detect(data)
    return format_module(fmt).read(data, name)


def import_file(store: Store, source: Union[str, Path, bytes], name: str = "") -> ImportReport:
    """Read a file and store its new questions as drafts for review."""
    if isinstance(source, (str, Path)):
        path = Path(source)
        name = name or path.name
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise InteropError(f"{path} does not exist; check the path.") from None
        except IsADirectoryError:
            raise InteropError(f"{path} is a folder; give the file to import.") from None
        except PermissionError:
            raise InteropError(f"{path} cannot be read (permission denied).") from None
    else:
        data = source
    name = name or "upload"
    result = read_file(data, name)
    origin = {"file": name, "format": result.format, "sha256": hashlib.sha256(data).hexdigest()}
    skipped = list(result.skipped)
    fresh: list[Item] = []
    for q in result.questions:
        made = question_to_item(q, origin)
        if isinstance(made, Skipped):
            skipped.append(made)
        else:
            fresh.append(made)
    homes = [it.origin["provenance"].get("item") for it in fresh]
    by_key, stems = store_interop.existing_questions(store, [it.content_key for it in fresh], filter(None, homes))
    kept: list[Item] = []
    seen: set[str] = set()
    for item, home in zip(fresh, homes):
        question = item.origin["question"]
        # The same text, options and key; or our own exported item coming home unchanged.
        same = by_key.get(item.content_key) or (home if home and stems.get(home, "").strip() == item.stem else None)
        if same is not None:
            skipped.append(Skipped(question, f"it is already in the question bank as item {same}; nothing was added."))
        elif item.content_key in seen:
            skipped.append(Skipped(question, "the file holds the same question twice; it was imported once."))
        else:
            seen.add(item.content_key)
            kept.append(item)
    if kept:
        repo.insert_items(store, kept, status="draft")
    return ImportReport(result.format, name, [it.id for it in kept], skipped)
