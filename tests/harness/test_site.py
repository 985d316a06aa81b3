import json
import re
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from patchconf.harness import cli
from patchconf.harness.corpus.cases import load_file
from patchconf.harness.reporting.report import Run
from patchconf.harness.reporting.results import result_from_json
from patchconf.harness.reporting.run_reports import html_report
from patchconf.harness.reporting.site import badge, badge_svg, pass_percent, run_page, slug, write_site
from patchconf.harness.running.runner import run_cases
from patchconf.harness.targets.base import Actual, ActualError
from tests.harness.corpus_snippets import NEGATIVE, PLAIN, case_file

CASES = case_file(PLAIN + NEGATIVE + """\
- name: hostile
  description: "<script>window.pwned = 1</script> a description is untrusted text"
  original: {a: 1}
  patch: [{op: remove, path: /a}]
  expected: {}
""")
HOSTILE_ANSWER = {"a": '<img src=x onerror="window.pwned=2">'}


def _runs(write_case_file, scripted) -> list[Run]:
    cases, errors = load_file(write_case_file("json-patch/site.yaml", CASES))
    assert not errors
    good = scripted({"plain": Actual(document={"a": 1, "b": 2}), "negative": Actual(document={"a": [1, 2]}),
                     "hostile": Actual(document={})}, family="good")
    poor = scripted({"plain": Actual(document={"a": 1, "b": 2}),
                     "negative": Actual(error=ActualError("invalid-index", "index out of range")),
                     "hostile": Actual(document=HOSTILE_ANSWER)}, family="poor", name="peer:poor")
    return [Run(t.name, t.info, run_cases(cases, t)) for t in (good, poor)]


def test_badge_is_a_shields_endpoint_document_with_the_pass_rate():
    assert badge({"pass": 2, "fail": 1, "skip": 5}) == {
        "schemaVersion": 1, "label": "patchconf", "message": "67% (2/3)", "color": "yellow"}
    assert badge({"pass": 7}) == {"schemaVersion": 1, "label": "patchconf", "message": "100% (7/7)",
                                  "color": "brightgreen"}
    assert badge({"skip": 3}) == {"schemaVersion": 1, "label": "patchconf", "message": "no cases run",
                                  "color": "lightgrey"}
    assert badge({"pass": 0, "error": 2})["color"] == "red"


def test_only_every_case_passing_reads_100_percent_and_only_none_reads_0():
    assert (pass_percent(999, 1000), pass_percent(1, 1000), pass_percent(1000, 1000), pass_percent(0, 9)) == \
        (99, 1, 100, 0)
    assert pass_percent(274, 308) == 89


def test_badge_svg_says_the_same_in_the_badge_colour():
    svg = ET.fromstring(badge_svg({"pass": 2, "fail": 1}))
    ns = {"s": "http://www.w3.org/2000/svg"}
    assert svg.find("s:title", ns).text == "patchconf: 67% (2/3)"
    assert [rect.get("fill") for rect in svg.findall("s:g/s:rect", ns)] == ["#555", "#dfb317", "url(#s)"]
    texts = [t.text for t in svg.findall("s:g/s:text", ns)]
    assert texts == ["patchconf", "patchconf", "67% (2/3)", "67% (2/3)"]  # each with its shadow
    label, message, _ = svg.findall("s:g/s:rect", ns)
    assert int(svg.get("width")) == int(label.get("width")) + int(message.get("width"))


def test_site_has_an_index_a_page_and_badges_per_implementation(write_case_file, scripted, tmp_path):
    runs = _runs(write_case_file, scripted)
    written = write_site(runs, tmp_path / "site", title="Matrix")
    assert sorted(str(p.relative_to(tmp_path / "site")) for p in written) == [
        "badges/good.json", "badges/good.svg", "badges/peer-poor.json", "badges/peer-poor.svg",
        "implementations/good.html", "implementations/peer-poor.html", "index.html"]
    assert json.loads((tmp_path / "site/badges/peer-poor.json").read_text()) == {
        "schemaVersion": 1, "label": "patchconf", "message": "33% (1/3)", "color": "red"}
    assert json.loads((tmp_path / "site/badges/good.json").read_text())["message"] == "100% (3/3)"

    index = (tmp_path / "site/index.html").read_text()
    behaviour_rows = re.findall(r'<tr class="row"[^>]*><th>([^<]+)</th>', index.split("By behaviour")[1])
    assert behaviour_rows == ["JP-ADD", "JP-K8S"]
    # a cell: pass rate, coloured, linking to that implementation's failures of that behaviour
    assert ('<a href="implementations/peer-poor.html#tag=JP-K8S&amp;status=fail,error">0%<br><small>0/1</small></a>'
            in index)
    assert '<a href="implementations/good.html#tag=JP-K8S">100%<br><small>1/1</small></a>' in index
    assert '<img src="badges/peer-poor.svg" alt="33% (1/3)">' in index
    # the matrix's severity counts, each failing implementation a row (peer:poor: its two failures are drift)
    assert ('<tr><td><a href="implementations/peer-poor.html">peer:poor</a></td><td class="num">0</td>'
            '<td class="num">0</td><td class="num">2</td><td class="num">0</td></tr></table>') in index
    assert index.index("<h2>Departures by severity</h2>") < index.index("<h2>By flow (patch type)</h2>")
    changed = index.split("Changed between targets")[1]
    assert "cases/json-patch/site.yaml::negative" in changed and "site.yaml::plain" not in changed


