"""Settings and a client for any OpenAI-compatible chat server.

The client asks for structured answers (a pydantic model), retries only what
is worth retrying (timeouts, connection failures, 429 and 5xx) with bounded
exponential backoff, and records every attempt in the llm_runs table.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import threading
import time
from typing import Any, Iterator, Mapping, Optional, TypeVar

import openai
import pydantic
from pydantic import BaseModel, Field, field_validator

from core.store.db import Store, StoreError

ROLES = ("item_generator", "designer", "implementer", "verifier", "style_judge", "tutor")
ENV_PREFIX = "WORKBENCH_LLM_"
OFF_MESSAGE = ("LLM features are off: to turn them on, save a server and model on the Settings page, or set "
               "WORKBENCH_LLM_API_KEY, WORKBENCH_LLM_BASE_URL and WORKBENCH_LLM_MODEL (or api_key, base_url and "
               "model in an [llm] table of .streamlit/secrets.toml).")
BACKOFF_CAP_S = 8.0

M = TypeVar("M", bound=BaseModel)


class LLMError(RuntimeError):
    """An LLM call that gave no usable answer, said in one sentence."""


class LLMConfigError(ValueError):
    """LLM settings that cannot be used, said in one sentence."""


class LLMSettings(BaseModel):
    api_key: str = Field(min_length=1)
    base_url: Optional[str] = None
    model: str = Field(min_length=1)
    models: dict[str, str] = Field(default_factory=dict)
    timeout_s: float = Field(default=30.0, gt=0)
    max_retries: int = Field(default=2, ge=0, le=10)
    concurrency: int = Field(default=4, ge=1, le=64)
    backoff_s: float = Field(default=0.5, ge=0)

    @field_validator("models")
    @classmethod
    def _known_roles(cls, value: dict[str, str]) -> dict[str, str]:
        unknown = sorted(set(value) - set(ROLES))
        if unknown:
            raise ValueError(f"unknown role(s) {', '.join(unknown)}; roles are {', '.join(ROLES)}")
        return {role: name for role, name in value.items() if name}

    def model_for(self, role: str) -> str:
        if role not in ROLES:
            raise LLMConfigError(f"'{role}' is not an LLM role; roles are {', '.join(ROLES)}")
        return self.models.get(role) or self.model


def _plain(value: Any) -> Any:
    """A Streamlit secrets section (an AttrDict) as plain dicts."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    return value


def settings_from(secrets: Optional[Mapping], env: Mapping[str, str]) -> Optional[LLMSettings]:
    """Settings from a secrets [llm] table, filled in from WORKBENCH_LLM_* variables; None when neither is set."""
    section = _plain(secrets.get("llm")) if secrets is not None and secrets.get("llm") is not None else {}
    if not isinstance(section, dict):
        raise LLMConfigError("the 'llm' entry in secrets must be a table with api_key, base_url and model")
    values: dict[str, Any] = {k: v for k, v in section.items() if k != "models" and v not in (None, "")}
    models: dict[str, str] = {str(k): str(v) for k, v in (section.get("models") or {}).items()}
    for key in ("api_key", "base_url", "model", "timeout_s", "max_retries", "concurrency"):
        text = env.get(ENV_PREFIX + key.upper())
        if text and key not in values:
            values[key] = text
    for role in ROLES:
        text = env.get(f"{ENV_PREFIX}MODEL_{role.upper()}")
        if text and role not in models:
            models[role] = text
    if not values.get("api_key") and not values.get("base_url"):
        return None
    if not values.get("model"):
        raise LLMConfigError("no LLM model is named: set WORKBENCH_LLM_MODEL (or model in the [llm] secrets table)")
    return validate_settings({**values, "models": models})


SETTINGS_KEY = "llm"
SETTING_FIELDS = ("api_key", "base_url", "model", "models", "timeout_s", "max_retries", "concurrency", "backoff_s")


@dataclasses.dataclass
class LLMStatus:
    """Whether LLM features are on, with which settings, and where the settings came from."""
    settings: Optional[LLMSettings]
    origin: str                     # "environment" (secrets or WORKBENCH_LLM_*), "settings page" or "off"
    problem: Optional[str] = None   # settings that were given but cannot be used

    @property
    def on(self) -> bool:
        return self.settings is not None

    def message(self) -> str:
        if self.problem:
            return f"LLM features are off: {self.problem}"
        if self.settings is None:
            return OFF_MESSAGE
        where = self.settings.base_url or "api.openai.com"
        return f"LLM features are on: model {self.settings.model} at {where} (set in the {self.origin})."


