"""Reading files from elsewhere without trusting them: size limits, safe XML, safe zip packages, text encodings.

An uploaded file can be hostile or simply broken. XML is parsed with
``defusedxml``, which refuses entity declarations (a "billion laughs" bomb
expands a few kilobytes into gigabytes) and never fetches external entities or
DTDs. A zip package is read member by member within limits on count, size and
compression ratio, and a member whose path would land outside the package
(``../../etc/passwd``, an absolute path, a drive letter) is refused by name.
Every refusal is an ``InteropError`` whose message says what was wrong.
"""
from __future__ import annotations

import codecs
import io
import posixpath
import re
import zipfile
from typing import Optional
from xml.etree.ElementTree import Element, ParseError

import defusedxml
import defusedxml.ElementTree as SafeET

from core.items.interop.model import InteropError

MAX_FILE_BYTES = 20 * 1024 * 1024         # one file, or one member of a package
MAX_PACKAGE_BYTES = 200 * 1024 * 1024     # everything in a package, unpacked
MAX_MEMBERS = 5000
MAX_RATIO = 200                           # unpacked size / packed size of one member (zip bombs go far beyond)


def check_size(data: bytes, what: str, limit: int = MAX_FILE_BYTES) -> None:
    if len(data) > limit:
        raise InteropError(f"{what} is {len(data) / 1048576:.1f} MB, more than the {limit // 1048576} MB allowed; "
                           f"split it into smaller files.")


def parse_xml(data: bytes, what: str) -> Element:
    """The root element of ``data``, parsed safely; InteropError naming ``what`` when it is not usable XML.

    A file that declares one encoding but is written in another (an old export
    saved as Windows-1252 but declared UTF-8) is read as Windows-1252 when that
    makes it well-formed; anything else unreadable is refused.
    """
    check_size(data, what)
    try:
        return SafeET.fromstring(data)
    except defusedxml.EntitiesForbidden as exc:
        if getattr(exc, "sysid", None) or getattr(exc, "pubid", None):
            raise InteropError(f"{what} refers to an external document, which is not fetched; "
                               f"export it again without a DOCTYPE.") from None
        raise InteropError(f"{what} declares XML entities, which are not accepted (they can expand a small file "
                           f"into gigabytes); export it again without a DOCTYPE.") from None
    except (defusedxml.DTDForbidden, defusedxml.ExternalReferenceForbidden):
        raise InteropError(f"{what} refers to an external document, which is not fetched; "
                           f"export it again without a DOCTYPE.") from None
    except ParseError as exc:
        first = exc
    if b"\x00" not in data:
        try:
            text = data.decode("cp1252")
        except UnicodeDecodeError:
            text = None
        if text is not None and not _is_utf8(data):
            text = re.sub(r"^(<\?xml[^>]*?)encoding=['\"][^'\"]*['\"]", r"\1", text.lstrip("\ufeff"))
            try:
                return SafeET.fromstring(text.encode("utf-8"))
            except (ParseError, defusedxml.DefusedXmlException):
                pass
    line, col = getattr(first, "position", (0, 0))
    raise InteropError(f"{what} is not well-formed XML (line {line}, column {col + 1}: "
                       f"{str(first).split(':')[0]}); open it in the program that wrote it and export it again.")


def _is_utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def decode_text(data: bytes, what: str) -> tuple[str, Optional[str]]:
    """A text file as text, and a note when it was not UTF-8.

    UTF-8 (with or without a byte-order mark) and UTF-16 with a byte-order mark
    are read as they are; anything else is read as Windows-1252 (which every
    byte sequence is, and which old Windows exports use), with a note saying so.
    A file with NUL bytes and no UTF-16 mark is not text and is refused.
    """
    check_size(data, what)
    for bom, codec in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                       (codecs.BOM_UTF16_BE, "utf-16")):
        if data.startswith(bom):
            try:
                return data.decode(codec), None
            except UnicodeDecodeError:
                raise InteropError(f"{what} starts with a {codec.upper()} mark but is not {codec.upper()} "
                                   f"text; save it again as UTF-8.") from None
    if b"\x00" in data:
        raise InteropError(f"{what} is not a text file (it holds NUL bytes); choose a GIFT, Moodle XML or "
                           f"QTI file.")
    if _is_utf8(data):
        return data.decode("utf-8"), None
    return data.decode("cp1252", errors="replace"), ("the file is not UTF-8; it was read as Windows-1252 "
                                                     "(check accented letters)")


def safe_member_path(name: str) -> str:
    """A package member's path, normalised; InteropError when it would land outside the package."""
    path = name.replace("\\", "/")
    if path.startswith("/") or re.match(r"^[A-Za-z]:", path) or any(p == ".." for p in path.split("/")):
        raise InteropError(f"the package member '{name}' points outside the package; the package is refused.")
    normal = posixpath.normpath(path)
    return "" if normal == "." else normal


def read_zip(data: bytes, what: str) -> dict[str, bytes]:
    """Every file in a zip package by its normalised path, read within the limits."""
    check_size(data, what, MAX_PACKAGE_BYTES)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile:
        raise InteropError(f"{what} is not a zip package (or it is damaged); export the package again.") from None
    infos = [i for i in archive.infolist() if not i.is_dir()]
    if len(infos) > MAX_MEMBERS:
        raise InteropError(f"{what} holds {len(infos)} files, more than the {MAX_MEMBERS} allowed.")
    members: dict[str, bytes] = {}
    total = 0
    for info in infos:
        path = safe_member_path(info.filename)
        if (info.external_attr >> 16) & 0o170000 == 0o120000:
            raise InteropError(f"the package member '{info.filename}' is a link; the package is refused.")
        if info.file_size > MAX_FILE_BYTES:
            raise InteropError(f"the package member '{info.filename}' is {info.file_size / 1048576:.1f} MB unpacked, "
                               f"more than the {MAX_FILE_BYTES // 1048576} MB allowed.")
        if info.compress_size and info.file_size / info.compress_size > MAX_RATIO and info.file_size > 1048576:
            raise InteropError(f"the package member '{info.filename}' unpacks to {info.file_size // info.compress_size} "
                               f"times its packed size; the package is refused as a zip bomb.")
        total += info.file_size
        if total > MAX_PACKAGE_BYTES:
            raise InteropError(f"{what} unpacks to more than {MAX_PACKAGE_BYTES // 1048576} MB; split it.")
        try:
            with archive.open(info) as member:
                body = member.read(MAX_FILE_BYTES + 1)   # never trust the size the directory claims
        except (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError) as exc:
            raise InteropError(f"the package member '{info.filename}' cannot be read ({exc}); "
                               f"export the package again.") from None
        if len(body) > MAX_FILE_BYTES:
            raise InteropError(f"the package member '{info.filename}' is larger than the "
                               f"{MAX_FILE_BYTES // 1048576} MB allowed.")
        members[path] = body
    return members
