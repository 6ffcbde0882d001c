"""Each level's one-off sampling work done in a worker process and taken over by the app: the same items as
doing it in place, checked against each skill's compiled form."""
from __future__ import annotations

from pathlib import Path

from core.blueprints.library import Library
from core.jobs import warming

ROOT = Path(__file__).resolve().parents[2]
FILES = [ROOT / "blueprints/skills/sqa/mathematics/higher/line_equation.yaml",
         ROOT / "blueprints/skills/sqa/mathematics/nat5/volume_solids.yaml",
         ROOT / "blueprints/skills/math/arithmetic/add_2digit.yaml"]


def test_work_done_in_a_worker_is_taken_over_and_gives_the_same_items():
    warmed, fresh = Library.load(FILES, exercise=False), Library.load(FILES, exercise=False)
    taken = warming.warm_library(warmed)
    assert taken > 0
    for skill, gen in warmed.generators.items():
        for level in gen.cs.levels:
            assert all(c.mode is not None for c in gen.sampler(level).components), (skill, level)
            for seed in ("a", "b"):
                assert gen.generate(level, seed).content_key == fresh.generator(skill).generate(level, seed).content_key


def test_results_for_another_version_of_a_skill_are_not_taken():
    lib = Library.load(FILES[:1], exercise=False)
    gen = next(iter(lib.generators.values()))
    states = warming.sampling_states([warming._slim(lib.skills[gen.bp.skill_id])])
    digest, state, problem = states[gen.bp.skill_id]
    assert problem is None and digest == gen.cs.hash
    assert warming.install(lib, {gen.bp.skill_id: ("another version", state, None)}) == 0
    assert warming.install(lib, states) > 0
