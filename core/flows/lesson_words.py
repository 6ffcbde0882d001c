"""What a lesson says to the student in its own words: the hints of a card, in the order they escalate,
how engaged the student was, and the end-of-lesson summary when no LLM writes one."""
from __future__ import annotations

import re
from typing import Any, Optional, Sequence

EXAMPLE_HINT = "Look at the worked example above: follow the same steps with this question's numbers."
RUSHED_MS = 4_000          # an attempt quicker than this was not read and worked: it counts half for engagement


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text).strip().lower()


def hint_ladder(item: Any, key_concept: Optional[str], has_example: bool) -> list[str]:
    """The card's hints, each a step more help than the last, none repeated.

    First the question's own hints (written for it), then the method a step at a time (its marking scheme's
    steps, never their keys), then the worked example, and last the key concept.
    """
    ladder: list[str] = []
    seen: set[str] = set()

    def add(text: Optional[str]) -> None:
        if text and text.strip() and _norm(text) not in seen:
            seen.add(_norm(text))
            ladder.append(text.strip())

    for hint in item.hints or []:
        add(hint)
    steps = [c for c in (item.marking_scheme or {}).get("criteria") or [] if c.get("step")]
    if len(steps) > 1:   # one step is the whole question again: it says nothing about the method
        method = "; ".join(f"{k}. {c['step']}" + (f" ({c['description']})" if c.get("description") else "")
                           for k, c in enumerate(steps, 1))
        add(f"Work through it in steps: {method}.")
    if has_example:
        add(EXAMPLE_HINT)
    add(key_concept)
    return ladder


def hint_for(ladder: Sequence[str], wrong_attempts: int) -> Optional[str]:
    """The hint after the ``wrong_attempts``-th wrong answer: the next rung, the last once they run out."""
    if not ladder or wrong_attempts < 1:
        return None
    return ladder[min(wrong_attempts, len(ladder)) - 1]


def engagement(results: Sequence[Optional[dict]], evidence: Sequence[dict], shown: int) -> float:
    """How fully the student worked the cards they were shown, 0 to 1 (seed 001's engagement score).

    A card answered (right, or wrong on its last attempt) counts 1, or a half when every attempt on it was
    rushed (under RUSHED_MS); a card skipped after trying counts a half; one skipped unseen, or left when the
    lesson stopped, counts 0.
    """
    if shown <= 0:
        return 0.0
    total = 0.0
    for index, r in enumerate(results[:shown]):
        tries = [e for e in evidence if e["card_index"] == index]
        if not r:
            total += 0.5 if tries else 0.0      # on screen when the lesson stopped
            continue
        if r["result"] == "skipped":
            total += 0.5 if tries else 0.0
            continue
        times = [e.get("time_ms") for e in tries if e.get("time_ms") is not None]
        total += 0.5 if times and all(t < RUSHED_MS for t in times) else 1.0
    return round(total / shown, 2)


def plural(n: Any, noun: str) -> str:
    """"1 card", "3 cards"."""
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _names(names: Sequence[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def written_summary(analysis: dict, strong: Sequence[str], weak: Sequence[str]) -> str:
    """The end-of-lesson summary from the lesson's own figures: how it went, what went well, what next."""
    total, done, right = analysis["cards_total"], analysis["cards_completed"], analysis["cards_correct"]
    first = sum(1 for s in analysis["skills"].values() for _ in range(s["first_try"]))
    skipped = analysis["cards_skipped"]
    lines = []
    if analysis.get("stopped_early"):
        lines.append(f"You stopped after {plural(analysis['cards_shown'], 'card')} of {total}, "
                     f"with {right} right.")
    else:
        lines.append(f"You got {right} of {plural(total, 'card')} right" +
                     (f", {first} of them first time." if right else "."))
    if skipped:
        lines.append(f"You skipped {plural(skipped, 'card')}.")
    if strong:
        lines.append(f"You were secure on {_names(strong)}.")
    if weak:
        lines.append(f"Practise {_names(weak)} next: go back over its card's teaching, then try a few questions "
                     f"in rapid fire.")
    if analysis.get("stopped_early"):
        lines.append("Finish the lesson another time, or start it again, before moving on.")
    elif analysis["retry_recommended"]:
        lines.append("Try this lesson again: fewer than 7 cards in 10 were right.")
    elif done:
        lines.append("Well done: you can move on to something new.")
    return " ".join(lines)
