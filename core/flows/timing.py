"""A per-item time limit: when an item shown at some moment must be answered by, and whether it was.

A skill blueprint may give its items ``presentation.time_limit_seconds``. The
server's clock decides, never the page's countdown: an item shown at ``t``
with a limit of L seconds is due at t + L, and an answer that reaches the
server later than that (after a short grace for the answer in flight) is
recorded but counts as wrong, with ``time_up_message``. Practice, evaluations
and lessons all use these functions, so a limit means the same everywhere.
"""
from __future__ import annotations

import math
from typing import Any, Optional

GRACE_SECONDS = 2.0       # an answer sent as the clock runs out is still in time (the network's delay)


def limit_for(item: Any, library: Any) -> Optional[int]:
    """The item's time limit in seconds (its skill blueprint's ``presentation.time_limit_seconds``), or None."""
    skills = getattr(library, "skills", {}) if library is not None else {}
    loaded = skills.get(getattr(item, "blueprint_id", None))
    if loaded is None:
        return None
    return loaded.model.presentation.time_limit_seconds


def deadline(shown_at: Optional[float], limit_s: Optional[float]) -> Optional[float]:
    """When an item shown at ``shown_at`` (epoch seconds) is due; None without a limit or a time shown."""
    if not limit_s or shown_at is None:
        return None
    return float(shown_at) + float(limit_s)


def in_time(shown_at: Optional[float], limit_s: Optional[float], at: float, grace: float = GRACE_SECONDS) -> bool:
    """Whether an answer reaching the server at ``at`` counts (always, for an item without a limit)."""
    due = deadline(shown_at, limit_s)
    return due is None or at <= due + grace


def seconds_left(shown_at: Optional[float], limit_s: Optional[float], now: float) -> Optional[int]:
    """Whole seconds the student has left on the item (0 once it is due), for the page's countdown;
    None for an item without a limit."""
    due = deadline(shown_at, limit_s)
    if due is None:
        return None
    return max(0, int(math.ceil(due - now)))


def time_up_message(limit_s: Optional[float], kept_earlier: bool = False) -> str:
    """What the student reads when an answer came after the item's limit (``kept_earlier``: an answer given
    in time before it stands, and the late one changes nothing)."""
    allowed = f"the {int(limit_s)} seconds allowed" if limit_s else "the time allowed"
    if kept_earlier:
        return f"Time's up for this one: that came after {allowed}, so the answer you gave in time stands."
    return f"Time's up for this one: your answer came after {allowed}, so it counts as wrong this time."
