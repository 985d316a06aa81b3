import gc
import json
import re
from pathlib import Path

import pytest

from patchconf.harness.cli import COMMANDS, build_parser, main
from tests.harness.corpus_snippets import case_file

GOOD = case_file("""
  - name: replace-member
    description: replace an existing member
    original: {a: 1}
    patch: [{op: replace, path: /a, value: 2}]
    expected: {a: 2}
""", tags="JP-REPLACE")


def test_run_reports_bad_file_runs_good_one_and_fails(write_case_file, tmp_path, capsys):
    good = write_case_file("json-patch/good.yaml", GOOD)
    write_case_file("json-patch/bad.yaml", "cases:\n  - name: x\n    description: 1\n")
    code = main(["run", "--cases", str(good.parent), "--report", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 1
    assert "LOAD ERROR cases/json-patch/bad.yaml:3:18: cases/json-patch/bad.yaml::x: 1 is not of type \"string\"" in out
    # every problem of the broken case: its description, and what it lacks (type, tags, expectation, provenance)
    assert "total: 1 pass, 0 fail, 0 error, 0 skip, 5 load errors" in out
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [r["name"] for r in data["results"]] == ["replace-member"]
    assert data["results"][0]["status"] == "pass"


def test_run_passes_on_a_good_corpus_and_filters(write_case_file, tmp_path, capsys):
    good = write_case_file("json-patch/good.yaml", GOOD)
    assert main(["run", "--cases", str(good), "--report", str(tmp_path / "out")]) == 0
    assert main(["run", "--cases", str(good), "--type", "strategic", "--report", str(tmp_path / "o2")]) == 2
    assert capsys.readouterr().err == (f"patchconf run: no case matched the selection (--cases {good} --type "
                                       "strategic); give --allow-empty where that is no error\n")
    assert main(["run", "--cases", str(good), "--type", "strategic", "--allow-empty", "--report",
                 str(tmp_path / "o3")]) == 0
    assert capsys.readouterr().err == (f"patchconf run: no case matched the selection (--cases {good} --type "
                                       "strategic); --allow-empty: no error\n")


@pytest.mark.parametrize("command", [["validate"], ["run", "--cases"], ["record", "--cases"], ["verify", "--cases"],
                                     ["coverage", "--cases"], ["matrix", "--targets", "reference", "--cases"]])
def test_a_case_path_that_is_missing_or_holds_no_cases_is_an_error_naming_it(command, write_case_file, tmp_path,
                                                                             monkeypatch, capsys):
    good = write_case_file("json-patch/good.yaml", GOOD)
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text(GOOD)
    monkeypatch.chdir(tmp_path)  # where a run would write its reports
    for given, problem in ((tmp_path / "nope" / "missing.yaml", "no such file or directory"),
                           (tmp_path / "empty", "holds no case files (.yaml, .yml, .json)"),
                           (tmp_path / "notes.txt", "not a case file (those end in .yaml, .yml, .json)")):
        arguments = [*command, str(good), *command[-1:], str(given)] if command != ["validate"] else \
            ["validate", str(good), str(given)]
        assert main(arguments) == 2
        captured = capsys.readouterr()
        assert (captured.out, captured.err) == ("", f"patchconf {command[0]}: {given}: {problem}\n")
    assert not (tmp_path / "reports").exists()  # nothing ran


@pytest.mark.parametrize("command", [["record"], ["verify"], ["matrix", "--targets", "reference"]])
def test_a_selection_that_matches_nothing_is_an_error_unless_allowed(command, write_case_file, tmp_path,
                                                                     monkeypatch, capsys):
    good = write_case_file("json-patch/good.yaml", GOOD)
    monkeypatch.chdir(tmp_path)
    assert main([*command, "--cases", str(good), "--tag", "SMP-NOTHING"]) == 2
    assert capsys.readouterr().err.endswith(
        f"patchconf {command[0]}: no case matched the selection (--cases {good} --tag SMP-NOTHING); "
        "give --allow-empty where that is no error\n")
    assert main([*command, "--cases", str(good), "--tag", "SMP-NOTHING", "--allow-empty"]) == 0
    assert capsys.readouterr().err.endswith(
        f"patchconf {command[0]}: no case matched the selection (--cases {good} --tag SMP-NOTHING); "
        "--allow-empty: no error\n")


def test_a_quiet_run_of_the_corpus_says_nothing_on_stderr(tmp_path, capsys):
    from patchconf.harness import BUNDLED_CASES_DIR

    assert main(["run", "--quiet", "--cases", str(BUNDLED_CASES_DIR), "--report", str(tmp_path / "out")]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # no "[156/1566] cases run" lines
    assert re.fullmatch(r"[0-9]+ pass, 0 fail, 0 error, [0-9]+ skip", captured.out.splitlines()[1])


def test_a_run_of_case_files_outside_a_corpus_names_them_not_the_bundled_corpus(tmp_path, monkeypatch, capsys):
    # As from an installed wheel: the user's good.yaml is checked with the bundled schema, but it is what ran.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.yaml").write_text(GOOD)
    assert main(["run", "--cases", "good.yaml", "--report", "out"]) == 0
    named = {"path": str(tmp_path / "good.yaml"), "version": "case files outside a corpus"}
    assert json.loads((tmp_path / "out" / "results.json").read_text())["corpus"] == named
    assert json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])["run"]["corpus"] == named
    assert f"corpus: {tmp_path / 'good.yaml'} (case files outside a corpus); patchconf " in capsys.readouterr().out


def test_a_matrix_names_the_corpus_its_runs_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "good.yaml").write_text(GOOD)
    assert main(["matrix", "--targets", "reference", "--cases", "good.yaml", "--results", "runs"]) == 0
    assert json.loads((tmp_path / "runs" / "reference" / "results.json").read_text())["corpus"] == {
        "path": str(tmp_path / "good.yaml"), "version": "case files outside a corpus"}


