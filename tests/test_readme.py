"""What the README claims is what the code does: counts, commands, folders and the app's config."""
from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()

WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}


def number_before(phrase: str) -> int:
    """The number the README writes just before ``phrase`` (digits or a word)."""
    match = re.search(rf"\b(\d+|{'|'.join(WORDS)})\s+{re.escape(phrase)}", README, flags=re.IGNORECASE)
    assert match, f"the README no longer says how many {phrase}"
    text = match.group(1).lower()
    return int(text) if text.isdigit() else WORDS[text]


def test_it_starts_with_the_two_setup_commands():
    block = README.split("```bash\n", 1)[1].split("```", 1)[0].strip().splitlines()
    assert block == ["pip install -r requirements.txt && streamlit run app.py",
                     "pip install -r requirements.txt -r requirements-test.txt && python -m pytest"]
    assert (ROOT / "requirements.txt").read_text().strip().splitlines()[-1] == "-e ."
    ci = (ROOT / ".ci" / "run").read_text()
    assert block[1] in ci


def test_library_counts(library):
    tagged = [s for s, lb in library.skills.items() if lb.model.metadata.outcome_ids]
    assert number_before("skill blueprints") == len(library.skills)
    assert number_before("of them") == len(tagged)
    assert number_before("SQA-style course specs") == len(library.specs)
    assert number_before("assessment blueprints") == len(library.assessments)


def test_notebooks_named_and_counted():
    notebooks = sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert number_before("notebooks in `notebooks/`") == len(notebooks)
    for name in notebooks:
        assert f"`{name}`" in README, f"{name} is not described in the README"


def test_demo_as_described():
    from core.demo import classroom
    assert number_before("students, each with") == len(classroom.DEMO_NAMES)
    assert number_before("days and ending today") == classroom.HISTORY_DAYS
    assert f"**{classroom.DEMO_CODE}**" in README


def test_every_command_shown_exists():
    from core.cli import build_parser
    commands = set(build_parser()._subparsers._group_actions[0].choices)   # noqa: SLF001 - argparse keeps them here
    blocks = "\n".join(re.findall(r"```bash\n(.*?)```", README, flags=re.DOTALL))
    shown = set(re.findall(r"^workbench ([a-z-]+)", blocks, flags=re.MULTILINE))
    assert shown and shown <= commands, shown - commands


def test_the_map_names_every_folder():
    rows = re.findall(r"^\| `([^`]+)`", README, flags=re.MULTILINE)
    for row in rows:
        assert (ROOT / row).exists(), f"the README's map names {row}, which does not exist"
    packages = {f"core/{p.name}/" for p in (ROOT / "core").iterdir() if (p / "__init__.py").exists()}
    assert packages <= set(rows), packages - set(rows)


@pytest.mark.parametrize("section, key, value", [("browser", "gatherUsageStats", False),
                                                 ("client", "toolbarMode", "minimal")])
def test_the_app_sends_nothing_and_shows_students_a_minimal_toolbar(section, key, value):
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config[section][key] == value
    assert config["theme"]["primaryColor"]


def test_the_app_watches_no_source_files():
    """Streamlit's file watcher walks every loaded module on the server's event loop after a run that imported a
    new one, holding up every open page (0.3-0.5 s measured); the README says how to turn it on for development."""
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none"
    assert "--server.fileWatcherType auto" in README
