"""The tutor a student talks to: a free conversation about one course (seed 002's THOUGHT session).

The model sees a system prompt naming the course, its level and its outcomes
(with the skills the workbench sets questions on), an LLM-written summary of
the older part of the conversation once there is one, and the newer messages
verbatim (seed 002, 10.4: a sliding window plus a summary).

Practice questions are never written by the model. It asks for one in its
structured reply; core draws the question from the course's banks and
blueprints, keeps its key and marks the answer. The model is shown a question
only as the student sees it, and learns the answer and the marks once the
student has answered.

Every call goes through ``LLMClient.structured``, so it is recorded in ``llm_runs``.
"""
from __future__ import annotations

from typing import Any, Optional

from pydantic import BaseModel, Field, field_validator

from core.llm.client import LLMClient

STAGE = "chat"
SUMMARY_STAGE = "chat_summary"
ROLE = "tutor"
WINDOW = 12            # the newest messages always sent verbatim
SUMMARY_BATCH = 8      # older messages folded into the summary together, once this many lie outside the window
MAX_MESSAGE = 2000     # characters in one message to the tutor
TITLE_CHARS = 60

NEEDS_LLM = "The tutor needs an LLM, and none is set up yet: your teacher sets one up on the Settings page."
UNREACHABLE = ("The tutor needs an LLM, and the one set up cannot be reached just now: your teacher can check it "
               "on the Settings page.")
FAILED = "The tutor could not answer just now: {reason}. Try again in a moment."

SYSTEM = """You are a friendly, patient tutor for a secondary-school student in Scotland who is studying {title} \
({subject}, {level}).
Answer whatever the student asks about this course, at the level of this course: explain ideas, work through \
examples step by step, check their reasoning and suggest what to practise next. Guide rather than lecture: keep \
replies short, and ask a question back when it helps the student think for themselves.
Write in British English (colour, practise, centimetre). Write mathematics between single dollar signs, for \
example $x^2 - 5x + 6 = 0$ or $\\frac{{3}}{{4}}$; never use \\( \\) or \\[ \\].

The course's outcomes, with the skills the workbench has practice questions on:
{outcomes}

Practice questions: when the student asks for one, or one would help now, set "practice" to true, with \
"outcome_id" (and "skill_id" when one skill fits) taken from the list above, and say in "reply" that a question \
is coming. The workbench then sets a question from its own bank, shows it to the student and marks their answer; \
you are told how they did afterwards. Never write a practice question with its answer yourself, and never give \
the answer to a practice question the student has not answered yet: give a hint instead.
If the student asks about something outside the course, answer briefly and bring them back to {subject}.
Put your message to the student in "reply"."""

SUMMARY_SYSTEM = """You keep the notes of a tutoring conversation between a secondary-school student and their \
tutor ({title}: {subject}, {level}).
Write one short summary (at most 150 words) of the conversation given, starting from the earlier summary when \
there is one: the topics discussed, what the student understood and what they found hard, the practice questions \
set and how the student did, and anything the tutor said they would come back to.
British English; $...$ for mathematics. Put the summary in "summary"."""


