"""YAML loading with errors that point at the file, line and field.

The text is composed into PyYAML's node tree first (which keeps line numbers),
checked for duplicate keys and aliases, then constructed and validated by the
pydantic models. Every problem becomes an ``Issue`` naming the file, the line,
the dotted field path and what was expected.

A blueprint may come from anywhere, so before any tree is built the text is
read once as a stream of events, which takes constant stack: documents nested
deeper than ``MAX_DEPTH`` (libyaml's composer recurses in C and crashes the
process on a deep enough one) and aliases (``*name``, the "billion laughs"
expansion) are refused there. Numbers are read from at most
``MAX_NUMBER_CHARS`` characters, since turning digits into a number takes
time that grows faster than their count.
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
MAX_DEPTH = 50                  # nesting of mappings and lists
MAX_NUMBER_CHARS = 100          # characters of a number written in the file
MAX_SHOWN_CHARS = 80            # of a wrong value quoted back in a message
MAX_ISSUES = 50                 # problems reported for one file
MAX_LINE_CHARS = 1_000          # of one problem as printed (the JSON report keeps it whole)


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
        text = " ".join(f"{where}:{field} {self.message}{tag}".splitlines())     # one line, always
        return text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS - 3] + "..."

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


def shown(value: Any) -> str:
    """A value as a message quotes it: repr, cut short (a wrong value may be a huge list or number)."""
    try:
        text = repr(value)
    except (ValueError, RecursionError, MemoryError):      # ints of more than 4300 digits cannot be printed
        return f"a {type(value).__name__} too large to show"
    return _clip(text)


def _clip(text: str) -> str:
    return text if len(text) <= MAX_SHOWN_CHARS else text[:MAX_SHOWN_CHARS - 3] + "..."


_NUMBER_TAGS = ("tag:yaml.org,2002:int", "tag:yaml.org,2002:float")
_PLAIN_TAGS = ("tag:yaml.org,2002:str", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null", *_NUMBER_TAGS)


def _check_nodes(node: yaml.Node, file: str, issues: list[Issue], construct: Any = None) -> None:
    """Duplicate keys, aliases, depth, over-long numbers and unreadable values (a 13th month), each at its field."""
    seen: set[int] = set()

    def walk(n: yaml.Node, depth: int, path: list) -> None:
        if len(issues) >= MAX_ISSUES:
            return
        line = n.start_mark.line + 1
        if depth > MAX_DEPTH:
            issues.append(Issue(file, line, _short_path(path),
                                f"document nested too deeply (more than {MAX_DEPTH} levels)"))
            return
        if id(n) in seen:
            issues.append(Issue(file, line, _short_path(path),
                                "YAML aliases (*name) are not supported in blueprints; write the value out"))
            return
        seen.add(id(n))
        if isinstance(n, yaml.ScalarNode):
            if n.tag in _NUMBER_TAGS and len(n.value) > MAX_NUMBER_CHARS:
                issues.append(Issue(file, line, _short_path(path),
                                    f"a number written with more than {MAX_NUMBER_CHARS} characters; "
                                    f"write a shorter number"))
            elif n.tag not in _PLAIN_TAGS and construct is not None:
                try:
                    construct(n)
                except (yaml.YAMLError, ValueError, TypeError, OverflowError) as exc:
                    problem = getattr(exc, "problem", None) or str(exc)
                    issues.append(Issue(file, line, _short_path(path), f"this value cannot be read: {_clip(problem)}"))
        elif isinstance(n, yaml.MappingNode):
            keys: dict[str, int] = {}
            for key, value in n.value:
                k = _clip(str(key.value)) if isinstance(key, yaml.ScalarNode) else "?"
                if k in keys:
                    issues.append(Issue(file, key.start_mark.line + 1, _short_path(path + [k]),
                                        f"duplicate key '{k}' (first on line {keys[k]}); remove one"))
                keys[k] = key.start_mark.line + 1
                walk(key, depth + 1, path + [k])
                walk(value, depth + 1, path + [k])
        elif isinstance(n, yaml.SequenceNode):
            for i, child in enumerate(n.value):
                walk(child, depth + 1, path + [i])

    walk(node, 0, [])


def _short_path(parts: list) -> str:
    """A field path as messages show it; very deep ones are cut after a few parts."""
    return path_text(parts) if len(parts) <= 8 else path_text(parts[:8]) + "..."


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
            msg = f"{msg}, got {shown(err.get('input'))}"
        elif "input" in err and err["type"].endswith(("_type", "_parsing")):
            msg = f"{msg}, got {shown(err['input'])}"
        # Union types repeat the location with the member type's name; drop it.
        loc = [p for p in loc if not (isinstance(p, str) and ("[" in p or p in ("int", "float", "str", "function-after")))]
        issues.append(Issue(file, index.line_of(loc), path_text(loc), msg))
        if len(issues) >= MAX_ISSUES:
            break
    return issues


# libyaml's loader reads the same safe subset with the same line marks, about five times faster.
_BaseLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _bounded_number(construct):
    def constructor(loader, node):
        if len(str(node.value)) > MAX_NUMBER_CHARS:
            raise yaml.constructor.ConstructorError(
                None, None, f"a number written with more than {MAX_NUMBER_CHARS} characters", node.start_mark)
        try:
            return construct(loader, node)
        except (ValueError, IndexError, TypeError, OverflowError):     # "!!int" with no digits, say
            raise yaml.constructor.ConstructorError(
                None, None, f"{node.value!r} is not a number", node.start_mark) from None
    return constructor


class _SafeLoader(_BaseLoader):
    """The safe loader, with numbers read from bounded text."""


_SafeLoader.add_constructor("tag:yaml.org,2002:int",
                            _bounded_number(yaml.constructor.SafeConstructor.construct_yaml_int))
_SafeLoader.add_constructor("tag:yaml.org,2002:float",
                            _bounded_number(yaml.constructor.SafeConstructor.construct_yaml_float))

_OPEN = (yaml.SequenceStartEvent, yaml.MappingStartEvent)
_CLOSE = (yaml.SequenceEndEvent, yaml.MappingEndEvent)


def check_yaml_text(text: str, file: str = "<text>", max_bytes: int = MAX_FILE_BYTES) -> None:
    """Refuse, before any tree is built, text too large, nested too deeply, or using aliases; raise BlueprintError.

    Reads the text as a stream of events, which needs no recursion however
    deep the document, so nothing here can exhaust the stack or expand.
    """
    if len(text.encode("utf-8", "surrogatepass")) > max_bytes:
        raise BlueprintError([Issue(file, None, "", f"file larger than {max_bytes // 1000} KB; "
                                                    f"blueprints and surveys are far smaller")])
    loader = _BaseLoader(text)
    # One frame per open mapping or list: [its path part, is a mapping, expecting a key, current key or index].
    frames: list[list] = []

    def begin() -> list:
        """The field path of the node starting now (a list's index moves on)."""
        if not frames:
            return []
        top = frames[-1]
        if top[1]:
            part = "?" if top[2] else top[3]
        else:
            top[3] += 1
            part = top[3]
        return [f[0] for f in frames[1:]] + [part]

    def done(key: Any = None) -> None:
        """A whole node has been read: in a mapping, keys and values alternate."""
        if frames and frames[-1][1]:
            top = frames[-1]
            if top[2]:
                top[3] = "?" if key is None else key
            top[2] = not top[2]

    def refuse(event: Any, path: list, message: str) -> BlueprintError:
        return BlueprintError([Issue(file, event.start_mark.line + 1, _short_path(path), message)])

    try:
        while True:
            event = loader.get_event()
            if event is None or isinstance(event, yaml.StreamEndEvent):
                break
            if isinstance(event, _CLOSE):
                frames.pop()
                done()
                continue
            if not isinstance(event, (yaml.AliasEvent, yaml.ScalarEvent, *_OPEN)):
                continue                                # stream and document marks
            is_key = bool(frames) and frames[-1][1] and frames[-1][2]
            path = begin()
            if isinstance(event, yaml.AliasEvent):
                raise refuse(event, path, "YAML aliases (*name) are not supported in blueprints; write the value out")
            if isinstance(event, yaml.ScalarEvent):
                done(_clip(event.value) if is_key else None)
                continue
            if len(frames) > MAX_DEPTH:
                raise refuse(event, path, f"document nested too deeply (more than {MAX_DEPTH} levels)")
            frames.append([path[-1] if path else None, isinstance(event, yaml.MappingStartEvent), True, -1])
    except yaml.MarkedYAMLError as exc:
        raise BlueprintError([_syntax_issue(file, exc)]) from None
    except yaml.YAMLError as exc:
        raise BlueprintError([Issue(file, None, "", f"YAML error: {exc}")]) from None
    finally:
        loader.dispose()


def _syntax_issue(file: str, exc: yaml.MarkedYAMLError) -> Issue:
    mark = exc.problem_mark or exc.context_mark
    line = mark.line + 1 if mark else None
    problem = exc.problem or str(exc)
    context = f" ({exc.context})" if exc.context else ""
    return Issue(file, line, "", f"YAML syntax error: {problem}{context}")


def parse_text(text: str, file: str = "<text>", expected_kind: Optional[str] = None) -> LoadedBlueprint:
    """Parse and validate one blueprint document; raise BlueprintError."""
    check_yaml_text(text, file)
    loader = _SafeLoader(text)
    try:
        root = loader.get_single_node()
        issues: list[Issue] = []
        if root is not None:
            _check_nodes(root, file, issues, loader.construct_object)
        if issues:
            raise BlueprintError(issues[:MAX_ISSUES])
        data = loader.construct_document(root) if root is not None else None
    except BlueprintError:
        raise
    except yaml.MarkedYAMLError as exc:
        raise BlueprintError([_syntax_issue(file, exc)]) from None
    except yaml.YAMLError as exc:
        raise BlueprintError([Issue(file, None, "", f"YAML error: {exc}")]) from None
    except Exception as exc:    # noqa: BLE001 - any constructor failing on a value (a date that does not exist, say)
        raise BlueprintError([Issue(file, None, "", f"a value cannot be read: {_clip(str(exc))}")]) from None
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
    except (TypeError, ArithmeticError, RecursionError) as exc:
        # A model check that met a value it did not expect; pydantic reports only ValueErrors by field.
        raise BlueprintError([Issue(file, 1, "", f"the blueprint cannot be checked: {_clip(str(exc))}")]) from None
    return LoadedBlueprint(kind=kind, id=getattr(model, ID_FIELDS[kind]), version=model.version, model=model,
                           text=text, hash=content_hash(text), file=file, index=index)


def read_text(path: Path) -> str:
    try:
        if not path.is_file():      # a folder, a pipe or a device (/dev/zero) would never end or never fit
            raise BlueprintError([Issue(str(path), None, "", "not a regular file")])
        with path.open("rb") as handle:
            raw = handle.read(MAX_FILE_BYTES + 1)
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
