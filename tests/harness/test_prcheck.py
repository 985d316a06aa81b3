"""The pull-request check on a throwaway git repository: changed files only, stable ids, verdicts."""

import shutil
import subprocess
from pathlib import Path

import pytest

from patchconf.harness import prcheck
from patchconf.harness.targets.base import Actual, TargetUnavailable

REPO = Path(__file__).resolve().parents[2]

ADD = """\
defaults:
  type: json-patch
  tags: [JP-ADD]
  provenance:
    - {implementation: upstream, version: "1.32.4"}
cases:
  - name: add-member
    description: adds a member
    original: {a: 1}
    patch: [{op: add, path: /b, value: 2}]
    expected: {a: 1, b: 2}
"""
REMOVE = ADD.replace("JP-ADD", "JP-REMOVE").replace("add-member", "remove-member").replace(
    "[{op: add, path: /b, value: 2}]", "[{op: remove, path: /a}]").replace("{a: 1, b: 2}", "{}")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=repo, check=True,
                   capture_output=True)


@pytest.fixture
def repo(tmp_path, monkeypatch, scripted):
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    (root / "cases" / "json-patch").mkdir(parents=True)
    shutil.copy(REPO / "cases" / "case.schema.json", root / "cases" / "case.schema.json")
    shutil.copy(REPO / "cases" / "BEHAVIOURS.md", root / "cases" / "BEHAVIOURS.md")
    (root / "cases" / "json-patch" / "add.yaml").write_text(ADD)
    (root / "cases" / "json-patch" / "remove.yaml").write_text(REMOVE)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", ".")
    _git(root, "commit", "-q", "-m", "base")
    _git(root, "checkout", "-q", "-b", "contribution")
    monkeypatch.chdir(root)
    monkeypatch.delenv("PATCHCONF_BASE_REF", raising=False)
    answers = {"add-member": Actual(document={"a": 1, "b": 2}), "add-object-member": Actual(document={"a": 1, "b": 2}),
               "remove-member": Actual(document={}), "new-case": Actual(document={"a": 1, "c": 3})}
    judge = scripted(answers, family="upstream", version="1.32.4")

    def make_target(spec, **options):
        if spec != "upstream":
            raise TargetUnavailable(f"{spec} is not in this test")
        return judge

    monkeypatch.setattr("patchconf.harness.cli.make_target", make_target)
    return root


def test_only_changed_case_files_are_checked(repo, capsys):
    assert prcheck.main(["main"]) == 0
    assert "0 case files to check" in capsys.readouterr().out
    text = ADD + ("  - name: new-case\n    description: new\n    original: {a: 1}\n"
                  "    patch: [{op: add, path: /c, value: 3}]\n    expected: {a: 1, c: 3}\n")
    (repo / "cases" / "json-patch" / "add.yaml").write_text(text)  # not committed: checked all the same
    assert prcheck.main(["main", "--allow-removed", "nothing"]) == 0
    out = capsys.readouterr().out
    assert "1 case files to check\n  cases/json-patch/add.yaml\n" in out
    assert "CONFIRMED cases/json-patch/add.yaml::new-case by upstream 1.32.4" in out
    assert "remove.yaml" not in out


def test_a_wrong_expectation_or_a_schema_error_fails_the_check(repo, capsys):
    (repo / "cases" / "json-patch" / "remove.yaml").write_text(REMOVE.replace("expected: {}", "expected: {a: 1}"))
    (repo / "cases" / "json-patch" / "new.yaml").write_text(ADD.replace("add-member", "new-case").replace(
        "description: adds a member", "description: [not, text]"))
    assert prcheck.main(["main"]) == 1
    out = capsys.readouterr().out
    assert ('cases/json-patch/new.yaml:8:18: cases/json-patch/new.yaml::new-case: ["not","text"] is not of type '
            '"string"') in out
    assert "CONTRADICTED cases/json-patch/remove.yaml::remove-member by upstream 1.32.4: document /a:" in out
    assert "pr-check: FAILED (validate, verify)" in out


def test_a_renamed_case_keeps_its_old_id_as_an_alias(repo, capsys):
    path = repo / "cases" / "json-patch" / "add.yaml"
    path.write_text(ADD.replace("  - name: add-member\n", "  - name: add-object-member\n"))
    assert prcheck.main(["main"]) == 1
    assert "ID GONE cases/json-patch/add.yaml::add-member: case ids are stable" in capsys.readouterr().out
    path.write_text(ADD.replace("  - name: add-member\n", "  - name: add-object-member\n    aliases: [add-member]\n"))
    assert prcheck.main(["main"]) == 0
    # moved to another file, committed: its alias is the full former id
    _git(repo, "mv", "cases/json-patch/remove.yaml", "cases/json-patch/delete.yaml")
    _git(repo, "commit", "-q", "-am", "move")
    assert prcheck.main(["main"]) == 1
    assert "ID GONE cases/json-patch/remove.yaml::remove-member" in capsys.readouterr().out
    moved = repo / "cases" / "json-patch" / "delete.yaml"
    alias = "    aliases: [cases/json-patch/remove.yaml::remove-member]\n"
    moved.write_text(REMOVE.replace("  - name: remove-member\n", "  - name: remove-member\n" + alias))
    assert prcheck.main(["main"]) == 0
    assert "cases/json-patch/delete.yaml" in capsys.readouterr().out


def test_the_script_runs_from_a_checkout(repo):
    completed = subprocess.run([str(REPO / ".ci" / "pr-check"), "--help"], capture_output=True, text=True)
    assert completed.returncode == 0 and "base ref" in completed.stdout


def test_a_kubeconfig_that_is_not_there_is_an_error_not_a_judge_left_out(tmp_path, capsys):
    assert prcheck.main(["--kubeconfig", str(tmp_path / "typo")]) == 2
    assert capsys.readouterr().err == f"pr-check: --kubeconfig {tmp_path / 'typo'}: no such file\n"
