"""The Blueprints and Generate pages through Streamlit's AppTest.

One database and one copy of the shipped blueprints (WORKBENCH_BLUEPRINTS) in
a temporary folder serve the whole module, so the library loads once; the
database already holds a class, so the slow first-run demo is skipped. Tests
use their own ids and seeds so they do not depend on each other's order.
"""
from __future__ import annotations

import shutil
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from core.items import authoring

ROOT = Path(__file__).resolve().parents[2]
TEACHER = {"role": "teacher", "user": "teacher", "name": "Teacher"}
STUDENT = {"role": "student", "user": "T-AUTH:amy-pond", "name": "Amy Pond", "class_code": "T-AUTH"}


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    from core.school.classes import add_student, create_class
    from core.store import Store
    from ui import shared
    tmp = tmp_path_factory.mktemp("authoring_app")
    blueprints = tmp / "blueprints"
    shutil.copytree(ROOT / "blueprints", blueprints)
    db = tmp / "app.duckdb"
    store = Store(db)
    create_class(store, "T-AUTH", "Authoring test class", "Mathematics", "Nat 5")
    add_student(store, "T-AUTH", "Amy Pond")
    store.close()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("WORKBENCH_DB", str(db))
        mp.setenv("WORKBENCH_BLUEPRINTS", str(blueprints))
        mp.chdir(ROOT)
        shared._open.clear()
        shared._runner.clear()
        yield {"db": db, "blueprints": blueprints}
        shared._open(str(db)).store.close()  # stops its snapshot thread too
        shared._open.clear()
        shared._runner.clear()


def workbench(env):
    from ui import shared
    return shared._open(str(env["db"]))


def store(env):
    return workbench(env).store


def page(env, path: str, user: dict = TEACHER) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["user"] = user
    at.run()
    at.switch_page(path)
    at.run()
    assert not at.exception, at.exception
    return at


def values(elements) -> list[str]:
    return [str(e.value) for e in elements]


def open_in_editor(at: AppTest, key: str) -> AppTest:
    at.selectbox(key="bp_choice").set_value(key).run()
    assert not at.exception, at.exception
    return at


_events = iter(range(1, 10**6))


def send(at: AppTest, kind: str, text: str) -> AppTest:
    """What the code editor sends (see tests/app/test_blueprint_editor.py): typed text or a button press."""
    at.session_state[at.session_state["bp_editor_key"]] = {"id": f"a{next(_events)}", "type": kind, "text": text}
    at.run()
    assert not at.exception, at.exception
    return at


def validate(at: AppTest, text: str | None = None) -> AppTest:
    return send(at, "validate", at.session_state["bp_text"] if text is None else text)


# --------------------------------------------------------------------------- rendering


def test_blueprints_page_shows_the_library_as_a_tree(env):
    at = page(env, "pages/teacher_blueprints.py")
    assert values(at.title) == ["Blueprints"]
    assert [t.label for t in at.tabs] == ["Skills", "Assessments", "Course specs"]
    headings = values(at.markdown)
    assert any(h.startswith("**") and " skills** · " in h and "Mathematics 7" in h and "Physics" in h for h in headings), headings
    # only the open tab is drawn: one grid, every skill with its subject
    [skills] = [df.value for df in at.dataframe]
    assert "MATH.ARITH.ADD.1DIGIT" in set(skills["id"]) and {"Mathematics", "Physics"} <= set(skills["subject"])
    for tab, wanted in (("Assessments", "MATH-FUNDAMENTALS-L1"), ("Course specs", "SQA-MATH-N5")):
        at.session_state["bp_lib_tab"] = tab
        at.run()
        [shown] = [df.value for df in at.dataframe]
        assert wanted in set(shown["id"]) and "MATH.ARITH.ADD.1DIGIT" not in set(shown["id"])
    options = at.selectbox(key="bp_choice").options
    assert "New from template: Multiple-choice skill" in options
    assert not at.error


def test_generate_page_renders_with_the_llm_sources_visibly_off(env):
    from core.llm import OFF_MESSAGE
    at = page(env, "pages/teacher_generate.py")
    assert values(at.title) == ["Generate items"]
    source = at.radio(key="gen_source")
    assert source.value == "Formula (blueprint)"
    assert source.options == ["Formula (blueprint)", "LLM (blueprint)", "LLM question pipeline"]
    assert "Choose one or more skills" in " ".join(values(at.info))
    assert not at.error
    for choice in ("LLM (blueprint)", "LLM question pipeline"):
        at.radio(key="gen_source").set_value(choice).run()
        assert any(OFF_MESSAGE in v for v in values(at.info)), values(at.info)
        assert not at.button and not at.error


