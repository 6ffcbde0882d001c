"""The response matrix: students x items counts in compressed sparse rows.

Every student answers a different subset of items, so the responses form a
sparse students x items matrix; when every student answered the same items
(one fixed paper) one row stands for all. Estimation is sparse-times-dense
matrix products and Newton steps vectorised over all items (or all students),
never a Python loop over items or students. Repeated answers by a student to
the same item add up in the matrix (they count as independent replications).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import numpy as np

from core.analytics.irt.data import ResponseData

if TYPE_CHECKING:
    import scipy.sparse as sp

COMPLETE_CHECK_MAX = 50_000_000  # complete data are recognised without a matrix up to this many responses


class _Design:
    """The students x items count matrix of one ResponseData (sparse rows), and per-student / per-item sums.

    Sparse-times-dense products run single-threaded in scipy: as fast as a dense
    BLAS product on two cores at 30% density, and immune to BLAS threads
    stalling when other processes share the cores. Built once per
    ResponseData (which is immutable) and kept with it.
    """

    def __init__(self, data: ResponseData):
        P, I = data.n_students, data.n_items
        self.P, self.I = P, I
        self.s, self.i = data.s, data.i
        self._x = data.x
        right = data.x > 0
        self._s_right, self._i_right = data.s[right], data.i[right]     # the correct answers
        self.n_p = np.bincount(data.s, minlength=P).astype(np.float64)
        self.r_p = np.bincount(self._s_right, minlength=P).astype(np.float64)
        self.n_i = np.bincount(data.i, minlength=I).astype(np.float64)
        self.r_i = np.bincount(self._i_right, minlength=I).astype(np.float64)
        self._M: Optional[sp.csr_matrix] = None
        self.same_items = self._complete(data) or self._same_items()
        if self.same_items:  # every row alike: one row stands for all
            first = self.M[:1].toarray()[0] if self._M is not None else np.ones(I)
            self.rows: Any = _SameItems(first, P)
        else:
            self.rows = self.M

    @property
    def x(self) -> np.ndarray:
        """The answers (1 right, 0 wrong) as floats, response by response."""
        return self._x.astype(np.float64)

    @property
    def M(self) -> sp.csr_matrix:
        """Students x items response counts (repeats add up), compressed sparse rows."""
        if self._M is None:
            import scipy.sparse as sp        # only here: complete data (one fixed paper) never need it
            ones = np.ones(len(self.s), dtype=np.float32)
            self._M = sp.csr_matrix((ones, (self.s, self.i)), shape=(self.P, self.I))
        return self._M

    def _complete(self, data: ResponseData) -> bool:
        """Every student answered every item exactly once (checked without building the matrix)."""
        n = data.n_responses
        if n != self.P * self.I or n > COMPLETE_CHECK_MAX or not ((self.n_i == self.P).all() and
                                                               (self.n_p == self.I).all()):
            return False
        cell = data.s * self.I          # n cells, each met once if none is met twice
        cell += data.i
        seen = np.zeros(n, dtype=bool)
        seen[cell] = True
        return bool(seen.all())

    def _same_items(self) -> bool:
        """Whether every student answered the same items (one fixed paper)."""
        M = self.M
        width = M.indptr[1] - M.indptr[0]
        if not (np.diff(M.indptr) == width).all():
            return False
        M.sort_indices()
        return bool((M.indices.reshape(self.P, width) == M.indices[:width]).all()
                    and (M.data.reshape(self.P, width) == M.data[:width]).all())

    @staticmethod
    def of(data: ResponseData) -> "_Design":
        if not isinstance(data, ResponseData):
            raise ValueError(f"expected ResponseData (build it with ResponseData.from_frame(df)), "
                             f"got {type(data).__name__}")
        design = data.__dict__.get("_design")
        if design is None:
            design = _Design(data)
            object.__setattr__(data, "_design", design)
        return design

    def strata(self, rank: np.ndarray, k: int) -> list[tuple[int, int, Any]]:
        """Blocks (first, end, rows) of ``k`` equal strata of students ordered by ``rank``.

        A block's transpose is a free compressed-column view, and products with
        it add into the small items x grid result: no transposed copy is kept.
        """
        if k == 1:
            return [(0, self.P, self.rows)]
        bounds = (np.arange(k + 1) * self.P) // k
        M = self.M[rank]
        return [(int(lo), int(hi), M[lo:hi]) for lo, hi in zip(bounds[:-1], bounds[1:])]

    def correct_sum_per_student(self, item_values: np.ndarray) -> np.ndarray:
        """Per student, the sum of ``item_values`` over the items they answered correctly."""
        if np.all(item_values == 1.0):
            return self.r_p
        return np.bincount(self._s_right, weights=item_values[self._i_right], minlength=self.P)

    def correct_sum_per_item(self, student_values: np.ndarray) -> np.ndarray:
        """Per item, the sum of ``student_values`` over the students who answered it correctly."""
        return np.bincount(self._i_right, weights=student_values[self._s_right], minlength=self.I)


    def mean_difficulty(self, b: np.ndarray) -> np.ndarray:
        """Per student, the mean difficulty of the items they answered."""
        if self.same_items:
            return np.full(self.P, float(self.rows.counts @ b) / self.n_p[0])
        return np.asarray(self.M @ b.astype(np.float32), dtype=np.float64).ravel() / self.n_p


class _SameItems:
    """The response matrix when every student answered the same items: products need only one row.

    ``rows @ L`` gives one row (broadcast over students by the caller);
    ``rows.T @ W`` is the item counts times the column sums of W.
    """

    def __init__(self, counts: np.ndarray, n_students: int):
        self.counts = counts.astype(np.float32)
        self.n_students = n_students

    def __matmul__(self, other: np.ndarray) -> np.ndarray:
        return (self.counts @ other)[None, :]

    @property
    def T(self) -> "_SameItemsTransposed":
        return _SameItemsTransposed(self.counts)


class _SameItemsTransposed:
    def __init__(self, counts: np.ndarray):
        self.counts = counts

    def __matmul__(self, other: np.ndarray) -> np.ndarray:
        return np.outer(self.counts, other.sum(axis=0, dtype=np.float64))
