"""Authoring: editing blueprints, previewing them, saving new versions and generating draft items.

What the teacher's Blueprints and Generate pages do, with no Streamlit in it:
validate a blueprint typed in an editor against the library, show sample
items and the variant space of a skill, save a new version (file on disk,
version row in the database, and the in-memory library), list the library
as a tree, summarise an assessment, and turn skills or course outcomes plus
a difficulty mix into a batch of draft items for the review queue.
"""
from __future__ import annotations

import collections
import math
import os
import random
import re
import tempfile
import threading
from pathlib import Path
from typing import Any, Callable, Iterable, Optional, Union

from core.blueprints.library import Library, LibraryError, default_blueprints_dir
from core.blueprints.loader import BlueprintError, Issue, LoadedBlueprint, parse_text, read_text
from core.blueprints.models import AssessmentBlueprint
from core.items.generator import Item, SkillGenerator
from core.items.sampler import GenerationError
from core.store import Store, repo

EDITOR_FILE = "editor.yaml"
MAX_PLAN_ITEMS = 1000
KIND_FOLDERS = {"skill": "skills", "assessment": "assessments", "spec": "specs"}
KIND_LABELS = {"skill": "Skill", "assessment": "Assessment", "spec": "Course spec"}
Progress = Optional[Callable[[int, int], None]]
PlanEntry = tuple[str, str, int]


class AuthoringError(ValueError):
    """A request from the authoring pages that cannot be done; the message says why and what to do."""


# --------------------------------------------------------------------------
# Validation


_GENERATORS: "collections.OrderedDict[str, SkillGenerator]" = collections.OrderedDict()
_SIZES: "collections.OrderedDict[str, list[dict]]" = collections.OrderedDict()
_GENERATOR_CACHE = 16
_cache_lock = threading.Lock()
_save_lock = threading.Lock()


def _remember(text_hash: str, gen: SkillGenerator) -> None:
    with _cache_lock:
        _GENERATORS[text_hash] = gen
        _GENERATORS.move_to_end(text_hash)
        while len(_GENERATORS) > _GENERATOR_CACHE:
            _GENERATORS.popitem(last=False)


def _generator(loaded: LoadedBlueprint) -> SkillGenerator:
    """The generator of a validated skill (reused from validation when possible)."""
    if loaded.kind != "skill":
        raise AuthoringError(f"{loaded.id} is {_article(loaded.kind)}, not a skill; only skills have sample items.")
    with _cache_lock:
        gen = _GENERATORS.get(loaded.hash)
    if gen is not None:
        return gen
    from core.blueprints.library import check_skill
    gen, issues = check_skill(loaded, exercise=False)
    if gen is None:
        raise AuthoringError(f"{loaded.id} does not compile; validate it first and fix the issues shown.")
    _remember(loaded.hash, gen)
    return gen


def _article(kind: str) -> str:
    label = KIND_LABELS[kind].lower()
    return ("an " if label[0] in "aeiou" else "a ") + label


def validate_text(text: str, library: Library, file: str = EDITOR_FILE) -> tuple[Optional[LoadedBlueprint], list[Issue]]:
    """Parse a blueprint, exercise it if it is a skill, and cross-check it against ``library``.

    Returns the loaded blueprint (None when any issue is an error) and every
    issue found, warnings included.
    """
    if not (text or "").strip():
        return None, [Issue(file, None, "", "the editor is empty; open a blueprint or start from a template")]
    try:
        loaded = parse_text(text, file)
    except BlueprintError as exc:
        return None, list(exc.issues)
    # A one-file library lends the real one's skills and specs for cross-references:
    # the same checks the library runs on its own files (skill exercise, skill ids
    # of an assessment, outcome ids of a skill, coverage of a course spec).
    scratch = Library(exercise=True)
    issues = scratch.report.files.setdefault(file, [])
    scratch.add_loaded(loaded, issues)
    scratch._cross_check(library)  # noqa: SLF001 - the library's own cross-reference pass
    issues = scratch.report.files.get(file, issues)
    if loaded.kind == "skill" and loaded.id in scratch.generators:
        _remember(loaded.hash, scratch.generators[loaded.id])
    if any(i.severity == "error" for i in issues):
        return None, issues
    return loaded, issues


