"""harness/action.py, the steps of action.yml, as GitHub runs them: inputs in the environment,
the step summary and outputs files GitHub hands the step, the workspace as working directory."""

import json
import subprocess
from pathlib import Path

import pytest
import yaml

from patchconf.harness import SOURCE_ROOT, patchconf_version
from patchconf.harness.action import BadInput, install_judges, judges_install_command, main, read_inputs, run_arguments
from tests.harness.corpus_snippets import case_file

CASES = case_file("""
  - name: replace-member
    description: replace an existing member
    original: {a: 1}
    patch: [{op: replace, path: /a, value: 2}]
    expected: {a: 2}
  - name: replace-stated-wrong
    description: an expectation the reference does not give, to make a failure
    original: {a: 1}
    patch: [{op: replace, path: /a, value: 2}]
    expected: {a: 3}
""", tags="JP-REPLACE")
WRONG = "cases/json-patch/action.yaml::replace-stated-wrong"


@pytest.fixture
def workspace(tmp_path, monkeypatch, write_case_file):
    """A job's workspace (the working directory), its case file, and the files GitHub hands a step."""
    path = write_case_file("json-patch/action.yaml", CASES)
    work = tmp_path / "workspace"
    work.mkdir()
    monkeypatch.chdir(work)
    github = {"GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary.md"), "GITHUB_OUTPUT": str(tmp_path / "output"),
              "PATCHCONF_ACTION_CASES": str(path)}
    return work, github, tmp_path


def _outputs(github):
    return dict(line.split("=", 1) for line in Path(github["GITHUB_OUTPUT"]).read_text().splitlines())


