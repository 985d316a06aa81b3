import json
import platform
import re
from collections import Counter, defaultdict
from dataclasses import replace
from xml.etree import ElementTree as ET

import pytest

from patchconf.harness.corpus.cases import LoadError, load_file
from patchconf.harness.reporting.report import Run, failure_text, junit_xml, summary_text
from patchconf.harness.reporting.run_reports import write_reports
from patchconf.harness.running.runner import ERROR, FAIL, PASS, SKIP, run_cases
from patchconf.harness.targets.base import Actual, ActualError
from tests.harness.corpus_snippets import case_file

CASES = case_file("""
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
""", tags="JP-REPLACE")


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

    source = f"{tmp_path}/cases/json-patch/report.yaml:11"
    assert bad["source"] == source
    assert bad["inputs"] == {"original": {"spec": {"replicas": 1}},
                             "patch": [{"op": "remove", "path": "/spec/replicas"}]}
    assert "inputs" not in next(r for r in data["results"] if r["name"] == "good")  # passes record no inputs

    suites = ET.parse(tmp_path / "out" / "junit.xml").getroot()
    failures = suites.findall(".//failure")
    assert [f.text for f in failures] == [
        "document /spec/replicas: expected absent, got 0\n"
        f"\n--- case file ---\n{source}\n"
        '\n--- original ---\n{\n  "spec": {\n    "replicas": 1\n  }\n}\n'
        '\n--- patch ---\n[\n  {\n    "op": "remove",\n    "path": "/spec/replicas"\n  }\n]\n'
        '\n--- expected ---\n{\n  "expected": {\n    "spec": {}\n  }\n}\n'
        '\n--- actual ---\n{\n  "document": {\n    "spec": {\n      "replicas": 0\n    }\n  }\n}']
    assert len(suites.findall(".//error")) == 1  # the load error

    markdown = (tmp_path / "out" / "report.md").read_text()
    assert "| JP-REPLACE | 2 | 1 | 0 | 0 |" in markdown
    failure = markdown[markdown.index("### cases/json-patch/report.yaml::bad (fail)"):]
    assert failure.split("\n") == "\n".join([
        "### cases/json-patch/report.yaml::bad (fail)", "", "replicas removed", "",
        "**differences**", "", "```", "document /spec/replicas: expected absent, got 0", "```", "",
        f"case file: `{source}`", "",
        "**original**", "", "```", '{\n  "spec": {\n    "replicas": 1\n  }\n}', "```", "",
        "**patch**", "", "```", '[\n  {\n    "op": "remove",\n    "path": "/spec/replicas"\n  }\n]', "```", "",
        "**expected**", "", "```", '{\n  "expected": {\n    "spec": {}\n  }\n}', "```", "",
        "**actual**", "", "```", '{\n  "document": {\n    "spec": {\n      "replicas": 0\n    }\n  }\n}', "```",
        ""]).split("\n")

    html = (tmp_path / "out" / "report.html").read_text()
    row = html[html.index("report.yaml::bad</code><div"):]
    row = row[:row.index("</tr>")]
    assert "<pre class=\"diff\">document /spec/replicas: expected absent, got 0</pre>" in row
    assert f"case file: <code>{source}</code>" in row
    assert ("<h4>original</h4><pre>{\n  &quot;spec&quot;: {\n    &quot;replicas&quot;: 1\n  }\n}</pre>"
            "<h4>patch</h4><pre>[") in row


def _hostile(run):
    """The run with results whose text needs every kind of XML escaping, an empty failure and error,
    a skip, load errors with and without a case, and an interrupt."""
    good, bad, err = run.results
    text = 'a & b < c > d "q" \'s\' \r\n\ttab'
    results = [
        good,
        replace(bad, reason=text * 20, diff=(text, "second line"),
                server_changes=({"change": "added", "pointer": "/x", "value": '"<v>"'},)),
        replace(bad, diff=(), reason=""),
        replace(err, status=ERROR, reason=text),
        replace(err, status=ERROR, reason=""),
        replace(good, status=SKIP, reason=text),
    ]
    errors = [LoadError("cases/json-patch/report.yaml", text, case="c<1>"), LoadError("cases/a&b.yaml", text)]
    return replace(run, results=results, load_errors=errors, interrupted="SIGTERM", planned=9)


