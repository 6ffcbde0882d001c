"""How the authoring pages are told no: one error whose message is shown to the teacher as it is."""
from __future__ import annotations


class AuthoringError(ValueError):
    """A request from the authoring pages that cannot be done; the message says why and what to do."""