def test_inputs_are_read_from_the_environment_with_the_runs_own_report_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    known = tmp_path / "known.txt"
    known.write_text(f"{WRONG}\n")
    inputs = read_inputs({"PATCHCONF_ACTION_TARGET": " cmd:python my adapter.py ",
                          "PATCHCONF_ACTION_TYPES": "json-patch, merge-patch\nstrategic",
                          "PATCHCONF_ACTION_EXPECT_FAILURES": "known.txt", "PATCHCONF_ACTION_FORMAT": "json"})
    assert run_arguments(inputs) == [
        "run", "--target", "cmd:python my adapter.py",
        "--report", str(tmp_path / "reports" / "cmd-python my adapter.py"),  # where `patchconf run` puts it
        "--format", "json", "--type", "json-patch", "--type", "merge-patch", "--type", "strategic",
        "--expect-failures", "known.txt"]
    (tmp_path / "a.yaml").write_text("cases: []\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "c.yml").write_text("cases: []\n")
    plain = read_inputs({"PATCHCONF_ACTION_TARGET": "reference", "PATCHCONF_ACTION_REPORT_DIR": "out",
                         "PATCHCONF_ACTION_CASES": "a.yaml b"})
    assert run_arguments(plain) == ["run", "--target", "reference", "--report", "out", "--format", "text",
                                    "--cases", "a.yaml", "--cases", "b"]


@pytest.mark.parametrize(("environ", "message"), [
    ({}, "input 'target' is required, e.g. 'cmd:python adapter.py'"),
    ({"PATCHCONF_ACTION_TARGET": "reference", "PATCHCONF_ACTION_FORMAT": "html"},
     "input 'format' is 'html'; it takes one of text, json, markdown"),
    ({"PATCHCONF_ACTION_TARGET": "reference", "PATCHCONF_ACTION_EXPECT_FAILURES": "3"},
     "input 'expect-failures' names '3', which is not a file (a case id per line)"),
    ({"PATCHCONF_ACTION_TARGET": "reference", "PATCHCONF_ACTION_CASES": "cases/typo.yaml, empty notes.txt"},
     "input 'cases': cases/typo.yaml: no such file or directory; empty: holds no case files (.yaml, .yml, .json); "
     "notes.txt: not a case file (those end in .yaml, .yml, .json)"),
])
def test_an_input_the_action_cannot_run_with_is_an_error_annotation(environ, message, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("cases: []\n")
    with pytest.raises(BadInput) as raised:
        read_inputs(environ)
    assert str(raised.value) == message
    assert main({**environ, "GITHUB_OUTPUT": str(tmp_path / "output")}) == 2
    assert capsys.readouterr().out == f"::error title=patchconf::{message}\n"
    assert not (tmp_path / "output").exists() and not (tmp_path / "reports").exists()


def test_a_failing_run_fails_the_step_and_leaves_its_summary_reports_and_outputs(workspace, capsys):
    work, github, _ = workspace
    code = main({**github, "PATCHCONF_ACTION_TARGET": "reference", "PATCHCONF_ACTION_FORMAT": "json"})
    assert code == 1
    reports = work / "reports" / "reference"
    assert _outputs(github) == {"junit": str(reports / "junit.xml"), "report-dir": str(reports),
                                "summary": str(reports / "summary.json"), "exit-code": "1"}
    printed = capsys.readouterr().out
    summary = json.loads(printed)
    assert (summary["ok"], summary["counts"]) == (False, {"pass": 1, "fail": 1, "error": 0, "skip": 0})
    assert [failure["id"] for failure in summary["failures"]] == [WRONG]
    assert (reports / "summary.json").read_text() == printed
    assert 'tests="2" failures="1"' in (reports / "junit.xml").read_text()
    step = Path(github["GITHUB_STEP_SUMMARY"]).read_text()
    assert step == (
        "### ❌ patchconf on `reference` (reference 0.1.0)\n\n"
        "| type | pass | fail | error | skip |\n|---|---:|---:|---:|---:|\n"
        "| json-patch | 1 | 1 | 0 | 0 |\n| **total** | **1** | **1** | **0** | **0** |\n\n"
        "<details><summary>failures</summary>\n\n"
        f"- fail `{WRONG}`: document /a: expected 3, got 2\n\n</details>\n")


def test_a_listed_known_failure_passes_the_step_and_one_fixed_fails_it(workspace, capsys):
    work, github, _ = workspace
    known = work / "known-failures.txt"
    known.write_text(f"# the reference gives 2\n{WRONG}\n")
    environ = {**github, "PATCHCONF_ACTION_TARGET": "reference", "PATCHCONF_ACTION_FORMAT": "markdown",
               "PATCHCONF_ACTION_EXPECT_FAILURES": "known-failures.txt", "PATCHCONF_ACTION_REPORT_DIR": "out"}
    assert main(environ) == 0
    printed = capsys.readouterr().out
    step = Path(github["GITHUB_STEP_SUMMARY"]).read_text()
    assert step == printed == (work / "out" / "summary.md").read_text()
    assert step.startswith("### ✅ patchconf on `reference` (reference 0.1.0)\n")
    assert step.endswith("\nKnown failures: 1 still failing, **0 new**, **0 now passing**.\n")
    assert _outputs(github)["report-dir"] == "out" and _outputs(github)["exit-code"] == "0"

    known.write_text(f"{WRONG}\ncases/json-patch/action.yaml::replace-member\n")  # one listed that passes
    assert main({**environ, "PATCHCONF_ACTION_FORMAT": "text"}) == 1
    step = Path(github["GITHUB_STEP_SUMMARY"]).read_text()
    assert step.endswith("\nKnown failures: 1 still failing, **0 new**, **1 now passing**.\n"
                         "- now passing `cases/json-patch/action.yaml::replace-member`: remove it from the known "
                         "failures\n")  # appended after the first step's: a job summary gathers every step's
    assert step.count("### ") == 2
    assert "NOW PASSING cases/json-patch/action.yaml::replace-member" in (work / "out" / "summary.txt").read_text()


def test_a_target_that_cannot_start_fails_the_step_and_the_job_summary_says_so(workspace, capsys):
    work, github, _ = workspace
    assert main({**github, "PATCHCONF_ACTION_TARGET": "nosuch"}) == 2
    assert Path(github["GITHUB_STEP_SUMMARY"]).read_text() == (
        "### ❌ patchconf on `nosuch`\n\n`patchconf run` exited with 2 before any case ran; the job's log says why.\n")
    assert _outputs(github) == {"junit": "", "report-dir": "", "summary": "", "exit-code": "2"}
    assert "unknown target 'nosuch'" in capsys.readouterr().err
    assert not (work / "reports").exists()


def test_action_yml_passes_every_input_to_the_script_through_the_environment():
    action = yaml.safe_load((SOURCE_ROOT / "action.yml").read_text())
    assert action["runs"]["using"] == "composite"
    def environment(names):
        return {f"PATCHCONF_ACTION_{name.upper().replace('-', '_')}": f"${{{{ inputs.{name} }}}}" for name in names}

    step = next(step for step in action["runs"]["steps"] if step.get("id") == "run")
    assert step["run"] == '"$RUNNER_TEMP/patchconf-venv/bin/python" -m patchconf.harness.action'
    assert list(action["inputs"]) == ["target", "types", "expect-failures", "format", "cases", "report-dir",
                                      "judges", "judges-find-links"]
    assert step["env"] == environment(list(action["inputs"])[:6])
    names = [step.get("name") for step in action["runs"]["steps"]]
    judges = action["runs"]["steps"][names.index("Install the prebuilt judges")]
    assert names.index("Install patchconf") < names.index("Install the prebuilt judges") < names.index("patchconf run")
    assert judges["run"] == '"$RUNNER_TEMP/patchconf-venv/bin/python" -m patchconf.harness.action judges'
    assert judges["env"] == environment(["judges", "judges-find-links"])
    assert action["inputs"]["judges"]["default"] == "wheel"
    assert {name: output["value"] for name, output in action["outputs"].items()} == {
        name: f"${{{{ steps.run.outputs.{name} }}}}" for name in ("junit", "report-dir", "summary", "exit-code")}


def test_the_judges_step_installs_the_wheel_of_this_patchconf_from_pypi_or_the_places_given():
    assert judges_install_command({}, "/py") == [
        "/py", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "--only-binary=:all:",
        f"patchconf-judges=={patchconf_version()}"]
    assert judges_install_command({"PATCHCONF_ACTION_JUDGES": "wheel",
                                   "PATCHCONF_ACTION_JUDGES_FIND_LINKS": "dist/, https://example.org/judges"},
                                  "/py")[-3:] == [
        "--find-links=dist/", "--find-links=https://example.org/judges", f"patchconf-judges=={patchconf_version()}"]
    assert judges_install_command({"PATCHCONF_ACTION_JUDGES": "build"}, "/py") is None
    with pytest.raises(BadInput, match="input 'judges' is 'prebuilt'; it takes one of wheel, build"):
        judges_install_command({"PATCHCONF_ACTION_JUDGES": "prebuilt"}, "/py")


@pytest.mark.parametrize(("environ", "pip_exit", "said", "code"), [
    ({}, 0, f"patchconf: installed patchconf-judges {patchconf_version()}: upstream, kube-apiserver and etcd "
            "prebuilt, no Go build needed", 0),
    ({}, 1, f"::notice title=patchconf::no patchconf-judges {patchconf_version()} wheel for this runner (ERROR: No "
            "matching distribution found): a target needing Kubernetes' own binaries (upstream, live@1.MINOR) builds "
            "them with Go on first use", 0),
    ({"PATCHCONF_ACTION_JUDGES": "build"}, None,
     "patchconf: input 'judges' is build: a target needing Kubernetes' own binaries (upstream, live@1.MINOR) "
     "builds them with Go on first use", 0),
    ({"PATCHCONF_ACTION_JUDGES": "no"}, None, "::error title=patchconf::input 'judges' is 'no'; it takes one of "
                                              "wheel, build", 2),
])
def test_the_judges_step_passes_without_a_wheel_and_says_what_it_did(environ, pip_exit, said, code, capsys):
    calls = []

    def pip(command, **options):
        calls.append(command)
        return subprocess.CompletedProcess(command, pip_exit, "", "ERROR: No matching distribution found\n")

    assert install_judges(environ, run=pip) == code
    assert capsys.readouterr().out.splitlines() == [said]
    assert len(calls) == (0 if pip_exit is None else 1)