def validate_settings(values: Mapping[str, Any]) -> LLMSettings:
    """Settings from a form or a stored record; LLMConfigError names the first field that is wrong."""
    data = {k: v for k, v in values.items() if k in SETTING_FIELDS and v not in (None, "")}
    data["models"] = {k: v for k, v in (data.get("models") or {}).items() if v}
    if not data.get("api_key") and data.get("base_url"):
        data["api_key"] = "unused"  # local OpenAI-compatible servers often need no key, but the client wants one
    if not data.get("api_key"):
        raise LLMConfigError("an API key or a base URL is needed (a local server such as Ollama needs only the URL)")
    if not data.get("model"):
        raise LLMConfigError("name the model to use (for example gpt-4o-mini, or llama3.1 on Ollama)")
    try:
        return LLMSettings(**data)
    except pydantic.ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "settings"
        raise LLMConfigError(f"LLM setting {where} is not valid: {first['msg']}") from None


def llm_status(secrets: Optional[Mapping], env: Mapping[str, str], store: Optional[Store] = None) -> LLMStatus:
    """The settings in force: secrets and WORKBENCH_LLM_* first, then those saved on the settings page."""
    try:
        settings = settings_from(secrets, env)
    except LLMConfigError as exc:
        return LLMStatus(None, "environment", str(exc))
    if settings is not None:
        return LLMStatus(settings, "environment")
    if store is not None:
        from core.store.settings import get_setting
        saved = get_setting(store, SETTINGS_KEY)
        if saved:
            try:
                return LLMStatus(validate_settings(saved), "settings page")
            except LLMConfigError as exc:
                return LLMStatus(None, "settings page", str(exc))
    return LLMStatus(None, "off")


def save_settings(store: Store, values: Mapping[str, Any], who: Optional[str] = None) -> LLMSettings:
    """Check and store the settings page's values; LLMConfigError (nothing stored) when they are wrong."""
    from core.store.settings import put_setting
    settings = validate_settings(values)
    put_setting(store, SETTINGS_KEY, settings.model_dump(), who)
    return settings


def clear_settings(store: Store) -> bool:
    """Forget the settings page's values (LLM features turn off unless the environment sets them)."""
    from core.store.settings import delete_setting
    return delete_setting(store, SETTINGS_KEY)


def settings_fingerprint(settings: Optional[LLMSettings]) -> str:
    """A short key that changes when the settings do (for caching one client per configuration)."""
    if settings is None:
        return "off"
    return hashlib.sha256(settings.model_dump_json().encode()).hexdigest()[:16]


