"""The blueprint library: every skill, assessment and course spec, validated.

Validation runs in three passes and reports every problem with file, line and
field path:
1. each file on its own (YAML, schema, formulas, templates);
2. each skill level is exercised: parameters are drawn, items are built, so
   constraints that cannot be met and options that cannot be filled are found
   now rather than in front of a student; within a time budget per level and
   per file, so a blueprint whose constraints are slow or rarely met is
   reported instead of holding validation for minutes;
3. cross-references: assessments name existing skills and levels, course
   specs and skills agree on outcomes.
"""
from __future__ import annotations

import dataclasses
import difflib
import os
import re
import time
from pathlib import Path
from typing import Any, Iterable, Optional, Union

from core.blueprints.compiler import compile_skill
from core.blueprints.failures import explain
from core.blueprints.formula import TimeBudgetExceeded, time_budget
from core.blueprints.loader import BlueprintError, Issue, LoadedBlueprint, parse_text, read_text, yaml_files
from core.blueprints.models import AssessmentBlueprint, CourseSpec, SkillBlueprint
from core.items.generator import SkillGenerator
from core.items.sampler import GenerationError

PROJECT_ROOT = Path(__file__).resolve().parents[2]
FEASIBILITY_SEEDS = 8
MARKING_CHECKS = 2      # items per level whose key is marked and units checked
SURVEY_FOLDER = "surveys"
FEW_VARIANTS = 10
LEVEL_BUDGET_S = 5.0    # exercising one difficulty level (the shipped library's slowest takes under 1 s)
FILE_BUDGET_S = 10.0    # compiling one file and exercising all its levels


# Course levels in teaching order (SQA, after the primary fundamentals); a level not listed sorts after these.
LEVEL_ORDER = ("Fundamentals", "Nat 3", "Nat 4", "Nat 5", "Higher", "Advanced Higher")


def _level_key(level: str) -> int:
    return LEVEL_ORDER.index(level) if level in LEVEL_ORDER else len(LEVEL_ORDER)


def _fills_exactly(total: int, marks: list[int], cap: int) -> bool:
    """Whether up to ``cap`` questions of each skill (worth ``marks``) can add up to exactly ``total``."""
    full = (1 << (total + 1)) - 1
    reach = 1
    for m in marks:
        step, grown = reach, reach
        for _ in range(cap):
            step = (step << m) & full
            grown |= step
        reach = grown
    return bool(reach >> total & 1)


def default_blueprints_dir() -> Path:
    return Path(os.environ.get("WORKBENCH_BLUEPRINTS", PROJECT_ROOT / "blueprints"))


# A process often loads the same unchanged files again (each database the app, a notebook or the command line
# opens; a file checked against the shipped library): a file's parse and a skill's compilation depend on its text
# alone, so they are kept by (file, text) and reused. Exercising levels, and each library's generators with their
# samplers, are made afresh every time.
_KEEP_AT_MOST = 4000
_parsed: dict[tuple[str, str], LoadedBlueprint] = {}   # (file, text): the file parsed
_compiled: dict[tuple[str, str], Any] = {}             # (file, text): its CompiledSkill


def _parse(path: Union[str, Path]) -> LoadedBlueprint:
    text = read_text(Path(path))
    key = (str(path), text)
    loaded = _parsed.get(key)
    if loaded is None:
        loaded = parse_text(text, str(path))     # a file that cannot be parsed raises, and is not kept
        if len(_parsed) >= _KEEP_AT_MOST:
            _parsed.clear()
            _compiled.clear()
        _parsed[key] = loaded
    return loaded


def _compile(loaded: LoadedBlueprint) -> Any:
    key = (loaded.file, loaded.text)
    kept = _parsed.get(key) is loaded       # only a skill read from a file by _parse is kept
    if kept and key in _compiled:
        return _compiled[key]
    compiled = compile_skill(loaded.model, loaded)   # refused (or out of time): raises, and is not kept
    if kept:
        _compiled[key] = compiled
    return compiled


class LibraryError(KeyError):
    """A blueprint id was asked for that the library does not hold."""

    def __str__(self) -> str:
        return str(self.args[0])


def check_skill(loaded: LoadedBlueprint, exercise: bool = True) -> tuple[Optional[SkillGenerator], list[Issue]]:
    """Compile a skill blueprint and (with ``exercise``) generate from every difficulty level.

    Compiling and exercising share one time budget, ``FILE_BUDGET_S``; each level has ``LEVEL_BUDGET_S``.
    """
    file_deadline = time.perf_counter() + FILE_BUDGET_S
    with time_budget(FILE_BUDGET_S):
        return _check_skill(loaded, exercise, file_deadline)


