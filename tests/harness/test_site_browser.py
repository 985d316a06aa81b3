"""The conformance site and report.html in a real browser: Debian's headless Chromium, driven
by Playwright (tests/harness/chromium.py). Pages load from file:// with no console
error, the filters hide and show rows, hostile case text stays text, nothing runs off the
screen, and a screenshot shows what a person sees (its path is printed and recorded as the
test's ``screenshot`` property; ``PATCHCONF_SCREENSHOT_DIR`` chooses where it goes).
"""

import os
from pathlib import Path

import pytest

from patchconf.harness.corpus.cases import load_file
from patchconf.harness.reporting.report import Run
from patchconf.harness.reporting.run_reports import write_reports
from patchconf.harness.reporting.site import write_site
from patchconf.harness.running.runner import run_cases
from patchconf.harness.targets.base import Actual, ActualError

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (the test extra brings it: "
                                                   "pip install -e '.[test]'): the site's browser test needs it")

from playwright.sync_api import Page

from tests.harness.chromium import EXECUTABLES, Problems, chromium_page, find_chromium
from tests.harness.corpus_snippets import NEGATIVE, PLAIN, case_file

CASES = case_file(PLAIN + NEGATIVE + """\
- name: hostile
  description: "<script>window.pwned = 1</script><img src=x onerror=\\"window.pwned = 2\\">"
  original: {a: 1}
  patch: [{op: remove, path: /a}]
  expected: {}
- name: merged
  type: merge-patch
  tags: [MP-NULL]
  description: a merge patch
  original: {a: 1}
  patch: {a: null}
  expected: {}
""")
LONG_WORD = "x" * 3000  # one unbroken word in an answer: the page must wrap it, not scroll sideways

VISIBLE_ROWS = "Array.from(document.querySelectorAll('{table} .row')).filter(r => !r.hidden).length"


@pytest.fixture(scope="module")
def browser() -> tuple[Page, Problems]:
    executable = find_chromium()
    if executable is None:
        pytest.skip(f"no chromium on PATH (looked for {', '.join(EXECUTABLES)}; Debian: apt-get install chromium): "
                    "the site's browser test needs it")
    with chromium_page(executable) as opened:
        yield opened


@pytest.fixture
def page(browser) -> Page:
    return browser[0]


@pytest.fixture
def problems(browser) -> Problems:
    return browser[1]


@pytest.fixture
def site(write_case_file, scripted, tmp_path) -> Path:
    cases, errors = load_file(write_case_file("json-patch/site.yaml", CASES))
    assert not errors
    good = scripted({"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [1, 2]}),
                     "hostile": Actual(document={}), "merged": Actual(document={})}, family="good")
    poor = scripted({"plain": Actual(document={"a": 1, "b": 2}),
                     "negative": Actual(error=ActualError("invalid-index", LONG_WORD)),
                     "hostile": Actual(document={"a": '<img src=x onerror="window.pwned = 3">'}),
                     "merged": Actual(document={"a": None})}, family="poor", name="peer:poor")
    runs = [Run(t.name, t.info, run_cases(cases, t)) for t in (good, poor)]
    write_site(runs, tmp_path / "site", title="Small matrix")
    write_reports(runs[1], tmp_path / "report")
    return tmp_path


def _open(page: Page, problems: Problems, path: Path, fragment: str = "") -> None:
    problems.clear()
    page.goto(path.as_uri() + fragment)  # returns once the page's load event has fired


