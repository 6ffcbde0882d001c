"""Without an LLM, written answers are marked by the key and its accepted phrasings (and key points): the shipped
written-answer blueprints and bank questions accept the ways a student commonly writes a right answer, carry
those phrasings through storage into marking, and still refuse the wrong answers they recognise."""
from __future__ import annotations

import pytest

from core.items.banks import import_shipped_banks
from core.marking import MarkingSpec, mark_answer
from core.store import Store, repo

SEEDS = range(6)


def right(item, text: str) -> bool:
    return mark_answer(MarkingSpec.from_item(item), text).correct


def values(item) -> dict:
    return {**item.generation_params, **item.computed_values}


def time_forms(item) -> list[str]:
    v = values(item)
    h, m, dur = v["h"], v["m"], v["dur"]
    if not h:
        return [f"{m} minutes", f"{m} mins", f"{m} min", f"{m}mins", f"{m}min", f"{m}m"]
    hours = "hour" if h == 1 else "hours"
    return [f"{h} {hours} {m} minutes", f"{h} {hours} and {m} minutes", f"{h} {hours} {m} mins",
            f"{h} {hours}, {m} minutes",
            f"{h} hrs {m} mins", f"{h}hrs {m}mins", f"{h} hr {m} mins", f"{h}hr {m}min", f"{h}h {m}m", f"{h}h{m}m",
            f"{h} h {m} min", f"{h}h {m}mins", f"{dur} minutes", f"{dur} mins", f"{dur}mins"]


def trig_forms(item) -> list[str]:
    sols = item.correct_answer.split(", ")
    listed = ", ".join(sols[:-1]) + " and " + sols[-1]
    return [", ".join(sols), ",".join(sols), " and ".join(sols), " or ".join(sols), "x = " + ", ".join(sols),
            "x = " + ", x = ".join(sols), "x = " + " or x = ".join(sols), "x = " + " and x = ".join(sols),
            "x = " + " and ".join(sols), "°, ".join(sols) + "°", "° and ".join(sols) + "°",
            "x = " + "°, ".join(sols) + "°",
            " degrees, ".join(sols) + " degrees", listed, "x = " + listed]


def stationary_forms(item) -> list[str]:
    a, b = values(item)["pt_p"], values(item)["pt_q"]
    return [f"{a} and {b}", f"{a}, {b}", f"{a.replace(' ', '')} and {b.replace(' ', '')}", f"{b} and {a}",
            f"{a} & {b}", f"{a}; {b}"]


def simultaneous_forms(item) -> list[str]:
    x, y = values(item)["x0"], values(item)["y0"]
    return [f"x = {x}, y = {y}", f"x={x}, y={y}", f"x={x},y={y}", f"x = {x} and y = {y}", f"x={x} and y={y}",
            f"y = {y}, x = {x}", f"y = {y} and x = {x}", f"({x}, {y})", f"({x},{y})", f"x = {x}; y = {y}",
            f"x = {x} & y = {y}"]


ROOTS = {"distinct": ["real and distinct", "two distinct real roots", "2 distinct real roots", "distinct real roots",
                      "real, distinct roots", "two real roots", "2 real roots", "the roots are real and distinct",
                      "real and unequal", "two different real roots", "2 distinct roots", "Real and distinct."],
         "equal": ["real and equal", "equal roots", "equal real roots", "the roots are equal", "one repeated root",
                   "a repeated root", "two equal roots", "real, equal", "repeated roots"],
         "none": ["no real roots", "non-real roots", "non real roots", "no real solutions", "no solutions",
                  "the roots are not real", "zero real roots", "no roots"]}


def roots_forms(item) -> list[str]:
    return ROOTS[values(item)["case"]]


FORMS = {"SQA.MATH.N3.TIME_INTERVAL": time_forms, "SQA.MATH.H.TRIG_EQUATION": trig_forms,
         "SQA.MATH.H.STATIONARY_POINTS": stationary_forms, "SQA.MATH.N5.SIMULTANEOUS_EQUATIONS": simultaneous_forms,
         "SQA.MATH.N5.NATURE_OF_ROOTS": roots_forms}