def test_unknown_target_is_a_clear_error(capsys):
    assert main(["run", "--target", "nosuch"]) == 2
    assert "unknown target 'nosuch'" in capsys.readouterr().err


def test_validate_flags_yaml_1_1_ambiguities(write_case_file, capsys):
    path = write_case_file("json-patch/yaml11.yaml", GOOD.replace("{a: 1}", "{a: on}"))
    assert main(["validate", str(path)]) == 1
    assert "/cases/0/original/a: 'on' reads as True under YAML 1.1; quote it" in capsys.readouterr().out
    assert main(["validate", str(write_case_file("json-patch/fine.yaml", GOOD))]) == 0
    assert capsys.readouterr().out == "1 case valid, 0 problems\n"


def test_validate_flags_a_version_written_as_a_number_where_it_is(write_case_file, capsys):
    text = GOOD.replace('version: "1.32.4"', "version: 1.10").replace(
        "    expected: {a: 2}\n", "    expected: {a: 2}\n    schema: {version: 1.30}\n")
    path = write_case_file("json-patch/versions.yaml", text)
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        'cases/json-patch/versions.yaml:4:51: 1.1 is not of type "string"',  # the load error, where 1.10 is
        f'{path}:4:51: version: 1.10 reads as the number 1.1, not 1.10; quote it: "1.10"',
        f'{path}:11:23: version: 1.30 reads as the number 1.3, not 1.30; quote it: "1.30"',
        "0 cases valid, 3 problems"]
    quoted = write_case_file("json-patch/quoted.yaml", GOOD.replace('version: "1.32.4"', "version: '1.10'"))
    assert main(["validate", str(quoted)]) == 0


def test_coverage_marks_ids_below_three(write_case_file, capsys):
    path = write_case_file("json-patch/good.yaml", GOOD)
    assert main(["coverage", "--cases", str(path), "--prefix", "JP-REPLACE"]) == 1
    out = capsys.readouterr().out
    assert "JP-REPLACE                  1  <-- below 3" in out


