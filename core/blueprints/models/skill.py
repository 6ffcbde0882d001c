"""A skill blueprint: how to generate one skill's items and how to mark them."""
from __future__ import annotations

import math
import re
from typing import Annotated, Any, Literal, Optional, Union

from pydantic import Field, field_validator, model_validator

from core.blueprints.formula.bounds import check_nested
from core.blueprints.formula.errors import FormulaError
from core.blueprints.models.base import (ItemType, AnswerType, EvaluationMethod, CognitiveLevel, Calculator, Scalar,
                                         SKILL_ID_PATTERN, MAX_DOMAIN, MAX_TOTAL_VALUES, MAX_LISTED, MAX_TEXT_VALUE,
                                         MAX_PARAMETERS, MAX_TABLES, MAX_TABLE_ENTRIES, MAX_COMPUTED, MAX_LEVELS,
                                         MAX_CONSTRAINTS, MAX_STRATEGIES, MAX_TEMPLATES, MAX_HINTS, MAX_TEMPLATE_CHARS,
                                         MAX_CRITERIA, MAX_ANSWERS, MAX_KEYWORDS, MAX_TAGS, Strict, fail, _version_text)

Template = Annotated[str, Field(max_length=MAX_TEMPLATE_CHARS)]


class ParameterSpec(Strict):
    type: Literal["integer", "decimal", "choice"]
    min: Optional[float] = None
    max: Optional[float] = None
    step: Optional[float] = None
    exclude: list[Scalar] = Field(default_factory=list, max_length=MAX_LISTED)
    values: list[Scalar] = Field(default_factory=list, max_length=MAX_LISTED)
    description: Optional[str] = None

    @model_validator(mode="after")
    def _check(self) -> "ParameterSpec":
        for name in ("min", "max", "step"):
            v = getattr(self, name)
            if v is not None and not math.isfinite(v):
                fail(name, f"must be a finite number, got {v}")
        for name in ("values", "exclude"):
            for i, v in enumerate(getattr(self, name)):
                if isinstance(v, str) and len(v) > MAX_TEXT_VALUE:
                    fail(f"{name}.{i}", f"text of {len(v):,} characters; at most {MAX_TEXT_VALUE:,} are allowed")
                if isinstance(v, float) and not math.isfinite(v):
                    fail(f"{name}.{i}", f"must be a finite number, got {v}")
        if self.type == "choice":
            if not self.values:
                raise ValueError("a choice parameter needs a non-empty 'values' list")
            if len(set(map(repr, self.values))) != len(self.values):
                raise ValueError("'values' of a choice parameter must be distinct")
            if self.min is not None or self.max is not None or self.step is not None:
                raise ValueError("a choice parameter takes 'values', not min/max/step")
        else:
            if self.min is None or self.max is None:
                raise ValueError(f"an {self.type} parameter needs both 'min' and 'max'")
            if self.min > self.max:
                raise ValueError(f"'min' ({self.min}) is greater than 'max' ({self.max})")
            if self.values:
                raise ValueError(f"an {self.type} parameter takes min/max/step, not 'values'")
            if self.type == "integer":
                for name in ("min", "max", "step"):
                    v = getattr(self, name)
                    if v is not None and not float(v).is_integer():
                        raise ValueError(f"'{name}' of an integer parameter must be a whole number, got {v}")
                if self.step is not None and self.step < 1:
                    raise ValueError("'step' of an integer parameter must be at least 1")
            else:
                if self.step is None or self.step <= 0:
                    raise ValueError("a decimal parameter needs a positive 'step' (for example 0.1)")
            if self.raw_count() > MAX_DOMAIN:
                count = self.raw_count()
                raise ValueError(f"range holds {'more than 10^15' if count >= 10**15 else f'{count:,}'} values; "
                                 f"at most {MAX_DOMAIN:,} are allowed")
            if not self.domain():
                raise ValueError("every value in the range is excluded")
        return self

    def decimals(self) -> int:
        if self.type != "decimal":
            return 0
        text = f"{self.step:.10f}".rstrip("0")
        return len(text.split(".")[1]) if "." in text else 0

    def raw_count(self) -> int:
        if self.type == "choice":
            return len(self.values)
        step = self.step or 1
        span = (self.max - self.min) / step
        if not math.isfinite(span) or span > 1e15:     # a range no one could list; counted as just too many
            return 10**15
        return int(math.floor(span + 1e-9)) + 1

    def domain(self) -> list[Scalar]:
        """Every value the parameter may take, in order (exclusions removed)."""
        if self.type == "choice":
            values = list(self.values)
        elif self.type == "integer":
            values = list(range(int(self.min), int(self.max) + 1, int(self.step or 1)))
        else:
            d = self.decimals()
            values = [round(self.min + i * self.step, d) for i in range(self.raw_count())]
        if self.exclude:
            excluded = set(self.exclude)
            values = [v for v in values if v not in excluded]
        return values