def format_issue(issue: Issue) -> str:
    """An issue as the editor shows it: 'line N, field.path: message'."""
    where = []
    if issue.line:
        where.append(f"line {issue.line}")
    if issue.path:
        where.append(issue.path)
    tag = " (warning)" if issue.severity != "error" else ""
    return (", ".join(where) + ": " if where else "") + issue.message + tag


def issue_rows(issues: Iterable[Issue], text: str) -> list[dict]:
    """Issues for display, errors first, each with the editor line it points at."""
    lines = (text or "").splitlines()
    rows = []
    for issue in sorted(issues, key=lambda i: (i.severity != "error", i.line or 0)):
        source = lines[issue.line - 1] if issue.line and 0 < issue.line <= len(lines) else ""
        rows.append({"severity": issue.severity, "line": issue.line, "field": issue.path, "message": issue.message,
                     "text": format_issue(issue), "source": source})
    return rows


# --------------------------------------------------------------------------
# Preview


def preview(loaded: LoadedBlueprint, n_per_level: int = 3, seed: Any = "preview") -> dict[str, list[Item]]:
    """A few sample items per difficulty level of a valid skill (the same items for the same seed)."""
    gen = _generator(loaded)
    out: dict[str, list[Item]] = {}
    for level in gen.cs.levels:
        try:
            out[level] = gen.batch(level, n_per_level, seed).items
        except GenerationError as exc:
            raise AuthoringError(f"{exc} (validate the blueprint to see where)") from None
    return out


def variant_sizes(loaded: LoadedBlueprint, progress: Progress = None) -> list[dict]:
    """How many distinct items each difficulty level of a skill can produce."""
    with _cache_lock:
        known = _SIZES.get(loaded.hash)
    if known is not None:
        if progress:
            progress(len(known), len(known))
        return [dict(r) for r in known]
    gen = _generator(loaded)
    levels = gen.cs.levels
    rows = []
    for k, level in enumerate(levels):
        try:
            v = gen.variants(level)
        except GenerationError as exc:
            raise AuthoringError(str(exc)) from None
        count = int(v["parameter_combinations"])
        rows.append({"level": level, "difficulty": loaded.model.generation.difficulty_levels[level].value,
                     "distinct_items": count, "exact": bool(v["exact"]),
                     "shown": f"{'' if v['exact'] else 'about '}{count:,}", "stem_wordings": v["stem_templates"]})
        if progress:
            progress(k + 1, len(levels))
    with _cache_lock:
        _SIZES[loaded.hash] = rows
        while len(_SIZES) > _GENERATOR_CACHE:
            _SIZES.popitem(last=False)
    return [dict(r) for r in rows]


# --------------------------------------------------------------------------
# Saving


def next_version(version: str) -> str:
    """The version after ``version``: "1.0" -> "1.1", "2" -> "3", "1.9" -> "1.10", "beta" -> "beta.1"."""
    parts = str(version).strip().split(".")
    if parts and parts[-1].isdigit():
        parts[-1] = str(int(parts[-1]) + 1)
        return ".".join(parts)
    return f"{version}.1"


def _version_key(version: str) -> tuple:
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in str(version).split("."))


def stored_versions(library: Library, store: Store, kind: str, blueprint_id: str) -> list[str]:
    """Every version of a blueprint the database or the library holds, oldest first by number."""
    versions = {r["version"] for r in repo.blueprint_versions(store, blueprint_id) if r["kind"] == kind}
    current = _table(library, kind).get(blueprint_id)
    if current is not None:
        versions.add(current.version)
    return sorted(versions, key=_version_key)


def _table(library: Library, kind: str) -> dict[str, LoadedBlueprint]:
    return {"skill": library.skills, "assessment": library.assessments, "spec": library.specs}[kind]


