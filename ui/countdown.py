"""A clock that ticks in the browser: an exam's time left, or one question's. The server's clock decides what
counts in time whatever this shows.

It is a small document of its own in an iframe (st.iframe with an HTML string, Streamlit's replacement for
st.components.v1.html), with a language and a title for screen readers, and no stop for the Tab key: a clock
is read, not used.
"""
from __future__ import annotations

import html
import json

import streamlit as st

_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{title}</title></head><body>
<div id="clock" role="timer" aria-live="off"
     style="font-family: 'Source Sans Pro', sans-serif; font-size: {size}rem; font-weight: 600; color: #31333f;"></div>
<script>
  const end = Date.now() + {seconds} * 1000;
  const el = document.getElementById("clock");
  function pad(n) {{ return String(n).padStart(2, "0"); }}
  function tick() {{
    const s = Math.max(0, Math.round((end - Date.now()) / 1000));
    if (s <= 0) {{
      el.textContent = {done};
      el.style.color = "#d33";
      clearInterval(timer);
      return;
    }}
    const shown = {hours} ? Math.floor(s / 3600) + ":" + pad(Math.floor(s % 3600 / 60)) + ":" + pad(s % 60)
                          : Math.floor(s / 60) + ":" + pad(s % 60);
    el.textContent = {label} + shown;
    if (s <= {warn}) el.style.color = "#d33";
  }}
  const timer = setInterval(tick, 1000);
  tick();
</script></body></html>"""


def show(seconds: int | None, title: str, label: str, done: str, warn_below: int = 10, hours: bool = False,
         size: float = 1.1, alt: str | None = None) -> None:
    """``label`` followed by the time left (m:ss, or h:mm:ss with ``hours``), turning red at ``warn_below``
    seconds; ``done`` once it reaches zero. Nothing without ``seconds``."""
    if seconds is None:
        return
    st.iframe(_PAGE.format(title=html.escape(title), size=size, seconds=int(seconds), done=json.dumps(done),
                           hours="true" if hours else "false", label=json.dumps(label), warn=int(warn_below)),
              height=40, alt=alt or title, tab_index=-1)


def exam(seconds: int | None) -> None:
    """An exam's time left."""
    show(seconds, "Time left in the exam", "⏱ Time left: ", "⏰ Time is up: your saved answers are being marked.",
         warn_below=300, hours=True, size=1.3)


def question(seconds: int | None, limit: int | None, done: str) -> None:
    """One timed question's time left (``limit``: the seconds it allows in all)."""
    show(seconds, "Time left for this question", "⏱ Time left for this question: ", done,
         alt=f"Time left for this question ({limit or seconds} seconds in all)")
