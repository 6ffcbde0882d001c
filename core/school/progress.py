"""A student's mastery and ability: the rules that move them after each answer, how they read in words,
strongest and weakest skills, each outcome's picture, and what to practise next.

Mastery is kept per skill (the skill an item practises: ``core.items.skills.skill_for``);
ability per course outcome (an IRT-lite estimate in logits with its standard
error, ``ability_update``). A skill rolls up to the outcome its blueprint is
tagged with. Pure Python over the library and the store's query functions; the
pages only render what these return.
"""
from __future__ import annotations

import math
from typing import Any, Optional, Sequence

from core.analytics import irt
from core.analytics.calibration import difficulty_logit
from core.analytics.evidence import FEW_ANSWERS_STUDENT, Z95
from core.blueprints.library import Library
from core.items.skills import skill_name
from core.store import Store, sessions
from core.store import outcome_ability

SECURE, DEVELOPING = 0.8, 0.5     # mastery bands shown to the student (and the chance bands of ability)
INITIAL_MASTERY = 0.5

PRIOR_THETA, PRIOR_SE = 0.0, 1.0  # a new student's ability on an outcome: N(0, 1) on the calibrated scale
THETA_LIMIT = 4.0                 # estimates are kept within +-4 logits (beyond, every question is sure)
# A wrong answer given in under this share of the time a competent student takes (the blueprint's
# performance benchmarks), or under QUICK_FLOOR_S for a question without benchmarks, looks like a guess:
# it says less about what the student knows, so it counts GUESS_WEIGHT of an answer toward the ability.
QUICK_SHARE = 0.25
QUICK_FLOOR_S = 3.0
GUESS_WEIGHT = 0.3
QUICK_NOTE = "That was very quick: take your time to work it out."
# Below this many answers an outcome's ability is marked as resting on too few (its 95% range is wider than
# +-1.2 logits: most of a class's spread). The same count the teacher's analytics use for a student.
FEW_ANSWERS_ABILITY = FEW_ANSWERS_STUDENT


def mastery_update(score: float, correct: bool) -> float:
    """Seed 001's rule: up 10% of the way to 1 when right, down 20% of the way to 0 when wrong."""
    if correct:
        return round(score + 0.1 * (1.0 - score), 6)
    return round(score - 0.2 * score, 6)


# --------------------------------------------------------------------------
# Ability per outcome


def expected_seconds(item: Any, library: Optional[Library]) -> Optional[float]:
    """How long a competent student takes on the item's skill (the faster of the blueprint's novice and
    competent benchmarks), or None when its blueprint gives neither."""
    skills = getattr(library, "skills", {}) if library is not None else {}
    loaded = skills.get(getattr(item, "blueprint_id", None))
    if loaded is None:
        return None
    marks = loaded.model.performance_benchmarks
    times = [marks[k].expected_time_seconds for k in ("novice", "competent") if k in marks]
    return min(times) if times else None


def quick_threshold_s(item: Any, library: Optional[Library]) -> float:
    """Answers faster than this (seconds) are very quick for the item."""
    expected = expected_seconds(item, library)
    return QUICK_SHARE * expected if expected else QUICK_FLOOR_S


def looks_like_a_guess(item: Any, correct: bool, time_ms: Optional[float], library: Optional[Library]) -> bool:
    """A wrong answer given very quickly (well under the time the question takes a competent student)."""
    if correct or time_ms is None or isinstance(time_ms, bool) or time_ms < 0:
        return False
    return time_ms / 1000.0 < quick_threshold_s(item, library)


def ability_update(item: Any, outcome_id: str, correct: bool, time_ms: Optional[float], prior: Optional[dict],
                   library: Optional[Library] = None,
                   parameters: Optional[tuple[float, float]] = None) -> dict:
    """The outcome's ability after one answered item: a pure function, the same for every flow.

    ``prior`` is the stored estimate ({theta, se, n, correct}; None: N(PRIOR_THETA, PRIOR_SE), no answers).
    ``parameters`` is the item's (difficulty b, discrimination a) on the logit scale, e.g. from the newest
    calibration (``core.flows.practice.item_parameters``); without them the item's declared difficulty and
    a = 1. One Bayesian step of the normal approximation (``irt.online_update``): a right answer moves
    theta up, a wrong one down, and se shrinks. A very quick wrong answer (``looks_like_a_guess``) counts
    GUESS_WEIGHT of an answer (its discrimination is scaled down), so it moves theta less.

    Returns {outcome_id, theta, se, n, correct, quick, weight, b}: the first five are what is stored.
    """
    prior = prior or {}
    theta0 = float(prior.get("theta", PRIOR_THETA))
    se0 = float(prior.get("se", PRIOR_SE)) or PRIOR_SE
    if parameters is not None:
        b, a = float(parameters[0]), float(parameters[1])
    else:
        b, a = difficulty_logit(getattr(item, "difficulty_value", None)), 1.0
    if not math.isfinite(b):
        b = 0.0                       # a question without a declared difficulty: average
    if not (math.isfinite(a) and a > 0):
        a = 1.0
    quick = looks_like_a_guess(item, correct, time_ms, library)
    weight = GUESS_WEIGHT if quick else 1.0
    theta, se = irt.online_update(theta0, se0, b, a * weight, bool(correct))
    return {"outcome_id": outcome_id, "theta": round(max(-THETA_LIMIT, min(THETA_LIMIT, theta)), 4),
            "se": round(se, 4), "n": int(prior.get("n", 0)) + 1,
            "correct": int(prior.get("correct", 0)) + int(bool(correct)), "quick": quick, "weight": weight,
            "b": round(b, 4)}