def test_an_implementation_page_shows_every_failure_with_diff_expected_actual_and_inputs(
        write_case_file, scripted, tmp_path):
    write_site(_runs(write_case_file, scripted), tmp_path / "site")
    page = (tmp_path / "site/implementations/peer-poor.html").read_text()
    rows = re.findall(r'<tr class="row" data-type="json-patch" data-tags="([^"]*)" data-status="(\w+)">', page)
    assert rows == [("JP-K8S", "fail"), ("JP-ADD", "fail"), ("JP-ADD", "pass")]  # failures first
    negative = page.split("site.yaml::negative</code><div")[1].split("</tr>")[0]
    assert ('<pre class="diff">expected success, got error &#x27;invalid-index&#x27;: index out of range</pre>'
            in negative)
    assert '<h4>expected</h4><pre>{\n  &quot;expected&quot;: {\n    &quot;a&quot;: [\n      1,\n      2' in negative
    assert "<h4>actual</h4><pre>{\n  &quot;error&quot;: {\n    &quot;class&quot;: &quot;invalid-index&quot;" in negative
    assert ("<h4>original</h4><pre>{\n  &quot;a&quot;: [\n    1\n  ]\n}</pre><h4>patch</h4><pre>[\n  {\n"
            "    &quot;op&quot;: &quot;add&quot;,\n    &quot;path&quot;: &quot;/a/-1&quot;,\n    &quot;value&quot;: 2\n"
            "  }\n]</pre></details>") in negative
    assert f"case file: <code>{tmp_path}/cases/json-patch/site.yaml:11</code>" in negative
    assert '<img src="../badges/peer-poor.svg"' in page and '<a href="../index.html">' in page


def test_case_text_and_answers_render_inert(write_case_file, scripted, tmp_path):
    runs = _runs(write_case_file, scripted)
    hostile_name = result_from_json({
        "file": "cases/x.yaml", "name": "<script>alert(1)</script>", "type": "json-patch",
        "tags": ["JP-ADD", '"><u>'], "status": "fail", "reason": "</pre><script>alert(2)</script>",
        "diff": ["</pre><script>alert(3)</script>"], "expected": {"expected": "</script>"}, "actual": {}})
    runs[1].results.append(hostile_name)
    write_site(runs, tmp_path / "site")
    pages = [html_report(runs[1]), *(p.read_text() for p in (tmp_path / "site").rglob("*.html"))]
    for page in pages:
        assert page.count("<script") == 1  # the page's own filter script, and nothing a case brought
        assert "<img src=x" not in page and "<u>" not in page
    poor = (tmp_path / "site/implementations/peer-poor.html").read_text()
    assert "&lt;script&gt;window.pwned = 1&lt;/script&gt; a description is untrusted text" in poor
    assert "&lt;img src=x onerror=\\&quot;window.pwned=2\\&quot;&gt;" in poor
    assert "<code>cases/x.yaml::&lt;script&gt;alert(1)&lt;/script&gt;</code>" in poor
    assert 'data-tags="JP-ADD &quot;&gt;&lt;u&gt;"' in poor


def test_report_html_puts_the_summary_and_failures_first_with_inputs(write_case_file, scripted, tmp_path):
    good, run = _runs(write_case_file, scripted)
    assert "<p>No failures: every case that ran matched.</p>" in run_page(good)
    page = run_page(run)
    assert "No failures" not in page
    assert page == html_report(run)
    assert page.index("<h2>Summary</h2>") < page.index("<h2>Results: failures first</h2>")
    assert '<span class="fail"><b>2</b> fail</span>' in page
    summary = page.split("<h2>Summary</h2>")[1].split("<h2>Results")[0]
    # worst first, rate cells coloured, names filter the list
    assert re.findall(r'<a href="#tag=([\w-]+)">', summary) == ["JP-K8S", "JP-ADD"]
    assert '<td class="num" style="background:hsl(15,62%,86%)">50%</td>' in summary
    assert '<option value="JP-K8S">JP-K8S</option>' in page and '<option value="json-patch">' in page
    # each failure as the site's implementation page shows it: results record a failure's inputs
    write_site([good, run], tmp_path / "site")
    site_page = (tmp_path / "site/implementations/peer-poor.html").read_text()
    assert page.split("<tbody>")[-1] == site_page.split("<tbody>")[-1]
    assert "<h4>original</h4>" in page.split("site.yaml::negative</code><div")[1].split("</tr>")[0]


