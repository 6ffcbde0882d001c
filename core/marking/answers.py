"""A whole typed answer: an expression, an equation, an inequality, or a list or set of them.

Shapes: ('expr', node) | ('def', name, node) for 'y = 2x + 3' or 'f(x) = ...' |
('eq', left - right, left, right) | ('rel', strict, greater - lesser, left, op, right) |
('list', answers) | ('set', answers). Each piece is read by ``expressions``.
"""
from __future__ import annotations

import functools
import re
from typing import Optional

from core.marking.expressions import (_expression_notes, _parse_expression, _Refused, _Unreadable, _variables)
from core.marking.limits import MAX_EXPRESSION_CHARS
from core.marking.reading import _clean

_FUNCTION_NAME = re.compile(r"\s*([A-Za-z])\s*\(\s*([A-Za-z])\s*\)\s*")
_RELATIONS = ("<=", ">=", "=<", "=>", "!=", "≤", "≥", "≠", "#", "=", "<", ">")
_MAX_ITEMS = 20


def _scan_top(text: str, separators: tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(pieces, the separators between them), splitting only outside every bracket."""
    pieces, found, depth, start, i = [], [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif depth == 0:
            sep = next((s for s in separators if text.startswith(s, i)), None)
            if sep is not None:
                pieces.append(text[start:i])
                found.append(sep)
                i += len(sep)
                start = i
                continue
        i += 1
    pieces.append(text[start:])
    return pieces, found


def _split_top(text: str, separators: tuple[str, ...]) -> list[str]:
    return _scan_top(text, separators)[0]


def _relation_split(text: str) -> tuple[list[str], list[str]]:
    parts, ops = _scan_top(text, _RELATIONS)
    return parts, [{"=<": "<=", "=>": ">=", "≤": "<=", "≥": ">=", "≠": "!=", "#": "!="}.get(op, op) for op in ops]


def _enclosed(text: str, opening: str, closing: str) -> bool:
    if not (text.startswith(opening) and text.endswith(closing)):
        return False
    depth = 0
    for i, c in enumerate(text):
        depth += c in "([{"
        depth -= c in ")]}"
        if depth == 0 and i < len(text) - 1:
            return False
    return True


_OR = (" or ", " OR ", " nounor ")
_AND = (" and ", " AND ", " nounand ")
_PLUS_MINUS = ("±", "#pm#", "+/-")


@functools.lru_cache(maxsize=1024)
def _read_answer(text: str, known: Optional[frozenset[str]], decimal_comma: bool) -> tuple[tuple, tuple[str, ...]]:
    if len(text.strip()) > MAX_EXPRESSION_CHARS:
        raise _Refused(f"The expression is too long (over {MAX_EXPRESSION_CHARS} characters).")
    s = _clean(text).strip()
    notes: list[str] = []
    item_separators = (";",) if decimal_comma else (",", ";")
    for opening, closing, kind in (("[", "]", "list"), ("{", "}", "set")):
        if _enclosed(s, opening, closing) and not s.startswith("{\\"):
            inner = s[1:-1].strip()
            pieces = [p for p in _split_top(inner, item_separators)] if inner else []
            return (kind, tuple(_condition(p, known, decimal_comma, notes) for p in _bounded(pieces))), tuple(notes)
    pieces = _split_top(s, item_separators)
    if len(pieces) > 1:
        return ("set", tuple(_condition(p, known, decimal_comma, notes) for p in _bounded(pieces))), tuple(notes)
    return _condition(s, known, decimal_comma, notes), tuple(dict.fromkeys(notes))


def _condition(text: str, known, decimal_comma: bool, notes: list[str]) -> tuple:
    """Relations joined by "or" (a set of answers: any may hold) and "and" (all hold), with brackets
    for grouping; "x = 3 ± 2" stands for both signs."""
    text = text.strip()
    pieces = _split_top(text, _OR)
    if len(pieces) > 1:
        return ("set", tuple(_condition(p, known, decimal_comma, notes) for p in _bounded(pieces)))
    pieces = _split_top(text, _AND)
    if len(pieces) > 1:
        return ("and", tuple(_condition(p, known, decimal_comma, notes) for p in _bounded(pieces)))
    if _enclosed(text, "(", ")") and (len(_split_top(text[1:-1], _OR)) > 1 or len(_split_top(text[1:-1], _AND)) > 1):
        return _condition(text[1:-1], known, decimal_comma, notes)
    sign = next((p for p in _PLUS_MINUS if p in text), None)
    if sign is not None:
        branches = tuple(_item(text.replace(sign, op), known, decimal_comma, notes) for op in ("+", "-"))
        notes.append(f"{sign} was read as both + and -.")
        return ("set", branches)
    return _item(text, known, decimal_comma, notes)


def _bounded(pieces: list[str]) -> list[str]:
    if len(pieces) > _MAX_ITEMS:
        raise _Refused(f"Give at most {_MAX_ITEMS} answers in one box.")
    if any(not p.strip() for p in pieces):
        raise _Unreadable("There is an empty answer between two commas.")
    return pieces


def _expression(text: str, known, decimal_comma: bool, notes: list[str]):
    node = _parse_expression(text, known, decimal_comma)
    notes.extend(_expression_notes(text, known, decimal_comma))
    return node


_EVERY = {"all", "true", "all real numbers"}
_NONE = {"none", "false", "no solution", "no solutions", "no real solutions"}


def _item(text: str, known: Optional[frozenset[str]], decimal_comma: bool, notes: list[str]) -> tuple:
    words = " ".join(text.lower().split())
    if words in _EVERY or words in _NONE:
        return ("truth", words in _EVERY)
    parts, ops = _relation_split(text)
    if not ops:
        return ("expr", _expression(text, known, decimal_comma, notes))
    if len(ops) > 1:
        if all(o == "=" for o in ops):
            raise _Unreadable("Write at most one '=' sign.")
        raise _Unreadable("Write one comparison at a time, e.g. x > 1, x < 3.")
    left_text, right_text = parts
    if not left_text.strip() or not right_text.strip():
        raise _Unreadable(f"One side of the '{ops[0]}' is empty.")
    op = ops[0]
    named = _FUNCTION_NAME.fullmatch(left_text) if op == "=" else None
    right = _expression(right_text, known, decimal_comma, notes)
    if named and named.group(1) not in (known or ()) and named.group(2) in _variables(right) | set(known or ()):
        return ("def", f"{named.group(1)}({named.group(2)})", right)
    left = _expression(left_text, known, decimal_comma, notes)
    if op == "=":
        if left[0] == "var" and left[1] not in _variables(right):
            return ("def", left[1], right)
        if right[0] == "var" and right[1] not in _variables(left):
            return ("def", right[1], left)
        return ("eq", ("add", (left, ("neg", right))), left, right)
    if op == "!=":
        return ("rel", "ne", ("add", (left, ("neg", right))), left, op, right)
    greater, lesser = (left, right) if op in (">", ">=") else (right, left)
    return ("rel", op in ("<", ">"), ("add", (greater, ("neg", lesser))), left, op, right)


def _parse_answer(text: str, known: Optional[frozenset[str]] = None, decimal_comma: bool = False) -> tuple:
    """Student (or key) text -> answer shape; see the module docstring."""
    return _read_answer(text, known, decimal_comma)[0]


def _answer_notes(text: str, known: Optional[frozenset[str]] = None, decimal_comma: bool = False) -> tuple:
    return _read_answer(text, known, decimal_comma)[1]


def _answer_nodes(answer: tuple) -> list:
    """Every expression tree in an answer."""
    kind = answer[0]
    if kind in ("list", "set", "and"):
        return [n for a in answer[1] for n in _answer_nodes(a)]
    if kind == "expr":
        return [answer[1]]
    if kind == "def":
        return [answer[2]]
    if kind == "eq":
        return [answer[2], answer[3]]
    if kind == "truth":
        return []
    return [answer[3], answer[5]]


def _answer_variables(answer: tuple) -> set[str]:
    names: set[str] = set()
    for n in _answer_nodes(answer):
        names |= _variables(n)
    if answer[0] == "def" and "(" not in answer[1]:
        names.add(answer[1])
    return names
