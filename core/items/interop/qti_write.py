"""Questions as a QTI 3.0 content package: ``imsmanifest.xml``, one item file per question, and their files.

Each item is written by ``qti_item_write``. Items cannot carry arbitrary elements, so a question's provenance,
category, name and tags go into its manifest entry's LOM metadata; pictures and sounds are package files
the item depends on.
"""
from __future__ import annotations

import hashlib
import io
import re
import urllib.parse
import zipfile
from xml.etree.ElementTree import Element, SubElement

from core.items.interop.model import ESSAY, Question, Skipped, WriteResult
from core.items.interop.qti import (CP_NS, CP_SCHEMA_LOCATION, FILENAME, FORMAT, ILLEGAL_XML, ITEM_TYPE, LOM_NS,
                                    QMD_NS, XSI_NS, lom_metadata)
from core.items.interop.qti_item_write import (CannotWrite, ItemWriter, check_question, element, identifier,
                                                serialize)

_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_ZIP_TIME = (2000, 1, 1, 0, 0, 0)


def write_qti(questions: list[Question], title: str = "Workbench questions") -> WriteResult:
    package = _Package(title or "Workbench questions")
    written: list[str] = []
    skipped: list[Skipped] = []
    for number, q in enumerate(questions, 1):
        label = q.name or f"question {number}"
        try:
            package.add(q, number)
        except CannotWrite as exc:
            skipped.append(Skipped(label, str(exc)))
            continue
        written.append(label)
    return WriteResult(package.zip(), written, skipped, FORMAT, FILENAME)


def _href(path: str) -> str:
    return urllib.parse.quote(path, safe="/")


class _Package:
    def __init__(self, title: str):
        self.title = title
        self.files: dict[str, bytes] = {}
        self.media_ids: dict[str, str] = {}              # package path -> resource identifier
        self.used: set[str] = set()
        self.items: list[Element] = []
        self.media_resources: list[Element] = []

    def add(self, q: Question, number: int) -> None:
        check_question(q)
        base = identifier((q.provenance or {}).get("item") or q.name, f"question-{number}")
        ident, n = base, 1
        while ident.lower() in self.used:
            n += 1
            ident = f"{base}-{n}"
        places = self.place_media(q, ident)
        missing: list[str] = []

        def media_url(name: str) -> str:
            if name in places:
                return _href(places[name][len("items/"):])
            if _SCHEME.match(name):
                return name
            missing.append(name)
            return _href("media/" + name)
        item = ItemWriter(q, ident, media_url)
        root = item.build()
        if missing:
            raise CannotWrite(f"the picture '{missing[0]}' it shows is not attached to it.")
        body = serialize(root)
        # committed only now that the item is whole
        self.used.add(ident.lower())
        path = f"items/{ident}.xml"
        self.files[path] = body
        deps = []
        for m in q.media:
            place = places[m.name]
            if place not in self.media_ids:
                rid = f"MEDIA-{len(self.media_ids) + 1}"
                while rid.lower() in self.used:
                    rid += "-file"
                self.used.add(rid.lower())
                self.media_ids[place] = rid
                self.files[place] = m.data
                resource = element("resource", {"identifier": rid, "type": "webcontent", "href": _href(place)})
                SubElement(resource, "file", {"href": _href(place)})
                self.media_resources.append(resource)
            if self.media_ids[place] not in deps:
                deps.append(self.media_ids[place])
        resource = element("resource", {"identifier": ident, "type": ITEM_TYPE, "href": _href(path)})
        metadata = SubElement(resource, "metadata")
        qmd = SubElement(metadata, "qtiMetadata", {"xmlns": QMD_NS})
        SubElement(qmd, "timeDependent").text = "false"
        SubElement(qmd, "interactionType").text = item.interaction
        if q.hints:
            SubElement(qmd, "interactionType").text = "endAttemptInteraction"
        SubElement(qmd, "feedbackType").text = "nonadaptive" if item.modal or q.hints else "none"
        SubElement(qmd, "solutionAvailable").text = "true" if q.kind != ESSAY else "false"
        SubElement(qmd, "scoringMode").text = "human" if q.kind == ESSAY else "responseprocessing"
        metadata.append(lom_metadata(q))
        SubElement(resource, "file", {"href": _href(path)})
        for rid in deps:
            SubElement(resource, "dependency", {"identifierref": rid})
        self.items.append(resource)

    def place_media(self, q: Question, ident: str) -> dict[str, str]:
        """Where each of the question's files goes in the package (name -> path)."""
        places: dict[str, str] = {}
        for m in q.media:
            name = m.name or ""
            if (not name.strip() or "/" in name or "\\" in name or name in (".", "..") or ILLEGAL_XML.search(name)
                    or len(name) > 200):
                raise CannotWrite(f"its file name '{name}' cannot be stored in a package; rename the file.")
            if name in places:
                raise CannotWrite(f"it has two files named '{name}'; rename one.")
            path = f"items/media/{name}"
            if path in self.files and self.files[path] != m.data:
                path = f"items/media/{ident}/{name}"
            places[name] = path
        return places

    def manifest(self) -> bytes:
        digest = hashlib.sha1("\n".join(sorted(self.files)).encode("utf-8")).hexdigest()[:12]
        root = element("manifest", {"xmlns": CP_NS, "xmlns:xsi": XSI_NS,
                                "xsi:schemaLocation": f"{CP_NS} {CP_SCHEMA_LOCATION}",
                                "identifier": f"MANIFEST-{digest}"})
        metadata = SubElement(root, "metadata")
        SubElement(metadata, "schema").text = "QTI Package"
        SubElement(metadata, "schemaversion").text = "3.0.0"
        lom = SubElement(metadata, "lom", {"xmlns": LOM_NS})
        SubElement(SubElement(SubElement(lom, "general"), "title"), "string").text = ILLEGAL_XML.sub("", self.title)
        SubElement(root, "organizations")
        resources = SubElement(root, "resources")
        resources.extend(self.items + self.media_resources)
        return serialize(root)

    def zip(self) -> bytes:
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for path, data in [("imsmanifest.xml", self.manifest()), *self.files.items()]:
                info = zipfile.ZipInfo(path, date_time=_ZIP_TIME)
                info.compress_type = zipfile.ZIP_DEFLATED
                info.external_attr = 0o644 << 16
                archive.writestr(info, data)
        return out.getvalue()
