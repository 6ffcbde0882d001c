"""Responses in: right/wrong answers, coded for the estimators.

Data come long-format (student, item, correct), one row per response, and
every student may answer a different subset of the items. ``ResponseData``
codes them once: students and items become integer codes (ids kept as text, in
sorted order, so the same responses in any row order give the same codes),
answers 0/1. Unmarked responses (``correct`` null) are dropped; anything other
than True/False or 1/0 is refused rather than guessed at. Id columns are coded
without touching their values one by one in Python: a categorical by its codes,
Arrow-backed text (what the store and the CSV reader give) by Arrow's
dictionary encoding, anything else by ``pandas.factorize``.

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
        col, who, what = df[correct], df[student], df[item]
        marked = col.notna().to_numpy()
        if not marked.all():                  # only the three columns are filtered, never the whole frame
            if not marked.any():
                raise ValueError(f"no response has a value in {correct!r} (all are null): nothing is marked yet")
            col, who, what = col[marked], who[marked], what[marked]
        x = _as_binary(col, correct)
        s, student_ids = _codes(who, student)
        i, item_ids = _codes(what, item)
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
        groups = [str(mapping[k]) if mapping.get(k) is not None else k for k in self.item_ids.tolist()]
        return self.group_items(np.asarray(groups, dtype=str))

    def group_items(self, groups: np.ndarray) -> "ResponseData":
        """``regroup`` with the group id of every item given as an array in ``item_ids`` order.

        Group ids come out sorted, as item ids do.
        """
        groups = np.asarray(groups)
        if groups.shape != (self.n_items,):
            raise ValueError(f"group_items needs one group id per item ({self.n_items}), got {groups.size}")
        ids, codes = np.unique(groups.astype(str), return_inverse=True)
        return ResponseData(self.student_ids, ids, self.s, codes.astype(np.int32)[self.i], self.x)

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        """Per item: (responses, correct responses)."""
        n = np.bincount(self.i, minlength=self.n_items).astype(np.int64)
        r = np.bincount(self.i, weights=self.x, minlength=self.n_items).astype(np.int64)
        return n, r


def _codes(column: pd.Series, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes and the distinct ids (as text, sorted) of an id column, with no Python loop over rows.

    Ids that read the same as text are one id (1 and "1" in one column); ids
    with no response (a categorical's unused categories) are left out.
    """
    dtype = column.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy()
        uniques: Any = column.cat.categories
    elif getattr(dtype, "storage", None) == "pyarrow" or isinstance(dtype, pd.ArrowDtype):
        codes, uniques = _arrow_codes(pa.array(column), name)
    else:
        codes, uniques = pd.factorize(column)
    if len(codes) and codes.min() < 0:
        raise ValueError(f"{int((codes < 0).sum())} responses have no {name}; fill in or drop those rows")
    ids = np.asarray(pd.Index(uniques).astype(str), dtype=str)
    used = np.bincount(codes, minlength=len(ids)) > 0
    # Sorted distinct ids (np.unique also merges ids that became equal as text); codes follow them.
    sorted_ids, inverse = np.unique(ids[used], return_inverse=True)
    remap = np.full(len(ids), -1, dtype=np.int32)
    remap[used] = inverse
    return remap[codes], sorted_ids


def _arrow_codes(arrow: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes and distinct values of an Arrow array or chunked array, by Arrow's dictionary encoding.

    A chunked array (what the store returns) is encoded chunk by chunk against
    one dictionary, without first copying the chunks into one array.
    """
    if arrow.null_count:
        raise ValueError(f"{arrow.null_count} responses have no {name}; fill in or drop those rows")
    if pa.types.is_dictionary(arrow.type):          # already encoded, perhaps chunk by chunk: encode its values
        arrow = arrow.cast(arrow.type.value_type)
    encoded = pc.dictionary_encode(arrow)
    chunks = encoded.chunks if isinstance(encoded, pa.ChunkedArray) else [encoded]
    if not chunks:
        return np.zeros(0, dtype=np.int32), np.zeros(0, dtype=object)
    dictionary = chunks[-1].dictionary
    if not all(c.dictionary.equals(dictionary) for c in chunks[:-1]):   # not one dictionary: encode in one piece
        return _arrow_codes(encoded.cast(dictionary.type).combine_chunks(), name)
    codes = np.concatenate([c.indices.to_numpy(zero_copy_only=False) for c in chunks])
    return codes, dictionary.to_numpy(zero_copy_only=False)


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
