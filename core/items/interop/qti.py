"""IMS/1EdTech QTI 3.0: questions out as a content package, and in from packages or single item files.

A QTI 3.0 content package is a zip holding ``imsmanifest.xml`` (which lists
every item, its files and the pictures it depends on) and one
``qti-assessment-item`` file per question. ``qti_write`` builds such packages
so that they validate against the 1EdTech schemas; ``qti_read`` reads what
item banks and other tools export (packages with assessment tests, feedback
inline or in blocks, items with several answer boxes, QTI 2.x files) and
skips, with a reason, what a question here cannot hold.

This module is the format's entry point (``FORMAT``, ``sniff``, ``read``,
``write``), opens packages (the manifest, assessment tests, pictures an item
depends on, the metadata the writer leaves) and holds what both directions
share. Every file is read with ``safety``: zip paths never leave the package,
members have size limits, XML entities are refused; hostile XML refuses the
whole package, merely broken XML skips its item.
"""
from __future__ import annotations

import base64
import binascii
import dataclasses
import io
import json
import posixpath
import re
import urllib.parse
import zipfile
from fractions import Fraction
from typing import Callable, Optional, Union
from xml.etree.ElementTree import Element, SubElement

from core.items.interop import safety
from core.items.interop.model import InteropError, Question, ReadResult, Skipped, WriteResult

FORMAT = "qti3"
FILENAME = "questions-qti3.zip"

NS = "http://www.imsglobal.org/xsd/imsqtiasi_v3p0"
SCHEMA_LOCATION = "https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqti_asiv3p0_v1p0.xsd"
CP_NS = "http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1"
CP_SCHEMA_LOCATION = "https://purl.imsglobal.org/spec/qti/v3p0/schema/xsd/imsqtiv3p0_imscpv1p2_v1p0.xsd"
LOM_NS = "http://ltsc.ieee.org/xsd/LOM"
QMD_NS = "http://www.imsglobal.org/xsd/imsqti_metadata_v3p0"
MATHML_NS = "http://www.w3.org/1998/Math/MathML"
XSI_NS = "http://www.w3.org/2001/XMLSchema-instance"

ITEM_TYPE = "imsqti_item_xmlv3p0"
RESPONSE = "RESPONSE"
HINT_REQUEST = "HINTREQUEST"

# Our metadata inside the manifest: provenance as LOM keywords "workbench:KEY=VALUE"
# (or, when a key or value cannot be written that way, "workbench64:" + base64 of [key, value] as JSON),
# the category as a LOM classification whose taxon path has this source.
PROVENANCE_PREFIX = "workbench:"
PROVENANCE_B64_PREFIX = "workbench64:"
TAG_PREFIX = "workbench-tag:"         # a tag that would otherwise read as one of the above
CATEGORY_SOURCE = "workbench category"
UNITS_CLASS = "answer-units"          # the <span> after a number box that names its unit
MARKING_POINTS_CLASS = "marking-points"  # the list of points a marker looks for, in the scorer's rubric

ILLEGAL_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")   # XML 1.0 cannot carry these
_XML_BASE = "{http://www.w3.org/XML/1998/namespace}base"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_HTML_TAGS = {
    "a", "abbr", "acronym", "address", "article", "aside", "audio", "b", "bdi", "bdo", "big", "blockquote", "br",
    "caption", "center", "cite", "code", "col", "colgroup", "dd", "del", "details", "dfn", "div", "dl", "dt", "em",
    "embed", "figcaption", "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "i", "img", "ins",
    "kbd", "label", "li", "mark", "nav", "object", "ol", "p", "param", "picture", "pre", "q", "rb", "rp", "rt", "rtc",
    "ruby", "s", "samp", "section", "small", "source", "span", "strong", "sub", "summary", "sup", "table", "tbody",
    "td", "tfoot", "th", "thead", "tr", "track", "tt", "u", "ul", "var", "video", "math"}
