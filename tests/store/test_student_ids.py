"""Students' names and ids: names in any script are different people, true duplicates are refused, the same
name written another way (capitals, spacing, full-width letters, composed accents) is the same person, and
ids already stored keep working."""
from __future__ import annotations

import re

import pytest

from core.school.auth import Client, sign_in_student
from core.school.classes import ClassError, add_student, create_class, import_roster_csv
from core.school.names import name_key, student_id
from core.store import Store, school

CODE = "T-CLASS"
DISTINCT = [
    "Zoë", "Zoé", "Zoe", "Zoe\u0331",                       # accents, and a combining mark with no composed form
    "Αλέξης Παπαδόπουλος", "Αλεξία Παπαδοπούλου",           # Greek
    "Алексей Смирнов", "Алёна Смирнова",                    # Cyrillic
    "أحمد علي", "محمد علي",                                 # Arabic
    "王小明", "李小龙", "佐藤 花子", "김민준",                 # Chinese, Japanese, Korean
    "🦊", "🐻", "🦊🦊",                                        # emoji
    "किरण", "किरन",                                          # Devanagari, with its vowel signs
    "Mary-Jane Smith", "Mary Jane Smith", "O'Brien", "OBrien",
]


def old_student_id(class_code: str, name: str) -> str:
    """The ids stored before names were normalised."""
    return f"{class_code.upper()}:{re.sub(r'[^a-z0-9]+', '-', name.strip().lower()).strip('-')}"


@pytest.fixture
def store(db_path):
    s = Store(db_path)
    create_class(s, CODE, "Test class")
    yield s
    s.close()


def signs_in_as(store: Store, name: str) -> str | None:
    result = sign_in_student(store, CODE, name, client=Client(session=f"tab-{name}"))
    return result.user if result.ok else None


def test_names_in_any_script_are_different_students(store):
    text = "name\n" + "\n".join(f'"{n}"' for n in DISTINCT) + "\n"
    report = import_roster_csv(store, CODE, text)
    assert report.errors == [] and report.added == len(DISTINCT)
    roster = {r["display_name"]: r["student"] for r in school.roster(store, CODE)}
    assert len(roster) == len(set(roster.values())) == len(DISTINCT)
    for name in DISTINCT:
        assert signs_in_as(store, name) == roster[name], name


def test_a_class_of_eight_non_latin_names_keeps_all_eight(store):
    names = ["Αθηνά", "Ελένη", "Ирина", "Ольга", "فاطمة", "زينب", "陈静", "山田"]
    for name in names:
        add_student(store, CODE, name)
    assert len(school.roster(store, CODE)) == 8
    ids = [r["student"] for r in school.roster(store, CODE)]
    assert all(sid.startswith(f"{CODE}:") and sid != f"{CODE}:" for sid in ids)


def test_true_duplicates_are_refused_at_import_with_a_message(store):
    text = "name\nAmy Pond\namy  pond\nＡＭＹ ＰＯＮＤ\nRory Williams\nZoe\u0308\nZoë\n"
    report = import_roster_csv(store, CODE, text)
    assert report.added == 3
    assert [n for n, _ in report.errors] == [3, 4, 7]
    assert "same name as row 2" in report.errors[0][1] and "tells them apart" in report.errors[0][1]
    assert "same name as row 6" in report.errors[2][1]
    # Importing the file again adds nobody and says who was already there.
    again = import_roster_csv(store, CODE, text)
    assert again.added == 0 and again.already_there == 3
    assert again.already_names == ["Amy Pond", "Rory Williams", "Zoe\u0308"]
    with pytest.raises(ClassError, match="already on the class list"):
        add_student(store, CODE, "AMY POND")


