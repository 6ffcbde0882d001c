"""An assessment at a glance: each section's items, weight in the score, skills and difficulty mix."""
from __future__ import annotations

from core.blueprints.models import AssessmentBlueprint


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
