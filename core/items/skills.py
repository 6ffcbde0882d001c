"""Which skill an item practises: the one thing mastery, lessons and remediation key on.

An item made from a skill blueprint practises that skill. A bank question
names its skill (``skill`` in the bank) or, when it does not, is matched to
one of its outcome's skill blueprints by the words the question and the
blueprint share (its topic, statement, tags and teaching). A question that
no blueprint fits has no skill: it still moves its outcome's ability, but
never a skill's mastery under an outcome's name, and a lesson teaches it
from its own teaching text or explanation.
"""
from __future__ import annotations

import functools
import re
from typing import Any, Optional

# Words too common in questions to say anything about the topic.
_STOP = frozenset("""
a an and are as at be by calculate can find for from give given has have how in is it its of on or show
state that the this to what when which with your you answer value values correct decimal places nearest
significant figures work out use using write down units unit one two three four five six seven eight nine
ten the each per into than then there these those all any also each both find simplify evaluate express
""".split())
MIN_SCORE = 2.0        # shared topic words needed before a match counts
MARGIN = 1.0           # the best match must lead the next by this much


def _words(text: str) -> set[str]:
    words = set()
    for w in re.findall(r"[a-z][a-z\-]+", (text or "").lower()):
        w = w.strip("-")
        if len(w) < 3 or w in _STOP:
            continue
        words.add(w[:-1] if w.endswith("s") and len(w) > 4 else w)   # plural and singular alike
    return words


@functools.lru_cache(maxsize=4096)
def _profile(library: Any, skill_id: str) -> tuple[frozenset, frozenset]:
    """(topic words: topic, tags and statement; teaching words) of a skill blueprint."""
    bp = library.skills[skill_id].model
    meta = bp.metadata
    topic = " ".join(filter(None, [meta.topic, meta.subdomain, meta.skill_statement, " ".join(meta.tags)]))
    teaching = bp.teaching.text if bp.teaching else ""
    stems = " ".join(bp.presentation.stem_templates)
    return frozenset(_words(topic)), frozenset(_words(teaching + " " + re.sub(r"\{[^}]*\}", " ", stems)))


def match_score(library: Any, skill_id: str, text: str) -> float:
    """How well a question's text fits a skill: shared topic words count 2, shared teaching/stem words 1."""
    topic, teaching = _profile(library, skill_id)
    words = _words(text)
    return 2.0 * len(words & topic) + 1.0 * len(words & (teaching - topic))


def candidates(library: Any, item: Any) -> list[str]:
    """The skill blueprints of the item's outcomes in its course."""
    if not (item.subject and item.level and item.outcome_ids):
        return []
    out: list[str] = []
    for outcome in item.outcome_ids:
        for bp in library.skills_for_outcome(item.subject, item.level, outcome):
            if bp.skill_id not in out:
                out.append(bp.skill_id)
    return out


def skill_for(item: Any, library: Any) -> Optional[str]:
    """The skill id ``item`` practises, or None when no skill blueprint fits it."""
    if library is None:
        return item.blueprint_id or (item.skill_ids[0] if item.skill_ids else None)
    generators = getattr(library, "generators", {})
    if item.blueprint_id and item.blueprint_id in generators:
        return item.blueprint_id
    for skill in item.skill_ids or []:
        if skill in generators:
            return skill
    return matched_skill(item, library)


def matched_skill(item: Any, library: Any) -> Optional[str]:
    """The outcome's skill blueprint whose words the question shares most, when one clearly does."""
    pool = candidates(library, item)
    if not pool:
        return None
    text = " ".join(filter(None, [item.stem, item.explanation, " ".join(item.hints or [])]))
    scored = sorted(((match_score(library, s, text), s) for s in pool), reverse=True)
    best, skill = scored[0]
    runner_up = scored[1][0] if len(scored) > 1 else 0.0
    if best >= MIN_SCORE and best - runner_up >= MARGIN:
        return skill
    return None


def skill_name(library: Any, skill_id: Optional[str]) -> Optional[str]:
    """A skill's name as a person reads it (its topic, else its statement)."""
    if not skill_id or library is None or skill_id not in getattr(library, "skills", {}):
        return None
    meta = library.skills[skill_id].model.metadata
    return meta.topic or meta.skill_statement


def teaching_for(item: Any, library: Any) -> Optional[dict]:
    """What to teach before ``item``, from the item's own skill: {skill, title, text, key_concept}.

    The skill blueprint's teaching (or, for a blueprint without one, its statement); for a question no
    blueprint fits, the teaching its bank gives it. None when there is neither.
    """
    from core.blueprints.models.skill import first_sentence
    skill = skill_for(item, library)
    if skill and library is not None and skill in getattr(library, "skills", {}):
        bp = library.skills[skill].model
        title = bp.metadata.topic or bp.metadata.skill_statement
        if bp.teaching is not None:
            return {"skill": skill, "title": title, "text": bp.teaching.text.strip(), "key_concept": bp.teaching.concept}
        statement = bp.metadata.skill_statement.rstrip(".") + "."
        return {"skill": skill, "title": title, "text": statement, "key_concept": statement}
    own = ((getattr(item, "computed_values", None) or {}).get("metadata") or {}).get("teaching")
    if own:
        return {"skill": None, "title": None, "text": own, "key_concept": first_sentence(own)}
    return None
