"""Text drawn as few page elements: the paragraphs that follow one another in one part of a page (a question's
text, its options, the answer, the key) go out as one markdown block instead of one element each.

A page of 41 questions drew some 300 elements; the browser spends a good part of a click drawing each of them,
so the same paragraphs in fewer blocks answer sooner and look the same (a block's paragraphs are spaced as
separate elements are).
"""
from __future__ import annotations

import re
import streamlit as st

_SPACED_MATHS = re.compile(r"\$\s*([^$\n]+?)\s*\$")   # as ui.shared.stem closes up "$ x + 1 $"


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
        self.add(_SPACED_MATHS.sub(r"$\1$", text))

    def flush(self) -> None:
        """Draw what was gathered, as one block; call it before drawing anything else, and at the end."""
        if self.parts:
            st.markdown("\n\n".join(self.parts))
            self.parts = []

