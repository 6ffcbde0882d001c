"""Short written answers: key points found as whole words, and spacing a student may vary."""
from __future__ import annotations

import re

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
