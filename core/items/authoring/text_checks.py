"""What a student will read, checked on generated items: clumsy signs, a distractor that shows as the key,
options that repeat.

Validation proves a blueprint's formulas work; these checks read the items it
makes as a student would. Each level gives ``ITEMS_PER_LEVEL`` items (drawn
from fixed seeds), and each problem is reported once per level and check, naming the
level and the parameter values that produced it, and pointing at the field
to change.

Severity: a distractor that reads (or would be marked) the same as the key,
and two options that read the same, are errors, since the question is then
wrong or unanswerable; a clumsy sign or term ("2x + -9", "1x", "x + 0",
"x^1") is a warning, since the question is still right, only harder to read.
"""
from __future__ import annotations

import re
from fractions import Fraction
from typing import Any, Optional

from core.blueprints.formula import TimeBudgetExceeded, time_budget
from core.blueprints.loader import Issue, LoadedBlueprint
from core.items.generator import Item, SkillGenerator
from core.items.sampler import GenerationError

ITEMS_PER_LEVEL = 24
BUDGET_S = 4.0          # for all levels together; what was checked by then is reported

_VARS = "xyzabcnkpqrt"
CONTROL = re.compile(r"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f]")   # what no page shows: an escape read by mistake
SIGN_CHECKS: list[tuple[str, "re.Pattern[str]", str]] = [
    ("a plus or minus sign followed by another sign",
     re.compile(r"(?<![+\-−±∓])[+\-−]\s*[+\-−](?=\s*[\w(.$\\])"),
     "write the term with signed(), linear() or poly(), which give \"2x - 9\" rather than \"2x + -9\""),
    ("a coefficient of 1 written out",
     re.compile(rf"(?<![\w.,^/{{])1(?=[{_VARS}](?![A-Za-z]))"),
     "use term(), linear() or poly(), which write \"x\" rather than \"1x\""),
    ("a term with coefficient 0",
     re.compile(rf"(?<![\w.,^/{{])0(?=[{_VARS}](?![A-Za-z]))"),
     "leave the term out when its coefficient is 0 (poly() and linear() do)"),
    ("zero added or taken away",
     re.compile(r"(?<=\w|\))\s*[+\-−]\s*0(?![\d.,/])(?=\s*(?:$|[)=,;$]|[+\-−]))"),
     "leave out a term that is 0 (poly() and linear() do), or exclude 0 from the parameter"),
    ("a power of 1 written out",
     re.compile(r"(?<=[A-Za-z)])\^\s*\{?1\}?(?![\d.])"),
     "write x rather than x^1 (term() and poly() do)"),
]


def _number(text: str) -> Optional[Fraction]:
    """The number an option shows ("2.50", "-3", "1/2", "−0.5"), or None when it is not a plain number."""
    cleaned = str(text).strip().replace("−", "-").replace("$", "").replace(" ", "")
    if not cleaned or len(cleaned) > 40:
        return None
    try:
        return Fraction(cleaned)
    except (ValueError, ZeroDivisionError):
        return None


def _normal(text: str) -> str:
    """Text as a reader compares it: case, spaces, dollar signs and doubled signs ignored."""
    t = str(text).lower().replace("−", "-").replace("$", "")
    t = re.sub(r"\s+", "", t)
    return t.replace("+-", "-").replace("-+", "-").replace("--", "+")


def _decimals(text: str) -> Optional[int]:
    m = re.fullmatch(r"\s*[-−+]?\d+(?:\.(\d+))?\s*", str(text))
    return None if m is None else len(m.group(1) or "")


def _shown(params: dict) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items()) or "no parameters"


def _snippet(text: str, start: int, end: int) -> str:
    left, right = max(0, start - 18), min(len(text), end + 18)
    return ("…" if left else "") + " ".join(text[left:right].split()) + ("…" if right < len(text) else "")


