"""What a student reads: maths between dollars closed up for Streamlit to render, and a power written plainly in an
explanation (as blueprints write them for any screen) shown raised, never as a caret."""
from __future__ import annotations

import pytest

from ui.blocks import readable


@pytest.mark.parametrize("written, read", [
    ("In standard form x^2 - 7x + 12 = 0, so b^2 - 4ac = (-7)^2 - 4 × 1 × 12 = 1",
     "In standard form x² - 7x + 12 = 0, so b² - 4ac = (-7)² - 4 × 1 × 12 = 1"),
    ("about 3 x 10^5 m/s, and x^(-1) is 1/x", "about 3 x 10⁵ m/s, and x⁻¹ is 1/x"),
    ("$ x^{2} + 1 $ stays maths; so does $y^2$", "$x^{2} + 1$ stays maths; so does $y^2$"),
    ("A bare caret ^ or 2 ^ 3 is left as it is", "A bare caret ^ or 2 ^ 3 is left as it is"),
])
def test_maths_and_plain_powers_read_as_written(written, read):
    assert readable(written) == read
