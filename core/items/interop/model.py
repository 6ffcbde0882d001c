"""A question as the exchange formats hold it: what every reader gives and every writer takes.

Moodle XML, GIFT and QTI 3.0 each have their own way to say "a multiple-choice
question whose second option is right", "12.5 give or take 0.1" or "any of
these short answers". ``Question`` is the meeting point: readers turn a file
into questions (and a list of what they skipped, with why), writers turn
questions into a file (likewise). Turning questions into our items and back
happens in one place, ``convert``.

Text is held as we hold a stem: plain text in paragraphs (blank lines between
them), maths between ``$...$`` in LaTeX, pictures as ``![alt](name)`` naming a
``Media`` file of the same question. ``text.py`` converts to and from the HTML
the formats carry.
"""
from __future__ import annotations

import base64
import dataclasses
from typing import Optional

# What a question asks for.
CHOICE = "choice"               # pick one option (true/false is a choice of two)
MULTI = "multiple_response"     # pick every right option (read, so that it can be named when skipped)
NUMERIC = "numeric"             # a number, with a tolerance
SHORT = "short_text"            # a word or phrase from a list of accepted answers
ALGEBRAIC = "algebraic"         # an expression, marked by equivalence (written out as a short answer)
ESSAY = "essay"                 # marked by a teacher
KINDS = (CHOICE, MULTI, NUMERIC, SHORT, ALGEBRAIC, ESSAY)

FORMATS = ("qti3", "moodle-xml", "gift")
STATUSES = ("approved", "draft", "rejected", "withdrawn", "retired", "any")    # which items an export takes


class InteropError(ValueError):
    """A file that cannot be read at all: the message is one line saying what is wrong and what to do."""


@dataclasses.dataclass
class Choice:
    """One option (or one accepted short answer): its text, the share of the marks it earns, its feedback."""
    text: str
    fraction: float = 0.0          # 1.0 right, 0 wrong, in between for part marks, below 0 a penalty
    feedback: str = ""


@dataclasses.dataclass
class NumericAnswer:
    """One accepted number: written as the file writes it, with an absolute tolerance either side."""
    value: str                     # "12.5" (kept as text so nothing is lost to floating point)
    tolerance: float = 0.0         # absolute, either side; 0 means exactly this value
    fraction: float = 1.0
    feedback: str = ""


@dataclasses.dataclass
class Media:
    """A file that goes with a question: a picture or a sound."""
    name: str                      # as the question text refers to it ("graph.png")
    mime: str
    data: bytes

    def as_json(self) -> dict:
        return {"name": self.name, "mime": self.mime, "data": base64.b64encode(self.data).decode("ascii")}

    @classmethod
    def from_json(cls, d: dict) -> "Media":
        return cls(d["name"], d.get("mime") or "application/octet-stream", base64.b64decode(d["data"]))


@dataclasses.dataclass
class Question:
    """One question in exchange form."""
    kind: str
    name: str                      # the question's name or id in its file ("Q3", "area-of-circle")
    stem: str
    choices: list[Choice] = dataclasses.field(default_factory=list)        # CHOICE and MULTI
    numbers: list[NumericAnswer] = dataclasses.field(default_factory=list)  # NUMERIC
    answers: list[Choice] = dataclasses.field(default_factory=list)        # SHORT and ALGEBRAIC: accepted texts
    shuffle: bool = True           # options may be shown in another order
    case_sensitive: bool = False   # SHORT: "Paris" and "paris" differ
    units: Optional[str] = None    # NUMERIC: the unit the answer is in ("cm")
    # NUMERIC: a tolerance the file states as a share of the key (QTI's relative mode, or our own metadata):
    # kept so that 1% stays 1% rather than becoming 0.125 either side of 12.5.
    relative_tolerance: Optional[float] = None
    general_feedback: str = ""     # shown after answering: our explanation
    correct_feedback: str = ""
    incorrect_feedback: str = ""
    hints: list[str] = dataclasses.field(default_factory=list)
    grader_info: str = ""          # ESSAY: what a marker looks for
    keywords: list[str] = dataclasses.field(default_factory=list)          # ESSAY/SHORT: the points a marker looks for
    marks: float = 1.0             # the question's default mark
    category: list[str] = dataclasses.field(default_factory=list)          # ["Mathematics", "Nat 5", "SQA.MATH.N5.SURDS"]
    tags: list[str] = dataclasses.field(default_factory=list)
    # Where the question came from: {"item", "blueprint", "version", "level", "seed", "source", "method", ...}.
    # Written into each format's metadata so an exported question can be traced back (and read back whole).
    provenance: dict = dataclasses.field(default_factory=dict)
    media: list[Media] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)              # what reading changed, for the reviewer

    def right_choices(self) -> list[int]:
        """Indices of the options that earn full marks."""
        return [i for i, c in enumerate(self.choices) if c.fraction >= 0.999]


@dataclasses.dataclass
class Skipped:
    """A question left out, and why (one sentence a teacher can act on)."""
    question: str                  # its name, or "question 4" when it has none
    reason: str


@dataclasses.dataclass
class ReadResult:
    questions: list[Question]
    skipped: list[Skipped]
    format: str


@dataclasses.dataclass
class WriteResult:
    data: bytes
    written: list[str]             # the names of the questions written
    skipped: list[Skipped]
    format: str
    filename: str                  # a sensible file name for a download ("questions.zip")
