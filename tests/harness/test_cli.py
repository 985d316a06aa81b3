import gc
import json

from harness.cli import main

GOOD = """
defaults:
  type: json-patch
  tags: [JP-REPLACE]
  provenance: [{implementation: kubectl, version: "1.32.4"}]
cases:
  - name: replace-member
    description: replace an existing member
    original: {a: 1}
    patch: [{op: replace, path: /a, value: 2}]
    expected: {a: 2}
"""


def test_run_reports_bad_file_runs_good_one_and_fails(write_case_file, tmp_path, capsys):
    good = write_case_file("json-patch/good.yaml", GOOD)
    write_case_file("json-patch/bad.yaml", "cases:\n  - name: x\n    description: 1\n")
    code = main(["run", "--cases", str(good.parent), "--report", str(tmp_path / "out")])
    out = capsys.readouterr().out
    assert code == 1
    assert "LOAD ERROR" in out and "bad.yaml::x at /cases/0/description: 1 is not of type 'string'" in out
    # every problem of the broken case: its description, and what it lacks (type, tags, expectation, provenance)
    assert "total: 1 pass, 0 fail, 0 error, 0 skip, 5 load errors" in out
    data = json.loads((tmp_path / "out" / "results.json").read_text())
    assert [r["name"] for r in data["results"]] == ["replace-member"]
    assert data["results"][0]["status"] == "pass"


def test_run_passes_on_a_good_corpus_and_filters(write_case_file, tmp_path, capsys):
    good = write_case_file("json-patch/good.yaml", GOOD)
    assert main(["run", "--cases", str(good), "--report", str(tmp_path / "out")]) == 0
    assert main(["run", "--cases", str(good), "--type", "strategic", "--report", str(tmp_path / "o2")]) == 1
    assert "no case matched" in capsys.readouterr().err


def test_unknown_target_is_a_clear_error(capsys):
    assert main(["run", "--target", "nosuch"]) == 2
    assert "unknown target 'nosuch'" in capsys.readouterr().err


def test_validate_flags_yaml_1_1_ambiguities(write_case_file, capsys):
    path = write_case_file("json-patch/yaml11.yaml", GOOD.replace("{a: 1}", "{a: on}"))
    assert main(["validate", str(path)]) == 1
    assert "/cases/0/original/a: 'on' reads as True under YAML 1.1; quote it" in capsys.readouterr().out
    assert main(["validate", str(write_case_file("json-patch/fine.yaml", GOOD))]) == 0


def test_coverage_marks_ids_below_three(write_case_file, capsys):
    path = write_case_file("json-patch/good.yaml", GOOD)
    assert main(["coverage", "--cases", str(path), "--prefix", "JP-REPLACE"]) == 1
    out = capsys.readouterr().out
    assert "JP-REPLACE                  1  <-- below 3" in out


def test_the_patchconf_command_returns_mains_code_and_freezes_what_is_left_for_the_exit(monkeypatch):
    import harness.cli

    frozen = []
    monkeypatch.setattr(harness.cli, "main", lambda: 3)
    monkeypatch.setattr(harness.cli.gc, "freeze", lambda: frozen.append(True))
    assert harness.cli.console_main() == 3
    assert frozen == [True]


def test_run_freezes_the_loaded_corpus_while_it_runs_and_leaves_nothing_frozen(write_case_file, tmp_path,
                                                                             monkeypatch):
    import harness.cli

    seen_while_running = []
    run_cases = harness.cli.run_cases

    def recording_run_cases(selected, *args, **kwargs):
        seen_while_running.append((len(selected), gc.get_freeze_count() > 0, gc.isenabled()))
        return run_cases(selected, *args, **kwargs)

    monkeypatch.setattr(harness.cli, "run_cases", recording_run_cases)
    good = write_case_file("json-patch/good.yaml", GOOD)
    assert main(["run", "--cases", str(good), "--report", str(tmp_path / "out")]) == 0
    assert seen_while_running == [(1, True, True)]  # frozen, and collecting what the run makes
    assert gc.get_freeze_count() == 0
    assert gc.isenabled()
