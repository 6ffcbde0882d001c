"""Surveys (seed 002, section 10): ordered questions, no correct answers, skip logic.

    start -> question --answer--> (skip logic) -> question ... -> ended
                      --skip (optional questions only)--> next question
                      --stop--> ended (abandoned)

A survey definition is YAML under blueprints/surveys/, validated by the
pydantic models here. The definition is copied into the session's first
event, so editing the file later does not change a survey already under way.
Every answer is an event; nothing is written to ``responses`` (that table is
for marked items), and ``survey_answers`` reads the answers back.
"""
from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Any, Literal, Optional, Union

import yaml
from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, model_validator

from core.blueprints.library import default_blueprints_dir
from core.blueprints.loader import NodeIndex, path_text
from core.flows.base import Flow, FlowError, Step
from core.store import Store
from core.store import surveys as survey_store

END = "end"
MAX_FREE_TEXT = 2000
MAX_SCALE_POINTS = 11          # 0..10 is the widest scale people answer reliably
MAX_FILE_BYTES = 200_000
ID_PATTERN = r"^[A-Za-z][A-Za-z0-9_\-]{0,63}$"
ORDERING_OPS = ("lt", "lte", "gt", "gte")


def surveys_dir() -> Path:
    return Path(os.environ.get("WORKBENCH_SURVEYS", default_blueprints_dir() / "surveys"))


# --------------------------------------------------------------------------
# The definition


