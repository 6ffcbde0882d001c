"""What every page shares: the process's workbench, session runner and LLM client (cached once per
process and closed when the server stops), sign-in checks, and small renderers (a question's text, an item card)."""
from __future__ import annotations

import atexit
import base64
import gc
import logging
import os
import re
import sys
import threading
import time
import urllib.parse
from typing import Any, Iterable, Optional

import duckdb
import streamlit as st

from core.analytics import snapshots
from core.exams.diagrams import diagram_svg
from core.llm.assist import Assistant
from core.school.auth import Client, teacher_passcode
from core.flows.base import Runner
from core.flows.registry import make_runner
from core.jobs import warming
from core.llm import LLMClient, LLMSettings, LLMStatus, llm_status, settings_fingerprint
from core.marking import right_options, warm_up
from core.store import Store, StoreError, default_db_path, repo
from core.store import school
from core.store.db import problem_kind, public_message, storage_error
from core.workbench import Workbench, open_workbench
from ui import activity
from ui.blocks import Paragraphs, readable


@st.cache_resource(show_spinner="Opening the database…")
def _open(db_path: str | None) -> Workbench:
    # Snapshots for notebooks now and every five minutes after changes; WORKBENCH_SNAPSHOT_INTERVAL=0 turns them off.
    interval = float(os.environ.get("WORKBENCH_SNAPSHOT_INTERVAL", "300"))
    wb = open_workbench(db_path, snapshot_interval_s=interval or None)
    atexit.register(_close_at_exit, wb.store)
    # Marking's slow first use, and each skill level's one-off sampling work (listing the parameter values its
    # constraints allow), done now in the background rather than during a student's first answer or exam.
    _start_warm_up(wb.library, [(c["subject"], c["level"]) for c in school.list_classes(wb.store)])
    return wb


# The library to warm up (and its classes' courses, done first), the thread doing it.
_warming: dict[str, Any] = {"library": None, "courses": (), "thread": None}
_warming_lock = threading.Lock()


def _start_warm_up(library, courses: Iterable[tuple[str, str]] = ()) -> None:
    """One thread at a time, for the newest library (a database opened again loads its library again), the
    skills of ``courses`` (subject, level) first.

    ``WORKBENCH_WARM_UP=0`` leaves it out (the test suite opens many databases in one process, and a warm-up
    of every skill costs seconds of CPU each time)."""
    if os.environ.get("WORKBENCH_WARM_UP", "1") == "0":
        return
    with _warming_lock:
        _warming["library"], _warming["courses"] = library, tuple(courses)
        activity.keep_running(_warming, _warm_up, "warm up marking and sampling", daemon=True)


def _warm_up() -> None:
    warm_up()
    done = None
    while _warming["library"] is not done:
        library = _warming["library"]
        # In a worker process: the app's page runs keep the interpreter.
        warming.warm_library(library, _warming["courses"])
        done = library


def _close_at_exit(store: Store) -> None:
    """When the server stops: drop the cached runner and clients (they hold cursors), let the snapshot taken at
    start finish, then close the file."""
    st.cache_resource.clear()
    snapshots.wait_for_start(store)
    store.close()


@st.cache_resource
def _client(fingerprint: str, settings_json: str, db_path: str | None) -> LLMClient:
    # One client per configuration: saving new settings gives a new fingerprint, hence a new client.
    return LLMClient(LLMSettings.model_validate_json(settings_json), _open(db_path).store)


@st.cache_resource
def _runner(db_path: str | None, fingerprint: str = "off", settings_json: str | None = None) -> Runner:
    wb = _open(db_path)
    helper = None
    if settings_json is not None:
        helper = Assistant(_client(fingerprint, settings_json, db_path), wb.library, wb.store)
    return make_runner(wb.store, wb.library, llm=helper)


_frozen_at = 0   # how many modules were loaded when long-lived objects were last set aside


def keep_long_lived() -> None:
    """Set the objects that live as long as the server out of the garbage collector's way (``gc.freeze``).

    Streamlit runs a full garbage collection after every script run; it walks
    every object the process holds, and with pandas, plotly, the LLM client and
    the blueprint library loaded that took a quarter of a second per click. What
    exists after a page's first run (modules, the library, cached resources) stays
    for the server's life, so it is frozen once more whenever new modules were
    loaded since the last time (a page opened for the first time); a click then
    collects only what it made itself.
    """
    global _frozen_at
    loaded = len(sys.modules)
    if loaded != _frozen_at:
        if not _frozen_at:
            # At exit they are collected again as usual (the database's objects are freed, not reported leaked).
            atexit.register(gc.unfreeze)
        _frozen_at = loaded
        gc.collect()     # what is garbage now is not frozen
        gc.freeze()


