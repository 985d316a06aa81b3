"""The conformance site and report.html in a real browser: Debian's headless Chromium, driven
over the DevTools protocol (tests/harness/chromium.py). Pages load from file:// with no console
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
from tests.harness.chromium import Chromium, find_chromium
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
def browser():
    executable = find_chromium()
    if executable is None:
        pytest.skip("no chromium on PATH (Debian: apt-get install chromium): the site's browser test needs it")
    with Chromium(executable) as chromium:
        yield chromium


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


def _open(browser: Chromium, path: Path, fragment: str = "") -> None:
    browser.events.clear()
    browser.open(path.as_uri() + fragment)


def test_index_loads_and_its_filters_narrow_the_matrix(browser, site):
    _open(browser, site / "site/index.html")
    assert browser.evaluate("document.title") == "Small matrix"
    assert browser.evaluate(VISIBLE_ROWS.format(table="#by-tag")) == 3
    browser.evaluate("const t = document.querySelector('select[name=type]'); t.value = 'merge-patch';"
                     "t.dispatchEvent(new Event('change', {bubbles: true}))")
    assert browser.evaluate(VISIBLE_ROWS.format(table="#by-tag")) == 1
    assert browser.evaluate(VISIBLE_ROWS.format(table="#by-type")) == 1
    assert browser.evaluate("document.querySelector('[data-count-for=by-tag]').textContent") == "1 of 3 shown"
    browser.evaluate("document.querySelector('button[type=reset]').click()")
    assert browser.evaluate(VISIBLE_ROWS.format(table="#by-tag")) == 3
    badge_width = browser.evaluate("new Promise(done => { const i = document.querySelector('img[src$=\"poor.svg\"]');"
                                   " i.complete ? done(i.naturalWidth) : i.onload = () => done(i.naturalWidth); })")
    assert badge_width > 50  # the SVG badge loaded and drew
    assert browser.problems() == []


def test_an_implementation_page_filters_by_status_text_and_link(browser, site, tmp_path):
    page = site / "site/implementations/peer-poor.html"
    _open(browser, page)
    results = "#results"
    assert browser.evaluate(VISIBLE_ROWS.format(table=results)) == 4
    browser.evaluate("document.querySelector('input[name=status][value=pass]').click()")  # a person's click
    assert browser.evaluate(VISIBLE_ROWS.format(table=results)) == 3
    browser.evaluate("document.querySelector('input[name=text]').focus()")
    browser.call("Input.insertText", {"text": "merge"}, session=browser.session)  # typed, as a person types
    assert browser.evaluate(VISIBLE_ROWS.format(table=results)) == 1
    assert browser.evaluate("document.querySelector('[data-count-for=results]').textContent") == "1 of 4 shown"
    # a link from the index: the fragment sets the filters
    browser.evaluate("location.hash = 'tag=JP-K8S&status=fail,error'")
    browser.evaluate("new Promise(done => setTimeout(done, 50))")
    visible = browser.evaluate("Array.from(document.querySelectorAll('#results .row')).filter(r => !r.hidden)"
                               ".map(r => r.querySelector('code').textContent)")
    assert visible == ["cases/json-patch/site.yaml::negative"]
    assert browser.problems() == []


def test_hostile_case_text_stays_text_and_nothing_runs_off_the_screen(browser, site):
    for page in (site / "site/implementations/peer-poor.html", site / "report/report.html"):
        _open(browser, page)
        assert browser.evaluate("typeof window.pwned") == "undefined"
        assert browser.evaluate("document.querySelectorAll('script').length") == 1
        assert browser.evaluate("document.body.textContent.includes('<script>window.pwned = 1</script>')")
        browser.evaluate("document.querySelectorAll('details').forEach(d => d.open = true)")
        assert browser.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), page
        assert browser.problems() == []


def test_a_screenshot_shows_what_a_person_sees(browser, site, record_property):
    _open(browser, site / "site/implementations/peer-poor.html", "#status=fail,error")
    browser.evaluate("document.querySelector('#results details').open = true")
    directory = Path(os.environ.get("PATCHCONF_SCREENSHOT_DIR", site))
    shot = browser.screenshot(directory / "site-screenshot.png")
    record_property("screenshot", str(shot))
    print(f"screenshot: {shot}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert int.from_bytes(data[16:20], "big") == 1400  # the viewport's width, as a person's window
    assert browser.problems() == []