def file_stem(blueprint_id: str) -> str:
    """A file name for a new blueprint: the id in lower case, dots as underscores."""
    name = re.sub(r"[^a-z0-9_\-]+", "_", blueprint_id.lower().replace(".", "_")).strip("_")
    return name or "blueprint"


def target_path(loaded: LoadedBlueprint, library: Library, folder: Union[str, Path, None] = None,
                opened: Union[str, Path, None] = None) -> Path:
    """Where a blueprint is saved: its existing file, the broken file being repaired, or a new file."""
    current = _table(library, loaded.kind).get(loaded.id)
    if current is not None and Path(current.file).suffix in (".yaml", ".yml"):
        return Path(current.file)
    if opened is not None:
        opened = Path(opened)
        holds_valid = any(Path(lb.file) == opened for lb in library.all_loaded())
        if opened.is_file() and not holds_valid:
            return opened
    folder = Path(folder) if folder is not None else default_blueprints_dir()
    base = folder / KIND_FOLDERS[loaded.kind] / file_stem(loaded.id)
    path, n = base.with_suffix(".yaml"), 1
    while path.exists():
        n += 1
        path = base.with_name(f"{base.name}_{n}.yaml")
    return path


def write_text_atomic(path: Path, text: str) -> None:
    """Write a file so a crash leaves either the old content or the new, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save_new_version(text: str, library: Library, store: Store, folder: Union[str, Path, None] = None,
                     opened: Union[str, Path, None] = None, author: str = "teacher") -> Path:
    """Save a blueprint as a new version: file, database row and the in-memory library.

    Raises BlueprintError (with every error) when the text is not valid, and
    AuthoringError when its version is already stored or the file cannot be
    written. ``opened`` is the file the editor was opened from, used to save a
    repaired broken file in place.
    """
    with _save_lock:
        loaded, issues = validate_text(text, library)
        if loaded is None:
            raise BlueprintError([i for i in issues if i.severity == "error"])
        versions = stored_versions(library, store, loaded.kind, loaded.id)
        if loaded.version in versions:
            suggestion = next_version(versions[-1])
            while suggestion in versions:
                suggestion = next_version(suggestion)
            raise AuthoringError(f"Version {loaded.version} of {loaded.id} is already stored; "
                                 f"change the version to \"{suggestion}\" and save again.")
        path = target_path(loaded, library, folder, opened)
        try:
            write_text_atomic(path, text)
        except OSError as exc:
            raise AuthoringError(f"Could not write {path} ({exc.strerror or exc}); "
                                 f"check that the blueprints folder is writable.") from None
        saved = parse_text(text, str(path))
        repo.save_blueprint(store, saved, author)
        report = library.report.files[str(path)] = []
        library.add_loaded(saved, report)
        report.extend([i for i in _refile(issues, str(path)) if i not in report])
        return path


def _refile(issues: list[Issue], file: str) -> list[Issue]:
    return [Issue(file, i.line, i.path, i.message, i.severity) for i in issues if i.severity != "error"]


# --------------------------------------------------------------------------
# Templates


TEMPLATES: dict[str, str] = {
    "Multiple-choice skill": '''\
# A multiple-choice skill. Change the placeholder id, then the metadata,
# parameters, formulas and distractors; "Validate" checks every level.
skill_id: "NEW.TEMPLATE.MULTIPLE_CHOICE"
version: "1.0"

metadata:
  domain: "Mathematics"
  subdomain: "Arithmetic"
  topic: "Multiplication"
  skill_statement: "Multiply a 2-digit number by a 1-digit number"
  cognitive_level: "Apply"
  calculator: "none"

generation:
  item_type: "multiple_choice"
  parameters:
    a: {type: integer, min: 11, max: 99, description: "The 2-digit number"}
    b: {type: integer, min: 2, max: 9, description: "The 1-digit number"}
  answer_formula: "a * b"
  answer_type: integer
  difficulty_levels:
    easy:
      value: 0.3
      description: "No carrying"
      constraints: ["(a % 10) * b < 10"]
    medium:
      value: 0.5
      description: "One carry, smaller numbers"
      constraints: ["(a % 10) * b >= 10", "a <= 50"]
    hard:
      value: 0.7
      description: "One carry, larger numbers"
      constraints: ["(a % 10) * b >= 10", "a > 50"]

presentation:
  stem_templates:
    - "What is {a} × {b}?"
    - "Calculate {a} × {b}."
  option_count: 4
  distractor_strategies:
    - {type: "no_carry", description: "Forgot to carry", formula: "(a // 10) * b * 10 + ((a % 10) * b) % 10", condition: "(a % 10) * b >= 10", gap_tag: "carrying"}
    - {type: "added", description: "Added instead of multiplied", formula: "a + b", gap_tag: "operation_choice"}
    - {type: "off_by_ten", description: "Slipped a ten", formula: "answer + 10", gap_tag: "place_value"}
    - {type: "one_fewer_group", description: "One group too few", formula: "answer - a", gap_tag: "multiplication_facts"}
  distractor_validation:
    - "distractor > 0"
    - "distractor != answer"
  explanation_template: "{a} × {b} = {answer}: multiply the tens and the ones by {b} separately, then add."
  hint_templates:
    - "Split {a} into tens and ones and multiply each by {b}."

evaluation:
  method: "mcq"
''',
    "Numeric skill": '''\
# A numeric-answer skill marked with a tolerance. Change the placeholder id,
# then the metadata, parameters and formulas; "Validate" checks every level.
skill_id: "NEW.TEMPLATE.NUMERIC"
version: "1.0"

metadata:
  domain: "Mathematics"
  subdomain: "Measure"
  topic: "Area"
  skill_statement: "Calculate the area of a rectangle"
  cognitive_level: "Apply"
  calculator: "optional"

generation:
  item_type: "numeric"
  parameters:
    length: {type: decimal, min: 2, max: 20, step: 0.5, description: "Length in cm"}
    width: {type: decimal, min: 1, max: 12, step: 0.5, description: "Width in cm"}
  answer_formula: "length * width"
  answer_type: decimal
  difficulty_levels:
    easy:
      value: 0.3
      description: "Whole numbers up to 10"
      constraints: ["length == int(length)", "width == int(width)", "length <= 10", "width < length"]
    medium:
      value: 0.5
      description: "Whole numbers, larger"
      constraints: ["length == int(length)", "width == int(width)", "length > 10", "width < length"]
    hard:
      value: 0.7
      description: "Halves"
      constraints: ["length != int(length) or width != int(width)", "width < length"]

presentation:
  stem_templates:
    - "A rectangle is {length} cm long and {width} cm wide. Calculate its area."
    - "Find the area of a rectangle measuring {length} cm by {width} cm."
  units: "cm²"
  distractor_strategies:
    - {type: "perimeter", description: "Found the perimeter instead", formula: "2 * (length + width)", gap_tag: "area_vs_perimeter"}
    - {type: "added", description: "Added the sides", formula: "length + width", gap_tag: "area_method"}
  explanation_template: "Area = length × width = {length} × {width} = {answer} cm²."
  hint_templates:
    - "The area of a rectangle is its length multiplied by its width."

evaluation:
  method: "numeric_tolerance"
  tolerance: {absolute: 0.01}
  marks: 1
''',
    "Assessment": '''\
# An assessment: sections drawing items from skills in the library. Change the
# placeholder id and title, then list your own skills in each section.
assessment_id: "NEW-TEMPLATE-ASSESSMENT"
version: "1.0"

metadata:
  title: "New assessment"
  description: "Addition and subtraction facts"
  estimated_duration_minutes: 15

configuration:
  total_items: 10
  time_limit_minutes: 15
  passing_score_percent: 60
  shuffle_items: true
  shuffle_options: true
  show_progress: true
  allow_review: true
  allow_skip: false

sections:
  - section_id: "addition"
    title: "Addition"
    item_count: 6
    skill_blueprints:
      - {skill_id: "MATH.ARITH.ADD.1DIGIT", weight: 1}
      - {skill_id: "MATH.ARITH.ADD.2DIGIT", weight: 2}
    difficulty_distribution: {easy: 2, medium: 3, hard: 1}
  - section_id: "subtraction"
    title: "Subtraction"
    item_count: 4
    skill_blueprints:
      - {skill_id: "MATH.ARITH.SUB.1DIGIT", weight: 1}
    difficulty_distribution: {easy: 2, medium: 1, hard: 1}

scoring:
  method: "percent_correct"
  grade_bands:
    - {label: "Secure", min_percent: 80}
    - {label: "Developing", min_percent: 50}
    - {label: "Not yet", min_percent: 0}
''',
    "Course spec": '''\
# A course spec: the course's outcomes and the structure of its exam. Skills
# join the course with metadata subject, level and outcome_ids.
spec_id: "NEW-TEMPLATE-COURSE"
version: "1.0"
subject: "New subject"
level: "Level 1"
title: "New course, Level 1"

outcomes:
  - {id: "NEW-1-01", label: "Number: whole numbers, fractions and percentages", weight: 0.6}
  - {id: "NEW-1-02", label: "Measure: length, area and time", weight: 0.4}

assessment_structure:
  - section: "Paper 1 (Non-calculator)"
    outcome_ids: ["NEW-1-01"]
    marks: 20
    calculator_allowed: false
    time_allowed_minutes: 30
  - section: "Paper 2"
    outcome_ids: ["NEW-1-01", "NEW-1-02"]
    marks: 30
    calculator_allowed: true
    time_allowed_minutes: 45

instructions:
  - "Attempt ALL questions."
  - "Show your working."
''',
}


# --------------------------------------------------------------------------
# The library as a tree


def library_tree(library: Library) -> list[dict]:
    """One row per blueprint, skills grouped by domain > subdomain > topic, then assessments and specs."""
    rows = []
    for loaded in library.skills.values():
        meta = loaded.model.metadata
        rows.append({"kind": "skill", "domain": meta.domain, "subdomain": meta.subdomain or "",
                     "topic": meta.topic or "", "id": loaded.id, "title": meta.skill_statement,
                     "version": loaded.version, "course": " ".join(filter(None, (meta.subject, meta.level))),
                     "file": loaded.file, "key": f"skill:{loaded.id}"})
    for loaded in library.assessments.values():
        meta = loaded.model.metadata
        rows.append({"kind": "assessment", "domain": meta.subject or "", "subdomain": "", "topic": meta.level or "",
                     "id": loaded.id, "title": meta.title, "version": loaded.version,
                     "course": " ".join(filter(None, (meta.subject, meta.level))), "file": loaded.file,
                     "key": f"assessment:{loaded.id}"})
    for loaded in library.specs.values():
        spec = loaded.model
        rows.append({"kind": "spec", "domain": spec.subject, "subdomain": "", "topic": spec.level, "id": loaded.id,
                     "title": spec.title or f"{spec.subject} {spec.level}", "version": loaded.version,
                     "course": f"{spec.subject} {spec.level}", "file": loaded.file, "key": f"spec:{loaded.id}"})
    order = {"skill": 0, "assessment": 1, "spec": 2}
    rows.sort(key=lambda r: (order[r["kind"]], r["domain"].lower(), r["subdomain"].lower(), r["topic"].lower(), r["id"]))
    return rows


def broken_files(library: Library) -> list[dict]:
    """Files the library could not load, with their first error (they can be opened and repaired)."""
    rows = []
    loaded_files = {lb.file for lb in library.all_loaded()}
    for file, issues in sorted(library.report.files.items()):
        errors = [i for i in issues if i.severity == "error"]
        if errors and file not in loaded_files:
            rows.append({"file": file, "errors": len(errors), "first": format_issue(errors[0]), "key": f"file:{file}"})
    return rows


def open_source(library: Library, key: str) -> tuple[str, Optional[str]]:
    """The YAML text behind a tree key ("skill:ID", "assessment:ID", "spec:ID", "template:NAME", "file:PATH"),
    and the file it came from (None for a template)."""
    kind, _, name = key.partition(":")
    if kind == "template":
        if name not in TEMPLATES:
            raise AuthoringError(f"There is no template called {name}; choose one of: {', '.join(TEMPLATES)}.")
        return TEMPLATES[name], None
    if kind == "file":
        try:
            return read_text(Path(name)), name
        except BlueprintError as exc:
            raise AuthoringError(f"{exc.issues[0].message}: {name}.") from None
    if kind not in KIND_FOLDERS:
        raise AuthoringError(f"Cannot open '{key}'; choose a blueprint from the list.")
    loaded = _table(library, kind).get(name)
    if loaded is None:
        raise AuthoringError(f"The library holds no {KIND_LABELS[kind].lower()} '{name}'; choose one from the list.")
    return loaded.text, loaded.file


# --------------------------------------------------------------------------
# Assessments


def assessment_summary(model: AssessmentBlueprint) -> list[dict]:
    """One row per section: items, weight in the score, skills and the difficulty mix."""
    total = sum(s.item_count for s in model.sections) or 1
    weights = model.scoring.section_weights
    rows = []
    for section in model.sections:
        weight = weights.get(section.section_id, section.item_count / total)
        mix = " · ".join(f"{lvl} {n}" for lvl, n in section.difficulty_distribution.items() if n)
        rows.append({"section": section.title, "section_id": section.section_id, "items": section.item_count,
                     "weight": round(float(weight), 3), "skills": ", ".join(s.skill_id for s in section.skill_blueprints),
                     "difficulty_mix": mix})
    return rows


def difficulty_mix_rows(model: AssessmentBlueprint) -> list[dict]:
    """Long-form rows (section, level, items) for a chart of each section's difficulty mix."""
    return [{"section": s.title, "level": lvl, "items": n}
            for s in model.sections for lvl, n in s.difficulty_distribution.items()]