def _chance(theta: float) -> float:
    """The chance of a right answer to a question of average declared difficulty at ability ``theta``."""
    return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, theta))))


def ability_words(ability: Optional[dict]) -> dict:
    """An ability in plain words: the band it is working at, its likely range, what it rests on.

    The band reads the chance of getting a typical question (one of average declared difficulty) right,
    with the mastery bands' thresholds: secure from 8 in 10, developing from 5 in 10. The range is the
    95% interval of that chance; when it reaches into the next band, ``working_at`` names both, the band of
    the estimate first ("Developing / Secure"), and when it spans all three it says it is too early to tell.
    """
    ability = ability or {}
    theta = float(ability.get("theta", PRIOR_THETA))
    se = float(ability.get("se", PRIOR_SE))
    n, right = int(ability.get("n", 0)), int(ability.get("correct", 0))
    p, low, high = _chance(theta), _chance(theta - Z95 * se), _chance(theta + Z95 * se)
    order = ["Needs work", "Developing", "Secure"]
    # Every band the interval crosses: from Needs work to Secure passes through Developing.
    likely = order[order.index(band(low)):order.index(band(high)) + 1]
    if len(likely) == 1:
        working_at = likely[0]
    elif len(likely) == 2:
        working_at = " / ".join([band(p)] + [b for b in likely if b != band(p)])
    else:
        working_at = f"{band(p)} (too early to tell: it could be anything from Needs work to Secure)"
    in10 = lambda x: int(round(10 * x))   # noqa: E731 - one line of arithmetic
    if n == 0:
        evidence = "No answers yet."
    else:
        evidence = f"Based on {n} answer{'s' if n != 1 else ''}, {right} of them right."
    few = n < FEW_ANSWERS_ABILITY
    return {"band": band(p), "working_at": working_at, "likely_bands": likely,
            "chance": round(p, 3), "chance_low": round(low, 3), "chance_high": round(high, 3),
            "range": (f"about {in10(p)} in 10 typical questions right (likely between {in10(low)} and "
                      f"{in10(high)} in 10)"),
            "evidence": evidence, "answers": n, "right": right, "few": few,
            "few_note": (f"This rests on only {n} answer{'s' if n != 1 else ''}: a few more will make it surer."
                         if few else None),
            "theta": round(theta, 2), "se": round(se, 2)}


# --------------------------------------------------------------------------
# Names and skills


def _names(library: Library) -> dict[str, str]:
    """Readable names of every skill (``skill_name``; a name several skills share is replaced by each one's
    statement, so they can be told apart) and every outcome (its label)."""
    names: dict[str, str] = {}
    for spec in library.specs.values():
        for o in spec.model.outcomes:
            names[o.id] = o.label
    base = {sid: skill_name(library, sid) or sid for sid in library.skills}
    shared: dict[str, int] = {}
    for name in base.values():
        shared[name] = shared.get(name, 0) + 1
    for sid, name in base.items():
        names[sid] = library.skills[sid].model.metadata.skill_statement if shared[name] > 1 else name
    return names


def _skill_info(library: Library) -> dict[str, dict]:
    names = _names(library)
    info: dict[str, dict] = {}
    for spec in library.specs.values():
        m = spec.model
        for o in m.outcomes:
            info[o.id] = {"name": o.label, "outcome_id": o.id, "outcome": o.label,
                          "subject": m.subject, "level": m.level}
    for sid, loaded in library.skills.items():
        meta = loaded.model.metadata
        outcome_id = meta.outcome_ids[0] if meta.outcome_ids else None
        outcome = info.get(outcome_id, {}) if outcome_id else {}
        info[sid] = {"name": names[sid], "outcome_id": outcome_id,
                     "outcome": outcome.get("outcome"), "subject": meta.subject or outcome.get("subject"),
                     "level": meta.level or outcome.get("level")}
    return info


