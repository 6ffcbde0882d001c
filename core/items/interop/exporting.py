"""Export: the chosen items as one file in QTI 3.0, Moodle XML or GIFT, with what was left out and why."""
from __future__ import annotations

import dataclasses
import importlib
from typing import Callable, Iterable, Optional

from core.items.generator import Item
from core.items.interop.convert import item_to_question
from core.items.interop.model import FORMATS, STATUSES, InteropError, Question, Skipped
from core.store import Store, repo

MODULES = {"qti3": "qti", "moodle-xml": "moodle_xml", "gift": "gift"}
PAGE = 1000


def format_module(fmt: str):
    """The reader/writer of a format by its name (qti3, moodle-xml, gift)."""
    if fmt not in MODULES:
        raise InteropError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}.")
    return importlib.import_module(f"core.items.interop.{MODULES[fmt]}")


@dataclasses.dataclass
class ExportReport:
    format: str
    data: bytes
    filename: str
    items: list[str]                 # ids of the items written
    skipped: list[Skipped]

    def summary(self) -> dict:
        """What ``export --json`` prints."""
        return {"format": self.format, "items": len(self.items),
                "skipped": [{"item": s.question, "reason": s.reason} for s in self.skipped]}


def select_items(store: Store, status: Optional[str] = "approved", skill: Optional[str] = None) -> list[Item]:
    """Items with this status ("any" for all) practising this skill (its blueprint, or the skill it is matched to)."""
    if status is not None and status not in STATUSES:
        raise InteropError(f"unknown status {status!r}; choose one of {', '.join(STATUSES)}.")
    rows, offset = [], 0
    while True:
        page = repo.list_items(store, status=None if status in (None, "any") else status, limit=PAGE, offset=offset)
        rows += page
        if len(page) < PAGE:
            break
        offset += PAGE
    # Items made for one student's session are not part of the bank; "any" means every bank status.
    items = [repo.row_to_item(r) for r in rows if status not in (None, "any") or r.get("status") != "session"]
    if skill:
        items = [it for it in items if skill == it.blueprint_id or skill in (it.skill_ids or [])]
    return items


def export_items(items: Iterable[Item], fmt: str, title: str = "Workbench questions",
                 option_feedback: Optional[Callable[[Item], dict[str, str]]] = None,
                 draw: Optional[Callable[[dict], Optional[bytes]]] = None) -> ExportReport:
    """Write ``items`` in ``fmt``; items the format cannot hold are skipped with the reason."""
    module = format_module(fmt)
    questions: list[Question] = []
    skipped: list[Skipped] = []
    for item in items:
        made = item_to_question(item, option_feedback(item) if option_feedback else None, draw)
        (skipped if isinstance(made, Skipped) else questions).append(made)
    written = module.write(questions, title=title)
    by_name = {q.name for q in questions}
    return ExportReport(fmt, written.data, written.filename, [n for n in written.written if n in by_name],
                        skipped + list(written.skipped))


def distractor_feedback(library) -> Callable[[Item], dict[str, str]]:
    """For an item of a library skill: what each distractor strategy's option shows when chosen."""
    def feedback(item: Item) -> dict[str, str]:
        gen = getattr(library, "generators", {}).get(item.blueprint_id)
        strategies = getattr(getattr(getattr(gen, "bp", None), "presentation", None), "distractor_strategies", None)
        return {s.type: f"This answer comes from a common slip: {s.description.rstrip('.')}."
                for s in strategies or [] if s.description}
    return feedback