def _check_skill(loaded: LoadedBlueprint, exercise: bool, file_deadline: float
                 ) -> tuple[Optional[SkillGenerator], list[Issue]]:
    try:
        compiled = _compile(loaded)
    except BlueprintError as exc:
        return None, exc.issues
    gen = SkillGenerator(compiled)
    issues: list[Issue] = []
    if not exercise:
        return gen, issues
    bp: SkillBlueprint = loaded.model
    levels = list(bp.generation.difficulty_levels.items())
    for k, (level, spec) in enumerate(levels):
        if time.perf_counter() > file_deadline:
            rest = ", ".join(name for name, _ in levels[k:])
            issues.append(loaded.issue(["generation", "difficulty_levels", level],
                                       f"{'levels' if len(levels) - k > 1 else 'level'} {rest}: not checked, the "
                                       f"time allowed for this file ({FILE_BUDGET_S:g} s) was used up before them; "
                                       f"make the formulas quicker to evaluate"))
            break
        issues.extend(_exercise_level(loaded, gen, level, spec))
    return gen, issues


def _exercise_level(loaded: LoadedBlueprint, gen: SkillGenerator, level: str, spec: Any) -> list[Issue]:
    """Generate a few items of one level, within the level's time budget, and report what goes wrong."""
    try:
        with time_budget(LEVEL_BUDGET_S):
            items = [gen.generate(level, f"validate/{i}") for i in range(FEASIBILITY_SEEDS)]
            issues = _marking_issues(loaded, level, items)
            distinct = gen.sampler(level).known_count()
    except TimeBudgetExceeded as exc:
        return [loaded.issue(["generation", "difficulty_levels", level],
                             f"level {level}: checking its items took longer than the time allowed "
                             f"({exc.seconds:g} s)")]
    except (ArithmeticError, TypeError, KeyError, IndexError, RecursionError) as exc:
        # Values no formula check foresaw: the blueprint is refused with what went wrong, not a crash.
        return [loaded.issue(["generation", "difficulty_levels", level],
                             f"level {level}: its items cannot be built ({type(exc).__name__}: {exc})")]
    except GenerationError as exc:
        message = str(exc)
        explained = explain(message, level, loaded.model)
        if explained is not None:
            return [loaded.issue(*explained)]
        computed = re.search(r": computed value '(\w+)' failed for ", message)
        if "marking_criteria" in message:
            where = ["evaluation", "marking_criteria"]
        elif computed:
            where = ["generation", "computed_values", computed.group(1)]
        elif re.search(r"(^|: )answer_formula (failed for|gave) ", message):
            where = ["generation", "answer_formula"]
        elif "distractor" in message:
            where = ["presentation", "distractor_strategies"]
        elif "constraints" in message and spec.constraints:
            where = ["generation", "difficulty_levels", level, "constraints"]
        else:
            where = ["generation", "difficulty_levels", level]
        return [loaded.issue(where, message)]
    if distinct is not None and distinct < FEW_VARIANTS:
        issues.append(loaded.issue(["generation", "difficulty_levels", level],
                                   f"this level can produce only {distinct} distinct item(s); "
                                   f"students will see repeats", "warning"))
    return issues


_UNITS_ASKED = re.compile(r"\b(?:state|give|include|with|write)\b[^.?!]{0,40}\bunits?\b", re.I)


def _marking_issues(loaded: LoadedBlueprint, level: str, items: list) -> list[Issue]:
    """What marking would get wrong about this level's items: a key the marker cannot read or does
    not accept, and a stem that asks for units when the item has none (a bare number would get
    full marks)."""
    from core.marking import item_key_problem
    from core.marking.units import physical
    found: list[Issue] = []
    for item in items[:MARKING_CHECKS]:
        problem = item_key_problem(item, loaded.model)
        if problem:
            found.append(loaded.issue(["generation", "answer_formula"],
                                      f"level {level}, parameters {item.generation_params}: {problem}"))
            break
        method = (item.evaluation or {}).get("method")
        if method == "numeric_tolerance" and _UNITS_ASKED.search(item.stem or "") and not physical(item.units):
            found.append(loaded.issue(["presentation"],
                                      f"level {level}: the question asks for units (\"{_UNITS_ASKED.search(item.stem).group()}\") "
                                      f"but the item has none, so a bare number would get full marks; "
                                      f"add units (for example units: \"cm^2\")"))
            break
    return found


@dataclasses.dataclass
class ValidationReport:
    files: dict[str, list[Issue]]

    @property
    def ok(self) -> bool:
        return not any(i.severity == "error" for issues in self.files.values() for i in issues)

    def errors(self) -> list[Issue]:
        return [i for issues in self.files.values() for i in issues if i.severity == "error"]

    def as_dict(self) -> dict:
        return {"ok": self.ok, "files": {f: {"ok": not any(i.severity == "error" for i in issues),
                                            "issues": [i.as_dict() for i in issues]}
                                        for f, issues in self.files.items()}}


