"""Expressions as trees, read without eval: the one reader behind every typed answer.

Student text goes through a whitelist tokeniser and a small recursive-descent
parser into nested tuples (``Node``), so nothing typed is ever executed and
sympy only ever sees trees built here. Sizes, depth and exponents are bounded
while reading. Names are read against the question's declared variables (see
``names``); readings a student should check are kept as notes for the preview.

Node kinds: ("num", Fraction), ("var", name), ("const", "pi"|"e"|"i"),
("neg", n), ("add", terms), ("mul", numerator factors, denominator factors),
("pow", base, exponent), ("func", name, argument).
"""
from __future__ import annotations

import functools
import math
import re
from fractions import Fraction
from typing import Any, Optional

from core.marking import names as nm
from core.marking.limits import (MAX_EXPONENT_VALUE, MAX_EXPRESSION_CHARS, MAX_FACTORIAL, MAX_NESTING, MAX_NODES,
                                 MAX_PARSE_DEPTH)
from core.marking.reading import _clean, _delatex


class _Refused(Exception):
    """The answer cannot be read at all (hostile, out of bounds)."""


class _Unreadable(Exception):
    """The answer is ordinary text that is not a well-formed answer of the expected kind."""


Node = tuple
_NUM_TOKEN = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,4}(?![0-9]))?")
_COMMA_NUM_TOKEN = re.compile(r"[0-9]+,[0-9]+(?:[eE][+-]?[0-9]{1,4}(?![0-9]))?")
_NAME_TOKEN = re.compile(r"%?[A-Za-z][A-Za-z0-9_]*(?:\[[0-9A-Za-z]+\])?")
_EXPRESSION_CHARS = str.maketrans({"×": "*", "·": "*", "⋅": "*", "∙": "*", "÷": "/", "√": " sqrt ", "π": " pi ",
                                   "≤": "≤", "≥": "≥", "∗": "*"})
_OPERATORS = ("**", "<=", ">=", "=<", "=>", "+", "-", "*", "/", "^", "(", ")", ",", "=", "<", ">", "|", "!", "[",
              "]", "{", "}", ";", "≤", "≥")


def _shown_char(c: str) -> str:
    if c.isprintable() and not c.isspace():
        return f"'{c}'"
    return f"U+{ord(c):04X}"


def _decimal(text: str) -> Fraction:
    text = text.replace(",", ".")
    mantissa, _, exponent = text.lower().partition("e")
    value = Fraction(mantissa[:-1] if mantissa.endswith(".") else mantissa)
    return value * Fraction(10) ** int(exponent) if exponent else value


def _prepare(text: str) -> str:
    s = _delatex(_clean(text)).translate(_EXPRESSION_CHARS)
    if any(c in nm.GREEK_LETTERS for c in s):
        s = "".join(f" {nm.GREEK_LETTERS[c]} " if c in nm.GREEK_LETTERS else c for c in s)
    return s


def _tokenise(text: str, decimal_comma: bool = False) -> list[tuple[str, Any, bool]]:
    """(kind, value, space before) for every token; anything outside the whitelist is refused."""
    tokens: list[tuple[str, Any, bool]] = []
    i, n, space = 0, len(text), False
    while i < n:
        c = text[i]
        if c.isspace():
            i, space = i + 1, True
            continue
        if c in "0123456789.":
            m = (_COMMA_NUM_TOKEN.match(text, i) if decimal_comma else None) or _NUM_TOKEN.match(text, i)
            if m is None:
                raise _Unreadable("A decimal point must be followed by digits.")
            tokens.append(("num", _decimal(m.group()), space))
            i = m.end()
        elif c.isascii() and (c.isalpha() or c == "%"):
            m = _NAME_TOKEN.match(text, i)
            if m is None:
                raise _Unreadable(f"'{text[i:i + 6]}' cannot be read.")
            tokens.append(("name", m.group(), space))
            i = m.end()
        else:
            op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
            if op is None:
                raise _Refused(f"The character {_shown_char(c)} is not allowed in an expression.")
            op = {"**": "^", "=<": "<=", "=>": ">=", "≤": "<=", "≥": ">="}.get(op, op)
            tokens.append(("op", op, space))
            i += len(text[i:i + 2]) if text.startswith(("**", "<=", ">=", "=<", "=>"), i) else 1
        space = False
    return tokens