class _Checker:
    def __init__(self, loaded: LoadedBlueprint):
        self.loaded = loaded
        self.bp = loaded.model
        self.issues: list[Issue] = []
        self.seen: set[tuple] = set()

    def report(self, key: tuple, path: list, message: str, severity: str) -> None:
        if key in self.seen:
            return
        self.seen.add(key)
        self.issues.append(self.loaded.issue(path, message, severity))

    def strategy_path(self, strategy: Optional[str]) -> list:
        for i, s in enumerate(self.bp.presentation.distractor_strategies):
            if s.type == strategy:
                return ["presentation", "distractor_strategies", i, "formula"]
        return ["presentation", "distractor_strategies"]

    def texts(self, item: Item) -> list[tuple[str, str, list]]:
        """(what, text, field path) of everything on the item a student reads."""
        out = [("the stem", item.stem, ["presentation", "stem_templates"])]
        for k, (option, strategy) in enumerate(zip(item.options, item.option_strategies or [None] * len(item.options))):
            path = ["generation", "answer_formula"] if strategy is None else self.strategy_path(strategy)
            out.append((f"option {chr(65 + k)}", option, path))
        if not item.options:
            out.append(("the answer", item.correct_answer, ["generation", "answer_formula"]))
        return out

    def signs(self, level: str, item: Item) -> None:
        where = f"level {level} with {_shown(item.generation_params)}"
        for what, text, path in self.texts(item):
            for name, pattern, advice in SIGN_CHECKS:
                m = pattern.search(text or "")
                if m:
                    self.report(("sign", name, level, path[0], path[-1] if path else None), path,
                                f"{where}: {what} reads \"{_snippet(text, m.start(), m.end())}\" ({name}); {advice}",
                                "warning")

    def controls(self, level: str, item: Item) -> None:
        """A control character in what a student reads: in a formula's string, '\\frac' or '\\times' written
        with one backslash is read as an escape (a form feed, a tab), and the page shows 'rac' or 'imes'."""
        where = f"level {level} with {_shown(item.generation_params)}"
        for what, text, path in self.texts(item):
            m = CONTROL.search(text or "")
            if m:
                self.report(("control", level, path[0], path[-1] if path else None), path,
                            f"{where}: {what} holds a control character ({m.group(0)!r}) before "
                            f"\"{_snippet(text, m.end(), m.end() + 12)}\": a backslash in a formula's string was "
                            f"read as an escape; double it (write '\\\\frac' inside a formula's quotes)", "error")

    def options(self, level: str, item: Item) -> None:
        where = f"level {level} with {_shown(item.generation_params)}"
        options = list(item.options)
        strategies = list(item.option_strategies or [None] * len(options))
        for i in range(len(options)):
            for j in range(i + 1, len(options)):
                a, b = options[i], options[j]
                if not _reads_same(a, b):
                    continue
                if None in (strategies[i], strategies[j]):
                    other = strategies[j] if strategies[i] is None else strategies[i]
                    key, shown = (a, b) if strategies[i] is None else (b, a)
                    self.report(("key", level, other), self.strategy_path(other),
                                f"{where}: distractor '{other}' shows as \"{shown}\", the same as the key \"{key}\"; "
                                f"change its formula or add \"distractor != answer\" under distractor_validation",
                                "error")
                else:
                    self.report(("repeat", level, strategies[i], strategies[j]), self.strategy_path(strategies[j]),
                                f"{where}: options {chr(65 + i)} \"{a}\" and {chr(65 + j)} \"{b}\" read the same "
                                f"(distractors '{strategies[i]}' and '{strategies[j]}'); make them differ or drop one",
                                "error")

    def diagnosed(self, level: str, item: Item) -> None:
        """A typed-answer item: a distractor (a diagnosed mistake) the marker would take for the key."""
        where = f"level {level} with {_shown(item.generation_params)}"
        key = item.correct_answer
        evaluation = item.evaluation or {}
        tolerance = evaluation.get("tolerance") or {}
        key_number = _number(key)
        for strategy, text in (item.misconceptions or {}).items():
            value = _number(text)
            if _normal(text) == _normal(key) or (value is not None and value == key_number):
                self.report(("key", level, strategy), self.strategy_path(strategy),
                            f"{where}: distractor '{strategy}' gives \"{text}\", the same as the key \"{key}\", so "
                            f"the mistake it stands for cannot be told from a right answer; change its formula or "
                            f"add \"distractor != answer\" under distractor_validation", "error")
            elif value is not None and key_number is not None and evaluation.get("method") == "numeric_tolerance":
                gap, size = abs(float(value) - float(key_number)), abs(float(key_number))
                if gap <= (tolerance.get("absolute") or 0) or gap <= (tolerance.get("relative") or 0) * size:
                    self.report(("tolerance", level, strategy), self.strategy_path(strategy),
                                f"{where}: distractor '{strategy}' gives \"{text}\", within the marking tolerance "
                                f"of the key \"{key}\", so a student making that mistake is marked right; make "
                                f"the tolerance tighter or leave these values out", "warning")


def _reads_same(a: str, b: str) -> bool:
    """Two options a student would take for the same answer: the same text once case, spaces and doubled
    signs are ignored, or the same number written to the same decimal places ("-0" and "0", "+3" and "3").
    "38" and "38.0", or "0.5" and "1/2", differ: in a question on rounding or on fractions they are
    different answers."""
    if _normal(a) == _normal(b):
        return True
    na, nb = _number(a), _number(b)
    return na is not None and na == nb and _decimals(a) is not None and _decimals(a) == _decimals(b)


def check_items(loaded: LoadedBlueprint, gen: SkillGenerator, per_level: int = ITEMS_PER_LEVEL,
                seed: Any = "text-check") -> list[Issue]:
    """Issues in what students read, over up to ``per_level`` distinct items of every level of a valid skill."""
    checker = _Checker(loaded)
    levels = list(gen.cs.levels)
    try:
        with time_budget(BUDGET_S):
            for level in levels:
                for i in range(per_level):
                    try:
                        item = gen.generate(level, f"{seed}/{i}")
                    except GenerationError:
                        break   # the level's own failure is reported by validation already
                    checker.signs(level, item)
                    checker.controls(level, item)
                    if item.options:
                        checker.options(level, item)
                    else:
                        checker.diagnosed(level, item)
    except TimeBudgetExceeded:
        checker.issues.append(loaded.issue(["generation", "difficulty_levels"],
                                           f"what students read was checked on only part of the items: generating "
                                           f"them took longer than {BUDGET_S:g} s", "warning"))
    return checker.issues + teaching_issues(loaded)


def teaching_issues(loaded: LoadedBlueprint) -> list[Issue]:
    """What lessons and remediation will lack: the skill's teaching, and what each mistake's student needs."""
    bp = loaded.model
    issues = []
    if bp.teaching is None:
        issues.append(loaded.issue(["skill_id"], "no 'teaching': a lesson card will show only the skill statement "
                                                 "before its question; add teaching with a few plain sentences "
                                                 "(text) and a key concept (see the templates)", "warning"))
    for k, strategy in enumerate(bp.presentation.distractor_strategies):
        if not strategy.explanation:
            issues.append(loaded.issue(["presentation", "distractor_strategies", k, "type"],
                                       f"mistake '{strategy.type}' has no 'explanation': a student who makes it will "
                                       f"be shown the skill's key concept instead of what this mistake needs",
                                       "warning"))
    return issues