def bar_chart(frame, x: str, y: str, x_title: Optional[str] = None) -> None:
    """Bars of ``y`` for each ``x``, in the frame's order, as a Vega-Lite spec written here: ``st.bar_chart``
    builds it through Altair, whose schema check took a third of a page's run for two small charts."""
    st.vega_lite_chart(frame, {
        "mark": {"type": "bar", "tooltip": True},
        "encoding": {"x": {"field": x, "type": "nominal", "sort": None, "title": x_title or x,
                           "axis": {"labelAngle": 0}},
                     "y": {"field": y, "type": "quantitative", "title": y, "axis": {"tickMinStep": 1}}},
    }, width="stretch")


def log_run(started: float) -> None:
    """With WORKBENCH_RUN_LOG naming a file (the click benchmark sets it), append this script run's end (Unix
    time) and length in seconds, so the server's share of a click can be told from the browser's drawing.
    Fragment runs do not pass through app.py and are not logged."""
    path = os.environ.get("WORKBENCH_RUN_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(f"{time.time():.3f}\t{time.perf_counter() - started:.4f}\n")


# What the theme (.streamlit/config.toml) cannot set.
# - Streamlit draws the label of a disabled widget in the text colour at 40% opacity (2.6:1 on white); an inactive
#   control is exempt from WCAG's contrast rule, but its label still says what the control holds (the tutor's
#   course while the tutor is off), so it is drawn as readable as a caption: 5.8:1 on white, 5.3:1 on grey.
# - Keyboard focus: Streamlit rings buttons, expanders and tabs, but marks a focused page link, radio option or
#   tick box only with a faint tint (the same tint as the page that is open), the text boxes with a 1px border and
#   the scrolling page itself not at all; each gets a 2px ring in the primary colour (5.2:1 on grey and more).
#   A table's toolbar (download, search, full screen) shows only while the mouse is over the table: the Tab key
#   reached its buttons unseen, so it shows while one of them has the focus too.
_STYLE = """<style>
label[data-testid="stWidgetLabel"][disabled] { color: #5f676c; }
a[data-testid="stSidebarNavLink"]:focus-visible,
label[data-testid="stRadioOption"]:has(input:focus-visible),
label:has(input[type="checkbox"]:focus-visible),
[data-testid="stTextInputRootElement"]:has(input:focus-visible),
[data-testid="stTextAreaRootElement"]:has(textarea:focus-visible),
button[data-testid="stBaseButton-elementToolbar"]:focus-visible {
  outline: 2px solid #1f6f8b; outline-offset: 2px;
}
[data-testid="stElementToolbar"]:focus-within { opacity: 1; }
[data-testid="stMain"]:focus-visible { outline: 2px solid #1f6f8b; outline-offset: -2px; }
</style>"""


def styles() -> None:
    """The workbench's few style rules, put on the page once per run: by ``require`` on every signed-in page,
    and by the sign-in page (a block of style rules alone takes no space on the page)."""
    st.html(_STYLE)


def workbench() -> Workbench:
    """The process's workbench; stops the page with a one-line message if the database is unavailable."""
    try:
        return _open(os.environ.get("WORKBENCH_DB"))
    except STORAGE_FAILURES as exc:
        if public_message(exc) is None:
            raise
        storage_failed(exc, opened=False)
        st.stop()
    raise AssertionError("unreachable")


def runner() -> Runner:
    """The process's session runner (flows keep their state in the database; this caches it).

    With an LLM configured its question source and marking get the assistant
    (practice and lessons only; exams and evaluations never use it).
    """
    settings = llm().settings
    if settings is None:
        return _runner(os.environ.get("WORKBENCH_DB"))
    return _runner(os.environ.get("WORKBENCH_DB"), settings_fingerprint(settings), settings.model_dump_json())


def llm() -> LLMStatus:
    """Whether LLM features are on for this run, and with which settings."""
    return llm_status(secrets(), os.environ, workbench().store)


def llm_client() -> Optional[LLMClient]:
    """The LLM client for the settings in force, or None when LLM features are off."""
    status = llm()
    if not status.on:
        return None
    return _client(settings_fingerprint(status.settings), status.settings.model_dump_json(),
                   os.environ.get("WORKBENCH_DB"))


def llm_off(feature: str, status: Optional[LLMStatus] = None) -> None:
    """The sentence shown where an LLM feature would be: what is off and how to turn it on."""
    st.info(f"{feature} needs an LLM. {(status or llm()).message()}", icon="💡")


def secrets() -> dict:
    """Streamlit secrets as a plain dict ({} when no secrets file exists)."""
    try:
        return dict(st.secrets)
    except (FileNotFoundError, KeyError, OSError):
        return {}
    except Exception as exc:  # noqa: BLE001 - streamlit raises its own error type for a malformed secrets.toml
        st.warning(f"The secrets file could not be read ({exc}); using the environment instead.")
        return {}


def user() -> Optional[dict]:
    return st.session_state.get("user")


def client() -> Client:
    """Who is signing in, for slowing down wrong guesses: this browser session and its address when known.

    Streamlit gives no address for a connection from this machine; when that is a reverse proxy, the
    address it forwards is the last one in X-Forwarded-For (the one the proxy itself added).
    """
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    session = getattr(ctx, "session_id", None)
    try:
        address = st.context.ip_address
        if not address:
            forwarded = st.context.headers.get("X-Forwarded-For")
            address = forwarded.split(",")[-1].strip() if isinstance(forwarded, str) else None
    except Exception:  # noqa: BLE001 - no request behind this run (e.g. a test harness)
        address = None
    return Client(session=session if isinstance(session, str) and session else None,
                  address=address if isinstance(address, str) and address else None)


def require(role: str) -> dict:
    """The signed-in user of this role; any other visitor is stopped (navigation hides the page too)."""
    from ui.signed_in import through_app
    through_app()  # a page's file started without app.py (the first visit after the server starts)
    who = user()
    if not who or who.get("role") != role:
        st.error("This page is not available to you. Sign in with the right account.")
        st.stop()
    styles()
    return who


def teacher_banner() -> None:
    """Shown on every teacher page while the demo passcode still works."""
    if teacher_passcode(secrets()).is_demo:
        st.warning("The demo teacher passcode is in use. Set `teacher_passcode_hash` in `.streamlit/secrets.toml` "
                   "or `WORKBENCH_TEACHER_PASSCODE` in the environment before real students use the workbench.")


def error(exc: Exception) -> None:
    """A user-caused error as a sentence, never a stack trace."""
    st.error(str(exc))


# What the database or the disk can raise: app.py turns any of them, from any page, into one sentence.
STORAGE_FAILURES = (StoreError, duckdb.Error, OSError)
_log = logging.getLogger("workbench")


def storage_failed(exc: BaseException, opened: bool = True) -> None:
    """A database or disk failure as one sentence for the visitor: what happened and what to do.

    The visitor never sees a traceback or a server path; the details go to the
    server's log for whoever runs the workbench. When the failure left the open
    database unusable (DuckDB stops after a failed write to a full disk), it is
    closed, so the next page load opens the file again.
    """
    message = public_message(exc)
    if message is None:
        raise exc
    path = os.environ.get("WORKBENCH_DB") or default_db_path()
    _log.error("%s", storage_error(exc, path), exc_info=problem_kind(exc) is None)
    st.error(message, icon="⚠️")
    if not opened:
        return  # nothing cached: the next page load tries to open it again
    try:
        cached = _open(os.environ.get("WORKBENCH_DB"))
    except STORAGE_FAILURES:
        return  # not open: the next page load tries again anyway
    try:
        cached.store.query("SELECT 1")
    except (StoreError, duckdb.Error):
        _open.clear()
        _runner.clear()
        _client.clear()
        cached.store.close()


_MEDIA_REF = re.compile(r"!\[([^\]]*)\]\(([^)\s]+)\)")


def maths(text: str) -> str:
    """Markdown whose maths between $...$ Streamlit renders (for an alert or a caption): "$ x $" closed up."""
    return readable(text)


def stem(text: str, media: Optional[list] = None) -> None:
    """A question's text; maths between $...$ is rendered by Streamlit's markdown.

    Blueprints often write "$ x + 1 $"; Streamlit renders maths only when the
    dollars touch it, so the spaces are closed up first. A question brought in
    from another system shows its pictures and sounds (``media``) where its
    text places them (``![alt](name)``).
    """
    text = readable(text)
    files = {m["name"]: m for m in media or []}
    if not files:
        st.markdown(text)
        return
    last = 0
    for ref in _MEDIA_REF.finditer(text):
        if text[last:ref.start()].strip():
            st.markdown(text[last:ref.start()])
        _media(files.get(urllib.parse.unquote(ref[2])), ref[1])
        last = ref.end()
    if text[last:].strip():
        st.markdown(text[last:])


def media_of(question: dict[str, Any]) -> list[dict]:
    """The files of a question as a page shows it: a student's view names them, the item holds them."""
    media = question.get("media") or []
    if media and any("data" not in m for m in media) and question.get("id"):
        row = repo.get_item(workbench().store, question["id"])
        media = (row or {}).get("media") or []
    return media


def _media(file: Optional[dict], alt: str) -> None:
    if file is None:
        st.caption(f"(picture missing: {alt or 'no description'})")
        return
    data = base64.b64decode(file["data"])
    mime = file.get("mime") or ""
    if mime.startswith("audio/"):
        st.audio(data, format=mime)
    elif mime.startswith("video/"):
        st.video(data, format=mime)
    elif mime == "image/svg+xml":      # drawn as an image, so nothing in the file can run on the page
        st.image(data.decode("utf-8", errors="replace"), caption=alt or None, alt=_alt_text(alt))
    elif mime.startswith("image/"):
        st.image(data, caption=alt or None, alt=_alt_text(alt))
    else:                                # a document that came with the question (a PDF, a text file)
        st.download_button(f"Open {alt or file['name']}", data, file_name=file["name"], mime=mime or None,
                           key=f"media_{id(file)}")      # one button per file shown in this run


def _alt_text(alt: str) -> str:
    """What a screen reader says for a question's picture: the description its author gave (also shown under it),
    or that there is one without a description (a picture with no text alternative is not announced at all)."""
    return alt.strip() or "A picture that comes with the question; it has no description."


def figure(question: dict[str, Any]) -> None:
    """The labelled figure a question refers to (a triangle), drawn as SVG on the server; nothing if it has none."""
    if question.get("diagram"):
        st.html(diagram_svg(question["diagram"]))


def item_card(item: dict[str, Any], with_key: bool, about: str = "", notes: Iterable[str] = (),
              heading: str = "") -> None:
    """One stored item (a row from the items table): stem, options and, for teachers, key and explanation.

    ``heading`` (a paper's "**Question 3** · 2 marks") comes first; ``about`` (a line of markdown above the
    question) and ``notes`` (lines under it) are shown in small type. The card's text is one block unless the
    question has a picture or a sound: a page of cards (a paper of forty questions) is drawn sooner from fewer
    elements."""
    block = Paragraphs()
    block.add(heading)
    if about:
        block.add(small(about))
    media = item.get("media")
    if media:
        block.flush()
        stem(item["stem"], media)
    else:
        block.stem(item["stem"])
    options = item.get("options") or []
    several = item.get("item_type") == "multiple_response" or (item.get("evaluation") or {}).get("method") == \
        "multiple_response"
    if several and options:
        block.add("Choose all the right answers.")
        right = set(right_options(item.get("answer_key") or item.get("correct_answer") or "", len(options)))
    else:
        right = {item.get("correct_index")}
    lines = [f"**{chr(65 + k)}.** {option}{' ✅' if with_key and k in right else ''}" for k, option in enumerate(options)]
    if with_key:
        lines.append(f"**Answer:** {item.get('answer_key') or item.get('correct_answer')}")
    if lines:
        block.add(readable("\n\n".join(lines)))
    if with_key and item.get("explanation"):
        block.add(f"**Explanation:** {item['explanation']}")
    for note in notes:
        block.add(small(note))
    block.flush()


def small(line: str) -> str:
    """A line of markdown in small type, as a caption inside a block of text (brackets in it kept as text)."""
    return ":small[" + re.sub(r"(?<!\\)([\[\]])", r"\\\1", line) + "]"


def demo_ready(wb: Workbench) -> None:
    """On first run, load the demo class with simulated history (once per database)."""
    from core.demo.classroom import ensure_demo
    from core.store import school
    if st.session_state.get("_demo_checked") or school.list_classes(wb.store):
        st.session_state["_demo_checked"] = True
        return
    bar = st.progress(0.0, text="First run: loading a demo class with simulated history…")
    ensure_demo(wb.store, wb.library, progress=lambda done, total: bar.progress(done / total,
                                                                              text=f"Simulating student {done} of {total}…"))
    bar.empty()
    st.session_state["_demo_checked"] = True


def markdown_table(header: list[str], rows: list[list[str]]) -> str:
    """A small table as markdown (cells already markdown: a student's text through ``plain``): drawn as a plain
    HTML table, far sooner than a data grid, and read by a screen reader as a table."""
    def line(cells: list[str]) -> str:
        return "| " + " | ".join(re.sub(r"(?<!\\)\|", r"\\|", str(c).replace("\n", " ")) for c in cells) + " |"
    return "\n".join([line(header), "|" + "---|" * len(header), *(line(r) for r in rows)])


def plain(text) -> str:
    """A student's own text shown as written, not as markdown."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|>~$<])", r"\\\1", str(text))


def command(session_id: str, name: str, **kwargs) -> bool:
    """Run a command on a session; a refusal is shown as its sentence. True when it went through."""
    from core.flows.base import FlowError
    try:
        runner().command(session_id, name, **kwargs)
    except FlowError as exc:
        error(exc)
        return False
    return True
