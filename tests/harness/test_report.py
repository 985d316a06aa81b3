import json
from xml.etree import ElementTree as ET

from patchconf.harness.corpus.cases import LoadError, load_file
from patchconf.harness.reporting.report import Run, summary_text
from patchconf.harness.reporting.run_reports import write_reports
from patchconf.harness.running.runner import run_cases
from patchconf.harness.targets.base import Actual, ActualError

CASES = """
    defaults:
      type: json-patch
      tags: [JP-REPLACE]
      provenance: [{implementation: kubectl, version: "1.32.4"}]
    cases:
      - name: good
        description: replaced
        original: {spec: {replicas: 1}}
        patch: [{op: replace, path: /spec/replicas, value: 2}]
        expected: {spec: {replicas: 2}}
      - name: bad
        description: replicas removed
        original: {spec: {replicas: 1}}
        patch: [{op: remove, path: /spec/replicas}]
        expected: {spec: {}}
      - name: err
        description: an error expected
        original: {}
        patch: []
        expected_error: {class: path-not-found}
"""


def _run(write_case_file, scripted):
    cases, _ = load_file(write_case_file("json-patch/report.yaml", CASES))
    target = scripted({
        "good": Actual(document={"spec": {"replicas": 2}}),
        "bad": Actual(document={"spec": {"replicas": 0}}),
        "err": Actual(error=ActualError("path-not-found", "missing")),
    })
    results = run_cases(cases, target)
    errors = [LoadError("cases/json-patch/broken.yaml", "not valid YAML/JSON: oops")]
    return Run("scripted", target.info, results, errors, seconds=0.5)


def test_summary_names_failures_with_diff_and_counts(write_case_file, scripted):
    text = summary_text(_run(write_case_file, scripted))
    assert "LOAD ERROR cases/json-patch/broken.yaml: not valid YAML/JSON: oops" in text
    assert "FAIL " in text and "report.yaml::bad" in text
    assert "    document /spec/replicas: expected absent, got 0" in text
    assert "json-patch      2      1      0      0" in text
    assert "JP-REPLACE      2      1      0      0" in text
    assert "total: 2 pass, 1 fail, 0 error, 0 skip, 1 load errors" in text


def test_reports_are_written_in_every_format(write_case_file, scripted, tmp_path):
    run = _run(write_case_file, scripted)
    assert not run.ok
    written = write_reports(run, tmp_path / "out")
    assert sorted(p.name for p in written) == ["junit.xml", "report.html", "report.md", "results.json"]

    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert data["summary"] == {"pass": 2, "fail": 1}
    assert data["load_errors"][0]["file"] == "cases/json-patch/broken.yaml"
    bad = next(r for r in data["results"] if r["name"] == "bad")
    assert bad["diff"] == ["document /spec/replicas: expected absent, got 0"]
    assert bad["actual"] == {"document": {"spec": {"replicas": 0}}}

    suites = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    failures = suites.findall(".//failure")
    assert [f.text for f in failures] == ["document /spec/replicas: expected absent, got 0"]
    assert len(suites.findall(".//error")) == 1  # the load error

    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "document /spec/replicas: expected absent, got 0" in markdown
    assert "| JP-REPLACE | 2 | 1 | 0 | 0 |" in markdown
    assert "report.yaml::bad" in (tmp_path / "out" / "report.html").read_text()
