"""`python -m core paper`: a class paper and its marking scheme written as HTML files, run as a teacher runs it.

The command runs in the test process (tests.cli.test_cli.run: the same main() as `python -m core`) on a
temporary DuckDB file; bad input exits non-zero with one line on stderr.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.cli.test_cli import run


def data_marks(html: str) -> list[float]:
    return [float(m) for m in re.findall(r'data-marks="([0-9.]+)"', html)]


def test_paper_json_names_both_files_and_their_totals(tmp_path: Path):
    db, out = tmp_path / "paper.duckdb", tmp_path / "printed" / "nat5"
    done = run("paper", "--db", str(db), "--subject", "Mathematics", "--level", "Nat 5", "--seed", "3",
               "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert set(data) == {"paper", "marking_scheme", "total_marks", "questions"}
    assert data["paper"] == str((out / "paper.html").resolve())
    assert data["marking_scheme"] == str((out / "marking-scheme.html").resolve())
    paper, scheme = Path(data["paper"]).read_text(encoding="utf-8"), Path(data["marking_scheme"]).read_text("utf-8")
    for html in (paper, scheme):
        assert sum(data_marks(html)) == data["total_marks"]
        assert len(data_marks(html)) == data["questions"]
    assert data["total_marks"] in (90, 110)       # the SQA papers (50 + 60), or the 90-mark mock
    assert "FORMULAE LIST" in paper and "<math" in paper and "<script" not in paper
    assert db.exists()

    again = run("paper", "--db", str(db), "--subject", "Mathematics", "--level", "Nat 5", "--seed", "3",
                "--out", str(out), "--json")
    assert again.returncode == 0 and json.loads(again.stdout) == data
    assert Path(data["paper"]).read_text(encoding="utf-8") == paper       # the same seed prints the same paper


def test_paper_without_json_says_where_the_files_are(tmp_path: Path):
    done = run("paper", "--db", str(tmp_path / "p.duckdb"), "--subject", "mathematics", "--level", "higher",
               "--out", str(tmp_path / "h"))
    assert done.returncode == 0, done.stderr
    assert "question paper:" in done.stdout and "marking scheme:" in done.stdout
    assert "works offline" in done.stdout
    assert (tmp_path / "h" / "paper.html").exists() and (tmp_path / "h" / "marking-scheme.html").exists()


def test_paper_from_an_assessment_blueprint(tmp_path: Path):
    done = run("paper", "--db", str(tmp_path / "p.duckdb"), "--assessment", "MATH-FUNDAMENTALS-L1", "--seed", "2",
               "--out", str(tmp_path / "eval"), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    html = Path(data["paper"]).read_text(encoding="utf-8")
    assert sum(data_marks(html)) == data["total_marks"] and data["questions"] == len(data_marks(html))


def test_the_shorter_mock_format_passes_through(tmp_path: Path):
    done = run("paper", "--db", str(tmp_path / "p.duckdb"), "--subject", "Mathematics", "--level", "Nat 5",
               "--format", "short", "--out", str(tmp_path / "short"), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["total_marks"] == 90


@pytest.mark.parametrize("args, message", [
    (["--subject", "Mathematics", "--level", "Nat 9"], "no course spec for Mathematics Nat 9"),
    (["--subject", "Cookery", "--level", "Nat 5"], "no course spec for Cookery Nat 5"),
    (["--assessment", "NOPE"], "no assessment blueprint 'NOPE'"),
    (["--subject", "Mathematics"], "paper needs --subject and --level"),
    (["--subject", "Mathematics", "--level", "Nat 5", "--seed", "  "], "seed"),
    (["--subject", "Mathematics", "--level", "Nat 5", "--format", "nope"], "no exam format 'nope'"),
])
def test_bad_input_is_one_line_on_stderr(tmp_path: Path, args, message):
    done = run("paper", "--db", str(tmp_path / "p.duckdb"), *args, "--out", str(tmp_path / "out"), "--json")
    assert done.returncode == 2, done.stdout
    assert done.stderr.count("\n") == 1 and message in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""
    assert not (tmp_path / "out" / "paper.html").exists()


def test_an_unwritable_folder_is_refused_before_any_work(tmp_path: Path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    for out, message in ((blocker, "is a file, not a folder"), (blocker / "sub", "cannot create the folder")):
        done = run("paper", "--db", str(tmp_path / "p.duckdb"), "--subject", "Mathematics", "--level", "Nat 5",
                   "--out", str(out))
        assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr
    assert not (tmp_path / "p.duckdb").exists()      # refused before the database was opened


def test_out_is_required():
    done = run("paper", "--subject", "Mathematics", "--level", "Nat 5")
    assert done.returncode == 2 and "--out" in done.stderr
