"""Pieces of the Analytics page: cached report reads, tables with their help and downloads, and the charts.

Reports are read through ``load``: cached per data version (a cheap
fingerprint of the store, ``core.store.analytics_version``, looked up when
the teacher arrives on the page, on Refresh, after a calibration, and at
most every ``REFRESH_S`` seconds otherwise), so a rerun that changes
nothing reads nothing; ``warm`` reads the other tabs ahead while the teacher
reads the open one. Figures are built by ``*_figure`` functions (plain plotly, so
tests can look inside them) and drawn by the ``show_*`` functions, each
with the words of ``core.analytics.explain`` beside it.
"""
from __future__ import annotations

import collections
import datetime as dt
import hashlib
import logging
import threading
import time
from typing import Any, Callable, Optional

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from core.analytics import calibration as cal
from core.analytics import evidence, explain, reports
from core.analytics.reports import readable
from core.store import school
from core.store.analytics_version import analytics_version
from ui.activity import GaveUp, keep_running, pausing, wait_for_quiet

# ---------------------------------------------------------------------------------------------------------------
# Cached report reads

_LOADERS: dict[str, Callable[..., Any]] = {
    "classes": lambda wb: school.list_classes(wb.store),
    "abilities": lambda wb, code: reports.abilities(wb.store, code),
    "overview": lambda wb, code: reports.class_overview(wb.store, code),
    "weakest": lambda wb, code: reports.class_weakest(wb.store, wb.library, code),
    "matrix": lambda wb, code: reports.mastery_matrix(wb.store, wb.library, code),
    "matrix_answers": lambda wb, code: reports.mastery_answers(wb.store, wb.library, code),
    "student": lambda wb, who: reports.student_report(wb.store, wb.library, who),
    "parameters": lambda wb: reports.latest_parameters(wb.store),
    "wright": lambda wb: reports.wright_map(wb.store),
    "levels": lambda wb: _levels(reports.latest_parameters(wb.store)[1]),
    "items": lambda wb, code: reports.item_table(wb.store, code),
    "answered": lambda wb, code: reports.answered_blueprints(wb.store, code),
    "exams": lambda wb, code: reports.exam_report(wb.store, code),
    "evaluations": lambda wb, code: reports.evaluation_report(wb.store, code),
}


def _levels(params: pd.DataFrame) -> pd.DataFrame:
    return cal.level_order(params) if not params.empty else pd.DataFrame()


REFRESH_S = 30   # how often a visit looks again for new data: in a live lesson answers arrive every second


def data_version(wb, force: bool = False) -> str:
    """What the cached reads are keyed on: the store's fingerprint, the library, and today's date (figures such as
    "active in the last 7 days" move with the calendar).

    The fingerprint is looked up at most every ``REFRESH_S`` seconds per visit (or now, with ``force``), so a
    teacher's clicks during a lesson, while students answer, are served from the cache rather than each
    recomputing everything; ``data_as_of`` says when it was read.
    """
    seen = st.session_state.get("an_version")
    now = time.time()
    if force or seen is None or now - seen[1] > REFRESH_S or seen[2] != wb.store.label:
        seen = st.session_state["an_version"] = (current_version(wb), now, wb.store.label)
    return seen[0]


def current_version(wb) -> str:
    return f"{analytics_version(wb.store)}|{id(wb.library)}:{len(wb.library.generators)}|{dt.date.today()}"


def data_as_of() -> str:
    seen = st.session_state.get("an_version")
    return dt.datetime.fromtimestamp(seen[1]).strftime("%H:%M:%S") if seen else "now"


@st.cache_data(show_spinner=False, max_entries=400)
def _cached(name: str, version: str, args: tuple, _wb) -> Any:
    if name == "blueprint":
        code, bp = args
        theta = load(_wb, version, "abilities", code).set_index("student")["theta"]
        return reports.blueprint_report(_wb.store, code, bp, ability=theta)
    return _LOADERS[name](_wb, *args)


def load(wb, version: str, name: str, *args: Any) -> Any:
    """A report read once per data version (``name`` one of the loaders, with its arguments)."""
    return _cached(name, version, tuple(args), wb)


log = logging.getLogger(__name__)
READ_AHEAD = "analytics-read-ahead"
READ_AHEAD_IDLE_S = 0.75   # reads ahead only once the app has been quiet this long: never slows a click
# The Class tab of a class a teacher has open, read again after new answers: what the teacher sees first on coming
# back, so it waits for a shorter pause (in a lesson, with the class answering, pauses of 0.75 s are rare).
WATCH_IDLE_S = 0.25
READ_AHEAD_GIVE_UP_S = 120
_warmed: set[str] = set()
_warm_lock = threading.Lock()