def _junit_by_elementtree(run):
    """junit.xml as ElementTree builds and serializes it: the bytes junit_xml must give."""
    suites = ET.Element("testsuites", name=f"patchconf {run.target_name}")
    by_file = defaultdict(list)
    for result in run.results:
        by_file[result.case.file].append(result)
    for error in run.load_errors:
        by_file.setdefault(error.file, [])
    if run.interrupted:
        suite = ET.SubElement(suites, "testsuite", name="patchconf run", tests="1", failures="0", errors="1",
                              skipped="0")
        case = ET.SubElement(suite, "testcase", classname="patchconf", name="(run)")
        ET.SubElement(case, "error", message="interrupted").text = run.stopped_early()
    for file, results in sorted(by_file.items()):
        counts = Counter(r.status for r in results)
        file_errors = [e for e in run.load_errors if e.file == file]
        suite = ET.SubElement(suites, "testsuite", name=file, tests=str(len(results) + len(file_errors)),
                              failures=str(counts[FAIL]), errors=str(counts[ERROR] + len(file_errors)),
                              skipped=str(counts[SKIP]))
        for error in file_errors:
            case = ET.SubElement(suite, "testcase", classname=file, name=error.case or "(file)")
            ET.SubElement(case, "error", message="load error").text = str(error)
        for result in results:
            case = ET.SubElement(suite, "testcase", classname=file, name=result.case.name,
                                 time=f"{result.seconds:.4f}")
            if result.status == FAIL:
                ET.SubElement(case, "failure", message=result.reason[:200]).text = failure_text(result)
            elif result.status == ERROR:
                ET.SubElement(case, "error", message=result.reason[:200]).text = failure_text(result)
            elif result.status == SKIP:
                ET.SubElement(case, "skipped", message=result.reason)
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"


def test_junit_is_what_elementtree_writes(write_case_file, scripted):
    run = _run(write_case_file, scripted)
    hostile = _hostile(run)
    for each in (run, hostile, replace(run, results=[], load_errors=[])):
        assert junit_xml(each) == _junit_by_elementtree(each)
    text = junit_xml(hostile)
    # a failure without reason or diff still shows its case file, inputs, expected and actual
    assert '<failure message="">--- case file ---\n' in text and '<error message="">--- case file ---\n' in text
    assert 'message="a &amp; b &lt; c &gt; d &quot;q&quot; \'s\' &#13;&#10;&#09;tab"' in text
    assert ET.fromstring(text.encode()).find(".//skipped").get("message") == 'a & b < c > d "q" \'s\' \r\n\ttab'


def test_counts_follow_the_results(write_case_file, scripted):
    run = _run(write_case_file, scripted)
    assert run.counts() == {"pass": 2, "fail": 1}
    run.counts()[PASS] += 5  # a caller's copy: the run's counts stay its results'
    run.counts_by("tag")["JP-REPLACE"][PASS] += 5
    assert run.counts() == {"pass": 2, "fail": 1}
    assert run.counts_by("tag") == {"JP-REPLACE": {"pass": 2, "fail": 1}}
    run.results.append(replace(run.results[0], status=SKIP))
    assert run.counts() == {"pass": 2, "fail": 1, "skip": 1}
    run.results[0] = replace(run.results[0], status=ERROR)
    assert run.counts() == {"pass": 1, "fail": 1, "skip": 1, "error": 1}
    assert run.counts_by("type") == {"json-patch": {"error": 1, "fail": 1, "pass": 1, "skip": 1}}
    run.results = run.results[:1]
    assert run.summary_json()["summary"] == {"error": 1}


def test_reports_written_over_longer_ones_are_cut_to_length(write_case_file, scripted, tmp_path):
    run = _hostile(_run(write_case_file, scripted))
    out = tmp_path / "out"
    write_reports(run, out)
    longer = {path.name: path.read_bytes() for path in out.iterdir()}
    write_reports(replace(run, results=run.results[:1], load_errors=[], interrupted=None), out)
    fresh = tmp_path / "fresh"
    write_reports(replace(run, results=run.results[:1], load_errors=[], interrupted=None), fresh)
    for name, before in longer.items():
        now = (out / name).read_bytes()
        assert now == (fresh / name).read_bytes() and len(now) < len(before)


def test_a_report_that_cannot_be_written_raises(write_case_file, scripted, tmp_path):
    run = _run(write_case_file, scripted)
    out = tmp_path / "out"
    (out / "report.md").mkdir(parents=True)
    with pytest.raises(IsADirectoryError, match=re.escape(f"Is a directory: '{out / 'report.md'}'")):
        write_reports(run, out)
    assert json.loads((out / "results.json").read_text())["summary"] == {"pass": 2, "fail": 1}
    assert not (out / "report.html").exists()  # written in order: it comes after the one that failed


def test_results_name_the_python_that_ran_them(write_case_file, scripted):
    assert _run(write_case_file, scripted).summary_json()["python"] == platform.python_version()


