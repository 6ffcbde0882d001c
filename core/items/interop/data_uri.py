"""Files written into a question's text as ``data:`` addresses.

Editors and item banks put small pictures straight into the HTML:
``data:image/png;base64,iVBOR...`` or, for drawings, the SVG itself
percent-encoded (``data:image/svg+xml,%3Csvg ...``). Every reader keeps such a
picture as a file of the question; this reads the address.
"""
from __future__ import annotations

import base64
import binascii
import mimetypes
import re
import urllib.parse
from typing import Optional

_DATA = re.compile(r"data:([\w.+-]+/[\w.+-]+)?((?:;[^,;]*)*),(.*)\Z", re.S | re.I)


def decode(src: str) -> Optional[tuple[str, bytes, Optional[str]]]:
    """(type, content, the file's name where the writer gave one) for a ``data:`` address; None when unreadable."""
    m = _DATA.match((src or "").strip())
    if not m:
        return None
    params = m[2] or ""
    try:
        if ";base64" in params.lower():
            body = base64.b64decode(re.sub(r"\s+", "", m[3]), validate=True)
        else:
            body = urllib.parse.unquote_to_bytes(m[3])
    except (binascii.Error, ValueError):
        return None
    named = re.search(r";name=([^;,]+)", params, re.I)
    return (m[1] or "text/plain").lower(), body, urllib.parse.unquote(named[1]) if named else None


def extension(mime: str) -> str:
    """The usual file ending for a type (".png"), ".bin" when there is none."""
    return mimetypes.guess_extension(mime) or ".bin"