# --------------------------------------------------------------------------- validation and preview


def test_bad_yaml_shows_its_line(env):
    at = open_in_editor(page(env, "pages/teacher_blueprints.py"), "template:Numeric skill")
    text = at.session_state["bp_text"]
    assert text == authoring.TEMPLATES["Numeric skill"]
    at = validate(at, text.replace("  answer_type: decimal", "  answer_type: [decimal"))
    errors = values(at.error)
    assert len(errors) == 1 and errors[0].startswith("line ") and "YAML syntax error" in errors[0]
    assert not at.success


def test_a_bad_field_shows_line_and_field_path(env):
    at = open_in_editor(page(env, "pages/teacher_blueprints.py"), "template:Numeric skill")
    text = at.session_state["bp_text"].replace("answer_type: decimal", "answer_type: decimel")
    at = validate(at, text)
    source = next(x for x in text.splitlines() if x.startswith("  answer_type: decimel"))
    line = text.splitlines().index(source) + 1
    assert values(at.error) == [f"line {line}, generation.answer\\_type: Input should be 'integer', 'decimal', "
                                f"'string', 'fraction' or 'expression', got 'decimel'"]
    assert values(at.code) == [f"{line:>4} | {source}"]
    assert not at.success and not any("**Answer:**" in m for m in values(at.markdown))


def test_a_valid_skill_shows_variant_sizes_and_sample_items_with_keys(env):
    at = validate(open_in_editor(page(env, "pages/teacher_blueprints.py"), "skill:MATH.ARITH.ADD.1DIGIT"))
    assert "MATH.ARITH.ADD.1DIGIT version 1.0 is valid" in values(at.success)[0]
    assert values(at.subheader) == ["Preview"]
    sizes = next(df.value for df in at.dataframe if "distinct items" in df.value.columns)
    assert list(sizes["level"]) == ["easy", "medium", "hard"]
    assert all(int(n.replace(",", "")) > 0 for n in sizes["distinct items"])
    markdown = values(at.markdown)
    assert [m.split(" ·")[0] for m in markdown if " · difficulty" in m] == ["**Easy**", "**Medium**", "**Hard**"]
    assert sum(m.count("**Answer:**") for m in markdown) == 3   # one item per level
    assert sum(m.count("✅") for m in markdown) == 3  # the key marked among the options
    assert at.caption  # explanations


def test_an_assessment_shows_its_sections_and_a_difficulty_chart(env):
    at = validate(open_in_editor(page(env, "pages/teacher_blueprints.py"), "assessment:MATH-FUNDAMENTALS-L1"))
    assert "MATH-FUNDAMENTALS-L1 version 1.0 is valid" in values(at.success)[0]
    summary = next(df.value for df in at.dataframe if "difficulty_mix" in df.value.columns)
    assert list(summary["section"]) == ["Addition", "Subtraction", "Multiplication", "Division"]
    assert list(summary["items"]) == [5, 5, 5, 5]
    assert len(at.get("plotly_chart")) == 1


# --------------------------------------------------------------------------- saving


def test_save_as_new_version_writes_the_file_and_the_database_row(env):
    at = open_in_editor(page(env, "pages/teacher_blueprints.py"), "template:Multiple-choice skill")
    text = at.session_state["bp_text"].replace("NEW.TEMPLATE.MULTIPLE_CHOICE", "APPTEST.SAVE.MC")
    at = send(at, "save", text)
    assert not at.exception and not at.error, values(at.error)
    path = env["blueprints"] / "skills" / "apptest_save_mc.yaml"
    assert path.read_text(encoding="utf-8") == text
    assert any(str(path) in s for s in values(at.success))
    rows = store(env).query("SELECT kind, version, source_path FROM blueprints WHERE id = 'APPTEST.SAVE.MC'")
    assert rows == [("skill", "1.0", str(path))]
    # the same version again is refused with the next number to use
    at = send(at, "save", text)
    assert values(at.error) == ['Version 1.0 of APPTEST.SAVE.MC is already stored; change the version to "1.1" '
                                'and save again.']
    # the app sees the new skill at once
    at = page(env, "pages/teacher_generate.py")
    assert "APPTEST.SAVE.MC" in at.multiselect(key="gen_skills").options