def warm(wb, version: str, code: str, student: Optional[str], blueprint: Optional[str]) -> None:
    """Read ahead, in a background thread, what the other tabs show (once per data version, class, student and
    blueprint), so the teacher's first click on a tab finds it cached instead of waiting for it."""
    key = f"{version}|{code}|{student}|{blueprint}"
    with _warm_lock:
        if key in _warmed:
            return
        if len(_warmed) > 1000:
            _warmed.clear()
        _warmed.add(key)
    reads: list[tuple] = [("overview", code), ("abilities", code), ("weakest", code), ("matrix", code),
                          ("matrix_answers", code), ("parameters",), ("levels",), ("wright",), ("items", code),
                          ("exams", code), ("evaluations", code)]
    reads += [("student", student)] if student else []
    reads += [("answered", code)] + ([("blueprint", code, blueprint)] if blueprint else [])
    # Not a daemon: the interpreter waits for it at exit instead of stopping it inside the database engine.
    threading.Thread(target=_read_ahead, args=(wb, version, reads), name=READ_AHEAD, daemon=False).start()


def _read_ahead(wb, version: str, reads: list[tuple], idle_s: float = READ_AHEAD_IDLE_S) -> None:
    give_up = time.monotonic() + READ_AHEAD_GIVE_UP_S
    for name, *args in reads:
        if not wait_for_quiet(idle_s, give_up):   # someone is clicking: wait for a pause
            return
        try:
            load(wb, version, name, *args)
        except Exception as exc:   # the page reads it again when the tab opens, and shows the error there
            log.warning("Analytics: reading %s ahead failed (%s); the page reads it when that tab opens", name, exc)


WATCH_S = 5           # how often the data are looked at for a class a teacher has open in Analytics
WATCH_FOR_S = 1800    # for how long after the teacher last opened it
_watched: dict[str, float] = {}   # class code: watched until (monotonic)
_watch_lock = threading.Lock()
_watcher: dict[str, Any] = {"thread": None}
fresh: dict[str, str] = {}   # class code: the data version its Class tab was last read ahead for


def keep_fresh(wb, code: str) -> None:
    """While a teacher has had the class open in Analytics in the last half hour, read its Class tab again in
    the background whenever the data change (students answering during a lesson), so coming back to the page
    finds the newest figures already made instead of making them then."""
    with _watch_lock:
        _watched[code] = time.monotonic() + WATCH_FOR_S
        # Not a daemon: the interpreter waits for it at exit instead of stopping it inside the database.
        keep_running(_watcher, lambda: _watch(wb), READ_AHEAD, daemon=False)


def _watch(wb) -> None:
    main = threading.main_thread()
    while True:
        wake = time.monotonic() + WATCH_S
        while time.monotonic() < wake:
            if not main.is_alive():   # the process is ending: stop before the database closes
                return
            time.sleep(0.25)
        with _watch_lock:
            now = time.monotonic()
            for code in [c for c, until in _watched.items() if until < now]:
                del _watched[code]
            codes = list(_watched)
            if not codes:
                _watcher["thread"] = None
                return
        try:
            version = current_version(wb)
        except Exception as exc:   # the database is closing or busy: the page reads it itself
            log.info("Analytics: looking for new data failed (%s); the page reads it when opened", exc)
            return
        for code in codes:
            if fresh.get(code) != version:
                _read_ahead(wb, version, [("classes",), *((name, code) for name in CLASS_TAB)], WATCH_IDLE_S)
                _draw_ahead(wb, version, code, pausing(WATCH_IDLE_S))
                fresh[code] = version


CLASS_TAB = ("overview", "abilities", "weakest", "matrix", "matrix_answers")


def _draw_ahead(wb, version: str, code: str, pause: Callable[[], None]) -> None:
    """The Class tab's figures, built for the data just read (``figure`` keeps them), each after ``pause()``: the
    heatmap first (the tab shows it at once), then the two charts of the section the teacher may open."""
    try:
        overview, ability = load(wb, version, "overview", code), load(wb, version, "abilities", code)
        matrix, answers = load(wb, version, "matrix", code), load(wb, version, "matrix_answers", code)
        if not matrix.empty:
            pause()
            figure(heatmap_figure, matrix, answers)
        if not overview["activity"].empty:
            pause()
            figure(activity_figure, overview["activity"])
        if not ability.empty:
            pause()
            figure(abilities_figure, ability)
    except GaveUp:
        log.info("Analytics: the app was not quiet before the charts' deadline; the page draws them when opened")
    except Exception as exc:   # the page builds them itself, and shows any error there
        log.warning("Analytics: drawing the charts ahead failed (%s); the page draws them when opened", exc)


