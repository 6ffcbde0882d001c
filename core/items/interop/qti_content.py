"""What a student sees of one QTI item, in our text: its stem, prompts, passages, pictures, sounds and maths.

Markup becomes HTML for ``text.from_html``: answer boxes are left out (a text
box stays as a blank in its sentence, an interaction's prompt where the
interaction was), as are feedback, scorers' notes and text for screen readers
only. Pictures, sounds and films (files of the package, or pictures written in
as ``data:`` addresses) are kept as the question's files and named in its
text; a shared passage (stimulus) the package holds is read with its own
pictures. TeX annotations of MathML written with delimiters are made bare.

``qti_read.ItemReader`` builds on this to read the item's key.
"""
from __future__ import annotations

import html
import mimetypes
import posixpath
import re
import urllib.parse
from typing import Optional
from xml.etree.ElementTree import Element

from core.items.interop import data_uri, safety, text
from core.items.interop.model import InteropError, Media
from core.items.interop.qti import UNITS_CLASS, child, children, normalise, resolve, text_of

BLANK = "\ue000"                         # where a text box sits in a sentence, while the stem is read
_VOID = {"img", "br", "hr", "col", "area", "wbr", "source", "track", "param", "embed", "input"}
_HIDDEN = "qti-visually-hidden"           # text for screen readers only: not part of the question as shown
# a TeX annotation written with its delimiters ("\\[e^2\\]", "$x$", or "[e^2]" by tools that drop the backslashes)
_DELIMITED = re.compile(r"\s*(?:\\\[((?:(?!\\\]).)*)\\\]|\\\(((?:(?!\\\)).)*)\\\)"      # \[ \]  \( \)
                        r"|\$\$([^$]*)\$\$|\$([^$]*)\$|\[([^\[\]]*)\])\s*\Z", re.S)    # $$ $$  $ $  [ ]
_TEX = ("application/x-tex", "tex", "latex", "application/x-latex", "text/x-tex")


