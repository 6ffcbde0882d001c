"""Moodle XML: the question bank format Moodle exports and imports, read and written.

A Moodle XML file is a ``<quiz>`` holding ``<question type="...">`` elements.
A ``type="category"`` pseudo-question sets the category of the questions that
follow it (``$course$/top/Maths/Surds``); every other one is a question. Text
fields carry HTML in CDATA with a ``format`` attribute; pictures and sounds
travel as base64 ``<file>`` elements inside the field that shows them, named
in the HTML as ``@@PLUGINFILE@@/name``. Marks are percentages
(``fraction="33.33333"``), and Moodle accepts only its own list of them.

Reading takes what Moodle itself writes and reads, from 1.9 to 4.x: HTML,
auto-format, plain and markdown text; multiple choice with one or several
right options, true/false, numerical (tolerances, units), short answer, essay.
Types the workbench cannot hold (Cloze, matching, drag and drop, calculated,
...) are skipped with the reason, never an error.

Writing gives multichoice, numerical, shortanswer (algebraic questions as
their accepted forms) and essay questions. The provenance of a question goes
into Moodle tags, which hold at most 50 characters: ``workbench:KEY=VALUE``
when it fits as it is, else the pair percent-encoded and cut into numbered
tags ``workbench*N.I/T:piece`` that reading joins again.
"""
from __future__ import annotations

import codecs
import re

from core.items.interop.moodle_xml_read import read
from core.items.interop.moodle_xml_write import FILENAME, FORMAT, category_path, write

__all__ = ["FORMAT", "FILENAME", "sniff", "read", "write", "category_path"]

_PROLOG = re.compile(r"\s*(?:<\?.*?\?>|<!--.*?-->|<!DOCTYPE[^>\[]*(?:\[.*?\])?\s*>)", re.S | re.I)
_QUIZ = re.compile(r"\s*<quiz[\s>/]")


def sniff(data: bytes) -> bool:
    """True when the file starts (after a byte-order mark, declaration, comments) with a <quiz> element."""
    head = data[:65536]
    if head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        text = head.decode("utf-16", errors="ignore")
    else:
        text = head.decode("latin-1")
        if text.startswith("\xef\xbb\xbf"):
            text = text[3:]
    pos = 0
    while True:
        m = _PROLOG.match(text, pos)
        if not m or m.end() == pos:
            break
        pos = m.end()
    return bool(_QUIZ.match(text, pos))
