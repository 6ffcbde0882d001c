"""Pieces of the Analytics page: a table with its downloads, and the charts (each a show_* function)."""
from __future__ import annotations

import pandas as pd
import plotly.express as px
import plotly.graph_objects as go
import streamlit as st

from core.analytics import reports


def table(frame: pd.DataFrame, name: str, key: str) -> None:
    """A table with CSV and Parquet downloads under it."""
    if frame is None or frame.empty:
        st.caption("Nothing to show yet.")
        return
    st.dataframe(frame, hide_index=True)
    files = reports.downloads(frame)
    cols = st.columns([1, 1, 6])
    cols[0].download_button("CSV", files["csv"], file_name=f"{name}.csv", mime="text/csv", key=f"{key}_csv")
    cols[1].download_button("Parquet", files["parquet"], file_name=f"{name}.parquet",
                            mime="application/octet-stream", key=f"{key}_parquet")


def chart(fig, key: str) -> None:
    fig.update_layout(margin={"l": 10, "r": 10, "t": 30, "b": 10})
    st.plotly_chart(fig, width="stretch", key=key)


def show_activity(activity: pd.DataFrame) -> None:
    if activity.empty:
        st.caption("No answers yet.")
        return
    days = pd.to_datetime(activity["day"]).dt.strftime("%d %b")   # one bar per day, however few days there are
    fig = go.Figure()
    fig.add_bar(x=days, y=activity["responses"], name="answers")
    fig.add_scatter(x=days, y=activity["accuracy"] * 100, name="accuracy (%)", yaxis="y2", mode="lines+markers")
    fig.update_layout(title="Answers per day and accuracy", yaxis={"title": "answers"},
                      yaxis2={"title": "accuracy (%)", "overlaying": "y", "side": "right", "range": [0, 100]},
                      height=320)
    chart(fig, "activity")


def show_abilities(abilities: pd.DataFrame) -> None:
    if abilities.empty:
        st.caption("No abilities yet: students need to answer some questions.")
        return
    fig = px.histogram(abilities, x="theta", nbins=20, title="Ability distribution (logits)",
                       labels={"theta": "ability"})
    fig.update_layout(height=300)
    chart(fig, "ability_hist")
    st.caption(f"Abilities: {abilities['source'].iloc[0]}.")


def show_heatmap(matrix: pd.DataFrame) -> None:
    if matrix.empty:
        st.caption("No mastery scores yet.")
        return
    fig = px.imshow(matrix, zmin=0, zmax=1, color_continuous_scale="RdYlGn", aspect="auto",
                    labels={"color": "mastery", "x": "skill", "y": "student"}, title="Mastery: student x skill")
    fig.update_layout(height=max(320, 26 * len(matrix) + 140))
    chart(fig, "heatmap")


def show_student(report: dict, ability: pd.DataFrame) -> None:
    if not ability.empty:
        a = ability.iloc[0]
        st.metric("Ability (logits)", f"{a['theta']:+.2f}", help=f"95% interval {a['low']:+.2f} to {a['high']:+.2f}; "
                                                                 f"{a['source']}")
        st.caption(f"95% interval {a['low']:+.2f} to {a['high']:+.2f}, from {int(a['n'])} answers.")
    history = report["history"]
    if history.empty:
        st.caption("This student has not answered anything yet.")
        return
    fig = px.line(history, x="answer_number", y="running_accuracy", title="Running accuracy",
                  labels={"answer_number": "answer", "running_accuracy": "accuracy so far"}, range_y=[0, 1])
    fig.update_layout(height=280)
    chart(fig, "running_accuracy")
    mh = report["mastery_history"]
    if mh.empty:
        st.caption("No practice answers yet, so no mastery over time to show.")
        return
    fig = px.line(mh, x="created_at", y="mastery", color="skill_name", markers=True, title="Mastery over time",
                  labels={"created_at": "", "skill_name": "skill"}, range_y=[0, 1])
    fig.update_layout(height=360)
    chart(fig, "mastery_over_time")


def show_declared_vs_measured(order: pd.DataFrame) -> None:
    if order.empty:
        st.caption("Calibrate by family (or auto) to compare declared with measured difficulty.")
        return
    fig = px.scatter(order, x="declared", y="measured", color="level", hover_name="blueprint_id",
                     error_y=order["se"] * 1.96, title="Declared against measured difficulty (logits)")
    lo = float(min(order["declared"].min(), order["measured"].min()))
    hi = float(max(order["declared"].max(), order["measured"].max()))
    fig.add_shape(type="line", x0=lo, y0=lo, x1=hi, y1=hi, line={"dash": "dot", "color": "grey"})
    fig.update_layout(height=380)
    chart(fig, "declared_measured")


def show_icc(curves: pd.DataFrame) -> None:
    fig = px.line(curves, x="theta", y="p", color="unit", title="Item characteristic curves",
                  labels={"theta": "ability", "p": "P(correct)"}, range_y=[0, 1])
    fig.update_layout(height=340)
    chart(fig, "icc")


def show_wright(abilities: pd.DataFrame, units: pd.DataFrame) -> None:
    if abilities.empty:
        st.caption("Run a calibration to see students and questions on one scale.")
        return
    fig = go.Figure()
    fig.add_histogram(y=abilities["theta"], name="students", orientation="h", opacity=0.7)
    fig.add_histogram(y=units["difficulty"], name="questions", orientation="h", opacity=0.7)
    fig.update_layout(barmode="overlay", title="Wright map: students and question difficulties",
                      yaxis={"title": "logits"}, xaxis={"title": "count"}, height=380)
    chart(fig, "wright")


def show_grades(grades: pd.DataFrame, sections: pd.DataFrame) -> None:
    order = ["A", "B", "C", "D", "No award"]
    fig = px.bar(grades, x="grade", y="students", title="Grade distribution",
                 category_orders={"grade": order + sorted(set(grades["grade"]) - set(order))})
    fig.update_layout(height=300)
    chart(fig, "grades")
    if not sections.empty:
        fig = px.bar(sections, x="section", y="mean", color="course", barmode="group", range_y=[0, 100],
                     title="Mean mark by section (%)", labels={"mean": "mean (%)"})
        fig.update_layout(height=300)
        chart(fig, "sections")
