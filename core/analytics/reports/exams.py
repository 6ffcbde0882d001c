"""Mock-exam results: scores, grade distribution, section means and reliability."""
from __future__ import annotations

from typing import Any, Optional

import pandas as pd

from core.analytics import item_stats
from core.analytics.reports.common import _roster
from core.flows.evaluation import current_results
from core.flows.marks import current_marking
from core.store import Store
from core.store import analytics as data
from core.store import gradebook as marked


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
    results = _as_marked_now(store, results)
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
        if len(matrix) < 2 or len(common) < 2:
            continue   # reliability needs two students and two questions in common; one result says nothing of it
        forms.append({"form": form, **item_stats.reliability(matrix[common]),
                      "positions_left_out": int(len(matrix.columns) - len(common))})
    reliability = pd.DataFrame(forms)
    table = results[["name", "subject", "level", "submitted_at", "marks_awarded", "total_marks", "percent", "grade"]].copy()
    # Why a result's total is short of the paper's: questions that could not be marked and were left out.
    table["notes"] = [" ".join(n) for n in results["notes"]]
    return {"results": table, "grades": grades, "sections": sections, "reliability": reliability}


def _as_marked_now(store: Store, results: pd.DataFrame) -> pd.DataFrame:
    """The results with each exam's marks as they stand now: the judge's verdicts, re-marks and teachers'
    overrides folded in."""
    events = marked.events_for(store, results["session_id"], types=("marked", "remarked", "judged", "overridden"))
    now = [current_marking(events[sid]) or {} for sid in results["session_id"]]
    out = results.copy()
    for key in ("marks_awarded", "total_marks", "percent", "grade", "sections", "questions"):
        out[key] = [m.get(key, old) for m, old in zip(now, results[key])]
    out["notes"] = [list(m.get("notes") or old) for m, old in zip(now, results["notes"])]
    return out


EVALUATION_COLUMNS = ["name", "assessment", "assessment_id", "assigned", "submitted_at", "items_correct",
                      "total_items", "score_percent", "grade", "passed", "late", "overridden", "sections"]


def evaluation_report(store: Store, class_code: Optional[str] = None) -> dict[str, Any]:
    """The class's handed-in evaluations (from assessment blueprints), as they stand after any override.

    ``results``: one row per sitting (name, assessment title and id, whether it was assigned, when handed
    in, questions right of total, score, grade, passed, late, questions overridden, section accuracies);
    ``summary``: per assessment, how many sat it, the mean score and the pass rate.
    """
    sittings = marked.finished_sessions(store, "evaluation", class_code)
    events = marked.events_for(store, [s["id"] for s in sittings], types=("started", "completed", "overridden"))
    rows = []
    for s in sittings:
        res = current_results(events[s["id"]])
        if res is None:
            continue
        rows.append({"student": s["student"], "assessment": res.get("title") or res["assessment_id"],
                     "assessment_id": res["assessment_id"], "assigned": bool(s["config"].get("assignment_id")),
                     "submitted_at": s["completed_at"], "items_correct": res["items_correct"],
                     "total_items": res["total_items"], "score_percent": res["score_percent"], "grade": res["grade"],
                     "passed": bool(res["passed"]), "late": bool(res.get("late") or res.get("expired")),
                     "overridden": ", ".join(f"Q{r['number']}" for r in res["review"] if r.get("overrides")),
                     "sections": "; ".join(f"{x['section_title']} {x['accuracy_percent']:g}%"
                                           for x in res["section_results"])})
    if not rows:
        return {"results": pd.DataFrame(columns=EVALUATION_COLUMNS), "summary": pd.DataFrame()}
    frame = pd.DataFrame(rows).merge(_roster(store, class_code), on="student", how="left")
    frame["name"] = frame["name"].fillna(frame["student"])
    frame = frame.sort_values(["assessment", "submitted_at"], kind="stable")
    summary = (frame.groupby(["assessment", "assessment_id"], sort=True)
               .agg(sittings=("student", "size"), students=("student", "nunique"),
                    mean_score=("score_percent", "mean"), pass_rate=("passed", "mean"))
               .reset_index())
    summary["mean_score"] = summary["mean_score"].round(1)
    summary["pass_rate"] = (100 * summary["pass_rate"]).round(1)
    return {"results": frame[EVALUATION_COLUMNS].reset_index(drop=True), "summary": summary}
