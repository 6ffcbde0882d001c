"""A database holding approved items of every kind, as a school's would: bank questions and generated ones."""
from __future__ import annotations

from pathlib import Path

# One skill for each way we ask and mark a question.
SKILLS = {
    "SQA.MATH.N5.SINE_RULE": "multiple choice with a diagram",
    "SQA.MATH.AH.MATRIX_DETERMINANT": "multiple choice",
    "MATH.ARITH.ADD.2DIGIT": "multiple choice marked by its text",
    "SQA.MATH.N5.COSINE_RULE": "numeric within a tolerance, with a diagram",
    "SQA.MATH.AH.BINOMIAL_COEFF": "numeric within a tolerance",
    "SQA.MATH.N5.LINEAR_EQUATIONS": "numeric, exact",
    "SQA.MATH.N5.FRACTIONS_MIXED_NUMBERS": "a fraction, exact",
    "SQA.MATH.N5.PYTHAGORAS": "numeric with a mark per step",
    "SQA.MATH.H.DIFFERENTIATE": "algebraic",
    "SQA.MATH.H.COMPOSITE_FUNCTION": "algebraic",
    "SQA.MATH.N3.TIME_INTERVAL": "short text",
}


def stock(path: Path, library, per_skill: int = 2):
    """A store at ``path`` with the shipped banks and ``per_skill`` approved items of each skill above."""
    from core.items.banks import import_shipped_banks
    from core.store import Store, repo
    store = Store(path)
    import_shipped_banks(store)
    for skill in SKILLS:
        items = library.generator(skill).batch("easy", per_skill, seed="exchange").items
        repo.insert_items(store, items, status="approved")
    return store
