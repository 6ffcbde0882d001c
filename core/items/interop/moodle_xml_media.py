"""The pictures, sounds and films of a Moodle XML question: how its text shows them, what type each file is."""
from __future__ import annotations

import html
import mimetypes
import re


def players_as_pictures(raw: str) -> str:
    """Sounds and films (<audio>, <video>) and links to the question's files as pictures, so the text names them."""
    def player(m: re.Match) -> str:
        src = re.search(r"""\bsrc\s*=\s*(["'])(.*?)\1""", m[2] or "", re.S) or \
            re.search(r"""<source\b[^>]*\bsrc\s*=\s*(["'])(.*?)\1""", m[3] or "", re.S)
        if not src:
            return m[0]
        title = re.search(r"""\btitle\s*=\s*(["'])(.*?)\1""", m[2] or "", re.S)
        alt = html.unescape(title[2]) if title else ""
        return f'<img src="{src[2]}" alt="{html.escape(alt)}"/>'
    raw = re.sub(r"<(audio|video)\b([^>]*)>(.*?)</\1\s*>", player, raw, flags=re.S | re.I)

    def link(m: re.Match) -> str:
        inner = html.unescape(re.sub(r"<[^>]+>", "", m[3])).strip()
        return f'<img src="{m[2]}" alt="{html.escape(inner)}"/>'
    return re.sub(r"""<a\b[^>]*\bhref\s*=\s*(["'])(@@PLUGINFILE@@/[^"']*)\1[^>]*>(.*?)</a\s*>""", link, raw,
                  flags=re.S | re.I)


def mime_of(name: str, data: bytes) -> str:
    """A file's type from its name, else from its first bytes (old files name pictures without an ending)."""
    guessed = mimetypes.guess_type(name)[0]
    if guessed:
        return guessed
    for magic, mime in ((b"\x89PNG", "image/png"), (b"\xff\xd8\xff", "image/jpeg"), (b"GIF8", "image/gif"),
                        (b"ID3", "audio/mpeg"), (b"OggS", "audio/ogg"), (b"RIFF", "audio/wav")):
        if data.startswith(magic):
            return mime
    if data.lstrip()[:5] in (b"<svg ", b"<?xml") and b"<svg" in data[:2048]:
        return "image/svg+xml"
    return "application/octet-stream"


def outside_media(raw: str, players: bool = True) -> list[str]:
    """The pictures, sounds and films a text links to, or plays (``players``), from another site (not in the file).

    (A picture shown with <img> is not listed: the readers already note a picture that is not in the file.)
    """
    found = []
    tags = r"a\b[^>]*\bhref" + (r"|(?:audio|video|source)\b[^>]*\bsrc" if players else "")
    for m in re.finditer(rf"""<(?:{tags})\s*=\s*(["'])(https?:[^"']+)\1""", raw, re.I):
        url = html.unescape(m[2])
        if (mimetypes.guess_type(url.split("?")[0])[0] or "").split("/")[0] in ("image", "audio", "video"):
            found.append(url)
    return list(dict.fromkeys(found))