def test_results_log_lines_are_whole_and_read_back_after_short_writes(write_case_file, scripted, tmp_path,
                                                                    monkeypatch):
    from patchconf.harness.reporting import results as results_file

    run = _run(write_case_file, scripted)
    os_write, signal_masks = results_file.os.write, []

    def short_write(fd, data):  # as on a nearly full disk: a few bytes at a time
        return os_write(fd, bytes(data[:7]))

    def pthread_sigmask(how, signals):
        signal_masks.append(how)
        return set()

    log = results_file.ResultsLog(tmp_path / "whole" / "results.jsonl", run, len(run.results))
    for index, result in enumerate(run.results):
        log.write(index, result)
    log.end(0.5, None)
    monkeypatch.setattr(results_file.os, "write", short_write)
    monkeypatch.setattr(results_file.signal, "pthread_sigmask", pthread_sigmask)
    log = results_file.ResultsLog(tmp_path / "short" / "results.jsonl", run, len(run.results))
    for index, result in enumerate(run.results):
        log.write(index, result)
    log.end(0.5, None)
    lines = (tmp_path / "short" / "results.jsonl").read_text(encoding="utf-8").split("\n")
    assert lines == (tmp_path / "whole" / "results.jsonl").read_text(encoding="utf-8").split("\n")
    assert len(lines) == len(run.results) + 3 and lines[-1] == ""  # header, results, end; a line end each
    assert signal_masks == [results_file.signal.SIG_BLOCK, results_file.signal.SIG_SETMASK] * (len(lines) - 1)
    again = results_file.read_log(tmp_path / "short" / "results.jsonl")
    assert [(r.case.id, r.status) for r in again.results] == [(r.case.id, r.status) for r in run.results]


def test_a_killed_runs_time_is_until_its_last_line_not_naught(write_case_file, scripted, tmp_path):
    import os

    from patchconf.harness.reporting import results as results_file

    run = _run(write_case_file, scripted)
    log = results_file.ResultsLog(tmp_path / "results.jsonl", run, len(run.results))
    log.write(0, run.results[0])  # then killed: no end line
    last_write = run.started.timestamp() + 42.5
    os.utime(tmp_path / "results.jsonl", (last_write, last_write))
    again = results_file.read_log(tmp_path / "results.jsonl")
    assert again.interrupted == results_file.NOT_FINISHED
    assert again.seconds == pytest.approx(42.5, abs=0.001)
    assert summary_text(again).splitlines()[-1].endswith(" load errors in 42.5s")


def test_a_report_says_a_targets_name_and_version_once(write_case_file, scripted):
    from patchconf.harness.reporting.report import markdown

    run = _run(write_case_file, scripted)
    for description, said in (("", "x 0.0.1"), ("x 0.0.1", "x 0.0.1"), ("x 0.0.1 (python)", "x 0.0.1 (python)"),
                              ("a program of ours", "x 0.0.1 (a program of ours)")):
        target = replace(run.target, family="x", version="0.0.1", description=description)
        assert f"\n- target: {said}\n" in markdown(replace(run, target=target))


def test_counts_of_one_are_singular(write_case_file, scripted):
    from patchconf.harness import counted

    run = _run(write_case_file, scripted)
    one = replace(run, results=run.results[:1])
    assert summary_text(one).startswith(f"patchconf: 1 case on {run.target_name} ")
    assert [counted(n, "case") for n in (0, 1, 2)] == ["0 cases", "1 case", "2 cases"]
    stopped = replace(one, interrupted="SIGINT", planned=1)
    assert stopped.stopped_early() == ("INTERRUPTED (SIGINT) after 1 of 1 case: these results are those of the "
                                       "cases that finished")


def test_results_json_and_the_log_read_back_to_the_run_that_wrote_them(write_case_file, scripted, tmp_path):
    from patchconf.harness.reporting.results import ResultsLog, read_run

    run = replace(_run(write_case_file, scripted), corpus={"path": "cases", "version": "git 0123abc"},
                  patchconf="0.1.0", planned=3)
    write_reports(run, tmp_path / "out")
    log = ResultsLog(tmp_path / "log" / "results.jsonl", run, len(run.results))
    for index, result in enumerate(run.results):
        log.write(index, result)
    log.end(run.seconds, None)
    for path in (tmp_path / "out", tmp_path / "out" / "results.json", tmp_path / "log"):
        again = read_run(path)
        assert (again.target_name, again.target, again.started, again.seconds, again.planned, again.interrupted,
                again.corpus, again.patchconf, again.load_errors) == (
            run.target_name, run.target, run.started, run.seconds, run.planned, run.interrupted, run.corpus,
            run.patchconf, run.load_errors), path
        assert [(r.case.id, r.status, r.reason, r.diff, r.actual) for r in again.results] == [
            (r.case.id, r.status, r.reason, r.diff, r.actual) for r in run.results]
