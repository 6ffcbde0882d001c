"""Choose-several questions: the letters a student ticks, the share of the marks each option carries.

A choose-several (multiple-response) question lists its options in order,
lettered A, B, C, ...; its key is the letters of the right options ("A, C").
Each option has a fraction of the marks: positive for a right option (the
right ones add up to 1), zero or negative for a wrong one (Moodle takes
marks away for a wrong tick). A student's answer is the letters they ticked,
written "A, C", "C,A", "a c" or "AC"; the score is the sum of the ticked
options' fractions, never below 0 or above 1.

Fractions are read as the nearest fraction with a denominator of at most
1000, so the seven-figure decimals Moodle writes (0.3333333) add up exactly.
"""
from __future__ import annotations

import math
import re
import unicodedata
from fractions import Fraction
from typing import Any, Optional, Sequence

MAX_OPTIONS = 26                      # lettered A to Z
_SEPARATORS = re.compile(r"[\s,;/&+]+")
_BRACKETS = "()[].:"
ASK_FOR_LETTERS = "Give the letters of the options you choose, such as A, C."


def letter(index: int) -> str:
    return chr(65 + index)


def letters(indexes: Sequence[int]) -> str:
    """The canonical way to write a set of options: "A, C" (in order, each once)."""
    return ", ".join(letter(i) for i in sorted(set(indexes)))


def options_span(count: int) -> str:
    return "A" if count == 1 else f"A to {letter(count - 1)}"


def read_letters(text: Any, count: int) -> tuple[Optional[list[int]], Optional[str]]:
    """(the options named, in order, each once; None) or (None, why the text names no options).

    Letters may be separated by commas, spaces, semicolons, slashes or "and", written together ("AC"),
    in either case and in any order; "(a)" and "a." are read as a.
    """
    raw = unicodedata.normalize("NFKC", "" if text is None else str(text)).strip()
    tokens = [t.strip(_BRACKETS) for t in _SEPARATORS.split(raw)]
    tokens = [t for t in tokens if t]
    if len(tokens) > 1:
        tokens = [t for t in tokens if t.casefold() != "and"]
    if not tokens:
        return None, "No option was chosen."
    if any(not re.fullmatch(r"[A-Za-z]+", t) for t in tokens):
        return None, f"That is not one of the options. {ASK_FOR_LETTERS}"
    picked = sorted({ord(c) - 65 for t in tokens for c in t.upper()})
    outside = [letter(i) for i in picked if i >= count]
    if outside:
        which = (f"there is no {outside[0]}" if len(outside) == 1
                 else "there are no " + ", ".join(outside[:-1]) + " or " + outside[-1])
        return None, f"That is not one of the options: {which} (the options are {options_span(count)})."
    return picked, None


def share(value: Any) -> Fraction:
    """One option's fraction of the marks as an exact fraction (0.3333333 is 1/3); ValueError if it is no number."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Fraction)):
        raise ValueError(f"{value!r} is not a number")
    if isinstance(value, str):
        value = float(value)
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError(f"{value!r} is not a finite number")
    return Fraction(value).limit_denominator(1000)


def show_share(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def default_fractions(right: Sequence[int], count: int) -> list[float]:
    """When the question gives none: 1/k for each of the k right options, -1/k for each wrong one
    (a wrong tick cancels a right one, so ticking everything earns nothing unless nearly all are right)."""
    k = len(set(right))
    return [1 / k if i in right else -1 / k for i in range(count)] if k else [0.0] * count


def key_problem(key: str, options: Sequence[str], fractions: Optional[Sequence[Any]]) -> Optional[str]:
    """None when a choose-several key and its fractions can be marked, else one sentence saying what is wrong."""
    count = len(options)
    if count < 2:
        return "a choose-several question needs at least two options"
    if count > MAX_OPTIONS:
        return f"a choose-several question has at most {MAX_OPTIONS} options (A to Z), not {count}"
    right, problem = read_letters(key, count)
    if problem is not None or not right:
        return (f"the answer key '{key}' does not name the right options by their letters, such as A, C "
                f"({(problem or 'no option').rstrip('.')})")
    if fractions is None:
        return None
    if not isinstance(fractions, (list, tuple)):
        return f"the options' fractions of the marks must be a list, one number per option, not {fractions!r}"
    if len(fractions) != count:
        return (f"the question has {count} options but {len(fractions)} fractions of the marks; "
                f"give one per option")
    shares = []
    for i, f in enumerate(fractions):
        try:
            s = share(f)
        except (ValueError, OverflowError):
            return f"option {letter(i)}'s fraction of the marks is {f!r}; give a number from -1 to 1"
        if not -1 <= s <= 1:
            return f"option {letter(i)}'s fraction of the marks is {f!r}; give a number from -1 to 1"
        shares.append(s)
    for i, s in enumerate(shares):
        if i in right and s <= 0:
            return (f"option {letter(i)} is in the answer key '{key}' but earns no marks (its fraction is "
                    f"{show_share(s)}); a right option needs a positive fraction")
        if i not in right and s > 0:
            return (f"option {letter(i)} earns marks (its fraction is {show_share(s)}) but is not in the answer "
                    f"key '{key}'")
    total = sum((s for s in shares if s > 0), Fraction(0))
    if abs(total - 1) > Fraction(1, 10 ** 9):
        return f"the right options' fractions add up to {show_share(total)}, not 1"
    return None


def right_options(key: Any, count: int) -> list[int]:
    """The right options a key names (none when it cannot be read): for showing, never for marking."""
    picked, _ = read_letters(key, count)
    return picked or []


def options_in_words(indexes: Sequence[int], options: Sequence[str]) -> str:
    """Options as a student reads them after answering: "B and D: 3, 5" ("; " between texts with commas)."""
    chosen = [i for i in sorted(set(indexes)) if 0 <= i < len(options)]
    if not chosen:
        return ""
    names = [letter(i) for i in chosen]
    named = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    texts = [str(options[i]) for i in chosen]
    joiner = "; " if any("," in t for t in texts) else ", "
    return f"{named}: {joiner.join(texts)}"


_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def _count(n: int, noun: str) -> str:
    return f"{_WORDS[n] if n < len(_WORDS) else n} {noun}{'' if n == 1 else 's'}"


def feedback(ticked: int, right_ticked: int, right_total: int) -> str:
    """What a not-fully-right set of ticks is told, in counts only: never which option is which."""
    wrong = ticked - right_ticked
    missing = right_total - right_ticked
    if right_ticked == 0:
        return ("The option you ticked is not a right one." if ticked == 1
                else f"None of the {ticked} options you ticked is a right one.")
    missing_text = f"{_count(missing, 'right option')} {'is' if missing == 1 else 'are'} missing"
    if wrong == 0:
        said = "Your tick is right" if ticked == 1 else f"All {ticked} of your ticks are right"
        return f"{said}, but {missing_text}."
    if missing == 0:
        return (f"You ticked every right option, but {_WORDS[wrong] if wrong < len(_WORDS) else wrong} of your "
                f"ticks {'is' if wrong == 1 else 'are'} wrong.")
    return (f"{right_ticked} of your {ticked} ticks {'is' if right_ticked == 1 else 'are'} right, "
            f"and {missing_text}.")
