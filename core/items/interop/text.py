"""Question text between our form (paragraphs, ``$maths$``, ``![alt](file)``) and the HTML the formats carry.

``to_html`` writes a stem as HTML with its maths either in TeX delimiters
(Moodle's ``\\(...\\)``) or as MathML carrying its TeX as an annotation (QTI),
so that reading it back gives the same stem. ``from_html`` reads whatever HTML
a file holds (Moodle's editor output, QTI's XHTML, MathML with or without TeX
annotations) back into our form; it never runs anything, it only reads tags.
"""
from __future__ import annotations

import html
import re
import urllib.parse
from html.parser import HTMLParser
from typing import Callable, Optional

from core.items.mathml import MATH, latex_to_mathml, latex_to_text, mathml_to_tex

MATHML_NS = "http://www.w3.org/1998/Math/MathML"
_IMAGE = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.S)


# --------------------------------------------------------------------------
# Out: our text as HTML


def math_as_mathml(latex: str, display: bool = False) -> str:
    """MathML for ``latex`` with the TeX kept as an annotation (so it can be read back as written)."""
    made = latex_to_mathml(latex, block=display)
    inner = (re.sub(r"^<math[^>]*>|</math>$", "", made) if made is not None
             else f"<mtext>{html.escape(latex_to_text(latex), quote=False)}</mtext>")
    mode = "block" if display else "inline"
    return (f'<math xmlns="{MATHML_NS}" display="{mode}"><semantics><mrow>{inner}</mrow>'
            f'<annotation encoding="application/x-tex">{html.escape(latex, quote=False)}</annotation>'
            f'</semantics></math>')


def math_as_tex(latex: str, display: bool = False) -> str:
    """Moodle's TeX delimiters: \\( ... \\) inline, \\[ ... \\] displayed."""
    escaped = html.escape(latex, quote=False)       # spaces kept: the stem reads back as it was written
    return f"\\[{escaped}\\]" if display else f"\\({escaped}\\)"


def to_html(text: str, math: Callable[[str, bool], str] = math_as_tex,
            media_url: Callable[[str], str] = lambda name: name) -> str:
    """Our text as HTML paragraphs; each piece of maths through ``math``; pictures through ``media_url``."""
    paragraphs = [p for p in re.split(r"\n\s*\n", (text or "").strip()) if p.strip()]
    return "".join(f"<p>{_inline_html(p, math, media_url)}</p>" for p in paragraphs)


def _inline_html(text: str, math: Callable[[str, bool], str], media_url: Callable[[str], str]) -> str:
    out, last = [], 0
    for m in MATH.finditer(text):
        out.append(_plain_html(text[last:m.start()], media_url))
        display = m.group(1) is not None or m.group(2) is not None
        out.append(math(next(g for g in m.groups() if g is not None), display))
        last = m.end()
    out.append(_plain_html(text[last:], media_url))
    return "".join(out)


def _plain_html(text: str, media_url: Callable[[str], str]) -> str:
    out, last = [], 0
    for m in _IMAGE.finditer(text):
        out.append(_escape_lines(text[last:m.start()]))
        out.append(f'<img src="{html.escape(media_url(urllib.parse.unquote(m[2])))}" alt="{html.escape(m[1])}"/>')
        last = m.end()
    out.append(_escape_lines(text[last:]))
    return "".join(out)


def _escape_lines(text: str) -> str:
    escaped = html.escape(text, quote=False).replace("\n", "<br/>")
    return _BOLD.sub(r"<strong>\1</strong>", escaped)


# --------------------------------------------------------------------------
# In: HTML as our text

_BLOCKS = {"p", "div", "section", "article", "blockquote", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol",
           "table", "tr", "pre", "figure", "figcaption", "center", "qti-item-body", "hr", "dl", "dt", "dd"}
