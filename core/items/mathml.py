"""LaTeX maths as MathML made here (no renderer to fetch), or readable text when it cannot be; and MathML read back as TeX.

``latex_to_mathml`` gives inline MathML a browser draws with no network and
no script. What the converter cannot read (a half-written fraction, an
unknown command) becomes plain text through ``latex_to_text``: the same maths
written as a teacher would type it (×, ÷, √, a/b), never a backslash or a
dollar sign.
"""
from __future__ import annotations

import html
import inspect
import re
from typing import Optional
from xml.etree.ElementTree import Element

import latex2mathml.converter
import latex2mathml.exceptions

# Everything the converter raises on input it cannot read (its own errors, and what a bad token list gives).
_CONVERT_ERRORS = tuple(cls for _, cls in inspect.getmembers(latex2mathml.exceptions, inspect.isclass)
                        if issubclass(cls, Exception)) + (ValueError, IndexError, KeyError, TypeError,
                                                          AttributeError, RecursionError)

SYMBOLS = {
    "times": "×", "div": "÷", "cdot": "·", "pm": "±", "mp": "∓", "le": "≤", "leq": "≤", "leqslant": "≤",
    "ge": "≥", "geq": "≥", "geqslant": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "equiv": "≡", "sim": "~",
    "lt": "<", "gt": ">", "infty": "∞", "circ": "°", "degree": "°", "cdots": "⋯", "ldots": "…", "dots": "…",
    "to": "→", "rightarrow": "→", "Rightarrow": "⇒", "leftarrow": "←", "Leftrightarrow": "⇔", "implies": "⇒",
    "in": "∈", "notin": "∉", "subset": "⊂", "cup": "∪", "cap": "∩", "emptyset": "∅", "forall": "∀",
    "exists": "∃", "sum": "Σ", "prod": "∏", "int": "∫", "partial": "∂", "nabla": "∇", "angle": "∠",
    "triangle": "△", "perp": "⊥", "parallel": "∥", "prime": "′", "therefore": "∴", "because": "∵",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε", "zeta": "ζ",
    "eta": "η", "theta": "θ", "vartheta": "θ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "φ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ",
    "Pi": "Π", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "pounds": "£", "euro": "€",
    "%": "%", "$": "$", "&": "&", "#": "#", "_": "_", "{": "{", "}": "}", "|": "‖", "\\": " ",
    ",": " ", ";": " ", ":": " ", "!": "", " ": " ", "quad": " ", "qquad": "  ",
}
# Commands that only change how what follows looks: dropped, their argument kept.
DROPPED = {"left", "right", "displaystyle", "textstyle", "scriptstyle", "big", "Big", "bigg", "Bigg",
           "bigl", "bigr", "Bigl", "Bigr", "limits", "nolimits", "middle"}
# Commands whose one argument is shown as it is.
WRAPPERS = {"text", "textrm", "textit", "textbf", "mathrm", "mathit", "mathbf", "mathsf", "mathtt", "mathcal",
            "mathbb", "operatorname", "boldsymbol", "bm", "mbox", "hbox", "emph", "textnormal"}
FRACTIONS = {"frac", "dfrac", "tfrac", "cfrac"}
ACCENTS = {"bar": "\u0305", "overline": "\u0305", "hat": "\u0302", "widehat": "\u0302", "vec": "\u20d7",
           "dot": "\u0307", "ddot": "\u0308", "tilde": "\u0303", "underline": "\u0332"}
FUNCTION_NAMES = {"sin", "cos", "tan", "sec", "csc", "cosec", "cot", "arcsin", "arccos", "arctan", "sinh", "cosh",
                  "tanh", "log", "ln", "exp", "arg", "det", "lim", "max", "min", "gcd", "deg"}
_SIMPLE = re.compile(r"^[\w.′°^]+$")


# Maths in a text: $$display$$, \\[display\\], \\(inline\\) or $inline$.
MATH = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]|\\\((.+?)\\\)|\$([^$]+?)\$", re.S)


def math_segments(text: str) -> list[tuple[bool, str]]:
    """The text cut into (is maths, content) runs."""
    out: list[tuple[bool, str]] = []
    last = 0
    for m in MATH.finditer(text):
        if m.start() > last:
            out.append((False, text[last:m.start()]))
        out.append((True, next(g for g in m.groups() if g is not None)))
        last = m.end()
    if last < len(text):
        out.append((False, text[last:]))
    return out


