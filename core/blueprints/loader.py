"""YAML loading with errors that point at the file, line and field.

The text is composed into PyYAML's node tree first (which keeps line numbers),
checked for duplicate keys and aliases, then constructed and validated by the
pydantic models. Every problem becomes an ``Issue`` naming the file, the line,
the dotted field path and what was expected.
"""
from __future__ import annotations

import dataclasses
import difflib
import hashlib
import re
import typing
from pathlib import Path
from typing import Any, Iterable, Optional, Union

import yaml
from pydantic import BaseModel, ValidationError

from core.blueprints.models import ID_FIELDS, KINDS

MAX_FILE_BYTES = 1_000_000


@dataclasses.dataclass
class Issue:
    file: str
    line: Optional[int]
    path: str
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        where = self.file + (f":{self.line}" if self.line else "")
        field = f" {self.path}:" if self.path else ""
        tag = "" if self.severity == "error" else f" [{self.severity}]"
        return f"{where}:{field} {self.message}{tag}"

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


class BlueprintError(ValueError):
    """A blueprint could not be loaded or failed validation."""

    def __init__(self, issues: list[Issue]):
        self.issues = issues
        super().__init__("\n".join(str(i) for i in issues))


def path_text(parts: Iterable[Union[str, int]]) -> str:
    out = ""
    for p in parts:
        if isinstance(p, int):
            out += f"[{p}]"
        else:
            out += ("." if out else "") + str(p)
    return out


class NodeIndex:
    """Finds the line of a field path in a composed YAML document."""

    def __init__(self, root: Optional[yaml.Node]):
        self.root = root

    def line_of(self, parts: Iterable[Union[str, int]]) -> Optional[int]:
        node = self.root
        if node is None:
            return None
        line = node.start_mark.line + 1
        for part in parts:
            child = None
            if isinstance(node, yaml.MappingNode):
                for key, value in node.value:
                    if str(key.value) == str(part):
                        child = value
                        line = key.start_mark.line + 1
                        break
            elif isinstance(node, yaml.SequenceNode):
                try:
                    child = node.value[int(part)]
                except (ValueError, IndexError):
                    child = None
                if child is not None:
                    line = child.start_mark.line + 1
            if child is None:
                return line
            node = child
        return line


@dataclasses.dataclass
class LoadedBlueprint:
    kind: str
    id: str
    version: str
    model: Any
    text: str
    hash: str
    file: str
    index: NodeIndex

    def issue(self, parts: Iterable[Union[str, int]], message: str, severity: str = "error") -> Issue:
        parts = list(parts)
        return Issue(self.file, self.index.line_of(parts), path_text(parts), message, severity)


def content_hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _check_nodes(node: yaml.Node, file: str, issues: list[Issue]) -> None:
    seen: set[int] = set()

    def walk(n: yaml.Node, depth: int) -> None:
        if depth > 50:
            issues.append(Issue(file, n.start_mark.line + 1, "", "document nested too deeply (more than 50 levels)"))
            return
        if id(n) in seen:
            issues.append(Issue(file, n.start_mark.line + 1, "", "YAML aliases (*name) are not supported in blueprints; write the value out"))
            return
        seen.add(id(n))
        if isinstance(n, yaml.MappingNode):
            keys: dict[str, int] = {}
            for key, value in n.value:
                k = str(key.value)
                if k in keys:
                    issues.append(Issue(file, key.start_mark.line + 1, k,
                                        f"duplicate key '{k}' (first on line {keys[k]}); remove one"))
                keys[k] = key.start_mark.line + 1
                walk(value, depth + 1)
        elif isinstance(n, yaml.SequenceNode):
            for child in n.value:
                walk(child, depth + 1)

    walk(node, 0)


def detect_kind(data: dict) -> Optional[str]:
    for kind, field in ID_FIELDS.items():
        if field in data:
            return kind
    return None


def _model_at(model: Any, parts: list) -> Optional[type]:
    """The pydantic model class that a location inside ``model`` points at."""
    current: Any = model
    for part in parts:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            if field is None:
                return None
            current = field.annotation
        else:
            origin = typing.get_origin(current)
            args = typing.get_args(current)
            if origin is dict and args:
                current = args[1]
            elif origin is list and args:
                current = args[0]
            else:
                return None
    current = _unwrap(current)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def _unwrap(tp: Any) -> Any:
    if typing.get_origin(tp) is Union:
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        models = [a for a in args if isinstance(a, type) and issubclass(a, BaseModel)]
        if models:
            return models[0]
        if len(args) == 1:
            return args[0]
    return tp


