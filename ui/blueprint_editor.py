"""The Blueprints page's editor: a YAML code editor, the draft it holds, and the guard on unsaved edits.

The editor is streamlit-code-editor (Ace): line numbers, Tab indents, YAML
highlighting, and the lines validation names marked in the gutter. Its own
buttons ("Validate & preview", "Save as new version", and Ctrl+Enter) send
the text together with the request, so what is validated or saved is exactly
what the teacher sees. While typing, the text also comes back after each
pause and when the editor loses focus, so the page always holds the draft.

The draft lives in ``st.session_state`` (``bp_text``), apart from the editor
widget: leaving the page keeps it, and the page says so on return; opening
another blueprint or a template while the draft differs from what was opened
asks first. (A browser's "leave site?" prompt cannot be hooked reliably from
Streamlit: the page runs in the browser only as rendered elements.)

Tests put an editor event where the page reads it:
``session_state[session_state["bp_editor_key"]] = {"id": ..., "type": "validate", "text": ...}``.
"""
from __future__ import annotations

from typing import Any, Callable, Optional

import streamlit as st
from code_editor import _component_func as _code_editor

from core.items import authoring

ACTIONS = {"validate": "validate", "submit": "validate", "save": "save"}
_NO_EVENT = {"id": "", "type": "", "lang": "", "text": "", "selected": "", "cursor": ""}
_BUTTON = {"hasText": True, "alwaysOn": True, "showWithIcon": True,
           "style": {"position": "relative", "opacity": 1, "transform": "none", "padding": "0 0.6rem",
                     "border": "1px solid rgba(128,128,128,0.45)", "borderRadius": "0.5rem"}}
MENU = {"style": {"display": "flex", "gap": "0.5rem", "justifyContent": "flex-end", "padding": "0.4rem 0.2rem"},
        "groups": [{"name": "actions", "buttons": [
            {**_BUTTON, "name": "Validate & preview", "feather": "PlayCircle", "commands": [["response", "validate"]]},
            {**_BUTTON, "name": "Save as new version", "feather": "Save", "primary": True,
             "commands": [["response", "save"]]},
        ]}]}
# Marked lines; the buttons' text shown at once (the component fades it in on hover otherwise).
CSS = (".bp-error-line{position:absolute;background:rgba(255,75,75,0.22);}"
       ".bp-warning-line{position:absolute;background:rgba(255,190,0,0.22);}"
       ".custom_menu button span, .custom_menu button svg{opacity:1 !important;transform:none !important;}")


# --------------------------------------------------------------------------- the draft


def editor_key() -> str:
    return f"bp_editor_{st.session_state.get('bp_rev', 0)}"


def draft() -> str:
    return st.session_state.get("bp_text", "")


def dirty() -> bool:
    """Whether the editor holds changes not saved (nor opened as they are)."""
    return draft() != st.session_state.get("bp_source", "")


def opened_name() -> str:
    return st.session_state.get("bp_name") or "the blueprint being written"


def _event() -> dict:
    event = st.session_state.get(editor_key())
    return event if isinstance(event, dict) and event.get("id") else {}


def sync() -> None:
    """The editor's latest text into the draft (its value persists, so this is safe to repeat)."""
    event = _event()
    if event and isinstance(event.get("text"), str):
        st.session_state["bp_text"] = event["text"]


def load(text: str, opened: Optional[str], name: str, file: Optional[str]) -> None:
    """Put a text in a fresh editor as the new starting point (nothing unsaved)."""
    st.session_state.update(bp_text=text, bp_source=text, bp_editor_code=text, bp_opened=opened, bp_name=name,
                            bp_file=file, bp_rev=st.session_state.get("bp_rev", 0) + 1, bp_pending=None,
                            bp_kept=False)
    st.session_state.pop("bp_checked", None)


def name_of(choice: str, labels: dict) -> str:
    kind, _, name = choice.partition(":")
    if kind == "template":
        return f"the new blueprint from the {name} template"
    if kind == "file":
        return name
    return name or labels.get(choice, choice)


def open_choice(lib: Any, choice: str, labels: dict) -> Optional[str]:
    """Open a library entry or template in the editor; the reason when it cannot be opened."""
    try:
        text, file = authoring.open_source(lib, choice)
    except authoring.AuthoringError as exc:
        return str(exc)
    load(text, choice, name_of(choice, labels), file)
    return None


def saved(text: str, kind: str, blueprint_id: str, path: str) -> None:
    """The draft was saved: it is the new starting point, and the list shows it as open."""
    st.session_state.update(bp_source=text, bp_opened=f"{kind}:{blueprint_id}", bp_name=blueprint_id,
                            bp_file=path, bp_kept=False, bp_choice_to=f"{kind}:{blueprint_id}")


# --------------------------------------------------------------------------- opening, guarded


def _chosen(lib: Any, labels: dict) -> None:
    sync()
    choice = st.session_state.get("bp_choice")
    if not choice or choice == st.session_state.get("bp_opened"):
        st.session_state["bp_pending"] = None
        return
    if dirty():
        st.session_state["bp_pending"] = choice
        return
    st.session_state["bp_open_error"] = open_choice(lib, choice, labels)