class ContentReader:
    """The content of one item found at ``path`` in a package's ``members`` (None: a file on its own).

    ``depends`` are the package files the manifest says the item needs; its
    pictures and sounds among them are kept with the question even when the
    text does not show them. ``notes`` gather what a reviewer should know.
    """

    def __init__(self, root: Element, path: Optional[str], members: dict[str, bytes], depends: list[str],
                 qti2: bool):
        self.root = root
        self.path = path
        self.base = posixpath.dirname(path) if path else ""
        self.members = members
        self.notes: list[str] = ["read from a QTI 2.x file"] if qti2 else []
        self.names: dict[str, str] = {}           # package path -> media name
        self.media: list[Media] = []
        self.missing: set[str] = set()
        for dep in depends:
            if (mimetypes.guess_type(dep)[0] or "").split("/")[0] in ("image", "audio", "video"):
                self.media_name(dep)
        self.label = root.get("title") or root.get("identifier") or (path or "the question")

    # ---- files

    def media_name(self, path: str) -> str:
        if path not in self.names:
            base = path.rsplit("/", 1)[-1]
            name, n = base, 1
            while name in self.names.values():
                n += 1
                stem, dot, ext = base.rpartition(".")
                name = f"{stem}-{n}.{ext}" if dot else f"{base}-{n}"
            self.names[path] = name
            mime = mimetypes.guess_type(base)[0] or "application/octet-stream"
            self.media.append(Media(name, mime, self.members[path]))
        return self.names[path]

    def data_name(self, src: str) -> Optional[str]:
        """A picture written into the text as a data: address, kept as a file of the question."""
        decoded = data_uri.decode(src)
        if decoded is None:
            self.notes.append("a picture written into the text could not be read; it was left out")
            return None
        mime, body, name = decoded
        wanted = name or f"picture-{sum(1 for m in self.media if m.name.startswith('picture-')) + 1}" \
                         f"{data_uri.extension(mime)}"
        name, n = wanted, 1
        while name in self.names.values() or any(m.name == name for m in self.media):
            n += 1
            stem, dot, ext = wanted.rpartition(".")
            name = f"{stem}-{n}.{ext}" if dot else f"{wanted}-{n}"
        self.media.append(Media(name, mime, body))
        return name

    def image_name(self, src: str) -> Optional[str]:
        if not src:
            return None
        if src.startswith("data:"):
            return self.data_name(src)
        path = resolve(self.base, src) if self.path is not None else None
        if path and path in self.members:
            return self.media_name(path)
        name = urllib.parse.unquote(src.split("?")[0].rstrip("/").rsplit("/", 1)[-1]) or None
        if name and name not in self.missing:
            self.missing.add(name)
            self.notes.append(f"the picture '{name}' is not in the {'package' if self.path else 'file'}")
        return name

    def collect_media(self) -> None:
        refs = {"img": "src", "object": "data", "source": "src", "audio": "src", "video": "src", "embed": "src"}
        for el in self.root.iter():
            attr = refs.get(el.tag)
            if attr and el.get(attr) and self.path is not None:
                path = resolve(self.base, el.get(attr))
                if path and path in self.members:
                    self.media_name(path)

    # ---- text

    def html(self, el: Element, skip_inline_feedback: bool = True) -> str:
        """The content of ``el`` as HTML for ``text.from_html``: answer boxes, feedback and scorers' notes
        left out, a text box as a blank, an interaction's prompt kept where the interaction was."""
        out: list[str] = [html.escape(el.text, quote=False)] if el.text else []
        for kid in el:
            self._html(kid, out, skip_inline_feedback)
        return "".join(out)

    def _html(self, el: Element, out: list[str], skip_inline_feedback: bool) -> None:
        tag = el.tag if isinstance(el.tag, str) else ""
        classes = (el.get("class") or "").split()
        if not tag or _HIDDEN in classes:
            pass
        elif tag in ("qti-feedback-block", "qti-modal-feedback", "qti-catalog-info", "qti-stylesheet",
                     "qti-end-attempt-interaction") or UNITS_CLASS in classes \
                or (tag == "qti-feedback-inline" and skip_inline_feedback):
            pass
        elif tag == "qti-rubric-block":
            if "candidate" in (el.get("view") or "").split():
                body = child(el, "qti-content-body")
                out.append("<div>" + self.html(body if body is not None else el) + "</div>")
        elif tag == "qti-text-entry-interaction":
            out.append(BLANK)
        elif tag.endswith("-interaction"):
            prompt = child(el, "qti-prompt")
            if prompt is not None:
                out.append("<div>" + self.html(prompt) + "</div>")
        elif tag in ("audio", "video", "object"):
            out.append(self._player(el, skip_inline_feedback))
        elif tag.startswith("qti-"):
            out.append(self.html(el, skip_inline_feedback=skip_inline_feedback))
        else:
            attrs = "".join(f' {k}="{html.escape(v)}"' for k, v in el.attrib.items() if not k.startswith("{"))
            if tag in _VOID:
                out.append(f"<{tag}{attrs}/>")
            else:
                out.append(f"<{tag}{attrs}>{self.html(el, skip_inline_feedback=skip_inline_feedback)}</{tag}>")
        if el.tail:
            out.append(html.escape(el.tail, quote=False))

    def _player(self, el: Element, skip_inline_feedback: bool) -> str:
        """A picture, sound or film (<object>, <audio>, <video>) as a picture the text names; other objects
        as the words they hold for players that cannot show them."""
        src = el.get("data") if el.tag == "object" else (
            el.get("src") or next((s.get("src") for s in el.iter("source") if s.get("src")), None))
        kind = (el.get("type") or mimetypes.guess_type((src or "").split("?")[0])[0] or "").split("/")[0]
        if el.tag == "object" and src and src.startswith("data:"):
            kind = (data_uri.decode(src) or ("",))[0].split("/")[0]
        if not src or (el.tag == "object" and kind not in ("image", "audio", "video")):
            return self.html(el, skip_inline_feedback=skip_inline_feedback) if el.tag == "object" else ""
        alt = el.get("title") or el.get("alt") or " ".join(text_of(el).split())     # or the words shown instead
        return f'<img src="{html.escape(src)}" alt="{html.escape(alt)}"/>'

    def passages(self) -> list[str]:
        """The text of the shared passages (stimuli) the item refers to and the package holds, its pictures
        kept; a passage that cannot be brought in is noted."""
        found = []
        for ref in children(self.root, "qti-assessment-stimulus-ref"):
            path = resolve(self.base, ref.get("href") or "") if self.path is not None else None
            body = None
            if path and path in self.members:
                try:
                    passage = safety.parse_xml(self.members[path], f"the passage '{path}'")
                    normalise(passage)
                    body = child(passage, "qti-stimulus-body")
                except InteropError:
                    body = None
            if body is None:
                self.notes.append("the shared passage (stimulus) it refers to was not brought in")
                continue
            item_base, self.base = self.base, posixpath.dirname(path)        # its pictures are beside it
            try:
                found.append(self.our_text(self.html(body)))
            finally:
                self.base = item_base
        return found

    def our_text(self, markup: str) -> str:
        return text.from_html(markup, image_name=self.image_name)[0]

    def content_text(self, el: Element) -> str:
        body = child(el, "qti-content-body")
        return self.our_text(self.html(body if body is not None else el, skip_inline_feedback=False))

    def stem(self, body: Element) -> str:
        source = self.our_text(self.html(body))
        paragraphs = []
        for para in re.split(r"\n\s*\n", source):
            if not para.replace(BLANK, "").strip(" |\n"):
                continue
            paragraphs.append(para.replace(BLANK, "_____"))
        return text.tidy_text("\n\n".join(paragraphs))


def tidy_annotations(root: Element) -> None:
    """TeX annotations written with their delimiters, as the bare TeX the maths reader expects.

    Some tools wrap the annotation in ``\\[ \\]`` or ``$ $``, or write ``[e^2]`` having dropped the backslashes;
    a bare ``[...]`` is taken as such delimiters only when the maths it annotates does not itself start with "[".
    """
    for semantics in root.iter("semantics"):
        shown = "".join(text_of(e) for e in semantics if e.tag not in ("annotation", "annotation-xml")).strip()
        for note in children(semantics, "annotation"):
            m = _DELIMITED.match(note.text or "")
            if (note.get("encoding") or "").lower() not in _TEX or not m:
                continue
            inner = next(g for g in m.groups() if g is not None)
            if m.group(5) is None or not shown.startswith("["):
                note.text = inner.strip()
