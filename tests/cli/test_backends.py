"""The same commands on a DuckDB file and on a PostgreSQL database, from the same seed, give the same results."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests.cli.test_cli import run


def _run(*args: str) -> subprocess.CompletedProcess:
    out = run(*args)
    assert out.returncode == 0, out.stderr
    return out


def _without(data, keys=("db", "session_id", "exam_id", "calibration_id", "out", "abilities_out", "seconds")):
    if isinstance(data, dict):
        return {k: _without(v, keys) for k, v in data.items() if k not in keys}
    if isinstance(data, list):
        return [_without(v, keys) for v in data]
    return data


def _school(db: str, tmp: Path, name: str) -> dict:
    results = {}
    results["init"] = json.loads(_run("init", "--db", db, "--json").stdout)
    results["simulate"] = json.loads(_run("simulate", "--db", db, "--students", "6", "--seed", "41",
                                          "--json").stdout)
    for model in ("rasch", "2pl"):
        out, abilities = tmp / f"{name}-{model}-units.csv", tmp / f"{name}-{model}-abilities.csv"
        results[model] = json.loads(_run("calibrate", "--db", db, "--model", model, "--out", str(out),
                                         "--abilities", str(abilities), "--json").stdout)
        results[f"{model}-units"] = out.read_text(encoding="utf-8-sig")
        results[f"{model}-abilities"] = abilities.read_text(encoding="utf-8-sig")
    results["exam"] = json.loads(_run("exam", "--db", db, "--subject", "Mathematics", "--level", "Nat 5",
                                      "--seed", "5", "--student", "s1", "--json").stdout)
    return _without(results)


def test_init_simulate_calibrate_and_exam_agree_on_both_backends(tmp_path, pg_url):
    on_file = _school(str(tmp_path / "school.duckdb"), tmp_path, "duckdb")
    on_server = _school(pg_url, tmp_path, "postgresql")
    assert on_file["simulate"]["responses"] > 100
    assert len(on_file["rasch-units"].splitlines()) > 50
    for step in on_file:
        assert on_file[step] == on_server[step], step