_MARKER = re.compile(r"^(?:Value error, )?@([^@]*)@ (.*)$", re.S)


def _pydantic_issues(exc: ValidationError, kind: str, file: str, index: NodeIndex) -> list[Issue]:
    issues = []
    model = KINDS[kind]
    for err in exc.errors(include_url=False):
        loc = [p for p in err["loc"]]
        msg = err["msg"]
        m = _MARKER.match(msg)
        if m:
            extra, msg = m.group(1), m.group(2)
            loc += [int(p) if p.isdigit() else p for p in extra.split(".") if p]
        elif msg.startswith("Value error, "):
            msg = msg[len("Value error, "):]
        if err["type"] == "extra_forbidden":
            parent = _model_at(model, loc[:-1])
            msg = f"unknown field '{loc[-1]}'"
            if parent is not None:
                close = difflib.get_close_matches(str(loc[-1]), list(parent.model_fields), n=1, cutoff=0.6)
                msg += f" (did you mean '{close[0]}'?)" if close else f"; allowed here: {', '.join(parent.model_fields)}"
        elif err["type"] == "missing":
            msg = "required field is missing"
        elif err["type"] in ("literal_error",):
            msg = f"{msg}, got {err.get('input')!r}"
        elif "input" in err and err["type"].endswith(("_type", "_parsing")):
            msg = f"{msg}, got {err['input']!r}"
        # Union types repeat the location with the member type's name; drop it.
        loc = [p for p in loc if not (isinstance(p, str) and ("[" in p or p in ("int", "float", "str", "function-after")))]
        issues.append(Issue(file, index.line_of(loc), path_text(loc), msg))
    return issues


# libyaml's loader reads the same safe subset with the same line marks, about five times faster.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def parse_text(text: str, file: str = "<text>", expected_kind: Optional[str] = None) -> LoadedBlueprint:
    """Parse and validate one blueprint document; raise BlueprintError."""
    if len(text.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise BlueprintError([Issue(file, None, "", f"file larger than {MAX_FILE_BYTES // 1000} KB; a blueprint should be far smaller")])
    loader = _SafeLoader(text)
    try:
        root = loader.get_single_node()
        issues: list[Issue] = []
        if root is not None:
            _check_nodes(root, file, issues)
        if issues:
            raise BlueprintError(issues)
        data = loader.construct_document(root) if root is not None else None
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        problem = exc.problem or str(exc)
        context = f" ({exc.context})" if exc.context else ""
        raise BlueprintError([Issue(file, line, "", f"YAML syntax error: {problem}{context}")]) from None
    except yaml.YAMLError as exc:
        raise BlueprintError([Issue(file, None, "", f"YAML error: {exc}")]) from None
    finally:
        loader.dispose()
    index = NodeIndex(root)
    if not isinstance(data, dict):
        raise BlueprintError([Issue(file, 1, "", "expected a mapping of fields (skill_id: ..., version: ..., ...) at the top level")])
    kind = detect_kind(data)
    if kind is None:
        raise BlueprintError([Issue(file, 1, "", "cannot tell the blueprint kind: expected one of the fields skill_id, assessment_id or spec_id")])
    if expected_kind and kind != expected_kind:
        raise BlueprintError([Issue(file, 1, ID_FIELDS[kind], f"this is a {kind} blueprint, expected a {expected_kind}")])
    try:
        model = KINDS[kind].model_validate(data)
    except ValidationError as exc:
        raise BlueprintError(_pydantic_issues(exc, kind, file, index)) from None
    return LoadedBlueprint(kind=kind, id=getattr(model, ID_FIELDS[kind]), version=model.version, model=model,
                           text=text, hash=content_hash(text), file=file, index=index)


def read_text(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise BlueprintError([Issue(str(path), None, "", f"cannot read file: {exc.strerror or exc}")]) from None
    if len(raw) > MAX_FILE_BYTES:
        raise BlueprintError([Issue(str(path), None, "", f"file larger than {MAX_FILE_BYTES // 1000} KB; a blueprint should be far smaller")])
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise BlueprintError([Issue(str(path), line, "", "file is not valid UTF-8 text; save it as UTF-8")]) from None


def load_file(path: Union[str, Path], expected_kind: Optional[str] = None) -> LoadedBlueprint:
    path = Path(path)
    return parse_text(read_text(path), str(path), expected_kind)


def yaml_files(paths: Iterable[Union[str, Path]]) -> list[Path]:
    """Expand files and folders into a sorted list of .yaml/.yml files."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(sorted(x for x in p.rglob("*") if x.suffix in (".yaml", ".yml") and x.is_file()))
        else:
            out.append(p)
    return out