class _Parser:
    """Recursive descent over the tokens; depth is counted so nothing recurses unboundedly.

    ``known`` is the set of declared variable names; None reads an answer key,
    where every name is taken as written (multi-letter names as products of letters).
    """

    def __init__(self, tokens: list[tuple[str, Any, bool]], known: Optional[frozenset[str]], whole_names: bool = False):
        self.whole_names = whole_names      # units: every name is one symbol (kN, ms, Hz)
        self.toks = tokens
        self.i = 0
        self.depth = 0
        self.brackets = 0
        self.bars = 0
        self.known = known
        self.notes: list[str] = []

    def peek(self, ahead: int = 0) -> Optional[tuple[str, Any, bool]]:
        j = self.i + ahead
        return self.toks[j] if j < len(self.toks) else None

    def take(self) -> tuple[str, Any, bool]:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    @staticmethod
    def is_op(tok: Optional[tuple], ops: tuple[str, ...]) -> bool:
        return tok is not None and tok[0] == "op" and tok[1] in ops

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_PARSE_DEPTH:
            raise _Refused("The expression is nested too deeply.")

    def expect_end(self) -> None:
        tok = self.peek()
        if tok is not None:
            if self.is_op(tok, ")"):
                raise _Unreadable("There is a ')' without a matching '('.")
            raise _Unreadable(f"Unexpected '{tok[1]}' in the expression.")

    # -- sums, products, powers ------------------------------------------------------------------

    def expr(self) -> Node:
        terms = [self.term()]
        while self.is_op(self.peek(), ("+", "-")):
            op = self.take()[1]
            t = self.term()
            terms.append(t if op == "+" else ("neg", t))
        return terms[0] if len(terms) == 1 else ("add", tuple(terms))

    def term(self) -> Node:
        num, den = [self.unary()], []
        while True:
            tok = self.peek()
            if self.is_op(tok, ("*",)):
                self.take()
                num.append(self.unary())
            elif self.is_op(tok, ("/",)):
                self.take()
                den.append(self.unary())
            elif tok is not None and (tok[0] == "name" and tok[1] not in nm.RESERVED
                                      or self.is_op(tok, ("(",)) or (self.is_op(tok, ("|",)) and self.bars == 0)):
                num.append(self.power())        # implicit multiplication: 2x, 3(x+1), (x+1)(x-2), x y
            elif tok is not None and tok[0] == "num":
                raise _Unreadable("A number straight after a letter, bracket or number is ambiguous; use * or ^.")
            else:
                break
        if len(num) == 1 and not den:
            return num[0]
        return ("mul", tuple(num), tuple(den))

    def unary(self) -> Node:
        tok = self.peek()
        if self.is_op(tok, ("+", "-")):
            self.take()
            self.deeper()
            inner = self.unary()
            self.depth -= 1
            return ("neg", inner) if tok[1] == "-" else inner
        return self.power()

    def power(self) -> Node:
        base = self.postfix()
        if self.is_op(self.peek(), ("^",)):
            self.take()
            self.deeper()
            exponent = self.exponent()
            self.depth -= 1
            return ("pow", base, exponent)
        return base

    def exponent(self) -> Node:
        tok = self.peek()
        if self.is_op(tok, ("+", "-")):
            self.take()
            self.deeper()
            inner = self.exponent()
            self.depth -= 1
            return ("neg", inner) if tok[1] == "-" else inner
        return self.power()             # right to left: 2^3^2 is 2^(3^2), as in print

    def postfix(self) -> Node:
        node = self.primary()
        while self.is_op(self.peek(), ("!",)):
            self.take()
            node = ("func", "fact", node)
        return node

    # -- single things -----------------------------------------------------------------------------

    def primary(self) -> Node:
        tok = self.peek()
        if tok is None:
            raise _Unreadable("The expression ends too early.")
        self.take()
        kind, val, _ = tok
        if kind == "num":
            return ("num", val)
        if kind == "name":
            return self.name(val)
        if val == "(":
            inner = self.bracketed(")")
            return inner
        if val == "|":
            self.bars += 1
            inner = self.bracketed("|")
            self.bars -= 1
            return ("func", "abs", inner)
        if val == ")":
            raise _Unreadable("There is a ')' without a matching '('.")
        raise _Unreadable(f"Unexpected '{val}' in the expression.")

    def bracketed(self, closing: str) -> Node:
        self.brackets += 1
        if self.brackets > MAX_NESTING:
            raise _Refused(f"Brackets are nested more than {MAX_NESTING} deep.")
        self.deeper()
        outer_bars, self.bars = self.bars, (self.bars if closing == "|" else 0)
        inner = self.expr()
        self.bars = outer_bars
        if not self.is_op(self.peek(), (closing,)):
            raise _Unreadable("A closing bracket ')' is missing." if closing == ")"
                              else "A closing bar '|' is missing.")
        self.take()
        self.brackets -= 1
        self.depth -= 1
        return inner

    def arguments(self) -> list[Node]:
        """The bracketed arguments after a function name (the '(' not yet taken)."""
        self.take()
        self.brackets += 1
        if self.brackets > MAX_NESTING:
            raise _Refused(f"Brackets are nested more than {MAX_NESTING} deep.")
        self.deeper()
        outer_bars, self.bars = self.bars, 0
        args = [self.expr()]
        while self.is_op(self.peek(), (",",)):
            self.take()
            args.append(self.expr())
        self.bars = outer_bars
        if not self.is_op(self.peek(), (")",)):
            raise _Unreadable("A closing bracket ')' is missing.")
        self.take()
        self.brackets -= 1
        self.depth -= 1
        return args

    def name(self, name: str) -> Node:
        known = self.known
        if known is not None and name in known:
            return ("var", name)
        if (name in nm.FUNCTIONS or nm.log_base(name) is not None) and not (
                self.whole_names and not self.is_op(self.peek(), ("(",))):
            return self.function(name)
        if name in nm.CONSTANTS and (known is None or name not in known):
            return ("const", nm.CONSTANTS[name])
        if name.startswith("%"):
            raise _Unreadable(f"'{name}' is not a constant this answer box knows; write pi, e or %i.")
        if name in nm.RESERVED:
            raise _Unreadable(f"Unexpected '{name}' in the expression.")
        if self.whole_names:
            return ("var", name)
        if known is None:
            parts = nm.key_split(name)
        elif len(name) == 1 or nm.is_greek(name):
            if name.swapcase() in known and name not in known:
                self.notes.append(f"{name} is not {name.swapcase()}: capital and small letters differ.")
            return ("var", name)
        else:
            parts = nm.split_product(name, known)
            if parts is None:
                raise _Unreadable(nm.unknown_name_message(name, known, self.is_op(self.peek(), ("(",))))
            self.notes.append(f"{name} was read as {' times '.join(parts)}.")
        nodes = tuple(("const", "pi") if p == "pi" else ("var", p) for p in parts)
        return nodes[0] if len(nodes) == 1 else ("mul", nodes, ())

    def function(self, spelling: str) -> Node:
        base = nm.log_base(spelling)
        name = "log" if base is not None else nm.FUNCTIONS[spelling]
        nxt = self.peek()
        if nxt is None:
            raise _Unreadable(f"'{spelling}' needs something to act on, e.g. {spelling}(x).")
        power = None
        if self.is_op(nxt, ("^",)) and name in ("sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh", "tanh",
                                                "ln", "log"):
            # sin^2(x) is (sin x)^2; sin^-1(x) is arcsin x, as schools write them.
            self.take()
            power = self.exponent()
            if _literal_value(power) == -1 and name in nm.INVERSES:
                name, power = nm.INVERSES[name], None
            nxt = self.peek()
            if nxt is None:
                raise _Unreadable(f"'{spelling}' needs something to act on, e.g. {spelling}(x).")
        self.deeper()
        if self.is_op(nxt, ("(",)):
            args = self.arguments()
        elif nxt[2] or nxt[0] == "num":
            # "sin x", "sqrt 2": the next power, shown back with brackets in the preview.
            args = [self.power()]
        else:
            raise _Unreadable(f"Write brackets round what {spelling} acts on, e.g. {spelling}(x).")
        self.depth -= 1
        node = self.apply(name, spelling, args, base)
        return ("pow", node, power) if power is not None else node

    def apply(self, name: str, spelling: str, args: list[Node], base: Optional[str]) -> Node:
        if name == "log" and (base is not None or len(args) == 2):
            if base is not None and len(args) != 1:
                raise _Unreadable(f"{spelling} takes one value, e.g. {spelling}(8).")
            b = args[1] if len(args) == 2 else (("num", Fraction(base)) if base.isdigit() else ("var", base))
            if b == ("num", Fraction(10)):
                return ("func", "log", args[0])
            return ("mul", (("func", "ln", args[0]),), (("func", "ln", b),))
        if name == "binomial":
            if len(args) != 2:
                raise _Unreadable(f"{spelling} takes two values, e.g. {spelling}(5, 2).")
            n, k = args
            return ("mul", (("func", "fact", n),), (("func", "fact", k), ("func", "fact", ("add", (n, ("neg", k))))))
        if len(args) != 1:
            raise _Unreadable(f"{spelling} takes one value, not {len(args)}.")
        return ("func", name, args[0])


