"""Answers grouped into one sequence per (skill, student) in time order, packed by opportunity.

Packing puts the first answer of every sequence first, then every second
answer, and so on, with sequences sorted longest first so the sequences still
running at opportunity t are always the first n_t. The forward-backward pass
is then one loop over opportunity numbers with numpy arrays across all
sequences, skills and starting points, never a loop over students.

Assumed: an answer's place in its sequence is given by ``order`` (a time or a
number); ties keep the order of the rows.
"""
from __future__ import annotations

import dataclasses
from typing import Optional

import numpy as np
import pandas as pd


@dataclasses.dataclass
class Sequences:
    """Answers grouped into one sequence per (skill, student), packed by opportunity.

    Sequences are numbered longest first. ``counts[t]`` sequences have a
    (t+1)-th answer, and they are sequences ``0 .. counts[t]-1``; their
    answers sit at ``flat[starts[t] : starts[t] + counts[t]]`` in the packed
    arrays. ``row_to_flat[i]`` is the packed position of row ``i`` of the
    input frame.
    """

    skills: np.ndarray          # the skill labels, index = skill number
    seq_skill: np.ndarray       # (S,) skill number of each sequence
    seq_student: np.ndarray     # (S,) student label of each sequence
    lengths: np.ndarray         # (S,) answers per sequence, non-increasing
    counts: np.ndarray          # (T,) sequences still running at each opportunity
    starts: np.ndarray          # (T,) where each opportunity's block starts
    flat_seq: np.ndarray        # (N,) sequence of each packed answer
    row_to_flat: np.ndarray     # (N,) packed position of each input row

    @property
    def n_sequences(self) -> int:
        return len(self.lengths)

    @property
    def n_opportunities(self) -> int:
        return len(self.counts)

    def block(self, t: int) -> slice:
        return slice(int(self.starts[t]), int(self.starts[t] + self.counts[t]))

    def pack(self, values: np.ndarray) -> np.ndarray:
        """Row-ordered values in packed order."""
        out = np.empty(len(values), dtype=np.asarray(values).dtype)
        out[self.row_to_flat] = values
        return out

    def unpack(self, packed: np.ndarray) -> np.ndarray:
        """Packed values back in the input's row order."""
        return packed[..., self.row_to_flat]


def _order_key(values: pd.Series, column: str) -> np.ndarray:
    if values.isna().any():
        raise ValueError(f"column '{column}' has {int(values.isna().sum())} missing values; every answer needs a time "
                         f"to be put in order (or pass order=None to keep the rows' order)")
    if pd.api.types.is_datetime64_any_dtype(values):
        if getattr(values.dt, "tz", None) is not None:
            values = values.dt.tz_convert(None)
        return values.to_numpy().astype("datetime64[ns]").view(np.int64)
    if pd.api.types.is_numeric_dtype(values):
        return values.to_numpy(dtype=float)
    return pd.factorize(values, sort=True)[0]


def pack_sequences(df: pd.DataFrame, skill: str = "skill", student: str = "student",
                   order: Optional[str] = "created_at") -> Sequences:
    """Group ``df``'s rows into (skill, student) sequences in time order and pack them by opportunity."""
    if len(df) == 0:
        raise ValueError("there are no answers: the table is empty (check the filters that selected it)")
    for role, name in (("skill", skill), ("student", student)):
        if df[name].isna().any():
            raise ValueError(f"column '{name}' has {int(df[name].isna().sum())} missing values; every answer needs "
                             f"a {role}")
    skill_code, skills = pd.factorize(df[skill], sort=True)
    student_code, students = pd.factorize(df[student], sort=True)
    n = len(df)
    keys = [np.arange(n)]
    if order is not None:
        keys.append(_order_key(df[order], order))
    keys += [student_code, skill_code]
    perm = np.lexsort(keys)  # by skill, then student, then time, then row
    sk, st = skill_code[perm], student_code[perm]
    new = np.ones(n, dtype=bool)
    new[1:] = (sk[1:] != sk[:-1]) | (st[1:] != st[:-1])
    seq = np.cumsum(new) - 1
    first = np.flatnonzero(new)
    pos = np.arange(n) - first[seq]
    lengths = np.diff(np.append(first, n))
    # Longest first (so running sequences are always a prefix), then by skill (so a skill's answers
    # sit in long runs within each opportunity's block, which makes per-skill sums cheap).
    by_length = np.lexsort((sk[first], -lengths))
    rank = np.empty_like(by_length)
    rank[by_length] = np.arange(len(by_length))
    lengths_sorted = lengths[by_length]
    T = int(lengths_sorted[0])
    counts = len(lengths) - np.cumsum(np.bincount(lengths, minlength=T + 1))[:T]   # sequences longer than t
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    flat_sorted = starts[pos] + rank[seq]
    row_to_flat = np.empty(n, dtype=np.int64)
    row_to_flat[perm] = flat_sorted
    flat_seq = np.empty(n, dtype=np.int64)
    flat_seq[flat_sorted] = rank[seq]
    seq_skill = sk[first][by_length]
    seq_student = np.asarray(students)[st[first][by_length]]
    return Sequences(np.asarray(skills), seq_skill, seq_student, lengths_sorted, counts.astype(np.int64),
                     starts.astype(np.int64), flat_seq, row_to_flat)