class Library:
    """All blueprints under a folder, loaded and validated once."""

    def __init__(self, exercise: bool = True) -> None:
        self.exercise = exercise
        self.skills: dict[str, LoadedBlueprint] = {}
        self.generators: dict[str, SkillGenerator] = {}
        self.assessments: dict[str, LoadedBlueprint] = {}
        self.specs: dict[str, LoadedBlueprint] = {}
        self.report = ValidationReport(files={})

    # ------------------------------------------------------------------
    @classmethod
    def load(cls, paths: Union[str, Path, Iterable[Union[str, Path]], None] = None,
             context: Optional["Library"] = None, exercise: bool = True) -> "Library":
        """Load files or folders (default: the shipped library).

        ``context`` lends skills and specs for cross-references (validating one
        assessment file against the shipped skills); files given here win.
        With ``exercise`` false, skills are compiled but not generated from,
        which is much faster; generation errors then surface on first use.
        """
        if paths is None:
            paths = [default_blueprints_dir()]
        elif isinstance(paths, (str, Path)):
            paths = [paths]
        lib = cls(exercise)
        # Survey definitions live beside the blueprints but are read by the survey flow.
        files = [f for f in yaml_files(paths) if SURVEY_FOLDER not in f.parts]
        for path in files:
            lib.add_file(path)
        lib._cross_check(context)
        return lib

    def add_file(self, path: Union[str, Path]) -> None:
        file = str(path)
        issues = self.report.files.setdefault(file, [])
        try:
            loaded = _parse(path)
        except BlueprintError as exc:
            issues.extend(exc.issues)
            return
        self.add_loaded(loaded, issues)

    def add_loaded(self, loaded: LoadedBlueprint, issues: Optional[list[Issue]] = None) -> None:
        if issues is None:
            issues = self.report.files.setdefault(loaded.file, [])
        table = {"skill": self.skills, "assessment": self.assessments, "spec": self.specs}[loaded.kind]
        if loaded.id in table and table[loaded.id].file != loaded.file:
            issues.append(loaded.issue([f"{loaded.kind}_id" if loaded.kind != "spec" else "spec_id"],
                                       f"id '{loaded.id}' is already used by {table[loaded.id].file}"))
            return
        if loaded.kind == "skill":
            gen, found = check_skill(loaded, self.exercise)
            issues.extend(found)
            if gen is None or any(i.severity == "error" for i in found):
                return
            self.generators[loaded.id] = gen
        table[loaded.id] = loaded

    # ------------------------------------------------------------------
    def _cross_check(self, context: Optional["Library"]) -> None:
        skills = dict(context.skills) if context else {}
        skills.update(self.skills)
        specs = dict(context.specs) if context else {}
        specs.update(self.specs)
        spec_by_course = {(s.model.subject, s.model.level): s for s in specs.values()}

        for loaded in self.assessments.values():
            issues = self.report.files.setdefault(loaded.file, [])
            bp: AssessmentBlueprint = loaded.model
            for i, section in enumerate(bp.sections):
                level_ok = {lvl: False for lvl, n in section.difficulty_distribution.items() if n > 0}
                for j, ws in enumerate(section.skill_blueprints):
                    path = ["sections", i, "skill_blueprints", j, "skill_id"]
                    skill = skills.get(ws.skill_id)
                    if skill is None:
                        close = difflib.get_close_matches(ws.skill_id, list(skills), n=1)
                        hint = f" (did you mean '{close[0]}'?)" if close else ""
                        issues.append(loaded.issue(path, f"no skill blueprint '{ws.skill_id}' in the library{hint}"))
                        continue
                    levels = skill.model.generation.difficulty_levels
                    for lvl in level_ok:
                        if lvl in levels:
                            level_ok[lvl] = True
                for lvl, ok in level_ok.items():
                    known = all(ws.skill_id in skills for ws in section.skill_blueprints)
                    if not ok and known:
                        issues.append(loaded.issue(["sections", i, "difficulty_distribution", lvl],
                                                   f"no skill in section '{section.section_id}' has a '{lvl}' level"))
            if bp.metadata.subject and bp.metadata.level and (bp.metadata.subject, bp.metadata.level) not in spec_by_course:
                issues.append(loaded.issue(["metadata", "level"], f"no course spec for {bp.metadata.subject} {bp.metadata.level}", "warning"))

        for loaded in self.skills.values():
            meta = loaded.model.metadata
            if not meta.outcome_ids:
                continue
            issues = self.report.files.setdefault(loaded.file, [])
            spec = spec_by_course.get((meta.subject, meta.level))
            if spec is None:
                issues.append(loaded.issue(["metadata", "level"],
                                           f"no course spec for {meta.subject} {meta.level}; its outcomes cannot be checked", "warning"))
                continue
            known = {o.id for o in spec.model.outcomes}
            for k, oid in enumerate(meta.outcome_ids):
                if oid not in known:
                    issues.append(loaded.issue(["metadata", "outcome_ids", k],
                                               f"outcome '{oid}' is not in course spec {spec.id} ({spec.file}); known: {', '.join(sorted(known))}"))

        for loaded in self.specs.values():
            issues = self.report.files.setdefault(loaded.file, [])
            spec: CourseSpec = loaded.model
            tagged = [s for s in skills.values()
                      if s.model.metadata.subject == spec.subject and s.model.metadata.level == spec.level]
            for k, outcome in enumerate(spec.outcomes):
                covering = [s for s in tagged if outcome.id in s.model.metadata.outcome_ids]
                if not covering:
                    issues.append(loaded.issue(["outcomes", k, "id"],
                                               f"no skill blueprint covers outcome '{outcome.id}' yet; practice on it will "
                                               f"need the local bank or an LLM", "warning"))
            structures = [(["assessment_structure"], spec.assessment_structure)]
            structures += [(["formats", name, "assessment_structure"], fmt.assessment_structure)
                           for name, fmt in spec.formats.items()]
            for where, structure in structures:
                for k, section in enumerate(structure):
                    if section.calculator_allowed:
                        continue
                    for oid in section.outcome_ids:
                        usable = [s for s in tagged if oid in s.model.metadata.outcome_ids
                                  and s.model.metadata.calculator != "required"]
                        covering = [s for s in tagged if oid in s.model.metadata.outcome_ids]
                        if covering and not usable:
                            issues.append(loaded.issue([*where, k, "outcome_ids"],
                                                       f"'{section.section}' is non-calculator but every blueprint for "
                                                       f"outcome '{oid}' needs a calculator", "warning"))
                for k, section in enumerate(structure):
                    fmt = spec.formats.get(where[1]) if where[0] == "formats" else None
                    cap = spec.topic_cap(section, fmt)
                    marks = [s.model.evaluation.total_marks() for s in tagged
                             if set(section.outcome_ids) & set(s.model.metadata.outcome_ids)
                             and (section.calculator_allowed or s.model.metadata.calculator != "required")
                             and section.takes(s.model.generation.item_type)]
                    if marks and not _fills_exactly(section.marks, marks, cap):
                        issues.append(loaded.issue([*where, k, "marks"],
                                                   f"no choice of the skill blueprints for '{section.section}' (worth "
                                                   f"{', '.join(map(str, sorted(set(marks))))} marks, at most {cap} a "
                                                   f"skill) adds up to exactly {section.marks} marks; an exam will need "
                                                   f"bank questions to fill it (add a skill blueprint with other marks, "
                                                   f"or raise max_per_topic)", "warning"))

    # ------------------------------------------------------------------
    def generator(self, skill_id: str) -> SkillGenerator:
        try:
            return self.generators[skill_id]
        except KeyError:
            close = difflib.get_close_matches(skill_id, list(self.generators), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else "; `python -m core list` shows the skills"
            raise LibraryError(f"no skill blueprint '{skill_id}' in the library{hint}") from None

    def courses(self) -> list[dict]:
        """Every course with a spec (subject, level, title, spec_id), by subject, then level from Nat 3 up."""
        rows = [{"subject": lb.model.subject, "level": lb.model.level,
                 "title": lb.model.title or f"{lb.model.subject} {lb.model.level}", "spec_id": lb.id}
                for lb in self.specs.values()]
        return sorted(rows, key=lambda c: (c["subject"], _level_key(c["level"]), c["level"]))

    def spec(self, subject: str, level: str) -> CourseSpec:
        for loaded in self.specs.values():
            if loaded.model.subject.lower() == subject.lower() and loaded.model.level.lower() == level.lower():
                return loaded.model
        courses = ", ".join(sorted(f"{s.model.subject} {s.model.level}" for s in self.specs.values()))
        raise LibraryError(f"no course spec for {subject} {level}; available: {courses or 'none'}")

    def skills_for_outcome(self, subject: str, level: str, outcome_id: str) -> list[SkillBlueprint]:
        out = []
        for sid in sorted(self.generators):
            meta = self.skills[sid].model.metadata
            if (meta.subject or "").lower() == subject.lower() and (meta.level or "").lower() == level.lower() \
                    and outcome_id in meta.outcome_ids:
                out.append(self.skills[sid].model)
        return out

    def assessment(self, assessment_id: str) -> AssessmentBlueprint:
        try:
            return self.assessments[assessment_id].model
        except KeyError:
            raise LibraryError(f"no assessment blueprint '{assessment_id}' in the library") from None

    def all_loaded(self) -> list[LoadedBlueprint]:
        return [*self.skills.values(), *self.assessments.values(), *self.specs.values()]
