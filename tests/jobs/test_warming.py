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



def test_the_classes_courses_are_prepared_first():
    """A class's first mock exam may be drawn seconds after the server starts: its course's skills go first."""
    lib = Library.load(FILES, exercise=False)
    assert warming.warming_order(lib) == sorted(lib.generators)
    assert warming.warming_order(lib, [("mathematics", "NAT 5")]) == [
        "SQA.MATH.N5.VOLUME_SOLIDS", "MATH.ARITH.ADD.2DIGIT", "SQA.MATH.H.LINE_EQUATION"]
    assert warming.warming_order(lib, [(None, None)]) == sorted(lib.generators)   # a class with no course yet
    assert warming.warming_order(lib, [("Mathematics", "Higher"), ("Mathematics", "Nat 5")])[:2] == [
        "SQA.MATH.H.LINE_EQUATION", "SQA.MATH.N5.VOLUME_SOLIDS"]

def test_results_for_another_version_of_a_skill_are_not_taken():
    lib = Library.load(FILES[:1], exercise=False)
    gen = next(iter(lib.generators.values()))
    states = warming.sampling_states([warming._slim(lib.skills[gen.bp.skill_id])])
    digest, state, problem = states[gen.bp.skill_id]
    assert problem is None and digest == gen.cs.hash
    assert warming.install(lib, {gen.bp.skill_id: ("another version", state, None)}) == 0
    assert warming.install(lib, states) > 0


MAIN_SCRIPT = '''
import logging, multiprocessing, sys
if multiprocessing.parent_process() is not None:
    sys.exit("the worker ran the main script")    # as app.py would, opening the database a second time
from core.blueprints.library import Library
from core.jobs import warming
failures = []
logging.getLogger("core.jobs.warming").addHandler(type("H", (logging.Handler,), {"emit": lambda self, r: failures.append(r.getMessage())})())
taken = warming.warm_library(Library.load([sys.argv[1]], exercise=False))
print("fell back:" + "; ".join(failures) if failures else f"worker {taken}")
'''


def test_the_worker_never_runs_the_main_script(tmp_path):
    """Under Streamlit the main module is app.py: a worker that imported it would open the database again and die,
    leaving the whole warm-up to the app's own process."""
    import os
    import subprocess
    import sys
    script = tmp_path / "main_script.py"
    script.write_text(MAIN_SCRIPT, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script), str(FILES[2])], capture_output=True, text=True, timeout=300,
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("worker "), done.stdout + done.stderr
