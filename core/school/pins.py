"""Students' PINs: a class may ask each student for one at sign-in, so the class code and a name are not enough.

A PIN is six digits, made at random when it is issued and stored only as a
salted hash: it can be shown (and printed on the class's PIN sheet) only at
the moment it is issued. A lost sheet means issuing new PINs, for one student
or for the class; the old ones then stop working.
"""
from __future__ import annotations

import dataclasses
import html
import re
import secrets
import unicodedata
from typing import Iterable, Optional

from core.school.passcodes import hash_passcode, verify_passcode
from core.store import Store
from core.store import school
from core.store.db import utc_now
from core.store.export import rows_csv_bytes

PIN_DIGITS = 6
# A PIN's strength is its digits and the sign-in throttle, not the hash's cost; this keeps issuing a
# sheet for a large class quick while still not storing the PIN itself.
PIN_ITERATIONS = 10_000
_SPACING = re.compile(r"[\s\-.]+")


class PinError(ValueError):
    """A request about PINs that cannot be done; the message says why."""


@dataclasses.dataclass
class IssuedPin:
    student: str
    name: str
    pin: str


def new_pin() -> str:
    return f"{secrets.randbelow(10 ** PIN_DIGITS):0{PIN_DIGITS}d}"


def shown(pin: str) -> str:
    """A PIN as printed: two groups of three digits."""
    return f"{pin[:3]} {pin[3:]}" if len(pin) == 6 else pin


def typed(pin: Optional[str]) -> str:
    """A PIN as typed, made comparable: full-width digits read as digits, spaces and dashes dropped."""
    return _SPACING.sub("", unicodedata.normalize("NFKC", pin or ""))


def check_pin(store: Store, code: str, student: str, pin: Optional[str]) -> bool:
    stored = school.pin_hash(store, code, student)
    entered = typed(pin)
    return bool(stored and entered) and verify_passcode(entered, stored)


def issue(store: Store, code: str, students: Optional[Iterable[str]] = None, replace: bool = False) -> list[IssuedPin]:
    """New PINs for these students of the class (all of it when None): only those without one unless ``replace``."""
    klass = school.get_class(store, code)
    if klass is None:
        raise PinError(f"There is no class {code}.")
    roster = school.roster(store, klass["code"])
    wanted = None if students is None else set(students)
    chosen = [r for r in roster if (wanted is None or r["student"] in wanted)
              and (replace or r["pin_issued_at"] is None)]
    issued = [IssuedPin(r["student"], r["display_name"], new_pin()) for r in chosen]
    school.set_pins(store, klass["code"], [(p.student, hash_passcode(p.pin, iterations=PIN_ITERATIONS))
                                           for p in issued], utc_now())
    return issued


def reset(store: Store, code: str, student: str) -> IssuedPin:
    """A new PIN for one student (the old one stops working)."""
    if not any(r["student"] == student for r in school.roster(store, code)):
        raise PinError("That student is not on the class list.")
    return issue(store, code, [student], replace=True)[0]


def require(store: Store, code: str, on: bool) -> list[IssuedPin]:
    """Turn PINs on or off for the class; turning them on issues PINs to the students without one."""
    school.update_class(store, code, require_pin=bool(on))
    return issue(store, code) if on else []


def issue_missing(store: Store, code: str) -> list[IssuedPin]:
    """PINs for students added since PINs were issued (nothing when the class does not use PINs)."""
    klass = school.get_class(store, code)
    if klass is None or not klass.get("require_pin"):
        return []
    return issue(store, code)


def sheet_csv(issued: list[IssuedPin], code: str) -> bytes:
    """The sheet as a CSV download (safe in a spreadsheet, accents intact in Excel: ``core.store.export``)."""
    return rows_csv_bytes(["name", "class code", "PIN"],
                          [[p.name, code, shown(p.pin)] for p in sorted(issued, key=lambda p: p.name.casefold())])


def sheet_html(issued: list[IssuedPin], code: str, class_name: str) -> str:
    """A printable page of slips, one per student, to cut out and hand round."""
    slips = "\n".join(
        f'<div class="slip"><div class="name">{html.escape(p.name)}</div>'
        f'<div>Class code <b>{html.escape(code)}</b></div>'
        f'<div>PIN <b class="pin">{shown(p.pin)}</b></div>'
        f'<div class="how">Sign in with the class code, your name as written here, and this PIN. '
        f'Keep it to yourself.</div></div>'
        for p in sorted(issued, key=lambda p: p.name.casefold()))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>PINs for {html.escape(code)}</title>
<style>
body {{ font-family: sans-serif; margin: 1cm; }}
.slips {{ display: grid; grid-template-columns: 1fr 1fr; gap: 0.4cm; }}
.slip {{ border: 1px dashed #555; padding: 0.4cm; break-inside: avoid; }}
.name {{ font-size: 1.2em; font-weight: bold; margin-bottom: 0.2cm; }}
.pin {{ font-family: monospace; font-size: 1.4em; letter-spacing: 0.1em; }}
.how {{ font-size: 0.8em; color: #333; margin-top: 0.2cm; }}
</style></head>
<body><h1>{html.escape(class_name)} ({html.escape(code)}): sign-in PINs</h1>
<p>Cut along the dashed lines and give each student their own slip.</p>
<div class="slips">
{slips}
</div></body></html>
"""