# --------------------------------------------------------------------------
# Generating drafts


def courses(library: Library) -> list[dict]:
    """The courses with a spec: subject, level, title."""
    rows = [{"subject": lb.model.subject, "level": lb.model.level, "title": lb.model.title or f"{lb.model.subject} {lb.model.level}",
             "spec_id": lb.id} for lb in library.specs.values()]
    return sorted(rows, key=lambda r: (r["subject"], r["title"]))


def outcomes(library: Library, subject: str, level: str) -> list[dict]:
    """A course's outcomes with how many skill blueprints cover each."""
    try:
        spec = library.spec(subject, level)
    except LibraryError as exc:
        raise AuthoringError(f"{exc}.") from None
    return [{"id": o.id, "label": o.label, "skills": len(library.skills_for_outcome(subject, level, o.id))}
            for o in spec.outcomes]


def levels_for(library: Library, skill_ids: Iterable[str]) -> list[str]:
    """The difficulty levels the skills have, easiest first (by their mean difficulty value)."""
    values: dict[str, list[float]] = {}
    for sid in skill_ids:
        loaded = library.skills.get(sid)
        if loaded is None:
            continue
        for level, spec in loaded.model.generation.difficulty_levels.items():
            values.setdefault(level, []).append(spec.value)
    return sorted(values, key=lambda lvl: (sum(values[lvl]) / len(values[lvl]), lvl))


