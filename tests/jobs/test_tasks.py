"""The teacher pages' tasks, cut in two: what a worker computes equals what the app computed in-process before."""
from __future__ import annotations

import pickle

import pytest

from core.items import authoring
from core.jobs import JobRunner, tasks
from core.store import Store


@pytest.fixture(scope="module")
def runner():
    jobs = JobRunner(max_processes=1, preload=("core.jobs.tasks",))
    yield jobs
    jobs.shutdown()


def test_the_library_context_is_small_and_cross_checks_as_the_library_does(library):
    context = tasks.library_context(library)
    assert set(context.skills) == set(library.skills) and set(context.specs) == set(library.specs)
    assert len(pickle.dumps(context)) < len(pickle.dumps({"s": library.skills, "c": library.specs})) / 4
    assessment = library.assessments["MATH-FUNDAMENTALS-L1"].text
    misspelt = assessment.replace("MATH.ARITH.ADD.1DIGIT", "MATH.ARITH.ADD.1DIGT", 1)
    skill = library.skills["SQA.MATH.AH.BINOMIAL_COEFF"].text
    unknown_outcome = skill.replace(library.skills["SQA.MATH.AH.BINOMIAL_COEFF"].model.metadata.outcome_ids[0],
                                    "NO-SUCH-OUTCOME", 1)
    for text in (assessment, misspelt, skill, unknown_outcome):
        with_library = authoring.validate_text(text, library)
        with_context = tasks.validate(text, context)
        assert (with_context[0] is None) == (with_library[0] is None)
        assert with_context[1] == with_library[1]
    assert "did you mean 'MATH.ARITH.ADD.1DIGIT'" in str(tasks.validate(misspelt, context)[1])


def test_checking_a_skill_in_a_worker_gives_the_page_what_it_computed_before(library, runner):
    loaded = library.skills["MATH.ARITH.ADD.1DIGIT"]
    job = runner.submit(tasks.check_blueprint, loaded.text, tasks.library_context(library), 7, owner="t",
                        label="Validating", time_limit=120)
    assert job.wait(120)
    checked = job.result()
    assert checked["text"] == loaded.text and checked["seed"] == 7 and checked["preview_error"] is None
    assert checked["loaded"].id == "MATH.ARITH.ADD.1DIGIT" and checked["loaded"].hash == loaded.hash
    expected_loaded, issues = authoring.validate_text(loaded.text, library)
    assert checked["issues"] == issues
    assert checked["sizes"] == authoring.variant_sizes(expected_loaded)
    assert checked["samples"] == {level: [i.to_dict() for i in items]
                                  for level, items in authoring.preview(expected_loaded, 3, 7).items()}
    assert job.fraction == 1.0 or job.message        # progress came back while it ran


def test_generating_in_a_worker_stores_what_generating_in_process_stored(library, runner, tmp_path):
    plan = [("MATH.ARITH.ADD.1DIGIT", "easy", 3), ("MATH.ARITH.SUB.1DIGIT", "medium", 2), ("NO.SUCH.SKILL", "easy", 1)]
    skills = [library.skills["MATH.ARITH.ADD.1DIGIT"], library.skills["MATH.ARITH.SUB.1DIGIT"]]
    before, after = Store(tmp_path / "before.duckdb"), Store(tmp_path / "after.duckdb")
    try:
        expected = authoring.generate_drafts(library, before, plan, 11)
        job = runner.submit(tasks.generate_items, skills, plan, 11, owner="t", label="Generating", time_limit=120,
                            finish=lambda generated: authoring.store_batches(after, generated))
        assert job.wait(120)
        result = job.result()
        assert result["skipped"][0]["reason"].startswith("no skill blueprint 'NO.SUCH.SKILL' in the library")
        for key in ("requested", "generated", "stored", "already_stored", "repeats", "failed", "entries"):
            assert result[key] == expected[key], key
        rows = "SELECT id, blueprint_id, level, seed, stem, answer_key FROM items ORDER BY id"
        assert after.query(rows) == before.query(rows) and len(before.query(rows)) == 5
    finally:
        before.close()
        after.close()
