"""How a long authoring task reports how far it has got: called with (done, total)."""
from __future__ import annotations

from typing import Callable, Optional

Progress = Optional[Callable[[int, int], None]]