def _command_with_main(body: str):
    """``console_main`` in a fresh process, its ``main`` replaced by ``body`` (which returns the code)."""
    import subprocess
    import sys
    import textwrap

    script = ("import atexit, sys, threading, time\n"
              "from patchconf.harness import cli\n"
              "atexit.register(lambda: print('atexit callback ran'))\n"
              "def main():\n" + textwrap.indent(textwrap.dedent(body), "    ") +
              "cli.main = main\n"
              "sys.exit(cli.console_main())\n")
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)


def test_the_patchconf_command_ends_with_mains_code_after_atexit_callbacks_and_flushed_output_without_teardown():
    ended = _command_with_main("""
        class Noisy:
            def __del__(self):
                print('freed at the exit', file=sys.stderr)
        cli._leave_for_exit(Noisy())
        sys.stdout.write('written, not yet flushed')
        sys.stderr.write('an error, not yet flushed')
        return 3
    """)
    assert ended.returncode == 3
    assert ended.stdout == "written, not yet flushedatexit callback ran\n"
    assert ended.stderr == "an error, not yet flushed"  # what was left for the exit was not freed one by one


def test_the_patchconf_command_still_removes_a_temporary_directory_left_to_the_exit():
    ended = _command_with_main("""
        import tempfile
        cli._leave_for_exit(left := tempfile.TemporaryDirectory(prefix="patchconf-test-"))
        print(left.name)
        return 0
    """)
    left = ended.stdout.split("\n")[0]
    assert ended.returncode == 0 and left.startswith("/") and not Path(left).exists()  # its finalizer ran


def test_the_patchconf_command_exits_as_the_interpreter_does_while_a_thread_still_runs():
    ended = _command_with_main("""
        threading.Thread(target=lambda: (time.sleep(0.2), print('thread ended'))).start()
        cli._leave_for_exit(object())
        return 3
    """)
    assert ended.returncode == 3
    assert ended.stdout == "thread ended\natexit callback ran\n"


def test_the_patchconf_command_freezes_what_is_left_when_the_interpreter_exits(monkeypatch):
    import patchconf.harness.cli

    frozen, ended = [], []
    monkeypatch.setattr(patchconf.harness.cli, "main", lambda: 3)
    monkeypatch.setattr(patchconf.harness.cli, "_end_process", ended.append)  # as when a thread still runs
    monkeypatch.setattr(patchconf.harness.cli.gc, "freeze", lambda: frozen.append(True))
    monkeypatch.setattr(patchconf.harness.cli, "_left_for_exit", None)
    assert patchconf.harness.cli.console_main() == 3
    assert ended == [3] and frozen == [True]


def test_run_leaves_its_corpus_and_results_for_the_exit_only_in_the_command(write_case_file, tmp_path, monkeypatch):
    import patchconf.harness.cli
    from patchconf.harness.corpus.cases import Corpus
    from patchconf.harness.reporting.report import Run

    good = write_case_file("json-patch/good.yaml", GOOD)
    assert main(["run", "--cases", str(good), "--report", str(tmp_path / "out")]) == 0
    assert patchconf.harness.cli._left_for_exit is None  # main() alone (tests) keeps nothing
    monkeypatch.setattr(patchconf.harness.cli, "_left_for_exit", [])
    assert main(["run", "--cases", str(good), "--report", str(tmp_path / "out")]) == 0
    left = patchconf.harness.cli._left_for_exit
    assert [type(made) for made in left] == [Corpus, Run]
    assert [result.case.name for result in left[1].results] == ["replace-member"]