def _fail(field: str, message: str) -> None:
    # The field path rides in the message so the loader can point at the exact field.
    raise ValueError(f"@{field}@ {message}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class Scale(_Strict):
    min: StrictInt = 1
    max: StrictInt = 5
    labels: dict[int, str] = Field(default_factory=dict)   # int, not StrictInt: JSON (the event log) makes keys text

    @model_validator(mode="after")
    def _sane(self) -> "Scale":
        if self.max <= self.min:
            _fail("max", f"the scale's max ({self.max}) must be above its min ({self.min})")
        if self.max - self.min + 1 > MAX_SCALE_POINTS:
            _fail("max", f"a rating scale may have at most {MAX_SCALE_POINTS} points; {self.min} to {self.max} has "
                         f"{self.max - self.min + 1}")
        for point in self.labels:
            if not self.min <= point <= self.max:
                _fail(f"labels.{point}", f"label {point} is outside the scale {self.min} to {self.max}")
        return self


class SurveyQuestion(_Strict):
    question_id: str = Field(pattern=ID_PATTERN)
    text: str = Field(min_length=1, max_length=1000)
    question_type: Literal["rating", "choice", "free_text"]
    options: list[str] = Field(default_factory=list)
    scale: Optional[Scale] = None
    required: bool = True

    @model_validator(mode="after")
    def _fits_type(self) -> "SurveyQuestion":
        if self.question_id == END:
            _fail("question_id", f"'{END}' is reserved for skip_to; choose another question_id")
        if self.question_type == "choice":
            if len(self.options) < 2:
                _fail("options", "a choice question needs at least two options")
            seen: dict[str, int] = {}
            for k, option in enumerate(self.options):
                key = _norm(option)
                if not key:
                    _fail(f"options.{k}", "an option cannot be empty")
                if key in seen:
                    _fail(f"options.{k}", f"option '{option}' repeats option {seen[key] + 1}")
                seen[key] = k
        elif self.options:
            _fail("options", f"options only apply to choice questions, not {self.question_type}")
        if self.question_type == "rating":
            if self.scale is None:
                self.scale = Scale()
        elif self.scale is not None:
            _fail("scale", f"a scale only applies to rating questions, not {self.question_type}")
        return self


class Condition(_Strict):
    question: str
    op: Literal["equals", "in", "lt", "lte", "gt", "gte"]
    value: Union[StrictInt, float, str, list[Union[StrictInt, float, str]]]


class SkipRule(_Strict):
    if_: Condition = Field(alias="if")
    skip_to: str


class SurveyDefinition(_Strict):
    survey_id: str = Field(pattern=ID_PATTERN)
    version: str = "1"
    title: str = Field(min_length=1)
    description: Optional[str] = None
    questions: list[SurveyQuestion] = Field(min_length=1)
    skip_logic: list[SkipRule] = Field(default_factory=list)

    @model_validator(mode="after")
    def _consistent(self) -> "SurveyDefinition":
        position: dict[str, int] = {}
        for k, q in enumerate(self.questions):
            if q.question_id in position:
                _fail(f"questions.{k}.question_id",
                      f"question_id '{q.question_id}' is already used by questions[{position[q.question_id]}]")
            position[q.question_id] = k
        for k, rule in enumerate(self.skip_logic):
            cond = rule.if_
            where = f"skip_logic.{k}"
            if cond.question not in position:
                _fail(f"{where}.if.question", f"no question '{cond.question}' in this survey")
            if rule.skip_to != END and rule.skip_to not in position:
                _fail(f"{where}.skip_to", f"no question '{rule.skip_to}' in this survey (or '{END}')")
            if rule.skip_to != END and position[rule.skip_to] <= position[cond.question]:
                _fail(f"{where}.skip_to", f"skip_to must point forward: '{rule.skip_to}' does not come after "
                                          f"'{cond.question}'")
            _check_condition(self.questions[position[cond.question]], cond, where)
        return self

    def question(self, question_id: str) -> SurveyQuestion:
        for q in self.questions:
            if q.question_id == question_id:
                return q
        raise FlowError(f"this survey has no question '{question_id}'")

    def index(self, question_id: str) -> int:
        return [q.question_id for q in self.questions].index(question_id)


def _check_condition(q: SurveyQuestion, cond: Condition, where: str) -> None:
    values = cond.value if isinstance(cond.value, list) else [cond.value]
    if cond.op in ORDERING_OPS and q.question_type != "rating":
        _fail(f"{where}.if.op", f"op '{cond.op}' compares numbers, but '{q.question_id}' is a {q.question_type} question")
    if cond.op == "in" and not isinstance(cond.value, list):
        _fail(f"{where}.if.value", "op 'in' needs a list of values")
    if cond.op != "in" and isinstance(cond.value, list):
        _fail(f"{where}.if.value", f"op '{cond.op}' needs a single value; use 'in' for a list")
    if q.question_type == "rating":
        for v in values:
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                _fail(f"{where}.if.value", f"'{q.question_id}' is a rating, so the value must be a number, not {v!r}")
            if cond.op in ("equals", "in") and not (q.scale.min <= v <= q.scale.max):
                _fail(f"{where}.if.value", f"{v} is outside the scale {q.scale.min} to {q.scale.max} of '{q.question_id}'")
    elif q.question_type == "choice":
        options = {_norm(o) for o in q.options}
        for v in values:
            if _norm(str(v)) not in options:
                _fail(f"{where}.if.value", f"{v!r} is not one of the options of '{q.question_id}'")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", str(text)).strip().casefold()


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


# --------------------------------------------------------------------------
# Answers


def check_answer(q: SurveyQuestion, answer: Any) -> Union[int, str]:
    """The answer in its stored form, or a FlowError saying what is acceptable."""
    if answer is None or (isinstance(answer, str) and not answer.strip()):
        if q.required:
            raise FlowError("this question needs an answer")
        raise FlowError("type an answer, or skip this question")
    if q.question_type == "rating":
        scale = q.scale
        value: Optional[int] = None
        if isinstance(answer, int) and not isinstance(answer, bool):
            value = answer
        elif isinstance(answer, float) and answer.is_integer():
            value = int(answer)
        elif isinstance(answer, str) and re.fullmatch(r"\s*-?\d{1,3}\s*", answer):
            value = int(answer)
        if value is None or not scale.min <= value <= scale.max:
            raise FlowError(f"choose a whole number from {scale.min} to {scale.max}")
        return value
    if q.question_type == "choice":
        if isinstance(answer, str):
            for option in q.options:
                if _norm(option) == _norm(answer):
                    return option
        raise FlowError(f"choose one of: {', '.join(q.options)}")
    if not isinstance(answer, str):
        raise FlowError("this question needs a written answer")
    text = answer.strip()
    if len(text) > MAX_FREE_TEXT:
        raise FlowError(f"answers can be at most {MAX_FREE_TEXT:,} characters; this one has {len(text):,}")
    return text


def rule_matches(cond: Condition, answer: Any) -> bool:
    if answer is None:
        return False
    if cond.op == "equals":
        return _same(answer, cond.value)
    if cond.op == "in":
        return any(_same(answer, v) for v in cond.value)
    if isinstance(answer, bool) or not isinstance(answer, (int, float)):
        return False
    return {"lt": answer < cond.value, "lte": answer <= cond.value,
            "gt": answer > cond.value, "gte": answer >= cond.value}[cond.op]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return _norm(str(a)) == _norm(str(b))


def survey_answers(store: Store, survey_id: Optional[str] = None) -> list[dict]:
    """Every answer given to a survey (optionally one survey), one dict per answer, oldest first."""
    out = []
    for row in survey_store.answer_events(store, survey_id):
        p, cfg = row["payload"], row["config"]
        out.append({"session_id": row["session_id"], "student": row["student"],
                    "survey_id": cfg.get("survey_id"), "context": cfg.get("context") or {},
                    "question_id": p.get("question_id"), "question_type": p.get("question_type"),
                    "question": p.get("text"), "answer": p.get("answer"), "answered_at": row["created_at"],
                    "session_status": row["status"]})
    return out


# --------------------------------------------------------------------------
# The flow


class SurveyFlow(Flow):
    kind = "survey"

    def new_state(self, session: dict) -> dict:
        cfg = session["config"] or {}
        if not cfg.get("survey_id"):
            raise FlowError("a survey session needs a survey_id")
        context = cfg.get("context") or {}
        if not isinstance(context, dict):
            raise FlowError("a survey's context must be a mapping, such as {\"practice_session\": \"prac_...\"}")
        return {"student": session["student"], "survey_id": cfg["survey_id"], "context": context,
                "stage": "new", "definition": None, "current": None, "answers": {}, "skipped": [],
                "not_asked": [], "asked": 0}

    # ------------------------------------------------------------------
    def apply(self, state: dict, event: dict) -> None:
        p, t = event["payload"], event["type"]
        if t == "started":
            state["definition"] = p["definition"]
            state["stage"] = "question"
            state["current"] = p["first"]
        elif t in ("answered", "skipped"):
            if t == "answered":
                state["answers"][p["question_id"]] = p["answer"]
            else:
                state["skipped"].append(p["question_id"])
            state["not_asked"].extend(p.get("not_asked", []))
            state["current"] = p["next"]
            state["asked"] += 1
        elif t == "ended":
            state["stage"] = "ended"
            state["current"] = None

    def view(self, state: dict) -> dict:
        out = {"kind": self.kind, "stage": state["stage"], "survey_id": state["survey_id"],
               "context": state["context"]}
        d = state["definition"]
        if d is None:
            return out
        out.update({"title": d["title"], "description": d.get("description"), "answers": dict(state["answers"]),
                    "progress": {"answered": len(state["answers"]), "skipped": len(state["skipped"]),
                                 "not_asked": len(state["not_asked"]), "total": len(d["questions"])}})
        if state["stage"] == "question" and state["current"]:
            k = [q["question_id"] for q in d["questions"]].index(state["current"])
            q = d["questions"][k]
            out["question"] = {"question_id": q["question_id"], "text": q["text"], "question_type": q["question_type"],
                               "options": q["options"], "scale": q["scale"], "required": q["required"],
                               "number": k + 1, "max_length": MAX_FREE_TEXT if q["question_type"] == "free_text" else None}
            out["progress"]["position"] = k + 1
        if state["stage"] == "ended":
            out["message"] = "Thank you: your answers have been saved."
        return out

    # ------------------------------------------------------------------
    def cmd_start(self, state: dict) -> Step:
        if state["stage"] != "new":
            return Step()
        try:
            survey = load_survey(state["survey_id"])
        except SurveyError as exc:
            raise FlowError(f"the survey cannot be used: {exc}") from None
        step = Step().add("started", survey_id=survey.survey_id, version=survey.version, title=survey.title,
                          context=state["context"], first=survey.questions[0].question_id,
                          definition=survey.model_dump(mode="json", by_alias=True))
        return step

    def cmd_answer(self, state: dict, question_id: str, answer: Any) -> Step:
        survey = self._survey(state)
        q = self._on_screen(state, survey, question_id, answer)
        if q is None:
            return Step()  # the same answer again (double click, second tab): recorded once
        value = check_answer(q, answer)
        nxt, not_asked, rule = self._after(survey, q, value)
        step = Step().add("answered", question_id=q.question_id, question_type=q.question_type, text=q.text,
                          answer=value, next=nxt, not_asked=not_asked, rule=rule)
        return self._maybe_end(step, state, nxt, answered=1, skipped=0)

    def cmd_skip(self, state: dict, question_id: Optional[str] = None) -> Step:
        survey = self._survey(state)
        if question_id is not None and question_id in state["skipped"]:
            return Step()  # skipped already (a repeated click)
        if state["stage"] == "ended":
            raise FlowError("this survey has finished; there is nothing to skip")
        q = survey.question(question_id or state["current"])
        self._on_screen(state, survey, q.question_id, None)
        if q.required:
            raise FlowError("this question needs an answer and cannot be skipped")
        # No answer means no skip rule on this question can fire: carry on in order.
        nxt, not_asked, _ = self._after(survey, q, None)
        step = Step().add("skipped", question_id=q.question_id, next=nxt, not_asked=not_asked)
        return self._maybe_end(step, state, nxt, answered=0, skipped=1)

    def cmd_stop(self, state: dict) -> Step:
        if state["stage"] == "ended":
            return Step()
        step = Step().add("ended", reason="stopped", answered=len(state["answers"]), skipped=len(state["skipped"]))
        # Stopped part-way: the answers given are kept, but the survey was not completed.
        step.status = "abandoned"
        return step

    # ------------------------------------------------------------------
    def _survey(self, state: dict) -> SurveyDefinition:
        if state["stage"] == "new":
            raise FlowError("the survey has not started yet; start it first")
        return SurveyDefinition.model_validate(state["definition"])

    def _on_screen(self, state: dict, survey: SurveyDefinition, question_id: str,
                   answer: Any) -> Optional[SurveyQuestion]:
        """The question if it is the one on screen; None for a repeat of an answer already recorded."""
        q = survey.question(question_id)
        if question_id in state["answers"]:
            if answer is not None and _same(state["answers"][question_id], _canonical(q, answer)):
                return None
            raise FlowError("that question has already been answered; answer the question on screen")
        if state["stage"] == "ended":
            raise FlowError("this survey has finished; thank you")
        if question_id in state["not_asked"]:
            raise FlowError("that question does not apply after your earlier answers")
        if question_id in state["skipped"]:
            raise FlowError("that question was skipped; answer the question on screen")
        if question_id != state["current"]:
            raise FlowError("that question is not on screen yet; answer the question on screen")
        return q

    @staticmethod
    def _after(survey: SurveyDefinition, q: SurveyQuestion, value: Any) -> tuple[Optional[str], list[str], Optional[int]]:
        """(next question id or None at the end, questions jumped over, the rule that fired)."""
        ids = [x.question_id for x in survey.questions]
        k = ids.index(q.question_id)
        for n, rule in enumerate(survey.skip_logic):
            if rule.if_.question == q.question_id and rule_matches(rule.if_, value):
                stop = len(ids) if rule.skip_to == END else ids.index(rule.skip_to)
                return (None if rule.skip_to == END else rule.skip_to), ids[k + 1:stop], n
        return (ids[k + 1] if k + 1 < len(ids) else None), [], None

    @staticmethod
    def _maybe_end(step: Step, state: dict, nxt: Optional[str], answered: int, skipped: int) -> Step:
        """End the survey in the same step when nothing is left to ask (counts include this step's question)."""
        if nxt is None:
            step.add("ended", reason="completed", answered=len(state["answers"]) + answered,
                     skipped=len(state["skipped"]) + skipped)
            step.status = "completed"
        return step


def _canonical(q: SurveyQuestion, answer: Any) -> Any:
    try:
        return check_answer(q, answer)
    except FlowError:
        return answer