# Answer boxes we cannot mark, in a teacher's words.
UNSUPPORTED = {
    "qti-inline-choice-interaction": "a drop-down menu inside the text",
    "qti-match-interaction": "a matching grid",
    "qti-associate-interaction": "pairing options up",
    "qti-order-interaction": "putting options in order",
    "qti-gap-match-interaction": "dragging words into gaps",
    "qti-hottext-interaction": "picking words in the text",
    "qti-hotspot-interaction": "clicking areas of a picture",
    "qti-graphic-order-interaction": "ordering areas of a picture",
    "qti-graphic-associate-interaction": "linking areas of a picture",
    "qti-graphic-gap-match-interaction": "dragging labels onto a picture",
    "qti-select-point-interaction": "clicking a point on a picture",
    "qti-position-object-interaction": "placing objects on a picture",
    "qti-slider-interaction": "a slider",
    "qti-upload-interaction": "uploading a file",
    "qti-drawing-interaction": "drawing on a picture",
    "qti-media-interaction": "playing a recording",
    "qti-custom-interaction": "a custom widget",
    "qti-portable-custom-interaction": "a custom widget (a portable custom interaction)",
}
_ROOT = re.compile(rb"<(?:[A-Za-z_][\w.-]*:)?(qti-assessment-item|qti-assessment-test|assessmentItem|assessmentTest)"
                   rb"[\s>/]")


def local(tag: str) -> str:
    """An element's name without its namespace."""
    return tag.rsplit("}", 1)[-1].split(":")[-1] if isinstance(tag, str) else ""


def snap(x: float) -> float:
    """A share computed by division, snapped to the simple fraction it was written from (0.1, 1/3)."""
    near = Fraction(x).limit_denominator(10000)
    return float(near) if abs(float(near) - x) <= 1e-12 * max(1.0, abs(x)) else x


def shortest(x: float, reads_back: Callable[[float], bool]) -> str:
    """``x`` written with the fewest digits that still read back as meant (``reads_back``), "0.3" not
    "0.30000000000000004"."""
    x = float(x)
    for digits in range(1, 18):
        written = f"{x:.{digits}g}"
        if reads_back(float(written)):
            return written if "e" in written or "." not in written else written.rstrip("0").rstrip(".")
    return repr(x)


def _kebab(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])([A-Z])", r"-\1", name).lower()


def text_of(el: Optional[Element]) -> str:
    return "".join(el.itertext()) if el is not None else ""


def children(el: Element, tag: str) -> list[Element]:
    return [c for c in el if c.tag == tag]


def child(el: Optional[Element], tag: str) -> Optional[Element]:
    if el is None:
        return None
    return next((c for c in el if c.tag == tag), None)


def normalise(root: Element) -> bool:
    """Every tag as its plain name; QTI 2.x names turned into QTI 3.0 ones. True when the file was QTI 2.x."""
    qti2 = False
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        ns, _, name = el.tag[1:].partition("}") if el.tag.startswith("{") else ("", "", el.tag)
        name = name.split(":")[-1]
        if "imsqti_v2p" in ns or "imsqti_item_v2p" in ns:
            qti2 = True
            el.tag = name if name in _HTML_TAGS else "qti-" + _kebab(name)
            el.attrib = {(_kebab(k) if not k.startswith("{") else k): v for k, v in el.attrib.items()}
        else:
            el.tag = name
    return qti2


def resolve(base_dir: str, ref: str, unquote: bool = True) -> Optional[str]:
    """A reference in a file as a package path, or None when it points outside the package (or elsewhere)."""
    ref = (ref or "").strip().split("#", 1)[0].split("?", 1)[0]
    if not ref or _SCHEME.match(ref) or ref.startswith(("/", "\\")):
        return None
    ref = (urllib.parse.unquote(ref) if unquote else ref).replace("\\", "/")
    path = posixpath.normpath(posixpath.join(base_dir, ref))
    if path == ".." or path.startswith("../") or path.startswith("/"):
        return None
    return path


def _find(members: dict[str, bytes], base_dir: str, href: str) -> Optional[str]:
    """The package member an href names (percent-decoded, or as written)."""
    for unquote in (True, False):
        path = resolve(base_dir, href, unquote)
        if path and path in members:
            return path
    return None