class DifficultyLevel(Strict):
    value: float = Field(ge=0.0, le=1.0)
    constraints: list[str] = Field(default_factory=list, max_length=MAX_CONSTRAINTS)
    description: Optional[str] = None


class DifficultyAdjustment(Strict):
    condition: str
    delta: float = Field(ge=-1.0, le=1.0)
    description: Optional[str] = None


class Generation(Strict):
    item_type: ItemType
    parameters: dict[str, ParameterSpec] = Field(default_factory=dict, max_length=MAX_PARAMETERS)
    tables: dict[str, Union[dict[Scalar, Any], list[Any]]] = Field(default_factory=dict, max_length=MAX_TABLES)
    computed_values: dict[str, str] = Field(default_factory=dict, max_length=MAX_COMPUTED)
    answer_formula: str
    answer_type: AnswerType
    answer_decimals: Optional[int] = Field(default=None, ge=0, le=10)
    difficulty_levels: dict[str, DifficultyLevel] = Field(min_length=1, max_length=MAX_LEVELS)
    difficulty_adjustments: list[DifficultyAdjustment] = Field(default_factory=list, max_length=MAX_STRATEGIES)

    @field_validator("parameters", "computed_values", "tables", "difficulty_levels")
    @classmethod
    def _identifier_keys(cls, value: dict) -> dict:
        for key in value:
            if not isinstance(key, str) or not key.isidentifier() or key.startswith("_"):
                raise ValueError(f"name {str(key)[:40]!r} must be a plain identifier (letters, digits, '_'; "
                                 f"not starting with '_' or a digit)")
        return value

    @field_validator("tables")
    @classmethod
    def _table_sizes(cls, value: dict) -> dict:
        for name, table in value.items():
            if len(table) > MAX_TABLE_ENTRIES:
                fail(name, f"table of {len(table):,} entries; at most {MAX_TABLE_ENTRIES:,} are allowed")
            try:
                check_nested(table)
            except FormulaError as exc:
                fail(name, f"table too large for formulas: {exc.message}")
        return value

    @model_validator(mode="after")
    def _parameter_space(self) -> "Generation":
        total = sum(spec.raw_count() for spec in self.parameters.values())
        if total > MAX_TOTAL_VALUES:
            fail("parameters", f"the parameters take {total:,} values between them; at most {MAX_TOTAL_VALUES:,} "
                               f"are allowed (use fewer values or a larger step)")
        return self


class DistractorStrategy(Strict):
    type: str
    description: Optional[str] = None           # the mistake, as a teacher names it
    # What a student who made this mistake needs to know, in a sentence they can read (remediation's key concept).
    explanation: Optional[str] = Field(default=None, max_length=MAX_TEMPLATE_CHARS)
    formula: str
    condition: Optional[str] = None
    gap_tag: Optional[str] = None


class Presentation(Strict):
    stem_templates: list[Template] = Field(min_length=1, max_length=MAX_TEMPLATES)
    option_count: Optional[int] = Field(default=None, ge=2, le=8)
    distractor_strategies: list[DistractorStrategy] = Field(default_factory=list, max_length=MAX_STRATEGIES)
    distractor_validation: list[str] = Field(default_factory=list, max_length=MAX_STRATEGIES)
    explanation_template: Optional[Template] = None
    hint_templates: list[Template] = Field(default_factory=list, max_length=MAX_HINTS)
    units: Optional[str] = Field(default=None, max_length=200)
    # Seconds a student has for one item in practice and lessons (None: no limit).
    time_limit_seconds: Optional[int] = Field(default=None, ge=5, le=3600)

    @field_validator("stem_templates")
    @classmethod
    def _non_empty(cls, value: list[str]) -> list[str]:
        for i, t in enumerate(value):
            if not t.strip():
                raise ValueError(f"stem template {i} is empty")
        return value


