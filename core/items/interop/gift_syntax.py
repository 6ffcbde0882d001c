"""GIFT's syntax as both directions need it: names, escapes, the part marks Moodle accepts."""
from __future__ import annotations

import re
import urllib.parse
from decimal import Decimal

FORMAT = "gift"
# Moodle's importer accepts a GIFT file only as text/plain, that is with a .txt name.
FILENAME = "questions.gift.txt"

_PHP_SPACE = " \t\n\r\0\x0b"          # what PHP's trim() removes (Moodle trims every line with it)
_FORMATS = ("moodle", "html", "plain", "markdown")
_TRUE_FALSE = ("T", "TRUE", "F", "FALSE")
_BLANK = "_____"                      # what Moodle leaves where a missing word's answer block was
_IMAGE = re.compile(r"!\[[^\]]*\]\([^)\s]+\)")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_WEIGHT = re.compile(r"%(-?(?:\d+\.?\d*|\.\d+))%")
_PROVENANCE = "// workbench:"
_SETTING = "// workbench-setting:"

# Moodle accepts only these part marks (question_bank::fraction_options_full), to within 0.00001.
_MOODLE_FRACTIONS = (1.0, 0.9, 0.8333333, 0.8, 0.75, 0.7, 0.6666667, 0.6, 0.5, 0.4, 0.3333333, 0.3, 0.25, 0.2,
                     0.1666667, 0.1428571, 0.125, 0.1111111, 0.1, 0.05, 0.0)

# --------------------------------------------------------------------------
# Escapes

# While a question is taken apart, an escaped special character stands in as a private-use character
# (Moodle uses "&&058;" and the like), so that it is never read as structure; it is put back in the texts.
_HIDDEN = {":": "\ue000", "#": "\ue001", "=": "\ue002", "{": "\ue003", "}": "\ue004", "~": "\ue005", "n": "\ue006"}
_SHOWN = str.maketrans({"\ue000": ":", "\ue001": "#", "\ue002": "=", "\ue003": "{", "\ue004": "}", "\ue005": "~",
                        "\ue006": "\n"})
_ESCAPED = re.compile(r"\\([\\:#={}~n])")
_WRITTEN = {"\\": "\\\\", "~": "\\~", "=": "\\=", "#": "\\#", "{": "\\{", "}": "\\}", ":": "\\:", "\n": "\\n",
            "\r": ""}


def _hide(text: str) -> str:
    """Escaped characters hidden: ``\\\\`` becomes a backslash, ``\\:`` and the others stand-ins (as Moodle does)."""
    return _ESCAPED.sub(lambda m: "\\" if m[1] == "\\" else _HIDDEN[m[1]], text)


def _show(text: str) -> str:
    return text.translate(_SHOWN)


def _escape(text: str) -> str:
    """Text as GIFT writes it: the special characters and the backslash escaped, line breaks as ``\\n``."""
    return "".join(_WRITTEN.get(c, c) for c in text)


def _encode(value: str) -> str:
    """A provenance key or value on one comment line, readable back exactly.

    ``%``, ``=``, brackets (Moodle reads ``[tag:...]`` in comments), backslashes, anything that is not
    printable (line breaks of every kind) and spaces at either end become ``%XX`` (UTF-8 bytes).
    """
    out = []
    last = len(value) - 1
    for i, c in enumerate(value):
        keep = (c.isprintable() and c not in "%=[]\\") and not (c.isspace() and i in (0, last))
        out.append(c if keep else "".join(f"%{b:02X}" for b in c.encode("utf-8")))
    return "".join(out)


def _decode(value: str) -> str:
    return urllib.parse.unquote(value, errors="strict")


# --------------------------------------------------------------------------
# Sniffing


def _plain_decimal(d: Decimal) -> str:
    text = format(d, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text
