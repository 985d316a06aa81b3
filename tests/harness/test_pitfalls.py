"""The pitfalls page: reports gathered from cases' references, what Kubernetes does, who gets it wrong."""

import subprocess
import sys

from patchconf.harness.corpus.cases import Outcome, load_file
from patchconf.harness.reporting.matrix import column_labels
from patchconf.harness.reporting.pitfalls import answer_text, changes, collect, releases_text, summary_markdown
from patchconf.harness.reporting.report import Run
from patchconf.harness.reporting.site import write_site
from patchconf.harness.running.runner import Filters, run_cases
from patchconf.harness.targets.base import Actual, ActualError

K8S = "https://github.com/kubernetes/kubernetes/issues/"
CASES = f"""
    defaults:
      type: json-patch
      tags: [JP-ADD]
      provenance: [{{implementation: upstream, version: "1.32.4"}}, {{implementation: apiserver, version: "1.33.13"}}]
    cases:
      - name: parent-missing
        description: add below a missing parent
        references: ["{K8S}90623", "https://github.com/kubernetes-sigs/kustomize/issues/2986"]
        original: {{metadata: {{name: web}}}}
        patch: [{{op: add, path: /metadata/annotations/foo, value: bar}}]
        expected_error: {{class: path-not-found, message: missing path}}
      - name: ports-dropped
        description: both ports go
        type: merge-patch
        tags: [MP-ARRAY]
        references: ["{K8S}62366"]
        original: {{spec: {{ports: [{{p: 1, h: 1}}, {{p: 1, h: 2}}], keep: x}}, old: 1}}
        patch: {{spec: {{ports: []}}, old: null, new: [1]}}
        expected: {{spec: {{ports: [], keep: x}}, new: [1]}}
        divergences:
          - target: [upstream, peer-lib]
            versions: "<1.28"
            reason: older releases kept the ports
            expected: {{spec: {{ports: [{{p: 1, h: 1}}], keep: x}}, new: [1]}}
          - target: peer-lib
            reason: not a Kubernetes judge
            expected: {{}}
          - target: live
            reason: the server refuses it
            expected_error: {{class: invalid, message: Duplicate value}}
      - name: unreferenced
        description: no report
        original: {{a: 1}}
        patch: [{{op: add, path: /b, value: 2}}]
        expected: {{a: 1, b: 2}}
      - name: server-answer
        description: a server's answer adds its defaults
        type: merge-patch
        tags: [MP-NULL]
        original: {{keep: 1, l: [1]}}
        patch: {{l: null, new: 1}}
        expected: {{default: x, keep: 2, new: 1, other: y}}
      - name: second-for-62366
        description: the same report again
        references: ["{K8S}62366"]
        original: {{a: 1}}
        patch: [{{op: add, path: /b, value: 2}}]
        expected: {{a: 1, b: 2}}
"""


def _cases(write_case_file):
    cases, errors = load_file(write_case_file("json-patch/reported.yaml", CASES))
    assert errors == []
    return cases


def test_a_selection_of_the_cases_answering_reports(write_case_file):
    cases = _cases(write_case_file)
    assert [case.name for case in cases if Filters(referenced=True).accepts(case)] == [
        "parent-missing", "ports-dropped", "second-for-62366"]
    assert [case.name for case in cases if Filters(types=("merge-patch",), referenced=True).accepts(case)] == [
        "ports-dropped"]


def test_reports_are_gathered_from_references_and_ordered(write_case_file):
    pitfalls = collect(_cases(write_case_file))
    assert [(p.label, [case.name for case in p.cases]) for p in pitfalls] == [
        ("kubernetes/kubernetes#62366", ["ports-dropped", "second-for-62366"]),
        ("kubernetes/kubernetes#90623", ["parent-missing"]),
        ("kubernetes-sigs/kustomize#2986", ["parent-missing"]),
    ]