class Tolerance(Strict):
    relative: Optional[float] = Field(default=None, gt=0, lt=1)
    absolute: Optional[float] = Field(default=None, gt=0, allow_inf_nan=False)

    @model_validator(mode="after")
    def _one(self) -> "Tolerance":
        if self.relative is None and self.absolute is None:
            raise ValueError("give a 'relative' (for example 0.02) or an 'absolute' tolerance")
        return self


StepMethod = Literal["numeric_tolerance", "exact_match", "algebraic_equivalence"]
# Methods whose final answer a student types, so the question can ask for its steps too.
STEPPED_METHODS = ("numeric_tolerance", "exact_match", "algebraic_equivalence")


class MarkingCriterion(Strict):
    """One step of the marking scheme.

    With ``answer`` (a formula over the parameters and computed values) the
    step has its own key and the student gets an answer box for it; ``name``
    lets later steps' ``follow_through`` formulas use the student's own value
    for this step, so a later step that follows correctly from an earlier
    wrong value still earns its mark.
    """

    step: str
    marks: int = Field(ge=1, le=20)
    gap_tag: Optional[str] = None
    description: Optional[str] = None
    answer: Optional[str] = None
    name: Optional[str] = None
    follow_through: Optional[str] = None
    method: Optional[StepMethod] = None
    tolerance: Optional[Tolerance] = None

    @field_validator("name")
    @classmethod
    def _identifier(cls, value: Optional[str]) -> Optional[str]:
        if value is not None and (not value.isidentifier() or value.startswith("_")):
            raise ValueError(f"name {value!r} must be a plain identifier (letters, digits, '_'; "
                             f"not starting with '_' or a digit)")
        return value

    @model_validator(mode="after")
    def _needs_answer(self) -> "MarkingCriterion":
        if self.answer is None:
            for field in ("follow_through", "method", "tolerance"):
                if getattr(self, field) is not None:
                    fail(field, "applies only to a step with its own 'answer'")
        if self.tolerance is not None and self.method not in (None, "numeric_tolerance"):
            fail("tolerance", "applies only to the numeric_tolerance method")
        return self


class Evaluation(Strict):
    method: EvaluationMethod
    tolerance: Optional[Tolerance] = None
    # 3 (exactly), [4, 3] (written to 4, right to 3), [3, -1] or "at least 3", "2-4" (a range)
    significant_figures: Optional[Union[int, list[int], str]] = None
    decimal_places: Optional[int] = Field(default=None, ge=0, le=10)
    required_form: Literal["any", "simplified", "factorised", "expanded", "fraction", "decimal"] = "any"
    # names an answer may use beyond the key's
    variables: list[str] = Field(default_factory=list, max_length=MAX_ANSWERS)
    assume_positive: bool = False                            # sqrt(x^2) = x only when this is declared
    units_exact: bool = False                                # the answer must use the item's exact units
    accepted_answers: list[str] = Field(default_factory=list, max_length=MAX_ANSWERS)
    keywords: list[str] = Field(default_factory=list, max_length=MAX_KEYWORDS)
    min_keywords: Optional[int] = Field(default=None, ge=1)
    partial_credit: bool = False
    marks: Optional[int] = Field(default=None, ge=1, le=50)
    marking_criteria: list[MarkingCriterion] = Field(default_factory=list, max_length=MAX_CRITERIA)

    @model_validator(mode="after")
    def _check(self) -> "Evaluation":
        if self.marks is not None and self.marking_criteria:
            total = sum(c.marks for c in self.marking_criteria)
            if total != self.marks:
                fail("marks", f"is {self.marks} but the marking criteria add up to {total}")
        if self.tolerance is not None and self.method != "numeric_tolerance":
            fail("tolerance", "applies only to the numeric_tolerance method")
        if self.min_keywords is not None and self.min_keywords > len(self.keywords):
            fail("min_keywords", f"is {self.min_keywords} but only {len(self.keywords)} keywords are listed")
        self._check_steps()
        return self

    def _check_steps(self) -> None:
        """Step answers: unique names, and follow-through only where a number can be recomputed."""
        names: dict[str, int] = {}
        for i, c in enumerate(self.marking_criteria):
            where = f"marking_criteria.{i}"
            if c.name is not None:
                if c.name in names:
                    fail(f"{where}.name", f"'{c.name}' is already the name of step {names[c.name] + 1}")
                names[c.name] = i
            if c.answer is None:
                continue
            if self.method not in STEPPED_METHODS:
                fail(f"{where}.answer", f"step answers need a typed final answer; the '{self.method}' method "
                                        f"cannot ask for steps")
            method = c.method or self.method
            if c.tolerance is not None and method != "numeric_tolerance":
                fail(f"{where}.tolerance", "applies only to the numeric_tolerance method")
            if c.follow_through is not None and method != "numeric_tolerance":
                fail(f"{where}.follow_through", "recomputes a number, so the step needs the numeric_tolerance "
                                                "method (set 'method' on the step)")

    def step_indexes(self) -> list[int]:
        """The criteria with their own answer, in order (the answer boxes; the last is the final answer)."""
        return [i for i, c in enumerate(self.marking_criteria) if c.answer is not None]

    @field_validator("significant_figures")
    @classmethod
    def _figures(cls, value):
        from core.marking.precision import sig_fig_rule
        sig_fig_rule(value)      # raises ValueError naming what is wrong
        return value

    def total_marks(self) -> int:
        if self.marks is not None:
            return self.marks
        if self.marking_criteria:
            return sum(c.marks for c in self.marking_criteria)
        return 1


