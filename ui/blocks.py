"""Text drawn as few page elements: the paragraphs that follow one another in one part of a page (a question's
text, its options, the answer, the key) go out as one markdown block instead of one element each.

A page of 41 questions drew some 300 elements; the browser spends a good part of a click drawing each of them,
so the same paragraphs in fewer blocks answer sooner and look the same (a block's paragraphs are spaced as
separate elements are).
"""
from __future__ import annotations

import re

import streamlit as st

from core.exams.typeset import SUPERSCRIPT

_SPACED_MATHS = re.compile(r"\$\s*([^$\n]+?)\s*\$")
_MATHS = re.compile(r"\$[^$\n]+?\$")
_POWER = re.compile(r"(?<=[\w)\]])\^(\(-?\d+\)|-?\d+)")


def readable(text: str) -> str:
    """Text with maths as a student should read it: "$ x + 1 $" closed up (Streamlit renders maths only when the
    dollars touch it), and a power written plainly outside the maths ("x^2 - 7x", "(-7)^2", "10^5", as explanations
    written for any screen have them) shown raised: x² - 7x, (-7)², 10⁵."""
    text = _SPACED_MATHS.sub(r"$\1$", str(text))
    out, last = [], 0
    for m in _MATHS.finditer(text):
        out += [_POWER.sub(_raised, text[last:m.start()]), m.group(0)]
        last = m.end()
    return "".join(out) + _POWER.sub(_raised, text[last:])


def _raised(power: re.Match) -> str:
    return "".join(SUPERSCRIPT[ch] for ch in power.group(1).strip("()"))   # the printed paper's table


class Paragraphs:
    """Paragraphs gathered until something that is not a paragraph (a caption, a warning) is drawn."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, text: str) -> None:
        """A paragraph of markdown, as st.markdown would draw it."""
        if text.strip():
            self.parts.append(text)

    def stem(self, text: str) -> None:
        """A question's text (no pictures or sounds), as ui.shared.stem draws it."""
        self.add(readable(text))

    def flush(self) -> None:
        """Draw what was gathered, as one block; call it before drawing anything else, and at the end."""
        if self.parts:
            st.markdown("\n\n".join(self.parts))
            self.parts = []