def test_run_freezes_the_loaded_corpus_while_it_runs_and_leaves_nothing_frozen(write_case_file, tmp_path,
                                                                             monkeypatch):
    import patchconf.harness.cli

    seen_while_running = []
    run_cases = patchconf.harness.cli.run_cases

    def recording_run_cases(selected, *args, **kwargs):
        seen_while_running.append((len(selected), gc.get_freeze_count() > 0, gc.isenabled()))
        return run_cases(selected, *args, **kwargs)

    monkeypatch.setattr(patchconf.harness.cli, "run_cases", recording_run_cases)
    good = write_case_file("json-patch/good.yaml", GOOD)
    assert main(["run", "--cases", str(good), "--report", str(tmp_path / "out")]) == 0
    assert seen_while_running == [(1, True, True)]  # frozen, and collecting what the run makes
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()


def _patchconf_in(directory, *arguments):
    """The installed command, run as a user runs it: from ``directory``, not from the checkout."""
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "patchconf.harness.cli", *arguments], cwd=directory,
                          capture_output=True, text=True, timeout=300)


def test_run_and_matrix_write_their_reports_where_the_user_is_not_into_the_checkout(write_case_file, tmp_path):
    good = write_case_file("json-patch/good.yaml", GOOD)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ran = _patchconf_in(elsewhere, "run", "--cases", str(good), "--quiet")
    assert ran.returncode == 0, ran.stderr
    reports = elsewhere / "reports" / "reference"
    assert sorted(p.name for p in reports.iterdir()) == ["junit.xml", "report.html", "report.md", "results.json",
                                                         "results.jsonl"]
    assert f"reports: {reports / 'results.jsonl'}, {reports / 'results.json'}, " in ran.stdout
    assert json.loads((reports / "results.json").read_text())["results"][0]["name"] == "replace-member"
    matrix = _patchconf_in(elsewhere, "matrix", "--targets", "reference", "--cases", str(good))
    assert matrix.returncode == 0, matrix.stderr
    assert (elsewhere / "reports" / "compliance.md").read_text().startswith("# Compliance matrix\n")
    assert sorted(p.name for p in (elsewhere / "reports").iterdir()) == ["compliance.html", "compliance.md",
                                                                         "reference"]


def parsed(parser, arguments: list[str], capsys) -> tuple[object, str, str]:
    try:
        result: object = vars(parser.parse_args(arguments))
    except SystemExit as exit_:
        result = ("exit", exit_.code)
    captured = capsys.readouterr()
    return result, captured.out, captured.err


def test_the_parser_of_one_command_parses_and_helps_as_the_whole_one(capsys):
    # main makes only the chosen command's parser for what starts with its name; argparse must not tell
    # the difference, in its usage line either (extra arguments are the whole parser's error).
    assert list(build_parser()._subparsers._group_actions[0].choices) == list(COMMANDS)
    for command in COMMANDS:
        for arguments in ([command, "--help"], [command], [command, "--bogus"], [command, "extra", "--bogus"],
                          ["run", "--cases", "c", "--jobs", "2", "--quiet", "--format", "json", "-k", "x"],
                          ["apiserver", "start", "--help"], ["apiserver", "stop"], ["live", "cleanup", "--help"],
                          ["diff", "a", "b", "--format", "markdown"], ["matrix", "--from", "r1", "r2"]):
            if arguments[0] != command:
                continue
            assert parsed(build_parser(command), arguments, capsys) == parsed(build_parser(), arguments, capsys)


def test_the_command_line_without_a_command_first_gets_every_command(capsys):
    for arguments in (["--help"], ["nosuch"], ["--bogus", "run"]):
        with pytest.raises(SystemExit) as exit_:
            main(arguments)
        captured = capsys.readouterr()
        assert (("exit", exit_.value.code), captured.out, captured.err) == parsed(build_parser(), arguments, capsys)


def test_a_target_reports_in_a_directory_named_for_it():
    from patchconf.harness import target_directory_name

    assert [target_directory_name(spec) for spec in ("reference", "reference:1.34", "kubectl:/usr/bin/kubectl")] \
        == ["reference", "reference-1.34", "kubectl-kubectl"]
