"""A printed paper in a real browser with no network: `python -m core paper` writes the files, Debian's chromium
opens paper.html from disk with every request that is not a file aborted (and recorded), and prints it to PDF.

Checks what a teacher offline would see: nothing tried to load, no raw TeX on the page, the maths laid out as
MathML (a power raised above its base), the marks adding up to the marking scheme's, and A4 pages in a sane
number. The PDFs go to tests/artifacts/ (git-ignored) for a look.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.browser.app_server import ARTIFACTS, launch, needs_chromium
from tests.cli.test_cli import run

pytestmark = needs_chromium

LAYOUT = """() => {
  const maths = Array.from(document.querySelectorAll('math'));
  const sup = document.querySelector('math msup');
  let raised = null;
  if (sup && sup.children.length === 2) {
    raised = sup.children[1].getBoundingClientRect().top < sup.children[0].getBoundingClientRect().top;
  }
  const marks = Array.from(document.querySelectorAll('[data-question]')).map(e => Number(e.dataset.marks));
  return {
    maths: maths.length,
    laidOut: maths.filter(m => { const r = m.getBoundingClientRect(); return r.width > 0 && r.height > 0; }).length,
    raised: raised,
    marks: marks.reduce((a, b) => a + b, 0),
    questions: marks.length,
    diagrams: Array.from(document.querySelectorAll('svg.diagram')).filter(s => s.getBoundingClientRect().width > 0).length,
    papers: document.querySelectorAll('section.cover').length,
  };
}"""


def pdf_pages(pdf: bytes) -> int:
    return len(re.findall(rb"/Type\s*/Page(?![a-z])", pdf))


@pytest.mark.parametrize("level, seed", [("Nat 5", "5"), ("Higher", "4")])
def test_the_paper_prints_offline_in_chromium(tmp_path: Path, level, seed):
    from playwright.sync_api import sync_playwright

    out = tmp_path / "printed"
    done = run("paper", "--db", str(tmp_path / "paper.duckdb"), "--subject", "Mathematics", "--level", level,
               "--seed", seed, "--out", str(out), "--json")
    assert done.returncode == 0, done.stderr
    made = json.loads(done.stdout)
    scheme_marks = sum(float(m) for m in re.findall(r'data-marks="([0-9.]+)"',
                                                    Path(made["marking_scheme"]).read_text(encoding="utf-8")))

    attempted: list[str] = []

    def only_files(route) -> None:
        if route.request.url.startswith("file://"):
            route.continue_()
        else:
            attempted.append(route.request.url)
            route.abort()

    with sync_playwright() as pw:
        browser = launch(pw)
        try:
            context = browser.new_context()
            context.route("**/*", only_files)
            page = context.new_page()
            page.goto(Path(made["paper"]).as_uri(), wait_until="load")
            page.wait_for_timeout(300)          # anything the page would fetch late
            text = page.evaluate("document.body.innerText")
            layout = page.evaluate(LAYOUT)
            pdf = page.pdf(format="A4")
            context.close()
        finally:
            browser.close()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"paper-{level.replace(' ', '').lower()}.pdf").write_bytes(pdf)

    assert attempted == []
    assert "$" not in text and "\\" not in text
    assert not re.search(r"\b(frac|sqrt|times|left|right)\{", text)
    assert layout["maths"] > 0 and layout["laidOut"] > 0 and layout["raised"] is True
    assert layout["marks"] == made["total_marks"] == scheme_marks
    assert layout["questions"] == made["questions"]
    assert "[END OF QUESTION PAPER]" in text and "FORMULAE LIST" in text
    papers = layout["papers"]
    assert papers == 2
    pages = pdf_pages(pdf)
    assert papers * 3 <= pages <= 60, pages      # a cover, a formulae list and questions per paper; not absurd
    # every triangle the paper holds is drawn (a National 5 paper has a trigonometry question or two)
    assert layout["diagrams"] == Path(made["paper"]).read_text(encoding="utf-8").count('<svg class="diagram"')