def _apportion(total: int, weights: dict[str, float], order: list[str]) -> dict[str, int]:
    """Split ``total`` by ``weights`` (largest remainder; ties go to the earlier key in ``order``)."""
    weights = {k: w for k, w in weights.items() if w > 0}
    if not weights or total <= 0:
        return {}
    s = sum(weights.values())
    raw = {k: total * w / s for k, w in weights.items()}
    out = {k: int(math.floor(v + 1e-9)) for k, v in raw.items()}
    left = total - sum(out.values())
    rank = sorted(weights, key=lambda k: (-round(raw[k] - out[k], 9), order.index(k)))
    for k in rank[:left]:
        out[k] += 1
    return {k: n for k, n in out.items() if n > 0}


def _check_request(difficulty_mix: dict[str, float], count: int) -> dict[str, float]:
    if not isinstance(count, int) or isinstance(count, bool) or not 1 <= count <= MAX_PLAN_ITEMS:
        raise AuthoringError(f"Ask for between 1 and {MAX_PLAN_ITEMS} items.")
    mix = {}
    for level, share in (difficulty_mix or {}).items():
        try:
            share = float(share)
        except (TypeError, ValueError):
            raise AuthoringError(f"The share for '{level}' must be a number, for example 30.") from None
        if share < 0 or not math.isfinite(share):
            raise AuthoringError(f"The share for '{level}' must be zero or more.")
        if share > 0:
            mix[level] = share
    if not mix:
        raise AuthoringError("Give at least one difficulty level a share above zero.")
    return mix


