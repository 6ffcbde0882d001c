"""An item: one question as generated from a blueprint (or written, imported, or made by a model), stored,
reviewed and served; what a student may see of it, and the key that names its content.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import re
import unicodedata
from fractions import Fraction
from typing import Any, Optional

from core.blueprints import helpers
from core.marking import options_in_words, right_options, step_boxes


@dataclasses.dataclass
class Item:
    id: str
    blueprint_id: str
    blueprint_version: str
    blueprint_hash: str
    source: str
    seed: str
    difficulty_level: str
    difficulty_value: float
    item_type: str
    stem: str
    options: list[str]
    option_strategies: list[Optional[str]]
    options_shuffled: bool
    correct_answer: str
    correct_index: Optional[int]
    answer_value: Any
    accepted_answers: list[str]
    misconceptions: dict[str, str]
    explanation: str
    hints: list[str]
    answer_type: str
    units: Optional[str]
    marks: int
    marking_scheme: dict
    evaluation: dict
    generation_params: dict
    computed_values: dict
    subject: Optional[str]
    level: Optional[str]
    outcome_ids: list[str]
    skill_ids: list[str]
    calculator: str
    content_key: str
    status: str = "draft"
    # A figure printed with the question (a triangle with its labels), resolved for this item and stored with
    # it; an item stored before items kept their diagrams gets it again from its blueprint and parameters
    # (``SkillGenerator.diagram_for``).
    diagram: Optional[dict] = None
    # Images and sounds that came with a question brought in from another system (Moodle's files, a QTI
    # package's resources): [{"name", "mime", "data" (base64)}], and where it came from (file, format,
    # the question's name there).
    media: list = dataclasses.field(default_factory=list)
    origin: Optional[dict] = None

    @property
    def typed_answer(self) -> str:
        """The right answer as a student would give it: the correct option, or the key with the
        question's units where it has physical units ("12 m/s" for the key 12)."""
        if self.options and self.correct_index is not None:
            return self.options[self.correct_index]
        from core.marking import MarkingSpec, MarkingSpecError, key_as_typed
        try:
            return str(key_as_typed(MarkingSpec.from_item(self)))
        except MarkingSpecError:
            return self.correct_answer

    @property
    def choose_several(self) -> bool:
        """A choose-several question: the student ticks every right option (its key is their letters, "A, C")."""
        return self.item_type == "multiple_response" or (self.evaluation or {}).get("method") == "multiple_response"

    @property
    def shown_answer(self) -> str:
        """The right answer as a student is shown it after answering: the key, or for a choose-several
        question the right options' letters and texts ("B and D: 3, 5")."""
        if self.choose_several and self.options:
            return options_in_words(right_options(self.correct_answer, len(self.options)), self.options) \
                or self.correct_answer
        return self.correct_answer

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    def student_view(self) -> dict:
        """What a student may see before answering: no key, no explanation.

        A choose-several question also has ``choose_several`` (True): the student
        ticks every right option and answers with their letters ("A, C").

        An item whose marking criteria have their own keys also lists its
        ``steps``: one answer box per step (what it asks for and its marks),
        the last being the final answer.
        """
        from core.marking.units import physical
        view = {"id": self.id, "stem": self.stem, "item_type": self.item_type, "options": list(self.options),
                "marks": self.marks, "units": self.units, "outcome_ids": list(self.outcome_ids),
                # physical units must be typed with the answer ("12 cm"); money or % need not be
                "units_required": bool(self.units) and not self.options and physical(self.units)}
        if self.choose_several and self.options:
            view["choose_several"] = True   # tick every right option, not just one
        steps = step_boxes((self.marking_scheme or {}).get("criteria") or [])
        if steps and not self.options:
            view["steps"] = steps
        if self.diagram:
            view["diagram"] = self.diagram   # the labelled figure the question refers to
        if self.media:
            # The pictures and sounds that came with an imported question, by name: the view is stored with
            # every session step, so the files themselves are read from the item when the page shows them.
            view["media"] = [{"name": m["name"], "mime": m.get("mime")} for m in self.media]
        return view


def jsonable(value: Any) -> Any:
    if isinstance(value, Fraction):
        return helpers.frac_str(value)
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e15:
        return value
    return value


def normalise_text(text: str) -> str:
    """Content as a student reads it: case, spacing and punctuation variants collapsed."""
    text = unicodedata.normalize("NFKC", text).lower().replace("\u2212", "-")
    text = re.sub(r"[^\w.+\-*/=^%√]+", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def content_key(skill_id: str, params: dict) -> str:
    canonical = json.dumps(jsonable(params), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(f"{skill_id}|{canonical}".encode()).hexdigest()[:20]
