"""An answer shown back as it was read: plain text for feedback, LaTeX for the preview.

Implicit multiplication is written out ("2(x^2-1)" shows as "2*(x^2 - 1)")
and function arguments get their brackets ("sin x" shows as "sin(x)"), so a
student sees exactly what will be marked.
"""
from __future__ import annotations

from fractions import Fraction

from core.marking.expressions import Node
from core.marking.numeric import _show_number

_PRECEDENCE = {"add": 1, "mul": 2, "neg": 3, "pow": 4}
_LATEX_FUNCTIONS = {"sin", "cos", "tan", "sec", "csc", "cot", "sinh", "cosh", "tanh", "coth", "exp", "ln", "log"}
_LATEX_NAMED = {"asin": r"\arcsin", "acos": r"\arccos", "atan": r"\arctan", "asec": r"\operatorname{arcsec}",
                "acsc": r"\operatorname{arccsc}", "acot": r"\operatorname{arccot}", "sech": r"\operatorname{sech}",
                "csch": r"\operatorname{csch}", "asinh": r"\operatorname{arsinh}", "acosh": r"\operatorname{arcosh}",
                "atanh": r"\operatorname{artanh}"}
_GREEK = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu",
          "nu", "xi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega", "Gamma", "Delta", "Theta",
          "Lambda", "Xi", "Pi", "Sigma", "Phi", "Psi", "Omega"}


def show_expression(node: Node, outer: int = 0) -> str:
    """The tree as read, in plain text."""
    kind = node[0]
    if kind == "num":
        text = _show_number(node[1])
    elif kind in ("var", "const"):
        text = node[1]
    elif kind == "func":
        if node[1] == "fact":
            text = show_expression(node[2], 5) + "!"
        elif node[1] == "abs":
            text = f"|{show_expression(node[2])}|"
        else:
            text = f"{node[1]}({show_expression(node[2])})"
    elif kind == "neg":
        text = "-" + show_expression(node[1], 3)
    elif kind == "add":
        text = show_expression(node[1][0], 1)
        for t in node[1][1:]:
            text += f" - {show_expression(t[1], 2)}" if t[0] == "neg" else f" + {show_expression(t, 1)}"
    elif kind == "mul":
        text = "*".join(show_expression(f, 2) for f in node[1])
        if len(node[2]) == 1:
            text += "/" + show_expression(node[2][0], 3)
        elif node[2]:
            text += "/(" + "*".join(show_expression(f, 2) for f in node[2]) + ")"
    else:
        text = show_expression(node[1], 5) + "^" + show_expression(node[2], 5)
    return f"({text})" if _PRECEDENCE.get(kind, 9) < outer else text


def _latex_number(v: Fraction) -> str:
    shown = _show_number(v)
    if "e" in shown and "." in shown or "e+" in shown or "e-" in shown:
        mantissa, _, exponent = shown.partition("e")
        return rf"{mantissa} \times 10^{{{int(exponent)}}}"
    return shown


def _latex_name(name: str) -> str:
    base, _, sub = name.partition("_")
    if "[" in name:
        base, sub = name[:-1].split("[", 1)
    elif not sub and len(name) > 1 and name[-1].isdigit():
        i = len(name.rstrip("0123456789"))
        base, sub = name[:i], name[i:]
    body = "\\" + base if base in _GREEK else (base if len(base) == 1 else rf"\mathrm{{{base}}}")
    return f"{body}_{{{sub}}}" if sub else body


def latex_expression(node: Node, outer: int = 0) -> str:
    """The tree as read, as LaTeX."""
    kind = node[0]
    if kind == "num":
        text = _latex_number(node[1])
    elif kind == "var":
        text = _latex_name(node[1])
    elif kind == "const":
        text = {"pi": r"\pi", "e": "e", "i": "i"}[node[1]]
    elif kind == "func":
        name, arg = node[1], node[2]
        if name == "fact":
            text = latex_expression(arg, 5) + "!"
        elif name == "abs":
            text = rf"\left|{latex_expression(arg)}\right|"
        elif name == "sqrt":
            text = rf"\sqrt{{{latex_expression(arg)}}}"
        else:
            head = "\\" + name if name in _LATEX_FUNCTIONS else _LATEX_NAMED.get(name, rf"\operatorname{{{name}}}")
            text = rf"{head}\left({latex_expression(arg)}\right)"
    elif kind == "neg":
        text = "-" + latex_expression(node[1], 3)
    elif kind == "add":
        text = latex_expression(node[1][0], 1)
        for t in node[1][1:]:
            text += f" - {latex_expression(t[1], 2)}" if t[0] == "neg" else f" + {latex_expression(t, 1)}"
    elif kind == "mul":
        text = _latex_product(node[1])
        if node[2]:
            return rf"\frac{{{text}}}{{{_latex_product(node[2])}}}"
    else:
        base = latex_expression(node[1], 5)
        text = f"{base}^{{{latex_expression(node[2])}}}"
    return rf"\left({text}\right)" if _PRECEDENCE.get(kind, 9) < outer else text


def _latex_product(factors: tuple) -> str:
    out = ""
    for i, f in enumerate(factors):
        part = latex_expression(f, 2)
        if i and (f[0] == "num" or part[:1].isdigit() or factors[i - 1][0] == "func" and factors[i - 1][1] == "fact"
                  or part.startswith("-")):
            out += r" \cdot " + part
        elif i:
            out += " " + part if part[:1].isalpha() and out[-1:].isalpha() else part
        else:
            out = part
    return out


def show_answer(answer: tuple) -> str:
    kind = answer[0]
    if kind == "def":
        return f"{answer[1]} = {show_expression(answer[2])}"
    if kind == "eq":
        return f"{show_expression(answer[2])} = {show_expression(answer[3])}"
    if kind == "rel":
        return f"{show_expression(answer[3])} {answer[4]} {show_expression(answer[5])}"
    if kind == "truth":
        return "every number" if answer[1] else "no solution"
    if kind == "list":
        return "[" + ", ".join(show_answer(a) for a in answer[1]) + "]"
    if kind == "set":
        return " or ".join(show_answer(a) for a in answer[1])
    if kind == "and":
        return " and ".join(show_answer(a) for a in answer[1])
    return show_expression(answer[1])


_LATEX_RELATIONS = {"<": "<", ">": ">", "<=": r"\le", ">=": r"\ge", "!=": r"\ne"}


def latex_answer(answer: tuple) -> str:
    kind = answer[0]
    if kind == "def":
        name = answer[1]
        head = name if "(" in name else _latex_name(name)
        return f"{head} = {latex_expression(answer[2])}"
    if kind == "eq":
        return f"{latex_expression(answer[2])} = {latex_expression(answer[3])}"
    if kind == "rel":
        return f"{latex_expression(answer[3])} {_LATEX_RELATIONS[answer[4]]} {latex_expression(answer[5])}"
    if kind == "truth":
        return r"\text{every number}" if answer[1] else r"\text{no solution}"
    if kind == "list":
        return r"\left[" + ", ".join(latex_answer(a) for a in answer[1]) + r"\right]"
    if kind == "set":
        return r"\text{ or }".join(latex_answer(a) for a in answer[1])
    if kind == "and":
        return r"\text{ and }".join(latex_answer(a) for a in answer[1])
    return latex_expression(answer[1])
