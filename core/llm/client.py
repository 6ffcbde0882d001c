"""A client for any OpenAI-compatible chat server (its settings: ``core.llm.settings``).

The client asks for structured answers (a pydantic model), retries only what
is worth retrying (timeouts, connection failures, 429 and 5xx) with bounded
exponential backoff, and records every attempt in the llm_runs table.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
from typing import Any, Iterator, Optional, TypeVar

import pydantic
from pydantic import BaseModel

from core.llm.settings import LLMSettings
from core.store.db import Store, StoreError
from core.store.llm_runs import redact_keys

BACKOFF_CAP_S = 8.0

M = TypeVar("M", bound=BaseModel)


class LLMError(RuntimeError):
    """An LLM call that gave no usable answer, said in one sentence."""


class MalformedReply(LLMError):
    """The server answered, but not with the structured answer asked for (not JSON, fields missing, wrong types)."""


def prompt_hash(messages: list[dict]) -> str:
    return hashlib.sha256(json.dumps(messages, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def _retryable(exc: Exception) -> Optional[str]:
    """The reason to retry this failure, or None if retrying cannot help."""
    import openai
    if isinstance(exc, openai.APITimeoutError):
        return "the model server timed out"
    if isinstance(exc, openai.APIConnectionError):
        return "the model server could not be reached"
    if isinstance(exc, openai.RateLimitError):
        return "the model server is rate limiting (HTTP 429)"
    if isinstance(exc, openai.APIStatusError) and exc.status_code >= 500:
        return f"the model server failed (HTTP {exc.status_code})"
    return None


def _api_message(exc: Any) -> str:   # an openai.APIError
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
        import openai   # here, not at the top: a process that never talks to a model skips its second of loading
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
               "latency_ms": round(latency_ms, 1), "verdict": "error" if error else "ok",
               "error": self._clean(error)}
        with self._lock:
            if self._batch_depth:
                self._pending.append(row)
                return
        self._write([row])

    def _clean(self, text: Optional[str]) -> Optional[str]:
        """A server's words without the API key (some servers echo it in their errors)."""
        return redact_keys(text, self.settings.api_key)

    def structured(self, role: str, messages: list[dict], response_model: type[M],
                   stage: Optional[str] = None) -> M:
        """The model's answer parsed as ``response_model``; LLMError says why when there is none."""
        import openai
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
                    raise LLMError(f"the model refused: {_short(self._clean(message.refusal))}")
                if message.parsed is None:
                    raise MalformedReply("the model sent an empty answer")
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
                raise MalformedReply(reason) from None
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
                    said = _short(self._clean(_api_message(exc)))
                    reason = (f"the model server refused the request (HTTP {status}): {said}" if status
                              else f"the model call failed: {said}")
                    self._record(stage, role, model, digest, usage, elapsed, reason)
                    raise LLMError(reason) from None
                self._record(stage, role, model, digest, usage, elapsed, f"{why} (attempt {attempt + 1} of {attempts})")
                if attempt + 1 == attempts:
                    raise LLMError(f"{why} on all {attempts} attempts") from None
                time.sleep(min(BACKOFF_CAP_S, self.settings.backoff_s * (2 ** attempt)))
        raise LLMError("no attempt was made")  # pragma: no cover - the loop returns or raises
