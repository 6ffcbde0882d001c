"""Numbers, units and maths written as a UK teacher writes them.

Generated questions carry the values their formulas gave ("18247.60" with the
unit "£", "x + -9", "cm^2", "1x"); a printed paper shows "£18,247.60",
"x − 9", "cm²" and "x". Three forms of the same text:

* ``typeset_plain``: plain Unicode, no TeX left (a diagram's label, a CSV);
* ``typeset``: the same, but maths between dollar signs kept as TeX for a
  Markdown renderer that draws it (the app's pages);
* ``typeset_html``: HTML, the maths as MathML made here, so a printed paper
  needs no network and shows no raw TeX.

The rules, in order: ``exp(`` and ``sqrt(`` as e^ and √; ``*`` between
factors dropped (or ×, between two numbers); ``+ -9`` as ``− 9`` and
``- -4`` as ``+ 4``; a minus sign (−) for subtraction and negatives, hyphens
in words left alone; ``1x`` as ``x``; cm^2, cm2 as cm²; no space before ° or
%; £ before the amount; thousands separated by commas from five digits
(four after £), never in a year, a time or a decimal's fractional part;
powers and indices raised.
"""
from __future__ import annotations

import html as _html
import re
from typing import Any, Callable, Optional

from core.items.mathml import FRACTIONS, FUNCTION_NAMES, latex_to_mathml, latex_to_text, math_segments as _segments

PLACEHOLDERS = "\ue000-\uf8ff"     # private-use characters standing for MathML already made
OPERAND = rf"(?:[\d(.√π∛£€{PLACEHOLDERS}]|[A-Za-z](?![A-Za-z]))"
SUPERSCRIPT = dict(zip("0123456789+-−=()abcdefghijklmnoprstuvwxyz.°",
                       "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁻⁼⁽⁾ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ·°"))
