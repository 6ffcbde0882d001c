"""Sign-in tokens: a browser stays signed in across reloads and tabs until the token expires or its owner
signs out.

A token is ``<id>.<expiry>.<signature>``: a random id, the expiry (Unix
seconds) and an HMAC-SHA256 of the two under a key kept outside the database
(``$WORKBENCH_SECRET_KEY``, ``secret_key`` in the Streamlit secrets, or a
random key made on first use in the secrets file beside the database). The
server keeps one row per token, under a hash of its id, with the signed-in
user; signing out revokes the row. A token is accepted only when its signature,
its expiry and its row all agree, so a copy of the database (a snapshot, a
backup) signs no one in, and changing the key signs everyone out.
"""
from __future__ import annotations

import base64
import datetime as dt
import hashlib
import hmac
import os
import secrets as _random
from typing import Any, Mapping, Optional

from core.store import Store
from core.store import sign_in_tokens as rows
from core.store.db import utc_now
from core.store.secret_file import SIGNING_KEY, ensure_secret

SECRET_ENV = "WORKBENCH_SECRET_KEY"
HOURS_ENV = "WORKBENCH_SIGN_IN_HOURS"
DEFAULT_HOURS = 12.0          # a school day, with room to spare
MAX_HOURS = 24.0 * 30


def signing_key(store: Store, secrets: Optional[Mapping[str, Any]] = None) -> bytes:
    """The key that signs tokens: the environment's, the Streamlit secrets', else the secrets file's."""
    configured = os.environ.get(SECRET_ENV) or (str(secrets.get("secret_key") or "") if secrets else "")
    return (configured or ensure_secret(store.path, SIGNING_KEY)).encode("utf-8")


def lifetime() -> dt.timedelta:
    """How long a token lasts: ``$WORKBENCH_SIGN_IN_HOURS`` (12 when unset or not a number), at most 30 days."""
    try:
        hours = float(os.environ.get(HOURS_ENV) or DEFAULT_HOURS)
    except ValueError:
        hours = DEFAULT_HOURS
    return dt.timedelta(hours=min(max(hours, 0.01), MAX_HOURS))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _signature(key: bytes, body: str) -> str:
    return _b64(hmac.new(key, body.encode("ascii"), hashlib.sha256).digest())


def _row_key(token_id: str) -> str:
    return hashlib.sha256(token_id.encode("ascii")).hexdigest()


def issue(store: Store, who: dict[str, Any], key: bytes) -> str:
    """A new token for the signed-in user ``who`` (stored as it is, to be given back by ``check``)."""
    token_id = _random.token_urlsafe(18)
    expires = (utc_now() + lifetime()).replace(microsecond=0)
    body = f"{token_id}.{int(expires.replace(tzinfo=dt.timezone.utc).timestamp())}"
    rows.save_token(store, _row_key(token_id), dict(who), expires)
    return f"{body}.{_signature(key, body)}"


def _verified_id(token: Optional[str], key: bytes) -> Optional[str]:
    """The token's id when its signature is right and it has not expired; None for anything else."""
    if not token or len(token) > 200:
        return None
    parts = token.split(".")
    if len(parts) != 3 or not parts[1].isdigit():
        return None
    token_id, expiry, signature = parts
    try:
        if not hmac.compare_digest(_signature(key, f"{token_id}.{expiry}"), signature):
            return None
    except (TypeError, UnicodeEncodeError):  # not ASCII: no token of ours
        return None
    if int(expiry) <= utc_now().replace(tzinfo=dt.timezone.utc).timestamp():
        return None
    return token_id


def check(store: Store, token: Optional[str], key: bytes) -> Optional[dict[str, Any]]:
    """The user a token signs in, or None (forged, expired, revoked or unknown)."""
    token_id = _verified_id(token, key)
    return rows.live_token(store, _row_key(token_id)) if token_id else None


def revoke(store: Store, token: Optional[str], key: bytes) -> bool:
    """End a token (signing out); False when it was not a live token of this server."""
    token_id = _verified_id(token, key)
    return rows.revoke_token(store, _row_key(token_id)) if token_id else False
