"""Survey files: finding them, reading them, and saying exactly where one is wrong.

A survey definition is YAML under blueprints/surveys/ (or the folder named by
``WORKBENCH_SURVEYS``), at most 200 KB of UTF-8. A survey is found by id: the
file named after it first, else any file that declares it. Every problem is a
SurveyError naming the file, the line and the field, with one problem
reported (the most telling) and a count of the rest.
"""
from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Optional, Union

import yaml
from pydantic import ValidationError

from core.blueprints.library import default_blueprints_dir
from core.blueprints.loader import NodeIndex, path_text
from core.flows.base import FlowError
from core.flows.survey.definition import ID_PATTERN, SurveyDefinition

MAX_FILE_BYTES = 200_000


def surveys_dir() -> Path:
    return Path(os.environ.get("WORKBENCH_SURVEYS", default_blueprints_dir() / "surveys"))


class SurveyError(ValueError):
    """A survey file that cannot be used; the message names the file, line and field."""

    def __init__(self, file: str, field: str, message: str, line: Optional[int] = None):
        self.file, self.field, self.line, self.problem = file, field, line, message
        where = file + (f":{line}" if line else "")
        super().__init__(f"{where}: {field + ': ' if field else ''}{message}")


_MARKER = re.compile(r"^(?:Value error, )?@([^@]*)@ (.*)$", re.S)


def parse_survey(text: str, file: str = "<text>") -> SurveyDefinition:
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise SurveyError(file, "", f"file larger than {MAX_FILE_BYTES // 1000} KB; a survey should be far smaller")
    try:
        data = yaml.safe_load(text)
        index = NodeIndex(yaml.compose(text, Loader=yaml.SafeLoader))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        raise SurveyError(file, "", f"YAML syntax error: {exc.problem or exc}",
                          mark.line + 1 if mark else None) from None
    except yaml.YAMLError as exc:
        raise SurveyError(file, "", f"YAML error: {exc}") from None
    if not isinstance(data, dict):
        raise SurveyError(file, "", "expected a mapping of fields (survey_id: ..., title: ..., questions: ...)", 1)
    try:
        return SurveyDefinition.model_validate(data)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        # A misspelt field shows up as an unknown one plus a missing one; the unknown one explains both.
        err = next((e for e in errors if e["type"] == "extra_forbidden"), errors[0])
        loc = list(err["loc"])
        msg = err["msg"]
        m = _MARKER.match(msg)
        if m:
            loc += [int(p) if p.isdigit() else p for p in m.group(1).split(".") if p]
            msg = m.group(2)
        elif err["type"] == "missing":
            msg = "required field is missing"
        elif err["type"] == "extra_forbidden":
            missing = [str(e["loc"][-1]) for e in errors if e["type"] == "missing" and list(e["loc"][:-1]) == loc[:-1]]
            close = difflib.get_close_matches(str(loc[-1]), missing, n=1, cutoff=0.6)
            msg = f"unknown field '{loc[-1]}'" + (f" (did you mean '{close[0]}'?)" if close else "")
            if close:
                errors = [e for e in errors if not (e["type"] == "missing" and str(e["loc"][-1]) == close[0])]
        elif "input" in err and not isinstance(err["input"], (dict, list)):
            msg = f"{msg}, got {err['input']!r}"
        # Union members add their type names to the location; they are not fields.
        loc = [p for p in loc if not (isinstance(p, str) and ("[" in p or p in ("int", "float", "str")))]
        more = len(errors) - 1
        raise SurveyError(file, path_text(loc), msg + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else ""),
                          index.line_of(loc)) from None


def load_survey_file(path: Union[str, Path]) -> SurveyDefinition:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SurveyError(str(path), "", f"cannot read file: {exc.strerror or exc}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise SurveyError(str(path), "", "file is not valid UTF-8 text; save it as UTF-8") from None
    return parse_survey(text, str(path))


def survey_files(directory: Union[str, Path, None] = None) -> list[Path]:
    root = Path(directory) if directory is not None else surveys_dir()
    if not root.is_dir():
        return []
    return sorted(p for p in root.rglob("*") if p.suffix in (".yaml", ".yml") and p.is_file())


def load_survey(survey_id: str, directory: Union[str, Path, None] = None) -> SurveyDefinition:
    """The survey with this id: the file named after it first, else any file that declares it."""
    if not isinstance(survey_id, str) or not re.fullmatch(ID_PATTERN, survey_id):
        raise FlowError(f"{survey_id!r} is not a survey id (letters, digits, _ and -)")
    files = survey_files(directory)
    named = [p for p in files if p.stem == survey_id]
    for path in named:
        survey = load_survey_file(path)   # the file named after the survey: its errors are the ones to show
        if survey.survey_id == survey_id:
            return survey
    broken: list[str] = []
    for path in files:
        if path in named:
            continue
        try:
            survey = load_survey_file(path)
        except SurveyError as exc:
            broken.append(str(exc))
            continue
        if survey.survey_id == survey_id:
            return survey
    where = directory if directory is not None else surveys_dir()
    extra = f"; these files could not be read: {' | '.join(broken)}" if broken else ""
    raise FlowError(f"no survey '{survey_id}' in {where}{extra}")


def list_surveys(directory: Union[str, Path, None] = None) -> list[SurveyDefinition]:
    return [load_survey_file(p) for p in survey_files(directory)]
