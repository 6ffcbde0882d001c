"""Sign-in: teachers by passcode (checked against a salted hash), students by class code and name.

The teacher passcode comes from Streamlit secrets (``teacher_passcode_hash``
or ``teacher_passcode``) or the environment (``WORKBENCH_TEACHER_PASSCODE_HASH``
or ``WORKBENCH_TEACHER_PASSCODE``). With none of them set the demo passcode
``DEMO_PASSCODE`` works, and every teacher page says so. Failed attempts are
rate-limited per who-is-trying (stored, so a restart does not reset them).
"""
from __future__ import annotations

import dataclasses
import hashlib
import hmac
import os
import re
import secrets as _secrets
from typing import Any, Mapping, Optional

from core.store import Store
from core.store import school, sign_in

DEMO_PASSCODE = "demo-teacher"
ITERATIONS = 200_000
MAX_FAILURES = 5
LOCK_SECONDS = 300


def hash_passcode(passcode: str, salt: Optional[str] = None, iterations: int = ITERATIONS) -> str:
    salt = salt or _secrets.token_hex(16)
    digest = hashlib.pbkdf2_hmac("sha256", passcode.encode("utf-8"), salt.encode(), iterations).hex()
    return f"pbkdf2_sha256${iterations}${salt}${digest}"


def verify_passcode(passcode: str, stored: str) -> bool:
    try:
        algo, iterations, salt, digest = stored.split("$")
    except ValueError:
        return False
    if algo != "pbkdf2_sha256" or not iterations.isdigit():
        return False
    candidate = hashlib.pbkdf2_hmac("sha256", passcode.encode("utf-8"), salt.encode(), int(iterations)).hex()
    return hmac.compare_digest(candidate, digest)


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


def locked_for(store: Store, who: str) -> int:
    """Seconds until ``who`` may try again (0 when not locked)."""
    failures, last = sign_in.recent_failures(store, who, LOCK_SECONDS)
    if failures < MAX_FAILURES or last is None:
        return 0
    import datetime as dt
    waited = (dt.datetime.now(dt.timezone.utc).replace(tzinfo=None) - last).total_seconds()
    return max(0, int(LOCK_SECONDS - waited))


def sign_in_teacher(store: Store, passcode: str, who: str = "teacher",
                    secrets: Optional[Mapping[str, Any]] = None) -> SignIn:
    wait = locked_for(store, f"teacher:{who}")
    if wait:
        return SignIn(False, message=f"Too many wrong passcodes. Try again in {wait // 60 + 1} minute(s).")
    configured = teacher_passcode(secrets)
    ok = bool(passcode) and verify_passcode(passcode, configured.hash)
    sign_in.record_attempt(store, f"teacher:{who}", ok)
    if not ok:
        return SignIn(False, message="That passcode is not right. Check it with whoever set up the workbench.")
    return SignIn(True, "teacher", "teacher", "Teacher")


STUDENT_ID = re.compile(r"[^a-z0-9]+")


def student_id(class_code: str, name: str) -> str:
    return f"{class_code.upper()}:{STUDENT_ID.sub('-', name.strip().lower()).strip('-')}"


def sign_in_student(store: Store, class_code: str, name: str) -> SignIn:
    code = (class_code or "").strip()
    name = " ".join((name or "").split())
    if not code or not name:
        return SignIn(False, message="Enter your class code and your name.")
    wait = locked_for(store, f"class:{code.upper()}:{name.lower()}")
    if wait:
        return SignIn(False, message=f"Too many attempts. Try again in {wait // 60 + 1} minute(s).")
    klass = school.get_class(store, code)
    if klass is None:
        sign_in.record_attempt(store, f"class:{code.upper()}:{name.lower()}", False)
        return SignIn(False, message=f"There is no class with the code '{code}'. Check the code with your teacher.")
    if len(name) > 60:
        return SignIn(False, message="That name is too long; use the name your teacher has on the class list.")
    found = school.find_student(store, klass["code"], name)
    if found is None:
        if not klass["allow_unknown_names"]:
            sign_in.record_attempt(store, f"class:{code.upper()}:{name.lower()}", False)
            return SignIn(False, message=f"'{name}' is not on the class list for {klass['code']}. "
                                         "Use your name as your teacher wrote it, or ask your teacher to add you.")
        sid = student_id(klass["code"], name)
        school.add_students(store, klass["code"], [(sid, name)])
        found = {"student": sid, "display_name": name}
    return SignIn(True, "student", found["student"], found["display_name"], klass["code"])
