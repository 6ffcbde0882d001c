"""What every marking test module shares: sympy already imported before anything is timed."""
from __future__ import annotations

import pytest

from core.marking import MarkingSpec, mark_answer


@pytest.fixture(scope="module", autouse=True)
def warm():
    # sympy is imported on the first algebraic answer (~0.5 s); keep that out of the timed tests.
    mark_answer(MarkingSpec("algebraic_equivalence", "(t+1)(t-1)", required_form="factorised"), "(t-1)(t+1)")
