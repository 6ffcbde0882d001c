"""LLM settings: where they come from (secrets, WORKBENCH_LLM_* or the Settings page), their checks, and on/off status.

The API key never goes into the database: one saved on the Settings page is
kept in the secrets file beside it (``core.store.secret_file``), the rest of
the page's settings in the app_settings table.
"""
from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, Mapping, Optional

import pydantic
from pydantic import BaseModel, Field, field_validator

from core.store.db import Store

ROLES = ("item_generator", "designer", "implementer", "verifier", "style_judge", "tutor")
ENV_PREFIX = "WORKBENCH_LLM_"
OFF_MESSAGE = ("LLM features are off: to turn them on, save a server and model on the Settings page, or set "
               "WORKBENCH_LLM_API_KEY, WORKBENCH_LLM_BASE_URL and WORKBENCH_LLM_MODEL (or api_key, base_url and "
               "model in an [llm] table of .streamlit/secrets.toml).")

class LLMConfigError(ValueError):
    """LLM settings that cannot be used, said in one sentence."""


class LLMSettings(BaseModel):
    api_key: str = Field(min_length=1, repr=False)
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
NO_KEY = "unused"
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
        data["api_key"] = NO_KEY  # local OpenAI-compatible servers often need no key, but the client wants one
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
        from core.store.secret_file import LLM_API_KEY, read_secret
        from core.store.settings import get_setting
        saved = get_setting(store, SETTINGS_KEY)
        if saved:
            try:
                key = read_secret(store.path, LLM_API_KEY) or saved.get("api_key")
                return LLMStatus(validate_settings({**saved, "api_key": key}), "settings page")
            except LLMConfigError as exc:
                return LLMStatus(None, "settings page", str(exc))
    return LLMStatus(None, "off")


def save_settings(store: Store, values: Mapping[str, Any], who: Optional[str] = None) -> LLMSettings:
    """Check and store the settings page's values; LLMConfigError (nothing stored) when they are wrong.

    The key goes to the secrets file beside the database, the rest to the
    database; a local server's placeholder key is not kept.
    """
    from core.store.secret_file import LLM_API_KEY, write_secret
    from core.store.settings import put_setting
    settings = validate_settings(values)
    key = values.get("api_key") or None
    write_secret(store.path, LLM_API_KEY, key if key and key != NO_KEY else None)
    put_setting(store, SETTINGS_KEY, settings.model_dump(exclude={"api_key"}), who)
    return settings


def saved_key(store: Store) -> bool:
    """Whether the Settings page has a key saved (the key itself is never shown again)."""
    from core.store.secret_file import LLM_API_KEY, read_secret
    return bool(read_secret(store.path, LLM_API_KEY))


def clear_settings(store: Store) -> bool:
    """Forget the settings page's values and key (LLM features turn off unless the environment sets them)."""
    from core.store.secret_file import LLM_API_KEY, write_secret
    from core.store.settings import delete_setting
    write_secret(store.path, LLM_API_KEY, None)
    return delete_setting(store, SETTINGS_KEY)


def settings_fingerprint(settings: Optional[LLMSettings]) -> str:
    """A short key that changes when the settings do (for caching one client per configuration)."""
    if settings is None:
        return "off"
    return hashlib.sha256(settings.model_dump_json().encode()).hexdigest()[:16]