def outcome_info(library: Library, outcome_id: str) -> dict:
    """{outcome_id, label, subject, level} of a course outcome (the id as its label when no spec has it)."""
    for spec in library.specs.values():
        m = spec.model
        for o in m.outcomes:
            if o.id == outcome_id:
                return {"outcome_id": o.id, "label": o.label, "subject": m.subject, "level": m.level}
    return {"outcome_id": outcome_id, "label": outcome_id, "subject": None, "level": None}


def band(score: float) -> str:
    if score >= SECURE:
        return "Secure"
    if score >= DEVELOPING:
        return "Developing"
    return "Needs work"


def mastery_rows(library: Library, mastery: dict[str, float]) -> list[dict]:
    """One row per skill the student has evidence on, strongest first."""
    info = _skill_info(library)
    rows = []
    for skill, score in mastery.items():
        i = info.get(skill, {})
        rows.append({"skill": skill, "name": i.get("name") or skill, "score": float(score),
                     "percent": round(100 * float(score)), "band": band(float(score)),
                     "outcome_id": i.get("outcome_id"), "outcome": i.get("outcome"),
                     "subject": i.get("subject"), "level": i.get("level")})
    rows.sort(key=lambda r: (-r["score"], r["name"]))
    return rows


def student_mastery(store: Store, library: Library, student: str) -> list[dict]:
    return mastery_rows(library, sessions.get_mastery(store, student))


def outcome_rows(library: Library, rows: list[dict], abilities: dict[str, dict]) -> list[dict]:
    """Each outcome the student has evidence on: its ability in words, and its skills' mastery rolled up.

    ``rows`` are ``mastery_rows``; ``abilities`` the stored estimates (outcome id -> {theta, se, n, correct}).
    Per outcome: outcome_id, label, subject, level, ability (the estimate or None), words
    (``ability_words``, None without an estimate), skills (the outcome's skill rows, weakest first),
    mastery_percent (their mean mastery, None without any). By course, then weakest ability first.
    """
    ids = list(dict.fromkeys([*abilities, *(r["outcome_id"] for r in rows if r["outcome_id"])]))
    out = []
    for oid in ids:
        info = outcome_info(library, oid)
        skills = sorted((r for r in rows if r["outcome_id"] == oid), key=lambda r: (r["score"], r["name"]))
        ability = abilities.get(oid)
        out.append({**info, "ability": ability, "words": ability_words(ability) if ability else None,
                    "skills": skills,
                    "mastery_percent": round(100 * sum(r["score"] for r in skills) / len(skills)) if skills else None})
    out.sort(key=lambda o: (o["subject"] or "", o["level"] or "",
                            (o["ability"] or {}).get("theta", PRIOR_THETA), o["outcome_id"]))
    return out


def student_outcomes(store: Store, library: Library, student: str, rows: Optional[list[dict]] = None) -> list[dict]:
    """``outcome_rows`` for a student, from the store."""
    if rows is None:
        rows = student_mastery(store, library, student)
    return outcome_rows(library, rows, outcome_ability.get_abilities(store, student))


def strongest_and_weakest(rows: list[dict], n: int = 3) -> tuple[list[dict], list[dict]]:
    """Up to n strongest and n weakest skills, never the same skill in both (rows strongest first)."""
    if not rows:
        return [], []
    k = min(n, (len(rows) + 1) // 2)
    strongest = rows[:k]
    weakest = list(reversed(rows[k:]))[:n] if len(rows) > 1 else []
    return strongest, weakest


def next_to_practise(rows: list[dict]) -> Optional[dict]:
    """The outcome of the weakest skill that belongs to a course: {subject, level, outcome, skill, name, percent}."""
    for row in sorted(rows, key=lambda r: (r["score"], r["name"])):
        if row["outcome_id"] and row["subject"] and row["level"]:
            return {"subject": row["subject"], "level": row["level"], "outcome": row["outcome_id"],
                    "outcome_label": row["outcome"] or row["outcome_id"], "skill": row["skill"],
                    "name": row["name"], "percent": row["percent"]}
    return None


def skill_names(library: Library, skill_ids: Sequence[str]) -> list[str]:
    """Readable names for skill ids (and outcome ids: their labels); an unknown id stays as it is."""
    names = _names(library)
    return [names.get(s) or s for s in skill_ids]


def skill_label(library: Library, skill_id: Optional[str]) -> Optional[str]:
    """One skill's (or outcome's) readable name, as ``skill_names`` gives it; None for None."""
    return None if skill_id is None else skill_names(library, [skill_id])[0]