def _literal_value(node: Node) -> Optional[Fraction]:
    sign = 1
    while node[0] == "neg":
        sign, node = -sign, node[1]
    return sign * node[1] if node[0] == "num" else None


def _children(node: Node) -> tuple:
    kind = node[0]
    if kind == "neg":
        return (node[1],)
    if kind == "add":
        return node[1]
    if kind == "mul":
        return node[1] + node[2]
    if kind == "pow":
        return (node[1], node[2])
    if kind == "func":
        return (node[2],)
    return ()


def _walk(node: Node):
    stack = [node]
    while stack:
        n = stack.pop()
        yield n
        stack.extend(_children(n))


def _has_vars(node: Node) -> bool:
    return any(n[0] == "var" for n in _walk(node))


def _variables(node: Node) -> set[str]:
    return {n[1] for n in _walk(node) if n[0] == "var"}


def _check_bounds(node: Node) -> None:
    count = 0
    for n in _walk(node):
        count += 1
        if count > MAX_NODES:
            raise _Refused("The expression is too long to mark.")
        if n[0] == "pow" and not _has_vars(n[2]):
            v = _literal_value(n[2])
            if v is not None and abs(v) > MAX_EXPONENT_VALUE:
                raise _Refused(f"Powers larger than {MAX_EXPONENT_VALUE} are not allowed here.")
        if n[0] == "func" and n[1] == "fact":
            v = _literal_value(n[2])
            if v is not None and (v > MAX_FACTORIAL or v.denominator != 1):
                raise _Refused(f"Factorials are marked up to {MAX_FACTORIAL}!.")
        if n[0] == "num" and max(abs(n[1].numerator), n[1].denominator).bit_length() > 4000:
            raise _Refused("A number in the expression is too large to mark.")


