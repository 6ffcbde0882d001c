"""The server's warm-up at start: marking's libraries and every skill level's one-off sampling work are done in
the background, so the first student to start a mock exam does not wait for them."""
from __future__ import annotations

from core.blueprints.library import Library


def test_opening_the_database_prepares_every_level_of_every_skill_in_the_background(monkeypatch):
    from ui import shared
    library = Library.load(exercise=False)
    untouched = [c for g in library.generators.values() for level in g.cs.levels for c in g.sampler(level).components]
    assert untouched and any(c.mode is None for c in untouched)        # nothing prepared when loaded
    monkeypatch.setenv("WORKBENCH_WARM_UP", "1")
    shared._start_warm_up(library)
    shared._warming["thread"].join(timeout=300)
    assert not shared._warming["thread"].is_alive()
    components = [c for g in library.generators.values() for level in g.cs.levels for c in g.sampler(level).components]
    assert all(c.mode is not None for c in components)


def test_the_warm_up_can_be_left_out(monkeypatch):
    from ui import shared
    monkeypatch.setenv("WORKBENCH_WARM_UP", "0")
    before = shared._warming["thread"]
    shared._start_warm_up(Library.load(exercise=False))
    assert shared._warming["thread"] is before
