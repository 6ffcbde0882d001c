"""Students' PINs: optional per class, stored hashed, checked at sign-in, printed on a sheet, reset one at a time."""
from __future__ import annotations

import csv
import io

import pytest

from core.school import pins
from core.school.auth import Client, sign_in_student
from core.school.classes import add_student, create_class, import_roster_csv
from core.store import Store, school

CODE = "P-CLASS"
NAMES = ["Amy Pond", "Rory Williams", "Zoë <b>Bold</b>", "王小明"]


@pytest.fixture
def store(db_path):
    s = Store(db_path)
    create_class(s, CODE, "PIN class & co")
    for name in NAMES:
        add_student(s, CODE, name)
    yield s
    s.close()


def sign_in(store: Store, name: str, pin: str | None = None, session: str = "tab"):
    return sign_in_student(store, CODE, name, pin, client=Client(session=session))


def test_without_pins_the_code_and_name_are_enough(store):
    assert not school.get_class(store, CODE)["require_pin"]
    assert sign_in(store, "Amy Pond").ok
    assert sign_in(store, "Amy Pond", "123456").ok   # a PIN typed anyway is ignored


def test_with_pins_each_student_needs_their_own(store):
    issued = {p.name: p for p in pins.require(store, CODE, True)}
    assert sorted(issued) == sorted(NAMES) and all(len(p.pin) == pins.PIN_DIGITS for p in issued.values())
    amy, rory = issued["Amy Pond"], issued["Rory Williams"]
    assert not sign_in(store, "Amy Pond").ok
    assert "type the PIN" in sign_in(store, "Amy Pond").message
    wrong = sign_in(store, "Amy Pond", rory.pin if rory.pin != amy.pin else "000000")
    assert not wrong.ok and "PIN is not right" in wrong.message
    assert sign_in(store, "Amy Pond", amy.pin).user == amy.student
    # As printed (in two groups), with full-width digits, or with a dash.
    assert sign_in(store, "amy pond", pins.shown(amy.pin)).ok
    full_width = amy.pin.translate(str.maketrans("0123456789", "０１２３４５６７８９"))
    assert sign_in(store, "Amy Pond", full_width).ok
    assert sign_in(store, "Amy Pond", f"{amy.pin[:3]}-{amy.pin[3:]}").ok
    assert sign_in(store, "王小明", issued["王小明"].pin).ok
    # Turning PINs off lets the name alone in again; on again, the same PINs work.
    assert pins.require(store, CODE, False) == []
    assert sign_in(store, "Amy Pond").ok
    assert pins.require(store, CODE, True) == []
    assert sign_in(store, "Amy Pond", amy.pin).ok and not sign_in(store, "Amy Pond").ok


def test_pins_are_stored_hashed(store):
    issued = pins.require(store, CODE, True)
    stored = store.query("SELECT student, pin_hash FROM student_pins")
    assert len(stored) == len(NAMES)
    hashes = " ".join(h for _, h in stored)
    assert all(h.startswith("pbkdf2_sha256$") for _, h in stored)
    assert not any(p.pin in hashes for p in issued)
    assert len({h for _, h in stored}) == len(stored)   # salted


def test_the_teacher_can_reset_one_pin(store):
    issued = {p.name: p for p in pins.require(store, CODE, True)}
    old = issued["Rory Williams"]
    new = pins.reset(store, CODE, old.student)
    assert new.student == old.student and new.name == "Rory Williams"
    if new.pin != old.pin:
        assert not sign_in(store, "Rory Williams", old.pin, session="rory").ok
    assert sign_in(store, "Rory Williams", new.pin, session="rory").ok
    assert sign_in(store, "Amy Pond", issued["Amy Pond"].pin).ok   # the others' PINs are unchanged
    with pytest.raises(pins.PinError):
        pins.reset(store, CODE, "P-CLASS:nobody")


def test_students_added_later_get_a_pin_and_unknown_names_cannot_join(store):
    pins.require(store, CODE, True)
    add_student(store, CODE, "Clara Oswald")
    result = sign_in(store, "Clara Oswald", "123456")
    assert not result.ok and "not given you a PIN yet" in result.message
    import_roster_csv(store, CODE, "name\nRiver Song\n")
    new = {p.name: p for p in pins.issue_missing(store, CODE)}
    assert sorted(new) == ["Clara Oswald", "River Song"]
    assert sign_in(store, "Clara Oswald", new["Clara Oswald"].pin).ok
    assert pins.issue_missing(store, CODE) == []
    school.update_class(store, CODE, allow_unknown_names=True)
    joined = sign_in(store, "Someone New", "123456")
    assert not joined.ok and "ask your teacher to add you and give you a PIN" in joined.message
    assert len(school.roster(store, CODE)) == len(NAMES) + 2


def test_removing_a_student_removes_their_pin(store):
    issued = {p.name: p for p in pins.require(store, CODE, True)}
    assert school.remove_student(store, CODE, issued["Amy Pond"].student)
    assert store.query("SELECT count(*) FROM student_pins WHERE student = ?", [issued["Amy Pond"].student])[0][0] == 0


def test_the_printable_sheet_lists_each_students_pin(store):
    issued = pins.require(store, CODE, True)
    page = pins.sheet_html(issued, CODE, "PIN class & co")
    assert page.count('class="slip"') == len(NAMES)
    for p in issued:
        assert pins.shown(p.pin) in page
    assert "Zoë &lt;b&gt;Bold&lt;/b&gt;" in page and "<b>Bold</b>" not in page   # names are escaped
    assert "PIN class &amp; co" in page and CODE in page
    rows = list(csv.DictReader(io.StringIO(pins.sheet_csv(issued, CODE).decode("utf-8-sig"))))
    assert {(r["name"], r["PIN"].replace(" ", "")) for r in rows} == {(p.name, p.pin) for p in issued}
    assert {r["class code"] for r in rows} == {CODE}


def test_wrong_pins_are_throttled_per_student(store, monkeypatch):
    from core.school import throttle
    issued = {p.name: p for p in pins.require(store, CODE, True)}
    amy = issued["Amy Pond"]
    guesses = ["%06d" % n for n in range(1_000_000) if "%06d" % n != amy.pin][:throttle.ACCOUNT.free + 2]
    held: list[float] = []
    monkeypatch.setattr(throttle, "sleep", held.append)
    for n, guess in enumerate(guesses):
        assert not sign_in(store, "Amy Pond", guess, session=f"guesser-{n}").ok
    assert len(held) == 2 and held[0] > 0   # later guesses on Amy's account wait their turn