def latex_to_mathml(latex: str, block: bool = False) -> Optional[str]:
    """MathML for ``latex`` (inline, or a display ``block``), or None when the converter cannot read it."""
    source = latex.strip()
    if not source:
        return None
    # A degree sign written as a superscript ring prints as °, as a teacher writes it.
    source = re.sub(r"\^\s*\{?\s*\\circ\s*\}?", "°", source)
    bare = re.sub(r"\\.", "", source)
    if bare.count("{") != bare.count("}"):
        return None                 # a group never closed (or closed twice): the converter would drop part of it
    try:
        out = latex2mathml.converter.convert(source, display="block" if block else "inline")
    except _CONVERT_ERRORS:
        return None
    if "\\" in html.unescape(re.sub(r"<[^>]+>", "", out)):
        # An unknown command left as text (\arg, \foo): its name, without the backslash.
        out = re.sub(r">\\([A-Za-z]*)<", lambda m: f">{m[1]}<", out)
        if "\\" in html.unescape(re.sub(r"<[^>]+>", "", out)):
            return None
    out = re.sub(r"<mi>[{}]</mi>", "", out)     # a stray brace the converter kept as a letter
    # The converter leaves & and < inside \text{...} bare, which breaks the page: escape them.
    out = re.sub(r"(<mtext[^>]*>)(.*?)(</mtext>)", lambda m: m[1] + re.sub(r"&(?!#?\w+;)", "&amp;", m[2])
                 .replace("<", "&lt;") + m[3], out, flags=re.S)
    # A thin space after sin, cos, log ...: "sin A", not "sinA".
    names = "|".join(sorted(FUNCTION_NAMES))
    # (Not inside a power or an index, cos² A, whose first child it is.)
    return re.sub(rf"(?<!<msup>)(?<!<msub>)(?<!<msubsup>)(<mi>(?:{names})</mi>)(?!\s*<mo stretchy=\"false\">&#x00028;)",
                  r'\1<mspace width="0.1667em" />', out)


def _group(text: str, i: int) -> tuple[str, int]:
    """The argument starting at ``i`` (after spaces): a braced group, or one character or command."""
    n = len(text)
    while i < n and text[i] == " ":
        i += 1
    if i >= n:
        return "", i
    if text[i] == "{":
        depth, j = 0, i
        while j < n:
            if text[j] == "\\":
                j += 2
                continue
            depth += text[j] == "{"
            depth -= text[j] == "}"
            if depth == 0:
                return text[i + 1:j], j + 1
            j += 1
        return text[i + 1:], n          # never closed: the rest is the argument
    if text[i] == "\\":
        m = re.match(r"\\([A-Za-z]+|.)", text[i:])
        assert m is not None
        return m[0], i + len(m[0])
    return text[i], i + 1


def _optional(text: str, i: int) -> tuple[Optional[str], int]:
    j = i
    while j < len(text) and text[j] == " ":
        j += 1
    if j < len(text) and text[j] == "[":
        end = text.find("]", j)
        if end != -1:
            return text[j + 1:end], end + 1
    return None, i


def _bracketed(text: str) -> str:
    text = text.strip()
    if _SIMPLE.match(text) or (text.startswith("(") and text.endswith(")") and text.count("(") == 1):
        return text
    return f"({text})"


def _matrix(body: str) -> str:
    rows = [r.strip() for r in re.split(r"\\\\", body) if r.strip()]
    return "(" + "; ".join(" ".join(latex_to_text(c).strip() for c in r.split("&")) for r in rows) + ")"


def latex_to_text(latex: str) -> str:
    """The maths as plain text (×, ÷, √, a/b, x^2 kept as ^ for the typesetter): no backslash, no $."""
    out: list[str] = []
    text, i, n = latex.replace("$", ""), 0, len(latex.replace("$", ""))
    while i < n:
        ch = text[i]
        if ch == "\\":
            m = re.match(r"\\([A-Za-z]+|.)", text[i:])
            if m is None:          # a backslash at the very end
                break
            name, i = m[1], i + len(m[0])
            if name == "begin":
                env, i = _group(text, i)
                end = text.find(f"\\end{{{env}}}", i)
                body = text[i:end if end != -1 else n]
                i = end + len(f"\\end{{{env}}}") if end != -1 else n
                out.append(_matrix(body) if "matrix" in env else latex_to_text(body))
            elif name == "end":
                _, i = _group(text, i)
            elif name in FRACTIONS:
                top, i = _group(text, i)
                bottom, i = _group(text, i)
                if out and out[-1][-1:].isdigit():
                    out.append(" ")        # 1\frac{5}{6}: a mixed number, 1 5/6
                top, bottom = latex_to_text(top), latex_to_text(bottom)
                out.append(f"{_bracketed(top)}/{_bracketed(bottom)}" if bottom.strip() else top)
            elif name == "sqrt":
                index, i = _optional(text, i)
                body, i = _group(text, i)
                root = "√" if not index else ("∛" if index.strip() == "3" else f"{latex_to_text(index)}√")
                out.append(root + _bracketed(latex_to_text(body)))
            elif name in WRAPPERS:
                body, i = _group(text, i)
                out.append(latex_to_text(body))
            elif name in ACCENTS:
                body, i = _group(text, i)
                plain = latex_to_text(body)
                out.append(plain + ACCENTS[name] if len(plain) == 1 else plain)
            elif name in DROPPED:
                if name in ("left", "right", "middle", "big", "Big", "bigg", "Bigg", "bigl", "bigr", "Bigl", "Bigr"):
                    delim = re.match(r"\s*(\\[{}|]|[.()\[\]|/])", text[i:])
                    if delim:
                        i += len(delim[0])
                        d = delim[1]
                        out.append("" if d == "." else d.lstrip("\\"))
            elif name in SYMBOLS:
                out.append(SYMBOLS[name])
            elif name in FUNCTION_NAMES:
                spaced = " " if out and out[-1][-1:].isalnum() else ""
                out.append(f"{spaced}{name} ")
            else:
                out.append(name)            # a command we do not know: its name
        elif ch in "^_":
            arg, i = _group(text, i + 1)
            plain = latex_to_text(arg).strip() if arg.startswith("\\") or len(arg) > 1 else arg
            if ch == "^" and plain in ("°", "\\circ"):
                out.append("°")
            else:
                out.append(ch + (plain if len(plain) == 1 else f"({plain})"))
        elif ch in "{}":
            i += 1
        elif ch == "~":
            out.append(" ")
            i += 1
        else:
            out.append(ch)
            i += 1
    result = "".join(out)
    # Operators written without spaces in TeX read better spaced: "a\times b" gives "a × b".
    result = re.sub(r"\s*([×÷=≤≥≠≈<>±])\s*", r" \1 ", result)
    return re.sub(r"[ \t]{2,}", " ", result).strip()


