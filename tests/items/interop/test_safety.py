"""Hostile and broken files: XML bombs, external entities, zip slips, zip bombs, links, wrong encodings."""
from __future__ import annotations

import io
import stat
import zipfile

import pytest

from core.items.interop.model import InteropError
from core.items.interop.safety import MAX_FILE_BYTES, decode_text, parse_xml, read_zip, safe_member_path

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol9 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
]>
<quiz><question type="shortanswer"><name><text>&lol9;</text></name></question></quiz>"""

EXTERNAL = b"""<?xml version="1.0"?>
<!DOCTYPE quiz [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<quiz><question type="shortanswer"><name><text>&secret;</text></name></question></quiz>"""


def _zip(members: dict, mode=zipfile.ZIP_DEFLATED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", mode) as z:
        for name, body in members.items():
            if isinstance(body, zipfile.ZipInfo):
                z.writestr(body, b"target")
            else:
                z.writestr(name, body)
    return out.getvalue()


def test_entity_bombs_and_external_entities_are_refused():
    with pytest.raises(InteropError, match="declares XML entities"):
        parse_xml(BILLION_LAUGHS, "quiz.xml")
    with pytest.raises(InteropError) as exc:
        parse_xml(EXTERNAL, "quiz.xml")
    assert "passwd" not in str(exc.value)


def test_broken_xml_is_refused_with_where_it_broke():
    with pytest.raises(InteropError, match=r"not well-formed XML \(line 2"):
        parse_xml(b"<quiz>\n<question></quiz>", "quiz.xml")


def test_a_windows_1252_file_declared_utf8_is_read_as_windows_1252():
    root = parse_xml('<?xml version="1.0" encoding="UTF-8"?><quiz><t>Café – 5 °C</t></quiz>'.encode("cp1252"), "q")
    assert root.find("t").text == "Café – 5 °C"


def test_text_files_in_other_encodings():
    assert decode_text("£5 café".encode("utf-8"), "f") == ("£5 café", None)
    assert decode_text("\ufeff£5".encode("utf-8"), "f") == ("£5", None)
    assert decode_text("£5 café".encode("utf-16"), "f") == ("£5 café", None)
    text, note = decode_text("£5 café".encode("cp1252"), "f")
    assert text == "£5 café" and "Windows-1252" in note
    with pytest.raises(InteropError, match="not a text file"):
        decode_text(b"PK\x03\x04\x00\x00binary", "f")
    with pytest.raises(InteropError, match="MB allowed"):
        decode_text(b"a" * (MAX_FILE_BYTES + 1), "f")


@pytest.mark.parametrize("name", ["../evil.xml", "items/../../evil.xml", "/etc/passwd", "C:/Windows/evil.xml",
                                  "..\\..\\evil.xml"])
def test_member_paths_that_leave_the_package_are_refused(name):
    with pytest.raises(InteropError, match="outside the package"):
        read_zip(_zip({"imsmanifest.xml": b"<manifest/>", name: b"<x/>"}), "package.zip")


def test_safe_member_paths_are_normalised():
    assert safe_member_path("items/./media/a.png") == "items/media/a.png"
    assert safe_member_path("items\\q1.xml") == "items/q1.xml"


def test_a_zip_bomb_is_refused_before_it_is_unpacked():
    bomb = _zip({"imsmanifest.xml": b"<manifest/>", "items/big.xml": b"\0" * (MAX_FILE_BYTES + 10)})
    assert len(bomb) < 200_000
    with pytest.raises(InteropError, match="MB unpacked|zip bomb"):
        read_zip(bomb, "package.zip")
    ratio = _zip({"items/q.xml": b"<a>" + b" " * 5_000_000 + b"</a>"})
    with pytest.raises(InteropError, match="zip bomb"):
        read_zip(ratio, "package.zip")


def test_links_inside_a_package_are_refused():
    link = zipfile.ZipInfo("items/link.xml")
    link.external_attr = (stat.S_IFLNK | 0o777) << 16
    with pytest.raises(InteropError, match="is a link"):
        read_zip(_zip({"link": link}), "package.zip")


def test_a_damaged_package_is_refused():
    with pytest.raises(InteropError, match="not a zip package"):
        read_zip(b"PK\x03\x04 this is not really a zip", "package.zip")
