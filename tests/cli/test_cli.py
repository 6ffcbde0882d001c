"""The command line: `python -m core ...` as a user runs it.

`run` calls the same `core.cli.main` that `python -m core` and the installed `workbench` call, in the test
process (stdout, stderr, exit code and working folder as a real process has them; loading the blueprint
library once per test process instead of once per command); `run_process` runs a real `python -m core`
process, for the tests whose point is the process itself.

tests/cli/conftest.py points $WORKBENCH_DB into each test's tmp_path, so a command
run without --db never touches the project's own database.
"""
from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
COMMANDS = ["validate", "generate", "variants", "list", "init", "snapshot", "mark", "exam", "session", "simulate",
            "paper", "llm-status", "pipeline", "llm-items", "calibrate", "demo"]
# The commands whose --db defaults to $WORKBENCH_DB and creates the database on first use.
DEFAULT_DB = ["init", "snapshot", "exam", "session", "simulate", "paper", "llm-status", "pipeline", "llm-items",
              "demo"]


def run_process(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """`python -m core ARGS` in a process of its own."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "core", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300, env=env)


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    """`python -m core ARGS` in this process: what `run_process` returns, from `core.cli.main(ARGS)`.

    As the process would: `cwd` is the working folder, stdin is empty, sys.argv is `python -m core`'s (the
    help's "usage: python -m core"), warnings are shown once per place on stderr, and the exit code is the
    one `raise SystemExit(main())` gives. An exception escaping main() is a bug and is raised here, as the
    real command would end with its traceback. Every database the command opened must be closed by the
    time it returns (in a process of its own, exit would let go of it and hide the leak).
    """
    from core.cli import main
    argv = [sys.executable, "-m", "core", *args]
    out, err = io.StringIO(), io.StringIO()
    saved = os.getcwd(), sys.argv, sys.stdin
    os.chdir(cwd)
    sys.argv, sys.stdin = [str(ROOT / "core" / "__main__.py"), *args], io.StringIO()
    try:
        with _stores_opened() as stores, contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                _warnings_on_stderr():
            try:
                code = main(list(args))
            except SystemExit as exc:
                code = exc.code
            if code is None:
                code = 0
            elif not isinstance(code, int):
                print(code, file=sys.stderr)
                code = 1
    finally:
        os.chdir(saved[0])
        sys.argv, sys.stdin = saved[1], saved[2]
    left_open = [s for s in stores if _is_open(s)]
    for store in left_open:
        store.close()
    assert not left_open, f"{' '.join(args)} left {', '.join(s.label for s in left_open)} open"
    return subprocess.CompletedProcess(argv, code, out.getvalue(), err.getvalue())


@contextlib.contextmanager
def _stores_opened():
    """Every Store (DuckDB or PostgreSQL) made inside the block, in a list."""
    from core.store.db import Store
    made: list = []
    original = Store.__dict__["__new__"]

    def new(cls, *args, **kwargs):
        store = original.__func__(cls, *args, **kwargs)
        made.append(store)
        return store

    Store.__new__ = new
    try:
        yield made
    finally:
        Store.__new__ = original


def _is_open(store) -> bool:
    if store.backend == "postgresql":
        pool = getattr(store, "_pool", None)
        return pool is not None and not pool.closed
    return getattr(store, "_conn", None) is not None


@contextlib.contextmanager
def _warnings_on_stderr():
    """Warnings as a fresh interpreter shows them: each once per place, on stderr (deprecations hidden)."""
    def show(message, category, filename, lineno, file=None, line=None):
        sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("default")
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
            warnings.simplefilter("ignore", category)
        warnings.showwarning = show
        yield


def test_help_lists_every_command():
    out = run("--help")
    assert out.returncode == 0
    for command in COMMANDS:
        assert command in out.stdout


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help(command):
    out = run(command, "--help")
    assert out.returncode == 0 and "--json" in out.stdout
    if command in DEFAULT_DB:
        text = " ".join(out.stdout.split())
        assert "$WORKBENCH_DB" in text and "data/workbench.duckdb" in text and "first use" in text


def test_validate_shipped_library_json():
    out = run("validate", "blueprints", "--json")
    data = json.loads(out.stdout)
    assert out.returncode == 0, out.stdout[-2000:]
    assert data["ok"] is True and len(data["files"]) >= 18


def test_validate_bad_file_exits_1_with_precise_errors(tmp_path: Path):
    bad = tmp_path / "bad.yaml"
    bad.write_text((ROOT / "blueprints/skills/math/arithmetic/add_2digit.yaml").read_text()
                   .replace('answer_formula: "operand_1 + operand_2"', 'answer_formula: "operand_1 + operand_3"'))
    out = run("validate", str(bad))
    assert out.returncode == 1
    assert f"{bad}:" in out.stdout and "generation.answer_formula" in out.stdout and "unknown name 'operand_3'" in out.stdout
    data = json.loads(run("validate", str(bad), "--json").stdout)
    issue = data["files"][str(bad)]["issues"][0]
    assert issue["path"] == "generation.answer_formula" and issue["line"] > 1


def test_validate_missing_path_is_one_line_on_stderr():
    # A real process: `python -m core` itself ends with the exit code and only the one line on stderr.
    out = run_process("validate", "no/such/folder")
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "no such file" in out.stderr


def test_generate_json_includes_keys_and_writes_nothing(tmp_path: Path):
    out = run("generate", "MATH.ARITH.ADD.2DIGIT", "--difficulty", "hard", "--n", "5", "--seed", "7", "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["count"] == 5 and data["stored"] is None
    for it in data["items"]:
        assert it["options"][it["correct_index"]] == it["correct_answer"]
    assert list(tmp_path.iterdir()) == []
    again = json.loads(run("generate", "MATH.ARITH.ADD.2DIGIT", "--difficulty", "hard", "--n", "5", "--seed", "7", "--json").stdout)
    assert again["items"] == data["items"]


def test_generate_with_db_stores_drafts(tmp_path: Path):
    db = tmp_path / "w.duckdb"
    out = run("generate", "MATH.ARITH.ADD.2DIGIT", "--difficulty", "easy", "--n", "12", "--seed", "1", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["stored"] == 12
    from core.store import Store
    store = Store(db)
    assert store.query("SELECT count(*), min(status), max(status) FROM items")[0] == (12, "draft", "draft")
    assert store.query("SELECT count(*) FROM blueprints")[0][0] == 1
    store.close()


@pytest.mark.parametrize("args, expected", [
    (["generate", "NO.SUCH.SKILL", "--difficulty", "easy"], "no skill blueprint 'NO.SUCH.SKILL'"),
    (["generate", "MATH.ARITH.ADD.2DIGIT", "--difficulty", "brutal"], "no difficulty level 'brutal'"),
    (["generate", "MATH.ARITH.ADD.2DIGIT", "--difficulty", "easy", "--n", "0"], "--n must be between"),
    (["variants", "MATH.ARITH.ADD.2DIGT"], "did you mean 'MATH.ARITH.ADD.2DIGIT'"),
])
def test_bad_input_exits_nonzero_with_one_line(args, expected):
    out = run(*args)
    assert out.returncode != 0
    assert out.stderr.count("\n") == 1 and expected in out.stderr and out.stdout == ""


def test_variants_json():
    out = run("variants", "MATH.ARITH.ADD.2DIGIT", "--json")
    data = json.loads(out.stdout)
    assert [lvl["level"] for lvl in data["levels"]] == ["easy", "medium", "hard"]
    assert all(lvl["exact"] and lvl["parameter_combinations"] > 1000 for lvl in data["levels"])


def test_init_and_snapshot(tmp_path: Path):
    db = tmp_path / "w.duckdb"
    first = json.loads(run("init", "--db", str(db), "--json").stdout)
    assert first["schema_version"] >= 1 and first["new_blueprint_versions"] >= 18
    second = json.loads(run("init", "--db", str(db), "--json").stdout)
    assert second["new_blueprint_versions"] == 0
    snap = json.loads(run("snapshot", "--db", str(db), "--json").stdout)
    assert Path(snap["snapshot"]).exists()


def test_list_json():
    rows = json.loads(run("list", "--json").stdout)
    kinds = {r["kind"] for r in rows}
    assert kinds == {"skill", "assessment", "spec"}


def test_mark_takes_precision_units_and_variables_and_shows_the_reading():
    r = run("mark", "--method", "numeric_tolerance", "--expected", "9.81", "--units", "m/s^2",
            "--significant-figures", "3", "--answer", "9.810 m s-2", "--json")
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert not data["correct"] and data["valid"] and data["read_as"] == "9.810 m/s^2"
    assert data["feedback"] == "Your value is right, but give it to 3 significant figures."
    r = run("mark", "--method", "algebraic_equivalence", "--expected", "a*b*c", "--variable", "a", "--variable", "b",
            "--variable", "c", "--answer", "abc", "--json")
    data = json.loads(r.stdout)
    assert data["correct"] and data["notes"] == ["abc was read as a times b times c."]
    r = run("mark", "--method", "numeric_tolerance", "--expected", "1.5", "--significant-figures", "twenty",
            "--answer", "1.5")
    assert r.returncode != 0 and "significant_figures" in r.stderr and "Traceback" not in r.stderr
