"""Marking by short_text: key and accepted answers, keywords and their partial credit."""
from __future__ import annotations

import pytest

from core.marking import MarkingSpec, mark_answer
from tests.marking.helpers import crit, ok


def test_short_text_key_and_accepted_answers():
    spec = MarkingSpec("short_text", "2 hours 15 minutes", accepted_answers=["135 minutes"])
    assert ok(spec, "2 Hours 15 Minutes.") and ok(spec, "135  minutes") and not ok(spec, "2 hours")


KEYWORDS = MarkingSpec("short_text", "", keywords=["photon", "electrons", "kinetic energy"], marks=3,
                       partial_credit=True)


@pytest.mark.parametrize("answer, found", [
    ("A photon gives electrons kinetic energy.", 3),
    ("PHOTONS give an ELECTRON Kinetic Energy", 3),     # plural both ways, any case
    ("photonic electrons gain kinetic energy", 2),      # whole words only
    ("the electron gains kinetic   energy", 2),
    ("energy", 0), ("", 0),
])
def test_keywords_whole_words_plurals_and_proportional_credit(answer, found):
    r = mark_answer(KEYWORDS, answer)
    assert r.correct is (found == 3)
    assert r.score == found                              # 3 marks, 3 keywords: one mark each


def test_min_keywords_and_rounding_down():
    spec = MarkingSpec("short_text", "", keywords=["reflection", "refraction", "diffraction"], min_keywords=2,
                       marks=2, partial_credit=True)
    assert ok(spec, "Refraction and diffraction")
    r = mark_answer(spec, "refraction only")
    assert not r.correct and r.score == 1.0             # 1 of the 2 needed: floor(2 * 1/2)
    assert r.feedback == "Your answer makes 1 of the 2 key points needed."
    spec3 = MarkingSpec("short_text", "", keywords=["a1", "b1", "c1"], marks=2, partial_credit=True)
    assert mark_answer(spec3, "a1 b1").score == 1.0      # floor(2 * 2/3)
    no_partial = MarkingSpec("short_text", "", keywords=["reflection", "refraction"], marks=2)
    assert mark_answer(no_partial, "refraction").score == 0


def test_short_text_partial_credit_with_criteria():
    spec = MarkingSpec("short_text", "", keywords=["photon", "electron"], marks=2, partial_credit=True,
                       criteria=crit(("photons", 1), ("electrons", 1)))
    r = mark_answer(spec, "a photon")
    assert r.score == 1.0 and [c.met for c in r.criteria] == [True, False] and r.gap_tags == ["electrons"]


def test_short_text_misconception():
    spec = MarkingSpec("short_text", "2 hours 15 minutes", misconceptions={"decimal_time": "1 hour 55 minutes"},
                       misconception_tags={"decimal_time": "sixty_minutes_in_an_hour"})
    r = mark_answer(spec, "1 Hour 55 minutes")
    assert r.misconception == "decimal_time" and r.gap_tags == ["sixty_minutes_in_an_hour"]
