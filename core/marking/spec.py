"""What marking is given and what it gives back.

``MarkingSpec`` is one question as marking needs it, checked when it is built
(a bad key is the teacher's or generator's error, never the student's);
``MarkResult`` with its ``CriterionVerdict`` list is what a student's answer
earns. ``_Outcome`` is one method's verdict before it is turned into marks.
"""
from __future__ import annotations

import dataclasses
import ipaddress
import math
from fractions import Fraction
from typing import Any, Optional

from core.marking.answers import _parse_answer
from core.marking.expressions import _Refused, _Unreadable
from core.marking.network import _read_cidr, _read_ipv4
from core.marking.precision import sig_fig_rule

METHODS = ("mcq", "exact_match", "numeric_tolerance", "algebraic_equivalence", "short_text", "ip_address", "cidr",
           "multiple_response")
FORMS = ("any", "simplified", "factorised", "expanded", "fraction", "decimal")


class MarkingSpecError(ValueError):
    """A question cannot be marked as specified (a teacher's or generator's error, not a student's)."""


@dataclasses.dataclass
class MarkingSpec:
    """Everything marking needs about one question, and no more."""

    method: str
    key: str
    answer_type: str = "string"
    options: list[str] = dataclasses.field(default_factory=list)
    correct_index: Optional[int] = None
    tolerance_relative: Optional[float] = None
    tolerance_absolute: Optional[float] = None
    significant_figures: Optional[int] = None
    required_form: str = "any"
    accepted_answers: list[str] = dataclasses.field(default_factory=list)
    keywords: list[str] = dataclasses.field(default_factory=list)
    min_keywords: Optional[int] = None
    marks: int = 1
    criteria: list[dict] = dataclasses.field(default_factory=list)
    partial_credit: bool = False
    misconceptions: dict[str, str] = dataclasses.field(default_factory=dict)
    misconception_tags: dict[str, str] = dataclasses.field(default_factory=dict)
    units: Optional[str] = None
    # Added for reading and precision; every one is optional and defaults to today's behaviour.
    variables: list[str] = dataclasses.field(default_factory=list)    # names an answer may use
    assume_positive: bool = False       # variables are positive (sqrt(x^2) = x); otherwise any real value
    decimal_comma: bool = False         # the class writes 3,5 for three and a half
    decimal_places: Optional[int] = None
    units_exact: bool = False           # the answer must use exactly the key's units, no conversion
    # A choose-several question (multiple_response): each option's share of the marks, in option order
    # (right options positive and adding up to 1, wrong ones zero or negative). None: 1/k for each of the
    # k right options and -1/k for each wrong one.
    fractions: Optional[list[float]] = None

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise MarkingSpecError(f"unknown marking method '{self.method}'; expected one of {', '.join(METHODS)}")
        if self.required_form not in FORMS:
            raise MarkingSpecError(f"unknown required_form '{self.required_form}'; expected one of {', '.join(FORMS)}")
        self.key = "" if self.key is None else str(self.key)
        self.options = [str(o) for o in self.options or []]
        self.accepted_answers = [str(a) for a in self.accepted_answers or [] if a is not None]
        self.keywords = [str(k) for k in self.keywords or [] if str(k).strip()]
        self.misconceptions = {str(k): str(v) for k, v in (self.misconceptions or {}).items() if v is not None}
        self.misconception_tags = {str(k): str(v) for k, v in (self.misconception_tags or {}).items() if v}
        self.criteria = [_criterion_dict(c) for c in self.criteria or []]
        if not isinstance(self.marks, int) or isinstance(self.marks, bool) or self.marks < 0:
            raise MarkingSpecError(f"marks must be a whole number of at least 0, got {self.marks!r}")
        for name in ("tolerance_relative", "tolerance_absolute"):
            value = getattr(self, name)
            if name == "tolerance_absolute" and isinstance(value, str) and self.method == "numeric_tolerance":
                continue        # a tolerance with units ("5 kJ"), read with the key in quantities
            if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise MarkingSpecError(f"{name} must be a positive number, got {value!r}")
        try:
            sig_fig_rule(self.significant_figures)
        except ValueError as exc:
            raise MarkingSpecError(str(exc)) from None
        if self.decimal_places is not None and not (isinstance(self.decimal_places, int)
                                                     and not isinstance(self.decimal_places, bool)
                                                     and 0 <= self.decimal_places <= 15):
            raise MarkingSpecError(f"decimal_places must be a whole number from 0 to 15, got {self.decimal_places!r}")
        self.variables = [str(v) for v in self.variables or []]
        if self.min_keywords is not None and not (isinstance(self.min_keywords, int) and self.min_keywords >= 1):
            raise MarkingSpecError(f"min_keywords must be a whole number of at least 1, got {self.min_keywords!r}")
        if self.method == "mcq":
            if not self.options:
                raise MarkingSpecError("an mcq question needs its options")
            if not isinstance(self.correct_index, int) or not 0 <= self.correct_index < len(self.options):
                raise MarkingSpecError(f"correct_index {self.correct_index!r} does not name one of the {len(self.options)} options")
        elif self.method == "multiple_response":
            from core.marking.choices import default_fractions, key_problem as choice_key_problem, read_letters
            problem = choice_key_problem(self.key, self.options, self.fractions)
            if problem:
                raise MarkingSpecError(problem)
            if self.fractions is None:
                self.fractions = default_fractions(read_letters(self.key, len(self.options))[0] or [],
                                                   len(self.options))
            self.fractions = [float(f) for f in self.fractions]
        elif self.method == "numeric_tolerance":
            from core.marking.quantities import numeric_key_problem
            problem = numeric_key_problem(self)
            if problem:
                raise MarkingSpecError(problem)
        elif self.method == "algebraic_equivalence":
            try:
                _parse_answer(self.key, None, self.decimal_comma)
            except (_Refused, _Unreadable) as exc:
                raise MarkingSpecError(f"the answer key '{self.key}' is not a readable expression: {exc}") from None
        elif self.method == "ip_address":
            if _read_ipv4(self.key) is None:
                raise MarkingSpecError(f"the answer key '{self.key}' is not an IPv4 address")
        elif self.method == "cidr":
            if not isinstance(_read_cidr(self.key), ipaddress.IPv4Interface):
                raise MarkingSpecError(f"the answer key '{self.key}' is not an IPv4 network such as 10.0.0.0/8")
        elif self.method in ("exact_match", "short_text") and not (self.key.strip() or self.accepted_answers or self.keywords):
            raise MarkingSpecError("the question has no answer key, accepted answers or keywords")
        if any("answer_key" in c for c in self.criteria):
            from core.marking.steps import check_steps   # steps build specs of their own: imported when needed
            check_steps(self)

    @property
    def max_score(self) -> int:
        return sum(c["marks"] for c in self.criteria) if self.criteria else self.marks

    @classmethod
    def from_item(cls, item: Any, blueprint: Any = None,
                  misconception_tags: Optional[dict[str, str]] = None) -> "MarkingSpec":
        """The marking spec of a generated Item (or a dict shaped like ``Item.to_dict()``).

        Items do not carry the distractors' gap tags; pass them, or the skill
        blueprint (its distractor strategies hold them), to get diagnoses with
        gap tags. A dict may also carry them under ``misconception_tags``.
        """
        if dataclasses.is_dataclass(item):
            # Only the fields marking reads (``to_dict`` would copy the whole item: parameters, media); read, not
            # copied: the spec builds its own lists and mappings from them.
            d = {name: getattr(item, name) for name in _MARKING_FIELDS if hasattr(item, name)}
        else:
            d = item.to_dict() if hasattr(item, "to_dict") else dict(item)
        ev = d.get("evaluation") or {}
        scheme = d.get("marking_scheme") or {}
        tol = ev.get("tolerance") or {}
        options = [str(o) for o in d.get("options") or []]
        correct_index = d.get("correct_index")
        key = d.get("correct_answer")
        key = "" if key is None else str(key)
        method = ev.get("method") or "exact_match"
        if d.get("item_type") == "multiple_response" or method == "multiple_response":
            # Choose several: the student ticks options; each carries its share of the marks.
            method = "multiple_response"
        elif options and correct_index is not None:
            # The student picks one of the options whatever the blueprint's text method says.
            method = "mcq"
        elif method == "exact_match" and _read_ipv4(key) is not None:
            method = "ip_address"
        elif method == "exact_match" and "/" in key and isinstance(_read_cidr(key), ipaddress.IPv4Interface):
            method = "cidr"
        tags = dict(gap_tags_from_blueprint(blueprint)) if blueprint is not None else {}
        tags.update(d.get("misconception_tags") or {})
        tags.update(misconception_tags or {})
        criteria = scheme.get("criteria") or []
        accepted = list(d.get("accepted_answers") or [])
        accepted += [a for a in ev.get("accepted_answers") or [] if a not in accepted]
        return cls(method=method, key=key, answer_type=d.get("answer_type") or "string",
                   options=options, correct_index=correct_index if method == "mcq" else None,
                   tolerance_relative=tol.get("relative"), tolerance_absolute=tol.get("absolute"),
                   significant_figures=ev.get("significant_figures"),
                   required_form=ev.get("required_form") or "any",
                   accepted_answers=accepted, keywords=list(ev.get("keywords") or []),
                   min_keywords=ev.get("min_keywords"),
                   marks=int(d.get("marks") or scheme.get("total_marks") or 1),
                   criteria=list(criteria), partial_credit=bool(ev.get("partial_credit")),
                   misconceptions=dict(d.get("misconceptions") or {}), misconception_tags=tags,
                   units=d.get("units"), decimal_places=ev.get("decimal_places"),
                   variables=list(ev.get("variables") or []), assume_positive=bool(ev.get("assume_positive")),
                   units_exact=bool(ev.get("units_exact")), decimal_comma=bool(ev.get("decimal_comma")),
                   fractions=ev.get("fractions") if method == "multiple_response" else None)