def _plan(library: Library, weights: dict[str, float], difficulty_mix: dict[str, float], count: int,
          seed: Any) -> list[PlanEntry]:
    mix = _check_request(difficulty_mix, count)
    order = list(mix)
    plan: list[PlanEntry] = []
    for level, level_count in _apportion(count, mix, order).items():
        candidates = {sid: w for sid, w in weights.items()
                      if level in library.skills[sid].model.generation.difficulty_levels}
        if not candidates:
            have = ", ".join(levels_for(library, weights)) or "none"
            raise AuthoringError(f"None of the chosen skills has a '{level}' level (they have: {have}); "
                                 f"set its share to 0.")
        tie_order = sorted(candidates)
        random.Random(f"plan|{seed}|{level}").shuffle(tie_order)
        for sid, n in sorted(_apportion(level_count, candidates, tie_order).items()):
            plan.append((sid, level, n))
    return sorted(plan, key=lambda e: (e[0], order.index(e[1])))


def _known_skills(library: Library, skill_ids: Iterable[str]) -> list[str]:
    ids = list(dict.fromkeys(skill_ids or []))
    if not ids:
        raise AuthoringError("Choose at least one skill.")
    for sid in ids:
        if sid not in library.generators:
            try:
                library.generator(sid)
            except LibraryError as exc:
                raise AuthoringError(f"{exc}.") from None
    return ids