# ---------------------------------------------------------------------------------------------------------------
# Tables and words

FRACTION = ("facility", "facility_low", "facility_high", "accuracy", "accuracy_low", "accuracy_high", "p_correct",
            "point_biserial", "upper_lower", "mastery", "mean_mastery", "share_below", "share", "alpha", "kr20",
            "mean_score", "r")
LOGIT = ("difficulty", "se", "low", "high", "measured", "declared", "theta", "infit", "outfit", "discrimination",
         "se_difficulty", "se_discrimination", "mean_ability", "logit_slope", "spread")
# Intervals go beside the figure they belong to.
BESIDE = {"facility": ("facility_low", "facility_high"), "accuracy": ("accuracy_low", "accuracy_high"),
          "difficulty": ("low", "high"), "measured": ("low", "high"), "theta": ("low", "high")}


def column_config(columns) -> dict[str, Any]:
    """Every column's tooltip (``explain.COLUMN_HELP``) and number format; "few answers" as a tick box."""
    config: dict[str, Any] = {}
    for col, text in explain.column_help(columns).items():
        if col == "few_answers":
            config[col] = st.column_config.CheckboxColumn("few answers", help=text)
        elif col == "advice":
            config[col] = st.column_config.TextColumn("what to do", help=text, width="large")
        elif col in FRACTION or col in LOGIT:
            config[col] = st.column_config.NumberColumn(col, help=text, format="%.2f")
        else:
            config[col] = st.column_config.Column(col, help=text)
    return config


def column_order(columns) -> list[str]:
    """The columns with each interval moved beside its figure, and the flag and advice last."""
    cols = list(columns)
    intervals = {p for c, pair in BESIDE.items() if c in cols for p in pair}
    last = [c for c in ("few_answers", "advice") if c in cols]
    out: list[str] = []
    for c in cols:
        if c in intervals or c in last:
            continue
        out.append(c)
        out += [p for p in BESIDE.get(c, ()) if p in cols and p not in out]
    return out + [c for c in cols if c in intervals and c not in out] + last


def table(frame: Optional[pd.DataFrame], name: str, key: str, note: Optional[str] = None) -> None:
    """A table with its columns explained, the small-number warning above it, and CSV and Parquet downloads
    (made only when clicked)."""
    if frame is None or frame.empty:
        st.caption("Nothing to show yet.")
        return
    if note:
        st.warning(note, icon=":material/info:")
    st.dataframe(frame, hide_index=True, column_config=column_config(frame.columns),
                 column_order=column_order(frame.columns), key=f"{key}_table")
    cols = st.columns([1, 1, 6])
    cols[0].download_button("CSV", lambda: reports.downloads(frame)["csv"], file_name=f"{name}.csv",
                            mime="text/csv", key=f"{key}_csv")
    cols[1].download_button("Parquet", lambda: reports.downloads(frame)["parquet"], file_name=f"{name}.parquet",
                            mime="application/octet-stream", key=f"{key}_parquet")


def reading(read: readable.Reading, name: str, key: str) -> None:
    table(read.frame, name, key, read.note)


def explained(*terms: str, label: str = "What do these figures mean?") -> None:
    """The long explanations of ``terms``, with what to do, in an expander."""
    with st.expander(label):
        st.markdown(explain.explanation(*terms))


def chart(fig: go.Figure, key: str) -> None:
    st.plotly_chart(fig, width="stretch", key=key)


_FIGURES: "collections.OrderedDict[tuple, go.Figure]" = collections.OrderedDict()
_FIGURES_LOCK = threading.Lock()
MAX_FIGURES = 64