@dataclasses.dataclass
class Branch:
    """One branch of an item's response processing, read as data: when it applies and what it sets."""
    test: Optional[Element]             # None: an else, or rules outside any condition
    prior: list[Element]                # the tests before it in the same condition (what an else is the else of)
    actions: list[Element]              # the outcome values it sets directly


def branches(rules: list[Element]) -> list[Branch]:
    out: list[Branch] = []
    top = [r for r in rules if r.tag == "qti-set-outcome-value"]
    if top:
        out.append(Branch(None, [], top))
    for rule in rules:
        if rule.tag != "qti-response-condition":
            continue
        prior: list[Element] = []
        for part in rule:
            kids = list(part)
            if part.tag in ("qti-response-if", "qti-response-else-if"):
                test, body = (kids[0] if kids else None), kids[1:]
            elif part.tag == "qti-response-else":
                test, body = None, kids
            else:
                continue
            out.append(Branch(test, list(prior), [b for b in body if b.tag == "qti-set-outcome-value"]))
            out += [b for b in branches(body) if b.test is not None or b.prior]
            if test is not None:
                prior.append(test)
    return out


def sniff(data: bytes) -> bool:
    """A zip holding ``imsmanifest.xml`` or QTI item files, or XML whose root is a QTI item or test."""
    if data[:4] == b"PK\x03\x04":
        return _sniff_zip(data)
    return _sniff_xml(data[:4096])


def _sniff_xml(head: bytes) -> bool:
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        head = head.decode("utf-16", errors="ignore").encode("utf-8")
    body = re.sub(rb"<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>]*>", b"", head, flags=re.S).lstrip(b"\xef\xbb\xbf \t\r\n")
    m = _ROOT.match(body)
    if not m:
        return False
    if m.group(1).startswith(b"qti-"):
        return True
    return b"imsqti" in head                       # QTI 2.x: read too, in its own namespace


def _sniff_zip(data: bytes) -> bool:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        infos = archive.infolist()
    except (zipfile.BadZipFile, ValueError, OSError):
        return False
    names = [i.filename.replace("\\", "/") for i in infos]
    if any(n.rsplit("/", 1)[-1].lower() == "imsmanifest.xml" for n in names):
        return True
    looked = 0
    for info in infos:
        if not info.filename.lower().endswith(".xml") or looked >= 20:
            continue
        looked += 1
        try:
            with archive.open(info) as member:
                head = member.read(4096)
        except (zipfile.BadZipFile, RuntimeError, NotImplementedError, EOFError, ValueError, OSError):
            continue
        if _sniff_xml(head):
            return True
    return False


def read(data: bytes, name: str = "the QTI file") -> ReadResult:
    """The questions in a QTI 3.0 package (.zip) or single item file; what cannot be held is skipped."""
    from core.items.interop.qti_read import ItemReader       # here, as the item reader builds on this module
    what = name or "the QTI file"
    if data[:2] == b"PK":
        return _read_package(data, what)
    root = safety.parse_xml(data, what)
    qti2 = normalise(root)
    if root.tag == "qti-assessment-item":
        result = ItemReader(root, None, {}, [], qti2).read()
        if isinstance(result, Skipped):
            return ReadResult([], [result], FORMAT)
        return ReadResult([result], [], FORMAT)
    if root.tag == "qti-assessment-test":
        raise InteropError(f"{what} is a QTI assessment test, which only points to its questions; "
                           f"import the whole package (.zip) it came in.")
    if root.tag == "manifest":
        raise InteropError(f"{what} is the manifest of a content package; import the whole package (.zip).")
    raise InteropError(f"{what} is not a QTI file (its root element is <{root.tag}>); choose a QTI 3.0 package "
                       f"(.zip) or a qti-assessment-item file.")


@dataclasses.dataclass
class _Entry:
    path: str
    label: str
    metadata: Optional[Element] = None
    depends: list[str] = dataclasses.field(default_factory=list)


