"""Property-based checks: whatever text, structure or command-line arguments arrive, the answer is a message, never a
traceback.

Generated YAML text and blueprints with a random part replaced by random data
go through the loader and the checks `validate` runs; generated arguments go
through the `validate` and `generate` commands themselves (in this process,
with the shipped library loaded once).
"""
from __future__ import annotations

import contextlib
import copy
import io
import string
from pathlib import Path
from unittest import mock

import yaml
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from core.blueprints.library import Library, check_skill
from core.blueprints.loader import BlueprintError, parse_text
from core.cli import main
from tests.blueprints.test_blueprints import ASSESSMENT, SKILL, SPEC

FAST = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SLOWER = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Pieces YAML is made of, including the ones that have caused trouble: anchors and aliases, merge keys, tags,
# flow brackets, deep indentation, long numbers, tabs, odd unicode.
TOKENS = ["\n", "  ", "    ", "- ", ": ", ":", "[", "]", "{", "}", ", ", "&a ", "*a", "&b ", "*b", "<<: ", "? ",
          "!!int ", "!!float ", "!!str ", "!!binary ", "!!timestamp ", "!!set ", "!!python/object ", "'", '"', "#", "|",
          ">", "---\n", "...\n", "skill_id", "spec_id", "assessment_id", "generation", "parameters", "version",
          "1", "0x1F", "1:30:00", "1e309", ".inf", ".nan", "-", "9" * 120, "2024-13-45", "~", "null", "true",
          "\t", "\u2212", "\ufeff", "é", "\x85", "%YAML 1.1\n", "a", "b"]


def loads_cleanly(text: str) -> None:
    """Loading (and for a skill, the checks validate runs) ends in a result or in one-line issues."""
    try:
        loaded = parse_text(text, "fuzz.yaml")
    except BlueprintError as exc:
        assert exc.issues
        for issue in exc.issues:
            assert "\n" not in str(issue)
        return
    if loaded.kind == "skill":
        _, found = check_skill(loaded)
        for issue in found:
            assert "\n" not in str(issue)


@FAST
@given(st.lists(st.sampled_from(TOKENS), max_size=60).map("".join))
def test_yaml_made_of_awkward_pieces(text):
    loads_cleanly(text)


@FAST
@given(st.text(max_size=300))
def test_any_text(text):
    loads_cleanly(text)


@FAST
@given(st.integers(min_value=1, max_value=400), st.sampled_from(["[", "{a: ", "- ", "k:\n  "]))
def test_deep_nesting(depth, opener):
    closer = {"[": "]", "{a: ": "}", "- ": "", "k:\n  ": ""}[opener]
    text = "skill_id: X.Y\nx: " + opener * depth + "1" + closer * depth + "\n"
    if opener == "k:\n  ":
        text = "skill_id: X.Y\n" + "".join(f"{'  ' * i}k{i}:\n" for i in range(depth)) + "  " * depth + "x: 1\n"
    loads_cleanly(text)


# Random data to put anywhere in a blueprint: every YAML type, nested, with awkward values.
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(min_value=-10 ** 40, max_value=10 ** 40),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=30),
                    st.sampled_from(["a + b", "{a}", "__class__", "a.__class__", "numerator('1e99999999')",
                                     "'%0999999999d' % a", "9 ** 9 ** 9", "[a] * 1000", "integer", "choice",
                                     "multiple_choice", "mcq", "easy", "", " ", "1e309"]))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(string.ascii_letters + "_", max_size=8),
                                                                       inner, max_size=4)), max_leaves=12)


def _paths(node, prefix=()):
    yield prefix
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, prefix + (i,))


DOCUMENTS = {name: yaml.safe_load(text) for name, text in (("skill", SKILL), ("assessment", ASSESSMENT), ("spec", SPEC))}
PLACES = [(name, path) for name, doc in DOCUMENTS.items() for path in _paths(doc) if path]


