"""Salted, slow hashes of passcodes and PINs (PBKDF2-SHA256), and checking a guess against one."""
from __future__ import annotations

import hashlib
import hmac
import secrets
from typing import Optional

ITERATIONS = 200_000


def hash_passcode(passcode: str, salt: Optional[str] = None, iterations: int = ITERATIONS) -> str:
    salt = salt or secrets.token_hex(16)
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