UNITS = {"velocity": ["m s^-1", "m/s", "m s-1", "ms-1", "metres per second", "meters per second"],
         "acceleration": ["m s^-2", "m/s^2", "m/s²", "m s-2", "ms-2", "m/s2", "metres per second squared", "m/s/s"],
         "momentum": ["kg m s^-1", "kg m/s", "kg m s-1", "kgms-1", "kg ms^-1", "newton seconds", "N s"],
         "electric current": ["ampere", "amps", "amp", "A", "amperes (A)"],
         "force": ["newton", "Newtons", "N", "newtons (N)", "N (newtons)"],
         "irradiance": ["W m^-2", "W/m^2", "W m-2", "W/m²", "watts per square metre"],
         "electric field strength": ["N C^-1", "N/C", "N C-1", "V m-1", "V/m"],
         "the Hubble constant": ["s^-1", "s⁻¹", "/s", "1/s", "per second"],
         "refractive index": ["no unit", "none", "no units", "it has no units"]}


@pytest.mark.parametrize("skill_id", sorted(FORMS))
def test_common_right_phrasings_of_the_written_answer_blueprints_are_marked_right(library, skill_id):
    gen = library.generator(skill_id)
    for level in gen.bp.generation.difficulty_levels:
        for seed in SEEDS:
            item = gen.generate(level, f"phrasing/{seed}")
            refused = [text for text in FORMS[skill_id](item) if not right(item, text)]
            assert not refused, f"{skill_id} {level} (key {item.correct_answer!r}) refuses {refused}"
            # The wrong answers the blueprint recognises stay wrong.
            wrongly = [w for w in item.misconceptions.values() if right(item, w)]
            assert not wrongly, f"{skill_id} {level} accepts the wrong answer(s) {wrongly}"


def test_si_units_accept_symbols_words_and_the_ways_powers_are_typed(library):
    gen = library.generator("SQA.PHYS.H.SI_UNITS")
    found = {}
    for level in gen.bp.generation.difficulty_levels:
        for seed in range(150):
            item = gen.generate(level, f"units/{seed}")
            found.setdefault(item.generation_params["quantity"], item)
    assert set(UNITS) <= set(found)
    for quantity, forms in UNITS.items():
        item = found[quantity]
        assert [f for f in forms if not right(item, f)] == [], quantity
    for quantity, item in found.items():
        assert [w for w in item.misconceptions.values() if right(item, w)] == [], quantity
    assert not right(found["velocity"], "m s-2") and not right(found["acceleration"], "m s-1")


def test_accepted_phrasings_travel_from_blueprint_and_bank_through_storage_into_marking(library, tmp_path):
    store = Store(tmp_path / "phrasings.duckdb")
    try:
        import_shipped_banks(store)
        item = library.generator("SQA.MATH.N3.TIME_INTERVAL").generate("medium", "travel")
        repo.insert_items(store, [item], status="approved")
        stored = repo.load_item(store, item.id)
        assert stored.accepted_answers == item.accepted_answers and len(item.accepted_answers) > 10
        assert MarkingSpec.from_item(stored).accepted_answers == item.accepted_answers

        bank = repo.load_item(store, "past_math_n5_004")
        spec = MarkingSpec.from_item(bank)
        assert spec.method == "short_text" and "(2, 3)" in spec.accepted_answers and spec.keywords == ["x = 2", "y = 3"]
        for text in ("x = 2, y = 3", "x=2 and y=3", "y=3, x=2", "(2, 3)", "(2,3)", "2, 3", "x=2 y=3"):
            assert right(bank, text), text
        assert not right(bank, "x = 3, y = 2") and not right(bank, "(3, 2)")
        wave = repo.load_item(store, "past_math_h_004")
        for text in ("5cos(x - 53.1)", "5 cos(x - 53.1)", "5cos(x - 53.13)", "5cos(x - 53.1°)", "k = 5, a = 53.1"):
            assert right(wave, text), text
        assert not right(wave, "5cos(x + 53.1)")
    finally:
        store.close()
