"""Class lists as schools export them: Forename/Surname, First name/Last name, firstname/lastname (Moodle),
preferred and legal names, one Name column (also "Surname, Forename"), semicolons and tabs, a byte-order mark,
blank rows, Windows-1252 text; a file whose names cannot be found is refused with the columns it has, and
nobody called "Forename" is ever added."""
from __future__ import annotations

import pytest

from core.school.auth import Client, sign_in_student
from core.school.classes import ClassError, create_class, import_roster_csv
from core.school.roster_csv import decode_roster, read_roster
from core.store import Store, school

CODE = "R-CLASS"


@pytest.fixture
def store(db_path):
    s = Store(db_path)
    create_class(s, CODE, "Roster class")
    yield s
    s.close()


def names_on_list(store: Store) -> list[str]:
    return sorted(r["display_name"] for r in school.roster(store, CODE))


@pytest.mark.parametrize("text, read_from", [
    ("Forename,Surname,Year\nAva,Brown,S4\nLiam,Smith,S4\n", "the columns 'Forename' + 'Surname'"),
    ("First name,Last name,Email\nAva,Brown,ava@example.org\nLiam,Smith,liam@example.org\n",
     "the columns 'First name' + 'Last name'"),
    ("username,firstname,lastname,email\nabrown,Ava,Brown,a@x\nlsmith,Liam,Smith,l@x\n",
     "the columns 'firstname' + 'lastname'"),
    ("Pupil Forename;Pupil Surname\r\nAva;Brown\r\nLiam;Smith\r\n", "the columns 'Pupil Forename' + 'Pupil Surname'"),
    ("Given name\tFamily name\nAva\tBrown\nLiam\tSmith\n", "the columns 'Given name' + 'Family name'"),
    ("\ufeffName\n\nAva Brown\n\n\"Smith, Liam\"\n\n", "the column 'Name'"),
    ("Student Name,Registration\nAva Brown,4A\nLiam Smith,4A\n", "the column 'Student Name'"),
    ("Ava Brown\nLiam Smith\n", "the only column (the file has no header row)"),
])
def test_common_headers_give_the_students_names(store, text, read_from):
    report = import_roster_csv(store, CODE, text)
    assert (report.added, report.errors, report.read_from) == (2, [], read_from)
    assert names_on_list(store) == ["Ava Brown", "Liam Smith"]
    assert sign_in_student(store, CODE, "Ava Brown", client=Client(session="ava")).ok


def test_a_preferred_name_is_taken_where_it_is_filled_in(store):
    text = "Legal Forename,Preferred Forename,Legal Surname\nJonathan,Jon,Smith\nMary,,Jones\n"
    report = import_roster_csv(store, CODE, text)
    assert report.added == 2 and names_on_list(store) == ["Jon Smith", "Mary Jones"]


def test_rows_keep_their_numbers_in_the_file_for_problems(store):
    text = "Forename,Surname\nAva,Brown\n\n,\nava,BROWN\n"
    report = import_roster_csv(store, CODE, text)
    assert report.added == 1
    assert [n for n, _ in report.errors] == [5]    # row 4 has commas only: a blank row, not a student
    assert "same name as row 2" in report.errors[0][1]


@pytest.mark.parametrize("text, says", [
    ("Surname,Email\nBrown,a@x\n", "has a last name column but no first name column"),
    ("Forename,Email\nAva,a@x\n", "has a first name column but no last name column"),
    ("ID,Email,Year\n1,a@x,S4\n", "No column of names found: the first row has 'ID', 'Email', 'Year'"),
    ("\n\n", "The file is empty"),
])
def test_a_file_whose_names_cannot_be_found_is_refused_and_adds_nobody(store, text, says):
    with pytest.raises(ClassError, match=says):
        import_roster_csv(store, CODE, text)
    assert names_on_list(store) == []


def test_nobody_is_named_after_a_header(store):
    for text in ("Forename,Surname\nAva,Brown\n", "Name\nAva Brown\n", "Pupil\nAva Brown\n", "Students\nAva Brown\n"):
        import_roster_csv(store, CODE, text)
    assert names_on_list(store) == ["Ava Brown"]


def test_a_windows_file_is_read_with_a_note_and_utf8_without_one():
    text, note = decode_roster("Forename,Surname\nZoë,Müller\n".encode("cp1252"))
    assert read_roster(text).names == [(2, "Zoë Müller")] and "Windows" in note
    assert decode_roster("\ufeffName\nZoë\n".encode("utf-8")) == ("Name\nZoë\n", None)