SUBSCRIPT = dict(zip("0123456789+-−=()aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉₊₋₋₌₍₎ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "theta": "θ", "lambda": "λ",
         "mu": "μ", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "omega": "ω", "Delta": "Δ", "Omega": "Ω"}
CURRENCY = ("£", "$", "€")
CLOSE_UNITS = ("°", "%", "°C", "°F", "′", "″")


def _times(m: re.Match) -> str:
    return " × " if m[1].isdigit() and m[2].isdigit() else ""


def _group_thousands(m: re.Match) -> str:
    digits = m[1]
    money = m.start(1) > 0 and m.string[m.start(1) - 1] == "£"
    if digits.startswith("0") or len(digits) < (4 if money else 5):
        return digits
    return f"{int(digits):,}"


def tidy(text: str) -> str:
    """The number, sign and unit rules on plain text (powers are left as ^ for the caller to raise)."""
    s = re.sub(r"\bexp\(", "e^(", text)
    # A Greek letter spelt out with an index or a power (theta_1, lambda^2) is the letter.
    s = re.sub(rf"\b({'|'.join(GREEK)})(?=_(?:\w\b|\d+\b|\{{)|\^)", lambda m: GREEK[m[1]], s)
    s = re.sub(r"\bsqrt\(", "√(", s)
    s = re.sub(r"(?<=([\w)]))\*(?=([\w(]))", _times, s)
    # Signs: "+ -9" is "− 9"; "- -4" is "+ 4".
    s = re.sub(rf"(\s?)\+(\s?)[-−]\s*(?={OPERAND})", lambda m: f"{m[1]}−{m[2]}", s)
    s = re.sub(rf"(?<=[\w)\]])(\s?)[-−](\s?)[-−]\s*(?={OPERAND})", lambda m: f"{m[1]}+{m[2]}", s)
    # A minus sign for subtraction and for negatives; a hyphen inside a word or a code stays one.
    s = re.sub(r"(?<=\s)-(?=\s)", "−", s)
    s = re.sub(rf"(?<![^\s(\[{{,=<>:;/×÷^≤≥±])-(?={OPERAND})", "−", s)
    # A coefficient of 1 is not written.
    s = re.sub(rf"(?<![\w.^_,{PLACEHOLDERS}])1(?=[xyz](?![A-Za-z]))", "", s)
    # Units: cm^2, cm2 as cm²; no space before ° or %.
    s = re.sub(r"(?<![A-Za-z])(mm|cm|km|m)\s?\^\s?\{?([23])\}?(?!\d)", lambda m: m[1] + SUPERSCRIPT[m[2]], s)
    s = re.sub(r"(?<=[\d\s])(mm|cm|km)([23])(?!\w)", lambda m: m[1] + SUPERSCRIPT[m[2]], s)
    s = re.sub(r"(?<=\d )m([23])(?!\w)", lambda m: "m" + SUPERSCRIPT[m[1]], s)
    s = re.sub(r"(?<=[\d)])\s+(°|%)", r"\1", s)
    # Money: the pound sign before the amount.
    s = re.sub(r"(?<![\w.,])([−-]?)(\d[\d,]*(?:\.\d+)?)\s*£", r"\1£\2", s)
    s = re.sub(r"£\s+(?=\d)", "£", s)
    # Thousands separated from five digits (four after £); not in years, times or fractional parts.
    s = re.sub(r"(?<![\w.,:/^])(\d{4,})(?!\d|,\d|:\d)", _group_thousands, s)
    return s


def tidy_latex(latex: str) -> str:
    """The sign, coefficient and thousands rules on TeX (the converter draws the minus signs)."""
    s = re.sub(r"(\s?)\+(\s?)-(?=\s*[\w(\\.{])", lambda m: f"{m[1]}-{m[2]}", latex)
    s = re.sub(r"(?<=[\w)}\]])(\s?)-(\s?)-(?=\s*[\w(\\.{])", lambda m: f"{m[1]}+{m[2]}", s)
    s = re.sub(r"(?<![\w.^_\\])1(?=[xyz](?![A-Za-z]))", "", s)
    s = re.sub(r"(?<![\d.^_])(\d{5,})(?![\d])", lambda m: f"{int(m[1]):,}".replace(",", "{,}"), s)
    return s


# --------------------------------------------------------------------------
# TeX outside dollar signs, powers and indices


def _tex_command_end(text: str, start: int) -> int:
    """Where a command that starts at ``start`` (a backslash) ends, its arguments included."""
    m = re.match(r"\\([A-Za-z]+|.)", text[start:])
    if m is None:
        return len(text)
    name, i = m[1], start + len(m[0])
    args = 2 if name in FRACTIONS else 1 if name in ("sqrt", "text", "mathrm", "operatorname", "textrm", "mathbf",
                                                       "bar", "overline", "hat", "vec") else 0
    if name == "sqrt":
        opt = re.match(r"\s*\[[^\]]*\]", text[i:])
        if opt:
            i += len(opt[0])
    for _ in range(args):
        while i < len(text) and text[i] == " ":
            i += 1
        if i < len(text) and text[i] == "{":
            depth = 0
            while i < len(text):
                depth += text[i] == "{"
                depth -= text[i] == "}"
                i += 1
                if depth == 0:
                    break
        elif i < len(text):
            i += 1
    return i


def _stray_tex(text: str, stash: Optional[Callable[[str], str]]) -> str:
    """Backslash commands in ordinary text: fractions and roots as MathML (with ``stash``), the rest as text."""
    if "\\" not in text:
        return text
    out, i = [], 0
    while i < len(text):
        j = text.find("\\", i)
        if j == -1:
            out.append(text[i:])
            break
        out.append(text[i:j])
        end = _tex_command_end(text, j)
        run = text[j:end]
        name = re.match(r"\\([A-Za-z]+|.)", run)
        mathml = None
        if stash is not None and name and (name[1] in FRACTIONS or name[1] == "sqrt"):
            mathml = latex_to_mathml(tidy_latex(run))
        plain = latex_to_text(run)
        if name and name[1] in FUNCTION_NAMES and out and out[-1][-1:].isalnum():
            plain = " " + plain          # 6\sin x: "6 sin x"
        out.append(stash(mathml) if mathml is not None else plain)
        i = end
    return "".join(out)


def _script_argument(text: str, i: int) -> tuple[Optional[str], int]:
    """The argument of ^ or _ at ``i``: {..}, (..), a signed number or one letter."""
    if i >= len(text):
        return None, i
    if text[i] in "{(":
        close = "}" if text[i] == "{" else ")"
        depth, j = 0, i
        while j < len(text):
            depth += text[j] == text[i]
            depth -= text[j] == close
            if depth == 0:
                return text[i + 1:j], j + 1
            j += 1
        return None, i
    m = re.match(r"[−+-]?(?:\d+(?:\.\d+)?|[A-Za-z](?![A-Za-z]{2})|°)", text[i:])
    if m:
        return m[0], i + len(m[0])
    return None, i


def _raise(content: str, table: dict, mark: str) -> str:
    if all(ch in table for ch in content):
        return "".join(table[ch] for ch in content)
    return f"{mark}({content})" if len(content) > 1 else f"{mark}{content}"


def _scripts(text: str, as_html: bool, pieces: dict[str, str]) -> str:
    """Powers (x^2, 10^-8, e^(2x)) and indices (u_n, S_{12}) raised, the rest escaped for HTML."""
    def emit(chunk: str) -> str:
        if not as_html:
            return chunk
        out = _html.escape(chunk, quote=False).replace("\n", "<br>")
        return "".join(pieces.get(ch, ch) for ch in out) if pieces else out

    out, i, start = [], 0, 0
    while i < len(text):
        ch = text[i]
        script = None
        if ch == "^" and i > 0:
            script = "sup"
        elif (ch == "_" and i > 0 and text[i - 1].isalpha()
              and (i == 1 or not text[i - 2].isalnum())):
            script = "sub"
        if script:
            arg, end = _script_argument(text, i + 1)
            if arg is not None and arg.strip():
                out.append(emit(text[start:i]))
                if as_html:
                    out.append(f"<{script}>{_scripts(arg, True, pieces)}</{script}>")
                else:
                    table, mark = (SUPERSCRIPT, "^") if script == "sup" else (SUBSCRIPT, "_")
                    out.append(_raise(_scripts(arg, False, pieces), table, mark))
                i = start = end
                continue
        i += 1
    out.append(emit(text[start:]))
    return "".join(out)


def _plain(text: str, as_html: bool) -> str:
    pieces: dict[str, str] = {}

    def stash(rendered: str) -> str:
        mark = chr(0xE000 + len(pieces))
        pieces[mark] = rendered
        return mark

    text = _stray_tex(text.replace("\\$", "\uf8ff"), stash if as_html else None)
    text = tidy(re.sub(r"\^\s*\{?\s*°\s*\}?", "°", text))
    text = re.sub(r"\$(?!\d)", "", text)           # a lone dollar sign that opened no maths
    text = re.sub(r"(?<=\S)\^(?=\s|$)", "", text)   # a caret with nothing to raise
    text = _scripts(text, as_html, pieces)
    return text.replace("\uf8ff", "$")


def typeset_plain(text: Any) -> str:
    """Plain Unicode: the rules applied, maths written out (x², √2, 3/4), no TeX and no dollar signs."""
    out = []
    for is_math, part in _segments(str(text)):
        out.append(_plain(latex_to_text(tidy_latex(part)), False) if is_math else _plain(part, False))
    return "".join(out)


def typeset(text: Any) -> str:
    """For Markdown that draws TeX (the app's pages): the rules applied, maths kept between dollar signs."""
    out = []
    for is_math, part in _segments(str(text)):
        out.append(f"${tidy_latex(part).strip()}$" if is_math else _plain(part, False))
    return "".join(out)


def typeset_html(text: Any) -> str:
    """HTML: the rules applied, every piece of maths as MathML (or readable text where it cannot be)."""
    out = []
    for is_math, part in _segments(str(text)):
        if is_math:
            latex = tidy_latex(part)
            mathml = latex_to_mathml(latex)
            out.append(mathml if mathml is not None else _plain(latex_to_text(latex), True))
        else:
            out.append(_plain(part, True))
    return "".join(out)


# --------------------------------------------------------------------------
# Answers, units and times


def with_units(value: Any, units: Optional[str]) -> str:
    """An answer with its units as written: £ before, ° and % close after, others after a space.

    The result is still to be typeset (it may hold "18247.60" or "cm^2").
    """
    text = str(value).strip()
    unit = (units or "").strip()
    if not unit or not text:
        return text
    squeezed = text.replace(" ", "")
    if unit in CURRENCY:
        if unit in text:
            return text
        sign = text[0] if text[0] in "-−" else ""
        return f"{sign}{unit}{text[len(sign):]}"
    if unit in CLOSE_UNITS:
        return text if squeezed.endswith(unit) else f"{text}{unit}"
    if squeezed.endswith(unit.replace(" ", "")) or tidy(squeezed).endswith(tidy(unit.replace(" ", ""))):
        return text
    return f"{text} {unit}"


def duration(minutes: Any) -> str:
    """A time allowed as an exam paper states it: "1 hour 15 minutes", "50 minutes", "2 hours"."""
    total = int(round(float(minutes)))
    hours, rest = divmod(total, 60)
    parts = []
    if hours:
        parts.append(f"{hours} hour{'' if hours == 1 else 's'}")
    if rest or not hours:
        parts.append(f"{rest} minute{'' if rest == 1 else 's'}")
    return " ".join(parts)


def minutes_text(minutes: Any) -> str:
    """"1 minute", "2.5 minutes", "90 minutes": a number of minutes as written, with its noun agreeing."""
    value = float(minutes)
    return f"{value:g} minute{'' if value == 1 else 's'}"


def marks_text(n: Any) -> str:
    """"1 mark", "3 marks"."""
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    return f"{n} mark{'' if n == 1 else 's'}"