def _frame_key(frame: Any) -> Any:
    if not isinstance(frame, pd.DataFrame):
        return repr(frame)
    digest = hashlib.sha1(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    digest.update(repr((list(frame.columns), frame.shape)).encode())
    return digest.hexdigest()


def figure(build: Any, *frames: Any) -> go.Figure:
    """``build(*frames)``, built once for the same data: plotly checks every property as a figure is built,
    a quarter of a second for the heatmap, so each rerun of the page would pay it again (read only after)."""
    key = (build.__name__, *(_frame_key(f) for f in frames))
    with _FIGURES_LOCK:
        if key in _FIGURES:
            _FIGURES.move_to_end(key)
            return _FIGURES[key]
    fig = build(*frames)
    with _FIGURES_LOCK:
        _FIGURES[key] = fig
        while len(_FIGURES) > MAX_FIGURES:
            _FIGURES.popitem(last=False)
    return fig


def _laid_out(fig: go.Figure, height: int) -> go.Figure:
    fig.update_layout(height=height, margin={"l": 10, "r": 10, "t": 40, "b": 10})
    return fig


# ---------------------------------------------------------------------------------------------------------------
# Figures (plain plotly, no Streamlit: tests build and inspect them)

def activity_figure(activity: pd.DataFrame) -> go.Figure:
    days = pd.to_datetime(activity["day"]).dt.strftime("%d %b")   # one bar per day, however few days there are
    fig = go.Figure()
    fig.add_bar(x=days, y=activity["responses"], name="answers")
    fig.add_scatter(x=days, y=activity["accuracy"] * 100, name="accuracy (%)", yaxis="y2", mode="lines+markers")
    fig.update_layout(title="Answers per day and accuracy", yaxis={"title": "answers"},
                      yaxis2={"title": "accuracy (%)", "overlaying": "y", "side": "right", "range": [0, 100]})
    return _laid_out(fig, 320)


def abilities_figure(abilities: pd.DataFrame) -> go.Figure:
    fig = go.Figure(go.Histogram(x=abilities["theta"], nbinsx=20, name="students",
                                 hovertemplate="ability %{x}<br>%{y} students<extra></extra>"))
    fig.update_layout(title="Ability distribution (logits: 0 = an even chance on an average item)",
                      xaxis={"title": "ability (logits)"}, yaxis={"title": "students"})
    return _laid_out(fig, 300)


def heatmap_figure(matrix: pd.DataFrame, answers: Optional[pd.DataFrame] = None) -> go.Figure:
    """Students x skills mastery, with short axis labels and the full names, mastery and the answers behind each
    cell on hover; as tall as its rows need."""
    skills, students = [str(c) for c in matrix.columns], [str(i) for i in matrix.index]
    counts = (answers.reindex(index=matrix.index, columns=matrix.columns).fillna(0).to_numpy(dtype=int)
              if answers is not None and not answers.empty else np.zeros(matrix.shape, dtype=int))
    few = np.where(counts < evidence.FEW_ANSWERS_MASTERY, " (few answers: a rough guide)", "")
    custom = np.dstack([counts.astype(object), few.astype(object)])   # the full name is the cell's x: not repeated
    many = len(skills) > 8
    fig = go.Figure(go.Heatmap(
        z=matrix.to_numpy(dtype=float), x=skills, y=students, zmin=0, zmax=1, colorscale="RdYlGn",
        customdata=custom, colorbar={"title": "mastery"}, xgap=1, ygap=1,
        hovertemplate="<b>%{y}</b><br>%{x}<br>mastery %{z:.2f} from %{customdata[0]} practice "
                      "answers%{customdata[1]}<extra></extra>"))
    ticks = [readable.axis_label(s, width=24 if many else 14, lines=1 if many else 3) for s in skills]
    bottom = 150 if many else 70
    fig.update_xaxes(tickmode="array", tickvals=skills, ticktext=ticks, tickangle=-45 if many else 0, side="bottom",
                     title=None, automargin=True)
    names = [readable.axis_label(s, 22, 1) for s in students]
    fig.update_yaxes(tickmode="array", tickvals=students, ticktext=names, autorange="reversed", title=None,
                     automargin=True)
    fig.update_layout(title="Mastery by student and skill",
                      height=max(320, 26 * len(students) + bottom + 60),
                      margin={"l": 20 + 7 * max((len(n) for n in names), default=0), "r": 10, "t": 40, "b": bottom})
    return fig


LINE_POINTS = 400   # a line drawn across the page shows no more; a keen student's thousands of answers drew slowly


def running_accuracy_figure(history: pd.DataFrame, points: int = LINE_POINTS) -> go.Figure:
    """Accuracy so far after each answer: every answer's point up to ``points`` answers, beyond that every k-th
    (and the last), which a line as wide as the page draws the same."""
    step = -(-len(history) // points) if len(history) > points else 1
    shown = history.iloc[list(range(0, len(history) - 1, step)) + [len(history) - 1]] if step > 1 else history
    fig = go.Figure(go.Scatter(x=shown["answer_number"], y=shown["running_accuracy"], mode="lines",
                               name="accuracy so far"))
    fig.update_layout(title="Running accuracy", xaxis={"title": "answer"},
                      yaxis={"title": "accuracy so far", "range": [0, 1]})
    return _laid_out(fig, 280)


MASTERY_LINES = 6   # skills drawn in "mastery over time": more lines cannot be told apart (and draw slowly)


def mastery_history_figure(mh: pd.DataFrame, lines: int = MASTERY_LINES) -> go.Figure:
    """Mastery after each practice answer, one line per skill: the ``lines`` skills with the lowest mastery now."""
    last = mh.groupby("skill_name", sort=True)["mastery"].last().sort_values(kind="stable")
    shown = mh[mh["skill_name"].isin(set(last.index[:lines]))]
    fig = go.Figure()
    for skill, part in shown.groupby("skill_name", sort=True):
        fig.add_scatter(x=part["created_at"], y=part["mastery"], mode="lines+markers", name=str(skill))
    fig.update_layout(title="Mastery over time", yaxis={"title": "mastery", "range": [0, 1]},
                      legend={"title": "skill"})
    return _laid_out(fig, 360)


def declared_measured_figure(order: pd.DataFrame) -> go.Figure:
    fig = go.Figure()
    for level, part in order.groupby("level", sort=False):
        fig.add_scatter(x=part["declared"], y=part["measured"], mode="markers", name=str(level),
                        error_y={"type": "data", "array": part["se"] * evidence.Z95},
                        customdata=np.column_stack([part["blueprint_id"], part["n"]]),
                        hovertemplate="<b>%{customdata[0]}</b><br>declared %{x:.2f}, measured %{y:.2f}<br>"
                                      "from %{customdata[1]} answers<extra>%{fullData.name}</extra>")
    lo = float(min(order["declared"].min(), order["measured"].min()))
    hi = float(max(order["declared"].max(), order["measured"].max()))
    fig.add_shape(type="line", x0=lo, y0=lo, x1=hi, y1=hi, line={"dash": "dot", "color": "grey"})
    fig.update_layout(title="Declared against measured difficulty (logits, with 95% intervals)",
                      xaxis={"title": "declared"}, yaxis={"title": "measured"}, legend={"title": "level"})
    return _laid_out(fig, 380)


def icc_figure(curves: pd.DataFrame) -> go.Figure:
    fig = go.Figure()
    for unit, part in curves.groupby("unit", sort=False):
        fig.add_scatter(x=part["theta"], y=part["p"], mode="lines", name=str(unit))
    fig.update_layout(title="Item characteristic curves", xaxis={"title": "ability (logits)"},
                      yaxis={"title": "P(correct)", "range": [0, 1]})
    return _laid_out(fig, 340)


def wright_figure(abilities: pd.DataFrame, units: pd.DataFrame) -> go.Figure:
    fig = go.Figure()
    fig.add_histogram(y=abilities["theta"], name="students", orientation="h", opacity=0.7)
    fig.add_histogram(y=units["difficulty"], name="questions", orientation="h", opacity=0.7)
    fig.update_layout(barmode="overlay", title="Wright map: students and question difficulties",
                      yaxis={"title": "logits"}, xaxis={"title": "count"})
    return _laid_out(fig, 380)


def grades_figure(grades: pd.DataFrame) -> go.Figure:
    order = ["A", "B", "C", "D", "No award"]
    ranked = order + sorted(set(grades["grade"]) - set(order))
    shown = grades.assign(_rank=grades["grade"].map(ranked.index)).sort_values("_rank")
    fig = go.Figure(go.Bar(x=shown["grade"], y=shown["students"], name="students"))
    fig.update_layout(title="Grade distribution", xaxis={"title": "grade"}, yaxis={"title": "students"})
    return _laid_out(fig, 300)


def sections_figure(sections: pd.DataFrame) -> go.Figure:
    fig = go.Figure()
    for course, part in sections.groupby("course", sort=False):
        fig.add_bar(x=part["section"], y=part["mean"], name=str(course))
    fig.update_layout(title="Mean mark by section (%)", barmode="group", yaxis={"title": "mean (%)", "range": [0, 100]})
    return _laid_out(fig, 300)


# ---------------------------------------------------------------------------------------------------------------
# Sections of the page

def show_activity(activity: pd.DataFrame) -> None:
    if activity.empty:
        st.caption("No answers yet.")
        return
    chart(figure(activity_figure, activity), "activity")
    st.caption(explain.METRIC_HELP["activity"])


def show_abilities(abilities: pd.DataFrame) -> None:
    if abilities.empty:
        st.caption("No abilities yet: students need to answer some questions.")
        return
    chart(figure(abilities_figure, abilities), "ability_hist")
    note = readable.abilities(abilities).note
    if note:
        st.warning(note, icon=":material/info:")
    st.caption(f"Abilities: {abilities['source'].iloc[0]}. {explain.term('logits').short}")
    explained("logits", "ability", "interval", label="What are logits, abilities and intervals?")


def show_heatmap(matrix: pd.DataFrame, answers: pd.DataFrame) -> None:
    if matrix.empty:
        st.caption("No mastery scores yet.")
        return
    chart(figure(heatmap_figure, matrix, answers), "heatmap")
    counts = answers.reindex(index=matrix.index, columns=matrix.columns).fillna(0) if not answers.empty else None
    scored = matrix.notna().to_numpy()
    thin = int((scored & (counts.to_numpy() < evidence.FEW_ANSWERS_MASTERY)).sum()) if counts is not None else 0
    words = (f" {thin} of {int(scored.sum())} scores rest on fewer than {evidence.FEW_ANSWERS_MASTERY} practice "
             f"answers: hover a cell to see how many." if thin else "")
    st.caption(f"{explain.term('mastery').short} Hover a cell for the skill's full name and the answers behind it; "
               f"blank: no answers on that skill yet.{words}")
    explained("mastery", "bkt mastery", label="What is mastery?")


def show_student(report: dict, ability: pd.DataFrame) -> None:
    if not ability.empty:
        a = ability.iloc[0]
        st.metric("Ability (logits)", f"{a['theta']:+.2f}", help=explain.tooltip("ability", "logits"))
        st.caption(f"95% interval {a['low']:+.2f} to {a['high']:+.2f}, from {int(a['n'])} answers ({a['source']}).")
        if a["n"] < evidence.FEW_ANSWERS_STUDENT:
            st.warning(f"This ability rests on {int(a['n'])} answers, fewer than {evidence.FEW_ANSWERS_STUDENT}: "
                       "read it as a rough guide until the student has answered more.", icon=":material/info:")
    if report["history"].empty:
        st.caption("This student has not answered anything yet.")


def show_student_charts(report: dict) -> None:
    """The student's running accuracy and mastery over time (drawn when their section is opened)."""
    history = report["history"]
    if history.empty:
        st.caption("No answers yet, so nothing to chart.")
        return
    chart(figure(running_accuracy_figure, history[["answer_number", "running_accuracy"]]), "running_accuracy")
    mh = report["mastery_history"]
    if mh.empty:
        st.caption("No practice answers yet, so no mastery over time to show.")
        return
    chart(figure(mastery_history_figure, mh), "mastery_over_time")
    many = mh["skill_name"].nunique() > MASTERY_LINES
    st.caption((f"The {MASTERY_LINES} skills with the lowest mastery now; every skill is in the table below. "
                if many else "") + explain.term("mastery").short)


def show_declared_vs_measured(order: pd.DataFrame) -> None:
    if order.empty:
        st.caption("Calibrate by family (or auto) to compare declared with measured difficulty.")
        return
    chart(figure(declared_measured_figure, order), "declared_measured")
    st.caption("Each dot is a blueprint level; on the dotted line it measures as hard as declared. "
               + explain.term("difficulty").short)
    explained("difficulty", "logits", "interval", label="What is measured difficulty?")


def show_icc(curves: pd.DataFrame) -> None:
    chart(figure(icc_figure, curves), "icc")
    st.caption(explain.term("characteristic curve").short)


def show_wright(abilities: pd.DataFrame, units: pd.DataFrame) -> None:
    if abilities.empty:
        st.caption("Run a calibration to see students and questions on one scale.")
        return
    chart(figure(wright_figure, abilities, units), "wright")
    st.caption(explain.term("wright map").short + " " + explain.term("wright map").todo)


def show_grades(grades: pd.DataFrame, sections: pd.DataFrame) -> None:
    chart(figure(grades_figure, grades), "grades")
    if not sections.empty:
        chart(figure(sections_figure, sections), "sections")
