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

from core.marking.expressions import _parse_answer, _Refused, _Unreadable
from core.marking.network import _read_cidr, _read_ipv4
from core.marking.numeric import _read_number

METHODS = ("mcq", "exact_match", "numeric_tolerance", "algebraic_equivalence", "short_text", "ip_address", "cidr")
FORMS = ("any", "simplified", "factorised", "expanded")


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
            if value is not None and not (isinstance(value, (int, float)) and math.isfinite(value) and value > 0):
                raise MarkingSpecError(f"{name} must be a positive number, got {value!r}")
        if self.significant_figures is not None and not (isinstance(self.significant_figures, int)
                                                          and 1 <= self.significant_figures <= 15):
            raise MarkingSpecError(f"significant_figures must be a whole number from 1 to 15, got {self.significant_figures!r}")
        if self.min_keywords is not None and not (isinstance(self.min_keywords, int) and self.min_keywords >= 1):
            raise MarkingSpecError(f"min_keywords must be a whole number of at least 1, got {self.min_keywords!r}")
        if self.method == "mcq":
            if not self.options:
                raise MarkingSpecError("an mcq question needs its options")
            if not isinstance(self.correct_index, int) or not 0 <= self.correct_index < len(self.options):
                raise MarkingSpecError(f"correct_index {self.correct_index!r} does not name one of the {len(self.options)} options")
        elif self.method == "numeric_tolerance":
            if isinstance(_read_number(self.key, latex=True, roots=True), str):
                raise MarkingSpecError(f"the answer key '{self.key}' is not a number")
        elif self.method == "algebraic_equivalence":
            try:
                _parse_answer(self.key)
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
        d = item.to_dict() if hasattr(item, "to_dict") else dict(item)
        ev = d.get("evaluation") or {}
        scheme = d.get("marking_scheme") or {}
        tol = ev.get("tolerance") or {}
        options = [str(o) for o in d.get("options") or []]
        correct_index = d.get("correct_index")
        key = d.get("correct_answer")
        key = "" if key is None else str(key)
        method = ev.get("method") or "exact_match"
        if options and correct_index is not None:
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
                   units=d.get("units"))


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
    return {"step": str(c.get("step") or ""), "marks": marks, "gap_tag": c.get("gap_tag") or None,
            "description": c.get("description")}


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
