"""Reading a class list exported from a school's records, a spreadsheet or another learning platform.

The names are found by the first row's headers, as schools' exports spell them:

- one column of whole names: ``Name``, ``Full name``, ``Student name``, ``Pupil``, ``Learner`` …;
- a first name and a last name: ``Forename``/``Surname``, ``First name``/``Last name``, ``Given name``/
  ``Family name``, ``firstname``/``lastname`` (Moodle), ``Legal forename``, ``Preferred forename`` (a preferred
  name is taken where it is filled in, else the legal one). Middle names are left out: a student signs in with
  the name they are called by.

Whole names written "Surname, Forename" (as some records systems export them) become "Forename Surname". A file
whose first row names no such column is read as one column of names, with no header, when it has one column;
with several columns it is refused with a message naming the columns it found, never imported as a student
called "Forename". Commas, semicolons or tabs separate the columns (spreadsheets in many countries save CSV
with semicolons); a byte-order mark and blank rows are ignored.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import re
from typing import Optional

_WORDS = re.compile(r"[^a-z]+")
# Words before the part that says which name: whose it is ("student", "pupils" …) and which kind ("legal" …).
_OWNERS = {"student", "pupil", "learner", "child", "user"}
_KINDS = {"preferred": 0, "known as": 0, "legal": 2, "official": 2}     # which to take first, when both are there
WHOLE = {"", "name", "names", "full name", "full names", "fullname", "display name"}
FIRST = {"first name", "firstname", "first names", "forename", "forenames", "given name", "given names",
         "christian name", "first", "fname"}
LAST = {"last name", "lastname", "surname", "surnames", "family name", "last", "lname"}


class RosterFileError(ValueError):
    """The file's names cannot be found; the message says what the file has and what to change."""


@dataclasses.dataclass
class RosterRows:
    names: list[tuple[int, str]]     # (row number in the file, name as it will be shown), blank rows left out
    read_from: str                   # how the names were read, for the teacher: "the columns Forename + Surname"


def _kind(header: str) -> tuple[Optional[str], int]:
    """('whole' | 'first' | 'last' | None, rank: preferred 0, plain 1, legal 2) of one header cell."""
    words = _WORDS.sub(" ", header.replace("(s)", "s").lower()).split()
    if not words:
        return None, 1
    if words[0] in _OWNERS or words[0].rstrip("s") in _OWNERS:
        words = words[1:]
    text, rank = " ".join(words), 1
    for kind, kind_rank in _KINDS.items():
        if text == kind or text.startswith(kind + " "):
            text, rank = text[len(kind):].strip(), kind_rank
            break
    if text in FIRST:
        return "first", rank
    if text in LAST:
        return "last", rank
    return ("whole" if text in WHOLE else None), rank


def _delimiter(text: str) -> str:
    first = next((line for line in text.splitlines() if line.strip()), "")
    counts = {d: first.count(d) for d in (",", ";", "\t")}
    best = max(counts, key=counts.get)
    return best if counts[best] else ","


def _columns(header: list[str]) -> dict[str, int]:
    """The best column of each kind found in the header row (preferred before plain before legal)."""
    found: dict[str, tuple[int, int]] = {}
    for index, cell in enumerate(header):
        kind, rank = _kind(cell)
        if kind and (kind not in found or rank < found[kind][0]):
            found[kind] = (rank, index)
    return {kind: index for kind, (_rank, index) in found.items()}


def _alternatives(header: list[str], kind: str) -> list[int]:
    """Every column of ``kind``, best first: a preferred name left blank falls back to the legal one."""
    ranked = [(rank, index) for index, cell in enumerate(header) for k, rank in [_kind(cell)] if k == kind]
    return [index for _rank, index in sorted(ranked)]


def _cell(row: list[str], indexes: list[int]) -> str:
    for index in indexes:
        value = row[index].strip() if index < len(row) else ""
        if value:
            return value
    return ""


def _turned(name: str) -> str:
    """"Brown, Ava" as "Ava Brown"; any other name as written."""
    parts = [p.strip() for p in name.split(",")]
    return f"{parts[1]} {parts[0]}" if len(parts) == 2 and all(parts) else name


def read_roster(text: str) -> RosterRows:
    """The names in a class-list CSV with their row numbers; raises RosterFileError when none can be found."""
    text = text.lstrip("\ufeff")
    rows = [r for r in csv.reader(io.StringIO(text), delimiter=_delimiter(text))]
    numbered = [(n, r) for n, r in enumerate(rows, 1) if any(c.strip() for c in r)]
    if not numbered:
        raise RosterFileError("The file is empty: it needs a 'Name' column (or 'First name' and 'Last name' "
                              "columns) with one student per row.")
    header_number, header = numbered[0]
    columns = _columns(header)
    body = numbered[1:]
    headers = ", ".join(f"'{h.strip()}'" for h in header if h.strip())
    if "first" in columns and "last" in columns:
        first, last = _alternatives(header, "first"), _alternatives(header, "last")
        names = [(n, " ".join(p for p in (_cell(r, first), _cell(r, last)) if p)) for n, r in body]
        return RosterRows(names, f"the columns '{header[first[0]].strip()}' + '{header[last[0]].strip()}'")
    if "whole" in columns:
        whole = _alternatives(header, "whole")
        if len(header) == 1:   # one column, so an unquoted "Brown, Ava" arrives as two cells: still one name
            names = [(n, _turned(", ".join(c.strip() for c in r if c.strip()))) for n, r in body]
        else:
            names = [(n, _turned(_cell(r, whole))) for n, r in body]
        return RosterRows(names, f"the column '{header[whole[0]].strip()}'")
    if "first" in columns or "last" in columns:
        has, lacks = ("first name", "last name") if "first" in columns else ("last name", "first name")
        raise RosterFileError(f"The file has a {has} column but no {lacks} column (its columns: {headers}). Add "
                              f"a '{lacks.capitalize()}' column, or one 'Name' column of whole names.")
    if len([c for c in header if c.strip()]) > 1:
        raise RosterFileError(f"No column of names found: the first row has {headers}. Name the column of whole "
                              "names 'Name', or the columns 'First name' and 'Last name' ('Forename' and "
                              "'Surname' work too), and import the file again.")
    names = [(n, _turned(", ".join(c.strip() for c in r if c.strip()))) for n, r in numbered]
    return RosterRows(names, "the only column (the file has no header row)")


def decode_roster(data: bytes) -> tuple[str, Optional[str]]:
    """A class-list file's text, and a note when it was not UTF-8 (read as Windows-1252, as Excel saves CSV)."""
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace"), ("The file was not UTF-8, so it was read as Windows "
                                                         "text; check accented names on the list.")