def test_an_invalid_blueprint_is_not_saved(env):
    at = open_in_editor(page(env, "pages/teacher_blueprints.py"), "template:Numeric skill")
    text = at.session_state["bp_text"].replace("NEW.TEMPLATE.NUMERIC", "APPTEST.BROKEN.NUMERIC")
    at = send(at, "save", text.replace("answer_type: decimal", "answer_type: decimel"))
    errors = values(at.error)
    assert errors[0] == "Not saved: fix these problems first." and "generation.answer\\_type" in errors[1]
    assert not (env["blueprints"] / "skills" / "apptest_broken_numeric.yaml").exists()
    assert store(env).query("SELECT count(*) FROM blueprints WHERE id = 'APPTEST.BROKEN.NUMERIC'") == [(0,)]


# --------------------------------------------------------------------------- generating


def drafts(env, blueprint_id: str, seed: int) -> int:
    return store(env).query("SELECT count(*) FROM items WHERE blueprint_id = ? AND status = 'draft' AND seed LIKE ?",
                            [blueprint_id, f"{seed}/%"])[0][0]


def test_generate_stores_drafts_for_review(env):
    at = page(env, "pages/teacher_generate.py")
    at.multiselect(key="gen_skills").set_value(["MATH.ARITH.ADD.1DIGIT", "MATH.ARITH.SUB.1DIGIT"]).run()
    assert [n.label for n in at.number_input][:3] == ["Easy (%)", "Medium (%)", "Hard (%)"]
    at.number_input(key="gen_count").set_value(8).run()
    at.number_input(key="gen_seed").set_value(4242).run()
    plan = at.dataframe[0].value
    assert plan["items"].sum() == 8
    at.button(key="gen_go").click().run()
    assert not at.exception, at.exception
    assert values(at.success) == ["8 new draft item(s) went to the review queue."]
    assert drafts(env, "MATH.ARITH.ADD.1DIGIT", 4242) + drafts(env, "MATH.ARITH.SUB.1DIGIT", 4242) == 8
    assert at.get("page_link")
    # the same seed again stores nothing new and says how to get new items
    at.button(key="gen_go").click().run()
    assert values(at.success) == ["0 new draft item(s) went to the review queue."]
    assert "change the seed" in " ".join(values(at.info))


def test_generate_by_course_outcomes(env):
    at = page(env, "pages/teacher_generate.py")
    at.radio(key="gen_by").set_value("Course outcomes").run()
    courses = authoring.courses(workbench(env).library)
    at.selectbox(key="gen_course").set_value(next(i for i, c in enumerate(courses) if c["level"] == "Nat 5")).run()
    outcome = at.multiselect(key="gen_outcomes").options[0]
    at.multiselect(key="gen_outcomes").set_value([outcome.split(" · ")[0]]).run()
    at.number_input(key="gen_mix_hard").set_value(0).run()
    at.number_input(key="gen_count").set_value(5).run()
    at.number_input(key="gen_seed").set_value(777).run()
    plan = at.dataframe[0].value
    assert plan["items"].sum() == 5 and set(plan["level"]) <= {"easy", "medium"}
    at.button(key="gen_go").click().run()
    assert values(at.success) == ["5 new draft item(s) went to the review queue."]
    stored = store(env).query("SELECT count(*) FROM items WHERE status = 'draft' AND seed LIKE '777/%' "
                              "AND level = 'Nat 5'")[0][0]
    assert stored == 5


def test_an_impossible_mix_is_a_sentence(env):
    at = page(env, "pages/teacher_generate.py")
    at.multiselect(key="gen_skills").set_value(["MATH.ARITH.ADD.1DIGIT"]).run()
    for level in ("easy", "medium", "hard"):
        at.number_input(key=f"gen_mix_{level}").set_value(0).run()
    assert values(at.error) == ["Give at least one difficulty level a share above zero."]
    assert not at.button


# --------------------------------------------------------------------------- students