def test_what_kubernetes_does_is_told_as_the_change_or_the_error(write_case_file):
    by_name = {case.name: case for case in _cases(write_case_file)}
    assert answer_text(by_name["parent-missing"]) == "refused: path-not-found (missing path)"
    assert answer_text(by_name["ports-dropped"]) == (
        '/spec/ports: removed {"p": 1, "h": 1}; /spec/ports: removed {"p": 1, "h": 2}; /old: removed; and 1 more')
    assert answer_text(by_name["second-for-62366"]) == "/b: added 2"
    assert answer_text(by_name["second-for-62366"], Outcome(patch={"b": 2})) == 'the patch is {"b": 2}'
    # changes and removals first, what the patch wrote first among them: a server's defaults come last
    assert answer_text(by_name["server-answer"]) == '/l: removed; /keep: 1 → 2; /new: added 1; and 2 more'

    assert releases_text(by_name["ports-dropped"]) == (
        '1.32.4, 1.33.13; <1.28 (upstream): /spec/ports: removed {"p": 1, "h": 2}; /old: removed; /new: added [1] '
        "— older releases kept the ports; live: refused: invalid (Duplicate value) — the server refuses it")
    assert releases_text(by_name["parent-missing"]) == "1.32.4, 1.33.13"


def test_changes_tell_members_lists_and_order():
    assert changes({"a": 1, "b": [1, 2], "c": {"d": 1}}, {"a": 2, "b": [2, 1], "c": {}, "e": None}) == [
        "/a: 1 → 2", "/b: now [2, 1]", "/c/d: removed", "/e: added null"]
    assert changes({"l": [{"name": "x", "v": 1}]}, {"l": [{"name": "x", "v": 2}]}) == ["/l/0/v: 1 → 2"]
    assert changes({"a": 1}, {"a": 1}) == []
    assert changes({"a": 1}, {"a": 1.0}) == ["/a: 1 → 1.0"]
    long = {"v": "x" * 100}
    assert changes({}, long) == ['/v: added "' + "x" * 78 + "…"]


def test_the_summary_without_results_says_not_measured(write_case_file):
    text = summary_markdown(collect(_cases(write_case_file)), command="patchconf matrix --from r --pitfalls p.md")
    lines = text.splitlines()
    assert lines[0] == "# Reported pitfalls"
    assert "3 reports, 3 cases." in lines[2] and "*wrong in the matrix*: not measured" in lines[2]
    assert lines[4:6] == ["| report | the problem | minimal case | what Kubernetes does | wrong in the matrix |",
                          "|---|---|---|---|---|"]
    assert lines[7] == (
        f"| [kubernetes/kubernetes#90623]({K8S}90623) | add below a missing parent | "
        "[`cases/json-patch/reported.yaml::parent-missing`](../cases/json-patch/reported.yaml) | "
        "refused: path-not-found (missing path) (Kubernetes 1.32.4, 1.33.13) | not measured |")
    assert lines[6].startswith(f"| [kubernetes/kubernetes#62366]({K8S}62366) | both ports go | "
                               "[`cases/json-patch/reported.yaml::ports-dropped`](../cases/json-patch/reported.yaml)"
                               "<br>[`cases/json-patch/reported.yaml::second-for-62366`]")
    assert lines[6].endswith("| `ports-dropped`: not measured<br>`second-for-62366`: not measured |")
    assert len(lines) == 9