_SKIP = {"script", "style", "head", "title", "noscript", "template", "object", "embed", "iframe", "svg"}
_SUPERSCRIPTS = str.maketrans("0123456789+-", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻")
_SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")


class _Reader(HTMLParser):
    def __init__(self, image_name: Callable[[str], Optional[str]]):
        super().__init__(convert_charrefs=True)
        self.image_name = image_name
        self.parts: list[str] = []
        self.images: list[str] = []
        self.skip = 0
        self.pre = 0
        self.math: Optional[list] = None      # the MathML being read: a stack of [tag, attrs, children]
        self.sup: list[tuple[str, int]] = []

    # the maths is gathered as a small tree, then written as TeX
    def handle_starttag(self, tag: str, attrs: list) -> None:
        tag = tag.lower().split(":")[-1]
        if self.math is not None:
            node = [tag, dict(attrs), []]
            self.math[-1][2].append(node)
            self.math.append(node)
            return
        if tag == "math":
            self.math = [["math", dict(attrs), []]]
            return
        if tag in _SKIP:
            self.skip += 1
        elif tag in _BLOCKS:
            self.parts.append("\n\n")
            self.pre += tag == "pre"
        elif tag == "br":
            self.parts.append("\n")
        elif tag == "li":
            self.parts.append("\n- ")
        elif tag in ("td", "th"):
            self.parts.append(" | ")
        elif tag in ("b", "strong"):
            self.parts.append("**")
        elif tag in ("sup", "sub"):
            self.sup.append((tag, len(self.parts)))
        elif tag in ("img", "qti-img", "object"):
            a = dict(attrs)
            name = self.image_name(a.get("src") or a.get("data") or "")
            if name:
                self.images.append(name)
                alt = (a.get("alt") or "").replace("]", "")
                self.parts.append(f"![{alt}]({urllib.parse.quote(name)})")

    def handle_startendtag(self, tag: str, attrs: list) -> None:
        self.handle_starttag(tag, attrs)
        if self.math is not None or tag.lower().split(":")[-1] in ("math",):
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        tag = tag.lower().split(":")[-1]
        if self.math is not None:
            if len(self.math) == 1 and tag == "math":
                self.parts.append(_math_text(self.math[0]))
                self.math = None
            elif len(self.math) > 1 and self.math[-1][0] == tag:
                self.math.pop()
            return
        if tag in _SKIP:
            self.skip = max(0, self.skip - 1)
        elif tag in _BLOCKS:
            self.parts.append("\n\n")
            self.pre -= tag == "pre" and self.pre > 0
        elif tag in ("b", "strong"):
            self.parts.append("**")
        elif tag in ("sup", "sub") and self.sup and self.sup[-1][0] == tag:
            _, start = self.sup.pop()
            inner = "".join(self.parts[start:]).strip()
            del self.parts[start:]
            table = _SUPERSCRIPTS if tag == "sup" else _SUBSCRIPTS
            small = inner.translate(table)
            if small != inner and not re.search(r"[0-9+\-]", small):
                self.parts.append(small)
            else:
                self.parts.append(("^" if tag == "sup" else "_") + (inner if len(inner) == 1 else f"({inner})"))

    def handle_data(self, data: str) -> None:
        if self.math is not None:
            self.math[-1][2].append(data)
        elif not self.skip:
            self.parts.append(data if self.pre else re.sub(r"[ \t\r\n\f]+", " ", data))


def from_html(source: str, image_name: Callable[[str], Optional[str]] = None) -> tuple[str, list[str]]:
    """Our text for an HTML fragment, and the names of the pictures it shows (in order).

    ``image_name`` turns an ``<img src>`` into the name of the question's file
    (None leaves the picture out); by default the last part of the path.
    """
    reader = _Reader(image_name or _default_image_name)
    reader.feed(source or "")
    reader.close()
    if reader.math is not None:                       # a <math> never closed
        reader.parts.append(_math_text(reader.math[0]))
    text = "".join(reader.parts)
    text = re.sub(r"\*\*(\s*)\*\*", r"\1", text)       # bold around nothing
    return tex_to_dollars(tidy_text(text)), reader.images


def _default_image_name(src: str) -> Optional[str]:
    if not src or src.startswith("data:"):
        return None
    return urllib.parse.unquote(src.split("?")[0].rstrip("/").rsplit("/", 1)[-1]) or None


def tex_to_dollars(text: str) -> str:
    """Maths in TeX delimiters as we keep it: between single dollars, or double for displayed maths.

    ``\\[ \\]`` is displayed; so is ``$$ $$`` on a line of its own (Moodle's TeX
    filter also uses ``$$`` within a sentence, which is maths in the line).
    """
    def one(m: re.Match) -> str:
        inner = next(g for g in m.groups() if g is not None)
        if not inner.strip():
            return ""
        whole_line = (m.start() == 0 or text[m.start() - 1] == "\n") and (m.end() == len(text) or text[m.end()] == "\n")
        display = m.group(2) is not None or (m.group(1) is not None and whole_line)
        return f"$${inner}$$" if display else f"${inner}$"
    return MATH.sub(one, text)


def tidy_text(text: str) -> str:
    """Spaces and blank lines as we keep them: no trailing spaces, one blank line between paragraphs."""
    lines = [re.sub(r"[ \t]+", " ", line).strip() for line in text.replace("\r\n", "\n").split("\n")]
    out = "\n".join(lines)
    out = re.sub(r"\n{3,}", "\n\n", out)
    return out.strip()


def _math_text(node) -> str:
    tex = mathml_to_tex(node)
    if not tex.strip():
        return ""
    return f"$${tex}$$" if node[1].get("display") == "block" else f"${tex}$"