def plan_for_skills(library: Library, skill_ids: Iterable[str], difficulty_mix: dict[str, float], count: int,
                    seed: Any = 1) -> list[PlanEntry]:
    """``count`` items in total, shared evenly across the skills and by ``difficulty_mix`` across levels."""
    ids = _known_skills(library, skill_ids)
    return _plan(library, {sid: 1.0 for sid in ids}, difficulty_mix, count, seed)


def plan_for_outcomes(library: Library, subject: str, level: str, outcome_ids: Iterable[str],
                      difficulty_mix: dict[str, float], count: int, seed: Any = 1) -> list[PlanEntry]:
    """``count`` items in total, shared evenly across the outcomes (then across each outcome's skills)
    and by ``difficulty_mix`` across levels."""
    chosen = list(dict.fromkeys(outcome_ids or []))
    if not chosen:
        raise AuthoringError("Choose at least one outcome.")
    known = {o["id"]: o for o in outcomes(library, subject, level)}
    weights: dict[str, float] = {}
    for oid in chosen:
        if oid not in known:
            raise AuthoringError(f"Outcome '{oid}' is not in the {subject} {level} course spec; choose one from the list.")
        skills = [s.skill_id for s in library.skills_for_outcome(subject, level, oid)]
        if not skills:
            raise AuthoringError(f"No skill blueprint covers outcome '{oid}' yet; remove it or write a blueprint for it.")
        for sid in skills:
            weights[sid] = weights.get(sid, 0.0) + 1.0 / len(skills)
    return _plan(library, weights, difficulty_mix, count, seed)


