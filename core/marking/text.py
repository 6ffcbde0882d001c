"""Short written answers: key points found as whole words, and spacing a student may vary."""
from __future__ import annotations

import re
from typing import Optional

from core.marking.reading import _norm_text


def _keyword_pattern(keyword: str) -> re.Pattern:
    words = _norm_text(keyword).split()
    last = words[-1]
    stem = last[:-1] if last.endswith("s") and len(last) > 3 else last
    body = r"\s+".join(re.escape(w) for w in words[:-1] + [stem])
    return re.compile(r"(?<!\w)" + body + r"(?:s|es)?(?!\w)")


def _compact(text: str) -> str:
    """Spacing a student may vary without changing the answer ("x=2, y=-8" and "x = 2, y = -8"):
    spaces next to punctuation or symbols go; a space between two words or numbers stays ("hel lo"
    is not "hello")."""
    text = re.sub(r"\s*([^\w\s])\s*", r"\1", text)
    return re.sub(r"\s+", " ", text).strip()


_LIST_JOIN = re.compile(r"\s*(?:,|;|&|\band\b|\bplus\b)\s*")


def list_parts(text: str) -> Optional[frozenset]:
    """The items of an answer that lists things ("ethanol and carbon dioxide", "carbon dioxide, ethanol"),
    compared as a set so their order and joining words do not matter; None for an answer of one item."""
    parts = [p for p in _LIST_JOIN.split(text) if p.strip()]
    # Bare numbers are left alone: in "2, 3" the order may be the answer (a point's coordinates).
    if len(parts) < 2 or not all(re.search(r"[^\W\d_]", p) for p in parts):
        return None
    return frozenset(_compact(p.strip()) for p in parts)
