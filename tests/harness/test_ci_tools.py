"""Tools for an implementer's CI: --expect-failures, --format json|markdown, patchconf diff."""

import json

from patchconf.harness.cli import main
from tests.harness.corpus_snippets import case_file

HEAD = case_file("""
""", tags="JP-REPLACE")


def case(name, expected, aliases=None):
    alias = f"\n    aliases: [{aliases}]" if aliases else ""
    return f"""
  - name: {name}
    description: replace a member{alias}
    original: {{a: 1}}
    patch: [{{op: replace, path: /a, value: 2}}]
    expected: {{a: {expected}}}
"""


def corpus(write_case_file, *cases):
    return write_case_file("json-patch/replace.yaml", HEAD + "".join(cases))


def test_known_failures_fail_only_on_news(write_case_file, tmp_path, capsys):
    path = corpus(write_case_file, case("right", 2), case("wrong", 3), case("also-wrong", 4))
    known = tmp_path / "known.txt"
    file = "cases/json-patch/replace.yaml"
    known.write_text(f"# known failures of our library\n{file}::wrong  # issue 12\n\n{file}::also-wrong\n")
    run = ["run", "--cases", str(path), "--report", str(tmp_path / "out"), "--expect-failures", str(known)]
    assert main(run) == 0
    out = capsys.readouterr().out
    assert "known failures (" in out and "2 still failing, 0 new, 0 now passing" in out

    known.write_text(f"{file}::wrong\n{file}::right\n{file}::no-such-case\n")
    assert main([*run, "--format", "json"]) == 1
    summary = json.loads(capsys.readouterr().out)
    assert summary["ok"] is False
    assert summary["counts"] == {"pass": 1, "fail": 2, "error": 0, "skip": 0}
    assert summary["known_failures"] == {
        "ok": False, "new_failures": [f"{file}::also-wrong"], "now_passing": [f"{file}::right"],
        "still_failing": [f"{file}::wrong"], "not_run": [], "unknown": [f"{file}::no-such-case"]}
    assert [f["id"] for f in summary["failures"]] == [f"{file}::wrong", f"{file}::also-wrong"]


def test_a_known_failure_not_selected_is_not_news(write_case_file, tmp_path, capsys):
    path = corpus(write_case_file, case("right", 2), case("wrong", 3))
    known = tmp_path / "known.txt"
    known.write_text("cases/json-patch/replace.yaml::wrong\n")
    code = main(["run", "--cases", str(path), "-k", "right", "--report", str(tmp_path / "out"),
                 "--expect-failures", str(known), "--format", "json"])
    assert code == 0
    verdict = json.loads(capsys.readouterr().out)["known_failures"]
    assert verdict["not_run"] == ["cases/json-patch/replace.yaml::wrong"] and verdict["unknown"] == []


def test_a_malformed_known_failures_file_names_its_line(write_case_file, tmp_path, capsys):
    path = corpus(write_case_file, case("right", 2))
    known = tmp_path / "known.txt"
    known.write_text("cases/json-patch/replace.yaml::right\nright\n")
    assert main(["run", "--cases", str(path), "--expect-failures", str(known)]) == 2
    assert f"{known}:2: 'right' is not a case id (<file>::<name>)" in capsys.readouterr().err


def test_markdown_summary_for_a_ci_page(write_case_file, tmp_path, capsys):
    path = corpus(write_case_file, case("right", 2), case("wrong", 3))
    assert main(["run", "--cases", str(path), "--report", str(tmp_path / "out"), "--format", "markdown"]) == 1
    captured = capsys.readouterr()
    heading, *lines = captured.out.splitlines()
    assert heading.startswith("### ❌ patchconf on `reference` (reference ")
    assert lines == [
        "",
        "| type | pass | fail | error | skip |",
        "|---|---:|---:|---:|---:|",
        "| json-patch | 1 | 1 | 0 | 0 |",
        "| **total** | **1** | **1** | **0** | **0** |",
        "",
        "<details><summary>failures</summary>",
        "",
        "- fail `cases/json-patch/replace.yaml::wrong`: document /a: expected 3, got 2",
        "",
        "</details>",
    ]
    assert "reports: " in captured.err  # the paths leave stdout to the summary


def test_report_applies_known_failures_to_a_recorded_run(write_case_file, tmp_path, capsys):
    path = corpus(write_case_file, case("right", 2), case("wrong", 3))
    assert main(["run", "--cases", str(path), "--report", str(tmp_path / "out")]) == 1
    known = tmp_path / "known.txt"
    known.write_text("cases/json-patch/replace.yaml::wrong\n")
    capsys.readouterr()
    assert main(["report", str(tmp_path / "out"), "--expect-failures", str(known), "--quiet"]) == 0
    assert "1 still failing, 0 new, 0 now passing" in capsys.readouterr().out


def test_diff_names_what_started_and_stopped_passing(write_case_file, tmp_path, capsys):
    path = corpus(write_case_file, case("a", 2), case("b", 3), case("c", 2), case("d", 2))
    assert main(["run", "--cases", str(path), "--report", str(tmp_path / "old")]) == 1
    # a breaks, b is fixed, c is renamed (its alias keeps its history), d is gone, e is new
    corpus(write_case_file, case("a", 5), case("b", 2), case("c-renamed", 2, aliases="c"), case("e", 9))
    assert main(["run", "--cases", str(path), "--report", str(tmp_path / "new")]) == 1
    capsys.readouterr()

    assert main(["diff", str(tmp_path / "old"), str(tmp_path / "new"), "--format", "json"]) == 1
    diff = json.loads(capsys.readouterr().out)
    file = "cases/json-patch/replace.yaml"
    assert diff["counts"] == {"stopped passing": 1, "started passing": 1, "new": 1, "gone": 1}
    assert diff["regressions"] == 2  # a, and the new failing e
    assert [(c["id"], c["change"], c["old"], c["new"]) for c in diff["changes"]] == [
        (f"{file}::a", "stopped passing", "pass", "fail"),
        (f"{file}::b", "started passing", "fail", "pass"),
        (f"{file}::e", "new", None, "fail"),
        (f"{file}::d", "gone", "pass", None),
    ]
    assert diff["changes"][0]["reason"] == "document /a: expected 5, got 2"

    assert main(["diff", str(tmp_path / "old" / "results.json"), str(tmp_path / "new" / "results.jsonl")]) == 1
    heading, *lines = capsys.readouterr().out.splitlines()
    assert heading.startswith("patchconf diff: reference (reference ") and heading.endswith(", 4 cases)")
    assert lines == [
        "",
        "stopped passing: 1", f"  {file}::a  pass -> fail", "      document /a: expected 5, got 2",
        "",
        "started passing: 1", f"  {file}::b  fail -> pass",
        "",
        "new: 1", f"  {file}::e  - -> fail", "      document /a: expected 9, got 2",
        "",
        "gone: 1", f"  {file}::d  pass -> -",
        "",
        "2 regression(s)",
    ]

    assert main(["diff", str(tmp_path / "new"), str(tmp_path / "new"), "--format", "markdown"]) == 0
    assert "No case changed status." in capsys.readouterr().out


def test_diff_of_something_that_is_not_a_run_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "results.json").write_text("{}")
    assert main(["diff", str(tmp_path), str(tmp_path)]) == 2
    assert "is not a patchconf results.json" in capsys.readouterr().err