def _merged_plan(plan: Iterable[PlanEntry]) -> dict[tuple[str, str], int]:
    """(skill, level) -> items, entries for the same pair added up; AuthoringError when empty or too big."""
    merged: dict[tuple[str, str], int] = {}
    for skill_id, level, count in plan:
        if int(count) > 0:
            merged[(skill_id, level)] = merged.get((skill_id, level), 0) + int(count)
    total = sum(merged.values())
    if total == 0:
        raise AuthoringError("The plan holds no items; choose skills and a number of items above zero.")
    if total > MAX_PLAN_ITEMS:
        raise AuthoringError(f"The plan asks for {total} items; generate at most {MAX_PLAN_ITEMS} at a time.")
    return merged


def generate_drafts(library: Library, store: Store, plan: Iterable[PlanEntry], seed: Any,
                    progress: Progress = None) -> dict:
    """Generate a plan's items and store them as drafts for the review queue.

    The same plan and seed give the same items again (they are then counted
    as already stored rather than stored twice). Entries whose skill or level
    is unknown are skipped, entries that cannot be generated fail; both with
    the reason, and the rest of the plan still runs.
    """
    merged = _merged_plan(plan)
    total = sum(merged.values())
    result: dict[str, Any] = {"requested": total, "generated": 0, "stored": 0, "already_stored": 0, "repeats": 0,
                              "skipped": [], "failed": [], "entries": []}
    done = 0
    if progress:
        progress(0, total)
    for (skill_id, level), count in merged.items():
        entry = {"skill_id": skill_id, "level": level, "count": count}
        try:
            gen = library.generator(skill_id)
            if level not in gen.cs.levels:
                raise LibraryError(f"{skill_id} has no '{level}' level (it has: {', '.join(gen.cs.levels)})")
        except LibraryError as exc:
            result["skipped"].append({**entry, "reason": str(exc)})
        else:
            try:
                batch = gen.batch(level, count, str(seed))
            except GenerationError as exc:
                result["failed"].append({**entry, "reason": str(exc)})
            else:
                stored = repo.insert_items(store, batch.items, status="draft")
                result["generated"] += len(batch.items)
                result["stored"] += stored
                result["already_stored"] += len(batch.items) - stored
                result["repeats"] += batch.duplicates
                result["entries"].append({**entry, "stored": stored, "repeats": batch.duplicates})
        done += count
        if progress:
            progress(done, total)
    return result


def generate_llm_drafts(library: Library, store: Store, client: Any, plan: Iterable[PlanEntry], seed: Any,
                        progress: Progress = None) -> dict:
    """Have the LLM write a plan's multiple-choice items; core verifies each key before it is stored as a draft.

    Skills that are not multiple choice are skipped with the reason (their
    items come from the formula, which is always right). Every rejected item
    is reported with the check it failed; the rest of the plan still runs.
    """
    from core.items.llm_items import generate_llm_batch, store_llm_items
    merged = _merged_plan(plan)
    total = sum(merged.values())
    result: dict[str, Any] = {"requested": total, "verified": 0, "stored": 0, "skipped": [], "rejected": []}
    done = 0
    if progress:
        progress(0, total)
    for (skill_id, level), count in merged.items():
        entry = {"skill_id": skill_id, "level": level, "count": count}
        try:
            gen = library.generator(skill_id)
            if gen.bp.generation.item_type != "multiple_choice":
                raise GenerationError(f"LLM items are written only for multiple-choice skills; {skill_id} is "
                                      f"{gen.bp.generation.item_type}, so generate it by formula")
            before = done
            verified: list[dict] = []
            items, rejected = generate_llm_batch(
                client, gen, level, count, f"{seed}/{skill_id}/{level}", verified=verified,
                progress=(lambda d, _t, b=before: progress(b + d, total)) if progress else None)
        except (LibraryError, GenerationError) as exc:
            result["skipped"].append({**entry, "reason": str(exc)})
        else:
            repo.sync_blueprints(store, [library.skills[skill_id]])
            result["verified"] += len(items)
            result["stored"] += store_llm_items(store, items, verified)
            result["rejected"] += [{**entry, "seed": r["seed"], "reason": r["reason"]} for r in rejected]
        done += count
        if progress:
            progress(done, total)
    return result
