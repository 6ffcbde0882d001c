"""Responses in: right/wrong answers, coded for the estimators.

Data come long-format (student, item, correct), one row per response, and
every student may answer a different subset of the items. ``ResponseData``
codes them once: students and items become integer codes (ids kept as text),
answers 0/1. Unmarked responses (``correct`` null) are dropped; anything other
than True/False or 1/0 is refused rather than guessed at.

``ResponseData`` is immutable, so what is derived from it (the response
matrix, ``design._Design``) can be built once and kept with it.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence, Union

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

ArrayLike = Union[Sequence[float], np.ndarray]


@dataclasses.dataclass(frozen=True, eq=False)
class ResponseData:
    """Right/wrong responses, coded: response k is student ``s[k]`` answering item ``i[k]`` with ``x[k]``.

    ``student_ids[s[k]]`` and ``item_ids[i[k]]`` give the ids; ``x`` is 1 for
    correct, 0 for wrong. Build one with ``ResponseData.from_frame``.
    """

    student_ids: np.ndarray
    item_ids: np.ndarray
    s: np.ndarray
    i: np.ndarray
    x: np.ndarray

    def __post_init__(self) -> None:
        n = len(self.x)
        if len(self.s) != n or len(self.i) != n:
            raise ValueError(f"ResponseData needs s, i and x of one length; got {len(self.s)}, {len(self.i)}, {n}")
        if n == 0:
            raise ValueError("there are no responses to analyse; answer some items first or check the filter")
        if self.s.min() < 0 or self.s.max() >= len(self.student_ids):
            raise ValueError("ResponseData: a student code in s is outside student_ids")
        if self.i.min() < 0 or self.i.max() >= len(self.item_ids):
            raise ValueError("ResponseData: an item code in i is outside item_ids")

    @property
    def n_students(self) -> int:
        return len(self.student_ids)

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    @property
    def n_responses(self) -> int:
        return len(self.x)

    def __repr__(self) -> str:
        return (f"ResponseData({self.n_responses} responses, {self.n_students} students, {self.n_items} items, "
                f"{self.n_responses / (self.n_students * self.n_items):.1%} of the cells answered)")

    @classmethod
    def from_frame(cls, df: pd.DataFrame, student: str = "student", item: str = "item_id",
                   correct: str = "correct") -> "ResponseData":
        """Code a long-format frame: one row per response, ``correct`` bool or 0/1.

        Rows whose ``correct`` is null (not marked) are dropped; ids become strings.
        """
        if not isinstance(df, pd.DataFrame):
            raise ValueError(f"responses must be a pandas DataFrame, got {type(df).__name__}")
        missing = [c for c in (student, item, correct) if c not in df.columns]
        if missing:
            raise ValueError(f"the responses have no column {', '.join(map(repr, missing))}; columns are "
                             f"{', '.join(map(str, df.columns)) or 'none'} (name yours with student=, item=, correct=)")
        if len(df) == 0:
            raise ValueError("the responses frame is empty: there is nothing to calibrate; "
                             "check the query or filter that produced it")
        col = df[correct]
        marked = col.notna().to_numpy()
        if not marked.all():
            df, col = df[marked], col[marked]
            if len(df) == 0:
                raise ValueError(f"no response has a value in {correct!r} (all are null): nothing is marked yet")
        x = _as_binary(col, correct)
        s, student_ids = _codes(df[student], student)
        i, item_ids = _codes(df[item], item)
        return cls(student_ids, item_ids, s, i, x)

    def to_frame(self) -> pd.DataFrame:
        """The responses as a long frame (student, item_id, correct)."""
        return pd.DataFrame({"student": self.student_ids[self.s], "item_id": self.item_ids[self.i],
                             "correct": self.x})

    def regroup(self, mapping: Mapping[Any, Any]) -> "ResponseData":
        """Treat groups of items as one: ``mapping`` sends item id -> group id.

        The result's "items" are the groups, so calibrating it gives one
        difficulty per item family or per skill. Items not in the mapping (or
        mapped to None) keep their own id.
        """
        if hasattr(mapping, "items") and not isinstance(mapping, Mapping):
            mapping = dict(mapping.items())
        if not isinstance(mapping, Mapping):
            raise ValueError(f"regroup needs a mapping item id -> group id (a dict), got {type(mapping).__name__}")
        mapping = {str(k): v for k, v in mapping.items()}
        if mapping and not any(k in mapping for k in self.item_ids):
            example = ", ".join(map(repr, list(self.item_ids[:3])))
            raise ValueError(f"regroup: none of the {len(mapping)} mapping keys is an item in these responses "
                             f"(items look like {example}); map item ids to group ids")
        groups = np.array([str(mapping[k]) if mapping.get(k) is not None else k for k in self.item_ids], dtype=object)
        codes, uniques = pd.factorize(groups)
        return ResponseData(self.student_ids, np.asarray(uniques, dtype=str), self.s,
                            codes.astype(np.int32)[self.i], self.x)

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Per item: (responses, correct responses)."""
        n = np.bincount(self.i, minlength=self.n_items).astype(np.int64)
        r = np.bincount(self.i, weights=self.x, minlength=self.n_items).astype(np.int64)
        return n, r


def _codes(column: pd.Series, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes and the distinct ids (as text) of an id column."""
    if getattr(column.dtype, "storage", None) == "pyarrow":
        # Arrow-backed text (what the store returns): Arrow's own hashing is twice as fast.
        arrow = pa.array(column)
        arrow = arrow.combine_chunks() if isinstance(arrow, pa.ChunkedArray) else arrow
        if arrow.null_count:
            raise ValueError(f"{arrow.null_count} responses have no {name}; fill in or drop those rows")
        encoded = pc.dictionary_encode(arrow)
        codes = encoded.indices.to_numpy(zero_copy_only=False)
        uniques = encoded.dictionary.to_numpy(zero_copy_only=False)
    else:
        codes, uniques = pd.factorize(column)
        if (codes < 0).any():
            raise ValueError(f"{int((codes < 0).sum())} responses have no {name}; fill in or drop those rows")
    ids = np.asarray(pd.Index(uniques).astype(str), dtype=str)
    if len(np.unique(ids)) < len(ids):  # e.g. 1 and "1" in one column: the same id once written as text
        inverse, ids = pd.factorize(ids)
        codes = inverse[codes]
        ids = np.asarray(ids, dtype=str)
    return codes.astype(np.int32), ids


def _as_binary(col: pd.Series, name: str) -> np.ndarray:
    values = col.to_numpy()
    if values.dtype == bool:
        return values.astype(np.int8)
    if values.dtype.kind in "iu" and ((values == 0) | (values == 1)).all():
        return values.astype(np.int8, copy=False)
    try:
        numbers = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        bad = [v for v in pd.unique(col) if not _is_binary_value(v)][:3]
        raise ValueError(f"column {name!r} must hold True/False or 1/0; found {_show(bad)}") from None
    ok = (numbers == 0) | (numbers == 1)
    if not ok.all():
        raise ValueError(f"column {name!r} must hold True/False or 1/0; found {_show(pd.unique(col[~ok])[:3])}")
    return numbers.astype(np.int8)


def _show(values: Any) -> str:
    """A few offending values as the user wrote them (3, 'yes'), not as numpy shows them."""
    return ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in values)


def _is_binary_value(v: Any) -> bool:
    try:
        return float(v) in (0.0, 1.0)
    except (TypeError, ValueError):
        return False
