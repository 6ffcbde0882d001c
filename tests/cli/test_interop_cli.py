"""`export` and `import` as an analyst or a cron job runs them, on a real database file (the command's main()
in the test process: tests.cli.test_cli.run)."""
from __future__ import annotations

import json

import pytest

from tests.cli.test_cli import run

GIFT = """// A question from another school's bank
::capital::What is the capital of Scotland? {=Edinburgh =Edinburgh city}

::half::What is half of 9? {#4.5:0}

::match::Match the pairs {=a -> 1 =b -> 2 =c -> 3}
"""


@pytest.fixture(scope="module")
def school(tmp_path_factory):
    from core.blueprints.library import Library
    from tests.items.interop.stock import stock
    path = tmp_path_factory.mktemp("cli") / "school.duckdb"
    stock(path, Library.load(exercise=False), per_skill=1).close()
    return path


@pytest.mark.parametrize("fmt, name", [("qti3", "out.zip"), ("moodle-xml", "out.xml"), ("gift", "out.txt")])
def test_export_writes_the_file_and_prints_what_it_wrote(school, tmp_path, fmt, name):
    out = tmp_path / name
    done = run("export", "--db", str(school), "--format", fmt, "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert set(summary) == {"format", "items", "skipped"} and summary["format"] == fmt
    assert summary["items"] > 0 and out.stat().st_size > 0
    for s in summary["skipped"]:
        assert set(s) == {"item", "reason"} and s["reason"]


def test_export_by_skill_and_status(school, tmp_path):
    every = json.loads(run("export", "--db", str(school), "--format", "moodle-xml", "--out", str(tmp_path / "all.xml"),
                           "--json").stdout)["items"]
    done = run("export", "--db", str(school), "--format", "moodle-xml", "--out", str(tmp_path / "a.xml"),
               "--skill", "SQA.MATH.H.DIFFERENTIATE", "--json")
    assert 1 <= json.loads(done.stdout)["items"] < every
    assert "SQA.MATH.H.DIFFERENTIATE" in (tmp_path / "a.xml").read_text(encoding="utf-8")
    done = run("export", "--db", str(school), "--format", "gift", "--out", str(tmp_path / "b.txt"),
               "--status", "rejected", "--json")
    assert json.loads(done.stdout) == {"format": "gift", "items": 0, "skipped": []}


def test_import_prints_what_came_in_and_what_was_skipped(tmp_path):
    path = tmp_path / "bank.txt"
    path.write_text(GIFT, encoding="utf-8")
    db = tmp_path / "fresh.duckdb"
    done = run("import", "--db", str(db), str(path), "--json")
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["imported"] == 2
    [skipped] = summary["skipped"]
    assert skipped["question"] == "match" and "matching" in skipped["reason"].lower()
    again = json.loads(run("import", "--db", str(db), str(path), "--json").stdout)
    assert again["imported"] == 0 and len(again["skipped"]) == 3


def test_a_file_that_cannot_be_read_exits_1_with_one_line(tmp_path):
    bad = tmp_path / "quiz.xml"
    bad.write_text("<quiz><question type='shortanswer'>", encoding="utf-8")
    for target in (bad, tmp_path / "missing.xml"):
        done = run("import", "--db", str(tmp_path / "x.duckdb"), str(target), "--json")
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.startswith("error: ") and done.stderr.count("\n") == 1


def test_export_to_a_folder_or_a_missing_folder_is_refused(school, tmp_path):
    for out in (tmp_path, tmp_path / "no" / "such" / "file.xml"):
        done = run("export", "--db", str(school), "--format", "gift", "--out", str(out))
        assert done.returncode == 2 and done.stderr.count("\n") == 1
        assert "--out" in done.stderr