class Benchmark(Strict):
    expected_accuracy: float = Field(ge=0, le=1)
    expected_time_seconds: float = Field(gt=0, le=86_400)


class SkillMetadata(Strict):
    domain: str
    subdomain: Optional[str] = None
    topic: Optional[str] = None
    skill_statement: str
    cognitive_level: CognitiveLevel = "Apply"
    subject: Optional[str] = None
    level: Optional[str] = None
    outcome_ids: list[str] = Field(default_factory=list, max_length=MAX_TAGS)
    calculator: Calculator = "optional"
    tags: list[str] = Field(default_factory=list, max_length=MAX_TAGS)

    @model_validator(mode="after")
    def _course(self) -> "SkillMetadata":
        if self.outcome_ids and not (self.subject and self.level):
            fail("subject" if not self.subject else "level", "a blueprint tagged with outcome_ids needs 'subject' and 'level' too")
        return self


MAX_DIAGRAMS = 20                # diagram variants of one skill (each for some of its items)


class DiagramSide(Strict):
    """A side of a drawn triangle: its label (a template such as "{a} cm", or "x") and, for the shape, its
    length (a formula; without one, the label's first value when it is a number)."""

    label: Optional[Template] = None
    length: Optional[str] = None


class DiagramAngle(Strict):
    """An angle of a drawn triangle: its label ("{angle_b}°", "x°"), its size in degrees for the shape
    (a formula; without one, the label's first value when it is a number), or a right angle."""

    label: Optional[Template] = None
    size: Optional[str] = None
    right: bool = False


def _labelled(value: Any) -> Any:
    return {"label": value} if isinstance(value, str) else value


class Diagram(Strict):
    """A diagram printed with the question: a triangle whose vertices, sides and angles are named.

    ``when`` (a formula) says which items it is for, so a skill can draw
    differently by kind of question; the first diagram whose ``when`` holds is
    drawn, and an item none fits has no diagram. Sides are named by their two
    vertices ("BC"), angles by their vertex ("A"); a bare text is a label.
    """

    kind: Literal["triangle"] = "triangle"
    when: Optional[str] = None
    vertices: list[str] = Field(min_length=3, max_length=3)
    sides: dict[str, DiagramSide] = Field(default_factory=dict, max_length=3)
    angles: dict[str, DiagramAngle] = Field(default_factory=dict, max_length=3)

    @field_validator("sides", "angles", mode="before")
    @classmethod
    def _bare_labels(cls, value: Any) -> Any:
        return {k: _labelled(v) for k, v in value.items()} if isinstance(value, dict) else value

    @model_validator(mode="after")
    def _names(self) -> "Diagram":
        for i, v in enumerate(self.vertices):
            if len(v) != 1 or not v.isalpha():
                fail(f"vertices.{i}", f"a vertex is named by one letter, not {v!r}")
        if len(set(self.vertices)) != 3:
            fail("vertices", "the three vertices need different letters")
        names = set(self.vertices)
        seen: set[frozenset] = set()
        for key in self.sides:
            pair = frozenset(key)
            if len(key) != 2 or len(pair) != 2 or not pair <= names:
                fail(f"sides.{key}", f"a side is named by two of the vertices {''.join(self.vertices)}, such as "
                                     f"'{self.vertices[1]}{self.vertices[2]}'")
            if pair in seen:
                fail(f"sides.{key}", "this side is listed twice")
            seen.add(pair)
        for key, angle in self.angles.items():
            if key not in names:
                fail(f"angles.{key}", f"an angle is named by its vertex, one of {', '.join(self.vertices)}")
            if angle.right and angle.size is not None:
                fail(f"angles.{key}.size", "a right angle is 90°; give 'size' or 'right', not both")
        if sum(a.right for a in self.angles.values()) > 1:
            fail("angles", "a triangle has at most one right angle")
        return self