_MARKING_FIELDS = ("evaluation", "marking_scheme", "options", "correct_index", "correct_answer", "item_type",
                   "answer_type", "accepted_answers", "marks", "misconceptions", "misconception_tags", "units")


def gap_tags_from_blueprint(blueprint: Any) -> dict[str, str]:
    """{distractor strategy type: gap tag} from a SkillBlueprint (or its dict form)."""
    if isinstance(blueprint, dict):
        strategies = (blueprint.get("presentation") or {}).get("distractor_strategies") or []
        pairs = [(s.get("type"), s.get("gap_tag")) for s in strategies]
    else:
        strategies = getattr(getattr(blueprint, "presentation", None), "distractor_strategies", None) or []
        pairs = [(s.type, s.gap_tag) for s in strategies]
    return {t: g for t, g in pairs if t and g}


def _criterion_dict(c: Any) -> dict:
    if hasattr(c, "model_dump"):
        c = c.model_dump()
    if not isinstance(c, dict):
        raise MarkingSpecError(f"a marking criterion must be a mapping with step and marks, got {c!r}")
    marks = c.get("marks", 1)
    if not isinstance(marks, int) or isinstance(marks, bool) or marks < 0:
        raise MarkingSpecError(f"criterion '{c.get('step')}' has marks {marks!r}; expected a whole number")
    out = {"step": str(c.get("step") or ""), "marks": marks, "gap_tag": c.get("gap_tag") or None,
           "description": c.get("description")}
    if c.get("answer_key") is None:
        return out
    # A step with its own key (answered in its own box; see core.marking.steps).
    step = out["step"] or "a step"
    out["answer_key"] = str(c["answer_key"])
    name = c.get("name")
    if name is not None:
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise MarkingSpecError(f"step '{step}' has the name {name!r}; a step's name is a plain identifier")
        out["name"] = name
    follow = c.get("follow_through")
    if follow is not None:
        if not isinstance(follow, str) or not follow.strip():
            raise MarkingSpecError(f"step '{step}' has the follow-through {follow!r}; expected a formula as text")
        out["follow_through"] = follow.strip()
    method = c.get("method")
    if method is not None:
        if method not in ("numeric_tolerance", "exact_match", "algebraic_equivalence"):
            raise MarkingSpecError(f"step '{step}' has the method {method!r}; a step is marked by "
                                   f"numeric_tolerance, exact_match or algebraic_equivalence")
        out["method"] = method
    tol = c.get("tolerance")
    if tol is not None:
        if not isinstance(tol, dict) or not any(tol.get(k) is not None for k in ("relative", "absolute")):
            raise MarkingSpecError(f"step '{step}' has the tolerance {tol!r}; expected relative and/or absolute")
        for k in ("relative", "absolute"):
            v = tol.get(k)
            if v is not None and not (isinstance(v, (int, float)) and not isinstance(v, bool)
                                      and math.isfinite(v) and v > 0):
                raise MarkingSpecError(f"step '{step}' has the {k} tolerance {v!r}; expected a positive number")
        out["tolerance"] = {k: tol.get(k) for k in ("relative", "absolute") if tol.get(k) is not None}
    return out