@pytest.mark.parametrize("path", ["pages/teacher_blueprints.py", "pages/teacher_generate.py"])
def test_a_student_cannot_reach_the_authoring_pages(env, path):
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    at.session_state["user"] = STUDENT
    at.run()
    with pytest.raises(ValueError, match="Could not find a navigation page"):
        at.switch_page(path)  # not in a student's navigation at all
    # and run directly, the page stops before showing anything
    direct = AppTest.from_file(str(ROOT / path), default_timeout=120)
    direct.session_state["user"] = STUDENT
    direct.run()
    assert not direct.exception
    assert values(direct.error) == ["This page is not available to you. Sign in with the right account."]
    assert not direct.title and not direct.button and not direct.dataframe and "bp_editor_key" not in direct.session_state


# --------------------------------------------------------------------------- heavy work off the page's run

SLOW_BLUEPRINT = (ROOT / "bench" / "slow_blueprint.yaml").read_text()


def recorded_jobs(monkeypatch) -> list:
    """Every job the pages submit to the process's job runner, from now on in this test."""
    from ui import jobs
    runner, submitted = jobs.runner(), []
    original = runner.submit

    def submit(fn, *args, **kwargs):
        job = original(fn, *args, **kwargs)
        submitted.append((fn, job))
        return job

    monkeypatch.setattr(runner, "submit", submit)
    return submitted


def test_the_blueprints_page_validates_in_a_worker_process_and_follows_it(env, monkeypatch):
    import os

    from core.jobs import tasks
    monkeypatch.setenv("WORKBENCH_JOB_WAIT", "0")        # follow the job at once, as for any slow validation
    submitted = recorded_jobs(monkeypatch)
    at = send(page(env, "pages/teacher_blueprints.py"), "validate", SLOW_BLUEPRINT)
    assert not at.exception, at.exception
    [(fn, job)] = submitted
    assert fn is tasks.check_blueprint and job.kind == "process" and job.owner == "teacher:teacher"
    # While it runs, the page shows its progress and nothing of a result; the page's run has ended.
    assert not job.done() and not at.success
    [bar] = [p.proto.text for p in at.get("progress")]
    assert bar.startswith("Validating: every difficulty level is exercised… (") and "stopped at 120 s" in bar
    assert "Stop" in [b.label for b in at.button]
    # The page picks up the result on a later run (in the browser, its progress fragment reruns it).
    deadline = time.monotonic() + 120
    while not at.success and time.monotonic() < deadline:
        time.sleep(0.5)
        at.run()
    assert job.pid not in (None, os.getpid())
    assert values(at.success) == ["Skill BENCH.SLOW.PRODUCTS version 1.0 is valid."]
    sizes = next(df.value for df in at.dataframe if "distinct items" in df.value.columns)
    assert list(sizes["level"]) == ["easy", "medium", "hard", "extension"]
    assert sum(m.count("**Answer:**") for m in values(at.markdown)) == 4     # one item per level
    # past the validation's own samples, new ones are drawn, also in a worker
    for _ in range(3):
        at.button(key="bp_another").click().run()
    deadline = time.monotonic() + 60
    while "bp_preview_job" in at.session_state and time.monotonic() < deadline:
        time.sleep(0.2)
        at.run()
    assert [fn for fn, _ in submitted] == [tasks.check_blueprint, tasks.sample_items]
    assert sum(m.count("**Answer:**") for m in values(at.markdown)) == 4 and not at.error


def test_a_validation_past_its_time_limit_is_stopped_with_a_sentence(env, monkeypatch):
    from core.jobs import tasks
    monkeypatch.setitem(tasks.TIME_LIMITS, "validate", 1.0)
    at = send(page(env, "pages/teacher_blueprints.py"), "validate", SLOW_BLUEPRINT)
    assert not at.exception, at.exception
    assert values(at.error) == ["Validating the blueprint was stopped at its time limit of 1 s. Its constraints are "
                                "probably too hard to meet: widen the parameter ranges or loosen the constraints, "
                                "then validate again."]
    assert not at.success


def test_a_second_job_while_one_runs_is_refused_with_a_sentence(env, monkeypatch):
    monkeypatch.setenv("WORKBENCH_JOB_WAIT", "0")
    at = send(page(env, "pages/teacher_blueprints.py"), "validate", SLOW_BLUEPRINT)
    job = at.session_state["bp_job"]
    at = send(at, "save", SLOW_BLUEPRINT)
    warning = " ".join(values(at.warning))
    assert "You already have a job running: Validating the blueprint" in warning, warning
    job.cancel()
    assert job.wait(30)
    at.run()
    assert values(at.error) == ["Validating the blueprint was stopped."]