class Teaching(Strict):
    """What a lesson teaches before its question, and the idea remediation names, in a student's words.

    ``text`` is the card's teaching (a few sentences: the idea and the method; $...$ for maths);
    ``key_concept`` is the one sentence a student who got it wrong needs (default: the first
    sentence of ``text``).
    """

    text: str = Field(min_length=1, max_length=MAX_TEMPLATE_CHARS)
    key_concept: Optional[str] = Field(default=None, min_length=1, max_length=1_000)

    @property
    def concept(self) -> str:
        return self.key_concept.strip() if self.key_concept else first_sentence(self.text)


def first_sentence(text: str) -> str:
    """The first sentence of a teaching text (a full stop inside $...$ maths or a number does not end it)."""
    return re.split(r"(?<=[.!?])\s+(?=[A-Z$(])", text.strip(), maxsplit=1)[0].strip()


class SkillBlueprint(Strict):
    skill_id: str = Field(pattern=SKILL_ID_PATTERN)
    version: str
    metadata: SkillMetadata
    generation: Generation
    presentation: Presentation
    evaluation: Evaluation
    performance_benchmarks: dict[str, Benchmark] = Field(default_factory=dict, max_length=MAX_TAGS)
    diagram: Optional[Union[Diagram, list[Diagram]]] = None
    teaching: Optional[Teaching] = None

    _version = field_validator("version", mode="before")(_version_text)

    @property
    def diagrams(self) -> list[Diagram]:
        """The diagram variants, in the order they are tried (``diagram`` may be one or a list)."""
        if self.diagram is None:
            return []
        return self.diagram if isinstance(self.diagram, list) else [self.diagram]

    @field_validator("diagram")
    @classmethod
    def _diagram_count(cls, value: Any) -> Any:
        if isinstance(value, list) and not 1 <= len(value) <= MAX_DIAGRAMS:
            raise ValueError(f"give between 1 and {MAX_DIAGRAMS} diagrams, not {len(value)}")
        return value

    @model_validator(mode="after")
    def _consistency(self) -> "SkillBlueprint":
        g, p, e = self.generation, self.presentation, self.evaluation
        if g.item_type == "multiple_choice":
            if p.option_count is None:
                p.option_count = 4
            if len(p.distractor_strategies) < p.option_count - 1:
                fail("presentation.distractor_strategies",
                     f"multiple choice with option_count {p.option_count} needs at least "
                     f"{p.option_count - 1} distractor strategies, found {len(p.distractor_strategies)}")
        elif e.method == "mcq":
            fail("evaluation.method", "'mcq' needs generation.item_type multiple_choice")
        if e.method == "numeric_tolerance" and g.answer_type not in ("integer", "decimal", "fraction"):
            fail("evaluation.method", f"numeric_tolerance needs a numeric generation.answer_type, not '{g.answer_type}'")
        if e.method == "algebraic_equivalence" and g.answer_type != "expression":
            fail("evaluation.method", "algebraic_equivalence needs generation.answer_type 'expression'")
        if e.method == "short_text" and not (e.keywords or e.accepted_answers or g.answer_type == "string"):
            fail("evaluation.method", "short_text marking needs keywords, accepted_answers or a string answer")
        return self