def test_the_summary_names_the_columns_that_get_it_wrong(write_case_file, scripted):
    cases = _cases(write_case_file)
    right = scripted({"parent-missing": Actual(error=ActualError("path-not-found", "doc is missing path")),
                      "ports-dropped": Actual(document={"spec": {"ports": [], "keep": "x"}, "new": [1]}),
                      "second-for-62366": Actual(document={"a": 1, "b": 2}),
                      "unreferenced": Actual(document={"a": 1, "b": 2}),
                      "server-answer": Actual(document={"keep": 1})}, family="right",
                     patch_types=frozenset({"json-patch", "merge-patch"}))
    wrong = scripted({"parent-missing": Actual(document={"metadata": {"name": "web", "annotations": {"foo": "bar"}}}),
                      "second-for-62366": Actual(document={"a": 1, "b": 2}),
                      "unreferenced": Actual(document={"a": 1, "b": 2}),
                      "server-answer": Actual(document={"keep": 1})}, family="lenient",
                     patch_types=frozenset({"json-patch"}))
    runs = [Run(t.name, t.info, run_cases(cases, t)) for t in (right, wrong)]
    lines = summary_markdown(collect(cases), runs, column_labels(runs)).splitlines()
    assert "the columns (`right`, `lenient`) whose answer the case fails" in lines[2]
    assert lines[7].endswith("| lenient |")
    assert lines[6].endswith("| `ports-dropped`: none of 1<br>`second-for-62366`: none of 2 |")
    lines = summary_markdown(collect(cases), runs[1:], column_labels(runs[1:])).splitlines()
    assert lines[6].endswith("| `ports-dropped`: not run<br>`second-for-62366`: none of 1 |")


def test_the_site_has_a_pitfalls_page_linked_from_its_index(write_case_file, scripted, tmp_path):
    cases = _cases(write_case_file)
    wrong = scripted({"parent-missing": Actual(document={"metadata": {"name": "web"}}),
                      "second-for-62366": Actual(document={"a": 1, "b": 2}),
                      "unreferenced": Actual(document={"a": 1, "b": 2}),
                      "server-answer": Actual(document={"keep": 1})}, family="lenient",
                     patch_types=frozenset({"json-patch"}))
    runs = [Run(wrong.name, wrong.info, run_cases(cases, wrong))]
    write_site(runs, tmp_path / "site", pitfalls=collect(cases))
    page = (tmp_path / "site" / "pitfalls.html").read_text()
    assert page.count('<section class="pitfall"') == 3
    assert '<section class="pitfall" id="kubernetes-kubernetes-90623"><h2><a href="' + K8S + '90623">' in page
    assert "<p><b>Wrong in the matrix</b>: lenient</p>" in page
    assert ('<a href="implementations/lenient.html#q=cases%2Fjson-patch%2Freported.yaml%3A%3Aparent-missing">'
            'lenient</a></td><td><span class="chip fail">fail</span>') in page
    assert "<p><b>Wrong in the matrix</b>: not run</p>" in page  # ports-dropped: a merge patch, skipped
    assert '<a href="pitfalls.html">Reported pitfalls</a>: the 3 public reports' in (
        tmp_path / "site" / "index.html").read_text()
    write_site(runs, tmp_path / "bare")
    assert not (tmp_path / "bare" / "pitfalls.html").exists()
    assert "pitfalls.html" not in (tmp_path / "bare" / "index.html").read_text()


def test_matrix_writes_the_pitfalls_page_and_no_compliance_page(write_case_file, tmp_path):
    path = write_case_file("json-patch/reported.yaml", CASES)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    made = subprocess.run([sys.executable, "-m", "patchconf.harness.cli", "matrix", "--targets", "reference",
                           "--cases", str(path.parent.parent), "--referenced", "--pitfalls", "out/pitfalls.md"],
                          cwd=elsewhere, capture_output=True, text=True, timeout=300)
    assert made.returncode == 0, made.stderr
    assert made.stdout.startswith("3 pass, 0 fail, 0 error, 0 skip  reference")  # not the unreferenced case
    assert sorted(p.name for p in elsewhere.iterdir()) == ["out"]
    lines = (elsewhere / "out" / "pitfalls.md").read_text().splitlines()
    assert lines[2].startswith("Produced by `patchconf matrix`; regenerate with `patchconf matrix --targets reference")
    assert lines[7] == (
        f"| [kubernetes/kubernetes#90623]({K8S}90623) | add below a missing parent | "
        "[`cases/json-patch/reported.yaml::parent-missing`](../../cases/json-patch/reported.yaml) | "
        "refused: path-not-found (missing path) (Kubernetes 1.32.4, 1.33.13) | none of 1 |")