@dataclasses.dataclass
class CriterionVerdict:
    step: str
    marks: int
    awarded: int
    met: bool
    gap_tag: Optional[str]


@dataclasses.dataclass
class MarkResult:
    correct: bool
    score: float
    max_score: float
    method: str
    feedback: str
    normalised_answer: Optional[str]
    criteria: list[CriterionVerdict]
    gap_tags: list[str]
    misconception: Optional[str]
    refused: Optional[str] = None
    # How the answer was read, shown back to the student before it counts ("your answer was read as ..."):
    # plain text, the same as LaTeX where there is maths, and notes on readings a student should check
    # ("xy was read as x times y"). valid is False when the answer could not be read at all (a syntax
    # problem, nothing typed, or refused): such an answer costs no mark and no attempt.
    read_as: Optional[str] = None
    read_as_latex: Optional[str] = None
    notes: list[str] = dataclasses.field(default_factory=list)
    valid: bool = True

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class _Outcome:
    """One method's verdict on an answer, before the criteria turn it into marks."""

    correct: bool
    feedback: str
    normalised: Optional[str] = None
    form_failure: bool = False          # right value, wrong form or s.f.: costs the final mark only
    misconception: Optional[str] = None
    refused: Optional[str] = None
    earned: Optional[Fraction] = None   # share of the marks earned (keyword partial credit)
    invalid: bool = False               # the answer could not be read: it costs nothing
    latex: Optional[str] = None         # the answer as read, as LaTeX
    notes: list[str] = dataclasses.field(default_factory=list)
