"""What reading a bank tells the teacher: each problem against the row and field a spreadsheet shows."""
from __future__ import annotations

import dataclasses
from typing import Optional

from core.items.generator import Item


@dataclasses.dataclass
class RowError:
    row: int            # as a teacher sees it: CSV data rows from 2, JSON entries from 1, 0 for the whole file
    field: Optional[str]
    message: str


@dataclasses.dataclass
class BankImport:
    questions: list[Item]
    errors: list[RowError]
    duplicates: list[tuple[int, str]]   # (row, id of the question it repeats)

    @property
    def ok(self) -> bool:
        return not self.errors


class BankQuestionError(ValueError):
    """One bank question could not be turned into an item; ``errors`` says why."""

    def __init__(self, errors: list[RowError]):
        self.errors = errors
        super().__init__("; ".join(f"{e.field or 'question'}: {e.message}" for e in errors))
