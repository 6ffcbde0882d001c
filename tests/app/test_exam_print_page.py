"""The Mock exams page's printing part through AppTest: the two HTML downloads, and a failed build that leaves
no earlier paper behind (nothing stale to print or assign)."""
from __future__ import annotations

import pytest

from core.exams import printing
from tests.app.test_teacher_review_class import clear_caches, make_db, open_page, texts


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    path = tmp_path_factory.mktemp("exam_print") / "app.duckdb"
    with pytest.MonkeyPatch.context() as mp:
        from tests.app.test_teacher_review_class import ROOT
        mp.setenv("WORKBENCH_DB", str(path))
        mp.delenv("WORKBENCH_TEACHER_PASSCODE", raising=False)
        mp.delenv("WORKBENCH_TEACHER_PASSCODE_HASH", raising=False)
        mp.chdir(ROOT)
        clear_caches()
        make_db(path, drafts=False)
        yield {"path": path}
        from ui import shared
        shared._open(str(path)).store.close()
        clear_caches()


def download_labels(at) -> list[str]:
    return [b.proto.label for b in at.get("download_button")]


def test_downloads_are_the_printed_paper_and_its_marking_scheme(env):
    at = open_page("pages/teacher_exams.py")
    at.text_input(key="exam_seed").input("12")
    at.button(key="exam_build_go").click().run()
    assert not at.exception and not at.error
    paper = at.session_state["exam_paper"]
    assert download_labels(at) == ["Question paper (HTML)", "Marking scheme (HTML)"]
    assert printing.PRINT_ADVICE in texts(at)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Questions"] == str(printing.printed_question_count(paper))
    assert metrics["Total marks"] == str(paper["total_marks"])


def test_a_failed_build_says_why_and_leaves_no_paper_to_print_or_assign(env):
    at = open_page("pages/teacher_exams.py")
    at.text_input(key="exam_seed").input("7")
    at.button(key="exam_build_go").click().run()
    assert "exam_paper" in at.session_state and any(e.label == "Assign this paper" for e in at.expander)

    at.text_input(key="exam_seed").input("   ")
    at.button(key="exam_build_go").click().run()
    assert not at.exception
    assert [e.value for e in at.error] == ["Give the paper a seed (any word or number); the same seed gives "
                                           "the same paper."]
    assert "exam_paper" not in at.session_state
    assert download_labels(at) == []
    assert not [b for b in at.button if b.key == "exam_assign_go"]
    assert not any(e.label == "Assign this paper" for e in at.expander)
    assert "build a paper to preview, print or assign it" in texts(at)


def test_the_shorter_mock_can_be_chosen_for_a_course_that_lists_it(env):
    at = open_page("pages/teacher_exams.py")
    formats = at.selectbox(key="exam_format")
    assert "short" in formats.options
    formats.select("short")
    at.button(key="exam_build_go").click().run()
    assert not at.exception and not at.error
    assert at.session_state["exam_paper"]["total_marks"] == 90