class ChatReply(BaseModel):
    """The tutor's turn: its message and, when it wants the student to practise, which outcome or skill."""
    reply: str = Field(min_length=1)
    practice: bool = False
    outcome_id: Optional[str] = None
    skill_id: Optional[str] = None

    @field_validator("reply")
    @classmethod
    def _said_something(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the reply is blank")
        return value.strip()

    @field_validator("outcome_id", "skill_id")
    @classmethod
    def _blank_is_none(cls, value: Optional[str]) -> Optional[str]:
        return value.strip() or None if isinstance(value, str) else value


class ChatSummary(BaseModel):
    summary: str = Field(min_length=1)


def failed(exc: Exception) -> str:
    """The one line a student reads when the tutor gave no usable reply."""
    return FAILED.format(reason=str(exc).rstrip(". "))


def course_brief(library: Any, subject: str, level: str) -> dict:
    """The course as the tutor is told it: title, outcomes with their labels, and each outcome's skills."""
    spec = library.spec(subject, level)
    outcomes = []
    for outcome in spec.outcomes:
        skills = [{"id": bp.skill_id, "topic": bp.metadata.topic or bp.metadata.skill_statement}
                  for bp in library.skills_for_outcome(spec.subject, spec.level, outcome.id)]
        outcomes.append({"id": outcome.id, "label": outcome.label, "skills": skills})
    return {"subject": spec.subject, "level": spec.level, "title": spec.title or f"{spec.subject} {spec.level}",
            "outcomes": outcomes}


def system_prompt(course: dict) -> str:
    lines = []
    for outcome in course["outcomes"]:
        lines.append(f"- {outcome['id']}: {outcome['label']}")
        lines += [f"  - skill {s['id']}: {s['topic']}" for s in outcome["skills"]]
    return SYSTEM.format(title=course["title"], subject=course["subject"], level=course["level"],
                         outcomes="\n".join(lines) or "- (no outcomes listed)")


def title(text: Optional[str]) -> Optional[str]:
    """A conversation's title: the first line of its first question, shortened."""
    if not text or not text.strip():
        return None
    line = " ".join(text.strip().splitlines()[0].split())
    return line if len(line) <= TITLE_CHARS else line[:TITLE_CHARS - 1].rstrip() + "…"


def to_fold(count: int, summarised: int) -> Optional[int]:
    """Where the summary should end now: the index before the window, once SUMMARY_BATCH messages outside it are
    not yet summarised; None when the summary is recent enough."""
    end = count - WINDOW
    return end if end - summarised >= SUMMARY_BATCH else None


def _question_text(entry: dict) -> str:
    q = entry["question"]
    parts = [f"[Practice question {entry['number']}, set by the workbench"
             + (f" for outcome {entry['outcome_id']}" if entry.get("outcome_id") else "") + "]", q["stem"]]
    if q.get("options"):
        parts.append("Options: " + "; ".join(f"{chr(65 + k)}. {o}" for k, o in enumerate(q["options"])))
    marks = f"{q['marks']} mark{'s' if q['marks'] != 1 else ''}"
    parts.append(f"({marks}" + (f"; answer in {q['units']}" if q.get("units") else "") + ")")
    return "\n".join(parts)


def _result_text(entry: dict) -> str:
    verdict = "right" if entry["correct"] else "not right"
    parts = [f"[My answer to practice question {entry['number']}] I answered: {entry['answer']}.",
             f"The workbench marked it {verdict} ({entry['score']:g} of {entry['max_score']:g} marks).",
             f"The correct answer: {entry['correct_answer']}."]
    if entry.get("feedback"):
        parts.append(f"The marker's note: {entry['feedback']}")
    if entry.get("explanation"):
        parts.append(f"The worked explanation: {entry['explanation']}")
    return "\n".join(parts)


def model_message(entry: dict) -> dict:
    """One entry of the conversation as a chat message; a question carries only what the student sees."""
    role = entry["role"]
    if role == "student":
        return {"role": "user", "content": entry["text"]}
    if role == "tutor":
        return {"role": "assistant", "content": entry["text"]}
    if role == "question":
        return {"role": "assistant", "content": _question_text(entry)}
    if role == "result":
        return {"role": "user", "content": _result_text(entry)}
    if role == "skipped":
        return {"role": "user", "content": f"[I skipped practice question {entry['number']}.]"}
    return {"role": "assistant", "content": f"[The workbench could not set a practice question: {entry['text']}]"}


def transcript(entries: list[dict]) -> str:
    """The entries as plain lines, for the summary."""
    who = {"user": "Student", "assistant": "Tutor"}
    return "\n\n".join(f"{who[m['role']]}: {m['content']}" for m in map(model_message, entries))


class ChatTutor:
    """The tutor's calls over one ``LLMClient``: a reply to the conversation, and a summary of its older part."""

    def __init__(self, client: LLMClient):
        self.client = client

    def messages(self, course: dict, summary: Optional[str], entries: list[dict]) -> list[dict]:
        messages = [{"role": "system", "content": system_prompt(course)}]
        if summary:
            messages.append({"role": "system", "content": f"A summary of the earlier part of this conversation:\n"
                                                          f"{summary}"})
        return messages + [model_message(e) for e in entries]

    def reply(self, course: dict, summary: Optional[str], entries: list[dict]) -> ChatReply:
        """The tutor's next turn; LLMError (MalformedReply for a reply not in the shape asked for) says why not."""
        return self.client.structured(ROLE, self.messages(course, summary, entries), ChatReply, stage=STAGE)

    def summarise(self, course: dict, summary: Optional[str], entries: list[dict]) -> str:
        """A new summary: the earlier one, if any, with ``entries`` folded in."""
        text = transcript(entries)
        if summary:
            text = f"Earlier summary:\n{summary}\n\nThe conversation since:\n{text}"
        messages = [{"role": "system", "content": SUMMARY_SYSTEM.format(**course)},
                    {"role": "user", "content": text}]
        return self.client.structured(ROLE, messages, ChatSummary, stage=SUMMARY_STAGE).summary.strip()