def test_slugs_are_file_names():
    assert [slug(s) for s in ("peer:kustomize-kyaml", "python-jsonpatch #2", "upstream@1.27", "../x")] == \
        ["peer-kustomize-kyaml", "python-jsonpatch-2", "upstream-1.27", "x"]


REFERENCE_CASES = case_file("""
      - name: plain
        description: plain add
        original: {a: 1}
        patch: [{op: add, path: /b, value: 2}]
        expected: {a: 1, b: 2}
      - name: wrong-on-purpose
        description: an expectation the reference does not meet, so that the site has a failure
        original: {a: 1}
        patch: [{op: add, path: /b, value: 2}]
        expected: {a: 1, b: 3}
""")


def test_matrix_html_from_runs_already_made_renders_what_a_fresh_matrix_renders(write_case_file, tmp_path, capsys):
    cases = write_case_file("json-patch/cli.yaml", REFERENCE_CASES)
    common = ["--cases", str(cases), "--title", "Small"]
    assert cli.main(["matrix", "--targets", "reference", *common, "--html", str(tmp_path / "fresh"),
                     "--results", str(tmp_path / "runs")]) == 0
    assert "matrix: " + str(tmp_path / "runs" / "reference") in capsys.readouterr().out
    assert (tmp_path / "runs/reference/results.json").is_file()
    assert cli.main(["matrix", "--from", str(tmp_path / "runs/reference"), *common,
                     "--html", str(tmp_path / "again")]) == 0
    out = capsys.readouterr().out
    assert "1 pass, 1 fail, 0 error, 0 skip  reference (from" in out
    assert out.rstrip().endswith(f"matrix: {tmp_path / 'again' / 'index.html'}")  # no compliance.md
    fresh, again = (tmp_path / d / "implementations/reference.html" for d in ("fresh", "again"))
    assert again.read_text() == fresh.read_text()
    assert "<h4>original</h4><pre>{\n  &quot;a&quot;: 1\n}</pre><h4>patch</h4>" in again.read_text()
    assert (tmp_path / "again/badges/reference.json").read_text() == \
        (tmp_path / "fresh/badges/reference.json").read_text()


def test_matrix_from_narrows_by_the_selection_and_fails_on_an_unreadable_run(write_case_file, tmp_path, capsys):
    cases = write_case_file("json-patch/cli.yaml", REFERENCE_CASES)
    assert cli.main(["run", "--target", "reference", "--cases", str(cases), "--quiet",
                     "--report", str(tmp_path / "run")]) == 1
    assert cli.main(["matrix", "--from", str(tmp_path / "run"), "--cases", str(cases), "-k", "plain",
                     "--out", str(tmp_path / "m.md")]) == 0
    assert "| JP-ADD | 100% (1/1) |" in (tmp_path / "m.md").read_text()
    assert cli.main(["matrix", "--from", str(tmp_path / "nothing-here"), "--html", str(tmp_path / "s")]) == 2
    assert "patchconf matrix: cannot read" in capsys.readouterr().err


def test_matrix_needs_targets_or_runs(capsys):
    with pytest.raises(SystemExit):
        cli.main(["matrix", "--html", "x"])
    assert "one of the arguments --targets --from is required" in capsys.readouterr().err


def test_site_files_need_nothing_from_the_network(write_case_file, scripted, tmp_path):
    written = write_site(_runs(write_case_file, scripted), tmp_path / "site")
    for path in written:
        text = Path(path).read_text()
        assert not re.search(r"""(src|href)=["']?(https?:)?//""", text), path


def test_the_index_lists_kubernetes_tools_and_libraries_in_their_groups(write_case_file, scripted):
    from dataclasses import replace

    from patchconf.harness.reporting.site import index_page
    from patchconf.harness.targets.base import TOOL

    cases, _ = load_file(write_case_file("json-patch/s.yaml", CASES))
    library = scripted({}, family="libby")
    tool = scripted({}, family="helmish")
    tool.info = replace(tool.info, category=TOOL)
    runs = [Run(t.name, t.info, run_cases(cases, t)) for t in (library, tool)]
    page = index_page(runs, "Compliance matrix")
    tools, libraries = page.index("<h3>Tools users&#x27;"), page.index("<h3>Libraries</h3>")
    assert tools < page.index("helmish", tools) < libraries < page.index("libby", libraries)
    assert "<h3>" not in index_page(runs[:1], "Compliance matrix")