def _read_package(data: bytes, what: str) -> ReadResult:
    from core.items.interop.qti_read import ItemReader
    members = safety.read_zip(data, what)
    manifests = sorted((p for p in members if p.rsplit("/", 1)[-1].lower() == "imsmanifest.xml"),
                       key=lambda p: (p.count("/"), p))
    entries: list[_Entry] = []
    tests: list[str] = []
    skipped: list[Skipped] = []
    if manifests:
        entries, tests, skipped = _from_manifest(members, manifests[0], what)
    parsed: dict[str, Union[tuple[Element, bool], Skipped]] = {}
    if not entries and not tests:                  # no manifest (or one listing no QTI): every item file
        for path in sorted(p for p in members if p.lower().endswith(".xml") and p not in manifests):
            parsed[path] = _parse_member(members, path, what)
            root = parsed[path][0] if isinstance(parsed[path], tuple) else None
            if root is not None and root.tag == "qti-assessment-item":
                entries.append(_Entry(path, root.get("title") or root.get("identifier") or path))
            elif root is not None and root.tag == "qti-assessment-test":
                tests.append(path)
    seen = {e.path for e in entries}
    for test_path in tests:                         # a test is read only for the items it points to
        found = parsed.get(test_path) or _parse_member(members, test_path, what)
        for ref in (found[0].iter("qti-assessment-item-ref") if isinstance(found, tuple) else []):
            path = _find(members, posixpath.dirname(test_path), ref.get("href") or "")
            if path and path not in seen:
                seen.add(path)
                entries.append(_Entry(path, ref.get("identifier") or path))
    if not entries and not skipped:
        raise InteropError(f"{what} holds no QTI questions (no item listed in its manifest and no "
                           f"qti-assessment-item file); export the questions again as a QTI 3.0 package.")
    questions: list[Question] = []
    for entry in entries:
        found = parsed.get(entry.path) or _parse_member(members, entry.path, what)
        if isinstance(found, Skipped):
            skipped.append(Skipped(entry.label, found.reason))
            continue
        root, qti2 = found
        if root.tag != "qti-assessment-item":
            skipped.append(Skipped(entry.label, f"its file '{entry.path}' is not a QTI item "
                                                f"(its root element is <{root.tag}>)."))
            continue
        result = ItemReader(root, entry.path, members, entry.depends, qti2).read()
        if isinstance(result, Skipped):
            skipped.append(result)
            continue
        if entry.metadata is not None:
            _apply_metadata(result, entry.metadata)
        questions.append(result)
    return ReadResult(questions, skipped, FORMAT)


def _parse_member(members: dict[str, bytes], path: str, what: str) -> Union[tuple[Element, bool], Skipped]:
    """A package's XML file, its tags normalised (and whether it was QTI 2.x), or why it was skipped.

    Hostile XML (entity declarations) refuses the whole package; merely broken
    XML skips the one file.
    """
    body = members[path]
    try:
        root = safety.parse_xml(body, f"{what}: '{path}'")
    except InteropError as exc:
        if re.search(rb"<!(ENTITY|DOCTYPE)", body[:65536]):
            raise
        return Skipped(path, str(exc))
    return root, normalise(root)


def _from_manifest(members: dict[str, bytes], manifest_path: str, what: str):
    root = safety.parse_xml(members[manifest_path], f"{what}: '{manifest_path}'")
    normalise(root)
    base = posixpath.dirname(manifest_path)
    resources = [r for r in root.iter("resource")]
    by_id = {r.get("identifier"): r for r in resources if r.get("identifier")}
    entries: list[_Entry] = []
    tests: list[str] = []
    skipped: list[Skipped] = []
    seen: set[str] = set()

    def files_of(resource: Element) -> list[str]:
        here = base
        if resource.get(_XML_BASE):
            here = resolve(base, resource.get(_XML_BASE)) or base
        return [p for f in children(resource, "file") for p in [_find(members, here, f.get("href") or "")] if p]

    for resource in resources:
        kind = (resource.get("type") or "").lower()
        if not (kind.startswith("imsqti_item_xml") or kind.startswith("imsqti_test_xml")):
            continue
        href = resource.get("href") or next((f.get("href") for f in children(resource, "file")), "")
        label = resource.get("identifier") or href or "a package entry"
        path = _find(members, base, href or "") if href else None
        if path is None:
            resolved = resolve(base, href or "")
            if kind.startswith("imsqti_item_xml"):
                skipped.append(Skipped(label, f"the package lists the file '{resolved or href}' but does not "
                                              f"hold it; export the package again."))
            continue
        if kind.startswith("imsqti_test_xml"):
            tests.append(path)
            continue
        if path in seen:
            continue
        seen.add(path)
        depends = [p for p in files_of(resource) if p != path]
        for dep in children(resource, "dependency"):
            target = by_id.get(dep.get("identifierref"))
            if target is not None:
                depends += [p for p in files_of(target) if p not in depends]
        entries.append(_Entry(path, label, child(resource, "metadata"), depends))
    return entries, tests, skipped


