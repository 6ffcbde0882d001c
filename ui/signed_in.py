"""Staying signed in across reloads and tabs, and an address for every page whoever opens it.

After a successful sign-in the browser gets a signed, expiring token in the
page's address (``?session=...``, see ``core.school.sign_in_tokens``); a
reload, or the same address in another tab, signs the same user in again and
opens the page that was open. Signing out revokes the token on the server.
"""
from __future__ import annotations

import types
from pathlib import Path
from typing import Any, Mapping, Optional

import streamlit as st

from core.school import sign_in_tokens as tokens
from core.store import Store

PARAM = "session"
_TOKEN = "_sign_in_token"

Spec = tuple   # (page file, title, icon), and "hidden" after them for a page left out of the menu


def current_user(store: Store, secrets: Optional[Mapping[str, Any]] = None) -> Optional[dict]:
    """The signed-in user of this browser session, brought back from the address after a reload.

    Runs before the navigation is built, on every run: it issues the token
    after a sign-in, keeps it in the address (page links drop it), and ends a
    session whose token expired or was revoked (signed out in another tab).
    """
    key = tokens.signing_key(store, secrets)
    who = st.session_state.get("user")
    token = st.session_state.get(_TOKEN)
    if who is not None:
        owner = tokens.check(store, token, key) if token else None
        if token and owner is None:
            forget()              # expired, or signed out in another tab: this session ends too
            who, token = None, None
        elif not _same(owner, who):
            token = tokens.issue(store, who, key)        # just signed in
            st.session_state[_TOKEN] = token
    else:
        offered = st.query_params.get(PARAM)
        restored = tokens.check(store, offered, key) if offered else None
        if restored is not None:
            st.session_state["user"] = restored
            st.session_state[_TOKEN] = offered
            who, token = restored, offered
    if token:
        if st.query_params.get(PARAM) != token:
            st.query_params[PARAM] = token
    elif PARAM in st.query_params:
        del st.query_params[PARAM]
    return who


def _same(a: Optional[dict], b: Optional[dict]) -> bool:
    return a is not None and b is not None and (a.get("role"), a.get("user")) == (b.get("role"), b.get("user"))


def forget() -> None:
    """Forget everything about this browser session (its token is left as it is)."""
    st.session_state.clear()
    if PARAM in st.query_params:
        del st.query_params[PARAM]


def sign_out(store: Store, secrets: Optional[Mapping[str, Any]] = None) -> None:
    """Revoke this session's token, so no reload or other tab signs it in again, and forget the session."""
    token = st.session_state.get(_TOKEN) or st.query_params.get(PARAM)
    if token:
        tokens.revoke(store, token, tokens.signing_key(store, secrets))
    forget()


def through_app() -> None:
    """Run app.py when a page's file was started without it, then stop that run of the page.

    ``shared.require`` calls it first thing on every page that needs a role.

    Until app.py's navigation has run once in the server's life, Streamlit sees
    the ``pages/`` folder and serves a page's address by running that file
    directly, without app.py: the first visitor after a (re)start who reloads a
    page would skip the sign-in token and see the folder's every page in the
    menu. Running app.py here gives that visit what every later one gets; its
    navigation then runs the page asked for, in this same run.
    """
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    if not PagesManager.uses_pages_directory or ctx is None:
        return  # started by app.py's navigation (which turns that mode off), or not in a script run
    PagesManager.uses_pages_directory = False
    main = ctx.pages_manager.main_script_path
    module = types.ModuleType("__main__")
    module.__dict__["__file__"] = str(main)
    exec(ctx.pages_manager.get_page_script_byte_code(str(main)), module.__dict__)  # noqa: S102 - our own app.py
    st.stop()


def navigation(sections: dict[str, list[Spec]], every_role: list[dict[str, list[Spec]]],
               signed_in: bool) -> dict[str, list]:
    """The pages of ``sections`` (the first is the default) and a hidden page at every other page's address.

    So no address is "not found": signed out, any page's address shows the
    sign-in form, and once signed in that page opens (if the role has it);
    signed in, another role's address opens the role's first page. The hidden
    pages never run another role's page.
    """
    pages: dict[str, list] = {}
    default = None
    for section, specs in sections.items():
        pages[section] = []
        for path, title, icon, *visibility in specs:
            page = st.Page(path, title=title, icon=icon, default=default is None,
                           visibility=visibility[0] if visibility else "visible")
            default = default or page
            pages[section].append(page)
    first_path, first_title, first_icon = sections[next(iter(sections))][0][:3]
    own = {Path(spec[0]).stem for specs in sections.values() for spec in specs}
    every = {Path(spec[0]).stem for role in every_role for specs in role.values() for spec in specs}
    hidden = []
    for address in sorted(every - own):
        if signed_in:
            hidden.append(st.Page(lambda: st.switch_page(default), title=first_title, icon=first_icon,
                                  url_path=address, visibility="hidden"))
        else:   # the sign-in form at every address
            hidden.append(st.Page(first_path, title=first_title, icon=first_icon, url_path=address,
                                  visibility="hidden"))
    pages[next(iter(pages))] += hidden
    return pages