def _discard(lib: Any, labels: dict) -> None:
    choice = st.session_state.get("bp_pending")
    if choice:
        st.session_state["bp_open_error"] = open_choice(lib, choice, labels)
    else:
        load(st.session_state.get("bp_source", ""), st.session_state.get("bp_opened"), opened_name(),
             st.session_state.get("bp_file"))


def _keep() -> None:
    st.session_state["bp_pending"] = None
    st.session_state["bp_choice"] = st.session_state.get("bp_opened")


def chooser(lib: Any, labels: dict) -> None:
    """The "Open" list; switching away from unsaved edits asks first."""
    sync()
    wanted = st.session_state.pop("bp_choice_to", None)
    if wanted in labels:
        st.session_state["bp_choice"] = wanted
    elif "bp_choice" not in st.session_state and st.session_state.get("bp_opened") in labels:
        st.session_state["bp_choice"] = st.session_state["bp_opened"]     # back on the page: show what is open
    st.selectbox("Open", list(labels), format_func=labels.get, index=None, key="bp_choice",
                 on_change=_chosen, args=(lib, labels),
                 placeholder="Choose a blueprint to edit, or start from a template")
    problem = st.session_state.pop("bp_open_error", None)
    errors = st.container()
    if problem:
        errors.error(problem)
    pending = st.session_state.get("bp_pending")
    panel = st.container()      # always there, so the editor below keeps its place in the page (and its text)
    if pending and dirty():
        with panel.container(border=True):
            st.warning(f"You have unsaved changes to {opened_name()}: discard them and open "
                       f"“{labels.get(pending, pending)}”, or keep editing?", icon="✋")
            left, right = st.columns(2)
            left.button("Discard my changes", key="bp_discard_pending", on_click=_discard, args=(lib, labels))
            right.button("Keep editing", key="bp_keep", type="primary", on_click=_keep)
    elif pending:
        st.session_state["bp_pending"] = None


def returned_notice() -> None:
    """On coming back to the page with an unsaved draft: say it was kept."""
    if editor_key() not in st.session_state and dirty():
        st.session_state["bp_kept"] = True
    slot = st.container()       # always there: the editor below keeps its place
    if st.session_state.get("bp_kept") and dirty():
        slot.info(f"Your unsaved draft of {opened_name()} was kept. Save it as a new version, or discard it with "
                f"\"Discard unsaved changes\".", icon="📝")


def discard_button(lib: Any, labels: dict) -> None:
    slot = st.container()
    if dirty():
        slot.button("Discard unsaved changes", key="bp_discard", on_click=_discard_current, args=(lib, labels),
                  help="Put back the text as it was opened or last saved.")


def _discard_current(lib: Any, labels: dict) -> None:
    st.session_state["bp_pending"] = None
    _discard(lib, labels)


# --------------------------------------------------------------------------- the editor


def annotations(rows: list[dict]) -> tuple[list[dict], list[dict]]:
    """Ace gutter annotations and line markers for issues that name a line."""
    notes, marks = [], []
    for row in rows:
        if not row["line"]:
            continue
        kind = "error" if row["severity"] == "error" else "warning"
        notes.append({"row": row["line"] - 1, "column": 0, "type": kind, "text": row["text"]})
        marks.append({"startRow": row["line"] - 1, "startCol": 0, "endRow": row["line"] - 1, "endCol": 1,
                      "className": f"bp-{kind}-line", "type": "fullLine"})
    return notes, marks


def editor(rows: list[dict], on_action: Callable[[str, str], None]) -> None:
    """The code editor; ``on_action(kind, text)`` is called once per button press or Ctrl+Enter."""
    key = editor_key()
    st.session_state["bp_editor_key"] = key
    # The editor reads this only when it is (re)mounted: then it opens on the draft, never on stale text.
    st.session_state["bp_editor_code"] = draft()
    notes, marks = annotations(rows)
    _code_editor(code=st.session_state.get("bp_editor_code", ""), lang="yaml", theme="default", key=key,
                 height=[22, 34], focus=False, shortcuts="vscode", snippets=["", ""], completions=[],
                 keybindings={}, buttons=[], options={"showLineNumbers": True, "useSoftTabs": True, "tabSize": 2,
                                                      "wrap": True, "displayIndentGuides": True},
                 props={"annotations": notes, "markers": marks, "tabSize": 2, "enableLiveAutocompletion": False,
                        "enableBasicAutocompletion": False, "enableSnippets": False, "placeholder":
                        "Open a blueprint or a template above, or paste YAML here."},
                 editor_props={}, component_props={"globalCSS": CSS}, menu=MENU, info={}, allow_reset=False,
                 replace_completer=False, response_mode=["debounce", "blur"], ghost_text="",
                 default=dict(_NO_EVENT), on_change=sync)
    sync()
    event = _event()
    action = ACTIONS.get(event.get("type", ""))
    if action and event["id"] != st.session_state.get("bp_acted"):
        st.session_state["bp_acted"] = event["id"]
        st.session_state["bp_kept"] = False
        on_action(action, event["text"])


def status() -> None:
    """Under the editor: whether it holds unsaved changes (shown after a save in the same run is taken in)."""
    if dirty():
        st.caption(f"● Unsaved changes to {opened_name()}. Tab indents; Ctrl+Enter validates.")
    else:
        st.caption("Tab indents; Ctrl+Enter validates. Lines with problems are marked in the margin.")
