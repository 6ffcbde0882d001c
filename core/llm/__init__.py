"""The LLM: settings and client (``settings``, ``client``), the four-agent question pipeline
(``pipeline``) and the tutor's help in practice and lessons (``assist``).

The client and settings are re-exported here; the pipeline and the tutor are
imported from their modules, since they build on items and marking.
"""
from core.llm.client import LLMClient, LLMError, MalformedReply, prompt_hash
from core.llm.settings import (OFF_MESSAGE, ROLES, LLMConfigError, LLMSettings, LLMStatus, clear_settings, llm_status,
                               save_settings, settings_from, settings_fingerprint, validate_settings)

__all__ = ["LLMClient", "LLMError", "MalformedReply", "prompt_hash", "OFF_MESSAGE", "ROLES", "LLMConfigError", "LLMSettings", "LLMStatus",
           "clear_settings", "llm_status", "save_settings", "settings_from", "settings_fingerprint", "validate_settings"]