def prompt_hash(messages: list[dict]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _retryable(exc: Exception) -> Optional[str]:
    """The reason to retry this failure, or None if retrying cannot help."""
    if isinstance(exc, openai.APITimeoutError):
        return "the model server timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "the model server could not be reached"
    if isinstance(exc, openai.RateLimitError):
        return "the model server is rate limiting (HTTP 429)"
    if isinstance(exc, openai.APIStatusError) and exc.status_code >= 500:
        return f"the model server failed (HTTP {exc.status_code})"
    return None


def _api_message(exc: openai.APIError) -> str:
    """The server's own error message when it sent one, else the client's."""
    body = exc.body
    if isinstance(body, dict):
        inner = body.get("error") if isinstance(body.get("error"), dict) else body
        if isinstance(inner.get("message"), str) and inner["message"].strip():
            return inner["message"]
    return exc.message


def _short(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


class LLMClient:
    """Structured calls to an OpenAI-compatible server, with retries and an audit trail."""

    def __init__(self, settings: LLMSettings, store: Optional[Store] = None):
        self.settings = settings
        self.store = store
        self.record_failures = 0
        self._lock = threading.Lock()
        self._batch_depth = 0
        self._pending: list[dict] = []
        self._client = openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url,
                                     timeout=settings.timeout_s, max_retries=0)

    def close(self) -> None:
        self._client.close()

    def check(self) -> str:
        """One small call to prove the server, key and model work; the model's reply, or LLMError saying why."""
        class Pong(BaseModel):
            reply: str

        answer = self.structured("tutor", [{"role": "system", "content": "Answer in one word."},
                                           {"role": "user", "content": "Reply with the word ready."}],
                                 Pong, stage="connection_check")
        return answer.reply

    @contextlib.contextmanager
    def batched(self) -> Iterator[None]:
        """Within this block the audit rows of all calls are kept and written in one transaction at the end.

        A single-row write costs a few milliseconds, as much as the rest of
        core's work on an item; a batch of a hundred calls writes once.
        """
        with self._lock:
            self._batch_depth += 1
        try:
            yield
        finally:
            rows: list[dict] = []
            with self._lock:
                self._batch_depth -= 1
                if self._batch_depth == 0:
                    rows, self._pending = self._pending, []
            self._write(rows)

    def _write(self, rows: list[dict]) -> None:
        if not rows or self.store is None:
            return
        from core.store.llm_runs import record_runs
        try:
            record_runs(self.store, rows)
        except StoreError:
            # The audit rows are lost but the answers are still good; count them so a page can say so.
            with self._lock:
                self.record_failures += len(rows)

    def _record(self, stage: Optional[str], role: str, model: str, digest: str, usage: Any,
                latency_ms: float, error: Optional[str]) -> None:
        if self.store is None:
            return
        row = {"stage": stage, "role": role, "model": model, "prompt_hash": digest,
               "prompt_tokens": getattr(usage, "prompt_tokens", None),
               "completion_tokens": getattr(usage, "completion_tokens", None),
               "latency_ms": round(latency_ms, 1), "verdict": "error" if error else "ok", "error": error}
        with self._lock:
            if self._batch_depth:
                self._pending.append(row)
                return
        self._write([row])

    def structured(self, role: str, messages: list[dict], response_model: type[M],
                   stage: Optional[str] = None) -> M:
        """The model's answer parsed as ``response_model``; LLMError says why when there is none."""
        model = self.settings.model_for(role)
        digest = prompt_hash(messages)
        attempts = self.settings.max_retries + 1
        for attempt in range(attempts):
            started = time.perf_counter()
            usage = None
            try:
                completion = self._client.chat.completions.parse(
                    model=model, messages=messages, response_format=response_model)
                usage = completion.usage
                if not completion.choices:
                    raise LLMError("the model server sent a reply with no choices")
                message = completion.choices[0].message
                if message.refusal:
                    raise LLMError(f"the model refused: {_short(message.refusal)}")
                if message.parsed is None:
                    raise LLMError("the model sent an empty answer")
                self._record(stage, role, model, digest, usage, (time.perf_counter() - started) * 1000, None)
                return message.parsed
            except LLMError as exc:
                self._record(stage, role, model, digest, usage, (time.perf_counter() - started) * 1000, str(exc))
                raise
            except pydantic.ValidationError as exc:
                first = exc.errors()[0]
                where = ".".join(str(p) for p in first["loc"])
                reason = (f"the model's answer is not valid JSON: {_short(first['msg'])}" if first["type"] == "json_invalid"
                          else f"the model's answer does not match the schema: {where or 'answer'}: {_short(first['msg'])}")
                self._record(stage, role, model, digest, usage, (time.perf_counter() - started) * 1000, reason)
                raise LLMError(reason) from None
            except (openai.LengthFinishReasonError, openai.ContentFilterFinishReasonError) as exc:
                reason = ("the model's answer was cut off at its length limit"
                          if isinstance(exc, openai.LengthFinishReasonError)
                          else "the model's answer was blocked by the server's content filter")
                self._record(stage, role, model, digest, usage, (time.perf_counter() - started) * 1000, reason)
                raise LLMError(reason) from None
            except openai.APIError as exc:
                elapsed = (time.perf_counter() - started) * 1000
                why = _retryable(exc)
                if why is None:
                    status = getattr(exc, "status_code", None)
                    reason = (f"the model server refused the request (HTTP {status}): {_short(_api_message(exc))}" if status
                              else f"the model call failed: {_short(_api_message(exc))}")
                    self._record(stage, role, model, digest, usage, elapsed, reason)
                    raise LLMError(reason) from None
                self._record(stage, role, model, digest, usage, elapsed, f"{why} (attempt {attempt + 1} of {attempts})")
                if attempt + 1 == attempts:
                    raise LLMError(f"{why} on all {attempts} attempts") from None
                time.sleep(min(BACKOFF_CAP_S, self.settings.backoff_s * (2 ** attempt)))
        raise LLMError("no attempt was made")  # pragma: no cover - the loop returns or raises