@FAST
@given(st.sampled_from(PLACES), VALUES, st.booleans())
def test_wrong_types_anywhere(place, value, add_beside):
    name, path = place
    doc = copy.deepcopy(DOCUMENTS[name])
    parent = doc
    for part in path[:-1]:
        parent = parent[part]
    if add_beside and isinstance(parent, dict):
        parent["extra_" + str(path[-1])] = value
    else:
        parent[path[-1]] = value
    try:
        text = yaml.safe_dump(doc, allow_unicode=True)
    except yaml.YAMLError:
        assume(False)
    loads_cleanly(text)


# --------------------------------------------------------------------------
# The commands


_SHIPPED: list[Library] = []


def _shipped(*args, **kwargs) -> Library:
    if not _SHIPPED:   # the real load: Library.load may be patched to come back here
        _SHIPPED.append(_REAL_LOAD(Library, None, exercise=False))
    return _SHIPPED[0]


def run(argv: list[str]) -> tuple[int, str]:
    """The command's exit status and output; any exception but argparse's exit would fail the test."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:      # argparse: usage and one line
            code = exc.code if isinstance(exc.code, int) else 2
    text = out.getvalue() + err.getvalue()
    assert "Traceback" not in text
    return code, text


ARG_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=20)
SKILL_IDS = ["MATH.ARITH.ADD.2DIGIT", "NET.IP.SUBNET.NETWORK", "SQA.MATH.N5.SURDS"]


@SLOWER
@given(skill_id=st.one_of(st.sampled_from(SKILL_IDS), ARG_TEXT),
       difficulty=st.one_of(st.sampled_from(["easy", "medium", "hard"]), ARG_TEXT),
       n=st.one_of(st.integers(-3, 4), st.sampled_from([0, 100_001, 10 ** 30, -(10 ** 30)]), ARG_TEXT),
       seed=st.one_of(st.none(), ARG_TEXT, st.integers()), flags=st.lists(
           st.sampled_from(["--json", "--allow-repeats", "--bogus", "--n", "--difficulty"]), max_size=2))
def test_generate_arguments(skill_id, difficulty, n, seed, flags):
    argv = ["generate", skill_id, "--difficulty", difficulty, "--n", str(n)]
    if seed is not None:
        argv += ["--seed", str(seed)]
    with mock.patch("core.cli.library.library", _shipped):
        code, text = run(argv + flags)
    assert isinstance(code, int)
    if code != 0:
        assert text.strip(), "a refusal says why"


@SLOWER
@given(content=st.one_of(st.lists(st.sampled_from(TOKENS), max_size=40).map("".join),
                         st.sampled_from([SKILL, ASSESSMENT, SPEC]).map(lambda t: t.replace("a + b", "a +* b"))),
       name=st.text(string.ascii_letters + string.digits + "-_. ", min_size=1, max_size=12),
       extra=st.lists(st.one_of(ARG_TEXT, st.sampled_from(["--json", "--standalone", "--bogus", "-"])), max_size=3))
def test_validate_arguments(tmp_path_factory, content, name, extra):
    folder = tmp_path_factory.mktemp("fuzz")
    path = folder / (name.strip(". ") or "x")
    assume(not path.exists())
    path.with_suffix(".yaml").write_text(content, encoding="utf-8")
    extra = [e for e in extra if not Path(e).exists() or e in ("--json", "--standalone", "--bogus", "-")]
    with mock.patch("core.blueprints.library.Library.load", _context_or_load):
        code, text = run(["validate", str(path.with_suffix(".yaml")), *extra])
    assert code != 0 or "0 with errors" in text or "--json" in extra


_REAL_LOAD = Library.load.__func__


def _context_or_load(paths=None, context=None, exercise=True):
    """The shipped library (the context `validate` checks against) once; any other load as usual."""
    if paths is None and not exercise:
        return _shipped()
    return _REAL_LOAD(Library, paths, context=context, exercise=exercise)