@functools.lru_cache(maxsize=1024)
def _read(text: str, known: Optional[frozenset[str]], decimal_comma: bool,
          whole_names: bool = False) -> tuple[Node, tuple[str, ...]]:
    if len(text.strip()) > MAX_EXPRESSION_CHARS:
        raise _Refused(f"The expression is too long (over {MAX_EXPRESSION_CHARS} characters).")
    parser = _Parser(_tokenise(_prepare(text), decimal_comma), known, whole_names)
    if not parser.toks:
        raise _Unreadable("No expression was found.")
    node = parser.expr()
    parser.expect_end()
    _check_bounds(node)
    return node, tuple(dict.fromkeys(parser.notes))


def _parse_expression(text: str, known: Optional[frozenset[str]] = None, decimal_comma: bool = False) -> Node:
    """Student (or key) text -> expression tree, refusing anything outside the whitelist or the bounds."""
    return _read(text, known, decimal_comma)[0]


def _expression_notes(text: str, known: Optional[frozenset[str]] = None, decimal_comma: bool = False) -> tuple:
    return _read(text, known, decimal_comma)[1]


def _int_exponent(node: Node) -> Optional[int]:
    """The exponent as a whole number, when it is a written constant like 2 or -3."""
    v = _literal_value(node)
    if v is None or v.denominator != 1:
        return None
    return int(v)


def _degree(node: Node) -> int:
    kind = node[0]
    if kind == "var":
        return 1
    if kind == "neg":
        return _degree(node[1])
    if kind == "add":
        return max(_degree(t) for t in node[1])
    if kind == "mul":
        return min(sum(_degree(f) for f in node[1] + node[2]), 10 ** 6)
    if kind == "pow":
        v = _literal_value(node[2])
        scale = math.ceil(abs(v)) if v is not None else 1
        return min(_degree(node[1]) * max(scale, 1) + (0 if v is not None else _degree(node[2])), 10 ** 6)
    if kind == "func":
        return _degree(node[2])
    return 0


def _terms_bound(node: Node) -> int:
    """An upper bound on the number of terms after full expansion (saturating)."""
    cap = 10 ** 7
    kind = node[0]
    if kind == "neg":
        return _terms_bound(node[1])
    if kind == "add":
        return min(sum(_terms_bound(t) for t in node[1]), cap)
    if kind == "mul":
        r = 1
        for f in node[1]:
            r = min(r * _terms_bound(f), cap)
        return r
    if kind == "pow":
        k = _int_exponent(node[2])
        if k is not None and k >= 0:
            t = _terms_bound(node[1])
            if t >= cap or k > 10 ** 4:
                return cap
            return min(math.comb(t + k - 1, k) if k else 1, cap)
    return 1


def _is_polynomial(node: Node) -> bool:
    for n in _walk(node):
        if n[0] == "mul" and any(_has_vars(d) for d in n[2]):
            return False
        if n[0] == "pow" and _has_vars(n[1]):
            k = _int_exponent(n[2])
            if k is None or k < 0:
                return False
        if n[0] == "pow" and _has_vars(n[2]):
            return False
        if n[0] == "func" and _has_vars(n[2]):
            return False
    return True
