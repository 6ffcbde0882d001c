"""Students' names and ids: when two names are the same person, and the id each student gets.

Two names are the same person when they are equal after Unicode NFKC
normalisation, case folding and collapsing spaces: "Amy Pond", "amy  pond" and
the full-width "Ａｍｙ Ｐｏｎｄ" are one student; "Zoë" and "Zoé", or two names in
Greek, Cyrillic, Arabic, Chinese or emoji, are different students.

A name of plain letters a-z and digits keeps the id it has always had
(``CLASS:amy-pond``); any other name gets a readable part and a hash of its
normalised form (``CLASS:zoe~1c7a0e44b2``), so no two names share an id. Ids of
students already on a roster are never changed: students are found by name.
"""
from __future__ import annotations

import hashlib
import re
import unicodedata
from typing import Iterable, Optional

MAX_NAME = 60
_PLAIN = re.compile(r"[a-z0-9]+(?: [a-z0-9]+)*")
_NOT_SLUG = re.compile(r"[^a-z0-9]+")


def clean_name(name: Optional[str]) -> str:
    """The name as it is shown: spaces collapsed, otherwise as typed."""
    return " ".join((name or "").split())


def name_key(name: Optional[str]) -> str:
    """What two names must share to be the same person: NFKC, case folded, spaces collapsed."""
    text = unicodedata.normalize("NFKC", name or "")
    text = unicodedata.normalize("NFKC", text.casefold())
    return " ".join(text.split())


def name_problem(name: str) -> Optional[str]:
    """Why ``name`` (already cleaned) cannot be a student's name, or None."""
    if not name:
        return "no name"
    if len(name) > MAX_NAME:
        return f"name longer than {MAX_NAME} characters"
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in name):
        return "the name has control characters in it"
    return None


def _readable(key: str) -> str:
    """The Latin letters and digits of a name, accents dropped (Zoë -> zoe), for ids people can read."""
    stripped = "".join(ch for ch in unicodedata.normalize("NFKD", key) if not unicodedata.combining(ch))
    return _NOT_SLUG.sub("-", stripped.encode("ascii", "ignore").decode()).strip("-")[:24]


def student_id(class_code: str, name: str, taken: Iterable[str] = ()) -> str:
    """The id a student with this name gets in this class; never one of ``taken`` (ids already in use)."""
    code = class_code.upper()
    key = name_key(name)
    taken = set(taken)
    if _PLAIN.fullmatch(key):
        plain = f"{code}:{key.replace(' ', '-')}"
        if plain not in taken:
            return plain
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
    for length in (10, 16, 24, 64):
        sid = f"{code}:{_readable(key)}~{digest[:length]}"
        if sid not in taken:
            return sid
    raise ValueError(f"no free id for {name!r} in {code}")  # pragma: no cover - needs a sha256 collision