def _provenance_keyword(key: str, value: str) -> str:
    plain = f"{PROVENANCE_PREFIX}{key}={value}"
    if "=" in key or ILLEGAL_XML.search(plain):
        packed = base64.b64encode(json.dumps([key, value], ensure_ascii=False).encode("utf-8")).decode("ascii")
        return PROVENANCE_B64_PREFIX + packed
    return plain


def lom_metadata(q: Question) -> Element:
    """The LOM the writer puts in a question's manifest entry: its name, provenance, tags and category."""
    lom = Element("lom", {"xmlns": LOM_NS})
    general = SubElement(lom, "general")
    if q.name:
        SubElement(SubElement(general, "title"), "string").text = q.name
    for key, value in (q.provenance or {}).items():
        SubElement(SubElement(general, "keyword"), "string").text = _provenance_keyword(str(key), str(value))
    for tag in q.tags:
        if tag.startswith((PROVENANCE_PREFIX, PROVENANCE_B64_PREFIX, TAG_PREFIX)) or not tag.strip():
            tag = TAG_PREFIX + tag
        SubElement(SubElement(general, "keyword"), "string").text = tag
    if q.category:
        classification = SubElement(lom, "classification")
        purpose = SubElement(classification, "purpose")
        SubElement(purpose, "source").text = "LOMv1.0"
        SubElement(purpose, "value").text = "discipline"
        path = SubElement(classification, "taxonPath")
        SubElement(SubElement(path, "source"), "string").text = CATEGORY_SOURCE
        for n, level in enumerate(q.category, 1):
            taxon = SubElement(path, "taxon")
            SubElement(taxon, "id").text = str(n)
            SubElement(SubElement(taxon, "entry"), "string").text = level
    return lom


def _apply_metadata(q: Question, metadata: Element) -> None:
    """Name, provenance, tags and category from the manifest entry's LOM, as the writer puts them."""
    lom = next(metadata.iter("lom"), None)
    if lom is None:
        return
    general = child(lom, "general")
    title = child(child(general, "title"), "string")
    if title is not None and title.text:
        q.name = title.text
    for keyword in (general.iter("keyword") if general is not None else []):
        for string in children(keyword, "string"):
            value = string.text or ""
            if value.startswith(PROVENANCE_B64_PREFIX):
                try:
                    key, val = json.loads(base64.b64decode(value[len(PROVENANCE_B64_PREFIX):], validate=True))
                    q.provenance[str(key)] = str(val)
                    continue
                except (ValueError, TypeError, binascii.Error):
                    q.notes.append("a provenance keyword could not be decoded and was kept as a tag")
            elif value.startswith(PROVENANCE_PREFIX):
                key, _, val = value[len(PROVENANCE_PREFIX):].partition("=")
                q.provenance[key] = val
                continue
            if value.strip():
                q.tags.append(value.removeprefix(TAG_PREFIX))
    for path in lom.iter("taxonPath"):
        source = child(child(path, "source"), "string")
        if source is None or (source.text or "").strip() != CATEGORY_SOURCE:
            continue
        q.category = [(child(child(t, "entry"), "string").text or "") for t in children(path, "taxon")
                      if child(child(t, "entry"), "string") is not None]


def write(questions: list[Question], title: str = "Workbench questions") -> WriteResult:
    """A QTI 3.0 content package (.zip) holding one item per question; what QTI cannot hold is skipped."""
    from core.items.interop.qti_write import write_qti
    return write_qti(questions, title)
