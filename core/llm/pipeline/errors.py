"""How the pipeline refuses a configuration or a prompt file: one sentence saying which and why."""
from __future__ import annotations


class PipelineError(ValueError):
    """A pipeline configuration or prompt file that cannot be used, said in one sentence."""
