"""Sign-in: teachers by passcode (checked against a salted hash), students by class code, name and, where their
class asks for one, their PIN.

The teacher passcode comes from Streamlit secrets (``teacher_passcode_hash``
or ``teacher_passcode``) or the environment (``WORKBENCH_TEACHER_PASSCODE_HASH``
or ``WORKBENCH_TEACHER_PASSCODE``). With none of them set the demo passcode
``DEMO_PASSCODE`` works, and every teacher page says so. Wrong guesses are
slowed down per client and per account (see ``throttle``); they are stored, so
a restart does not reset them.
"""
from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping, Optional

from core.school import pins, throttle
from core.school.names import clean_name, name_key, name_problem, student_id
from core.school.passcodes import ITERATIONS, hash_passcode, verify_passcode
from core.school.throttle import Client
from core.store import Store
from core.store import school

__all__ = ["DEMO_PASSCODE", "ITERATIONS", "Client", "SignIn", "TeacherPasscode", "find_students", "hash_passcode",
           "sign_in_student", "sign_in_teacher", "student_id", "teacher_passcode", "verify_passcode"]

DEMO_PASSCODE = "demo-teacher"


@dataclasses.dataclass
class TeacherPasscode:
    hash: str
    is_demo: bool
    source: str


_demo_hash: Optional[str] = None


def teacher_passcode(secrets: Optional[Mapping[str, Any]] = None) -> TeacherPasscode:
    """Where the teacher passcode comes from; the demo default when nothing is configured."""
    global _demo_hash
    secrets = secrets or {}
    for key, source in (("teacher_passcode_hash", "secrets"), ("teacher_passcode", "secrets")):
        if secrets.get(key):
            value = str(secrets[key])
            return TeacherPasscode(value if key.endswith("hash") else hash_passcode(value), value == DEMO_PASSCODE, source)
    if os.environ.get("WORKBENCH_TEACHER_PASSCODE_HASH"):
        return TeacherPasscode(os.environ["WORKBENCH_TEACHER_PASSCODE_HASH"], False, "environment")
    if os.environ.get("WORKBENCH_TEACHER_PASSCODE"):
        value = os.environ["WORKBENCH_TEACHER_PASSCODE"]
        return TeacherPasscode(hash_passcode(value), value == DEMO_PASSCODE, "environment")
    if _demo_hash is None:
        _demo_hash = hash_passcode(DEMO_PASSCODE)
    return TeacherPasscode(_demo_hash, True, "demo default")


@dataclasses.dataclass
class SignIn:
    ok: bool
    role: Optional[str] = None
    user: Optional[str] = None
    display_name: Optional[str] = None
    class_code: Optional[str] = None
    message: str = ""


def sign_in_teacher(store: Store, passcode: str, client: Optional[Client] = None,
                    secrets: Optional[Mapping[str, Any]] = None) -> SignIn:
    if not passcode:
        return SignIn(False, message="Type the passcode.")
    attempt = throttle.admit(store, "teacher", "teacher", client, account=True)
    if isinstance(attempt, throttle.Refused):
        return SignIn(False, message=f"Too many wrong passcodes from this browser. Try again in {attempt.text()}.")
    ok = False
    try:
        ok = verify_passcode(passcode, teacher_passcode(secrets).hash)
    finally:
        throttle.finish(store, attempt, ok)
    if not ok:
        return SignIn(False, message="That passcode is not right. Check it with whoever set up the workbench.")
    return SignIn(True, "teacher", "teacher", "Teacher")


def find_students(store: Store, code: str, name: str) -> list[dict]:
    """The students of the class with this name (the same after normalising), or whose id it is."""
    key = name_key(name)
    return [r for r in school.roster(store, code)
            if name_key(r["display_name"]) == key or r["student"].casefold() == name.casefold()]


def sign_in_student(store: Store, class_code: str, name: str, pin: Optional[str] = None,
                    client: Optional[Client] = None) -> SignIn:
    code = (class_code or "").strip()
    name = clean_name(name)
    if not code or not name:
        return SignIn(False, message="Enter your class code and your name.")
    if name_problem(name):
        return SignIn(False, message="That name is too long or has odd characters in it; "
                                     "use the name your teacher has on the class list.")
    klass = school.get_class(store, code) if len(code) <= 40 else None
    found = find_students(store, klass["code"], name) if klass else []
    account = bool(klass and klass.get("require_pin") and len(found) == 1)
    who = f"student:{found[0]['student']}" if account else f"class:{code.upper()[:40]}"
    # Admitted (or refused) before anything about the class or the name is said.
    attempt = throttle.admit(store, "student", who, client, account=account)
    if isinstance(attempt, throttle.Refused):
        return SignIn(False, message=f"Too many wrong tries from this browser. Try again in {attempt.text()}.")
    result = SignIn(False)
    try:
        result = _student(store, code, name, pin, klass, found)
    finally:
        throttle.finish(store, attempt, result.ok)
    return result


def _student(store: Store, code: str, name: str, pin: Optional[str], klass: Optional[dict],
             found: list[dict]) -> SignIn:
    if klass is None:
        return SignIn(False, message=f"There is no class with the code '{code}'. Check the code with your teacher.")
    needs_pin = bool(klass.get("require_pin"))
    if len(found) > 1:
        return SignIn(False, message=f"More than one student on the class list for {klass['code']} has that name. "
                                     "Ask your teacher to tell you apart on the list.")
    if not found:
        if not klass["allow_unknown_names"] or needs_pin:
            extra = " and give you a PIN" if needs_pin else ""
            return SignIn(False, message=f"'{name}' is not on the class list for {klass['code']}. Use your name "
                                         f"as your teacher wrote it, or ask your teacher to add you{extra}.")
        added, _ = school.add_named_students(store, klass["code"], [name], name_key,
                                             lambda n, taken: student_id(klass["code"], n, taken))
        if added:
            found = [{"student": added[0][0], "display_name": added[0][1]}]
        else:  # joined a moment ago from another tab
            found = find_students(store, klass["code"], name)
        if len(found) != 1:
            return SignIn(False, message="Someone else just joined with that name; ask your teacher.")
    student = found[0]
    if needs_pin:
        if not pins.typed(pin):
            return SignIn(False, message="Your class signs in with a PIN: type the PIN from your slip.")
        if school.pin_hash(store, klass["code"], student["student"]) is None:
            return SignIn(False, message="Your teacher has not given you a PIN yet: ask them for your PIN slip.")
        if not pins.check_pin(store, klass["code"], student["student"], pin):
            return SignIn(False, message="That PIN is not right for that name. Check your PIN slip, "
                                         "or ask your teacher for a new PIN.")
    return SignIn(True, "student", student["student"], student["display_name"], klass["code"])
