"""Mock-exam results: scores, grade distribution, section means and reliability."""
from __future__ import annotations

from typing import Any, Optional

import pandas as pd

from core.analytics import item_stats
from core.analytics.reports.common import _roster
from core.store import Store
from core.store import analytics as data


def exam_report(store: Store, class_code: Optional[str] = None) -> dict[str, Any]:
    """Results, grade distribution, section means and reliability of the class's marked mock exams.

    Students sit different items (every paper is drawn fresh for novelty), so
    reliability is computed over question positions of one course's paper
    (question 1 to n, the same outcome and marks for everyone), which is what
    the paper as a test form is; positions not every paper reached (papers
    differ by a question or two) are left out and counted.
    """
    results = data.exam_results(store, class_code)
    if results.empty:
        return {"results": results, "grades": pd.DataFrame(), "sections": pd.DataFrame(), "reliability": pd.DataFrame()}
    results = results.merge(_roster(store, class_code), on="student", how="left")
    grades = results.groupby("grade").size().rename("students").reset_index()
    sections = pd.DataFrame([{"course": f"{r.subject} {r.level}", "section": s["section"], "percent": s["percent"]}
                             for r in results.itertuples() for s in (r.sections or [])])
    sections = sections.groupby(["course", "section"], sort=False)["percent"].agg(["mean", "count"]).reset_index()
    rows = []
    for r in results.itertuples():
        for q in (r.questions or {}).values():
            if q.get("unmarked"):
                continue   # not marked, so no evidence about the student either way
            rows.append({"student": r.student, "form": f"{r.subject} {r.level}", "item_id": f"Q{q['number']:02d}",
                         "correct": bool(q["correct"]), "score": q["marks_awarded"], "max_score": q["marks"],
                         "created_at": r.submitted_at})
    per_question = pd.DataFrame(rows)
    forms = []
    for form, answers in (per_question.groupby("form", sort=True) if len(per_question) else []):
        matrix = answers.pivot_table(index="student", columns="item_id", values="score", aggfunc="first")
        common = matrix.columns[matrix.notna().all()]   # papers differ in length: the positions everyone had
        forms.append({"form": form, **item_stats.reliability(matrix[common]),
                      "positions_left_out": int(len(matrix.columns) - len(common))})
    reliability = pd.DataFrame(forms)
    table = results[["name", "subject", "level", "submitted_at", "marks_awarded", "total_marks", "percent", "grade"]].copy()
    # Why a result's total is short of the paper's: questions that could not be marked and were left out.
    table["notes"] = [" ".join(n) for n in results["notes"]]
    return {"results": table, "grades": grades, "sections": sections, "reliability": reliability}