def test_the_same_name_written_another_way_is_the_same_person(store):
    amy = add_student(store, CODE, "Amy Pond")
    zoe = add_student(store, CODE, "Zoë Martin")
    assert amy == f"{CODE}:amy-pond"
    for typed in ("amy pond", "  AMY   POND ", "Ａｍｙ Ｐｏｎｄ"):
        assert signs_in_as(store, typed) == amy
    for typed in ("Zoe\u0308 Martin", "ZOË MARTIN"):
        assert signs_in_as(store, typed) == zoe
    assert signs_in_as(store, "Zoé Martin") is None
    assert name_key("Ｚｏë") == name_key("zoë") and name_key("Zoë") != name_key("Zoé")


def test_plain_names_keep_the_ids_they_always_had():
    for name in ("Amy Pond", "Ava Brown", "hamza iqbal", "  Rory   Williams ", "R2 D2"):
        assert student_id("demo-n5", name) == old_student_id("demo-n5", name)
    assert student_id("demo-n5", "Ｒｏｒｙ Ｗｉｌｌｉａｍｓ") == "DEMO-N5:rory-williams"


def test_ids_stored_before_keep_working_and_are_never_shared(store):
    # As an older version stored them: Zoë as 'zo', a Greek name as the bare class code.
    school.add_students(store, CODE, [(old_student_id(CODE, "Zoë"), "Zoë"),
                                      (old_student_id(CODE, "Αθηνά"), "Αθηνά")])
    assert signs_in_as(store, "Zoë") == f"{CODE}:zo"
    assert signs_in_as(store, "Αθηνά") == f"{CODE}:"
    # Others who collided with them now get their own ids, including a plain name whose id is taken.
    zoe2 = add_student(store, CODE, "Zoé")
    zo = add_student(store, CODE, "Zo")
    greek = add_student(store, CODE, "Ελένη")
    assert len({f"{CODE}:zo", f"{CODE}:", zoe2, zo, greek}) == 5
    assert signs_in_as(store, "Zo") == zo and signs_in_as(store, "Zoë") == f"{CODE}:zo"
    # Importing the old names again does not add them twice.
    assert import_roster_csv(store, CODE, "name\nZoë\nΑθηνά\n").already_there == 2


def test_two_stored_students_with_the_same_name_are_not_merged_at_sign_in(store):
    # Only possible in data stored before names were normalised.
    school.add_students(store, CODE, [(f"{CODE}:", "Ａｍｙ"), (f"{CODE}:amy", "Amy")])
    result = sign_in_student(store, CODE, "amy", client=Client(session="s"))
    assert not result.ok and "More than one student" in result.message


def test_unknown_names_join_with_their_own_id(store):
    school.update_class(store, CODE, allow_unknown_names=True)
    first = signs_in_as(store, "Zoë")
    second = signs_in_as(store, "Zoé")
    assert first and second and first != second
    assert signs_in_as(store, "ZOË") == first
    assert len(school.roster(store, CODE)) == 2


def test_a_database_from_before_pins_keeps_its_students(db_path, monkeypatch):
    from core.store import migrations
    with monkeypatch.context() as mp:
        mp.setattr(migrations, "MIGRATIONS", [m for m in migrations.MIGRATIONS if m[0] < 9])
        old = Store(db_path)
        old.write(lambda cur: cur.execute("INSERT INTO classes (code, name) VALUES ('OLD-1', 'Old class')"))
        school.add_students(old, "OLD-1", [("OLD-1:amy-pond", "Amy Pond"), ("OLD-1:zo", "Zoë"),
                                           ("OLD-1:", "王小明")])
        old.write(lambda cur: cur.execute("INSERT INTO sign_in_attempts (who, ok) VALUES ('teacher:teacher', false)"))
        old.close()
    store = Store(db_path)
    try:
        assert migrations.current_version(store.cursor()) >= 9
        assert not school.get_class(store, "OLD-1")["require_pin"]
        assert sorted(r["student"] for r in school.roster(store, "OLD-1")) == ["OLD-1:", "OLD-1:amy-pond", "OLD-1:zo"]
        for name, sid in (("Amy Pond", "OLD-1:amy-pond"), ("zoë", "OLD-1:zo"), ("王小明", "OLD-1:")):
            assert sign_in_student(store, "old-1", name, client=Client(session=name)).user == sid
    finally:
        store.close()