def test_index_loads_and_its_filters_narrow_the_matrix(page, problems, site):
    _open(page, problems, site / "site/index.html")
    assert page.evaluate("document.title") == "Small matrix"
    assert page.evaluate(VISIBLE_ROWS.format(table="#by-tag")) == 3
    page.evaluate("const t = document.querySelector('select[name=type]'); t.value = 'merge-patch';"
                  "t.dispatchEvent(new Event('change', {bubbles: true}))")
    assert page.evaluate(VISIBLE_ROWS.format(table="#by-tag")) == 1
    assert page.evaluate(VISIBLE_ROWS.format(table="#by-type")) == 1
    assert page.evaluate("document.querySelector('[data-count-for=by-tag]').textContent") == "1 of 3 shown"
    page.evaluate("document.querySelector('button[type=reset]').click()")
    assert page.evaluate(VISIBLE_ROWS.format(table="#by-tag")) == 3
    badge_width = page.evaluate("new Promise(done => { const i = document.querySelector('img[src$=\"poor.svg\"]');"
                                " i.complete ? done(i.naturalWidth) : i.onload = () => done(i.naturalWidth); })")
    assert badge_width > 50  # the SVG badge loaded and drew
    assert problems == []


def test_an_implementation_page_filters_by_status_text_and_link(page, problems, site, tmp_path):
    _open(page, problems, site / "site/implementations/peer-poor.html")
    results = "#results"
    assert page.evaluate(VISIBLE_ROWS.format(table=results)) == 4
    page.evaluate("document.querySelector('input[name=status][value=pass]').click()")  # a person's click
    assert page.evaluate(VISIBLE_ROWS.format(table=results)) == 3
    page.evaluate("document.querySelector('input[name=text]').focus()")
    page.keyboard.insert_text("merge")  # typed, as a person types
    assert page.evaluate(VISIBLE_ROWS.format(table=results)) == 1
    assert page.evaluate("document.querySelector('[data-count-for=results]').textContent") == "1 of 4 shown"
    # a link from the index: the fragment sets the filters
    page.evaluate("location.hash = 'tag=JP-K8S&status=fail,error'")
    page.evaluate("new Promise(done => setTimeout(done, 50))")
    visible = page.evaluate("Array.from(document.querySelectorAll('#results .row')).filter(r => !r.hidden)"
                            ".map(r => r.querySelector('code').textContent)")
    assert visible == ["cases/json-patch/site.yaml::negative"]
    assert problems == []


def test_hostile_case_text_stays_text_and_nothing_runs_off_the_screen(page, problems, site):
    for path in (site / "site/implementations/peer-poor.html", site / "report/report.html"):
        _open(page, problems, path)
        assert page.evaluate("typeof window.pwned") == "undefined"
        assert page.evaluate("document.querySelectorAll('script').length") == 1
        assert page.evaluate("document.body.textContent.includes('<script>window.pwned = 1</script>')")
        page.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), path
        assert problems == []


def test_a_screenshot_shows_what_a_person_sees(page, problems, site, record_property):
    _open(page, problems, site / "site/implementations/peer-poor.html", "#status=fail,error")
    page.evaluate("document.querySelector('#results details').open = true")
    directory = Path(os.environ.get("PATCHCONF_SCREENSHOT_DIR", site))
    shot = directory / "site-screenshot.png"
    page.screenshot(path=shot)
    record_property("screenshot", str(shot))
    print(f"screenshot: {shot}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 1400  # the viewport's width, as a person's window
    assert problems == []


def test_what_goes_wrong_in_a_page_is_what_the_tests_see(page, problems, tmp_path):
    # the checks above assert no problem: each kind they would see, seen
    broken = tmp_path / "broken.html"
    broken.write_text("<!doctype html><title>broken</title><img src=missing.png><script>console.error('boom', 1);"
                      "console.assert(false, 'asserted'); throw new TypeError('uncaught');</script>")
    _open(page, problems, broken)
    page.evaluate("new Promise(done => setTimeout(done, 50))")
    assert sorted(problems) == [
        f"console.assert: asserted ({broken.as_uri()})",
        f"console.error: Failed to load resource: net::ERR_FILE_NOT_FOUND ({(tmp_path / 'missing.png').as_uri()})",
        f"console.error: boom 1 ({broken.as_uri()})",
        "exception: TypeError: uncaught",
    ]