# MathML read back as TeX (for questions brought in from other systems).
_TEX_ANNOTATIONS = ("application/x-tex", "tex", "latex", "application/x-latex", "text/x-tex")
_MO = {"×": r"\times", "÷": r"\div", "−": "-", "≤": r"\le", "≥": r"\ge", "≠": r"\ne", "±": r"\pm",
       "·": r"\cdot", "∞": r"\infty", "→": r"\to", "≈": r"\approx", "π": r"\pi", "θ": r"\theta",
       "°": r"^\circ", "\u2061": "", "\u2062": "", "\u2063": ""}


def mathml_to_tex(node) -> str:
    """TeX for a MathML tree: its TeX annotation when it carries one, else written from its elements.

    ``node`` is ``[tag, attrs, children]`` as ``from_html`` gathers it, or an
    ElementTree ``Element``.
    """
    if isinstance(node, Element):
        node = _from_element(node)
    if isinstance(node, str):
        return node.strip()
    tag, attrs, children = node
    elements = [c for c in children if not isinstance(c, str)]
    if tag == "semantics":
        for c in elements:
            if c[0] in ("annotation", "annotation-xml") and (c[1].get("encoding") or "").lower() in _TEX_ANNOTATIONS:
                return "".join(x for x in c[2] if isinstance(x, str))   # as written, spaces and all
        return mathml_to_tex(elements[0]) if elements else ""
    if tag in ("annotation", "annotation-xml"):
        return ""
    parts = [mathml_to_tex(c) for c in elements]

    def arg(i: int) -> str:
        return parts[i] if i < len(parts) else ""
    if tag in ("mi", "mn", "mtext", "ms"):
        text = "".join(c for c in children if isinstance(c, str)).strip()
        return f"\\text{{{text}}}" if tag == "mtext" and " " in text else text
    if tag == "mo":
        text = "".join(c for c in children if isinstance(c, str)).strip()
        return _MO.get(text, text)
    if tag == "msup":
        return f"{{{arg(0)}}}^{{{arg(1)}}}" if len(arg(0)) > 1 else f"{arg(0)}^{{{arg(1)}}}"
    if tag == "msub":
        return f"{arg(0)}_{{{arg(1)}}}"
    if tag == "msubsup":
        return f"{arg(0)}_{{{arg(1)}}}^{{{arg(2)}}}"
    if tag == "mfrac":
        return f"\\frac{{{arg(0)}}}{{{arg(1)}}}"
    if tag == "msqrt":
        return f"\\sqrt{{{''.join(parts)}}}"
    if tag == "mroot":
        return f"\\sqrt[{arg(1)}]{{{arg(0)}}}"
    if tag == "mfenced":
        return f"{attrs.get('open', '(')}{', '.join(parts)}{attrs.get('close', ')')}"
    if tag in ("mover", "munder", "munderover"):
        return "".join(parts)
    if tag == "mspace":
        return " "
    return "".join(parts)


def _from_element(el: Element) -> list:
    tag = el.tag.split("}")[-1]
    children: list = []
    if el.text:
        children.append(el.text)
    for child in el:
        children.append(_from_element(child))
        if child.tail and child.tail.strip():
            children.append(child.tail)
    return [tag, dict(el.attrib), children]
